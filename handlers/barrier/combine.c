/*
 * Combining on the counting barrier (see combine.h). The NIC processor has
 * no floating point and the firmware no soft-float: integer types only
 * (the host keeps floating-point reductions).
 */
#include "combine.h"
#include "barrier.h"
#include "fwstats.h"
#include "hal/sram.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/regs.h"

void comb_image_init(unsigned g, uint32_t done_off)
{
    uint32_t off = DN1_BAR_COMB_IMAGE(g);

    barrier_image_header(off, 0, DN1_BAR_COMB_DONE_BYTES, done_off);   /* dst: at each send */
    for (unsigned b = 32; b < DN1_BAR_COMB_IMAGE_SIZE; b += 4) {
        hal_sram_write32(off + b, 0);                       /* nothing released yet */
    }
}

static uint32_t op32(unsigned op, uint32_t a, uint32_t b)
{
    switch (op) {
    case DN1_COMB_OP_SUM: return a + b;
    case DN1_COMB_OP_PROD: return a * b;
    case DN1_COMB_OP_MIN: return (int32_t)b < (int32_t)a ? b : a;
    case DN1_COMB_OP_MAX: return (int32_t)b > (int32_t)a ? b : a;
    case DN1_COMB_OP_BAND: return a & b;
    case DN1_COMB_OP_BOR: return a | b;
    default: return a ^ b;
    }
}

static uint64_t op64(unsigned op, int sgn, uint64_t a, uint64_t b)
{
    switch (op) {
    case DN1_COMB_OP_SUM: return a + b;
    case DN1_COMB_OP_PROD: return a * b;
    case DN1_COMB_OP_MIN: return (sgn ? (int64_t)b < (int64_t)a : b < a) ? b : a;
    case DN1_COMB_OP_MAX: return (sgn ? (int64_t)b > (int64_t)a : b > a) ? b : a;
    case DN1_COMB_OP_BAND: return a & b;
    case DN1_COMB_OP_BOR: return a | b;
    default: return a ^ b;
    }
}

int comb_opt_ok(unsigned g, int first, unsigned opt)
{
    return (opt & 7u) <= DN1_COMB_OP_BXOR && opt >> 3 <= DN1_COMB_T_UINT64 &&
           (first || hal_sram_read32(DN1_BAR_COMB_ACC(g) + 8) == opt);
}

void comb_count(unsigned g, unsigned opt, int first, uint32_t lo, uint32_t hi)
{
    uint32_t acc = DN1_BAR_COMB_ACC(g);

    if (first) {
        hal_sram_write32(acc + 8, opt);
    } else {
        unsigned op = opt & 7u, type = opt >> 3;
        uint32_t alo = hal_sram_read32(acc), ahi = hal_sram_read32(acc + 4);
        if (type == DN1_COMB_T_INT32) {
            lo = op32(op, alo, lo);
            hi = op32(op, ahi, hi);
        } else {
            uint64_t v = op64(op, type == DN1_COMB_T_INT64, (uint64_t)ahi << 32 | alo,
                              (uint64_t)hi << 32 | lo);
            lo = (uint32_t)v;
            hi = (uint32_t)(v >> 32);
        }
    }
    hal_sram_write32(acc, lo);
    hal_sram_write32(acc + 4, hi);
}

void comb_release(unsigned g, uint32_t epoch)
{
    uint32_t img = DN1_BAR_COMB_IMAGE(g), acc = DN1_BAR_COMB_ACC(g);

    uint32_t lo = hal_sram_read32(acc), hi = hal_sram_read32(acc + 4);

    hal_sram_write_le32(img + 32, lo);     /* as the host reads them */
    hal_sram_write_le32(img + 36, hi);
    hal_sram_write_le32(img + 40, epoch);
    hal_sram_write_le32(img + 44, dn1_comb_check(epoch, lo, hi));
}

void comb_send(unsigned g, uint16_t dst)
{
    uint32_t img = DN1_BAR_COMB_IMAGE(g);

    hal_sram_write32(img + 4, dst);      /* the NIC takes the image at the kick */
    if (hal_tx_send(img) != DN1_TX_RESULT_OK) {
        fwstats_inc(DN1_FWST_BAR_TX_ERRORS);
    }
}
