#include "core/rng.h"
#include <math.h>
#include "util/hash.h"

Rng rng_stream(uint64_t seed, uint64_t purpose) {
    Rng r = { splitmix64_mix(seed * SPLITMIX64_GAMMA + purpose) };
    return r;
}

Rng rng_keyed(uint64_t seed, uint64_t key) {
    Rng r = { splitmix64_mix(seed + splitmix64_mix(key + 0x5851F42D4C957F2Dull)) };
    return r;
}

uint64_t rng_next(Rng *r) { return splitmix64_next(&r->state); }

float rng_uniform(Rng *r) { return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f); }

float rng_normal(Rng *r) {
    double u1 = ((rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
    double u2 = (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

uint64_t rng_below(Rng *r, uint64_t n) {
    uint64_t threshold = (0 - n) % n;   // 2^64 mod n
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold) return x % n;
    }
}

int rng_chance(Rng *r, int num, int den) { return (int)rng_below(r, (uint64_t)den) < num; }

void rng_shuffle(Rng *r, int *a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint64_t)i + 1);
        int t = a[i]; a[i] = a[j]; a[j] = t;
    }
}
