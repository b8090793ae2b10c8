/*
 * Numbers the assembly fast paths (fast_path.S) use, written without C's
 * 'u' suffixes so that the assembler can read them. indirect_write.c and
 * message.c check every one against include/dimmnet1/ and their own
 * structures (_Static_assert), so a change there fails the build.
 */
#ifndef HANDLERS_FAST_PATH_H
#define HANDLERS_FAST_PATH_H

/* The Martini, as the processor sees it (kseg1). */
#define FP_REGS_HI              0xb000  /* Martini registers >> 16 */
#define FP_LLCM_HOST_ORDER_HI   0xb110  /* LLCM host-order view >> 16 */
#define FP_RX_HDR0              0x020   /* version<<24 | type<<16 | flags<<8 */
#define FP_RX_HDR1              0x024   /* src<<16 | dst */
#define FP_RX_HDR2              0x028   /* len<<16 | seq */
#define FP_RX_RADDR_HI          0x030
#define FP_RX_RADDR_LO          0x034
#define FP_RX_XOFF              0x038
#define FP_RX_CMD               0x03c
#define FP_RX_CMD_RESULT        0x044
#define FP_CMD_CONTINUE         1
#define FP_FWSTATS              0x1108  /* LLCM offset of counter 0 (DISPATCHED) */

/* Remote indirect write. */
#define FP_IW_VERSION_TYPE      0x0140  /* RX_HDR0 >> 16: version 1, type 0x40 */
#define FP_RADDR_LLCM_HI        1       /* LLCM's remote addresses >> 32 */
#define FP_LLCM_SIZE_SHIFT      16      /* LLCM is 64 KiB */

/* Message exchange (a packet in the middle of a message). */
#define FP_MSG_VERSION_TYPE     0x0141
#define FP_MSG_FLAGS_MASK       0x0700  /* (OTF | VA | ACK_REQ) << 8 */
#define FP_MSG_FLAGS_WANT       0x0100  /* ACK_REQ << 8 */
#define FP_MSG_SENDERS          64      /* message_fast_senders with one host port */
#define FP_MSG_ENABLE_HI        0x3147  /* "MSG1" */
#define FP_MSG_ENABLE_LO        0x534d
#define FP_MSG_CTRL_ENABLE      0x1200  /* LLCM offset (port 0's control block) */
#define FP_MSG_SLOTS            0x1300  /* LLCM offset; 32 bytes a sender */
#define FP_MSG_SLOT_SHIFT       5
#define FP_MSG_SLOT_GENS        20      /* setup_gen | post_gen << 16 */
#define FP_MSG_SLOT_FW          24      /* post_taken | next_seq << 16 */
#define FP_MSG_PACKETS_STAT     16      /* 4 x DN1_FWST_MSG_PACKETS */
/* struct sender (message.c), 64 bytes each in message_senders[]. */
#define FP_SENDER_SHIFT         6
#define FP_S_SETUP_GEN          0
#define FP_S_NEXT_SEQ           2
#define FP_S_POST_TAKEN         4
#define FP_S_ACTIVE             6
#define FP_S_UTAG               8
#define FP_S_ENV                12  /* incarnation << 24 | length */
#define FP_S_GOT                16
#define FP_S_BASE               20

#endif
