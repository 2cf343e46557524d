// Seeded random numbers. One stream per purpose (weights, data order, dropout), derived from
// the run seed, so that turning dropout on does not change the initial weights.
#ifndef RNG_H
#define RNG_H
#include <stdint.h>

// RNG_SAMPLE: ./generate; RNG_POSITIONS: randomized positions (models/model.h
// model_seed_positions)
enum { RNG_INIT = 1, RNG_DATA = 2, RNG_DROPOUT = 3, RNG_SAMPLE = 4, RNG_POSITIONS = 5 };

typedef struct { uint64_t state; } Rng;

Rng      rng_stream(uint64_t seed, uint64_t purpose);
uint64_t rng_next(Rng *r);                   // 64 random bits (splitmix64)
float    rng_uniform(Rng *r);                // [0, 1), 24-bit resolution
float    rng_normal(Rng *r);                 // N(0, 1), Box-Muller
// Dropout draws its masks from util/hash.h's hash_uniform(seed, index), a stateless hash, so
// a mask comes out the same in any thread order; the forward stores it for the backward.
#endif
