/*
 * Combining on the counting barrier (docs/hardware.md section 11,
 * "Combining"; layouts: include/dimmnet1/barrier.h): each member's 8-byte
 * value added into the group's running combination as the barrier counts
 * it, and the result sent back with the release.
 */
#ifndef HANDLERS_BARRIER_COMBINE_H
#define HANDLERS_BARRIER_COMBINE_H

#include <stdint.h>

/* Set-up of group @g: its completion image's fixed part (to @done_off). */
void comb_image_init(unsigned g, uint32_t done_off);

/* May an arrival with @opt (op | type << 3, from its raddr) count in
 * group @g's epoch? Its first arrival (@first) fixes the op and type. */
int comb_opt_ok(unsigned g, int first, unsigned opt);

/*
 * Count in a member's value: @lo and @hi the held payload's two
 * little-endian words (hal_rx_payload_le32), combined into group @g's
 * running value with op and type @opt; the epoch's @first value starts
 * it. Integer ops wrap and are associative and commutative, so arrival
 * order gives the same bits as the collectives' canonical order.
 */
void comb_count(unsigned g, unsigned opt, int first, uint32_t lo, uint32_t hi);

/* The release of @epoch: the result and @epoch into the image. */
void comb_release(unsigned g, uint32_t epoch);
/* Send group @g's last released image to @dst (the release, or a member
 * that missed it). */
void comb_send(unsigned g, uint16_t dst);

#endif
