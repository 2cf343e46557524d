// Split helpers, see dataset.h.
#include "data/dataset.h"
#include <stdlib.h>
#include <string.h>

void split_free(Split *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->ex[i].src);
        free(s->ex[i].tgt);
    }
    free(s->ex);
    s->ex = NULL;
    s->n = 0;
}

void split_max_lengths(const Split *s, int *max_src, int *max_tgt) {
    int ms = 0, mt = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->ex[i].n_src > ms) ms = s->ex[i].n_src;
        if (s->ex[i].n_tgt > mt) mt = s->ex[i].n_tgt;
    }
    if (max_src) *max_src = ms;
    if (max_tgt) *max_tgt = mt;
}

int ids_dup(const int *ids, int n, int **out) {
    *out = NULL;
    if (n <= 0) return 0;
    *out = malloc(sizeof(int) * (size_t)n);
    if (!*out) return -1;
    memcpy(*out, ids, sizeof(int) * (size_t)n);
    return 0;
}
