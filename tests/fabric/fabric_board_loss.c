/*
 * A board that goes away mid-run, as a libfabric application sees it
 * (three boards; board 1's QEMU is killed by its own program, through the
 * launcher's DIMMNET_RUN_DIR/node1.pid):
 *   - node 0's sends to node 1 complete with error entries (short, long,
 *     and a long one already waiting for its CTS when the board went),
 *     each within a bound, never a hang; an injected one (no context, no
 *     completion) fails without an entry (Open MPI would dereference its
 *     NULL context);
 *   - node 1's own endpoint, its board gone, fails what it is asked to do
 *     and closes (no SIGPIPE, no hang);
 *   - node 0 and node 2 go on: a ping-pong with the data checked, an
 *     any-source receive gets node 2's message and nothing else.
 *
 *   fabric_board_loss          (under dimmnet-cluster -n 3)
 */
#include <string.h>
#include <time.h>
#include "fabric_util.h"
#include "../common/board_kill.h"

#define LONG   300000u
#define BOUND  30000               /* ms: an error must come within this */

static uint8_t sbuf[LONG], rbuf[LONG];

/* An error completion for @ctx within BOUND ms: its err. */
static int expect_error(void *ctx, const char *what)
{
    struct fi_cq_err_entry err;
    struct timespec t0, t1;
    struct fi_cq_tagged_entry e;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    e = wait_comp_for(NULL, &err, BOUND);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_MSG(e.op_context == ctx, "node %u: %s: completion of %p, not %p", me, what,
              e.op_context, ctx);
    CHECK_MSG(err.err != 0, "node %u: %s completed without error", me, what);
    /* No answer from the peer: FI_ETIMEDOUT; our own board gone: FI_EIO. */
    CHECK_MSG(err.err == (me == 1 ? FI_EIO : FI_ETIMEDOUT), "node %u: %s: %s", me, what,
              fi_strerror(err.err));
    printf("node %u: %s: %s (prov_errno %d) after %.1f s\n", me, what,
           fi_strerror(err.err), err.prov_errno,
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return err.err;
}

int main(void)
{
    struct fi_context c[8];
    fi_addr_t src;

    fab_setup();
    CHECK_EQ(nodes, 3);

    /* Everything works: node 0 ping-pongs with 1 and 2. */
    for (unsigned peer = 1; peer < 3; peer++) {
        if (me == 0) {
            fill(sbuf, 1000, peer);
            tsend_to(node_addr[peer], sbuf, 1000, 0x100 + peer, &c[0]);
            expect(&c[0], FI_SEND, NULL);
            CHECK(fi_trecv(ep, rbuf, LONG, NULL, node_addr[peer], 0x200, 0, &c[1]) == 0);
            expect(&c[1], FI_RECV, NULL);
            CHECK(same(rbuf, 1000, 10 + peer));
        } else if (me == peer) {
            CHECK(fi_trecv(ep, rbuf, LONG, NULL, node_addr[0], 0x100 + peer, 0, &c[1]) == 0);
            expect(&c[1], FI_RECV, NULL);
            CHECK(same(rbuf, 1000, peer));
            fill(sbuf, 1000, 10 + peer);
            tsend_to(node_addr[0], sbuf, 1000, 0x200, &c[0]);
            expect(&c[0], FI_SEND, NULL);
        }
    }
    CHECK(dn_rendezvous("bl-warm", TIMEOUT_MS) == DN_OK);

    /* Node 0: a long message node 1 never receives waits for its CTS. */
    if (me == 0) {
        fill(sbuf, LONG, 5);
        tsend_to(node_addr[1], sbuf, LONG, 0x300, &c[2]);
        for (int i = 0; i < 2000; i++) {          /* its FIRST reaches node 1 */
            struct fi_cq_tagged_entry e;
            CHECK(fi_cq_read(cq, &e, 1) == -FI_EAGAIN);
        }
    }
    CHECK(dn_rendezvous("bl-long-sent", TIMEOUT_MS) == DN_OK);
    if (me == 1) {
        ssize_t rc;

        if (board_kill(1)) {
            return 1;
        }
        /* Our board is gone: the send fails, now or through the CQ. */
        rc = fi_tsend(ep, sbuf, 100, NULL, node_addr[0], 0x400, &c[0]);
        if (rc == 0) {
            expect_error(&c[0], "send on a node whose board is gone");
        } else {
            printf("node 1: send on a node whose board is gone: %s\n",
                   fi_strerror((int)-rc));
        }
        CHECK(dn_rendezvous("bl-gone", TIMEOUT_MS) == DN_OK);
        CHECK(dn_rendezvous("bl-done", TIMEOUT_MS) == DN_OK);
        fab_close();
        check_failures += fab_failures();
        printf("node 1: board gone: %s\n", check_failures ? "FAILED" : "ok");
        return check_failures ? 1 : 0;
    }
    CHECK(dn_rendezvous("bl-gone", TIMEOUT_MS) == DN_OK);

    if (me == 0) {
        /* An injected send: no entry, not even an error one; the next
         * entries are the other sends' errors. */
        CHECK(fi_tinject(ep, sbuf, 8, node_addr[1], 0x2ff) == 0);
        /* The waiting long send fails (its PING finds no one), then a short
         * and a long one sent now. */
        expect_error(&c[2], "long send waiting for its CTS");
        tsend_to(node_addr[1], sbuf, 100, 0x301, &c[3]);
        expect_error(&c[3], "short send to the lost board");
        tsend_to(node_addr[1], sbuf, LONG, 0x302, &c[4]);
        expect_error(&c[4], "long send to the lost board");
    }
    /* Node 0 and node 2 go on; an any-source receive takes node 2's only. */
    if (me == 0) {
        memset(rbuf, 0, LONG);
        CHECK(fi_trecv(ep, rbuf, LONG, NULL, FI_ADDR_UNSPEC, 0x500, 0, &c[5]) == 0);
        struct fi_cq_tagged_entry e = expect(&c[5], FI_RECV | FI_TAGGED, &src);
        CHECK_EQ(src, node_addr[2]);
        CHECK_EQ(e.len, LONG);
        CHECK(same(rbuf, LONG, 22));
        fill(sbuf, LONG, 23);
        tsend_to(node_addr[2], sbuf, LONG, 0x501, &c[6]);
        expect(&c[6], FI_SEND, NULL);
    } else {
        fill(sbuf, LONG, 22);
        tsend_to(node_addr[0], sbuf, LONG, 0x500, &c[5]);
        expect(&c[5], FI_SEND, NULL);
        CHECK(fi_trecv(ep, rbuf, LONG, NULL, node_addr[0], 0x501, 0, &c[6]) == 0);
        expect(&c[6], FI_RECV, NULL);
        CHECK(same(rbuf, LONG, 23));
    }
    CHECK(dn_rendezvous("bl-done", TIMEOUT_MS) == DN_OK);
    fab_close();
    check_failures += fab_failures();
    printf("node %u: board 1 lost mid-run: errors, no hang, the rest goes on: %s\n", me,
           check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
