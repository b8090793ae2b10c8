/*
 * libFuzzer harness for the remote atomic handler on the FAKE HAL
 * (host-built): the input is a script of ATOMIC packets from five sources
 * (sessions, seqs near the window and far from it, any op, datatype,
 * target, flags and length) and of host actions (rewrite a registration
 * entry with anything). Checked after every packet, against a model of
 * the sources' conversations: a packet is applied only when its seq is
 * the next of its session (a new session at seq 0), and then changes at
 * most its aligned target inside a registration that allows writes; every
 * other packet leaves receive memory as it was; at most one answer leaves,
 * a READ_RSP of 4 or 8 bytes to the source with the packet's tag and seq;
 * firmware writes outside receive memory hit only its statistics. Anything
 * else aborts (a finding).
 *
 *   fuzz_atomic [libFuzzer options] [CORPUS_DIR]
 */
#include <stdlib.h>
#include <string.h>
#include "fake_hal.h"
#include "dispatch.h"
#include "fwstats.h"
#include "atomic/atomic.h"
#include "mr/mr.h"
#include "dimmnet1/atomic.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/message.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/fw_types.h"

#define SOURCES 5
#define ENTRY(i) (DN1_RADDR_LLCM + DN1_MR_LLCM_OFF + DN1_MR_ENTRY * (i))

static struct { uint32_t session; uint16_t next; } model[SOURCES];
static uint8_t before[FAKE_HOSTMEM_SIZE];

