/*
 * Firmware variants chosen at run time (docs/hardware.md section 12): the
 * paper's miss-continue experiments (seed 002, section 4.2). The host of a
 * node writes the variant block in its LLCM (NIC-reserved part: packets
 * cannot write it), bumps gen last, and sends its own node a CONTROL packet
 * (ACK_REQ); the firmware takes the block over and ACKs, or NACKs
 * BAD_CONTROL. Little-endian, like every host word in LLCM.
 */
#ifndef DIMMNET1_VARIANT_H
#define DIMMNET1_VARIANT_H

#define DN1_VAR_LLCM_OFF        0x1d00u   /* 32 bytes */
#define DN1_VAR_MISS_MODE       0u    /* u32: DN1_VAR_MISS_* */
#define DN1_VAR_FLAGS           4u    /* u32: DN1_VAR_F_* */
#define DN1_VAR_WINDOW_BASE     8u    /* u64: first redirected raddr (an RVA or a NIC address) */
#define DN1_VAR_WINDOW_SIZE     16u   /* u32: bytes redirected from there */
#define DN1_VAR_POINTER_OFF     20u   /* u32: LLCM offset of the u64 pointer (8-aligned) */
#define DN1_VAR_GEN             24u   /* u32: host, bumped last */
#define DN1_VAR_TAKEN           28u   /* u32: firmware, the gen it applied */

#define DN1_VAR_MISS_NACK       0u    /* a TLB miss is NACKed NO_TRANSLATION (default) */
#define DN1_VAR_MISS_CONTINUE   1u    /* a miss inside the window continues at pointer + (raddr - base) */

#define DN1_VAR_F_PATLB         0x1u  /* MMU_CTRL.PATLB_EN on; pages outside the window are
                                         entered on their first miss and retried */
#define DN1_VAR_F_POLL          0x2u  /* "non-intr": Martini interrupt off, the firmware polls */
#define DN1_VAR_F_BATCH         0x4u  /* ours: one interrupt serves every packet held; without
                                         it one interrupt a packet, as the paper's firmware */
#define DN1_VAR_F_ALL           0x7u

#endif
