// What stops a training part-way, and how it says so: each message names the step and the
// last good checkpoint (train/train_checkpoint.h), which stays in the run folder, so that the
// run can be resumed from it. Memory is checked before the first step (memory_check_train in
// trainer.c's setup); the guards here catch what happens during the steps:
//   a loss or gradient norm that is not finite  (train_step refused the update)
//   an arena that cannot grow                   (the estimate was short, or memory went to
//                                                other processes)
//   a failed write of log.csv                   (disk full)
//   SIGTERM / SIGINT (run/stop.h)               the step in hand is finished and saved
#ifndef TRAIN_GUARD_H
#define TRAIN_GUARD_H
#include <stddef.h>
#include "train/train_step.h"
#include "train/training.h"

// The step's loss or gradient norm is not finite: the message, and -1.
int  guard_not_finite(const Training *tr, long step, const StepResult *s, char *err, int errlen);
// An arena failure handler (arena_on_failure, ctx the Training): prints the step and the last
// good checkpoint, and exits with 1.
void guard_out_of_memory(size_t bytes, void *ctx);
// 0 while log.csv's writes succeed; else -1 with a message.
int  guard_log_written(const Training *tr, long step, char *err, int errlen);
// After a step that is not the last: 0 if no signal arrived. Else the step is saved (unless it
// just was), the way to go on is printed, and the signal's number is returned; -1 with a
// message if the save failed.
int  guard_stop_signal(Training *tr, long step, char *err, int errlen);
#endif
