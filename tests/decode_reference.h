// Incremental decoding against one full forward of the translator, for both model kinds
// (tests/test_decode.c, test_lstm_train_beam.c): the log-probability of a whole output, which
// beam search's scores must add up to, and the logits after a reorder of the decoding cache.
#ifndef TESTS_DECODE_REFERENCE_H
#define TESTS_DECODE_REFERENCE_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "models/model.h"
#include "models/decode.h"

// Sum over the len tokens of seq of log p(seq[i] | src, <bos> seq[0..i-1]); len <= 8. The
// forward's tensors are released from `arena` afterwards.
static double seq_logprob(Arena *arena, Model *m, const int *src, int Ts, const int *seq, int len) {
    int in[8], V = m->tgt_vocab;
    in[0] = TOK_BOS;
    for (int i = 1; i < len; i++) in[i] = seq[i - 1];
    ArenaMark mark = arena_mark(arena);
    Tensor *z = translator_logits(m, src, 1, Ts, in, len);
    double lp = 0;
    for (int i = 0; i < len; i++) {
        const float *row = z->data + (long)i * V;
        double mx = row[0], sum = 0;
        for (int v = 1; v < V; v++) mx = fmax(mx, row[v]);
        for (int v = 0; v < V; v++) sum += exp(row[v] - mx);
        lp += row[seq[i]] - mx - log(sum);
    }
    arena_release(arena, mark);
    return lp;
}

// Two rows decode <bos>, then 4 | 5; decode_reorder(parents) moves each row's cached prefix to
// the rows that continue it (beam search's parents: {1, 0} swaps, {1, 1} copies row 1 to both);
// then both take 6 | 7. Returns the largest difference between those logits and the full
// model's on the reordered prefixes. src2 holds the two rows' sources (Ts each), src one of them
// (the rows are one sentence). The logits are copied before the full forwards run.
static double reorder_gap(Arena *arena, Model *m, const int *src2, const int *src, int Ts,
                          const int parents[2]) {
    int V = m->tgt_vocab;
    model_set_training(m, 0);
    tape_set_enabled(0);
    DecodeState st;
    if (decode_init(&st, m, src2, 2, Ts, 4)) return INFINITY;
    int bos[2] = {TOK_BOS, TOK_BOS}, first[2] = {4, 5}, next[2] = {6, 7};
    decode_step(&st, bos);
    decode_step(&st, first);
    decode_reorder(&st, parents);
    float *rows = malloc(sizeof *rows * 2 * (size_t)V);
    if (!rows) { decode_free(&st); return INFINITY; }
    memcpy(rows, decode_step(&st, next)->data, sizeof *rows * 2 * (size_t)V);   // (2,V)
    double worst = 0;
    for (int n = 0; n < 2; n++) {
        int prefix[3] = {TOK_BOS, first[parents[n]], next[n]};
        ArenaMark mark = arena_mark(arena);
        Tensor *full = translator_logits(m, src, 1, Ts, prefix, 3);   // (3,V)
        for (int v = 0; v < V; v++) worst = fmax(worst, fabs(rows[(long)n * V + v] - full->data[2L * V + v]));
        arena_release(arena, mark);
    }
    free(rows);
    decode_free(&st);
    return worst;
}
#endif
