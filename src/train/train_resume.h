// Where a training's weights come from when they are not fresh. A value of train.resume or
// train.init_from names a checkpoint file, or a run folder holding model.safetensors.
//   train.resume     the same run goes on: weights, AdamW moments, step and data order (the
//                    sampler) are restored, so the steps that follow are the ones an unbroken
//                    run takes and log.csv gets the same rows (train/train_log.h).
//   train.init_from  another run's weights start this run; its optimizer moments, step,
//                    schedule, data order and dropout stream are this run's own, as in a fresh
//                    run. The model is built from this run's config, so the window and the
//                    RoPE stretch may differ from the source's; a tensor the source lacks, holds
//                    extra or has in another shape is refused by checkpoint_load, which names
//                    it and both shapes.
// Both run after the model, the optimizer and the sampler are built (trainer.c's setup).
#ifndef TRAIN_RESUME_H
#define TRAIN_RESUME_H
#include "train/training.h"

// train.resume: the checkpoint becomes the last good one and *start its step; tr->tokens and
// tr->tokens_known say how many tokens it had trained on, if it recorded that. 0, or -1 with
// a message (the sampler's state does not fit the data, or the checkpoint is past
// train.steps).
int train_resume(Training *tr, long *start, char *err, int errlen);
// train.init_from: the weights, and log.csv's comment line "# init_from = PATH (step N)" in
// tr->init_note. 0, or -1 with a message.
int train_init_from(Training *tr, char *err, int errlen);
#endif
