// Micro-batches (train.micro_batches = K): a step's batch split into K runs of consecutive
// rows with about as many tokens each, each forwarded and backpropagated on its own copy of
// the model (shared values, its own gradients), tape and arena, and the gradients summed in
// order into the model's. The micro-batches run at once, one a thread, when the step has the
// threads; one after the other otherwise. The loss is still the batch's mean over its scored
// targets: micro-batch i's mean weighted by its share of them.
//
// Why: a small model's ops are too small to split well over two cores (the toy translator on
// two threads is barely faster than on one, docs/performance.md); two half-batches keep both
// cores busy with no fork or join inside the step. Every op of a micro-batch runs on one
// thread, so a run's log.csv is the same on any number of threads; it differs from K = 1's
// only in the rounding of the sums over the batch.
#ifndef MICRO_BATCHES_H
#define MICRO_BATCHES_H
#include "core/arena.h"
#include "core/tape.h"
#include "data/batch.h"
#include "models/model.h"

typedef struct MicroBatches {
    int k;
    Model *copies;   // [k-1]: micro-batch i >= 1 runs on copies[i-1]; micro-batch 0 on the model
    Arena *arenas;   // [k-1]: theirs (micro-batch 0 uses the step's arena)
    Tape *tapes;     // [k]
} MicroBatches;

// k copies' worth of gradients, arenas and tapes for m's steps; k = 1 allocates nothing.
// 0, or -1 with a message.
int  micro_batches_init(MicroBatches *mb, const Model *m, int k, char *err, int errlen);
void micro_batches_free(MicroBatches *mb);
// The step's forward and backward on micro-batches: m's gradients (zeroed by the caller) get
// the batch's, summed over the micro-batches in order. Returns the batch's mean loss; correct
// (or NULL) the targets the argmax got right. min(k, B) micro-batches (micro_batches_split).
float micro_batches_backward(const MicroBatches *mb, Model *m, const Batch *b, float smoothing,
                             long *correct);
// The rows of k micro-batches of b (1 <= k <= b->B): micro-batch i is rows bounds[i] ..
// bounds[i + 1] - 1 (bounds[0] = 0, bounds[k] = B), each at least one row, each boundary the
// one whose running count of tokens (non-pad source and target-input tokens) is nearest i/k
// of the batch's: the threads wait for the slowest micro-batch, and its time goes with its
// tokens. A pure function of the batch, so a run's log.csv stays the same on any thread count.
void micro_batches_split(const Batch *b, int k, int *bounds);
#endif
