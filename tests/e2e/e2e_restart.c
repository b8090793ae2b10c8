/*
 * Restart-safe message conversations (issue 25 item 1), end to end: real
 * host processes killed (SIGKILL, no dn_close) and started again on the
 * same boards, nothing set up by hand in between. Node 0 talks to every
 * other node; each mode on 2 or 4 boards:
 *
 *   e2e_restart sender    node 0's sender dies with a message half sent;
 *                         a new process sends again from f_seq 0
 *   e2e_restart board     the same, and node 0's NIC restarts before its
 *                         new process starts (a restarted board); each
 *                         receiver's NIC restarts too, mid-conversation
 *   e2e_restart receiver  each receiver dies after a few messages; a new
 *                         receiver process sets up again while node 0,
 *                         which lives on, keeps sending
 *   e2e_restart cold      each receiver's process lives on while its NIC
 *                         is reset hard (a cold firmware start: nothing
 *                         handed over) with messages waiting in its ring
 *                         and notice queue; node 0 keeps sending
 *
 * What must hold (docs/hardware.md section 10, "Restarts"): every message
 * a process had handed over (its send complete) is delivered once, in
 * order, byte for byte; the message the dead sender had not finished
 * arrives whole or not at all; nothing of the old conversation arrives
 * after the new one began; the sender that lives on finishes every send.
 * Before contract 1.25 a new sender's packets were taken as duplicates of
 * the old ones (ACKed, never written: the receiver waits for ever), and a
 * sender living through a receiver's new setup was refused SEQUENCE until
 * its retries ran out.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"

#define T 60000
#define OLD 0x1000u             /* tags of the first sender process: OLD + i */
#define HALF 0x1fffu            /* the message it dies in */
#define NEW 0x2000u             /* the second process's */
#define END 0x3000u
#define K 20                    /* messages the first process completes */
#define M 20                    /* messages the second sends */
#define BIG (512u * 1024)       /* 1130 BOTF packets: in flight when it dies */
#define RX_TOTAL 100u           /* receiver mode: messages to each receiver */
#define RX_KEEP 10u             /* ... of which the first receiver takes */
#define RX_SIZE 4096u
#define RX_RING (64u * 1024)    /* a small ring, so that the sender stalls */

static dn_node *n;
static unsigned me, nodes;
static uint8_t big[8][BIG];    /* one a receiver: isend keeps it until done */

static uint8_t pattern(unsigned dst, uint32_t tag, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (dst * 104729u + tag * 31u);
    return (uint8_t)(x >> 24 ^ x >> 11 ^ x);
}

static size_t size_of(uint32_t tag)
{
    return tag == HALF ? BIG : tag >= NEW ? (tag * 53u) % 3000u : (tag * 37u) % 2000u;
}

static void fill(uint8_t *b, size_t len, unsigned dst, uint32_t tag)
{
    for (size_t i = 0; i < len; i++) {
        b[i] = pattern(dst, tag, i);
    }
}

static int intact(const uint8_t *b, size_t len, unsigned dst, uint32_t tag)
{
    for (size_t i = 0; i < len; i++) {
        if (b[i] != pattern(dst, tag, i)) {
            return 0;
        }
    }
    return 1;
}

static void open_node_stash(uint32_t ring, uint64_t stash_bytes)
{
    struct dn_msg_config cfg;

    CHECK_EQ(dn_open_env(&n, 60000), DN_OK);
    dn_msg_config_default(n, &cfg);
    if (ring) {
        cfg.sysbuf_bytes = ring;
    }
    if (stash_bytes != UINT64_MAX) {
        cfg.stash_bytes = stash_bytes;
    }
    CHECK_EQ(dn_msg_init(n, &cfg), DN_OK);
}

static void open_node(uint32_t ring)
{
    open_node_stash(ring, UINT64_MAX);
}

static void send_to_all(uint32_t tag)
{
    static uint8_t b[4096];

    for (unsigned d = 1; d < nodes; d++) {
        fill(b, size_of(tag), d, tag);
        CHECK_EQ(dn_msg_send(n, d, tag, b, size_of(tag), T), DN_OK);
    }
}

