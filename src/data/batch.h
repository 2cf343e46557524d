// Padded batches (row-major [B, T], <pad> = 0), docs/design.md §5.2.
//
//   BATCH_TRANSLATE  src     = tokens + <eos>                 [B, T_src]
//                    tgt_in  = <bos> + tokens                 [B, T_tgt]
//                    tgt_out = tokens + <eos>                 [B, T_tgt]
//                    n_tgt_tokens = non-pad entries of tgt_out (the loss's token count)
//   BATCH_TRANSLATE_NO_EOS  the same without the end token on the target side (train.eos =
//                    false, "-EOS"): src = tokens + <eos>; tgt_in = <bos> + tokens[0..n-2];
//                    tgt_out = tokens: the last position learns the last token, and no
//                    position ever learns <eos>. T_tgt = longest target (at least 1).
//   BATCH_PROMPT     a decoder-only model reads start, source, separator, target as one
//                    sequence <eos> x_1..x_n <bos> y_1..y_m <eos> (<eos> starts it, as the end
//                    of whatever came before; <bos> is the separator) and is scored on the
//                    target part only (docs/design.md §5.8):
//                    tgt_in  = <eos> x_1..x_n <bos> y_1..y_m      [B, T_tgt], T_tgt = max n+m+2
//                    tgt_out = <pad>*(n+1)    y_1..y_m <eos>      (<pad>: not scored)
//                    src = NULL, T_src = 0; n_tgt_tokens = sum of m + 1
//   BATCH_CLASSIFY   src     = (<cls> when add_cls) + tokens  [B, T_src]
//                    labels[b]; tgt_in = tgt_out = NULL, T_tgt = 0; n_tgt_tokens = B
//   batch_lm         decoder-only language model windows of a token stream, in the target
//                    fields: tgt_in = stream[s .. s+T-1], tgt_out = stream[s+1 .. s+T] [B, T];
//                    src = labels = NULL, T_src = 0; n_tgt_tokens = B*T
// T is the longest row in the batch (at least 1), not a fixed maximum. A batch owns its arrays.
#ifndef BATCH_H
#define BATCH_H
#include "data/dataset.h"

typedef enum { BATCH_TRANSLATE, BATCH_TRANSLATE_NO_EOS, BATCH_CLASSIFY, BATCH_PROMPT } BatchKind;

typedef struct {
    int B, T_src, T_tgt;
    int *src;        // [B, T_src] or NULL
    int *tgt_in;     // [B, T_tgt] or NULL
    int *tgt_out;    // [B, T_tgt] or NULL
    int *labels;     // [B] (classifier) or NULL
    int n_tgt_tokens;
} Batch;

// Batch of split->ex[indices[0..B-1]]. -1 (batch left empty) if an index is out of range,
// B < 1, or memory runs out.
int  batch_from_split(const Split *split, const int *indices, int B, BatchKind kind, int add_cls,
                      Batch *batch);
// Language-model windows starting at starts[0..B-1]; each needs 0 <= s and s + T < n.
int  batch_lm(const int *stream, int n, const int *starts, int B, int T, Batch *batch);
void batch_free(Batch *batch);
#endif
