/*
 * The host's own work in modeled time (docs/hardware.md section 9, "Host
 * profile"). With host sync the board stands still while its host
 * computes, so without a charge the host's computation would be free: the
 * shim and the layers above charge what the profile says the work costs,
 * and the charge rides in the op bits of the next request (DN1_HB_HOST_NS),
 * which takes effect that much later. Deterministic: a charge depends on
 * counts (instructions of a path, bytes), never on how fast this machine is.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/link.h"

/*
 * The profiles. Instructions: a code path's count (the host-charge table's,
 * host_charges.c: valgrind --tool=callgrind, x86-64, -O2) at the
 * profile's rate; copies:
 * bytes at the profile's memory copy rate; CRC-32: the table loop's 9
 * instructions a byte (callgrind on dn1_crc32_update).
 *  paper-host  Pentium III 850 MHz, 100 MHz bus and SDRAM (paper, Table 1):
 *              one instruction a cycle (assumption: the P6 core's integer
 *              code), 1.176 ns; copies 3 ns a byte, 333 MB/s (assumption:
 *              STREAM copy on P6 systems with PC100 memory, 300-400 MB/s);
 *              write-combined stores into the DIMM 2.5 ns a byte, 400 MB/s
 *              (assumption: half the 800 MB/s bus peak, for the write
 *              combining buffers' 32-byte bursts and bus turnarounds)
 *  modern      3 GHz, three instructions a cycle, 0.111 ns; copies 10 GB/s;
 *              stores into the DIMM at its own rate (assumptions: a current
 *              server core)
 *  free        nothing: the hardware alone
 *
 * The host's accesses to the card's memory (LLCM, host receive memory) go
 * over the DIMM bus, uncached, under every profile: a load waits for its
 * answer, 150 ns (DN1_HOST_LOAD_NS), a store 60 ns (DN1_HOST_STORE_NS).
 * A bulk read is a run of such loads, as wide as the profile's host can
 * make one: 8 bytes for the paper's host (an MMX movq; P6 does not combine
 * uncached reads), 64 for a modern one and the hardware-alone bound (a
 * line a load, SSE4.1 movntdqa from write-combining memory); a bulk write
 * goes write-combined at the profile's window rate (at least the DIMM's).
 * All of them are assumptions. Each access holds the DIMM for the DIMM
 * time of its bytes (8 for a load or store); that time goes to the board
 * with the next request (arg2 bits 32-63), where the NIC's own accesses
 * contend with it (docs/hardware.md section 9, "The host's accesses to the
 * card").
 */
static const struct dn_host_profile profiles[] = {
    { "paper-host", 1176, 3000, 2500, 8 },
    { "modern", 111, 100, 0, 64 },
    { "free", 0, 0, 0, 64 },
};

#define CRC_INSNS_PER_BYTE 9u
#define DIMM_PS_PER_BYTE   1250u    /* DN1_DIMM_NS: 8 bytes every 10 ns */
_Static_assert(DN1_DIMM_NS(8000) * 1000u == 8000u * DIMM_PS_PER_BYTE,
               "the board's DIMM rate");

int dn_host_profile_init(dn_node *n)
{
    const char *want = getenv("DIMMNET_HOST_PROFILE");

    n->host = &profiles[0];
    if (!want || !*want) {
        return DN_OK;
    }
    for (size_t i = 0; i < sizeof(profiles) / sizeof(*profiles); i++) {
        if (!strcmp(want, profiles[i].name)) {
            n->host = &profiles[i];
            return DN_OK;
        }
    }
    return DN_EINVAL;
}

/* Where each kind's charge is kept (dn_host_charges). */
enum { BY_INSNS, BY_COPY, BY_CRC, BY_LOAD, BY_STORE, BY_READ, BY_WRITE, BY_WINDOW };

void dn_host_charge(dn_node *n, int kind, uint64_t count)
{
    uint64_t ps = 0;
    int by;

    if (!n->host_sync || !n->host) {
        return;
    }
    switch (kind) {
    case DN_HOST_INSNS:
        ps = count * n->host->ps_insn;
        by = BY_INSNS;
        break;
    case DN_HOST_COPY:
        ps = count * n->host->ps_copy_byte;
        by = BY_COPY;
        break;
    case DN_HOST_CRC:
        ps = count * CRC_INSNS_PER_BYTE * n->host->ps_insn;
        by = BY_CRC;
        break;
    case DN_HOST_PIO:
        /* The board charges the DIMM's rate (DN1_DIMM_NS): only the rest. */
        if (n->host->ps_pio_byte > DIMM_PS_PER_BYTE) {
            ps = count * (n->host->ps_pio_byte - DIMM_PS_PER_BYTE);
        }
        by = BY_WINDOW;
        break;
    case DN_HOST_LOAD:
        ps = count * DN1_HOST_LOAD_NS * 1000u;
        n->dimm_bytes += count * 8u;
        n->turn_loads += count;
        by = BY_LOAD;
        break;
    case DN_HOST_STORE:
        ps = count * DN1_HOST_STORE_NS * 1000u;
        n->dimm_bytes += count * 8u;
        by = BY_STORE;
        break;
    case DN_HOST_NIC_READ: {
        uint64_t loads = (count + n->host->uc_read_bytes - 1) / n->host->uc_read_bytes;

        ps = loads * DN1_HOST_LOAD_NS * 1000u;
        n->dimm_bytes += count;
        n->turn_loads += loads;
        by = BY_READ;
        break;
    }
    case DN_HOST_NIC_WRITE:
        /* Nothing else charges these: the board does not see them. */
        ps = count * (n->host->ps_pio_byte > DIMM_PS_PER_BYTE ? n->host->ps_pio_byte
                                                                : DIMM_PS_PER_BYTE);
        n->dimm_bytes += count;
        by = BY_WRITE;
        break;
    default:
        return;
    }
    n->host_ps += ps;
    n->by_kind_ps[by] += ps;
}

