// The training loop: data, model, AdamW, logging to log.csv, periodic evaluation and
// checkpoints, resume, and a NaN guard.
//
// Run folder (out_dir/name): config.ini (the resolved config), log.csv, model.safetensors,
// and the vocabulary files. log.csv columns:
//   step        completed updates
//   split       train | val | test
//   length      0 = the split as trained; else the evaluation length (clauses for
//               toy_translate, words for order's forms, window tokens for lm)
//   loss        train: the step's batch; eval: mean over all target tokens
//   token_acc   argmax accuracy over target tokens (classifier: over sentences)
//   exact_match translator: greedy output equals the reference; classifier: pair accuracy
//   loss_last   lm: loss on the last 32 tokens of each window
//   lr, grad_norm  train rows: learning rate and gradient norm before clipping
// Nothing in log.csv depends on timing, so the same seed and thread count give the same file.
#ifndef TRAINER_H
#define TRAINER_H
#include "config/config.h"

// Train as the config says. Returns 0; or -1 with a message (the run folder keeps the last
// good checkpoint); or, when a SIGTERM / SIGINT arrived (run/stop.h) before the last step, the
// signal's number, after saving a checkpoint of the step in hand.
int train_run(Config *c, char *err, int errlen);
#endif
