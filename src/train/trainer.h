// The training loop of ./train: the data, the model and AdamW (trainer.c's setup), then the
// steps (train/train_step.h), each logged to log.csv (train/train_log.h), with evaluations
// (train/train_eval.h) and checkpoints (train/train_checkpoint.h) at their intervals, a start
// from a checkpoint (train/train_resume.h), and the guards that stop a run part-way
// (train/train_guard.h). The state they share is a Training (train/training.h).
//
// Run folder (out_dir/name): config.ini (the resolved config), log.csv, model.safetensors,
// and the vocabulary files.
#ifndef TRAINER_H
#define TRAINER_H
#include "config/config.h"

// Train as the config says. Returns 0; or -1 with a message (the run folder keeps the last
// good checkpoint); or, when a SIGTERM / SIGINT arrived (run/stop.h) before the last step, the
// signal's number, after saving a checkpoint of the step in hand.
int train_run(Config *c, char *err, int errlen);
#endif
