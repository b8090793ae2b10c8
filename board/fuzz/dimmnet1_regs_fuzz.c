/*
 * libFuzzer target for the dimmnet1 board from the processor's side: the
 * Martini registers (any offset, access size 1, 2 or 4), the held packet's
 * payload window, the RVATLB and PATLB, packet images in chip SRAM sent with
 * TX_CMD, and the firmware's RX_CMD decisions (CONTINUE, DISCARD, NACK,
 * DONE, RETRY, unknown values) on packets the link brings, malformed ones
 * included. Beside the shared invariants, each access is checked against
 * the contract (docs/hardware.md section 3): what counts ERR_REG and reads
 * as 0, the payload window reading 0 past len, which images TX_CMD refuses.
 *
 *   qemu-fuzz-mips --fuzz-target=dimmnet1-regs CORPUS...
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1_fuzz.h"

enum {
    OP_REG_WRITE, OP_REG_READ, OP_TLB, OP_TX, OP_PACKET, OP_RX_CMD,
    OP_BAD_PACKET, OP_CLOCK, OP_COUNT
};

static uint32_t reg(Dn1fBoard *b, uint32_t off)
{
    return dn1f_readl(DN1_REGS_BASE + off);
}

/* Section 3's readable registers (RX_CMD and TX_CMD are write-only). */
static bool readable(uint32_t off)
{
    static const uint32_t regs[] = {
        DN1_REG_ID, DN1_REG_VERSION, DN1_REG_NODE_ID, DN1_REG_LINK_STATUS,
        DN1_REG_FW_STATUS, DN1_REG_IRQ_STATUS, DN1_REG_IRQ_ENABLE,
        DN1_REG_RX_HDR0, DN1_REG_RX_HDR1, DN1_REG_RX_HDR2, DN1_REG_RX_TAG,
        DN1_REG_RX_RADDR_HI, DN1_REG_RX_RADDR_LO, DN1_REG_RX_XOFF,
        DN1_REG_RX_NACK_REASON, DN1_REG_RX_CMD_RESULT, DN1_REG_TX_SRAM_OFF,
        DN1_REG_TX_RESULT, DN1_REG_RX_HOLD_REASON, DN1_REG_RX_MISS_HI,
        DN1_REG_RX_MISS_LO, DN1_REG_MMU_CTRL, DN1_REG_TIMING,
        DN1_REG_BOTF_STATUS, DN1_REG_BOOT_VERSION, DN1_REG_BOOT_SLOT,
        DN1_REG_HOST_PORTS,
    };

    if (off >= DN1_REG_CNT_BASE && off < DN1_REG_CNT(DN1_CNT_COUNT)) {
        return !(off & 3);
    }
    for (unsigned i = 0; i < ARRAY_SIZE(regs); i++) {
        if (regs[i] == off) {
            return true;
        }
    }
    return false;
}

/* Would a processor write of @v (@size bytes) at @off count ERR_REG? */
static bool write_forbidden(Dn1fBoard *b, uint32_t off, unsigned size,
                            uint32_t v)
{
    bool held = reg(b, DN1_REG_IRQ_STATUS) & DN1_IRQ_RX_HELD;
    uint32_t why = reg(b, DN1_REG_RX_HOLD_REASON);

    if (size != 4) {
        return true;
    }
    switch (off) {
    case DN1_REG_FW_STATUS: case DN1_REG_IRQ_ENABLE:
    case DN1_REG_RX_NACK_REASON: case DN1_REG_TX_SRAM_OFF:
    case DN1_REG_MMU_CTRL: case DN1_REG_BOOT_VERSION: case DN1_REG_BOOT_SLOT:
        return false;
    case DN1_REG_RX_RADDR_HI: case DN1_REG_RX_RADDR_LO:
        return !held;
    case DN1_REG_RX_CMD:
        return !held || v < DN1_RX_CMD_CONTINUE || v > DN1_RX_CMD_WRITE ||
               (v == DN1_RX_CMD_RETRY && why != DN1_HOLD_RVATLB_MISS &&
                why != DN1_HOLD_PATLB_MISS);
    case DN1_REG_TX_CMD:
        return v != DN1_TX_CMD_SEND;
    }
    return true;
}

