/* Remote atomics (handlers/atomic/) on the FAKE HAL: every op and datatype
 * against the test's own model, exactly once over duplicates, gaps, stale
 * packets and restarted initiators, and every refusal. */
#include <stdlib.h>
#include "../common/check.h"
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "atomic/atomic.h"
#include "mr/mr.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/fw_types.h"

#define ME    2u
#define KEY   0x8123u
#define VA    0x10000000ull
#define NIC   0x2000u              /* the registration in receive memory */
#define LEN   0x1000u
#define REPLY 0x1234560ull
#define RW    (DN1_MR_ACCESS_W | DN1_MR_ACCESS_R)

static void reg(unsigned i, uint16_t key, uint64_t va, uint32_t nic_off,
                uint32_t len, uint32_t access)
{
    uint64_t e = DN1_RADDR_LLCM + DN1_MR_LLCM_OFF + DN1_MR_ENTRY * i;

    fake_nic_put_u32(e + DN1_MR_NIC_OFF, nic_off);
    fake_nic_put_u32(e + DN1_MR_LEN_ACCESS, len | access);
    fake_hostmem_put_u64(e, (uint64_t)key << 48 | va);
}

static void setup(void)
{
    fake_rx_reset();
    fake_node_id = ME;
    mr_init();
    atomic_init();
    dispatch_register(DN1_TYPE_ATOMIC, atomic_handle);
    reg(0, KEY, VA, NIC, LEN, RW);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> 8 * i);
    }
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

struct req {
    uint16_t src, seq;
    uint32_t session;
    unsigned op, dt;
    uint64_t rva, v, c;
    uint8_t flags;
    uint16_t len;
};

/* Serve one ATOMIC; its decision, and the READ_RSP in *rsp if one left. */
static struct fake_decision serve(const struct req *r, struct fake_send **rsp)
{
    uint8_t pl[32] = { 0 };
    struct dn1_hdr h = { .version = 1, .type = DN1_TYPE_ATOMIC, .flags = r->flags,
                         .src = r->src, .dst = ME,
                         .len = r->len ? r->len : DN1_ATOMIC_LEN, .seq = r->seq,
                         .tag = 0x60000000u | r->src << 16 | r->seq, .raddr = r->rva };
    pl[DN1_ATOMIC_OFF_OP] = (uint8_t)r->op;
    pl[DN1_ATOMIC_OFF_DT] = (uint8_t)r->dt;
    put_le(pl + DN1_ATOMIC_OFF_SESSION, r->session, 4);
    put_le(pl + DN1_ATOMIC_OFF_REPLY, REPLY + r->src, 8);
    put_le(pl + DN1_ATOMIC_OFF_OPERAND, r->v, 8);
    put_le(pl + DN1_ATOMIC_OFF_COMPARE, r->c, 8);
    size_t k = fake_decision_count, s = fake_send_count;
    fake_rx_push_payload(&h, pl, sizeof(pl));
    dispatch_service();
    *rsp = fake_send_count > s ? &fake_sends[(fake_send_count - 1) % FAKE_SENDS] : NULL;
    CHECK(fake_send_count - s <= 1);
    return fake_decisions[k % FAKE_DECISIONS];
}

