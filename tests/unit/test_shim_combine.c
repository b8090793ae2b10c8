/*
 * Write combining of posted kicks in the message layer (host-shim/src/
 * hostbus.c, msg.c): without timing, the kicks of the messages sent in a
 * row wait in the shim and go to the board in one write at the next call
 * that sends nothing new (a progress, a test of a send in flight, dn_idle),
 * or before any request that waits for its answer; DIMMNET_HB_COMBINE=0
 * writes each at once. The board is played here:
 * a socket pair for the host bus, plain buffers for LLCM and window memory.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../common/check.h"
#include "../../host-shim/src/internal.h"
#include "fake_board_node.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

static uint8_t llcm[DN1_LLCM_SIZE], window[DN1_WINDOW_SIZE];
static uint8_t hostmem[1 << 20];
static int board;
static uint32_t taken;
static uint32_t tags[64];              /* by kick number: the packet's tag */
static unsigned kicks;

static int readable(void)
{
    struct pollfd p = { .fd = board, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

/* The board takes @count posted kicks, which came in one write. */
static void take_kicks(unsigned count)
{
    struct dn1_hb_req req[DN_HB_COMBINE_MAX];

    CHECK(readable());
    CHECK_EQ(read(board, req, sizeof(req)), (ssize_t)(count * sizeof(req[0])));
    for (unsigned i = 0; i < count; i++) {
        struct dn1_botf_hdr h;
        CHECK_EQ(req[i].op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
        memcpy(&h, window + dn1_botf_window_off((unsigned)req[i].arg0), sizeof(h));
        tags[kicks++] = h.tag;
        __atomic_store_n((uint32_t *)(llcm + DN1_LLCM_HB_POSTED), ++taken,
                         __ATOMIC_RELEASE);
    }
}

static void ack(uint32_t tag)
{
    fake_cq_post(llcm, tag, DN1_CQ_KIND_ACK, 1);
}

int main(void)
{
    dn_node *n;
    uint8_t data[8] = { 1 };
    dn_msg_req *m[24];
    struct dn1_hb_req req[3];

    unsetenv("DIMMNET_HB_COMBINE");
    n = fake_board_node(&board, llcm, sizeof(llcm), window, sizeof(window), hostmem,
                        sizeof(hostmem));
    if (!n) {
        return 1;
    }
    dn_hb_posted_init(n);
    dn_botf_windows_init(n);
    CHECK(n->hb_combine);
    struct dn_msg_config cfg;
    fake_msg_config(n, &cfg);
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);

    /* Sends in a row wait; a call that sends nothing writes them in one. */
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(dn_msg_isend(n, 1, i, data, 8, &m[i]), DN_OK);
    }
    CHECK(!readable());
    CHECK_EQ(n->hb_wcount, 3);
    CHECK_EQ(dn_msg_progress(n), DN_OK);
    take_kicks(3);

    /* So does dn_idle ... */
    CHECK_EQ(dn_msg_isend(n, 1, 3, data, 8, &m[3]), DN_OK);
    CHECK_EQ(dn_msg_isend(n, 1, 4, data, 8, &m[4]), DN_OK);
    CHECK(!readable());
    CHECK_EQ(dn_idle(n), DN_OK);
    take_kicks(2);

    /* ... and a test of a send still in flight (a loop refilling its
     * sends as they complete: the refills of one turn go together). */
    ack(tags[0]);
    ack(tags[1]);
    int done = 0;
    CHECK_EQ(dn_msg_test(n, m[0], &done, NULL), DN_OK);
    CHECK(done);
    CHECK_EQ(dn_msg_test(n, m[1], &done, NULL), DN_OK);
    CHECK(done);
    CHECK_EQ(dn_msg_isend(n, 1, 5, data, 8, &m[5]), DN_OK);
    CHECK_EQ(dn_msg_isend(n, 1, 6, data, 8, &m[6]), DN_OK);
    CHECK(!readable());
    CHECK_EQ(dn_msg_test(n, m[2], &done, NULL), DN_OK);
    CHECK(!done);
    take_kicks(2);

    /* A request waiting for its answer goes after the waiting kicks. */
    CHECK_EQ(dn_msg_isend(n, 1, 7, data, 8, &m[7]), DN_OK);
    CHECK_EQ(dn_msg_isend(n, 1, 8, data, 8, &m[8]), DN_OK);
    CHECK(!readable());
    struct dn1_hb_rsp rsp = { DN1_HB_MAGIC, 0, DN1_ID_VALUE };
    CHECK_EQ(write(board, &rsp, sizeof(rsp)), sizeof(rsp));
    uint32_t v = 0;
    CHECK_EQ(dn_reg_read(n, DN1_REG_ID, &v), DN_OK);
    CHECK_EQ(v, DN1_ID_VALUE);
    CHECK_EQ(read(board, req, sizeof(req)), sizeof(req));
    CHECK_EQ(req[0].op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
    CHECK_EQ(req[1].op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
    CHECK_EQ(req[2].op, DN1_HB_REG_READ);
    taken += 2;
    __atomic_store_n((uint32_t *)(llcm + DN1_LLCM_HB_POSTED), taken, __ATOMIC_RELEASE);

    /* Every message is answered and complete; nothing was lost. */
    for (unsigned i = 2; i < 7; i++) {
        ack(tags[i]);
    }
    CHECK_EQ(dn_msg_progress(n), DN_OK);
    for (unsigned i = 2; i < 7; i++) {
        CHECK_EQ(dn_msg_test(n, m[i], &done, NULL), DN_OK);
        CHECK(done);
    }
    CHECK(!readable());
    CHECK_EQ(n->hb_wcount, 0);

    /* DIMMNET_HB_COMBINE=0: every kick is written at once. */
    setenv("DIMMNET_HB_COMBINE", "0", 1);
    dn_hb_posted_init(n);
    CHECK(!n->hb_combine);
    for (unsigned i = 12; i < 20; i++) {
        CHECK_EQ(dn_msg_isend(n, 1, i, data, 8, &m[i]), DN_OK);
        CHECK(readable());
        CHECK_EQ(read(board, req, sizeof(req[0])), sizeof(req[0]));
        CHECK_EQ(req[0].op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
    }
    CHECK_EQ(n->hb_wcount, 0);

    /* The board gone while kicks wait: the write fails, nothing counts as
     * posted, and their messages fail at once with DN_EIO. */
    taken = n->hb_posted;
    __atomic_store_n((uint32_t *)(llcm + DN1_LLCM_HB_POSTED), taken, __ATOMIC_RELEASE);
    n->hb_combine = 1;
    CHECK_EQ(dn_msg_isend(n, 0, 20, data, 8, &m[20]), DN_OK);
    CHECK_EQ(dn_msg_isend(n, 0, 21, data, 8, &m[21]), DN_OK);
    CHECK_EQ(n->hb_wcount, 2);
    close(board);
    struct dn_msg_status st;
    CHECK_EQ(dn_msg_test(n, m[20], &done, &st), DN_EIO);
    CHECK(done);
    CHECK_EQ(dn_msg_test(n, m[21], &done, &st), DN_EIO);
    CHECK(done);
    CHECK_EQ(n->hb_posted, taken);     /* dn_close need not wait for them */

    dn_msg_fini(n);
    close(n->hb_fd);
    free(n);
    return check_failures ? 1 : 0;
}
