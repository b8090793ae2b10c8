/*
 * The switch's trace: every frame it forwards, after faults, as a pcap with
 * nanosecond timestamps taken from the frame (the sender's virtual departure
 * time, plus any injected delay), link type USER0 (tools/wireshark).
 */
#include <string.h>
#include "switch.h"
#include "dimmnet1/packet_codec.h"

struct pcap_file_header {
    uint32_t magic;
    uint16_t version_major, version_minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, linktype;
};

int sw_pcap_open(struct sw *sw, const char *path)
{
    /* Host byte order, as the magic number tells readers. */
    const struct pcap_file_header h = {
        .magic = 0xa1b23c4du,           /* nanosecond timestamps */
        .version_major = 2, .version_minor = 4,
        .snaplen = SW_FRAME_MAX, .linktype = 147u,   /* USER0 */
    };

    sw->pcap = fopen(path, "wb");
    if (!sw->pcap) {
        return -1;
    }
    return fwrite(&h, sizeof(h), 1, sw->pcap) == 1 && fflush(sw->pcap) == 0 ? 0 : -1;
}

void sw_pcap_record(struct sw *sw, const uint8_t *frame, uint32_t size)
{
    uint64_t t = dn1_get_be64(frame + 8);
    uint32_t rec[4] = { (uint32_t)(t / 1000000000u), (uint32_t)(t % 1000000000u),
                        size - DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR };

    if (!sw->pcap) {
        return;
    }
    if (fwrite(rec, sizeof(rec), 1, sw->pcap) != 1 ||
        fwrite(frame + DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR, 1, sw->pcap) != 1 ||
        fflush(sw->pcap) != 0) {
        fprintf(stderr, "dimmnet1-switch: pcap write failed; tracing stopped\n");
        fclose(sw->pcap);
        sw->pcap = NULL;
    }
}
