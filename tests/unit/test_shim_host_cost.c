/*
 * The host profile (host-shim/src/host_cost.c) on a FAKE board: each kind
 * of host work moves modeled time by the profile's documented amount,
 * carried in the op bits of the next host-bus request (DN1_HB_HOST_NS).
 */
#include <stdlib.h>
#include <unistd.h>
#include "../common/check.h"
#include "fake_board_node.h"
#include "dimmnet1/hostbus.h"

static uint8_t llcm[DN1_LLCM_SIZE], window[DN1_WINDOW_SIZE];
static int board;
static dn_node *n;

/* The request the shim sends for @call (answered by the fake board). */
static struct dn1_hb_req request_of(int (*call)(dn_node *))
{
    struct dn1_hb_rsp rsp = { .magic = DN1_HB_MAGIC };
    struct dn1_hb_req req = { 0 };

    CHECK(write(board, &rsp, sizeof(rsp)) == (ssize_t)sizeof(rsp));
    CHECK_EQ(call(n), DN_OK);
    CHECK(read(board, &req, sizeof(req)) == (ssize_t)sizeof(req));
    return req;
}

static int clock0(dn_node *node)
{
    return dn_delay(node, 0, NULL);
}

/* The host ns the next request carries: the fake board answers a
 * dn_delay(0) (a CLOCK) and reads what the shim sent. */
static uint32_t next_request_ns(void)
{
    struct dn1_hb_req req = request_of(clock0);

    CHECK_EQ(req.op & DN1_HB_OP_MASK, DN1_HB_CLOCK);
    return DN1_HB_HOST_NS(req.op);
}

static void setup(void)
{
    n = fake_board_node(&board, llcm, sizeof(llcm), window, sizeof(window), NULL, 0);
    n->host_sync = 1;
    unsetenv("DIMMNET_HOST_PROFILE");
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
}

static void teardown(void)
{
    close(board);
    close(n->hb_fd);
    free(n->charges);
    free(n);
}

/* The paper's host by default: 1.176 ns an instruction, 3 ns a copied
 * byte, 9 instructions a CRC byte; fractions of a ns are kept for later. */
static void t_paper_host(void)
{
    CHECK(!strcmp(dn_host_profile(n), "paper-host"));
    CHECK_EQ(next_request_ns(), 0);
    CHECK_EQ(dn_host_work(n, DN_HOST_INSNS, 1000), DN_OK);
    CHECK_EQ(next_request_ns(), 1176);
    CHECK_EQ(next_request_ns(), 0);                 /* sent once */
    dn_host_work(n, DN_HOST_COPY, 1000);
    dn_host_work(n, DN_HOST_INSNS, 10);
    CHECK_EQ(next_request_ns(), 3000 + 11);         /* 11.76: 0.76 kept */
    dn_host_work(n, DN_HOST_CRC, 100);              /* 1058.4 + 0.76 */
    CHECK_EQ(next_request_ns(), 1059);
    CHECK_EQ(dn_host_charged(n), 1176 + 3011 + 1059);
    /* Window memory: 2.5 ns a byte, less the DIMM's 1.25 the board charges. */
    dn_host_charge(n, DN_HOST_PIO, 496);
    CHECK_EQ(next_request_ns(), 620);
}

/* More than a request's field holds goes with the following ones. */
static void t_long_work(void)
{
    struct dn1_hb_rsp rsp = { .magic = DN1_HB_MAGIC };
    struct dn1_hb_req req[2] = { { 0 } };

    /* More than one request carries: a CLOCK of it first, then the call
     * with the rest, so that the call takes effect after all of it. */
    dn_host_work(n, DN_HOST_COPY, 5000000);         /* 15 ms */
    CHECK(write(board, &rsp, sizeof(rsp)) == (ssize_t)sizeof(rsp));
    CHECK(write(board, &rsp, sizeof(rsp)) == (ssize_t)sizeof(rsp));
    CHECK_EQ(dn_delay(n, 0, NULL), DN_OK);
    CHECK(read(board, req, sizeof(req)) == (ssize_t)sizeof(req));
    CHECK_EQ(req[0].op & DN1_HB_OP_MASK, DN1_HB_CLOCK);
    CHECK_EQ(DN1_HB_HOST_NS(req[0].op), DN1_HB_HOST_NS_MAX);
    CHECK_EQ(req[1].op & DN1_HB_OP_MASK, DN1_HB_CLOCK);
    CHECK_EQ(DN1_HB_HOST_NS(req[1].op), 15000000 - DN1_HB_HOST_NS_MAX);
    CHECK_EQ(next_request_ns(), 0);
}

