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

/* The host ns the next request carries: the fake board answers a
 * dn_delay(0) (a CLOCK) and reads what the shim sent. */
static uint32_t next_request_ns(void)
{
    struct dn1_hb_rsp rsp = { .magic = DN1_HB_MAGIC };
    struct dn1_hb_req req;

    if (write(board, &rsp, sizeof(rsp)) != (ssize_t)sizeof(rsp)) {
        return UINT32_MAX;
    }
    CHECK_EQ(dn_delay(n, 0, NULL), DN_OK);
    if (read(board, &req, sizeof(req)) != (ssize_t)sizeof(req)) {
        return UINT32_MAX;
    }
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
    dn_host_work(n, DN_HOST_COPY, 5000000);         /* 15 ms */
    CHECK_EQ(next_request_ns(), DN1_HB_HOST_NS_MAX);
    CHECK_EQ(next_request_ns(), 15000000 - DN1_HB_HOST_NS_MAX);
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
    CHECK_EQ(dn_host_work(n, 3, 1), DN_EINVAL);
    CHECK_EQ(dn_host_work(NULL, DN_HOST_COPY, 1), DN_EINVAL);
    CHECK(dn_host_profile(NULL) == NULL);
    unsetenv("DIMMNET_HOST_PROFILE");
}

static const struct test_case cases[] = {
    { "paper_host", t_paper_host },
    { "long_work", t_long_work },
    { "profiles", t_profiles },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
