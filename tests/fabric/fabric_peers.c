/*
 * Every process a full peer (issue 36 item 5, contract 1.29): on boards of
 * K host ports each port's process sends and receives messages of its own
 * and is a target of RMA and atomics, peer number e = node * K + port (the
 * FI_AV_MAP fi_addr_t), named node | port << 12. Every peer with every
 * other, the other ports of its own board included (those bytes too go
 * through the NIC):
 *   - names: fi_getname gives node | port << 12, FI_AV_MAP answers e,
 *     fi_av_straddr writes "dimmnet://N.P" for a port above 0, fi_getinfo
 *     takes that as a node; a port the boards lack is refused;
 *   - tagged messages at every size class, 0 B to 1 MiB (landing chunks,
 *     zones, eager, DIRECT, rendezvous, zero-copy): receives posted first
 *     (directed: advertised to their senders, so landings are written into
 *     the reader port's part of receive memory), then sent first
 *     (unexpected, any-source receives: the source must come back as the
 *     sender's fi_addr_t); every byte, length, tag and source checked;
 *   - one-sided: each peer writes its slice of every other's window
 *     (fi_write, two pieces), reads it back (fi_read), adds into two cells
 *     there (fi_fetch_atomic, fi_atomic) and announces itself with remote
 *     CQ data (fi_writedata: a message to the target's port); each target
 *     checks every slice, both cells' sums, the guard bytes and one data
 *     completion from each peer with its source.
 *
 *   fabric_peers      (dimmnet-cluster -n N [--host-ports K])
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define PEERS    64u
#define MAX_SIZE (1u << 20)
#define SLICE    (12u << 10)              /* more than one RMA piece */
#define GUARD    4096u
#define ADDS     20u
#define WIN(p)   ((size_t)(p) * SLICE + GUARD + 16u)

/* Receives take 16 bytes more (a canary): 400 is a landing chunk's most,
 * 8128 a zone's, 12000 a zero-copy DIRECT, 65537 a rendezvous. */
static const size_t sizes[] = { 0, 1, 100, 400, 401, 1000, 4000, 8128, 8129, 12000,
                                65536, 65537, 200000, MAX_SIZE };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned node, port, ports, self, peers;
static fi_addr_t peer_addr[PEERS];

/* Publish, then wait for every peer to have published @what (progress
 * made meanwhile: a peer may wait for our CTS or resend). */
static unsigned barriers;
static void barrier(const char *what)
{
    char key[64], v[8];
    int64_t deadline = now_ms() + TIMEOUT_MS;

    snprintf(key, sizeof(key), "peers.%s.%u.%u", what, barriers, self);
    CHECK_EQ(dn_publish(key, "1"), DN_OK);
    for (unsigned k = 0; k < peers; k++) {
        snprintf(key, sizeof(key), "peers.%s.%u.%u", what, barriers, k);
        while (dn_lookup(key, v, sizeof(v), 0) != DN_OK) {
            struct fi_cq_tagged_entry e;
            fi_cq_read(cq, &e, 0);
            if (now_ms() > deadline) {
                fprintf(stderr, "peer %u: barrier %s: no peer %u in %d ms\n", self, what, k,
                        TIMEOUT_MS);
                exit(1);
            }
        }
    }
    barriers++;
}

static uint32_t seed_of(unsigned src, unsigned dst, unsigned round)
{
    return (src * PEERS + dst) * 64u + round;
}

static void hex_of(const void *p, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++) {
        snprintf(out + 2 * i, 3, "%02x", ((const uint8_t *)p)[i]);
    }
}

static void of_hex(const char *hex, void *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        ((uint8_t *)p)[i] = (uint8_t)b;
    }
}

