/*
 * Registered memory (docs/hardware.md section 14): this node's host writes
 * its registration table in the NIC-reserved part of LLCM; clearing an
 * entry waits for the firmware's MR_SYNC answer, after which no packet can
 * reach the old registration.
 */
#include "internal.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/fw_types.h"

#define ENTRY(i) (DN1_MR_LLCM_OFF + DN1_MR_ENTRY * (i))
#define MR_SYNC_RESEND_MS 200

/* Is entry @idx this host port's (contract 1.27: a share each)? */
static int mine(const dn_node *n, unsigned idx)
{
    return idx >= n->mr_first && idx < n->mr_end;
}

int dn_mr_entries(const dn_node *n, unsigned *first, unsigned *end)
{
    if (!n || !first || !end) {
        return DN_EINVAL;
    }
    *first = n->mr_first;
    *end = n->mr_end;
    return DN_OK;
}

static volatile uint64_t *rva_base(dn_node *n, unsigned idx)
{
    return (volatile uint64_t *)(n->llcm + ENTRY(idx) + DN1_MR_RVA_BASE);
}

/* The arguments every entry takes: this port's index, a registration key,
 * some access and nothing else, a VA range inside an RVA's 48 bits. */
static int entry_args_ok(const dn_node *n, unsigned idx, uint16_t key, uint64_t va,
                         uint64_t len, unsigned access)
{
    return n && idx < DN_MR_ENTRIES && mine(n, idx) && (key & DN1_MR_KEY_BIT) &&
           access != 0 && !(access & ~(DN_MR_REMOTE_WRITE | DN_MR_REMOTE_READ)) &&
           va <= DN1_RVA_VA(~0ull) && !(len && len - 1 > DN1_RVA_VA(~0ull) - va);
}

/* Entry @idx written: nic_off and len_access first, then the key, in one
 * store: the firmware never sees half an entry. */
static int entry_put(dn_node *n, unsigned idx, uint16_t key, uint64_t va, uint32_t nic_off,
                     uint32_t len_bits, unsigned access)
{
    dn_host_charge(n, DN_HOST_LOAD, 1);
    if (__atomic_load_n(rva_base(n, idx), __ATOMIC_ACQUIRE) >> 48 != 0) {
        return DN_EBUSY;    /* the firmware may be using it: clear it first */
    }
    dn_st32(n, ENTRY(idx) + DN1_MR_NIC_OFF, nic_off);
    dn_st32(n, ENTRY(idx) + DN1_MR_LEN_ACCESS, len_bits |
            (access & DN_MR_REMOTE_WRITE ? DN1_MR_ACCESS_W : 0) |
            (access & DN_MR_REMOTE_READ ? DN1_MR_ACCESS_R : 0));
    dn_host_charge(n, DN_HOST_STORE, 1);
    __atomic_store_n(rva_base(n, idx), (uint64_t)key << 48 | va, __ATOMIC_RELEASE);
    return DN_OK;
}

int dn_mr_set(dn_node *n, unsigned idx, uint16_t key, uint64_t va,
              uint32_t nic_off, uint32_t len, unsigned access)
{
    if (!entry_args_ok(n, idx, key, va, len, access)) {
        return DN_EINVAL;
    }
    if (len == 0 || len > DN1_MR_LEN_MAX || nic_off > n->hostmem_size ||
        len > n->hostmem_size - nic_off) {
        return DN_ERANGE;
    }
    return entry_put(n, idx, key, va, nic_off, len, access);
}

/* Paged (contract 1.28): the registration's whole range, not on the card;
 * nic_off holds its length, NR set, length bits 0. */
int dn_mr_set_paged(dn_node *n, unsigned idx, uint16_t key, uint64_t va, uint64_t len,
                    unsigned access)
{
    if (!entry_args_ok(n, idx, key, va, len, access)) {
        return DN_EINVAL;
    }
    if (len == 0 || len > UINT32_MAX) {
        return DN_ERANGE;
    }
    return entry_put(n, idx, key, va, (uint32_t)len, DN1_MR_NR, access);
}

