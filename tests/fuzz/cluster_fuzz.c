/*
 * Socket-level fuzzer for several boards through the switch: the host
 * program of every node of a cluster the launcher started (boards with the
 * firmware, the switch with its fault injection, optionally in modeled time).
 * Each node, seeded by (seed, node), plays a hostile host: it fills BOTF
 * windows, AOTF channels and RDMA descriptors with mutated headers (firmware
 * types with wild pointers, VA writes with no TLB entry, groups, nodes with
 * no port, edges of every range) and fires them at the other boards, reads
 * registers and lets time pass, all through raw host-bus requests.
 *
 * Checked on its own node throughout: every host-bus answer well-formed and
 * in order; counters never go back; window memory changed by nobody but this
 * host; LLCM below the user area holds only well-formed completion records;
 * the firmware never reports FAILED. At the end the node must still work: a
 * PUSH to itself through the switch lands and is ACKed.
 *
 *   dimmnet-cluster ... -n 3 [--timing] [--fault ...] -- cluster_fuzz SEED OPS
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "dimmnet1/barrier.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/shared_mem.h"

static unsigned node, nodes;
static int hb = -1;
static uint8_t *hostmem, *llcm, *window;
static uint8_t window_shadow[DN1_WINDOW_SIZE];
static uint32_t cnt[DN1_CNT_COUNT], cq_consumed;
static uint64_t rng;

static void fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "cluster_fuzz: node %u: FAIL: ", node);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* splitmix64: the whole run follows from the seed and the node id. */
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static uint8_t *map(const char *env, size_t size)
{
    const char *path = getenv(env);
    int fd = path ? open(path, O_RDWR) : -1;
    void *p;

    if (fd < 0) {
        fail("cannot open %s (%s): run under tools/dimmnet-cluster", env,
             path ? path : "unset");
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        fail("mmap %s", env);
    }
    return p;
}

static void hb_connect(void)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    const char *path = getenv("DIMMNET_HOSTBUS");

    if (!path) {
        fail("DIMMNET_HOSTBUS unset");
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    for (int i = 0; i < 1000; i++) {
        hb = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(hb, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            return;
        }
        close(hb);
        usleep(10000);
    }
    fail("cannot connect to the host bus");
}

static void io(int write_it, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        struct pollfd pfd = { .fd = hb, .events = write_it ? POLLOUT : POLLIN };
        ssize_t k;

        /* A generous limit: it catches a board that stopped answering. */
        if (poll(&pfd, 1, 60000) <= 0) {
            fail("host bus: no %s in 60 s", write_it ? "room" : "answer");
        }
        k = write_it ? write(hb, p, len) : read(hb, p, len);
        if (k <= 0) {
            fail("host bus closed (board gone?)");
        }
        p += k;
        len -= (size_t)k;
    }
}

/* One host-bus request, raw; checks the answer's form. */
static int32_t request(uint32_t magic, uint32_t op, uint64_t a0, uint64_t a1,
                       uint64_t a2, uint64_t *value)
{
    struct dn1_hb_req req = { magic, op, a0, a1, a2 };
    struct dn1_hb_rsp rsp;

    io(1, &req, sizeof(req));
    io(0, &rsp, sizeof(rsp));
    if (rsp.magic != DN1_HB_MAGIC || rsp.status > 0 ||
        rsp.status < DN1_HB_ENOFLASH) {
        fail("host-bus answer magic 0x%x status %d to op %u", rsp.magic,
             rsp.status, op);
    }
    if (value) {
        *value = rsp.value;
    }
    return rsp.status;
}

static uint32_t reg(uint32_t off)
{
    uint64_t v = 0;

    if (request(DN1_HB_MAGIC, DN1_HB_REG_READ, off, 0, 0, &v) != 0) {
        fail("REG_READ 0x%x refused", off);
    }
    return (uint32_t)v;
}

