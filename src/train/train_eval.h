// The evaluations during a training: at every train.eval_every steps and after the last, the
// validation split and each of train.eval_lengths are scored and logged as val rows of
// log.csv (train/train_log.h); the validation split's numbers are printed too.
//   lm (windows of text)  val at the training window, then at each length (window tokens)
//   the others            val (if the task has a validation split), then at each length a
//                         held-out set of that length (task_length_split)
// Greedy decoding for exact_match runs on the validation split every time, on the length sets
// only after the last step (`final`), where it costs the most.
#ifndef TRAIN_EVAL_H
#define TRAIN_EVAL_H
#include "train/train_log.h"
#include "train/training.h"

// *watched: the row of the validation split as trained (lm: the training window), the one the
// stop rules read (train/train_stop.h); step -1 when there is none. 0, or -1 with a message.
int train_evaluate(Training *tr, long step, int final, LogRow *watched, char *err, int errlen);
#endif
