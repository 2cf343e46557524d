// When a training stops before train.steps: the stop rules of train.until and train.patience
// (docs/design.md §4.3), checked at each evaluation on the validation row that log.csv gets
// (the split as trained, length 0; the lm: its training window).
//   until     METRIC>=VALUE or METRIC<=VALUE holds: the run has converged
//   patience  N evaluations in a row without a better watched number (the until metric, or
//             val_loss when until is unset; better = higher for >=, lower for <=)
//   ceiling   train.steps reached (only reported when a rule is set)
// The numbers are taken as log.csv prints them (%.6g), so a log alone tells where a rule fires:
// the same rules replayed over a log's rows (stop_replay_log, for train.resume) reach the state
// the run had, and a test can predict the stopping step from the log of a run without them.
#ifndef TRAIN_STOP_H
#define TRAIN_STOP_H
#include "config/config.h"
#include "train/train_log.h"

typedef enum { STOP_NONE, STOP_CONVERGED, STOP_PATIENCE, STOP_CEILING } StopReason;
// log.csv's split value of the row that records the stop: "converged", "patience", "ceiling"
// (STOP_NONE: "").
extern const char *const stop_reason_names[];

typedef struct StopRules {
    int    on;          // train.until or train.patience set
    int    have_best;   // an evaluation has been seen
    double best;        // the best watched number so far
    int    stale;       // evaluations since the best
    double last;        // the watched number of the latest evaluation
} StopRules;

// Rules of config c, before any evaluation.
StopRules stop_rules_init(const Config *c);
// The metric the rules watch: the until metric, else val_loss.
UntilMetric stop_watched(const Config *c);
// One evaluation's validation row: updates the rules and says whether the run stops here.
// -1 with a message when the row lacks the watched number (val_exact_match of an lm on text).
int stop_observe(StopRules *r, const Config *c, const LogRow *val, StopReason *why, char *err,
                 int errlen);
// Replays the rules over the validation rows of log.csv at `path` up to `step`: *why is the
// reason the rules give at a row of exactly `step` (STOP_NONE if there is none or they go on).
// `length` picks the validation row (0; the lm: its window). 0, or -1 with a message.
int stop_replay_log(StopRules *r, const Config *c, const char *path, long step, int length,
                    StopReason *why, char *err, int errlen);
// The stop row of log.csv at `path`: *step and *why of the run's last stop. 0 when the log
// has one; -1 when it has none (no stop rule, not finished, or no log).
int stop_read_log(const char *path, long *step, StopReason *why);
// The `converged` cell of ./eval and the experiment tables for the log at `path`: the step a
// converged run stopped at ("1200"), "not in N steps" for a run stopped by patience or at its
// ceiling, "" for a run without a stop row.
void stop_converged_cell(const char *path, char *out, int n);
// What the stop means, for the message of the step it happened at: "val_exact_match = 0.99 >=
// 0.99", "3 evaluations without a better val_loss (best 0.41)", "train.steps = 2000".
void stop_describe(const StopRules *r, const Config *c, StopReason why, char *out, int n);
#endif
