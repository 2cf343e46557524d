// Seeded random numbers: splitmix64 (util/hash.h), one 64-bit word of state, so a stream is
// fully described by an integer and anything drawn from it is reproducible from its seed alone.
// One stream per purpose (weights, data order, dropout), derived from the run seed, so that
// turning dropout on does not change the initial weights; the data layer (generators,
// shuffles, the epoch sampler) and randomized positions key their own streams (rng_keyed).
#ifndef RNG_H
#define RNG_H
#include <stdint.h>

// RNG_SAMPLE: ./generate; RNG_POSITIONS: randomized positions (models/model.h
// model_seed_positions)
enum { RNG_INIT = 1, RNG_DATA = 2, RNG_DROPOUT = 3, RNG_SAMPLE = 4, RNG_POSITIONS = 5 };

typedef struct { uint64_t state; } Rng;

// The two ways to start a stream differ only in how they mix the pair into the state:
// rng_stream for the run's purposes above, rng_keyed for a stream the data layer or the
// position draws name by a key of their own; different pairs give unrelated sequences.
Rng      rng_stream(uint64_t seed, uint64_t purpose);
Rng      rng_keyed(uint64_t seed, uint64_t key);
uint64_t rng_next(Rng *r);                   // 64 random bits (splitmix64)
float    rng_uniform(Rng *r);                // [0, 1), 24-bit resolution
float    rng_normal(Rng *r);                 // N(0, 1), Box-Muller
// Uniform integer in [0, n), n > 0, without modulo bias (rejects the short top range).
uint64_t rng_below(Rng *r, uint64_t n);
int      rng_chance(Rng *r, int num, int den);   // true with probability num/den
void     rng_shuffle(Rng *r, int *a, int n);     // Fisher-Yates, in place
// Dropout draws its masks from util/hash.h's hash_uniform(seed, index), a stateless hash, so
// a mask comes out the same in any thread order; the forward stores it for the backward.
#endif
