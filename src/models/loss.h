// The loss of a model on one batch: what a training step minimises (with label smoothing)
// and what evaluation averages over a split (score/evaluate.h), and the count of targets the
// logits get right.
#ifndef LOSS_H
#define LOSS_H
#include "data/batch.h"
#include "models/model.h"

// The mean token cross-entropy of a batch over its non-pad targets (the classifier's targets
// are the labels). logits (or NULL) receives the logits of every position (classifier (B,C);
// translator and lm (B*T,V)), as evaluation reads them; without it a padded batch's head runs
// on its token rows only (the training step). correct (or NULL) receives the number of scored
// targets the logits' argmax gets right.
Tensor *batch_loss(Model *m, const Batch *b, float smoothing, Tensor **logits, long *correct);
// Number of rows of `logits` whose argmax equals the target (targets == ignore skipped).
long    count_correct(const Tensor *logits, const int *targets, int n, int ignore);
#endif
