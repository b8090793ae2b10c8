/*
 * Remote atomics in firmware (atomic.h): the NIC processor adds what the
 * hardware lacks. The pipeline is held while the handler runs, so no other
 * packet touches memory between the read and the write: atomic with
 * respect to every other atomic and remote access through this NIC.
 */
#include "atomic.h"
#include "fwstats.h"
#include "mr/mr.h"
#include "hal/nicmem.h"
#include "hal/sram.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/soft_indirect.h"

_Static_assert(DN1_ATOMIC_SRAM_RSP >= DN1_SOFT_SRAM_ACK + DN1_PKT_HDR_SIZE &&
               DN1_ATOMIC_SRAM_RSP + DN1_PKT_HDR_SIZE + 8 <= 0xc000u &&
               DN1_ATOMIC_SRAM_RSP % 8 == 0, "chip SRAM layout");
_Static_assert((DN1_ATOMIC_WINDOW & (DN1_ATOMIC_WINDOW - 1)) == 0, "window a power of two");

/* A seq's answer: the old value (status 0) or the NACK reason. */
struct answer {
    uint64_t old;
    uint8_t status;
};

struct source {
    uint32_t session;       /* 0: none yet */
    uint16_t next;          /* the seq applied next */
    struct answer ans[DN1_ATOMIC_WINDOW];   /* by seq mod window */
};

static struct source sources[DN1_ATOMIC_SLOTS];

void atomic_init(void)
{
    for (unsigned i = 0; i < DN1_ATOMIC_SLOTS; i++) {
        sources[i].session = 0;
        sources[i].next = 0;
    }
    /* The answer's words that never change (answer() writes the rest). */
    hal_sram_write32(DN1_ATOMIC_SRAM_RSP + 0, (uint32_t)DN1_PKT_VERSION << 24 |
                                              (uint32_t)DN1_TYPE_READ_RSP << 16);
    hal_sram_write32(DN1_ATOMIC_SRAM_RSP + 24, 0);          /* xoff */
}

/* A little-endian 64-bit payload word, through the host-order view. */
static uint64_t pl64(unsigned off)
{
    return (uint64_t)hal_rx_payload_le32(off + 4) << 32 | hal_rx_payload_le32(off);
}

uint64_t atomic_apply(unsigned op, unsigned dt, uint64_t old, uint64_t v,
                      uint64_t c, int *write)
{
    int sgn = dn1_adt_signed(dt);
    uint64_t r;

    if (dn1_adt_size(dt) == 4) {        /* compare as the 32-bit type */
        old = sgn ? (uint64_t)(int64_t)(int32_t)old : (uint32_t)old;
        v = sgn ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
        c = sgn ? (uint64_t)(int64_t)(int32_t)c : (uint32_t)c;
    }
    /* c < old and v < old, as the type orders them */
#define LT(a, b) (sgn ? (int64_t)(a) < (int64_t)(b) : (a) < (b))
    *write = 1;
    switch (op) {
    case DN1_AOP_MIN:      r = LT(v, old) ? v : old; break;
    case DN1_AOP_MAX:      r = LT(old, v) ? v : old; break;
    case DN1_AOP_SUM:      r = old + v; break;
    case DN1_AOP_LOR:      r = old || v; break;
    case DN1_AOP_LAND:     r = old && v; break;
    case DN1_AOP_BOR:      r = old | v; break;
    case DN1_AOP_BAND:     r = old & v; break;
    case DN1_AOP_LXOR:     r = !old != !v; break;
    case DN1_AOP_BXOR:     r = old ^ v; break;
    case DN1_AOP_SWAP:     r = v; break;
    case DN1_AOP_CSWAP:    r = c == old ? v : old; break;
    case DN1_AOP_CSWAP_NE: r = c != old ? v : old; break;
    case DN1_AOP_CSWAP_LE: r = !LT(old, c) ? v : old; break;
    case DN1_AOP_CSWAP_LT: r = LT(c, old) ? v : old; break;
    case DN1_AOP_CSWAP_GE: r = !LT(c, old) ? v : old; break;
    case DN1_AOP_CSWAP_GT: r = LT(old, c) ? v : old; break;
    case DN1_AOP_MSWAP:    r = (v & c) | (old & ~c); break;
    default:               r = old; *write = 0; break;     /* READ */
    }
#undef LT
    return r;
}

/* The answer: a READ_RSP of the old value (4 or 8 bytes, little-endian)
 * to the reply address, tag and seq of the request; or the NACK. */
static enum rx_action answer(struct rx_packet *p, const struct answer *a,
                             unsigned size, uint64_t reply)
{
    const uint32_t img = DN1_ATOMIC_SRAM_RSP;
    const struct dn1_hdr *h = &p->hdr;

    if (a->status) {
        fwstats_inc(DN1_FWST_ATOMIC_REFUSED);
        p->nack_reason = a->status;
        return RX_NACK;
    }
    hal_sram_write32(img + 4, h->src);                     /* dst; the NIC sets src */
    hal_sram_write32(img + 8, (uint32_t)size << 16 | h->seq);
    hal_sram_write32(img + 12, h->tag);
    hal_sram_write32(img + 16, (uint32_t)(reply >> 32));
    hal_sram_write32(img + 20, (uint32_t)reply);
    hal_sram_write_le32(img + 32, (uint32_t)a->old);
    hal_sram_write_le32(img + 36, (uint32_t)(a->old >> 32));
    if (hal_tx_send(img) != DN1_TX_RESULT_OK) {
        fwstats_inc(DN1_FWST_ATOMIC_TX_ERRORS);
    }
    return RX_DONE;
}