static void setup(void)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_av_attr av_attr = { 0 };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct { uint32_t magic, node; } name, other;
    size_t len = sizeof(name);
    char key[32], hex[64], v[64];

    hints->caps = FI_TAGGED | FI_DIRECTED_RECV | FI_SOURCE | FI_RMA | FI_ATOMIC;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    CHECK_MSG(info->src_addr && info->src_addrlen == 8 &&
              ((uint32_t *)info->src_addr)[1] == (node | port << 12),
              "peer %u: fi_getinfo's src_addr not node | port << 12", self);
    TRY(fi_fabric(info->fabric_attr, &fabric, NULL));
    TRY(fi_domain(fabric, info, &domain, NULL));
    /* Both kinds: a table on even peers, a map (fi_addr_t = e) on odd. */
    av_attr.type = self % 2 ? FI_AV_MAP : FI_AV_TABLE;
    TRY(fi_av_open(domain, &av_attr, &av, NULL));
    TRY(fi_cq_open(domain, &cq_attr, &cq, NULL));
    TRY(fi_endpoint(domain, info, &ep, NULL));
    TRY(fi_ep_bind(ep, &av->fid, 0));
    TRY(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    TRY(fi_enable(ep));
    TRY(fi_getname(&ep->fid, &name, &len));
    CHECK_EQ(len, sizeof(name));
    CHECK_MSG(name.node == (node | port << 12), "peer %u: named %#x, not %#x", self,
              name.node, node | port << 12);
    hex_of(&name, len, hex);
    snprintf(key, sizeof(key), "peers.name.%u", self);
    CHECK_EQ(dn_publish(key, hex), DN_OK);
    for (unsigned k = 0; k < peers; k++) {
        snprintf(key, sizeof(key), "peers.name.%u", k);
        CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
        of_hex(v, &other, sizeof(other));
        CHECK_MSG(other.node == (k / ports | (k % ports) << 12), "peer %u: peer %u named %#x",
                  self, k, other.node);
        CHECK_EQ(fi_av_insert(av, &other, 1, &peer_addr[k], 0, NULL), 1);
        if (av_attr.type == FI_AV_MAP) {
            CHECK_EQ(peer_addr[k], (fi_addr_t)k);
        }
        char s[32];
        size_t slen = sizeof(s);
        fi_av_straddr(av, &other, s, &slen);
        char want[32];
        if (k % ports) {
            snprintf(want, sizeof(want), "dimmnet://%u.%u", k / ports, k % ports);
        } else {
            snprintf(want, sizeof(want), "dimmnet://%u", k / ports);
        }
        CHECK_MSG(!strcmp(s, want), "peer %u: straddr %s, not %s", self, s, want);
        if (k == peers - 1) {
            /* That name as fi_getinfo's node: the same address. */
            struct fi_info *h = fi_allocinfo(), *fi = NULL;
            h->fabric_attr->prov_name = strdup("dimmnet");
            CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), want, NULL, 0, h, &fi), 0);
            CHECK_MSG(fi && fi->dest_addr && ((uint32_t *)fi->dest_addr)[1] == other.node,
                      "peer %u: fi_getinfo(%s): no dest_addr %#x", self, want, other.node);
            fi_freeinfo(fi);
            fi_freeinfo(h);
        }
    }
    /* A port the boards lack, a node beyond the run: no peer. */
    fi_addr_t none = 0;
    other.node = ports < 4 ? 0u | ports << 12 : 0u | 4u << 12;
    CHECK_EQ(fi_av_insert(av, &other, 1, &none, 0, NULL), 0);
    CHECK_EQ(none, FI_ADDR_NOTAVAIL);
    other.node = peers / ports;
    CHECK_EQ(fi_av_insert(av, &other, 1, &none, 0, NULL), 0);
    fi_freeinfo(hints);
    barrier("ready");
}

/* ---- two-sided ------------------------------------------------------------ */

static uint8_t *sbuf[PEERS], *rbuf[PEERS];
static int sctx[PEERS], rctx[PEERS];