/* The model, written per type as C does it. */
static uint64_t model(unsigned op, unsigned dt, uint64_t old, uint64_t v, uint64_t c)
{
#define OPS(T)                                                              \
    do {                                                                    \
        T o = (T)old, x = (T)v, y = (T)c, r;                                \
        switch (op) {                                                       \
        case DN1_AOP_MIN: r = x < o ? x : o; break;                         \
        case DN1_AOP_MAX: r = x > o ? x : o; break;                         \
        case DN1_AOP_SUM: r = (T)((uint64_t)o + (uint64_t)x); break;        \
        case DN1_AOP_LOR: r = o || x; break;                                \
        case DN1_AOP_LAND: r = o && x; break;                               \
        case DN1_AOP_BOR: r = o | x; break;                                 \
        case DN1_AOP_BAND: r = o & x; break;                                \
        case DN1_AOP_LXOR: r = (o && !x) || (!o && x); break;               \
        case DN1_AOP_BXOR: r = o ^ x; break;                                \
        case DN1_AOP_READ: r = o; break;                                    \
        case DN1_AOP_SWAP: r = x; break;                                    \
        case DN1_AOP_CSWAP: r = y == o ? x : o; break;                      \
        case DN1_AOP_CSWAP_NE: r = y != o ? x : o; break;                   \
        case DN1_AOP_CSWAP_LE: r = y <= o ? x : o; break;                   \
        case DN1_AOP_CSWAP_LT: r = y < o ? x : o; break;                    \
        case DN1_AOP_CSWAP_GE: r = y >= o ? x : o; break;                   \
        case DN1_AOP_CSWAP_GT: r = y > o ? x : o; break;                    \
        default: r = (T)((x & y) | (o & ~y)); break;                        \
        }                                                                   \
        return (uint64_t)r & (sizeof(T) == 4 ? 0xffffffffull : ~0ull);      \
    } while (0)
    switch (dt) {
    case DN1_ADT_INT32: OPS(int32_t);
    case DN1_ADT_UINT32: OPS(uint32_t);
    case DN1_ADT_INT64: OPS(int64_t);
    default: OPS(uint64_t);
    }
#undef OPS
}

static uint64_t mem(uint32_t off, unsigned size)
{
    return get_le(&fake_hostmem[off], (int)size);
}

/* Every op on every datatype, with values around the signed/unsigned
 * edges: the old value comes back (size, tag, seq, to the source's reply
 * address), memory holds the model's new value, the neighbours untouched. */
static void t_ops(void)
{
    static const uint64_t vals[] = { 0, 1, 5, 0x7fffffffull, 0x80000000ull,
                                     0xffffffffull, 0x8000000000000000ull,
                                     0xfffffffffffffffeull, 0x123456789abcdef0ull };
    const unsigned nv = sizeof(vals) / sizeof(vals[0]);
    uint16_t seq = 0;
    unsigned n = 0;

    for (unsigned op = 0; op < DN1_AOP_COUNT; op++) {
        if (!dn1_aop_ok(op)) {
            continue;
        }
        for (unsigned dt = DN1_ADT_INT32; dt <= DN1_ADT_UINT64; dt++) {
            unsigned size = dn1_adt_size(dt);
            for (unsigned i = 0; i < nv * nv; i++) {
                uint64_t old = vals[i % nv], v = vals[i / nv], c = vals[(i * 7) % nv];
                uint32_t off = 0x100 + 16 * (i % 8);
                if (i % 3 == 0) {
                    c = old;            /* the compares' equal case */
                }
                memset(&fake_hostmem[NIC + off - 8], 0xa5, 24);
                put_le(&fake_hostmem[NIC + off], old, (int)size);
                uint64_t o = mem(NIC + off, size);
                struct req r = { .src = 9, .seq = seq, .session = 0x5e55, .op = op,
                                 .dt = dt, .rva = DN1_RVA(KEY, VA + off), .v = v, .c = c };
                struct fake_send *rsp;
                struct fake_decision d = serve(&r, &rsp);
                CHECK_MSG(d.action == RX_DONE && rsp, "op %u dt %u i %u: %d", op, dt, i, d.action);
                if (!rsp) {
                    continue;
                }
                CHECK_EQ(rsp->type, DN1_TYPE_READ_RSP);
                CHECK_EQ(rsp->flags, 0);
                CHECK_EQ(rsp->dst, 9);
                CHECK_EQ(rsp->len, size);
                CHECK_EQ(rsp->seq, seq);
                CHECK_EQ(rsp->tag, 0x60000000u | 9 << 16 | seq);
                CHECK_EQ(rsp->raddr, REPLY + 9);
                CHECK_EQ(get_le(rsp->payload, (int)size), o);
                uint64_t want = model(op, dt, o, v, c);
                CHECK_MSG(mem(NIC + off, size) == want,
                          "op %u dt %u old 0x%llx v 0x%llx c 0x%llx: 0x%llx, model 0x%llx",
                          op, dt, (unsigned long long)o, (unsigned long long)v,
                          (unsigned long long)c, (unsigned long long)mem(NIC + off, size),
                          (unsigned long long)want);
                CHECK_EQ(mem(NIC + off - 8, 8), 0xa5a5a5a5a5a5a5a5ull);
                CHECK_EQ(mem(NIC + off + 8, 8), 0xa5a5a5a5a5a5a5a5ull);
                if (size == 4) {
                    CHECK_EQ(mem(NIC + off + 4, 4), 0xa5a5a5a5u);
                }
                seq++;
                n++;
            }
        }
    }
    CHECK_EQ(fwstats_get(DN1_FWST_ATOMIC_APPLIED), n);
}

