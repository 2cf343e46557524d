// A training's checkpoints: model.safetensors in the run folder (run/checkpoint.h), rewritten
// atomically at every save, and the last good one, the newest checkpoint known to hold a
// finite model (the one saved last, or the one the run resumed from), which every message
// that stops a run names.
#ifndef TRAIN_CHECKPOINT_H
#define TRAIN_CHECKPOINT_H
#include <stddef.h>
#include "train/training.h"

// Saves the model, the optimizer and the sampler's state as of `step` (completed updates), and
// makes it the last good checkpoint. Weights that are not finite are never saved: the update
// itself can overflow even when the loss and gradient norm it came from were finite; that,
// or a failed write, is -1 with a message naming the last good checkpoint.
int  train_checkpoint_save(Training *tr, long step, char *err, int errlen);
// "the last good checkpoint is X (step N)" or "there is no checkpoint yet".
void train_last_good_text(const Training *tr, char *out, size_t n);
// A run killed while writing a file leaves its temporary (every file goes through
// write_file_atomic); the real file beside it is intact. Removes those leftovers from the
// run folder `dir`, saying so, so that they do not pile up.
void train_remove_stale_temps(const char *dir);
#endif
