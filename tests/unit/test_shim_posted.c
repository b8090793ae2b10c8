/*
 * Posted host-bus requests in the shim (host-shim/src/hostbus.c, contract
 * 1.17): a kick or store goes without waiting for the NIC; when one fails,
 * the NIC's error notice must reach the transfer or message it belonged
 * to, with its error, never be lost. Then the bounds: a link that stays
 * down fails a message after its retries (DN_ERETRY), never waits
 * forever; a board that goes away (host bus closed) fails it with DN_EIO
 * at once, no SIGPIPE. The board is played here: a socket pair for the
 * host bus, plain buffers for LLCM and window memory.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../common/check.h"
#include "../../host-shim/src/internal.h"
#include "fake_board_node.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

static uint8_t llcm[DN1_LLCM_SIZE], window[4096];
static uint8_t hostmem[1 << 20];
static int board;                      /* the board's end of the host bus */
static uint32_t taken, failed;         /* what the board counted */

static void set_llcm(uint32_t off, uint32_t v)
{
    __atomic_store_n((uint32_t *)(llcm + off), v, __ATOMIC_RELEASE);
}

/* The board takes the next request: it must be posted, with @op. */
static struct dn1_hb_req take(uint32_t op)
{
    struct dn1_hb_req req;

    CHECK_EQ(read(board, &req, sizeof(req)), sizeof(req));
    CHECK_EQ(req.magic, DN1_HB_MAGIC);
    CHECK_EQ(req.op, op | DN1_HB_POSTED);
    return req;
}

/* ... and it acted (status 0), or failed: a notice, counted, then taken. */
static void acted(int32_t status)
{
    if (status) {
        struct dn1_hb_rsp notice = { DN1_HB_MAGIC_NOTICE, status, taken };
        CHECK_EQ(write(board, &notice, sizeof(notice)), sizeof(notice));
        set_llcm(DN1_LLCM_HB_FAILED, ++failed);
    }
    set_llcm(DN1_LLCM_HB_POSTED, ++taken);
}

/* A board whose link is down: every request answered DN1_HB_ELINKDOWN,
 * until the host stops talking. */
static void *link_down_board(void *arg)
{
    struct dn1_hb_req req;

    (void)arg;
    while (read(board, &req, sizeof(req)) == (ssize_t)sizeof(req)) {
        struct dn1_hb_rsp rsp = { DN1_HB_MAGIC, DN1_HB_ELINKDOWN, 0 };
        if (write(board, &rsp, sizeof(rsp)) != (ssize_t)sizeof(rsp)) {
            break;
        }
    }
    return NULL;
}

