/* The firmware's 64-bit division helpers, checked against the host's. */
#include <stdint.h>
#include "../common/check.h"

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void t_udivmod_matches_host(void)
{
    uint64_t s = 88172645463325252ull;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t n = next(&s) >> (next(&s) % 64);
        uint64_t d = next(&s) >> (next(&s) % 64);
        if (d == 0) {
            continue;
        }
        uint64_t r, q = __udivmoddi4(n, d, &r);
        if (q != n / d || r != n % d) {
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    uint64_t r;
    CHECK_EQ(__udivmoddi4(UINT64_MAX, 1, &r), UINT64_MAX);
    CHECK_EQ(__udivmoddi4(5, UINT64_MAX, &r), 0);
    CHECK_EQ(r, 5);
}

static const struct test_case cases[] = {
    { "udivmod_matches_host", t_udivmod_matches_host },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, NULL, NULL);
}