static uint32_t err_reg(Dn1fBoard *b)
{
    return reg(b, DN1_REG_CNT(DN1_CNT_ERR_REG));
}

static unsigned pick_size(uint8_t sel)
{
    return 1u << (sel % 3);
}

static void reg_write(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);
    unsigned size = pick_size(sel);
    uint32_t off = dn1f_u16(in) % DN1_REGS_SIZE & ~(size - 1);
    uint32_t v = dn1f_u32(in), before;
    bool bad;

    if (sel & 0x80) {
        off = dn1f_u8(in) * 4 % 0x80;    /* the named registers */
        size = 4;
    }
    if (off == DN1_REG_FW_STATUS) {
        return;                          /* no firmware runs here */
    }
    bad = write_forbidden(b, off, size, v);
    before = err_reg(b);
    switch (size) {
    case 1:
        dn1f_writeb(DN1_REGS_BASE + off, v);
        break;
    case 2:
        dn1f_writew(DN1_REGS_BASE + off, v);
        break;
    default:
        dn1f_writel(DN1_REGS_BASE + off, v);
    }
    if (err_reg(b) - before != bad) {
        dn1f_fail("write of %u bytes 0x%x at 0x%x: ERR_REG +%u, contract "
                  "says +%d", size, v, off, err_reg(b) - before, bad);
    }
}

static void reg_read(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);
    unsigned size = pick_size(sel);
    uint32_t off = dn1f_u16(in) % DN1_REGS_SIZE & ~(size - 1);
    uint32_t len = reg(b, DN1_REG_RX_HDR2) >> 16;
    uint32_t before = err_reg(b), v;
    bool bad = off < DN1_REG_RX_PAYLOAD && (size != 4 || !readable(off));

    if (sel & 0x80) {
        off = DN1_REG_RX_PAYLOAD + (len + (int8_t)dn1f_u8(in)) %
              (DN1_REGS_SIZE - DN1_REG_RX_PAYLOAD) & ~(size - 1);
        bad = false;
    }
    switch (size) {
    case 1:
        v = dn1f_readb(DN1_REGS_BASE + off);
        break;
    case 2:
        v = dn1f_readw(DN1_REGS_BASE + off);
        break;
    default:
        v = dn1f_readl(DN1_REGS_BASE + off);
    }
    if (err_reg(b) - before != bad || (bad && v)) {
        dn1f_fail("read of %u bytes at 0x%x gave 0x%x, ERR_REG +%u; contract "
                  "says +%d and 0", size, off, v, err_reg(b) - before, bad);
    }
    if (off >= DN1_REG_RX_PAYLOAD) {
        /* Bytes in address order; 0 past len. */
        for (unsigned i = 0; i < size; i++) {
            uint8_t byte = v >> (8 * (size - 1 - i));

            if (off - DN1_REG_RX_PAYLOAD + i >= len && byte) {
                dn1f_fail("payload byte %u reads 0x%x past len %u",
                          off - DN1_REG_RX_PAYLOAD + i, byte, len);
            }
        }
    }
}

/* A TLB entry: raw words, or one that maps the small RVA space the packets
 * use to a page of the NIC address space (PATLB: allows a page). */
