/*
 * Martini link trace: every packet the board sends or takes from its link,
 * as a pcap file (nanosecond timestamps = QEMU virtual time, link type
 * USER0) that tshark reads with tools/wireshark/dimmnet1.lua.
 * Received packets are recorded as they came, before any check.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "hw/net/martini.h"

#define PCAP_MAGIC_NS   0xa1b23c4du   /* nanosecond-resolution pcap */
#define LINKTYPE_USER0  147u

struct pcap_file_header {
    uint32_t magic;
    uint16_t version_major;
    uint16_t version_minor;
    int32_t thiszone;
    uint32_t sigfigs;
    uint32_t snaplen;
    uint32_t linktype;
};

struct pcap_record_header {
    uint32_t ts_sec;
    uint32_t ts_nsec;
    uint32_t incl_len;
    uint32_t orig_len;
};

void martini_pcap_open(MartiniState *s, Error **errp)
{
    struct pcap_file_header h = {
        .magic = PCAP_MAGIC_NS,
        .version_major = 2,
        .version_minor = 4,
        .snaplen = DN1_PKT_MAX_SIZE,
        .linktype = LINKTYPE_USER0,
    };

    if (!s->pcap_path || !*s->pcap_path) {
        return;
    }
    s->pcap = fopen(s->pcap_path, "wb");
    if (!s->pcap) {
        error_setg_errno(errp, errno, "martini: cannot create pcap file '%s'",
                         s->pcap_path);
        return;
    }
    /* Host byte order, as pcap readers expect from the magic number. */
    if (fwrite(&h, sizeof(h), 1, s->pcap) != 1 || fflush(s->pcap) != 0) {
        error_setg_errno(errp, errno, "martini: cannot write pcap file '%s'",
                         s->pcap_path);
        fclose(s->pcap);
        s->pcap = NULL;
    }
}

/* A packet sent (@at: its departure) or received (@at: its delivery). */
void martini_pcap_record(MartiniState *s, const uint8_t *pkt, uint32_t size,
                         int64_t at)
{
    uint64_t now = at;
    struct pcap_record_header r = {
        .ts_sec = now / NANOSECONDS_PER_SECOND,
        .ts_nsec = now % NANOSECONDS_PER_SECOND,
        .incl_len = size,
        .orig_len = size,
    };

    if (!s->pcap) {
        return;
    }
    /* Flushed per packet: the trace is readable while the board runs. */
    if (fwrite(&r, sizeof(r), 1, s->pcap) != 1 ||
        fwrite(pkt, size, 1, s->pcap) != 1 || fflush(s->pcap) != 0) {
        warn_report("martini%u: pcap write failed; tracing stopped",
                    s->node_id);
        fclose(s->pcap);
        s->pcap = NULL;
    }
}
