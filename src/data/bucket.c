// Length-bucketed batch order, see bucket.h.
#include "data/bucket.h"
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"

typedef struct { int len, pos, idx; } Keyed;

static int by_length(const void *a, const void *b) {
    const Keyed *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;   // stable: keep the random order
}

// Sorts perm[lo, hi) by length, chunk by chunk.
static void sort_chunks(int *perm, int lo, int hi, int chunk, const int *lengths, Keyed *tmp) {
    for (int c = lo; c < hi; c += chunk) {
        int e = c + chunk < hi ? c + chunk : hi;
        for (int i = c; i < e; i++) tmp[i - c] = (Keyed){lengths[perm[i]], i, perm[i]};
        qsort(tmp, (size_t)(e - c), sizeof(Keyed), by_length);
        for (int i = c; i < e; i++) perm[i] = tmp[i - c].idx;
    }
}

int bucket_order(int *perm, int n, const int *lengths, int B, int first, uint64_t seed) {
    if (B < 1 || n < 2) return 0;
    if (first < 0 || first > n) first = 0;
    int chunk = BUCKET_CHUNK * B < n ? BUCKET_CHUNK * B : n;
    Keyed *tmp = malloc(sizeof(Keyed) * (size_t)chunk);
    int n_full = (n - first) / B;
    int *order = malloc(sizeof(int) * (size_t)(n_full ? n_full : 1)),
        *copy = malloc(sizeof(int) * (size_t)n);
    if (!tmp || !order || !copy) { free(tmp); free(order); free(copy); return -1; }
    sort_chunks(perm, 0, first, chunk, lengths, tmp);
    sort_chunks(perm, first, n, chunk, lengths, tmp);
    // Shuffle the full batches between `first` and the final partial batch.
    for (int i = 0; i < n_full; i++) order[i] = i;
    Rng r = rng_keyed(seed, 0xB0C4E7ull);
    rng_shuffle(&r, order, n_full);
    memcpy(copy, perm, sizeof(int) * (size_t)n);
    for (int i = 0; i < n_full; i++)
        memcpy(perm + first + (long)i * B, copy + first + (long)order[i] * B,
               sizeof(int) * (size_t)B);
    free(tmp);
    free(order);
    free(copy);
    return 0;
}
