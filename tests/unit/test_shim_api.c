/* Host shim argument checking and launcher rendezvous, without a board. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/shared_mem.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/dn-shim-test.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    setenv("DIMMNET_RUN_DIR", dir, 1);
}

static void teardown(void)
{
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static void t_open_bad_arguments(void)
{
    dn_node *n = (dn_node *)1;
    struct dn_config cfg = { 0 };
    CHECK_EQ(dn_open(NULL, &n), DN_EINVAL);
    CHECK_EQ(dn_open(&cfg, NULL), DN_EINVAL);
    CHECK_EQ(dn_open(&cfg, &n), DN_EINVAL);               /* no paths */
    cfg = (struct dn_config){ .hostmem_path = "/nonexistent/a", .llcm_path = "/nonexistent/b",
                              .window_path = "/nonexistent/c", .hostbus_path = "/nonexistent/d",
                              .timeout_ms = 10 };
    CHECK_EQ(dn_open(&cfg, &n), DN_ENODEV);               /* no such files */
    CHECK(n == NULL);
    cfg.node_id = 70000;
    CHECK_EQ(dn_open(&cfg, &n), DN_EINVAL);
    cfg.node_id = 0;
    cfg.timeout_ms = -1;
    CHECK_EQ(dn_open(&cfg, &n), DN_EINVAL);
}

static void t_open_wrong_sized_memory(void)
{
    char path[96];
    snprintf(path, sizeof(path), "%s/hostmem", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fclose(f);
    CHECK(truncate(path, 4096) == 0);                     /* not 16 MiB */
    struct dn_config cfg = { .hostmem_path = path, .llcm_path = path,
                             .window_path = path, .hostbus_path = "/nonexistent",
                             .timeout_ms = 10 };
    dn_node *n;
    CHECK_EQ(dn_open(&cfg, &n), DN_ENODEV);
}

static void t_open_env_requires_launcher(void)
{
    dn_node *n;
    unsetenv("DIMMNET_NODE_ID");
    CHECK_EQ(dn_open_env(&n, 10), DN_EINVAL);
    setenv("DIMMNET_NODE_ID", "x1", 1);
    CHECK_EQ(dn_open_env(&n, 10), DN_EINVAL);
    setenv("DIMMNET_NODE_ID", "1", 1);
    CHECK_EQ(dn_open_env(&n, 10), DN_EINVAL);             /* no paths */
    unsetenv("DIMMNET_NODE_ID");
}

static void t_calls_without_node(void)
{
    dn_xfer x;
    uint32_t v;
    char buf[4] = { 0 };
    CHECK_EQ(dn_botf_put(NULL, 1, 0, buf, 4, &x), DN_EINVAL);
    CHECK_EQ(dn_indirect_write(NULL, 1, 0, buf, 4, &x), DN_EINVAL);
    CHECK_EQ(dn_indirect_slot_set(NULL, 0, 0), DN_EINVAL);
    CHECK_EQ(dn_wait(NULL, &x, 0), DN_EINVAL);
    CHECK_EQ(dn_reg_read(NULL, 0, &v), DN_EINVAL);
    CHECK_EQ(dn_mr_set(NULL, 0, 0x8001, 0x1000, 0, 4096, DN_MR_REMOTE_WRITE), DN_EINVAL);
    CHECK_EQ(dn_mr_set_paged(NULL, 0, 0x8001, 0x1000, 1ull << 30, DN_MR_REMOTE_WRITE),
             DN_EINVAL);
    dn_mr_fault f;
    CHECK_EQ(dn_mr_faults(NULL, &v, &f, 1), DN_EINVAL);
    CHECK(dn_hostmem(NULL, NULL) == NULL);
    dn_close(NULL);
}

static void t_strerror_names_every_status(void)
{
    for (int s = DN_ESTALE; s <= DN_OK; s++) {
        CHECK(strcmp(dn_strerror(s), "unknown status") != 0);
    }
    CHECK(strcmp(dn_strerror(-99), "unknown status") == 0);
}

static void t_rendezvous(void)
{
    char v[16];
    CHECK_EQ(dn_publish("slot", "0x1000"), DN_OK);
    CHECK_EQ(dn_lookup("slot", v, sizeof(v), 0), DN_OK);
    CHECK(strcmp(v, "0x1000") == 0);
    CHECK_EQ(dn_publish("slot", "0x2000"), DN_OK);        /* replaced whole */
    CHECK_EQ(dn_lookup("slot", v, sizeof(v), 0), DN_OK);
    CHECK(strcmp(v, "0x2000") == 0);
    CHECK_EQ(dn_lookup("missing", v, sizeof(v), 50), DN_ETIMEDOUT);
    CHECK_EQ(dn_publish("../escape", "x"), DN_EINVAL);
    CHECK_EQ(dn_publish("", "x"), DN_EINVAL);
    CHECK_EQ(dn_publish("k", NULL), DN_EINVAL);
    CHECK_EQ(dn_publish("long", "0123456789abcdefXYZ"), DN_OK);
    CHECK_EQ(dn_lookup("long", v, sizeof(v), 0), DN_ERANGE);
    unsetenv("DIMMNET_RUN_DIR");
    CHECK_EQ(dn_publish("slot", "1"), DN_EINVAL);
    setenv("DIMMNET_RUN_DIR", dir, 1);
}

static void t_llcm_user_address(void)
{
    /* The shim's public constant is the contract's. */
    CHECK_EQ(DN_RADDR_LLCM_USER, DN1_RADDR_LLCM + DN1_LLCM_USER_BASE);
    CHECK_EQ(DN1_LLCM_USER_BASE, DN1_LLCM_NIC_RESERVED);
    CHECK(dn_llcm_user(NULL, NULL) == NULL);
    CHECK(dn1_raddr_writable(DN1_HOSTMEM_SIZE - 4, 4));
    CHECK(!dn1_raddr_writable(DN1_HOSTMEM_SIZE - 4, 5));
    CHECK(dn1_raddr_writable(DN_RADDR_LLCM_USER, DN1_LLCM_SIZE - DN1_LLCM_USER_BASE));
    CHECK(!dn1_raddr_writable(DN_RADDR_LLCM_USER - 1, 1));
    CHECK(!dn1_raddr_writable(~0ull, 1));
}

static void t_counter_names(void)
{
    uint32_t v;
    CHECK(dn_counter_count() > 0);
    for (unsigned i = 0; i < dn_counter_count(); i++) {
        CHECK(dn_counter_name(i) != NULL);
        for (unsigned j = 0; j < i && dn_counter_name(i); j++) {
            CHECK(strcmp(dn_counter_name(i), dn_counter_name(j)) != 0);
        }
    }
    CHECK(dn_counter_name(dn_counter_count()) == NULL);
    CHECK(strcmp(dn_counter_name(15), "err_crc") == 0);   /* CNT[15] per docs */
    CHECK_EQ(dn_counter_read(NULL, 0, &v), DN_EINVAL);
    CHECK_EQ(dn_counter_read(NULL, dn_counter_count(), &v), DN_EINVAL);
}

static const struct test_case cases[] = {
    { "counter_names", t_counter_names },
    { "llcm_user_address", t_llcm_user_address },
    { "open_bad_arguments", t_open_bad_arguments },
    { "open_wrong_sized_memory", t_open_wrong_sized_memory },
    { "open_env_requires_launcher", t_open_env_requires_launcher },
    { "calls_without_node", t_calls_without_node },
    { "strerror_names_every_status", t_strerror_names_every_status },
    { "rendezvous", t_rendezvous },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
