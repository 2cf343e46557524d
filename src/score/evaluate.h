// Losses and metrics of a model on whole splits (dropout off, no tape); the loss of one
// batch is models/loss.h's.
#ifndef EVALUATE_H
#define EVALUATE_H
#include "data/batch.h"
#include "models/model.h"
#include "score/diagnose.h"
#include "data/task.h"

typedef struct EvalResult {
    double loss;          // mean over all non-pad target tokens (token-weighted)
    double token_acc;     // classifier: accuracy over sentences
    double exact_match;   // translator: greedy output (models/decode.h)
                          // equals the reference (-1 when not computed)
    double pair_acc;      // classifier: both twins right (of twin_pairs pairs)
    double max_twin_diff; // classifier: largest |logit difference| between a sentence and its twin
    double loss_last;     // lm: loss on the last 32 tokens of each window
    long   n_tokens;
    int    n_examples;
    int    twin_pairs;    // classifier: pairs of twins scored (0: no pair_acc, max_twin_diff)
} EvalResult;

// Classifier or translator on a split; examples whose n_clauses differ from `length` are
// skipped unless length <= 0. decode: run greedy decoding for exact_match (translator), to the
// model's <eos>, or to the reference length with eval.length = oracle or train.eos = false.
int  evaluate_split(Model *m, const Task *t, const Split *s, int length, int decode, EvalResult *r,
                    char *err, int errlen);
// evaluate_split, and with diag (and decode) the per-position counts of score/diagnose.h added
// into *diag (the caller initialises and frees it).
int  evaluate_diagnose(Model *m, const Task *t, const Split *s, int length, int decode,
                       Diagnosis *diag, EvalResult *r, char *err, int errlen);
// Language model on non-overlapping windows of T tokens from a stream.
int  evaluate_lm(Model *m, const int *stream, int n, int T, int max_windows, EvalResult *r,
                 char *err, int errlen);
#endif