/* The fault ring: records since *seen, newest DN1_MR_FAULT_SLOTS at most
 * (older ones were overwritten: their initiators retry and fault again).
 * A count below *seen is a ring a new board started: read from 0. */
int dn_mr_faults(dn_node *n, uint32_t *seen, dn_mr_fault *f, unsigned max)
{
    if (!n || !seen || (!f && max)) {
        return DN_EINVAL;
    }
    dn_host_charge(n, DN_HOST_LOAD, 1);
    uint32_t count = __atomic_load_n((volatile uint32_t *)(n->llcm + DN1_MR_FAULTS_OFF),
                                     __ATOMIC_ACQUIRE);
    uint32_t from = *seen, got = 0;

    if ((int32_t)(count - from) < 0) {
        from = 0;
    }
    if (count - from > DN1_MR_FAULT_SLOTS) {
        from = count - DN1_MR_FAULT_SLOTS;
    }
    for (; from != count && got < max; from++, got++) {
        uint32_t rec = DN1_MR_FAULT_RING + DN1_MR_FAULT_SIZE * (from % DN1_MR_FAULT_SLOTS);
        uint32_t lo = dn_ld32(n, rec), hi = dn_ld32(n, rec + 4);

        f[got].key = (uint16_t)(hi >> 16);
        f[got].va = (uint64_t)(hi & 0xffffu) << 32 | lo;
        f[got].len = dn_ld32(n, rec + 8);
    }
    *seen = from;
    return (int)got;
}

/* Through the switch and back, behind every packet that came before: the
 * firmware forgets @key's RVATLB entries (0: all of them). The packet or
 * its ACK may be lost on the way: sent again (harmless, the firmware just
 * forgets again) after MR_SYNC_RESEND_MS, doubling, until @timeout_ms has
 * passed. */
static int mr_sync(dn_node *n, uint16_t key, int timeout_ms)
{
    int64_t deadline = dn_now_ms() + timeout_ms;
    int wait_ms = MR_SYNC_RESEND_MS, rc;
    dn_xfer x;

    do {
        int64_t left = deadline - dn_now_ms();
        rc = dn_send_typed(n, DN1_TYPE_MR_SYNC, dn_node_id(n), key, NULL, 0, &x);
        if (rc == DN_OK || rc == DN_ELINKDOWN || rc == DN_EBUSY) {
            rc = rc == DN_OK ? dn_wait(n, &x, (int)(left < wait_ms ? (left > 0 ? left : 0)
                                                                   : wait_ms))
                             : DN_ETIMEDOUT;
        }
        wait_ms *= 2;
    } while (rc == DN_ETIMEDOUT && dn_now_ms() < deadline);
    return rc;
}

int dn_mr_clear(dn_node *n, unsigned idx, int timeout_ms)
{
    if (!n || idx >= DN_MR_ENTRIES || !mine(n, idx) || timeout_ms < 0) {
        return DN_EINVAL;
    }
    dn_host_charge(n, DN_HOST_LOAD, 1);
    uint16_t key = (uint16_t)(__atomic_load_n(rva_base(n, idx), __ATOMIC_ACQUIRE) >> 48);
    dn_host_charge(n, DN_HOST_STORE, 1);
    __atomic_store_n(rva_base(n, idx), 0, __ATOMIC_SEQ_CST);
    return mr_sync(n, key, timeout_ms);
}

int dn_mr_reset(dn_node *n, int timeout_ms)
{
    int stale = 0, rc;

    if (!n || timeout_ms < 0) {
        return DN_EINVAL;
    }
    for (unsigned idx = 0; idx < DN_MR_ENTRIES; idx++) {
        if (!mine(n, idx)) {
            continue;           /* another host port's process */
        }
        dn_host_charge(n, DN_HOST_LOAD, 1);
        if (__atomic_load_n(rva_base(n, idx), __ATOMIC_ACQUIRE) >> 48) {
            dn_host_charge(n, DN_HOST_STORE, 1);
            __atomic_store_n(rva_base(n, idx), 0, __ATOMIC_SEQ_CST);
            stale++;
        }
    }
    if (!stale) {
        return 0;
    }
    rc = mr_sync(n, 0, timeout_ms);
    return rc == DN_OK ? stale : rc;
}
