/*
 * The message sender's resend timer (host-shim/src/msg_send.c): a timeout
 * resends one packet, not the window (the answers may only be late: an ACK
 * waits in its NIC's in-order receive pipeline behind every packet the
 * firmware still serves), and doubles the wait; the doubled wait holds
 * until an answer to a packet sent once has been timed (Karn); timed
 * answers set the wait to srtt + 4 rttvar when that is longer than
 * timeout_us (RFC 6298). The board is played here (FAKE: a socket pair
 * for the host bus, plain buffers for LLCM and window memory); checks are
 * on lower bounds of time only, so a slow machine cannot fail them.
 */
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "../../host-shim/src/msg.h"
#include "fake_board_node.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

#define TIMEOUT_US 20000u

static uint8_t llcm[DN1_LLCM_SIZE], window[8192];
static uint8_t hostmem[1 << 20];
static dn_node *n;
static int board;                      /* the board's end of the host bus */
static uint32_t taken;

static void set_llcm(uint32_t off, uint32_t v)
{
    __atomic_store_n((uint32_t *)(llcm + off), v, __ATOMIC_RELEASE);
}

/* Is a request waiting for the board? */
static int pending(void)
{
    struct pollfd pfd = { .fd = board, .events = POLLIN };

    return poll(&pfd, 1, 0) == 1;
}

/* The board takes the next kick (posted), sends the packet: its tag. */
static uint32_t kick(void)
{
    struct dn1_hb_req req;
    struct dn1_botf_hdr h;

    CHECK_EQ(read(board, &req, sizeof(req)), sizeof(req));
    CHECK_EQ(req.op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
    memcpy(&h, window + dn1_botf_window_off((unsigned)req.arg0), sizeof(h));
    set_llcm(DN1_LLCM_HB_POSTED, ++taken);
    return h.tag;
}

/* The receiving NIC's ACK for the packet sent with @tag (and all before). */
static void ack(uint32_t tag)
{
    fake_cq_post(llcm, tag, DN1_CQ_KIND_ACK, 1);
}

static void sleep_us(unsigned us)
{
    struct timespec ts = { us / 1000000u, (long)(us % 1000000u) * 1000 };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(void)
{
    struct dn_msg_config cfg;
    struct dn_msg_status st;
    dn_msg_req *m[4];
    uint32_t tag[4];
    uint8_t data[8] = { 7 };

    setenv("DIMMNET_HB_COMBINE", "0", 1);        /* one write a kick */
    n = fake_board_node(&board, llcm, sizeof(llcm), window, sizeof(window), hostmem,
                        sizeof(hostmem));
    if (!n) {
        return 1;
    }
    n->first_tag = n->next_tag = 1000;
    dn_hb_posted_init(n);
    CHECK(n->hb_post);
    fake_msg_config(n, &cfg);
    cfg.timeout_us = TIMEOUT_US;
    cfg.retry = 7;                              /* forever: only timing here */
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);

    /* Four one-packet messages, unanswered past the timeout: one packet
     * goes again, not four, and the wait doubles. */
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(dn_msg_isend(n, 1, 10 + (uint32_t)i, data, sizeof(data), &m[i]), DN_OK);
        tag[i] = kick();
    }
    struct msg_peer *p = &n->msg->peers[1];
    CHECK(!pending());
    sleep_us(TIMEOUT_US + TIMEOUT_US / 2);
    dn_msg_progress(n);
    CHECK(pending());
    uint32_t again = kick();
    CHECK_EQ(again & 0xffffu, tag[0] & 0xffffu);   /* the oldest, in a new round */
    CHECK(again != tag[0]);
    CHECK(!pending());                              /* and nothing else */
    CHECK_EQ(p->rto_shift, 1);
    CHECK_EQ(n->msg->stats.timeouts, 1);

    /* All answered (the ACK of the last sent once answers all): the answer
     * came for a window that was resent, so it is not timed and the
     * doubled wait holds. */
    ack(tag[3]);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(dn_msg_wait(n, m[i], &st, 1000), DN_OK);
    }
    CHECK_EQ(p->rto_shift, 1);
    CHECK_EQ(p->srtt, 0);

    /* A packet sent once and answered 15 ms later: timed; the wait is
     * back to single and learns srtt + 4 rttvar (>= 45 ms here, above
     * timeout_us). */
    CHECK_EQ(dn_msg_isend(n, 1, 20, data, sizeof(data), &m[0]), DN_OK);
    tag[0] = kick();
    sleep_us(15000);
    ack(tag[0]);
    CHECK_EQ(dn_msg_wait(n, m[0], &st, 1000), DN_OK);
    CHECK_EQ(p->rto_shift, 0);
    CHECK(p->srtt >= 15000000u);
    uint64_t rto = p->srtt + 4 * p->rttvar;
    CHECK(rto > TIMEOUT_US * 1000ull);

    /* The next packet, unanswered for longer than timeout_us but less
     * than the learnt wait: not sent again. (Checked only if the progress
     * call surely ran within the learnt wait.) */
    CHECK_EQ(dn_msg_isend(n, 1, 21, data, sizeof(data), &m[1]), DN_OK);
    tag[1] = kick();
    sleep_us(TIMEOUT_US + TIMEOUT_US / 4);
    dn_msg_progress(n);
    if (dn_msg_now_ns(n) - p->last_progress < rto) {
        CHECK(!pending());
        CHECK_EQ(n->msg->stats.timeouts, 1);
    } else {
        printf("test_shim_rto: machine too slow to check the learnt wait\n");
    }
    ack(tag[1]);
    CHECK_EQ(dn_msg_wait(n, m[1], &st, 1000), DN_OK);
    dn_msg_fini(n);
    close(board);
    close(n->hb_fd);
    free(n);
    printf("test_shim_rto: %s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
