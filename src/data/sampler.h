// Seeded epoch sampler: yields batches of example indices, each epoch a fresh permutation.
//
// The permutation of epoch e is a pure function of (seed, e), so the whole state is three
// integers (SamplerState) and training resumes exactly: save the state with the checkpoint,
// sampler_restore it, and the next batches are the ones the original run would have drawn.
// Batches straddle epoch boundaries (the tail of epoch e and the head of epoch e+1 form one
// full batch), so every index appears exactly once per epoch and every batch has B indices.
#ifndef SAMPLER_H
#define SAMPLER_H
#include <stdint.h>

typedef struct {
    uint64_t seed;
    int64_t epoch;      // epochs completed
    int64_t pos;        // indices already taken from the current epoch's permutation
} SamplerState;

typedef struct {
    int n;              // dataset size
    SamplerState st;
    int *perm;          // permutation of epoch st.epoch
    const int *lengths; // when set: length-bucketed batches of `batch` (see bucket.h); not owned
    int batch;
} Sampler;

// Sampler over indices 0..n-1 (n >= 1). -1 on bad n or out of memory.
int  sampler_init(Sampler *s, int n, uint64_t seed);
// Fills out[0..B-1] with the next B indices (B >= 1; B > n repeats indices across epochs).
void sampler_next(Sampler *s, int *out, int B);
SamplerState sampler_state(const Sampler *s);
// From now on, order each epoch so that batches of `batch` indices hold similar lengths
// (lengths[i] of example i, kept by the caller). Call after sampler_init / sampler_restore;
// the order stays a pure function of (seed, epoch), so resuming is exact.
void sampler_set_buckets(Sampler *s, const int *lengths, int batch);
// Sampler over n indices continuing from a saved state. -1 on bad n/state or out of memory.
int  sampler_restore(Sampler *s, int n, SamplerState st);
void sampler_free(Sampler *s);
#endif
