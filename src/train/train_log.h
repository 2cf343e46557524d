// log.csv, the record of a training: a header, then one row per logged training step and
// one per evaluation. Columns:
//   step        completed updates
//   split       train | val | test
//   length      0 = the split as trained; else the evaluation length (clauses for
//               toy_translate, words for order's forms, window tokens for lm)
//   loss        train: the step's batch; eval: mean over all target tokens
//   token_acc   argmax accuracy over target tokens (classifier: over sentences)
//   exact_match translator: greedy output equals the reference; classifier: pair accuracy
//   loss_last   lm: loss on the last 32 tokens of each window
//   lr, grad_norm  train rows: learning rate and gradient norm before clipping
//   tokens      only in the log of a run with a stop rule (train.until, train.patience,
//               train/train_stop.h): the tokens trained on up to this step, source and target
// Such a run ends its log with one stop row, step = the last step and split = why it stopped
// (converged, patience, ceiling), its tokens, the other cells empty.
// A value a row does not have (a training row's exact_match, an evaluation's lr) is missing,
// and its cell is empty; so is a NaN's. Lines before the header are comments ('#'). Nothing
// in log.csv depends on timing, so the same seed and thread count give the same file.
#ifndef TRAIN_LOG_H
#define TRAIN_LOG_H
#include <stdio.h>

#define TRAIN_LOG_COLUMNS "step,split,length,loss,token_acc,exact_match,loss_last,lr,grad_norm"
#define TRAIN_LOG_HEADER TRAIN_LOG_COLUMNS "\n"
#define TRAIN_LOG_HEADER_TOKENS TRAIN_LOG_COLUMNS ",tokens\n"

// One value: present = 0 marks it missing (what a designated initializer leaves out).
typedef struct LogCell { double value; int present; } LogCell;
static inline LogCell log_cell(double value) { return (LogCell){value, 1}; }

typedef struct LogRow {
    long step;
    const char *split;
    int length;
    LogCell loss, token_acc, exact_match, loss_last, lr, grad_norm;
    LogCell tokens;   // written only to a log with the tokens column
} LogRow;

// Starts or resumes log.csv at `path` for a run at `step`: keeps the header and the rows up to
// `step` (a resumed run rewrites what came after); a last line without '\n' was torn by a
// crash and is dropped. The comment lines are replaced by `note` (a fresh run; "" for none),
// or kept with note NULL (a resumed run). Written atomically: a kill here leaves the old log
// whole. With `tokens` the header has the tokens column; rows kept from a log without it get an
// empty cell. A stop row is never kept: the run goes on past it. 0, or -1 with a message.
int  train_log_start(const char *path, long step, const char *note, int tokens, char *err,
                     int errlen);
// Whether the log at `path` exists and its header has the tokens column.
int  train_log_has_tokens(const char *path);
// Appends one row (with its tokens cell when `tokens`) and flushes it.
void train_log_row(FILE *f, const LogRow *row, int tokens);
#endif