static struct fake_decision fadd(uint16_t src, uint32_t session, uint16_t seq,
                                 struct fake_send **rsp)
{
    struct req r = { .src = src, .seq = seq, .session = session, .op = DN1_AOP_SUM,
                     .dt = DN1_ADT_UINT64, .rva = DN1_RVA(KEY, VA), .v = 1 };
    return serve(&r, rsp);
}

/* Duplicates are answered again with the remembered old value and not
 * applied; a gap is NACKed SEQUENCE; older than the window: discarded; a
 * new session starts afresh only at seq 0. */
static void t_exactly_once(void)
{
    struct fake_send *rsp;

    for (uint16_t s = 0; s < 10; s++) {
        CHECK_EQ(fadd(1, 77, s, &rsp).action, RX_DONE);
        CHECK(rsp && get_le(rsp->payload, 8) == s);
    }
    CHECK_EQ(mem(NIC, 8), 10);
    uint32_t dups = fwstats_get(DN1_FWST_ATOMIC_DUPLICATES);
    for (uint16_t s = 2; s < 10; s++) {             /* the whole window again */
        CHECK_EQ(fadd(1, 77, s, &rsp).action, RX_DONE);
        CHECK(rsp && get_le(rsp->payload, 8) == s && rsp->seq == s);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_ATOMIC_DUPLICATES), dups + 8);
    CHECK_EQ(fadd(1, 77, 1, &rsp).action, RX_DISCARD);     /* past the window */
    CHECK(!rsp);
    struct fake_decision d = fadd(1, 77, 11, &rsp);         /* 10 is missing */
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_SEQUENCE);
    CHECK_EQ(mem(NIC, 8), 10);
    /* Another source keeps its own conversation. */
    CHECK_EQ(fadd(2, 99, 0, &rsp).action, RX_DONE);
    CHECK(rsp && get_le(rsp->payload, 8) == 10);
    /* A restarted initiator: a new session at seq 1 is a gap, at 0 afresh. */
    CHECK_EQ(fadd(1, 78, 1, &rsp).nack_reason, DN1_NACK_SEQUENCE);
    CHECK_EQ(fadd(1, 78, 0, &rsp).action, RX_DONE);
    CHECK(rsp && get_le(rsp->payload, 8) == 11);
    CHECK_EQ(fadd(1, 78, 1, &rsp).action, RX_DONE);
    /* The old session's packets are no longer taken. */
    CHECK_EQ(fadd(1, 77, 10, &rsp).nack_reason, DN1_NACK_SEQUENCE);
    CHECK_EQ(fadd(1, 0, 0, &rsp).nack_reason, DN1_NACK_SEQUENCE);  /* session 0: none */
    CHECK_EQ(mem(NIC, 8), 13);
    /* The seq wraps at 16 bits without a restart. */
    for (uint32_t s = 2; s < 0x10003; s++) {
        CHECK_EQ(fadd(3 + (s & 1) * 0, 5, (uint16_t)(s - 2), &rsp).action, RX_DONE);
    }
    CHECK_EQ(mem(NIC, 8), 13 + 0x10001);
}

