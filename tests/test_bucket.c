// Length-bucketed sampling: every index once per epoch, batches of similar lengths (less
// padding than random batches), exact resume across epoch boundaries.
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/rng.h"
#include "data/sampler.h"

#define N 1003   // not a multiple of the batch: batches straddle epochs
#define B 16

// Padded tokens of a batch: B * longest - sum of lengths.
static long padding(const int *idx, const int *len) {
    int mx = 0;
    long sum = 0;
    for (int i = 0; i < B; i++) { mx = len[idx[i]] > mx ? len[idx[i]] : mx; sum += len[idx[i]]; }
    return (long)B * mx - sum;
}

static void test_buckets(void) {
    int *len = malloc(sizeof(int) * N);
    Rng r = rng_keyed(7, 1);
    for (int i = 0; i < N; i++) len[i] = 3 + (int)rng_below(&r, 40);
    Sampler plain, bucket;
    sampler_init(&plain, N, 42);
    sampler_init(&bucket, N, 42);
    sampler_set_buckets(&bucket, len, B);
    int steps = 3 * N / B, idx[B];
    long pad_plain = 0, pad_bucket = 0;
    int *seen = calloc(4 * N, sizeof(int)), *stream = malloc(sizeof(int) * (size_t)steps * B);
    for (int s = 0; s < steps; s++) {
        sampler_next(&plain, idx, B);
        pad_plain += padding(idx, len);
        sampler_next(&bucket, idx, B);
        pad_bucket += padding(idx, len);
        memcpy(stream + s * B, idx, sizeof idx);
    }
    printf("# padding over %d batches: random %ld, bucketed %ld tokens\n", steps, pad_plain, pad_bucket);
    CHECK(pad_bucket * 10 < pad_plain, "bucketing saves too little: %ld vs %ld", pad_bucket, pad_plain);
    // Each epoch (N consecutive indices of the stream) is a permutation.
    for (int e = 0; e < 2; e++) {
        memset(seen, 0, sizeof(int) * N);
        int dup = 0;
        for (int i = e * N; i < (e + 1) * N; i++) dup += seen[stream[i]]++ != 0;
        CHECK(dup == 0, "epoch %d repeats %d indices", e, dup);
    }
    // Resume at every few steps, crossing epoch boundaries: the same stream.
    for (int cut = 1; cut < steps; cut += 7) {
        Sampler a;
        sampler_init(&a, N, 42);
        sampler_set_buckets(&a, len, B);
        for (int s = 0; s < cut; s++) sampler_next(&a, idx, B);
        SamplerState st = sampler_state(&a);
        sampler_free(&a);
        Sampler b2;
        CHECK(sampler_restore(&b2, N, st) == 0, "restore");
        sampler_set_buckets(&b2, len, B);
        int same = 1;
        for (int s = cut; s < steps && same; s++) {
            sampler_next(&b2, idx, B);
            same = !memcmp(idx, stream + s * B, sizeof idx);
        }
        CHECK(same, "resume at step %d differs", cut);
        sampler_free(&b2);
    }
    free(len); free(seen); free(stream);
    sampler_free(&plain);
    sampler_free(&bucket);
}

int main(void) {
    RUN(test_buckets);
    return check_summary();
}
