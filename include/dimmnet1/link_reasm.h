/*
 * Link frame reassembly (docs/hardware.md, "Link"), shared by the NIC model
 * and the switch model so that both apply the same framing rules. Header-only.
 */
#ifndef DIMMNET1_LINK_REASM_H
#define DIMMNET1_LINK_REASM_H

#include <stddef.h>
#include <stdint.h>
#include "dimmnet1/link.h"
#include "dimmnet1/packet_codec.h"

struct dn1_link_reasm {
    uint8_t buf[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
    uint32_t fill;
};

enum dn1_reasm_result {
    DN1_REASM_MORE,     /* input used up, frame not complete */
    DN1_REASM_FRAME,    /* a whole frame is in buf (fill bytes; a data frame or a
                           header-only control frame, by magic); clear fill after */
    DN1_REASM_BAD,      /* bad magic or size: the bytes held were dropped */
};

/* Bytes until the end of the frame being assembled (the header first). */
static inline uint32_t dn1_link_reasm_want(const struct dn1_link_reasm *r)
{
    return r->fill < DN1_LINK_FRAME_HDR ? DN1_LINK_FRAME_HDR - r->fill
                                        : dn1_get_be32(r->buf + 4) - r->fill;
}

/* Take bytes from *in (advancing it and *len) up to the end of one frame. */
static inline enum dn1_reasm_result
dn1_link_reasm_feed(struct dn1_link_reasm *r, const uint8_t **in, size_t *len)
{
    while (*len > 0) {
        uint32_t want = dn1_link_reasm_want(r);
        uint32_t n = *len < want ? (uint32_t)*len : want;

        for (uint32_t i = 0; i < n; i++) {
            r->buf[r->fill + i] = (*in)[i];
        }
        r->fill += n;
        *in += n;
        *len -= n;
        if (r->fill == DN1_LINK_FRAME_HDR) {
            uint32_t size = dn1_get_be32(r->buf + 4);
            uint32_t magic = dn1_get_be32(r->buf);
            int control = magic == DN1_LINK_MAGIC_GRANT ||
                          magic == DN1_LINK_MAGIC_REACHED ||
                          magic == DN1_LINK_MAGIC_BOOTING;
            if (control ? size != DN1_LINK_FRAME_HDR
                        : magic != DN1_LINK_MAGIC || size < DN1_LINK_FRAME_HDR ||
                          size > sizeof(r->buf)) {
                r->fill = 0;   /* out of step with the sender */
                return DN1_REASM_BAD;
            }
        }
        if (r->fill >= DN1_LINK_FRAME_HDR && dn1_link_reasm_want(r) == 0) {
            return DN1_REASM_FRAME;
        }
    }
    return DN1_REASM_MORE;
}

#endif
