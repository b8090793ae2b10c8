/*
 * Numbers the assembly fast path (indirect_write_fast.S) uses, written
 * without C's 'u' suffixes so that the assembler can read them;
 * indirect_write.c checks every one against include/dimmnet1/.
 */
#ifndef HANDLERS_INDIRECT_WRITE_FAST_H
#define HANDLERS_INDIRECT_WRITE_FAST_H

#define IWF_REGS_HI             0xb000  /* kseg1 Martini registers >> 16 */
#define IWF_LLCM_HOST_ORDER_HI  0xb110  /* kseg1 LLCM host-order view >> 16 */
#define IWF_RX_HDR0             0x020
#define IWF_RX_RADDR_HI         0x030
#define IWF_RX_RADDR_LO         0x034
#define IWF_RX_XOFF             0x038
#define IWF_RX_CMD              0x03c
#define IWF_CMD_CONTINUE        1
#define IWF_VERSION_TYPE        0x0140  /* RX_HDR0 >> 16: version 1, type 0x40 */
#define IWF_RADDR_LLCM_HI       1       /* LLCM's remote addresses >> 32 */
#define IWF_LLCM_SIZE_SHIFT     16      /* LLCM is 64 KiB */
#define IWF_FWST_DISPATCHED     0x1108  /* LLCM offset of that counter */

#endif