/* Other profiles; none without host sync; bad input. */
static void t_profiles(void)
{
    setenv("DIMMNET_HOST_PROFILE", "modern", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
    dn_host_work(n, DN_HOST_INSNS, 1000);
    dn_host_work(n, DN_HOST_COPY, 1000);
    dn_host_charge(n, DN_HOST_PIO, 1000);          /* at the DIMM's rate */
    CHECK_EQ(next_request_ns(), 111 + 100);
    setenv("DIMMNET_HOST_PROFILE", "free", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
    dn_host_work(n, DN_HOST_CRC, 100000);
    CHECK_EQ(next_request_ns(), 0);
    setenv("DIMMNET_HOST_PROFILE", "pentium", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_EINVAL);
    setenv("DIMMNET_HOST_PROFILE", "paper-host", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
    n->host_sync = 0;
    dn_host_work(n, DN_HOST_INSNS, 1000000);
    CHECK_EQ(next_request_ns(), 0);
    CHECK_EQ(dn_host_work(n, DN_HOST_CARD_WRITE + 1, 1), DN_EINVAL);
    CHECK_EQ(dn_host_work(n, -1, 1), DN_EINVAL);
    CHECK_EQ(dn_host_work(NULL, DN_HOST_COPY, 1), DN_EINVAL);
    CHECK(dn_host_profile(NULL) == NULL);
    unsetenv("DIMMNET_HOST_PROFILE");
}

/* The host's accesses to the card's memory: an uncached load 150 ns, a
 * store 60 ns, under every profile; bulk reads as the profile's uncached
 * loads (8 bytes for the paper's host, 64 else), bulk writes at its window
 * rate; their DIMM time (1.25 ns a byte, 8 bytes a load or store) goes in
 * arg2 bits 32-63, at most the work sent. */
static void t_card_accesses(void)
{
    uint8_t host[256] = { 0 };
    struct dn1_hb_req req;

    dn_host_self(n, 0);         /* the shim's instructions: t_self */
    dn_host_work(n, DN_HOST_LOAD, 2);
    dn_host_work(n, DN_HOST_STORE, 1);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 2 * 150 + 60);
    CHECK_EQ(DN1_HB_HOST_DIMM_NS(req.arg2), 30);
    req = request_of(clock0);
    CHECK_EQ(req.arg2, 0);                          /* sent once */
    /* dn_copy by where the bytes lie (the fake board's LLCM is the card). */
    llcm[DN1_LLCM_USER_BASE] = 7;
    CHECK_EQ(dn_copy(n, host, llcm + DN1_LLCM_USER_BASE, 100), DN_OK);
    CHECK_EQ(host[0], 7);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 13 * 150);    /* 13 loads of 8 bytes */
    CHECK_EQ(DN1_HB_HOST_DIMM_NS(req.arg2), 125);
    CHECK_EQ(dn_copy(n, llcm + DN1_LLCM_USER_BASE, host, 100), DN_OK);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 250);         /* write-combined, 2.5 ns a byte */
    CHECK_EQ(DN1_HB_HOST_DIMM_NS(req.arg2), 125);
    CHECK_EQ(dn_copy(n, host + 128, host, 100), DN_OK);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 300);         /* in host memory, 3 ns a byte */
    CHECK_EQ(req.arg2, 0);
    CHECK_EQ(dn_copy(n, NULL, host, 1), DN_EINVAL);
    CHECK_EQ(dn_copy(n, NULL, NULL, 0), DN_OK);
    /* The same bulk reads and writes said by a layer above (an application
     * reading a zero-copy buffer on the card): 100 bytes, 13 loads; 250 ns. */
    CHECK_EQ(dn_host_work(n, DN_HOST_CARD_READ, 100), DN_OK);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 13 * 150);
    CHECK_EQ(DN1_HB_HOST_DIMM_NS(req.arg2), 125);
    CHECK_EQ(dn_host_work(n, DN_HOST_CARD_WRITE, 100), DN_OK);
    req = request_of(clock0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 250);
    /* A polling turn: the loads it made are its time; none, one load's. */
    dn_host_work(n, DN_HOST_LOAD, 3);
    req = request_of(dn_idle);
    CHECK_EQ(req.op & DN1_HB_OP_MASK, DN1_HB_CLOCK);
    CHECK_EQ(req.arg0, 0);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 450);
    req = request_of(dn_idle);
    CHECK_EQ(req.arg0, DN1_HOST_LOAD_NS);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 0);
    /* A modern host reads a line a load; the hardware alone too. */
    setenv("DIMMNET_HOST_PROFILE", "modern", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
    dn_copy(n, host, llcm + DN1_LLCM_USER_BASE, 100);
    CHECK_EQ(next_request_ns(), 2 * 150 + 0);
    setenv("DIMMNET_HOST_PROFILE", "free", 1);
    CHECK_EQ(dn_host_profile_init(n), DN_OK);
    dn_copy(n, host, llcm + DN1_LLCM_USER_BASE, 100);
    dn_copy(n, llcm + DN1_LLCM_USER_BASE, host, 8);
    CHECK_EQ(next_request_ns(), 2 * 150 + 10);      /* the DIMM's 1.25 ns a byte */
    unsetenv("DIMMNET_HOST_PROFILE");
}