static void check(void)
{
    uint32_t produced = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);
    uint32_t fw = reg(DN1_REG_FW_STATUS);
    uint32_t later;

    if (!(fw & DN1_FW_READY) || (fw & 2)) {
        fail("FW_STATUS 0x%x: the firmware failed", fw);
    }
    for (unsigned i = 0; i < DN1_CNT_COUNT; i++) {
        uint32_t v = reg(DN1_REG_CNT(i));

        if (v < cnt[i]) {
            fail("counter %u went back from %u to %u", i, cnt[i], v);
        }
        cnt[i] = v;
    }
    if (memcmp(window, window_shadow, sizeof(window_shadow))) {
        fail("window memory changed by someone else");
    }
    if (*(uint32_t *)(llcm + DN1_LLCM_CQ_CONSUMED) != cq_consumed) {
        fail("CQ_CONSUMED changed by the board");
    }
    /* The board keeps posting while we look: a slot may already hold a
     * record newer than the count read first (or the one being written,
     * index = the count), never one past the count read after it. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    later = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);
    for (unsigned i = 8; i < DN1_LLCM_USER_BASE; i++) {
        unsigned r = (i - DN1_LLCM_CQ_RING) / 16;

        if (i >= DN1_LLCM_CQ_RING && r < DN1_LLCM_CQ_ENTRIES) {
            const uint8_t *rec = llcm + DN1_LLCM_CQ_RING + 16 * r;
            uint32_t index;

            if (i % 16 || r >= produced) {
                continue;
            }
            index = *(volatile uint32_t *)(rec + 8);
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            later = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);
            if (index % DN1_LLCM_CQ_ENTRIES != r || index > later ||
                (rec[4] != DN1_CQ_KIND_ACK && rec[4] != DN1_CQ_KIND_NACK)) {
                fail("completion record %u malformed", r);
            }
        } else if (i >= DN1_LLCM_FWSTATS && i < DN1_LLCM_BAR_GROUPS_END) {
            continue;   /* the firmware's own part (sections 10 and 11) */
        } else if (llcm[i]) {
            fail("LLCM byte 0x%x outside the completion records written", i);
        }
    }
}

static void window_put(uint32_t off, const void *buf, size_t len)
{
    memcpy(window + off, buf, len);
    memcpy(window_shadow + off, buf, len);
}

/* A remote address worth trying: the edges of each range, or anything. */
static uint64_t pick_raddr(void)
{
    static const uint64_t edges[] = {
        0, DN1_HOSTMEM_SIZE, 1ull << 32, (1ull << 32) + DN1_LLCM_USER_BASE,
        (1ull << 32) + DN1_LLCM_SIZE, 1ull << 48,
    };

    switch (below(4)) {
    case 0:
        return below(DN1_HOSTMEM_SIZE);
    case 1:
        return edges[below(6)] + below(64) - 32;
    case 2:
        return DN1_RVA(below(4), below(1 << 20));
    default:
        return rnd();
    }
}

static uint8_t pick_type(void)
{
    static const uint8_t types[] = {
        DN1_TYPE_PUSH, DN1_TYPE_PUSH, DN1_TYPE_READ_REQ, DN1_TYPE_INDIRECT_WRITE,
        DN1_TYPE_INDIRECT_WRITE, DN1_TYPE_MESSAGE, DN1_TYPE_BARRIER, 0x77,
    };

    return below(16) ? types[below(8)] : (uint8_t)rnd();
}

static uint16_t pick_dst(void)
{
    switch (below(8)) {
    case 0:
        return DN1_MCAST_BASE + below(2);        /* group 0: all; 1: none */
    case 1:
        return nodes + below(3);                 /* no such port */
    default:
        return below(nodes);
    }
}

static uint8_t pick_flags(void)
{
    return below(8) ? below(8) & (DN1_FLAG_ACK_REQ | DN1_FLAG_VA) : rnd();
}

static void op_botf(void)
{
    unsigned w = below(2);
    struct dn1_botf_hdr h = {
        .type = pick_type(), .flags = pick_flags(), .dst = pick_dst(),
        .len = below(8) ? below(DN1_BOTF_MAX_PAYLOAD + 1) : below(1024),
        .seq = rnd(), .tag = rnd(), .xoff = below(4) ? 0 : rnd(),
        .raddr = pick_raddr(),
    };
    uint8_t payload[DN1_BOTF_MAX_PAYLOAD];

    if (h.type == DN1_TYPE_READ_REQ) {
        h.len = 8;                               /* the reply address */
        h.xoff = below(2100);
    }
    for (unsigned i = 0; i < sizeof(payload); i++) {
        payload[i] = rnd();
    }
    if (h.type == DN1_TYPE_BARRIER && below(2)) {
        h.raddr = DN1_BAR_RADDR(below(DN1_BAR_GROUPS + 1));   /* a counter, mostly */
        payload[0] = below(4);                   /* epochs near the counted one */
        payload[1] = payload[2] = payload[3] = 0;
    }
    window_put(w * DN1_BOTF_WINDOW_STRIDE, &h, sizeof(h));
    window_put(w * DN1_BOTF_WINDOW_STRIDE + DN1_BOTF_PAYLOAD_OFF, payload,
               sizeof(payload));
    request(DN1_HB_MAGIC, DN1_HB_BOTF_KICK, below(8) ? w : below(4), 0, 0,
            NULL);
}