/* Refusals: malformed packets are NACKed BAD_ATOMIC and take no seq; a bad
 * op, datatype or alignment (BAD_ATOMIC) and a missing registration or
 * access (PROTECTION) take their seq, and their duplicates are refused the
 * same way. Nothing is written. */
static void t_refusals(void)
{
    struct fake_send *rsp;
    struct { struct req r; uint8_t reason; int takes_seq; } c[] = {
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .flags = DN1_FLAG_ACK_REQ }, DN1_NACK_BAD_ATOMIC, 0 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .flags = DN1_FLAG_VA }, DN1_NACK_BAD_ATOMIC, 0 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .len = 24 }, DN1_NACK_BAD_ATOMIC, 0 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .src = 300 }, DN1_NACK_BAD_ATOMIC, 0 },
        { { .op = 3, .dt = DN1_ADT_INT64 }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_COUNT, .dt = DN1_ADT_INT64 }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = 3 }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = 8 }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .rva = DN1_RVA(KEY, VA + 4) }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT32, .rva = DN1_RVA(KEY, VA + 2) }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .rva = DN1_RVA(0x8124, VA) }, DN1_NACK_PROTECTION, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .rva = DN1_RVA(KEY, VA - 8) }, DN1_NACK_PROTECTION, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .rva = DN1_RVA(KEY, VA + LEN - 4) }, DN1_NACK_BAD_ATOMIC, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT32, .rva = DN1_RVA(KEY, VA + LEN) }, DN1_NACK_PROTECTION, 1 },
        { { .op = DN1_AOP_SUM, .dt = DN1_ADT_INT64, .rva = DN1_RVA(0x8200, VA) }, DN1_NACK_PROTECTION, 1 },
        { { .op = DN1_AOP_SWAP, .dt = DN1_ADT_INT64, .rva = DN1_RVA(0x8300, VA) }, DN1_NACK_PROTECTION, 1 },
        { { .op = DN1_AOP_READ, .dt = DN1_ADT_INT64, .rva = DN1_RVA(0x8200, VA) }, DN1_NACK_PROTECTION, 1 },
    };
    reg(1, 0x8200, VA, NIC + 0x800, 0x100, DN1_MR_ACCESS_W);     /* write-only */
    reg(2, 0x8300, VA, NIC + 0x900, 0x100, DN1_MR_ACCESS_R);     /* read-only */
    memset(&fake_hostmem[NIC - 0x100], 0x3c, LEN + 0x200);
    uint16_t seq = 0;
    uint32_t refused = fwstats_get(DN1_FWST_ATOMIC_REFUSED);
    unsigned nacks = 0;
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct req r = c[i].r;
        r.session = 42;
        r.seq = seq;
        r.src = r.src ? r.src : 7;
        r.rva = r.rva ? r.rva : DN1_RVA(KEY, VA);
        for (int again = 0; again < 2; again++) {
            struct fake_decision d = serve(&r, &rsp);
            CHECK_MSG(d.action == RX_NACK && d.nack_reason == c[i].reason && !rsp,
                      "case %u (%d): action %d reason %u", i, again, d.action, d.nack_reason);
            nacks++;
        }
        seq = (uint16_t)(seq + c[i].takes_seq);
    }
    CHECK_EQ(fwstats_get(DN1_FWST_ATOMIC_REFUSED), refused + nacks);
    for (unsigned i = 0; i < LEN + 0x200; i++) {
        CHECK_EQ(fake_hostmem[NIC - 0x100 + i], 0x3c);
    }
    /* The seqs refusals took are behind us: the next one is applied. */
    CHECK_EQ(fadd(7, 42, seq, &rsp).action, RX_DONE);
    CHECK(rsp && get_le(rsp->payload, 8) == 0x3c3c3c3c3c3c3c3cull);
    /* READ needs R only. */
    struct req rd = { .src = 7, .session = 42, .seq = (uint16_t)(seq + 1), .op = DN1_AOP_READ,
                      .dt = DN1_ADT_UINT32, .rva = DN1_RVA(0x8300, VA + 4) };
    CHECK_EQ(serve(&rd, &rsp).action, RX_DONE);
    CHECK(rsp && rsp->len == 4 && get_le(rsp->payload, 4) == 0x3c3c3c3c);
}