/* A host-charge table in a file, named by DIMMNET_HOST_CHARGES. */
static char table_path[64];

static void use_table(const char *text)
{
    strcpy(table_path, "/tmp/dn1-charges-XXXXXX");
    int fd = mkstemp(table_path);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    setenv("DIMMNET_HOST_CHARGES", table_path, 1);
}

static void drop_table(void)
{
    unlink(table_path);
    unsetenv("DIMMNET_HOST_CHARGES");
}

#define SHIM_ROWS "shim.barrier 747\nshim.xfer 731  # a call\nshim.packet 258\nshim.turn 83\n"

/* The shim's own instructions for a direct caller, as the table says (a
 * polling turn 83, a transfer call 731 and a BOTF packet 258 here) at the
 * paper's host's 1.176 ns; none once a layer above says it counted them. */
static void t_self(void)
{
    use_table("# a comment\n\n" SHIM_ROWS);
    CHECK_EQ(dn_host_charges_load(n, 1), DN_OK);
    drop_table();
    struct dn1_hb_req req = request_of(dn_idle);

    CHECK_EQ(req.arg0, DN1_HOST_LOAD_NS);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 97);           /* 97.608 */
    dn_host_self(n, 0);
    req = request_of(dn_idle);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 0);            /* 0.608 kept */
    CHECK_EQ(dn_host_self(n, 1), DN_OK);
    dn_self(n, DN_SELF_XFER);
    dn_self(n, DN_SELF_PACKET);
    CHECK_EQ(next_request_ns(), 1163);              /* 1163.064 + 0.608 */
    dn_self(n, DN_SELF_PATHS);                      /* no such path: nothing */
    dn_self(n, (enum dn_self_path)731);
    CHECK_EQ(next_request_ns(), 0);
    CHECK_EQ(dn_host_self(NULL, 0), DN_EINVAL);
}

/* The table's rows for a layer above (dn_host_insns), and bad tables:
 * a line that is not NAME INSNS, a missing shim row, no file at all
 * refused when the charges are needed, tolerated when not. */
static void t_table(void)
{
    uint64_t v = 1;

    use_table(SHIM_ROWS "prov.send 1734   # the provider's\n");
    CHECK_EQ(dn_host_charges_load(n, 1), DN_OK);
    CHECK_EQ(dn_host_insns(n, "prov.send", &v), DN_OK);
    CHECK_EQ(v, 1734);
    CHECK_EQ(dn_host_insns(n, "prov.recv", &v), DN_EINVAL);
    CHECK_EQ(v, 0);
    CHECK_EQ(dn_host_insns(NULL, "prov.send", &v), DN_EINVAL);
    CHECK_EQ(dn_host_insns(n, NULL, &v), DN_EINVAL);
    drop_table();
    use_table(SHIM_ROWS "prov.send lots\n");
    CHECK_EQ(dn_host_charges_load(n, 1), DN_EINVAL);
    drop_table();
    use_table(SHIM_ROWS "prov.send 99999999999\n");
    CHECK_EQ(dn_host_charges_load(n, 1), DN_EINVAL);
    drop_table();
    use_table("shim.barrier 747\nshim.xfer 731\nshim.packet 258\n");
    CHECK_EQ(dn_host_charges_load(n, 1), DN_EINVAL);
    CHECK_EQ(dn_host_charges_load(n, 0), DN_OK);
    CHECK_EQ(n->self_insns[DN_SELF_TURN], 0);
    CHECK_EQ(n->self_insns[DN_SELF_XFER], 731);
    drop_table();
    setenv("DIMMNET_HOST_CHARGES", "/nonexistent/host-charges.tab", 1);
    CHECK_EQ(dn_host_charges_load(n, 1), DN_EINVAL);
    CHECK_EQ(dn_host_charges_load(n, 0), DN_OK);
    unsetenv("DIMMNET_HOST_CHARGES");
}

static const struct test_case cases[] = {
    { "paper_host", t_paper_host },
    { "self", t_self },
    { "table", t_table },
    { "card_accesses", t_card_accesses },
    { "long_work", t_long_work },
    { "profiles", t_profiles },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
