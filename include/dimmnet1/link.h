/*
 * Link framing between boards (docs/hardware.md, "Link"): each packet travels
 * in a frame on a stream socket. Big-endian.
 */
#ifndef DIMMNET1_LINK_H
#define DIMMNET1_LINK_H

#define DN1_LINK_MAGIC        0x444e4c31u  /* "DNL1" */
#define DN1_LINK_FRAME_HDR    16u          /* magic u32, size u32, vtime_ns u64 */

#endif
