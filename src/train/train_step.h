// One training step, as llm.c's loop reads: forward the batch to its loss, backward, clip,
// update. ./train (train/trainer.c) and ./bench run their steps through it, so the step that is
// timed is the step that trains.
#ifndef TRAIN_STEP_H
#define TRAIN_STEP_H
#include "core/optim.h"
#include "data/batch.h"
#include "models/model.h"
#include "train/micro_batches.h"

// The settings of one update.
typedef struct StepArgs {
    long  step;              // 1, 2, ...: the draw of randomized positions (model.h)
    float lr;                // this update's learning rate (lr_at)
    float clip;              // the largest gradient norm (0: no clipping)
    float label_smoothing;
    const MicroBatches *micro;   // the batch in micro-batches, or NULL: whole
} StepArgs;

// What the step measured.
typedef struct StepResult {
    float   loss;            // the batch's mean loss
    float   grad_norm;       // the global L2 norm of the gradient, before clipping
    long    correct;         // targets (classifier: sentences) the logits' argmax got right
} StepResult;

// Resets the tensor arena (tensor_set_arena) and the tape, zeroes the gradients, seeds this
// step's positions, runs the forward pass to the loss and the backward pass (on args.micro's
// micro-batches when it has more than one), then AdamW with
// the gradient clipped to args.clip, folded into the update (adamw_step_scaled). Returns 0;
// or -1 when the loss or the gradient norm is not finite: then nothing was updated (the
// parameters and the optimizer are as before the step) and the caller stops.
int train_step(Model *m, const Batch *b, AdamW *opt, StepArgs args, StepResult *out);
#endif
