/*
 * Message exchange: set-up, requests, progress (see dn.h; the firmware side
 * is handlers/message, the contract docs/hardware.md section 10).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "msg.h"
#include "dimmnet1/memmap.h"

/* InfiniBand's min_rnr_timer codes (IBA 9.7.5.2.8), in units of 10 ns. */
static const uint32_t rnr_table[32] = {
    65536000, 1000, 2000, 3000, 4000, 6000, 8000, 12000,
    16000, 24000, 32000, 48000, 64000, 96000, 128000, 192000,
    256000, 384000, 512000, 768000, 1024000, 1536000, 2048000, 3072000,
    4096000, 6144000, 8192000, 12288000, 16384000, 24576000, 32768000, 49152000,
};

uint64_t dn_msg_rnr_ns(unsigned code)
{
    return (uint64_t)rnr_table[code & 31u] * 10u;
}

/* The clock of message timeouts and RNR backoff: the board's when it keeps
 * modeled time (--timing, --deterministic), which runs far slower than the
 * wall clock, so that an ACK the board gives in time is never late;
 * otherwise the wall clock (no host-bus call per ACK). */
uint64_t dn_msg_now_ns(dn_node *n)
{
    if (n->timed) {
        uint64_t v = 0;
        dn_clock(n, &v);        /* modeled time: the board's clock */
        return v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void dn_msg_config_default(dn_node *n, struct dn_msg_config *cfg)
{
    const char *env = getenv("DIMMNET_NODES");
    unsigned nodes = env ? (unsigned)strtoul(env, NULL, 10) : 0;
    unsigned port = n ? n->port : 0, ports = n ? n->ports : 1;
    unsigned share = dn1_msg_share(ports);

    /* Every port of every board a sender (boards alike: node * ports + port). */
    if (nodes == 0 || nodes > dn1_msg_nodes(ports)) {
        nodes = dn1_msg_nodes(ports);
    }
    unsigned senders = nodes * ports <= share ? nodes * ports : share;
    /* The upper half of receive memory holds the system buffers, a part
     * of it a port; the notice queue is at LLCM 0xc000 with one port,
     * where the ports' blocks are with several: then 4 KiB a port from
     * the user area's start. */
    uint32_t part = (DN1_HOSTMEM_SIZE / 2) / ports & ~(DN1_MSG_ALIGN - 1);
    uint32_t each = part / senders;
    if (each > (1u << 20)) {
        each = 1u << 20;
    }
    *cfg = (struct dn_msg_config){
        .sysbuf_off = DN1_HOSTMEM_SIZE / 2 + port * part,
        .sysbuf_bytes = each & ~(DN1_MSG_ALIGN - 1),
        .senders = senders,
        .nq_off = ports > 1 ? DN1_LLCM_USER_BASE + 0x1000u * port : 0xc000,
        .nq_entries = ports > 1 ? 0x1000u / sizeof(struct dn1_msg_notice) : 512,
        .retry = 6,
        .rnr_retry = 7,
        .min_rnr_timer = 12,
        .timeout_us = n && n->timed ? 200 : 200000,
        .window = 256,
        .stash_bytes = 64u << 20,
    };
}

static int config_valid(const dn_node *n, const struct dn_msg_config *c)
{
    uint64_t bufs = (uint64_t)c->sysbuf_bytes * c->senders;

    return c->senders >= 1 && c->senders <= dn1_msg_share(n->ports) &&
           (c->sysbuf_off % DN1_MSG_ALIGN) == 0 &&
           (c->sysbuf_bytes % DN1_MSG_ALIGN) == 0 &&
           c->sysbuf_off <= DN1_HOSTMEM_SIZE &&
           bufs <= DN1_HOSTMEM_SIZE - c->sysbuf_off &&
           c->nq_entries >= 1 && c->nq_entries <= DN1_MSG_NQ_MAX &&
           (c->nq_entries & (c->nq_entries - 1)) == 0 &&
           (c->nq_off % 32) == 0 && c->nq_off >= DN1_LLCM_NIC_RESERVED &&
           c->nq_off <= DN1_LLCM_SIZE - c->nq_entries * sizeof(struct dn1_msg_notice) &&
           c->retry <= 7 && c->rnr_retry <= 7 && c->min_rnr_timer <= 31 &&
           c->timeout_us >= 1 && c->window >= 1 && c->window <= DN1_MSG_WINDOW;
}

/*
 * The receiving side's set-up: the notice queue (taking over whatever the
 * firmware produced before us), then each sender's system buffer, a new
 * setup generation so that the firmware starts that conversation over.
 */
int dn_msg_init(dn_node *n, const struct dn_msg_config *cfg)
{
    struct dn_msg_config def;
    struct dn_msg_state *m;

    if (!n || n->msg) {
        return DN_EINVAL;
    }
    if (!cfg) {
        dn_msg_config_default(n, &def);
        cfg = &def;
    }
    if (!config_valid(n, cfg)) {
        return DN_EINVAL;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        return DN_ENOMEM;
    }
    m->cfg = *cfg;
    n->msg = m;

    /* This process's conversations: an incarnation newer than any this
     * node took before (the count is kept in the NIC's LLCM, which
     * outlives the process), so receivers refuse what an earlier process
     * left in the network. */
    uint32_t ctrl = MSG_CTRL(n);
    uint8_t inc = (uint8_t)(__atomic_load_n(
        dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, incarnation)), __ATOMIC_ACQUIRE) + 1);
    dn_msg_inc_taken(n, inc ? inc : 1);

    __atomic_store_n(dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, enable)), 0,
                     __ATOMIC_SEQ_CST);
    m->nq_consumed = __atomic_load_n(
        dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_produced)), __ATOMIC_ACQUIRE);
    *dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_off)) = cfg->nq_off;
    *dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_entries)) = cfg->nq_entries;
    *dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_consumed)) = m->nq_consumed;
    dn_msg_setup_senders(n);
    /* Senders beyond ours: no setup (a stale one from an earlier process
     * would take messages whose notices we would not free). */
    unsigned share = dn1_msg_share(n->ports);
    for (unsigned s = cfg->senders; s < share; s++) {
        volatile uint32_t *gens = dn_llcm32(n, MSG_SLOT(n, s) + offsetof(struct dn1_msg_slot, setup_gen));
        __atomic_store_n(gens, __atomic_load_n(gens, __ATOMIC_ACQUIRE) & 0xffff0000u,
                         __ATOMIC_RELEASE);
    }
    __atomic_store_n(dn_llcm32(n, ctrl + offsetof(struct dn1_msg_ctrl, enable)),
                     DN1_MSG_ENABLE, __ATOMIC_RELEASE);
    /* Set-up's uncached accesses: a load and a store for every slot, four
     * more stores for each of ours, six for the control block, and the
     * incarnation's load. */
    dn_host_charge(n, DN_HOST_LOAD, 2 + share);
    dn_host_charge(n, DN_HOST_STORE, 6 + share + 3u * cfg->senders);
    return DN_OK;
}

