/*
 * The collectives' check words (host-shim/src/coll.h, coll_check and
 * coll_small_check; docs/collectives.md "Small messages"): a reader takes
 * a message only when its check matches the payload it read, so any
 * payload a late or duplicated packet of an earlier epoch left beside
 * this epoch's check must not match. A small message keeps only 32 bits
 * of payload check: every bit of its word must reach them. Before the
 * check was finished, bits 61-63 did not, and under duplicating and
 * reordering links a float 2.0 became 0.0 (a 4-byte message of the epoch
 * four before, its upper half zero, taken as this epoch's 8 bytes).
 * And the firmware combine's release check (dn1_comb_check), which does
 * the same for the result a member reads from its LLCM.
 */
#include <string.h>
#include "../common/check.h"
#include "../../host-shim/src/coll.h"
#include "dimmnet1/barrier.h"

/* A fixed sequence (splitmix64): the test is the same every run. */
static uint64_t rnd_state = 0x5eed;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t stamp(void)
{
    return coll_stamp((uint32_t)rnd(), (uint32_t)rnd(), (unsigned)rnd() & 0xff, 0);
}

/* A small message's check word as its writer makes it. */
static uint64_t small(uint64_t s, uint64_t word, size_t bytes)
{
    return coll_small_check(s, coll_small_tag(s), word, bytes);
}

/* Every bit of a small message's word reaches the 32 bits its check keeps. */
static void t_small_every_bit(void)
{
    unsigned missed = 0;
    for (int k = 0; k < 2000; k++) {
        uint64_t s = stamp(), w = rnd(), c = small(s, w, 8);
        for (unsigned b = 0; b < 64; b++) {
            missed += small(s, w ^ (1ull << b), 8) == c;
        }
    }
    CHECK_MSG(missed == 0, "%u single-bit changes of a word kept its check", missed);
}

/* The case seen: the epoch four before sent 22.0f alone (4 bytes); this
 * one sends 22.0f, 2.0f. The old word, read with the new check, fails. */
static void t_small_float_case(void)
{
    const uint64_t now = 0x4000000041b00000ull, old = 0x0000000041b00000ull;
    for (uint32_t e = 2600; e < 2700; e++) {
        uint64_t s = coll_stamp(0x9af2490u, e, 0, 0);
        uint64_t c = small(s, now, 8);
        CHECK(small(s, old, 8) != c);
        CHECK(small(coll_stamp(0x9af2490u, e - 4, 0, 0), old, 4) != c);
    }
}

/* The tag (upper half) names the stamp: another epoch, cell or
 * incarnation is never taken for this one's. */
static void t_tag_names_stamp(void)
{
    unsigned same = 0;
    for (uint32_t e = 0; e < 4096; e++) {
        uint64_t t = small(coll_stamp(7, e, 3, 0), 0, 0) >> 32;
        same += (small(coll_stamp(7, e + 4, 3, 0), 0, 0) >> 32) == t;
        same += (small(coll_stamp(7, e, 4, 0), 0, 0) >> 32) == t;
        same += (small(coll_stamp(8, e, 3, 0), 0, 0) >> 32) == t;
    }
    CHECK_MSG(same == 0, "%u other stamps had the same tag", same);
}

/* A frame's check: every bit of every payload word, and the length's
 * zero padding read as bytes, change it. */
static void t_frame_every_bit(void)
{
    uint8_t p[24];
    unsigned missed = 0;
    for (int k = 0; k < 300; k++) {
        uint64_t s = stamp();
        for (unsigned i = 0; i < sizeof(p); i++) {
            p[i] = (uint8_t)rnd();
        }
        uint64_t c = coll_check(s, p, sizeof(p));
        for (unsigned b = 0; b < 8 * sizeof(p); b++) {
            p[b / 8] ^= (uint8_t)(1u << (b % 8));
            missed += coll_check(s, p, sizeof(p)) == c;
            p[b / 8] ^= (uint8_t)(1u << (b % 8));
        }
    }
    CHECK_MSG(missed == 0, "%u single-bit changes of a frame kept its check", missed);
}

/* The firmware combine's release check (contract 1.32): any change of
 * one of the result's words changes it (each step a bijection), so a late
 * duplicate's value beside this epoch's word and check is never taken. */
static void t_release_check(void)
{
    unsigned missed = 0;
    for (int k = 0; k < 2000; k++) {
        uint32_t e = (uint32_t)rnd(), lo = (uint32_t)rnd(), hi = (uint32_t)rnd();
        uint32_t c = dn1_comb_check(e, lo, hi);
        for (unsigned b = 0; b < 32; b++) {
            missed += dn1_comb_check(e, lo ^ (1u << b), hi) == c;
            missed += dn1_comb_check(e, lo, hi ^ (1u << b)) == c;
        }
        /* the older release's value (another result) under this epoch */
        missed += dn1_comb_check(e, lo + 1, hi) == c;
        missed += dn1_comb_check(e, lo, hi - 1) == c;
    }
    CHECK_MSG(missed == 0, "%u changed results kept the release's check", missed);
}

static const struct test_case cases[] = {
    { "release_check", t_release_check },
    { "small_every_bit", t_small_every_bit },
    { "small_float_case", t_small_float_case },
    { "tag_names_stamp", t_tag_names_stamp },
    { "frame_every_bit", t_frame_every_bit },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, NULL, NULL);
}