static void fw_write(uint64_t a)
{
    if (a >= DN1_RADDR_LLCM &&
        !(a >= DN1_RADDR_LLCM + DN1_LLCM_FWSTATS &&
          a < DN1_RADDR_LLCM + DN1_LLCM_FWSTATS + 8 + 4 * DN1_FWST_COUNT)) {
        abort();
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

static void reg(unsigned i, uint16_t key, uint64_t va, uint32_t off, uint32_t la)
{
    fake_nic_put_u32(ENTRY(i) + DN1_MR_NIC_OFF, off);
    fake_nic_put_u32(ENTRY(i) + DN1_MR_LEN_ACCESS, la);
    fake_hostmem_put_u64(ENTRY(i), (uint64_t)key << 48 | va);
}

/* May the bytes [lo, hi) of receive memory be written: inside one entry
 * now in the table, with W and R, within one aligned 8-byte word? */
static int write_allowed(uint32_t lo, uint32_t hi)
{
    if (hi - lo > 8 || lo / 8 != (hi - 1) / 8) {
        return 0;
    }
    for (unsigned i = 0; i < DN1_MR_ENTRIES; i++) {
        uint32_t off = fake_nic_get_u32(ENTRY(i) + DN1_MR_NIC_OFF);
        uint32_t la = fake_nic_get_u32(ENTRY(i) + DN1_MR_LEN_ACCESS);
        uint32_t len = la & DN1_MR_LEN_MASK;
        if (fake_nic_get_u32(ENTRY(i) + 4) >> 16 != 0 &&
            (la & DN1_MR_ACCESS_W) && (la & DN1_MR_ACCESS_R) &&
            lo >= off && (uint64_t)hi <= (uint64_t)off + len) {
            return 1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_rx_reset();
    fake_nic_write_check = NULL;
    fwstats_init();
    mr_init();
    atomic_init();
    dispatch_register(DN1_TYPE_ATOMIC, atomic_handle);
    memset(model, 0, sizeof(model));
    for (unsigned i = 0; i < 4; i++) {      /* 4 registrations, 4 KiB each */
        reg(i, (uint16_t)(0x8001 + i), 0x10000000ull * (i + 1), 0x1000u * (i + 1),
            0x1000u | (i & 1 ? DN1_MR_ACCESS_W : 0) | (i < 3 ? DN1_MR_ACCESS_R : 0));
    }
    for (unsigned i = 0; i < sizeof(fake_hostmem); i++) {
        fake_hostmem[i] = (uint8_t)(i * 7 + (i >> 8));
    }
    fake_nic_write_check = fw_write;

    /* 32-byte steps. */
    for (; size >= 32; data += 32, size -= 32) {
        unsigned op = data[0] % 16;
        if (op == 15) {                     /* the host rewrites an entry */
            fake_nic_write_check = NULL;
            reg(data[1] % DN1_MR_ENTRIES, (uint16_t)get_le(data + 2, 2), get_le(data + 4, 6),
                (uint32_t)get_le(data + 10, 4) % 0x20000u, (uint32_t)get_le(data + 14, 4));
            fake_nic_write_check = fw_write;
            continue;
        }
        unsigned s = data[1] % SOURCES;
        uint32_t session = data[2] % 4;     /* 0 (none) and three incarnations */
        uint16_t seq = (uint16_t)(data[3] & 0x80 ? get_le(data + 4, 2)
                                  : model[s].next + (int8_t)data[4] % 12);
        uint8_t pl[32];
        memcpy(pl, data, 32);               /* operand, compare, garbage */
        pl[DN1_ATOMIC_OFF_OP] = data[5] % 20;
        pl[DN1_ATOMIC_OFF_DT] = (uint8_t)(data[6] % 6 + 3);
        pl[4] = (uint8_t)session;
        pl[5] = pl[6] = pl[7] = 0;
        uint64_t reply = get_le(data + 8, 8);
        unsigned key = 0x8001 + data[7] % 5;
        uint64_t va = 0x10000000ull * (data[7] % 5 + 1) + get_le(data + 16, 2) % 0x1100;
        struct dn1_hdr h = {
            .version = 1, .type = DN1_TYPE_ATOMIC,
            .flags = op == 14 ? data[18] : 0,
            .src = (uint16_t)s, .dst = 1,
            .len = op == 13 ? data[18] : DN1_ATOMIC_LEN,
            .seq = seq, .tag = (uint32_t)get_le(data + 20, 4),
            .raddr = DN1_RVA(key, va),
        };
        int path_ok = h.flags == 0 && h.len == DN1_ATOMIC_LEN;

        /* The model's verdict. */
        enum { REFUSED_PATH, SEQUENCE, TAKEN, DUPLICATE, STALE } want;
        if (!path_ok) {
            want = REFUSED_PATH;
        } else if (session == 0 || (session != model[s].session && seq != 0)) {
            want = SEQUENCE;
        } else {
            if (session != model[s].session) {
                model[s].session = session;
                model[s].next = 0;
            }
            int16_t ahead = (int16_t)(seq - model[s].next);
            want = ahead == 0 ? TAKEN : ahead > 0 ? SEQUENCE
                 : ahead < -(int16_t)DN1_ATOMIC_WINDOW ? STALE : DUPLICATE;
            if (want == TAKEN) {
                model[s].next++;
            }
        }

        memcpy(before, fake_hostmem, sizeof(before));
        uint32_t applied = fwstats_get(DN1_FWST_ATOMIC_APPLIED);
        size_t k = fake_decision_count, sends = fake_send_count;
        fake_rx_push_payload(&h, pl, h.len < 32 ? h.len : 32);
        (void)reply;
        dispatch_service();
        struct fake_decision d = fake_decisions[k % FAKE_DECISIONS];
        size_t sent = fake_send_count - sends;

        if (fake_decision_count != k + 1 || sent > 1) {
            abort();
        }
        if (sent) {
            struct fake_send *r = &fake_sends[(fake_send_count - 1) % FAKE_SENDS];
            if (d.action != RX_DONE || r->type != DN1_TYPE_READ_RSP || r->flags ||
                (r->len != 4 && r->len != 8) || r->dst != s || r->tag != h.tag ||
                r->seq != seq || r->raddr != get_le(pl + DN1_ATOMIC_OFF_REPLY, 8)) {
                abort();
            }
        }
        switch (want) {
        case REFUSED_PATH:
            if (d.action != RX_NACK || d.nack_reason != DN1_NACK_BAD_ATOMIC) {
                abort();
            }
            break;
        case SEQUENCE:
            if (d.action != RX_NACK || d.nack_reason != DN1_NACK_SEQUENCE) {
                abort();
            }
            break;
        case STALE:
            if (d.action != RX_DISCARD) {
                abort();
            }
            break;
        case TAKEN:
            /* A target only a paged registration holds (an NR entry the
             * host rewrite made): refused NOT_RESIDENT, the seq not taken. */
            if (d.action == RX_NACK && d.nack_reason == DN1_NACK_NOT_RESIDENT && !sent) {
                model[s].next--;
                break;
            }
            /* fall through */
        case DUPLICATE:
            if (!(d.action == RX_DONE && sent) &&
                !(d.action == RX_NACK && (d.nack_reason == DN1_NACK_PROTECTION ||
                                          d.nack_reason == DN1_NACK_BAD_ATOMIC))) {
                abort();
            }
            break;
        }
        /* Memory: unchanged unless taken and answered; then one aligned
         * word inside a registration that allows it. */
        uint32_t lo = FAKE_HOSTMEM_SIZE, hi = 0;
        for (uint32_t i = 0; i < FAKE_HOSTMEM_SIZE; i++) {
            if (fake_hostmem[i] != before[i]) {
                lo = i < lo ? i : lo;
                hi = i + 1;
            }
        }
        if (hi && (want != TAKEN || d.action != RX_DONE || !write_allowed(lo, hi))) {
            abort();
        }
        uint32_t now = fwstats_get(DN1_FWST_ATOMIC_APPLIED);
        if (now != applied + (want == TAKEN && d.action == RX_DONE)) {
            abort();
        }
    }
    fake_nic_write_check = NULL;
    return 0;
}