/* Each of our senders' system buffer, empty, under a new setup generation
 * (the firmware takes it over at the sender's next packet). */
void dn_msg_setup_senders(dn_node *n)
{
    const struct dn_msg_config *cfg = &n->msg->cfg;

    for (unsigned s = 0; s < cfg->senders; s++) {
        uint32_t slot = MSG_SLOT(n, s);
        volatile uint32_t *gens = dn_llcm32(n, slot + offsetof(struct dn1_msg_slot, setup_gen));
        uint32_t g = __atomic_load_n(gens, __ATOMIC_ACQUIRE);
        uint16_t setup_gen = (uint16_t)(g + 1) ? (uint16_t)(g + 1) : 1;

        *dn_llcm32(n, slot + offsetof(struct dn1_msg_slot, sysbuf_off)) =
            cfg->sysbuf_off + s * cfg->sysbuf_bytes;
        *dn_llcm32(n, slot + offsetof(struct dn1_msg_slot, sysbuf_size)) = cfg->sysbuf_bytes;
        *dn_llcm32(n, slot + offsetof(struct dn1_msg_slot, freed)) = 0;
        n->msg->senders[s].setup_gen = setup_gen;
        /* A post the firmware has not taken stays ours to wait for. */
        n->msg->senders[s].post_gen = (uint16_t)(g >> 16);
        __atomic_store_n(gens, (g & 0xffff0000u) | setup_gen, __ATOMIC_RELEASE);
    }
}

/* @inc is in use: it is the node's newest (serially) from now on. */
void dn_msg_inc_taken(dn_node *n, uint8_t inc)
{
    struct dn_msg_state *m = n->msg;

    if (m->inc == 0 || (int8_t)(inc - m->inc) > 0) {
        m->inc = inc;
        __atomic_store_n(dn_llcm32(n, MSG_CTRL(n) +
                                   offsetof(struct dn1_msg_ctrl, incarnation)),
                         inc, __ATOMIC_RELEASE);
    }
}

void dn_msg_fini(dn_node *n)
{
    struct dn_msg_state *m = n->msg;

    if (!m) {
        return;
    }
    for (unsigned i = 0; i < m->npeers; i++) {
        dn_msg_peer_free(&m->peers[i]);
    }
    free(m->peers);
    dn_msg_recv_free(n);
    free(m);
    n->msg = NULL;
}

uint32_t dn_msg_inflight(const dn_node *n)
{
    return n->msg ? n->msg->inflight : 0;
}

int dn_msg_progress(dn_node *n)
{
    if (!n || !n->msg) {
        return DN_EINVAL;
    }
    unsigned held = n->hb_wcount;

    dn_cq_drain(n);
    /* The kicks of packets sent now may wait, to go in one write with
     * those of the sends the caller makes next (a loop refilling its
     * sends as they complete)... */
    n->hb_combining = 1;
    dn_msg_send_progress(n);
    n->hb_combining = 0;
    dn_msg_recv_progress(n);
    /* ... until a call that sends nothing new (a test of a send still in
     * flight, a receive, the turn of a waiting loop): they go now. */
    if (n->hb_wcount == held) {
        dn_hb_flush(n);
    }
    return DN_OK;
}

