#include "core/rng.h"
#include <math.h>

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Rng rng_stream(uint64_t seed, uint64_t purpose) {
    Rng r = { mix64(seed * 0x9e3779b97f4a7c15ULL + purpose) };
    return r;
}

uint64_t rng_next(Rng *r) {
    r->state += 0x9e3779b97f4a7c15ULL;
    return mix64(r->state);
}

float rng_uniform(Rng *r) { return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f); }

float rng_normal(Rng *r) {
    double u1 = ((rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
    double u2 = (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

float hash_uniform(uint64_t seed, uint64_t index) {
    return (float)(mix64(seed ^ mix64(index + 0x632be59bd9b4e019ULL)) >> 40) * (1.0f / 16777216.0f);
}
