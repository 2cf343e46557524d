// A training in progress (./train, train/trainer.h): the state the trainer's files share. The
// loop (trainer.c) builds it and runs the steps (train/train_step.h); the others each do one
// duty with it: log.csv (train_log.h), evaluation rows (train_eval.h), checkpoints and the
// last good one (train_checkpoint.h), resume and init_from (train_resume.h), the guards that
// stop a run (train_guard.h). A saved run opened for inference is another type, Run
// (run/run_dir.h).
#ifndef TRAINING_H
#define TRAINING_H
#include <stdio.h>
#include "core/optim.h"
#include "data/sampler.h"
#include "models/model.h"
#include "train/micro_batches.h"
#include "memory/memory_estimate.h"
#include "data/task.h"
#include "train/train_log.h"
#include "train/train_stop.h"

typedef struct Training {
    Config *c;
    Task task;
    Model model;
    MicroBatches micro;          // train.micro_batches
    AdamW opt;
    Sampler sampler;
    char dir[512], ckpt[600], log_path[600];   // out_dir/name, its model.safetensors, log.csv
    FILE *log;
    int lengths[64], n_lengths;  // train.eval_lengths
    char init_note[700];         // log.csv's first line when train.init_from gave the weights
    char last_good[600];         // the newest checkpoint known good ("" = none yet)
    long last_good_step;
    long step;                   // the step running, for the out-of-memory message
    MemoryEstimate memory;       // checked in setup, printed first once the run folder exists
    StopRules stop;              // train.until, train.patience (train/train_stop.h)
    int log_tokens;              // log.csv has the tokens column (a run with a stop rule)
    double tokens;               // tokens trained on up to the current step, when known
    int tokens_known;            // 0 after a resume from a checkpoint that did not record them
} Training;

// The tokens cell of a log row (and whether a checkpoint records them): present when the log
// has the column and the count is known.
static inline LogCell training_tokens(const Training *tr) {
    return (LogCell){tr->tokens, tr->log_tokens && tr->tokens_known};
}
#endif
