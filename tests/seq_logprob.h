// The log-probability of a whole output under a translator, by one full forward: what beam
// search's incremental scores must add up to (tests/test_decode.c, test_lstm_train_beam.c).
#ifndef TESTS_SEQ_LOGPROB_H
#define TESTS_SEQ_LOGPROB_H
#include <math.h>
#include "core/arena.h"
#include "data/vocab.h"
#include "models/model.h"

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
#endif
