#include "core/rng.h"
#include <math.h>
#include "util/hash.h"

Rng rng_stream(uint64_t seed, uint64_t purpose) {
    Rng r = { splitmix64_mix(seed * SPLITMIX64_GAMMA + purpose) };
    return r;
}

uint64_t rng_next(Rng *r) { return splitmix64_next(&r->state); }

float rng_uniform(Rng *r) { return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f); }

float rng_normal(Rng *r) {
    double u1 = ((rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
    double u2 = (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
