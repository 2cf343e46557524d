// Small self-contained random numbers for the data layer (generators, shuffles, the epoch
// sampler). splitmix64 (util/hash.h): one 64-bit word of state, so a stream is fully described
// by an integer and any generated data set is reproducible from its seed alone.
#ifndef DATA_RNG_H
#define DATA_RNG_H
#include <stdint.h>
#include "util/hash.h"

typedef struct { uint64_t s; } DRng;

// Seed a stream; different (seed, stream) pairs give unrelated sequences.
static inline DRng drng_seed(uint64_t seed, uint64_t stream) {
    DRng r = { splitmix64_mix(seed + splitmix64_mix(stream + 0x5851F42D4C957F2Dull)) };
    return r;
}

static inline uint64_t drng_next(DRng *r) { return splitmix64_next(&r->s); }

// Uniform integer in [0, n), n > 0, without modulo bias (rejects the short top range).
static inline uint64_t drng_below(DRng *r, uint64_t n) {
    uint64_t threshold = (0 - n) % n;   // 2^64 mod n
    for (;;) {
        uint64_t x = drng_next(r);
        if (x >= threshold) return x % n;
    }
}

// True with probability num/den.
static inline int drng_chance(DRng *r, int num, int den) {
    return (int)drng_below(r, (uint64_t)den) < num;
}

// Fisher-Yates shuffle of an int array.
static inline void drng_shuffle(DRng *r, int *a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)drng_below(r, (uint64_t)i + 1);
        int t = a[i]; a[i] = a[j]; a[j] = t;
    }
}
#endif