static void op_aotf(void)
{
    unsigned ch = below(DN1_AOTF_CHANNELS);
    struct dn1_aotf_channel c = {
        .type = pick_type(), .flags = pick_flags(), .dst = pick_dst(),
        .size = below(4) ? 64 : rnd(), .raddr = pick_raddr(),
    };
    if (c.type == DN1_TYPE_BARRIER && below(2)) {
        c.raddr = DN1_BAR_RADDR(below(DN1_BAR_GROUPS + 1));
    }

    if (below(2)) {
        window_put(DN1_AOTF_TABLE_OFF + ch * sizeof(c), &c, sizeof(c));
    }
    request(DN1_HB_MAGIC, DN1_HB_AOTF_STORE,
            DN1_AOTF_ARG0(ch, below(10), below(80)), rnd(), rnd(), NULL);
}

static void op_rdma(void)
{
    unsigned d = below(DN1_RDMA_DESCS);
    struct dn1_rdma_desc r = {
        .type = pick_type(), .flags = pick_flags(), .dst = pick_dst(),
        .len = below(3) ? below(5000) : below(DN1_HOSTMEM_SIZE / 256),
        .local = below(DN1_HOSTMEM_SIZE + 4096), .raddr = pick_raddr(),
        .first_tag = rnd(), .xoff = 0, .seq = rnd(),
    };

    window_put(DN1_RDMA_DESC_OFF + d * sizeof(r), &r, sizeof(r));
    request(DN1_HB_MAGIC, DN1_HB_RDMA_POST, below(8) ? d : below(32), 0, 0,
            NULL);
}

static void op_misc(void)
{
    switch (below(6)) {
    case 4:
        /* A barrier group descriptor, as this node's host may write one
         * (section 11), some unusable: the firmware takes it over at the
         * group's next BARRIER packet and sends completions to members. */
        {
            struct dn1_bar_group *d = (struct dn1_bar_group *)
                (llcm + DN1_LLCM_BAR_GROUPS + 32 * below(DN1_BAR_GROUPS));
            d->members_lo = below(4) ? (uint32_t)rnd() & ((1u << nodes) - 1) : (uint32_t)rnd();
            d->members_hi = below(4) ? 0 : (uint32_t)rnd();
            d->done_off = below(4) ? DN1_LLCM_USER_BASE + 8 * below(64) : (uint32_t)rnd();
            d->mode = below(4) ? below(2) : (uint8_t)rnd();
            d->mcast_group = below(4) ? 0 : (uint8_t)rnd();
            d->first_epoch = below(2) ? 0 : (uint32_t)rnd();
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            d->setup_gen = below(8) ? (uint16_t)(d->setup_gen + 1) : 0;
        }
        break;
    case 0:
        request(DN1_HB_MAGIC, DN1_HB_REG_READ, below(DN1_REGS_SIZE + 16), 0, 0,
                NULL);
        break;
    case 1:
        request(DN1_HB_MAGIC, DN1_HB_CLOCK, below(2000), 0, 0, NULL);
        break;
    case 2:
        /* Any op but NIC_RESTART, which would restart the firmware and its
         * statistics under the checks (the flash tests restart it). */
        {
            uint32_t op = (uint32_t)(rnd() % 12);

            request(below(2) ? DN1_HB_MAGIC : (uint32_t)rnd(),
                    op == DN1_HB_NIC_RESTART ? DN1_HB_NOP : op, rnd(), rnd(),
                    rnd(), NULL);
        }
        break;
    case 3:
        /* Consume completion records, as a host does. */
        cq_consumed = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);
        *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_CONSUMED) = cq_consumed;
        break;
    default:
        /* Indirect-write pointer slots in this node's memory, some wild. */
        {
            uint64_t ptr = below(2) ? below(DN1_HOSTMEM_SIZE) : rnd();

            memcpy(hostmem + (below(DN1_HOSTMEM_SIZE / 8) * 8), &ptr, 8);
        }
    }
}

