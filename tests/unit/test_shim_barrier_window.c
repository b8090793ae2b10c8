/*
 * The barriers' epoch window (host-shim/src/barrier.h, bar_epoch_reached;
 * docs/barriers.md "Across jobs"): a wait counts a word only with an epoch
 * of its object's incarnation that has reached the one waited for. The
 * host resets no word the NIC writes (issue 38: on a DIMM slot a host
 * store or compare-and-swap is not atomic against the NIC's writes), so
 * whatever an older object, a dead job or a late packet left in a word,
 * of any incarnation, must never count: every incarnation, including the
 * last (whose window ends at 2^32), against words of every other.
 */
#include "../common/check.h"
#include "../../host-shim/src/barrier.h"

static struct dn_barrier b;

static int reached(uint32_t inc, uint32_t word, uint32_t epoch)
{
    b.inc = inc;
    return bar_epoch_reached(&b, (uint64_t)0xdead << 32 | word, epoch);
}

static void t_own_window(void)
{
    for (uint32_t inc = 1; inc <= 0xfffu; inc += 0x3fbu) {
        uint32_t base = inc << BAR_EPOCH_SHIFT;
        CHECK(!reached(inc, base, base + 1));              /* the first epoch not yet */
        CHECK(reached(inc, base + 1, base + 1));
        CHECK(reached(inc, base + 7, base + 5));           /* later epochs reach it */
        CHECK(!reached(inc, base + 4, base + 5));
        CHECK(reached(inc, base + (1u << BAR_EPOCH_SHIFT) - 1, base + 1));
    }
}

static void t_other_incarnations_never(void)
{
    static const uint32_t incs[] = { 1, 2, 0x7ff, 0x800, 0x801, 0xffe, 0xfff };
    for (unsigned i = 0; i < sizeof(incs) / sizeof(incs[0]); i++) {
        for (unsigned j = 0; j < sizeof(incs) / sizeof(incs[0]); j++) {
            if (i == j) {
                continue;
            }
            uint32_t mine = incs[i], other = incs[j] << BAR_EPOCH_SHIFT;
            uint32_t base = mine << BAR_EPOCH_SHIFT;
            /* Its first, a middle and its last epoch: none reaches any of
             * mine (the old code took a word 2048 incarnations back as
             * newer unless reset first). */
            uint32_t words[] = { other, other + 1, other + 12345,
                                 other + (1u << BAR_EPOCH_SHIFT) - 1 };
            for (unsigned w = 0; w < 4; w++) {
                CHECK_MSG(!reached(mine, words[w], base + 1) &&
                          !reached(mine, words[w], base + 100),
                          "incarnation %#x took word %#x of incarnation %#x", mine, words[w],
                          incs[j]);
            }
        }
    }
    CHECK(!reached(5, 0, (5u << BAR_EPOCH_SHIFT) + 1));    /* a word never written */
}

static const struct test_case cases[] = {
    { "own_window", t_own_window },
    { "other_incarnations_never", t_other_incarnations_never },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, NULL, NULL);
}