static void tlb_write(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);
    uint8_t e = dn1f_u8(in);
    uint32_t w[4] = { dn1f_u32(in), dn1f_u32(in), dn1f_u32(in), dn1f_u32(in) };
    bool rva = sel & 1;
    uint32_t base = rva ? DN1_RVATLB_BASE : DN1_PATLB_BASE;
    unsigned words = rva ? 4 : 2;
    uint8_t *shadow = rva ? b->rvatlb : b->patlb;
    uint32_t at = (e % (rva ? DN1_RVATLB_ENTRIES : DN1_PATLB_ENTRIES)) *
                  words * 4;

    if (sel & 2) {
        uint32_t ppn = sel & 4 ? (w[3] % (DN1_HOSTMEM_SIZE >> DN1_PAGE_SHIFT))
                               : (uint32_t)((DN1_RADDR_LLCM >> DN1_PAGE_SHIFT) +
                                            w[3] % 17);
        uint32_t vw = DN1_TLB_V | (sel & 8 ? 0 : DN1_TLB_W);

        if (rva) {
            w[0] = vw | (w[0] & 3);      /* context */
            w[1] = 0;
            w[2] = w[2] & 0xff;          /* VA page: the packets' RVAs */
            w[3] = ppn;
        } else {
            w[0] = vw;
            w[1] = sel & 0x10 ? (w[1] & 0xff) : ppn;
        }
    }
    for (unsigned i = 0; i < words; i++) {
        dn1f_writel(base + at + 4 * i, w[i]);
        stl_be_p(shadow + at + 4 * i, w[i]);
    }
}

/* A packet image in chip SRAM, then TX_CMD SEND: refused exactly when the
 * contract says (section 3, "Firmware sends"). */
static void tx_image(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in), img[DN1_PKT_HDR_SIZE + 64];
    uint32_t off = dn1f_u16(in) % DN1_CHIP_SRAM_SIZE;
    struct dn1_hdr h = { 0 };
    uint32_t n, before_fw, before_err, result;
    bool refuse;

    if (!(sel & 1)) {
        off &= ~7u;
    }
    h.type = sel & 2 ? DN1_TYPE_PUSH : dn1f_u8(in);
    h.flags = dn1f_u8(in);
    if (sel & 4) {
        h.flags &= DN1_FLAGS_SENDABLE;
    }
    h.dst = dn1f_u16(in);
    h.len = sel & 8 ? dn1f_u16(in) : dn1f_u8(in) % 65;
    h.seq = dn1f_u16(in);
    h.tag = dn1f_u32(in);
    h.raddr = dn1f_u64(in);
    h.xoff = dn1f_u32(in);
    if (sel & 0x10) {
        struct dn1_hdr head = h;

        n = MIN(sizeof(img), DN1_CHIP_SRAM_SIZE - off);
        /* The wire header (its CRC is ignored): sealed over no payload,
         * then the real len, which may claim more than is written. */
        head.len = 0;
        dn1_packet_seal(img, &head);
        dn1_put_be16(img + DN1_OFF_LEN, h.len);
        dn1f_bytes(in, img + DN1_PKT_HDR_SIZE, sizeof(img) - DN1_PKT_HDR_SIZE);
        dn1f_memwrite(DN1_CHIP_SRAM_BASE + off, img, n);
        memcpy(b->sram + off, img, n);
    }
    /* What the NIC will find there. */
    if (off <= DN1_CHIP_SRAM_SIZE - DN1_PKT_HDR_SIZE) {
        dn1_packet_parse(b->sram + off, &h);
    }
    refuse = (off & 7) || off > DN1_CHIP_SRAM_SIZE - DN1_PKT_HDR_SIZE ||
             h.len > DN1_PKT_MAX_PAYLOAD ||
             h.len > DN1_CHIP_SRAM_SIZE - off - DN1_PKT_HDR_SIZE ||
             !dn1_fw_sendable(h.type, h.flags, h.len);
    before_fw = reg(b, DN1_REG_CNT(DN1_CNT_TX_FW));
    before_err = reg(b, DN1_REG_CNT(DN1_CNT_ERR_TX));
    dn1f_writel(DN1_REGS_BASE + DN1_REG_TX_SRAM_OFF, off);
    dn1f_writel(DN1_REGS_BASE + DN1_REG_TX_CMD, DN1_TX_CMD_SEND);
    result = reg(b, DN1_REG_TX_RESULT);
    if (refuse != (result == DN1_TX_RESULT_BAD_IMAGE) ||
        (result != DN1_TX_RESULT_OK && result != DN1_TX_RESULT_BAD_IMAGE &&
         result != DN1_TX_RESULT_LINK_DOWN)) {
        dn1f_fail("TX_CMD at 0x%x (type %u flags 0x%x len %u): result %u, "
                  "contract says %s", off, h.type, h.flags, h.len, result,
                  refuse ? "BAD_IMAGE" : "a send");
    }
    if (reg(b, DN1_REG_CNT(DN1_CNT_TX_FW)) - before_fw +
        reg(b, DN1_REG_CNT(DN1_CNT_ERR_TX)) - before_err != 1 ||
        (result == DN1_TX_RESULT_OK) !=
        (reg(b, DN1_REG_CNT(DN1_CNT_TX_FW)) != before_fw)) {
        dn1f_fail("TX_CMD counted neither or both of TX_FW and ERR_TX");
    }
}