int dn_msg_isend(dn_node *n, unsigned dst, uint32_t tag, const void *buf,
                 size_t len, dn_msg_req **req)
{
    struct dn_msg_req *r;
    int rc;

    int to = n ? msg_sender_no(n, dst) : -1;

    if (!n || !n->msg || !req || to < 0 || (!buf && len)) {
        return DN_EINVAL;       /* not an address that can take messages */
    }
    if (len >= DN1_HOSTMEM_SIZE) {
        return DN_ERANGE;       /* the envelope and receive memory bound it */
    }
    if (!(r = calloc(1, sizeof(*r)))) {
        return DN_ENOMEM;
    }
    dn_self(n, DN_SELF_XFER);
    r->buf = buf;
    r->len = len;
    /* In this node's receive memory the NIC can read it itself: RDMA,
     * 2048-byte packets, no copy through the BOTF windows. */
    r->rdma = (const uint8_t *)buf >= n->hostmem &&
              (const uint8_t *)buf <= n->hostmem + n->hostmem_size &&
              len <= n->hostmem_size - (size_t)((const uint8_t *)buf - n->hostmem);
    r->st.src = dst;
    r->st.tag = tag;
    r->st.len = len;
    rc = dn_msg_send_queue(n, r, (unsigned)to);
    if (rc != DN_OK) {
        free(r);
        return rc;
    }
    *req = r;
    dn_msg_progress(n);
    return DN_OK;
}

int dn_msg_irecv(dn_node *n, int src, int64_t tag, void *buf, size_t cap,
                 dn_msg_req **req)
{
    struct dn_msg_req *r;

    int from = n && src >= 0 ? msg_sender_no(n, (unsigned)src) : src;

    if (!n || !n->msg || !req || (!buf && cap) || src < DN_ANY_SOURCE ||
        (src >= 0 && from < 0) || tag < DN_ANY_TAG || tag > UINT32_MAX) {
        return DN_EINVAL;
    }
    if (!(r = calloc(1, sizeof(*r)))) {
        return DN_ENOMEM;
    }
    dn_self(n, DN_SELF_XFER);
    r->src = from;              /* its sender number, or DN_ANY_SOURCE */
    r->tag = tag;
    r->rbuf = buf;
    r->cap = cap;
    dn_msg_recv_post(n, r);
    *req = r;
    dn_msg_progress(n);
    return DN_OK;
}

int dn_msg_test(dn_node *n, dn_msg_req *req, int *done, struct dn_msg_status *st)
{
    if (!n || !n->msg || !req || !done) {
        return DN_EINVAL;
    }
    if (!req->done) {
        dn_msg_progress(n);
    }
    *done = req->done;
    if (!req->done) {
        return DN_OK;
    }
    int err = req->st.error;
    if (st) {
        *st = req->st;
    }
    free(req);
    return err;
}

int dn_msg_done(const dn_msg_req *req)
{
    return req && req->done;
}

int dn_msg_wait(dn_node *n, dn_msg_req *req, struct dn_msg_status *st,
                int timeout_ms)
{
    int64_t deadline = dn_now_ms() + timeout_ms;
    int done = 0;

    if (timeout_ms < 0) {
        return DN_EINVAL;
    }
    for (;;) {
        int rc = dn_msg_test(n, req, &done, st);
        if (done || rc != DN_OK) {
            return rc;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        if ((rc = dn_idle(n)) != DN_OK) {
            return rc;
        }
    }
}

int dn_msg_send(dn_node *n, unsigned dst, uint32_t tag, const void *buf,
                size_t len, int timeout_ms)
{
    dn_msg_req *r;
    int rc = dn_msg_isend(n, dst, tag, buf, len, &r);

    return rc != DN_OK ? rc : dn_msg_wait(n, r, NULL, timeout_ms);
}

int dn_msg_recv(dn_node *n, int src, int64_t tag, void *buf, size_t cap,
                struct dn_msg_status *st, int timeout_ms)
{
    dn_msg_req *r;
    int rc = dn_msg_irecv(n, src, tag, buf, cap, &r);

    return rc != DN_OK ? rc : dn_msg_wait(n, r, st, timeout_ms);
}

int dn_msg_cancel(dn_node *n, dn_msg_req *req)
{
    if (!n || !n->msg || !req) {
        return DN_EINVAL;
    }
    if (req->done) {
        return DN_EBUSY;
    }
    return dn_msg_recv_withdraw(n, req) ? DN_OK : DN_EINVAL;
}

int dn_msg_incarnation(dn_node *n)
{
    return n && n->msg ? n->msg->inc : -1;
}

int dn_msg_stats(dn_node *n, struct dn_msg_stats *st)
{
    if (!n || !n->msg || !st) {
        return DN_EINVAL;
    }
    *st = n->msg->stats;
    return DN_OK;
}
