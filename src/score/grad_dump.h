// One step's parameter gradients, written out so that another implementation of the same
// math (scripts/torch_model.py) can be checked against this one (./eval --dump-grads).
//
// The batch is the data ./eval scores, as one batch: the whole validation split
// (classifier, translator), or the language model's evaluation windows (`window` tokens,
// non-overlapping, at most 256, from the validation stream). Forward and backward of the
// training loss (mean token cross-entropy with train.label_smoothing), dropout off.
//
// The file is safetensors, every tensor F32 (token ids are small integers, exact in F32):
//   batch.src [B,Ts]  batch.tgt_in [B,T]  batch.tgt_out [B,T]  batch.labels [B]
//                     (those the model uses)
//   loss [1]          grad.NAME for every parameter NAME, in its shape
// Metadata: format = "grad-dump-1", config = the resolved config (overrides included),
// label_smoothing, and pad/ignore conventions of the targets (tgt_out: 0 = <pad>, ignored).
#ifndef GRAD_DUMP_H
#define GRAD_DUMP_H
#include "models/model.h"
#include "data/task.h"

int grad_dump(Model *m, const Task *t, Config *c, const char *path, char *err, int errlen);
#endif
