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
 * The profiles. Instructions: a code path's count (measured once with
 * valgrind --tool=callgrind, x86-64, -O2) at the profile's rate; copies:
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
 */
static const struct dn_host_profile profiles[] = {
    { "paper-host", 1176, 3000, 2500 },
    { "modern", 111, 100, 0 },
    { "free", 0, 0, 0 },
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

void dn_host_charge(dn_node *n, int kind, uint64_t count)
{
    if (!n->host_sync || !n->host) {
        return;
    }
    switch (kind) {
    case DN_HOST_INSNS:
        n->host_ps += count * n->host->ps_insn;
        break;
    case DN_HOST_COPY:
        n->host_ps += count * n->host->ps_copy_byte;
        break;
    case DN_HOST_CRC:
        n->host_ps += count * CRC_INSNS_PER_BYTE * n->host->ps_insn;
        break;
    case DN_HOST_PIO:
        /* The board charges the DIMM's rate (DN1_DIMM_NS): only the rest. */
        if (n->host->ps_pio_byte > DIMM_PS_PER_BYTE) {
            n->host_ps += count * (n->host->ps_pio_byte - DIMM_PS_PER_BYTE);
        }
        break;
    }
}

uint32_t dn_host_take(dn_node *n)
{
    uint64_t ns = n->host_ps / 1000;

    if (ns > DN1_HB_HOST_NS_MAX) {
        ns = DN1_HB_HOST_NS_MAX;    /* the rest with the next requests */
    }
    n->host_ps -= ns * 1000;
    n->host_charged_ns += ns;
    return (uint32_t)ns << DN1_HB_HOST_NS_SHIFT;
}

int dn_host_work(dn_node *n, int kind, uint64_t count)
{
    if (!n || kind < DN_HOST_INSNS || kind > DN_HOST_CRC) {
        return DN_EINVAL;
    }
    dn_host_charge(n, kind, count);
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
