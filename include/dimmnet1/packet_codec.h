/*
 * Encode, decode and check DIMMnet-1 packets (docs/hardware.md, "Packet
 * format"). Header-only so the board model, the host shim and tests share
 * one implementation; freestanding C11.
 */
#ifndef DIMMNET1_PACKET_CODEC_H
#define DIMMNET1_PACKET_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "dimmnet1/crc32_table.h"
#include "dimmnet1/packet.h"

static inline void dn1_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void dn1_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void dn1_put_be64(uint8_t *p, uint64_t v)
{
    dn1_put_be32(p, (uint32_t)(v >> 32));
    dn1_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t dn1_get_be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t dn1_get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t dn1_get_be64(const uint8_t *p)
{
    return ((uint64_t)dn1_get_be32(p) << 32) | dn1_get_be32(p + 4);
}

/* CRC-32 (IEEE 802.3, reflected, init and final xor 0xffffffff). */
static inline uint32_t dn1_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc = (crc >> 8) ^ dn1_crc32_table[(crc ^ *p++) & 0xffu];
    }
    return ~crc;
}

/* CRC of a whole packet, computed as if its CRC field were zero. */
static inline uint32_t dn1_packet_crc(const uint8_t *pkt, size_t size)
{
    static const uint8_t zero[4];
    uint32_t crc = dn1_crc32_update(0, pkt, DN1_OFF_CRC);
    crc = dn1_crc32_update(crc, zero, sizeof(zero));
    return dn1_crc32_update(crc, pkt + DN1_PKT_HDR_SIZE, size - DN1_PKT_HDR_SIZE);
}

/* Write header (computing the CRC over hdr + payload already at pkt + 32). */
static inline void dn1_packet_seal(uint8_t *pkt, const struct dn1_hdr *h)
{
    pkt[DN1_OFF_VERSION] = h->version;
    pkt[DN1_OFF_TYPE] = h->type;
    pkt[DN1_OFF_FLAGS] = h->flags;
    pkt[DN1_OFF_REASON] = h->reason;
    dn1_put_be16(pkt + DN1_OFF_SRC, h->src);
    dn1_put_be16(pkt + DN1_OFF_DST, h->dst);
    dn1_put_be16(pkt + DN1_OFF_LEN, h->len);
    dn1_put_be16(pkt + DN1_OFF_SEQ, h->seq);
    dn1_put_be32(pkt + DN1_OFF_TAG, h->tag);
    dn1_put_be64(pkt + DN1_OFF_RADDR, h->raddr);
    dn1_put_be32(pkt + DN1_OFF_XOFF, h->xoff);
    dn1_put_be32(pkt + DN1_OFF_CRC,
                 dn1_packet_crc(pkt, DN1_PKT_HDR_SIZE + (size_t)h->len));
}

static inline void dn1_packet_parse(const uint8_t *pkt, struct dn1_hdr *h)
{
    h->version = pkt[DN1_OFF_VERSION];
    h->type = pkt[DN1_OFF_TYPE];
    h->flags = pkt[DN1_OFF_FLAGS];
    h->reason = pkt[DN1_OFF_REASON];
    h->src = dn1_get_be16(pkt + DN1_OFF_SRC);
    h->dst = dn1_get_be16(pkt + DN1_OFF_DST);
    h->len = dn1_get_be16(pkt + DN1_OFF_LEN);
    h->seq = dn1_get_be16(pkt + DN1_OFF_SEQ);
    h->tag = dn1_get_be32(pkt + DN1_OFF_TAG);
    h->raddr = dn1_get_be64(pkt + DN1_OFF_RADDR);
    h->xoff = dn1_get_be32(pkt + DN1_OFF_XOFF);
    h->crc = dn1_get_be32(pkt + DN1_OFF_CRC);
}

/* Why a received packet is refused before anything else looks at it. */
enum dn1_pkt_check {
    DN1_PKT_OK = 0,
    DN1_PKT_SHORT,        /* fewer bytes than a header */
    DN1_PKT_BAD_VERSION,
    DN1_PKT_BAD_LENGTH,   /* len field disagrees with the frame, or too large */
    DN1_PKT_BAD_CRC,
};

static inline enum dn1_pkt_check dn1_packet_check(const uint8_t *pkt, size_t size)
{
    if (size < DN1_PKT_HDR_SIZE) {
        return DN1_PKT_SHORT;
    }
    if (pkt[DN1_OFF_VERSION] != DN1_PKT_VERSION) {
        return DN1_PKT_BAD_VERSION;
    }
    uint16_t len = dn1_get_be16(pkt + DN1_OFF_LEN);
    if (len > DN1_PKT_MAX_PAYLOAD || size != DN1_PKT_HDR_SIZE + (size_t)len) {
        return DN1_PKT_BAD_LENGTH;
    }
    if (dn1_get_be32(pkt + DN1_OFF_CRC) != dn1_packet_crc(pkt, size)) {
        return DN1_PKT_BAD_CRC;
    }
    return DN1_PKT_OK;
}

#endif
