/*
 * The few libgcc helpers the firmware may need. Debian's cross libgcc.a is
 * MIPS32r2, PIC and hard-float, unusable here (see ../shared/brief.md), so the
 * integer ones are written out: 64-bit division and modulo, by shift and
 * subtract. No floating point is provided: firmware must not need it.
 */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0;

    if (d == 0) {
        __builtin_trap();   /* as the hardware divide would */
    }
    if (d <= n) {
        int shift = 0;

        /* Align d's top bit under n's (no clz: the R3000 has none). */
        while (!(d >> 63) && (d << 1) <= n) {
            d <<= 1;
            shift++;
        }
        for (; shift >= 0; shift--) {
            q <<= 1;
            if (n >= d) {
                n -= d;
                q |= 1;
            }
            d >>= 1;
        }
    }
    if (rem) {
        *rem = n;
    }
    return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
    return __udivmoddi4(n, d, 0);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
    uint64_t r;

    __udivmoddi4(n, d, &r);
    return r;
}

int64_t __divdi3(int64_t n, int64_t d)
{
    int neg = (n < 0) ^ (d < 0);
    uint64_t q = __udivdi3(n < 0 ? -(uint64_t)n : (uint64_t)n,
                           d < 0 ? -(uint64_t)d : (uint64_t)d);
    return neg ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
    uint64_t r = __umoddi3(n < 0 ? -(uint64_t)n : (uint64_t)n,
                           d < 0 ? -(uint64_t)d : (uint64_t)d);
    return n < 0 ? -(int64_t)r : (int64_t)r;
}