uint32_t dn_host_take(dn_node *n, uint64_t *arg2)
{
    uint64_t ns = n->host_ps / 1000;

    if (ns > DN1_HB_HOST_NS_MAX) {
        ns = DN1_HB_HOST_NS_MAX;    /* the rest with the next requests */
    }
    n->host_ps -= ns * 1000;
    n->host_charged_ns += ns;
    if (n->dimm_bytes) {
        /* The DIMM time of the host's accesses, within that work. */
        uint64_t dimm = DN1_DIMM_NS(n->dimm_bytes);

        *arg2 = (uint32_t)*arg2 | (dimm < ns ? dimm : ns) << DN1_HB_HOST_DIMM_SHIFT;
        n->dimm_bytes = 0;
    }
    return (uint32_t)ns << DN1_HB_HOST_NS_SHIFT;
}

void dn_self(dn_node *n, enum dn_self_path path)
{
    if (!n->self_off && (unsigned)path < DN_SELF_PATHS) {
        dn_host_charge(n, DN_HOST_INSNS, n->self_insns[path]);
    }
}

void dn_self_count(dn_node *n, uint64_t insns)
{
    if (!n->self_off) {
        dn_host_charge(n, DN_HOST_INSNS, insns);
    }
}

int dn_host_self(dn_node *n, int on)
{
    if (!n) {
        return DN_EINVAL;
    }
    n->self_off = !on;
    return DN_OK;
}

int dn_host_work(dn_node *n, int kind, uint64_t count)
{
    if (!n || kind < DN_HOST_INSNS || kind > DN_HOST_CARD_WRITE) {
        return DN_EINVAL;
    }
    dn_host_charge(n, kind, count);
    return DN_OK;
}

/* Where @p lies: in the card's memory (LLCM or host receive memory)? */
static int in_card(const dn_node *n, const void *p, size_t len)
{
    const uint8_t *b = p;

    return (b >= n->hostmem && b < n->hostmem + n->hostmem_size &&
            len <= n->hostmem_size - (size_t)(b - n->hostmem)) ||
           (b >= n->llcm && b < n->llcm + n->llcm_size &&
            len <= n->llcm_size - (size_t)(b - n->llcm));
}

void dn_nic_read(dn_node *n, void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    dn_host_charge(n, DN_HOST_NIC_READ, len);
}

int dn_copy(dn_node *n, void *dst, const void *src, size_t len)
{
    if (!n || (len && (!dst || !src))) {
        return DN_EINVAL;
    }
    if (!len) {
        return DN_OK;
    }
    memcpy(dst, src, len);
    int from_card = in_card(n, src, len), to_card = in_card(n, dst, len);

    if (from_card) {
        dn_host_charge(n, DN_HOST_NIC_READ, len);
    }
    if (to_card) {
        dn_host_charge(n, DN_HOST_NIC_WRITE, len);
    }
    if (!from_card && !to_card) {
        dn_host_charge(n, DN_HOST_COPY, len);
    }
    return DN_OK;
}

const char *dn_host_profile(dn_node *n)
{
    return n && n->host ? n->host->name : NULL;
}

uint64_t dn_host_charged(dn_node *n)
{
    return n ? n->host_charged_ns : 0;
}

int dn_host_charges(dn_node *n, struct dn_host_charges *c)
{
    if (!n || !c) {
        return DN_EINVAL;
    }
    *c = (struct dn_host_charges){
        .insns_ns = n->by_kind_ps[BY_INSNS] / 1000,
        .copy_ns = n->by_kind_ps[BY_COPY] / 1000,
        .crc_ns = n->by_kind_ps[BY_CRC] / 1000,
        .load_ns = n->by_kind_ps[BY_LOAD] / 1000,
        .store_ns = n->by_kind_ps[BY_STORE] / 1000,
        .card_read_ns = n->by_kind_ps[BY_READ] / 1000,
        .card_write_ns = n->by_kind_ps[BY_WRITE] / 1000,
        .window_ns = n->by_kind_ps[BY_WINDOW] / 1000,
    };
    return DN_OK;
}
