// Hashes every layer shares, each defined once here (header-only, so the loops that use them
// inline and vectorise):
//   splitmix64      the generator behind core/rng.h (weights, data generation, shuffles,
//                   dropout seeds): one 64-bit word of state
//   hash_uniform    stateless (seed, index) -> [0, 1): dropout masks, any thread order
//   fnv1a           strings: hash tables of tokens and symbols, plot colours by name
#ifndef UTIL_HASH_H
#define UTIL_HASH_H
#include <stddef.h>
#include <stdint.h>

#define SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull   // the state's step (2^64 / golden ratio)

// splitmix64's output function: a bijective 64-bit mix.
static inline uint64_t splitmix64_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Advances *state and returns the next 64 random bits.
static inline uint64_t splitmix64_next(uint64_t *state) {
    return splitmix64_mix(*state += SPLITMIX64_GAMMA);
}

// [0, 1) with 24-bit resolution from (seed, index) alone. The top 24 bits fit an int32
// exactly; converting from int32 (not uint64) lets the dropout loops vectorise.
static inline float hash_uniform(uint64_t seed, uint64_t index) {
    uint64_t h = splitmix64_mix(seed ^ splitmix64_mix(index + 0x632BE59BD9B4E019ull));
    return (float)(int32_t)(h >> 40) * (1.0f / 16777216.0f);
}

// 32-bit FNV-1a of the n bytes at s.
static inline uint32_t fnv1a(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}
#endif
