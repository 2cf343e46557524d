// Epoch sampler, see sampler.h.
#include "data/sampler.h"
#include "data/bucket.h"
#include "core/rng.h"
#include <stdlib.h>
#include <string.h>

static void make_perm(Sampler *s) {
    for (int i = 0; i < s->n; i++) s->perm[i] = i;
    Rng r = rng_keyed(s->st.seed, 0xE90C0000ull + (uint64_t)s->st.epoch);
    rng_shuffle(&r, s->perm, s->n);
    if (s->lengths) {   // batch boundaries: every B indices counted from the very first epoch
        int first = (int)((s->batch - (s->st.epoch * (int64_t)s->n) % s->batch) % s->batch);
        bucket_order(s->perm, s->n, s->lengths, s->batch, first,
                     s->st.seed ^ (uint64_t)s->st.epoch);
    }
}

void sampler_set_buckets(Sampler *s, const int *lengths, int batch) {
    s->lengths = lengths;
    s->batch = batch > 0 ? batch : 1;
    make_perm(s);
}

int sampler_restore(Sampler *s, int n, SamplerState st) {
    memset(s, 0, sizeof *s);
    if (n < 1 || st.epoch < 0 || st.pos < 0 || st.pos > n) return -1;
    s->perm = malloc(sizeof(int) * (size_t)n);
    if (!s->perm) return -1;
    s->n = n;
    s->st = st;
    make_perm(s);
    return 0;
}

int sampler_init(Sampler *s, int n, uint64_t seed) {
    SamplerState st = { seed, 0, 0 };
    return sampler_restore(s, n, st);
}

void sampler_next(Sampler *s, int *out, int B) {
    for (int i = 0; i < B; i++) {
        if (s->st.pos == s->n) {            // epoch done: next permutation
            s->st.epoch++;
            s->st.pos = 0;
            make_perm(s);
        }
        out[i] = s->perm[s->st.pos++];
    }
}

SamplerState sampler_state(const Sampler *s) { return s->st; }

void sampler_free(Sampler *s) {
    free(s->perm);
    memset(s, 0, sizeof *s);
}