static void post_recv(unsigned k, unsigned round, size_t len, int any)
{
    ssize_t rc;

    memset(rbuf[k], 0xee, len + 16);
    while ((rc = fi_trecv(ep, rbuf[k], len + 16, NULL, any ? FI_ADDR_UNSPEC : peer_addr[k],
                          (uint64_t)round << 16 | k, 0, &rctx[k])) == -FI_EAGAIN) {
        struct fi_cq_tagged_entry e;
        fi_cq_read(cq, &e, 0);
    }
    CHECK_MSG(rc == 0, "peer %u: fi_trecv: %s", self, fi_strerror((int)-rc));
}

/* Every completion of the round: a send to each other peer, a receive from
 * each, in any order; each receive's bytes, length, tag and source. */
static void finish_round(unsigned round, size_t len)
{
    unsigned want = 2 * (peers - 1), got = 0, recvs[PEERS] = { 0 };

    while (got < want) {
        struct fi_cq_err_entry err;
        fi_addr_t src = FI_ADDR_NOTAVAIL;
        struct fi_cq_tagged_entry e = wait_comp(&src, &err);
        int *c = e.op_context;

        got++;
        if (err.err) {
            CHECK_MSG(0, "peer %u: round %u (%zu B): error completion %d (%s)", self, round,
                      len, err.err, fi_strerror(err.err));
            continue;
        }
        if (c >= sctx && c < sctx + PEERS) {
            CHECK(e.flags & FI_SEND);
            continue;
        }
        CHECK_MSG(c >= rctx && c < rctx + PEERS, "peer %u: unknown context", self);
        if (c < rctx || c >= rctx + PEERS) {
            continue;
        }
        unsigned k = (unsigned)(c - rctx);
        recvs[k]++;
        CHECK_MSG(e.len == len && e.tag == ((uint64_t)round << 16 | k) && src == peer_addr[k],
                  "peer %u: round %u from %u: len %zu tag %#" PRIx64 " src %" PRIu64, self,
                  round, k, e.len, e.tag, (uint64_t)src);
        CHECK_MSG(same(rbuf[k], len, seed_of(k, self, round)) && rbuf[k][len] == 0xee,
                  "peer %u: round %u: %zu bytes from peer %u (board %u port %u) differ", self,
                  round, len, k, k / ports, k % ports);
    }
    for (unsigned k = 0; k < peers; k++) {
        CHECK_MSG(k == self || recvs[k] == 1, "peer %u: round %u: %u receives from %u", self,
                  round, recvs[k], k);
    }
}

static void send_all(unsigned round, size_t len)
{
    for (unsigned d = 1; d < peers; d++) {
        unsigned k = (self + d) % peers;     /* not all at peer 0 at once */

        fill(sbuf[k], len, seed_of(self, k, round));
        tsend_to(peer_addr[k], sbuf[k], len, (uint64_t)round << 16 | self, &sctx[k]);
    }
}