int main(void)
{
    dn_node *n;
    int sv[2];
    dn_xfer x, y;

    /* Each kick written as it is posted (combining: unit.shim_combine). */
    setenv("DIMMNET_HB_COMBINE", "0", 1);
    n = fake_board_node(&board, llcm, sizeof(llcm), window, sizeof(window), hostmem,
                        sizeof(hostmem));
    if (!n) {
        return 1;
    }
    n->first_tag = n->next_tag = 1000;
    taken = failed = 7;                 /* an earlier host posted some */
    set_llcm(DN1_LLCM_HB_POSTED, taken);
    set_llcm(DN1_LLCM_HB_FAILED, failed);
    dn_hb_posted_init(n);
    CHECK(n->hb_post);

    /* A transfer of two packets, both kicks posted: the first is refused
     * (link down), the second ACKed. dn_wait says so, once both are in. */
    uint8_t data[600] = { 1 };
    CHECK_EQ(dn_botf_put(n, 1, 0x1000, data, sizeof(data), &x), DN_OK);
    CHECK_EQ(x.packets, 2);
    struct dn1_hb_req req = take(DN1_HB_BOTF_KICK);
    CHECK_EQ(req.arg0, 0);
    req = take(DN1_HB_BOTF_KICK);
    CHECK_EQ(req.arg0, 1);
    CHECK_EQ(dn_wait(n, &x, 0), DN_ETIMEDOUT);   /* nothing known yet */
    acted(DN1_HB_ELINKDOWN);
    acted(0);
    CHECK_EQ(dn_wait(n, &x, 0), DN_ETIMEDOUT);   /* the second is unanswered */
    fake_cq_post(llcm, 1001, DN1_CQ_KIND_ACK, 1);
    CHECK_EQ(dn_wait(n, &x, 1000), DN_ELINKDOWN);
    CHECK_EQ(x.acked, 1);
    CHECK_EQ(n->completed, 2);                   /* nothing left in flight */

    /* A window is the NIC's until it took the kick that used it. */
    CHECK_EQ(dn_botf_put(n, 1, 0x1000, data, 8, &y), DN_OK);   /* window 0 */
    take(DN1_HB_BOTF_KICK);
    CHECK(n->win_kick_posted[0]);
    CHECK_EQ(n->hb_posted - n->hb_taken, 1);

    /* A notice that comes before an ordinary response: the call gets its
     * response, the notice goes to its transfer. */
    struct dn1_hb_rsp notice = { DN1_HB_MAGIC_NOTICE, DN1_HB_EINVAL, taken };
    struct dn1_hb_rsp rsp = { DN1_HB_MAGIC, 0, 0x4d415254 };
    CHECK_EQ(write(board, &notice, sizeof(notice)), sizeof(notice));
    CHECK_EQ(write(board, &rsp, sizeof(rsp)), sizeof(rsp));
    set_llcm(DN1_LLCM_HB_FAILED, ++failed);
    set_llcm(DN1_LLCM_HB_POSTED, ++taken);
    uint32_t v = 0;
    CHECK_EQ(dn_reg_read(n, DN1_REG_ID, &v), DN_OK);
    CHECK_EQ(v, 0x4d415254);
    struct dn1_hb_req sync;
    CHECK_EQ(read(board, &sync, sizeof(sync)), sizeof(sync));
    CHECK_EQ(sync.op, DN1_HB_REG_READ);
    CHECK_EQ(dn_wait(n, &y, 0), DN_EINVAL);
    CHECK_EQ(n->hb_failed, failed);

    /* A message whose packet's posted kick is refused for good fails with
     * that error and says why; nothing is left waiting. */
    struct dn_msg_config cfg;
    fake_msg_config(n, &cfg);
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
    dn_msg_req *m;
    CHECK_EQ(dn_msg_isend(n, 1, 5, data, 8, &m), DN_OK);
    take(DN1_HB_BOTF_KICK);
    acted(DN1_HB_EINVAL);
    struct dn_msg_status st;
    CHECK_EQ(dn_msg_wait(n, m, &st, 1000), DN_EINVAL);
    CHECK(strstr(st.text, "refused") != NULL);
    CHECK_EQ(dn_msg_inflight(n), 0);

    /* A refusal for want of a link: the message goes again, and lands. */
    CHECK_EQ(dn_msg_isend(n, 0, 6, data, 8, &m), DN_OK);
    req = take(DN1_HB_BOTF_KICK);
    acted(DN1_HB_ELINKDOWN);
    int done = 0;
    CHECK_EQ(dn_msg_test(n, m, &done, &st), DN_OK);   /* sent again */
    CHECK(!done);
    take(DN1_HB_BOTF_KICK);
    acted(0);
    struct dn1_botf_hdr h;
    memcpy(&h, window + (n->next_window ^ 1u) * DN1_BOTF_WINDOW_STRIDE, sizeof(h));
    fake_cq_post(llcm, h.tag, DN1_CQ_KIND_ACK, 0);
    CHECK_EQ(dn_msg_wait(n, m, &st, 1000), DN_OK);
    dn_msg_fini(n);

    /* The link stays down, kicks answered at once (not posted): nothing is
     * ever in flight, yet the timeout runs from the first refusal and the
     * retries run out. */
    pthread_t thr;
    n->hb_post = 0;
    cfg.retry = 2;
    cfg.timeout_us = 2000;
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
    CHECK_EQ(pthread_create(&thr, NULL, link_down_board, NULL), 0);
    int64_t t0 = dn_now_ms();
    CHECK_EQ(dn_msg_isend(n, 1, 7, data, 8, &m), DN_OK);
    CHECK_EQ(dn_msg_wait(n, m, &st, 5000), DN_ERETRY);
    CHECK(dn_now_ms() - t0 < 5000);
    CHECK(strstr(st.text, "retries") != NULL);
    shutdown(n->hb_fd, SHUT_WR);                /* the board reads EOF and stops */
    pthread_join(thr, NULL);
    dn_msg_fini(n);

    /* The board goes away: the next kick meets a closed host bus. */
    close(n->hb_fd);
    close(board);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    n->hb_fd = sv[0];
    close(sv[1]);
    n->hb_post = 1;
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
    CHECK_EQ(dn_msg_isend(n, 0, 8, data, 8, &m), DN_OK);
    CHECK_EQ(dn_msg_wait(n, m, &st, 1000), DN_EIO);
    CHECK(strstr(st.text, "refused") != NULL);
    CHECK_EQ(dn_msg_inflight(n), 0);

    dn_msg_fini(n);
    close(sv[0]);
    free(n);
    return check_failures ? 1 : 0;
}
