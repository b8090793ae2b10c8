/* Counting barrier (paper, "counting barrier", steps 1-6). */
#ifndef HANDLERS_BARRIER_H
#define HANDLERS_BARRIER_H

#include "hal/rx.h"

/* Forget every group (boot): none set up. */
void barrier_init(int resume);

/*
 * A BARRIER packet (docs/hardware.md section 11): the sender's arrival at
 * epoch e of the group whose counter its raddr names. Checked (group set
 * up, sender a member, epoch the counted one or the last released), then
 * handed back at once (RX_DONE: the core IDLE, step 3); then counted once
 * per member and epoch (step 4); the last arrival sends the completion
 * images (step 5) and re-arms the counter for epoch e + 1 (step 6). An
 * arrival for the last released epoch means its completion was lost: that
 * member's completion is sent again. Returns RX_RELEASED or RX_NACK.
 */
enum rx_action barrier_handle(struct rx_packet *p);

/* The 32-byte header of a completion image at SRAM @off: a PUSH of @len
 * bytes to LLCM @done_off of node (or group) @dst (the NIC sets src and
 * the CRC). */
void barrier_image_header(uint32_t off, uint16_t dst, uint16_t len, uint32_t done_off);

/* A completion image at SRAM @off: a PUSH of DN1_BAR_DONE_BYTES to LLCM
 * @done_off of node (or group) @dst, payload @word0 (as the host reads it)
 * and 4 zero bytes. Shared with the paper's barrier (barrier_paper.c). */
void barrier_image(uint32_t off, uint16_t dst, uint32_t done_off, uint32_t word0);

#endif