/* The op itself, once the seq is taken: the answer's status or old value. */
static void perform(const struct dn1_hdr *h, unsigned op, unsigned dt,
                    struct answer *a)
{
    unsigned size = dn1_adt_size(dt);
    uint64_t va = DN1_RVA_VA(h->raddr);
    struct mr_entry e;
    int write;

    if (!dn1_aop_ok(op) || !dn1_adt_ok(dt) || (va & (size - 1))) {
        a->status = DN1_NACK_BAD_ATOMIC;
        return;
    }
    uint32_t need = DN1_MR_ACCESS_R | (op != DN1_AOP_READ ? DN1_MR_ACCESS_W : 0);
    int found = mr_lookup(DN1_RVA_CTX(h->raddr), va, size, &e) == 0;

    if (!found && mr_paged(DN1_RVA_CTX(h->raddr), va, size, need)) {
        mr_fault(DN1_RVA_CTX(h->raddr), va, size);
        a->status = DN1_NACK_NOT_RESIDENT;      /* the seq is not taken */
        return;
    }
    if (!found || (e.access & need) != need) {
        a->status = DN1_NACK_PROTECTION;
        return;
    }
    /* Inside receive memory (mr_lookup); the NIC address aligned too (a
     * registration whose nic_off is off the VA's alignment is refused). */
    uint32_t at = e.nic_off + (uint32_t)(va - e.base);

    if (at & (size - 1)) {
        a->status = DN1_NACK_BAD_ATOMIC;
        return;
    }
    uint32_t lo = hal_hostmem_read32(at), hi = size == 8 ? hal_hostmem_read32(at + 4) : 0;
    /* The compare word only for the ops that use it. */
    uint64_t c = op >= DN1_AOP_CSWAP ? pl64(DN1_ATOMIC_OFF_COMPARE) : 0;
    a->old = (uint64_t)hi << 32 | lo;
    uint64_t r = atomic_apply(op, dt, a->old, pl64(DN1_ATOMIC_OFF_OPERAND), c, &write);
    if (write) {
        hal_hostmem_write32(at, (uint32_t)r);
        if (size == 8) {
            hal_hostmem_write32(at + 4, (uint32_t)(r >> 32));
        }
    }
    a->status = 0;
    fwstats_inc(DN1_FWST_ATOMIC_APPLIED);
}

enum rx_action atomic_handle(struct rx_packet *p)
{
    const struct dn1_hdr *h = &p->hdr;
    int slot = dn1_atomic_slot(h->src);

    if (h->flags || h->len != DN1_ATOMIC_LEN || h->dst >= DN1_MCAST_BASE || slot < 0) {
        struct answer bad = { .status = DN1_NACK_BAD_ATOMIC };
        return answer(p, &bad, 0, 0);
    }
    uint32_t w0 = hal_rx_payload_le32(DN1_ATOMIC_OFF_OP);
    unsigned op = w0 & 0xffu, dt = w0 >> 8 & 0xffu;
    uint32_t session = hal_rx_payload_le32(DN1_ATOMIC_OFF_SESSION);
    uint64_t reply = pl64(DN1_ATOMIC_OFF_REPLY);
    struct source *s = &sources[slot];
    struct answer *a = &s->ans[h->seq & (DN1_ATOMIC_WINDOW - 1)];

    /* Session 0 names no incarnation (a source never seen keeps 0): never
     * taken, or a forged packet could start a conversation at seq 0. */
    if (session != s->session || session == 0) {
        if (h->seq != 0 || session == 0) {
            fwstats_inc(DN1_FWST_ATOMIC_SEQUENCE);
            p->nack_reason = DN1_NACK_SEQUENCE;
            return RX_NACK;
        }
        s->session = session;       /* a restarted initiator: afresh */
        s->next = 0;
    }
    int16_t ahead = (int16_t)(h->seq - s->next);
    if (ahead != 0) {
        if (ahead > 0) {            /* one before it is missing */
            fwstats_inc(DN1_FWST_ATOMIC_SEQUENCE);
            p->nack_reason = DN1_NACK_SEQUENCE;
            return RX_NACK;
        }
        if (ahead < -(int16_t)DN1_ATOMIC_WINDOW) {
            fwstats_inc(DN1_FWST_ATOMIC_STALE);    /* answered long ago */
            return RX_DISCARD;
        }
        fwstats_inc(DN1_FWST_ATOMIC_DUPLICATES);
        return answer(p, a, dn1_adt_size(dt), reply);
    }
    perform(h, op, dt, a);
    if (a->status == DN1_NACK_NOT_RESIDENT) {
        /* Not taken: the same seq is served once the host moved the
         * target onto the card (section 15 step 3). */
        p->nack_reason = DN1_NACK_NOT_RESIDENT;
        return RX_NACK;
    }
    s->next++;
    return answer(p, a, dn1_adt_size(dt), reply);
}
