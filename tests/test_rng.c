// core/rng.h, the one random-number type: its streams pinned to the numbers they drew before
// the data layer's stream type was folded into it (runs and generated data sets stay as they
// were), and the integer draws and the shuffle unbiased.
#include <stdint.h>
#include "check.h"
#include "core/rng.h"

// First draws of a run stream, of a keyed stream, and of a keyed stream under a run stream
// (the randomized positions' draw 3), as the two former types gave them.
static void test_streams_pinned(void) {
    Rng a = rng_stream(1, RNG_INIT), b = rng_keyed(7, 1);
    Rng c = rng_keyed(rng_stream(1, RNG_POSITIONS).state, 3);
    CHECK(rng_next(&a) == 6791897765849424158ull, "rng_stream(1, RNG_INIT)");
    CHECK(rng_next(&b) == 16185887988742656715ull, "rng_keyed(7, 1)");
    CHECK(rng_next(&c) == 16077608399317927138ull, "rng_keyed(positions stream, 3)");
    CHECK(rng_next(&a) == 17405687883870564846ull, "rng_stream(1, RNG_INIT), second draw");
    CHECK(rng_below(&b, 1000) == 534 && rng_below(&c, 1000) == 840, "rng_below(1000)");
    int x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, want[8] = {5, 7, 3, 4, 2, 6, 0, 1};
    rng_shuffle(&b, x, 8);
    for (int i = 0; i < 8; i++) CHECK(x[i] == want[i], "shuffle[%d] = %d, want %d", i, x[i], want[i]);
    CHECK(rng_chance(&b, 1, 3) == 0, "rng_chance after the shuffle");
}

// rng_below(6): every value in range, each about 1/6 of the time (5 standard deviations);
// rng_chance(1, 3) about 1/3.
static void test_below_and_chance(void) {
    Rng r = rng_keyed(3, 9);
    int count[6] = {0}, n = 60000, hits = 0;
    for (int i = 0; i < n; i++) {
        uint64_t v = rng_below(&r, 6);
        CHECK(v < 6, "rng_below(6) = %llu", (unsigned long long)v);
        if (v < 6) count[v]++;
        hits += rng_chance(&r, 1, 3);
    }
    for (int v = 0; v < 6; v++) CHECK(abs(count[v] - n / 6) < 460, "value %d drawn %d times", v, count[v]);
    CHECK(abs(hits - n / 3) < 580, "chance 1/3: %d of %d", hits, n);
}

// Fisher-Yates: a permutation, and each element ends at each place about 1/4 of the time,
// its own place included (a shuffle that always moves every element fails here).
static void test_shuffle_uniform(void) {
    Rng r = rng_keyed(5, 2);
    int at[4][4] = {{0}}, n = 48000;
    for (int k = 0; k < n; k++) {
        int a[4] = {0, 1, 2, 3}, seen = 0;
        rng_shuffle(&r, a, 4);
        for (int i = 0; i < 4; i++) { at[a[i]][i]++; seen |= 1 << a[i]; }
        CHECK(seen == 15, "not a permutation");
    }
    for (int e = 0; e < 4; e++)
        for (int i = 0; i < 4; i++)
            CHECK(abs(at[e][i] - n / 4) < 480, "element %d at place %d %d times", e, i, at[e][i]);
}

int main(void) {
    RUN(test_streams_pinned);
    RUN(test_below_and_chance);
    RUN(test_shuffle_uniform);
    return check_summary();
}