static void two_sided(void)
{
    for (unsigned k = 0; k < peers; k++) {
        sbuf[k] = malloc(MAX_SIZE);
        rbuf[k] = malloc(MAX_SIZE + 16);
        CHECK(sbuf[k] && rbuf[k]);
    }
    /* Receives first (directed: advertised once the peer is known; the
     * first round makes every peer known), then sends. */
    for (unsigned i = 0; i < NSIZES; i++) {
        for (unsigned k = 0; k < peers; k++) {
            if (k != self) {
                post_recv(k, i, sizes[i], 0);
            }
        }
        barrier("posted");
        send_all(i, sizes[i]);
        finish_round(i, sizes[i]);
    }
    /* Sends first, any-source receives after: unexpected messages. */
    for (unsigned i = 0; i < NSIZES; i++) {
        unsigned round = NSIZES + i;

        send_all(round, sizes[i]);
        barrier("sent");
        for (unsigned k = 0; k < peers; k++) {
            if (k != self) {
                post_recv(k, round, sizes[i], 1);
            }
        }
        finish_round(round, sizes[i]);
    }
    barrier("two-sided");
    printf("fabric_peers: peer %u (board %u port %u): %u sizes 0..%u B to and from %u "
           "peers, twice, every byte right\n", self, node, port, (unsigned)NSIZES, MAX_SIZE,
           peers - 1);
    for (unsigned k = 0; k < peers; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
}

/* ---- one-sided ------------------------------------------------------------ */

/* Remote CQ data taken, per source peer (our targets' completions come
 * among our own operations'). */
static int datas[PEERS];
static int data_taken(const struct fi_cq_tagged_entry *e, const struct fi_cq_err_entry *err,
                      fi_addr_t from)
{
    if (err->err || !(e->flags & FI_REMOTE_CQ_DATA)) {
        return 0;
    }
    CHECK_MSG(e->data >= 1000 && e->data < 1000 + peers && from == peer_addr[e->data - 1000],
              "peer %u: remote CQ data %" PRIu64 " from %" PRIu64, self, e->data,
              (uint64_t)from);
    if (e->data >= 1000 && e->data < 1000 + peers) {
        datas[e->data - 1000]++;
    }
    return 1;
}

static void wait_ctx(void *ctx)
{
    for (;;) {
        struct fi_cq_err_entry err;
        fi_addr_t from = FI_ADDR_NOTAVAIL;
        struct fi_cq_tagged_entry e = wait_comp(&from, &err);

        if (data_taken(&e, &err, from)) {
            continue;
        }
        CHECK_MSG(!err.err, "peer %u: error completion %d (%s)", self, err.err,
                  fi_strerror(err.err));
        CHECK_MSG(e.op_context == ctx, "peer %u: completion of %p, not %p", self,
                  e.op_context, ctx);
        return;
    }
}

static void one_sided(void)
{
    size_t wlen = (WIN(peers) + 4095) & ~(size_t)4095;
    uint8_t *win = aligned_alloc(4096, wlen), *src = malloc(SLICE), *back = malloc(SLICE);
    uint64_t *cells = (uint64_t *)(win + WIN(peers) - 16);
    struct fid_mr *mr;
    uint64_t raddr[PEERS], rkey[PEERS];
    char key[32], v[64];
    int ctx;

    memset(win, 0xa5, wlen);
    cells[0] = cells[1] = 0;
    TRY(fi_mr_reg(domain, win, wlen, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL));
    snprintf(key, sizeof(key), "peers.win.%u", self);
    snprintf(v, sizeof(v), "%" PRIx64 " %" PRIx64, (uint64_t)(uintptr_t)win, fi_mr_key(mr));
    CHECK_EQ(dn_publish(key, v), DN_OK);
    for (unsigned k = 0; k < peers; k++) {
        snprintf(key, sizeof(key), "peers.win.%u", k);
        CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
        CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64, &raddr[k], &rkey[k]), 2);
    }
    for (unsigned d = 1; d < peers; d++) {
        unsigned k = (self + d) % peers;
        uint64_t slice = raddr[k] + (uint64_t)self * SLICE, cell = raddr[k] + WIN(peers) - 16;
        ssize_t rc;

        fill(src, SLICE, seed_of(self, k, 63));
        CHECK_EQ(fi_write(ep, src, SLICE, NULL, peer_addr[k], slice, rkey[k], &ctx), 0);
        wait_ctx(&ctx);
        memset(back, 0, SLICE);
        CHECK_EQ(fi_read(ep, back, SLICE, NULL, peer_addr[k], slice, rkey[k], &ctx), 0);
        wait_ctx(&ctx);
        CHECK_MSG(!memcmp(back, src, SLICE), "peer %u: slice read back from peer %u differs",
                  self, k);
        for (unsigned i = 0; i < ADDS; i++) {
            uint64_t one = 1, old = UINT64_MAX, two = 2;
            while ((rc = fi_fetch_atomic(ep, &one, 1, NULL, &old, NULL, peer_addr[k], cell,
                                         rkey[k], FI_UINT64, FI_SUM, &ctx)) == -FI_EAGAIN) {
                fi_cq_read(cq, NULL, 0);
            }
            CHECK_EQ(rc, 0);
            wait_ctx(&ctx);
            CHECK_MSG(old < (uint64_t)(peers - 1) * ADDS, "peer %u: old value %" PRIu64
                      " at peer %u", self, old, k);
            while ((rc = fi_atomic(ep, &two, 1, NULL, peer_addr[k], cell + 8, rkey[k],
                                   FI_UINT64, FI_SUM, &ctx)) == -FI_EAGAIN) {
                fi_cq_read(cq, NULL, 0);
            }
            CHECK_EQ(rc, 0);
            wait_ctx(&ctx);
        }
        /* The remote CQ data of a write: a message to the target's port. */
        CHECK_EQ(fi_writedata(ep, src, 8, NULL, 1000u + self, peer_addr[k], slice, rkey[k],
                              &ctx), 0);
        wait_ctx(&ctx);
    }
    /* Our targets' data completions: one from each peer, its source. */
    for (;;) {
        unsigned got = 0;
        for (unsigned k = 0; k < peers; k++) {
            got += datas[k] > 0;
        }
        if (got >= peers - 1) {
            break;
        }
        struct fi_cq_err_entry err;
        fi_addr_t from = FI_ADDR_NOTAVAIL;
        struct fi_cq_tagged_entry e = wait_comp(&from, &err);
        CHECK_MSG(data_taken(&e, &err, from), "peer %u: a completion not remote CQ data",
                  self);
    }
    barrier("one-sided");
    for (unsigned k = 0; k < peers; k++) {
        CHECK_MSG(k == self || datas[k] == 1, "peer %u: %d data completions from %u", self,
                  datas[k], k);
        if (k == self) {
            continue;
        }
        size_t bad = !same(win + (size_t)k * SLICE, SLICE, seed_of(k, self, 63));
        CHECK_MSG(!bad, "peer %u: slice of peer %u (board %u port %u) not its bytes", self, k,
                  k / ports, k % ports);
    }
    size_t touched = 0;
    for (size_t i = 0; i < SLICE; i++) {
        touched += win[(size_t)self * SLICE + i] != 0xa5;
    }
    for (size_t i = (size_t)peers * SLICE; i < WIN(peers) - 16; i++) {
        touched += win[i] != 0xa5;
    }
    CHECK_MSG(touched == 0, "peer %u: %zu bytes outside the slices written", self, touched);
    CHECK_MSG(cells[0] == (uint64_t)(peers - 1) * ADDS && cells[1] == 2 * cells[0],
              "peer %u: cells %" PRIu64 " %" PRIu64 ", not %u and %u", self, cells[0],
              cells[1], (peers - 1) * ADDS, 2 * (peers - 1) * ADDS);
    printf("fabric_peers: peer %u (board %u port %u): %u slices, %" PRIu64 " fetch-adds, %"
           PRIu64 " added, %u data completions, all right\n", self, node, port, peers - 1,
           cells[0], cells[1], peers - 1);
    barrier("checked");
    fi_close(&mr->fid);
    free(win);
    free(src);
    free(back);
}

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *n = getenv("DIMMNET_NODES");
    const char *p = getenv("DIMMNET_PORT"), *np = getenv("DIMMNET_HOST_PORTS");

    alarm(280);
    node = id ? (unsigned)atoi(id) : 0;
    port = p ? (unsigned)atoi(p) : 0;
    ports = np ? (unsigned)atoi(np) : 1;
    peers = (n ? (unsigned)atoi(n) : 2) * ports;
    self = node * ports + port;
    me = self;
    if (peers > PEERS || peers < 2) {
        fprintf(stderr, "fabric_peers: %u peers: 2..%u\n", peers, PEERS);
        return 1;
    }
    setup();
    two_sided();
    one_sided();
    fab_close();
    printf("fabric_peers: peer %u (board %u port %u): %s\n", self, node, port,
           check_failures ? "FAILED" : "ok");
    return check_failures + fab_failures() != 0;
}