/* A held packet shows in every held-packet register, and only then. */
static void check_held(Dn1fBoard *b)
{
    bool held = reg(b, DN1_REG_IRQ_STATUS) & DN1_IRQ_RX_HELD;
    uint32_t hdr0 = reg(b, DN1_REG_RX_HDR0), why = reg(b, DN1_REG_RX_HOLD_REASON);

    if (held != (hdr0 >> 24 == DN1_PKT_VERSION) || held != (why != 0) ||
        why > DN1_HOLD_PATLB_MISS) {
        dn1f_fail("IRQ_STATUS %d, RX_HDR0 0x%x, RX_HOLD_REASON %u disagree",
                  held, hdr0, why);
    }
    if (held && why == DN1_HOLD_TYPE && (hdr0 >> 16 & 0xff) >= DN1_TYPE_PUSH &&
        (hdr0 >> 16 & 0xff) <= DN1_TYPE_READ_RSP) {
        dn1f_fail("a hardware type held as TYPE");
    }
}

static void regs_op(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t op = dn1f_u8(in);

    switch (op % OP_COUNT) {
    case OP_REG_WRITE:
        reg_write(b, in);
        break;
    case OP_REG_READ:
        reg_read(b, in);
        break;
    case OP_TLB:
        if (op & 0x80) {
            /* PATLB on or off (MMU_CTRL), and the interrupt mask. */
            dn1f_writel(DN1_REGS_BASE + DN1_REG_MMU_CTRL, op >> 3 & 1);
            dn1f_writel(DN1_REGS_BASE + DN1_REG_IRQ_ENABLE,
                         op >> 4 & 1);
        } else {
            tlb_write(b, in);
        }
        break;
    case OP_TX:
        tx_image(b, in);
        break;
    case OP_PACKET:
        dn1f_send_packet(b, in, false);
        break;
    case OP_RX_CMD:
        dn1f_rx_cmd(b, in);
        break;
    case OP_BAD_PACKET:
        if (op & 0x80) {
            dn1f_send_raw(b, in);
        } else {
            dn1f_send_packet(b, in, true);
        }
        break;
    case OP_CLOCK:
        if (op & 0x80) {
            dn1f_hostbus(b, in);
        } else {
            dn1f_cq_consume(b, in);
        }
        break;
    }
    dn1f_settle(b);
    check_held(b);
}

static void regs_fuzz(QTestState *s, const unsigned char *data, size_t size)
{
    dn1f_fork_run(s, data, size, false, false, regs_op);
}

static GString *regs_cmdline(FuzzTarget *t)
{
    return dn1f_cmdline("");
}

static void register_dimmnet1_regs_fuzz_target(void)
{
    fuzz_add_target(&(FuzzTarget){
        .name = "dimmnet1-regs",
        .description = "dimmnet1 board: Martini registers, payload window, "
                       "TLBs and SRAM sends from the processor's side, with "
                       "link packets to decide on",
        .get_init_cmdline = regs_cmdline,
        .pre_fuzz = dn1f_pre_fuzz,
        .fuzz = regs_fuzz,
    });
}

fuzz_target_init(register_dimmnet1_regs_fuzz_target);