/*
 * Four initiators, each with up to 8 fetch-adds in flight, over a network
 * that drops, duplicates and reorders requests and answers: each resends
 * what was not answered (same seq). The sum is exact and the old values
 * are 0..N-1, each returned exactly once.
 */
static void t_lossy_storm(void)
{
    enum { SRC = 4, PER = 3000, WIN = DN1_ATOMIC_WINDOW, NET = 64 };
    struct { uint16_t next, done; int answered[PER]; } ini[SRC];
    struct { uint16_t src, seq; } net[NET];
    unsigned nnet = 0;
    static unsigned char seen[SRC * PER];
    struct fake_send *rsp;

    memset(ini, 0, sizeof(ini));
    memset(seen, 0, sizeof(seen));
    srand(7);
    unsigned total_done = 0;
    for (unsigned round = 0; total_done < SRC * PER && round < 2000000; round++) {
        unsigned s = (unsigned)rand() % SRC;
        /* Post while the window has room (oldest unanswered + 8). */
        while (ini[s].next < PER && ini[s].next < ini[s].done + WIN && nnet < NET) {
            net[nnet].src = (uint16_t)s;
            net[nnet++].seq = ini[s].next++;
        }
        /* Resend the unanswered in the window now and then. */
        if (rand() % 16 == 0) {
            for (uint16_t q = ini[s].done; q < ini[s].next && nnet < NET; q++) {
                if (!ini[s].answered[q]) {
                    net[nnet].src = (uint16_t)s;
                    net[nnet++].seq = q;
                }
            }
        }
        if (!nnet) {
            continue;
        }
        /* Deliver a random one (reorder); drop 5 %, duplicate 5 %. */
        unsigned k = (unsigned)rand() % nnet;
        uint16_t src = net[k].src, seq = net[k].seq;
        int r = rand() % 100;
        if (r < 95 || nnet >= NET) {
            net[k] = net[--nnet];
        }
        if (r < 5) {
            continue;
        }
        fadd((uint16_t)(10 + src), 1000 + src, seq, &rsp);
        if (!rsp || rand() % 20 == 0) {
            continue;                       /* NACKed, or the answer lost */
        }
        uint64_t old = get_le(rsp->payload, 8);
        if (!ini[src].answered[seq]) {
            ini[src].answered[seq] = 1;
            CHECK(old < SRC * PER && !seen[old]);
            if (old < SRC * PER) {
                seen[old] = 1;
            }
            total_done++;
            while (ini[src].done < PER && ini[src].answered[ini[src].done]) {
                ini[src].done++;
            }
        }
    }
    CHECK_EQ(total_done, SRC * PER);
    CHECK_EQ(mem(NIC, 8), SRC * PER);
    CHECK(fwstats_get(DN1_FWST_ATOMIC_DUPLICATES) > 0);
    CHECK(fwstats_get(DN1_FWST_ATOMIC_SEQUENCE) > 0);
}

/* Host ports (contract 1.27): node 7's port 0 and port 1 are two sources,
 * each with its own session and seqs (one's seq 0 is not a restart of the
 * other's); port 1 of node 64, and an address past 0x3fff, have none. */