/* Run @fn in a child process (a host process of this node); its status. */
static int in_child(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        fflush(NULL);
        _exit(check_failures ? 1 : 0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    return st;
}

/* Node 0's first process: K messages complete, then dies inside BIG. */
static void first_sender(void)
{
    dn_msg_req *r[64];

    open_node(0);
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    for (uint32_t i = 0; i < K; i++) {
        send_to_all(OLD + i);
    }
    for (unsigned d = 1; d < nodes; d++) {
        fill(big[d], BIG, d, HALF);
        CHECK_EQ(dn_msg_isend(n, d, HALF, big[d], BIG, &r[d]), DN_OK);
    }
    for (int i = 0; i < 20; i++) {
        dn_msg_progress(n);
        dn_idle(n);
    }
    printf("node 0: first sender dies inside its message of %u bytes\n", BIG);
    fflush(NULL);
    raise(SIGKILL);
}

static void second_sender(void)
{
    open_node(0);
    for (uint32_t j = 0; j < M; j++) {
        send_to_all(NEW + j);
    }
    send_to_all(END);
    struct dn_msg_stats st;
    CHECK_EQ(dn_msg_stats(n, &st), DN_OK);
    printf("node 0: second sender done: %llu packets resent\n",
           (unsigned long long)st.retransmits);
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
}

/* A restarted board: the NIC restarts (as dnctl restart or a firmware
 * update does) before the new host process takes it. */
static void second_sender_board(void)
{
    CHECK_EQ(dn_open_env(&n, 60000), DN_OK);
    CHECK_EQ(dn_nic_restart(n, T), DN_OK);
    dn_close(n);
    second_sender();
}

/* A receiver of node 0 in sender and board modes. */
static void receive_restarted_sender(int nic_restart)
{
    uint8_t *b = big[0];
    struct dn_msg_status st;
    uint32_t next_old = 0, next_new = 0;
    int half = 0;

    open_node(0);
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    for (;;) {
        memset(&st, 0, sizeof(st));
        CHECK_EQ(dn_msg_recv(n, 0, DN_ANY_TAG, b, BIG, &st, T), DN_OK);
        uint32_t tag = st.tag;
        CHECK_EQ(st.len, size_of(tag));
        CHECK(intact(b, st.len, me, tag));
        if (tag == END) {
            break;
        } else if (tag == OLD + next_old && !half && next_new == 0) {
            next_old++;
            if (next_old == K && nic_restart) {
                CHECK_EQ(dn_nic_restart(n, T), DN_OK);
            }
        } else if (tag == HALF && next_old == K && !half && next_new == 0) {
            half = 1;
        } else if (tag == NEW + next_new && next_old == K) {
            next_new++;
        } else {
            fprintf(stderr, "node %u: tag 0x%x out of turn (old %u, half %d, new %u)\n",
                    me, tag, next_old, half, next_new);
            CHECK(0);
            break;
        }
    }
    CHECK_EQ(next_old, K);
    CHECK_EQ(next_new, M);
    printf("node %u: %u old, %s, %u new, in order\n", me, next_old,
           half ? "the half-sent one whole" : "not the half-sent one", next_new);
#ifdef DN1_NACK_INCARNATION     /* (absent before contract 1.25: the test
                                   runs there too, and must fail) */
    uint32_t incs = 0, stale = 0;
    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_MSG_INCARNATIONS, &incs), DN_OK);
    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_NACK_INCARNATION, &stale), DN_OK);
    printf("node %u: %u conversations, %u packets refused INCARNATION\n", me, incs,
           stale);
    /* Both conversations; a NIC restart began the count again after the first. */
    CHECK(incs >= (nic_restart ? 1u : 2u));
#endif
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
}

/* Receiver mode: node 0 lives; each receiver's first process takes
 * RX_KEEP messages and dies, its second takes the rest from where the
 * conversation started again to the last, in order. */
static void first_receiver(void)
{
    static uint8_t b[RX_SIZE];
    struct dn_msg_status st;

    open_node(RX_RING);
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    for (uint32_t i = 0; i < RX_KEEP; i++) {
        CHECK_EQ(dn_msg_recv(n, 0, DN_ANY_TAG, b, sizeof(b), &st, T), DN_OK);
        CHECK_EQ(st.tag, i);
        CHECK(intact(b, st.len, me, i));
    }
    printf("node %u: first receiver dies after %u messages\n", me, RX_KEEP);
    fflush(NULL);
    raise(SIGKILL);
}

static void second_receiver(void)
{
    static uint8_t b[RX_SIZE];
    struct dn_msg_status st;
    uint32_t first = 0, next = 0;

    open_node(RX_RING);
    do {
        CHECK_EQ(dn_msg_recv(n, 0, DN_ANY_TAG, b, sizeof(b), &st, T), DN_OK);
        if (next == 0) {
            first = next = st.tag;
            CHECK(first >= RX_KEEP);
        }
        CHECK_EQ(st.tag, next);
        CHECK_EQ(st.len, RX_SIZE);
        CHECK(intact(b, st.len, me, st.tag));
        next++;
    } while (st.tag < RX_TOTAL - 1 && check_failures == 0);
    printf("node %u: second receiver took messages %u..%u in order\n", me, first,
           RX_TOTAL - 1);
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
}

