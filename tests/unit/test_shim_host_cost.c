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
    CHECK_EQ(dn_host_work(n, DN_HOST_STORE + 1, 1), DN_EINVAL);
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

/* The shim's own instructions for a direct caller (measured once,
 * bench/measure_shim_insns.py): a polling turn 83, a transfer call 731 and
 * a BOTF packet 258 at the paper's host's 1.176 ns; none once a layer
 * above says it counted them. */
static void t_self(void)
{
    struct dn1_hb_req req = request_of(dn_idle);

    CHECK_EQ(req.arg0, DN1_HOST_LOAD_NS);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 97);           /* 97.608 */
    dn_host_self(n, 0);
    req = request_of(dn_idle);
    CHECK_EQ(DN1_HB_HOST_NS(req.op), 0);            /* 0.608 kept */
    CHECK_EQ(dn_host_self(n, 1), DN_OK);
    dn_self(n, 731 + 258);
    CHECK_EQ(next_request_ns(), 1163);              /* 1163.064 + 0.608 */
    CHECK_EQ(dn_host_self(NULL, 0), DN_EINVAL);
}

static const struct test_case cases[] = {
    { "paper_host", t_paper_host },
    { "self", t_self },
    { "card_accesses", t_card_accesses },
    { "long_work", t_long_work },
    { "profiles", t_profiles },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, teardown);
}