static void t_ports(void)
{
    struct fake_send *rsp;
    const uint16_t p1 = 7 | 1u << DN1_PORT_SHIFT;
    uint64_t before = mem(NIC, 8);

    CHECK_EQ(fadd(7, 500, 0, &rsp).action, RX_DONE);
    CHECK_EQ(fadd(p1, 600, 0, &rsp).action, RX_DONE);
    CHECK_EQ(fadd(7, 500, 1, &rsp).action, RX_DONE);    /* port 0's session goes on */
    CHECK_EQ(fadd(p1, 600, 1, &rsp).action, RX_DONE);
    CHECK(rsp && get_le(rsp->payload, 8) == before + 3);
    CHECK_EQ(fadd(p1, 600, 1, &rsp).action, RX_DONE);   /* a duplicate: answered again */
    CHECK(rsp && get_le(rsp->payload, 8) == before + 3);
    CHECK_EQ(fadd(7, 500, 3, &rsp).nack_reason, DN1_NACK_SEQUENCE);   /* its own gap */
    CHECK_EQ(mem(NIC, 8), before + 4);
    CHECK_EQ(fadd(64 | 1u << DN1_PORT_SHIFT, 1, 0, &rsp).nack_reason, DN1_NACK_BAD_ATOMIC);
    CHECK_EQ(fadd(DN1_ADDR_UNICAST_END | 7, 1, 0, &rsp).nack_reason, DN1_NACK_BAD_ATOMIC);
    CHECK_EQ(fadd(255, 1, 0, &rsp).action, RX_DONE);    /* port 0 of nodes to 255 */
    CHECK_EQ(mem(NIC, 8), before + 5);
}

/* A target only a paged registration holds (contract 1.28): NACK
 * NOT_RESIDENT, a fault posted, the seq not taken; once a piece holds it,
 * the same seq is applied, once. */
static void t_paged(void)
{
    struct fake_send *rsp;
    uint64_t e = DN1_RADDR_LLCM + DN1_MR_LLCM_OFF + DN1_MR_ENTRY * 3;
    uint32_t faults = fake_nic_get_u32(DN1_RADDR_LLCM + DN1_MR_FAULTS_OFF);

    /* Paged: VA2 .. VA2 + 1 MiB, key KEY too. */
    fake_nic_put_u32(e + DN1_MR_NIC_OFF, 0x100000);
    fake_nic_put_u32(e + DN1_MR_LEN_ACCESS, DN1_MR_NR | RW);
    fake_hostmem_put_u64(e, (uint64_t)KEY << 48 | (VA + 0x100000));
    struct req r = { .src = 4, .seq = 0, .session = 9, .op = DN1_AOP_SUM,
                     .dt = DN1_ADT_UINT64, .rva = DN1_RVA(KEY, VA + 0x100000 + 0x40), .v = 5 };
    struct fake_decision d = serve(&r, &rsp);
    CHECK_EQ(d.action, RX_NACK);
    CHECK_EQ(d.nack_reason, DN1_NACK_NOT_RESIDENT);
    CHECK(!rsp);
    CHECK_EQ(fake_nic_get_u32(DN1_RADDR_LLCM + DN1_MR_FAULTS_OFF), faults + 1);
    d = serve(&r, &rsp);                            /* again: not taken meanwhile */
    CHECK_EQ(d.nack_reason, DN1_NACK_NOT_RESIDENT);
    r.seq = 1;                                      /* the next: a gap */
    CHECK_EQ(serve(&r, &rsp).nack_reason, DN1_NACK_SEQUENCE);
    /* A piece on the card at NIC 0x6000: seq 0 applied, once. */
    put_le(&fake_hostmem[0x6040], 100, 8);
    reg(4, KEY, VA + 0x100000, 0x6000, 0x1000, RW);
    r.seq = 0;
    d = serve(&r, &rsp);
    CHECK_EQ(d.action, RX_DONE);
    CHECK(rsp && get_le(rsp->payload, 8) == 100);
    CHECK_EQ(mem(0x6040, 8), 105);
    CHECK(serve(&r, &rsp).action == RX_DONE && rsp && get_le(rsp->payload, 8) == 100);
    CHECK_EQ(mem(0x6040, 8), 105);                  /* a duplicate: not again */
    r.seq = 1;
    CHECK_EQ(serve(&r, &rsp).action, RX_DONE);
    CHECK_EQ(mem(0x6040, 8), 110);
    fake_hostmem_put_u64(e, 0);
    reg(4, 0, 0, 0, 0, 0);
}

static const struct test_case cases[] = {
    { "ops", t_ops },
    { "paged", t_paged },
    { "exactly_once", t_exactly_once },
    { "refusals", t_refusals },
    { "lossy_storm", t_lossy_storm },
    { "ports", t_ports },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, setup, NULL);
}
