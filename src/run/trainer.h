// The training loop of ./train: the data, the model and AdamW (trainer.c's setup), then the
// steps (run/train_step.h), each logged to log.csv (run/train_log.h), with evaluations
// (run/train_eval.h) and checkpoints (run/train_checkpoint.h) at their intervals, a start
// from a checkpoint (run/train_resume.h), and the guards that stop a run part-way
// (run/train_guard.h). The state they share is a Training (run/training.h).
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
