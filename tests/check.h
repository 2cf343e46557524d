// Tiny test harness. Each tests/test_*.c is one program:
//
//   static void test_something(void) { CHECK(x == 1, "x is %d", x); CHECK_NEAR(a, b, 1e-5); }
//   int main(void) { RUN(test_something); return check_summary(); }
//
// It prints `ok NAME`, `FAIL NAME: file:line: message` or `skip NAME: reason` per test;
// tests/run.sh counts them.
// A failed CHECK marks the test failed and keeps going, so one run shows every mismatch.
#ifndef CHECK_H
#define CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_test_failed, check_test_skipped, check_n_passed, check_n_failed;
static const char *check_test_name = "";

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            if (!check_test_failed) printf("FAIL %s: ", check_test_name);        \
            else printf("     %s: ", check_test_name);                           \
            printf("%s:%d: ", __FILE__, __LINE__);                               \
            printf(__VA_ARGS__);                                                 \
            printf("\n");                                                        \
            fflush(stdout);                                                      \
            check_test_failed = 1;                                               \
        }                                                                        \
    } while (0)

// |a - b| <= tol, and neither is NaN.
#define CHECK_NEAR(a, b, tol)                                                    \
    do {                                                                         \
        double check_a_ = (a), check_b_ = (b);                                   \
        CHECK(fabs(check_a_ - check_b_) <= (tol), "%s = %.9g, expected %s = %.9g (tol %g)", \
              #a, check_a_, #b, check_b_, (double)(tol));                        \
    } while (0)

static inline void check_run(const char *name, void (*fn)(void)) {
    check_test_name = name;
    check_test_failed = 0;
    check_test_skipped = 0;
    fn();
    if (check_test_failed) check_n_failed++;
    else if (check_test_skipped) {}   // printed its own `skip` line
    else { check_n_passed++; printf("ok %s\n", name); }
    fflush(stdout);
}
#define RUN(fn) check_run(#fn, fn)

// SKIP(reason...): inside a test, when its premise is missing (no data, one core, a busy
// machine). Prints `skip NAME: reason`, which tests/run.sh counts apart from passes, and
// returns from the test function.
#define SKIP(...)                                                                \
    do {                                                                         \
        printf("skip %s: ", check_test_name);                                    \
        printf(__VA_ARGS__);                                                     \
        printf("\n");                                                            \
        fflush(stdout);                                                          \
        check_test_skipped = 1;                                                  \
        return;                                                                  \
    } while (0)

static inline int check_summary(void) { return check_n_failed ? 1 : 0; }
#endif