/* After the storm: a PUSH to itself through the switch lands and is ACKed
 * (a few tries: the switch may drop or corrupt frames on purpose). */
static void check_alive(void)
{
    static const char msg[] = "cluster_fuzz still alive";
    uint32_t off = DN1_HOSTMEM_SIZE - 4096 + node * 64;

    for (unsigned attempt = 0; attempt < 20; attempt++) {
        uint32_t tag = 0xa11e0000 | attempt;
        struct dn1_botf_hdr h = {
            .type = DN1_TYPE_PUSH, .flags = DN1_FLAG_ACK_REQ, .dst = node,
            .len = sizeof(msg), .tag = tag, .raddr = off,
        };

        /* Window 0 is the NIC's until its last packet has left (timing). */
        for (unsigned i = 0; reg(DN1_REG_BOTF_STATUS) & 1u; i++) {
            request(DN1_HB_MAGIC, DN1_HB_CLOCK, 150, 0, 0, NULL);
            if (i > 100000) {
                fail("BOTF window 0 never came free");
            }
        }
        memset(hostmem + off, 0, sizeof(msg));
        cq_consumed = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);
        *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_CONSUMED) = cq_consumed;
        window_put(0, &h, sizeof(h));
        window_put(DN1_BOTF_PAYLOAD_OFF, msg, sizeof(msg));
        if (request(DN1_HB_MAGIC, DN1_HB_BOTF_KICK, 0, 0, 0, NULL) != 0) {
            fail("BOTF kick to itself refused");
        }
        for (unsigned poll_n = 0; poll_n < 2000; poll_n++) {
            uint32_t produced = *(volatile uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED);

            for (uint32_t k = cq_consumed; k != produced; k++) {
                const uint8_t *rec = llcm + DN1_LLCM_CQ_RING +
                                     16 * (k % DN1_LLCM_CQ_ENTRIES);
                uint32_t t;

                memcpy(&t, rec, 4);
                if (t == tag && rec[4] == DN1_CQ_KIND_ACK) {
                    if (memcmp(hostmem + off, msg, sizeof(msg))) {
                        fail("ACKed, but the data did not land");
                    }
                    return;
                }
            }
            /* Let (virtual) time pass, as a polling host does; then more
             * of it: in modeled time the storm may have left milliseconds
             * of held packets queued ahead of this one (the receive
             * pipeline is in order), and 20 tries must outlast them. */
            request(DN1_HB_MAGIC, DN1_HB_CLOCK, poll_n > 100 ? 20000 : 150,
                    0, 0, NULL);
            if (poll_n > 100) {
                usleep(1000);
            }
        }
    }
    fail("no ACK for a PUSH to itself in 20 tries");
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    unsigned ops = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000;
    const char *id = getenv("DIMMNET_NODE_ID"), *n = getenv("DIMMNET_NODES");

    if (!id || !n) {
        fail("run under tools/dimmnet-cluster");
    }
    node = atoi(id);
    nodes = atoi(n);
    rng = seed * 0x100000001b3ull + node;
    printf("cluster_fuzz: node %u of %u, seed %llu, %u ops\n", node, nodes,
           (unsigned long long)seed, ops);
    hostmem = map("DIMMNET_HOSTMEM", DN1_HOSTMEM_SIZE);
    llcm = map("DIMMNET_LLCM", DN1_LLCM_SIZE);
    window = map("DIMMNET_WINDOW", DN1_WINDOW_SIZE);
    memcpy(window_shadow, window, sizeof(window_shadow));
    cq_consumed = *(uint32_t *)(llcm + DN1_LLCM_CQ_CONSUMED);
    hb_connect();
    while (!(reg(DN1_REG_FW_STATUS) & DN1_FW_READY)) {
        usleep(10000);
    }
    check();
    for (unsigned i = 0; i < ops; i++) {
        switch (below(8)) {
        case 0: case 1: case 2:
            op_botf();
            break;
        case 3:
            op_aotf();
            break;
        case 4:
            op_rdma();
            break;
        default:
            op_misc();
        }
        if (i % 64 == 63) {
            check();
        }
    }
    check_alive();
    check();
    printf("cluster_fuzz: node %u: %u ops, all checks passed\n", node, ops);
    return 0;
}
