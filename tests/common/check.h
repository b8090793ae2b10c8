/* Minimal assertions for the project's C tests: count failures, keep going. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures __attribute__((unused));

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,          \
                    __LINE__, #cond);                                       \
            check_failures++;                                               \
        }                                                                   \
    } while (0)

#define CHECK_EQ(a, b)                                                      \
    do {                                                                    \
        unsigned long long va_ = (unsigned long long)(a);                   \
        unsigned long long vb_ = (unsigned long long)(b);                   \
        if (va_ != vb_) {                                                   \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == 0x%llx, "        \
                    "expected %s == 0x%llx\n", __FILE__, __LINE__, #a, va_, \
                    #b, vb_);                                               \
            check_failures++;                                               \
        }                                                                   \
    } while (0)

/* CHECK with what went wrong in words (printf arguments). */
#define CHECK_MSG(cond, ...)                                                \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__,          \
                    __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            check_failures++;                                               \
        }                                                                   \
    } while (0)

/* A named test case table and a main that runs one case or all of them. */
struct test_case {
    const char *name;
    void (*fn)(void);
};

/* Run the case named by argv[case_arg] (all cases if absent), each between
 * @setup and @teardown (either may be NULL). */
static inline int run_cases(const struct test_case *cases, int argc, char **argv,
                     int case_arg, void (*setup)(void), void (*teardown)(void))
{
    int ran = 0, failed = 0;
    const char *only = argc > case_arg ? argv[case_arg] : NULL;

    for (const struct test_case *c = cases; c->name; c++) {
        if (only && strcmp(only, c->name)) {
            continue;
        }
        int before = check_failures;
        if (setup) {
            setup();
        }
        c->fn();
        if (teardown) {
            teardown();
        }
        ran++;
        if (check_failures != before) {
            failed++;
            fprintf(stderr, "FAIL %s\n", c->name);
        } else {
            printf("ok   %s\n", c->name);
        }
    }
    if (ran == 0) {
        fprintf(stderr, "no test case named '%s'\n", only ? only : "");
        return 2;
    }
    return failed ? 1 : 0;
}

#endif
