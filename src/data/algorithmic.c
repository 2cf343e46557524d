// The `algorithmic` task: see algorithmic.h for the contract, docs/design.md §5.8 for its use.
#include "data/algorithmic.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"

static const char *NAMES[] = {ALGORITHM_WORDS};
#define N_ALGOS (int)(sizeof NAMES / sizeof NAMES[0])

int algo_parse(const char *name) {
    for (int i = 0; i < N_ALGOS; i++)
        if (!strcmp(name, NAMES[i])) return i;
    return -1;
}

int algo_output_length(int algo, int n) {
    if (algo < 0 || algo >= N_ALGOS) return -1;
    return algo == ALGO_DUPLICATE ? 2 * n : n;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int algo_apply(int algo, const int *in, int n, int *out) {
    switch (algo) {
    case ALGO_COPY:
        memcpy(out, in, sizeof(int) * (size_t)n);
        return 0;
    case ALGO_REVERSE:
        for (int i = 0; i < n; i++) out[i] = in[n - 1 - i];
        return 0;
    case ALGO_DUPLICATE:
        memcpy(out, in, sizeof(int) * (size_t)n);
        memcpy(out + n, in, sizeof(int) * (size_t)n);
        return 0;
    case ALGO_SORT:
        memcpy(out, in, sizeof(int) * (size_t)n);
        qsort(out, (size_t)n, sizeof(int), cmp_int);
        return 0;
    }
    return -1;
}

int algo_build_vocab(int alphabet, Vocab *v) {
    if (alphabet < 1 || alphabet > ALGO_MAX_ALPHABET || vocab_init(v, 0)) return -1;
    char name[16];
    for (int s = 0; s < alphabet; s++) {
        snprintf(name, sizeof name, "%d", s);
        if (vocab_add(v, name) != ALGO_SYMBOL_ID(s)) { vocab_free(v); return -1; }
    }
    return 0;
}

int algo_generate(int algo, int alphabet, uint64_t seed, int n, int min_len, int max_len,
                  Split *out) {
    memset(out, 0, sizeof *out);
    if (algo_output_length(algo, 1) < 0 || alphabet < 1 || alphabet > ALGO_MAX_ALPHABET || n < 0 ||
        min_len < 1 || max_len < min_len || max_len > ALGO_MAX_LENGTH)
        return -1;
    out->ex = calloc((size_t)(n ? n : 1), sizeof(Example));
    if (!out->ex) return -1;
    out->n = n;
    Rng r = rng_keyed(seed, 0xA160);
    for (int i = 0; i < n; i++) {
        Example *e = &out->ex[i];
        int len = min_len + (int)rng_below(&r, (uint64_t)(max_len - min_len + 1));
        e->n_src = len;
        e->n_tgt = algo_output_length(algo, len);
        e->src = malloc(sizeof(int) * (size_t)e->n_src);
        e->tgt = malloc(sizeof(int) * (size_t)e->n_tgt);
        e->label = e->twin = -1;
        e->n_clauses = len;
        if (!e->src || !e->tgt) { split_free(out); return -1; }
        for (int j = 0; j < len; j++)
            e->src[j] = ALGO_SYMBOL_ID((int)rng_below(&r, (uint64_t)alphabet));
        algo_apply(algo, e->src, len, e->tgt);
    }
    return 0;
}