static void sender_lives_on(void)
{
    static uint8_t b[RX_SIZE];

    open_node(0);
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    for (uint32_t i = 0; i < RX_TOTAL; i++) {
        for (unsigned d = 1; d < nodes; d++) {
            /* Each complete before the next: a dead receiver's full ring
             * stalls the sender (BUFFER_FULL) until its successor is up. */
            fill(b, RX_SIZE, d, i);
            CHECK_EQ(dn_msg_send(n, d, i, b, RX_SIZE, T), DN_OK);
        }
    }
    printf("node 0: every send complete\n");
#ifdef DN1_NACK_INCARNATION
    struct dn_msg_stats st;
    CHECK_EQ(dn_msg_stats(n, &st), DN_OK);
    printf("node 0: %llu conversations started over\n",
           (unsigned long long)st.incarnations);
    CHECK(st.incarnations >= nodes - 1);
#endif
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Cold mode: the receiver takes RX_KEEP messages, lets the ring fill
 * (arrivals no receive takes stay in the ring: no heap stash), takes some
 * of the notices, resets its NIC hard, and then takes every message from
 * RX_KEEP on, in order, once, byte for byte. */
static void receiver_lives_through_cold_start(void)
{
    static uint8_t b[RX_SIZE];
    struct dn_msg_status st;
    struct dn_msg_stats ms;
    uint32_t cold = 0;

    open_node_stash(RX_RING, 0);
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    for (uint32_t i = 0; i < RX_TOTAL; i++) {
        if (i == RX_KEEP) {
            /* Node 0 fills the ring meanwhile; half of what arrived is
             * taken into the stash (pinned in the ring), the rest waits
             * as notices. */
            for (int64_t until = now_ms() + 300; now_ms() < until;) {
                dn_idle(n);
            }
            CHECK_EQ(dn_msg_progress(n), DN_OK);
            for (int64_t until = now_ms() + 100; now_ms() < until;) {
                dn_idle(n);
            }
            CHECK_EQ(dn_msg_stats(n, &ms), DN_OK);
            printf("node %u: %llu messages waiting in the ring at the reset\n", me,
                   (unsigned long long)ms.stashed);
            CHECK(ms.stashed >= 2);
            CHECK_EQ(dn_nic_reset(n, T), DN_OK);
        }
        CHECK_EQ(dn_msg_recv(n, 0, DN_ANY_TAG, b, sizeof(b), &st, T), DN_OK);
        CHECK_EQ(st.tag, i);
        CHECK_EQ(st.len, RX_SIZE);
        CHECK(intact(b, st.len, me, i));
        if (check_failures) {
            break;
        }
    }
    CHECK_EQ(dn_msg_stats(n, &ms), DN_OK);
    CHECK_EQ(ms.cold_starts, 1);
    CHECK_EQ(ms.notice_errors, 0);
    CHECK_EQ(dn_fw_stat_read(n, DN1_FWST_MSG_COLD_STARTS, &cold), DN_OK);
    CHECK_EQ(cold, 1);
    printf("node %u: all %u messages in order through a cold start\n", me, RX_TOTAL);
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    me = (unsigned)strtoul(getenv("DIMMNET_NODE_ID"), NULL, 10);
    nodes = (unsigned)strtoul(getenv("DIMMNET_NODES"), NULL, 10);
    CHECK(nodes >= 2 && nodes <= 8);
    if (!strcmp(mode, "sender") || !strcmp(mode, "board")) {
        int board = !strcmp(mode, "board");
        if (me == 0) {
            int st = in_child(first_sender);
            CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
            CHECK_EQ(in_child(board ? second_sender_board : second_sender), 0);
        } else {
            receive_restarted_sender(board);
        }
    } else if (!strcmp(mode, "receiver")) {
        if (me == 0) {
            sender_lives_on();
        } else {
            int st = in_child(first_receiver);
            CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
            CHECK_EQ(in_child(second_receiver), 0);
        }
    } else if (!strcmp(mode, "cold")) {
        if (me == 0) {
            sender_lives_on();
        } else {
            receiver_lives_through_cold_start();
        }
    } else {
        fprintf(stderr, "usage: e2e_restart sender|board|receiver|cold\n");
        return 2;
    }
    if (check_failures == 0) {
        printf("e2e_restart %s: node %u ok\n", mode, me);
    }
    return check_failures ? 1 : 0;
}
