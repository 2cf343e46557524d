#include "train/train_stop.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/csv.h"

const char *const stop_reason_names[] = {[STOP_NONE] = "", [STOP_CONVERGED] = "converged",
                                         [STOP_PATIENCE] = "patience", [STOP_CEILING] = "ceiling"};

StopRules stop_rules_init(const Config *c) {
    return (StopRules){.on = c->until_compare != UNTIL_OFF || c->patience > 0};
}

UntilMetric stop_watched(const Config *c) {
    return c->until_compare != UNTIL_OFF ? c->until_metric : METRIC_VAL_LOSS;
}

// Higher is better for an until with >=; for <= and for the val_loss patience watches, lower.
static int higher_is_better(const Config *c) { return c->until_compare == UNTIL_AT_LEAST; }

static LogCell metric_cell(const LogRow *row, UntilMetric m) {
    switch (m) {
    case METRIC_VAL_LOSS: return row->loss;
    case METRIC_VAL_TOKEN_ACC: return row->token_acc;
    case METRIC_VAL_EXACT_MATCH: return row->exact_match;
    case METRIC_VAL_LOSS_LAST: return row->loss_last;
    default: return (LogCell){0};
    }
}

// The value as log.csv holds it: the rules decide on what the log shows.
static double as_logged(double v) {
    char text[32];
    snprintf(text, sizeof text, "%.6g", v);
    return strtod(text, NULL);
}

int stop_observe(StopRules *r, const Config *c, const LogRow *val, StopReason *why, char *err,
                 int errlen) {
    *why = STOP_NONE;
    if (!r->on) return 0;
    UntilMetric m = stop_watched(c);
    LogCell cell = metric_cell(val, m);
    if (!cell.present) {
        snprintf(err, errlen,
                 "step %ld: train.%s watches %s, which this run's validation row does not have",
                 val->step, c->until_compare != UNTIL_OFF ? "until" : "patience",
                 config_until_names[m]);
        return -1;
    }
    double v = as_logged(cell.value);   // NaN: never better, never converged
    r->last = v;
    int better = !r->have_best || (higher_is_better(c) ? v > r->best : v < r->best);
    if (better) r->best = v, r->have_best = 1, r->stale = 0;
    else r->stale++;
    if (c->until_compare == UNTIL_AT_LEAST ? v >= c->until_value
        : c->until_compare == UNTIL_AT_MOST ? v <= c->until_value : 0)
        *why = STOP_CONVERGED;
    else if (c->patience > 0 && r->stale >= c->patience)
        *why = STOP_PATIENCE;
    return 0;
}

static LogCell cell_of(const CsvTable *t, int row, const char *name) {
    int col = csv_col(t, name);
    const char *text = col < 0 ? "" : t->rows[row][col];
    return *text ? log_cell(strtod(text, NULL)) : (LogCell){0};
}

int stop_replay_log(StopRules *r, const Config *c, const char *path, long step, int length,
                    StopReason *why, char *err, int errlen) {
    *why = STOP_NONE;
    if (!r->on) return 0;
    CsvTable t;
    if (csv_read(path, &t, err, errlen)) return -1;
    int c_step = csv_col(&t, "step"), c_split = csv_col(&t, "split"),
        c_length = csv_col(&t, "length");
    int rc = 0;
    if (c_step < 0 || c_split < 0 || c_length < 0) {
        snprintf(err, errlen, "%s: no step, split or length column", path);
        rc = -1;
    }
    for (int i = 0; !rc && i < t.n_rows; i++) {
        long s = strtol(t.rows[i][c_step], NULL, 10);
        if (s > step || strcmp(t.rows[i][c_split], "val") ||
            atoi(t.rows[i][c_length]) != length)
            continue;
        LogRow row = {.step = s, .split = "val", .length = length,
                      .loss = cell_of(&t, i, "loss"), .token_acc = cell_of(&t, i, "token_acc"),
                      .exact_match = cell_of(&t, i, "exact_match"),
                      .loss_last = cell_of(&t, i, "loss_last")};
        StopReason here;
        char msg[256];
        if (stop_observe(r, c, &row, &here, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%d: %s", path, t.line[i], msg);
            rc = -1;
        }
        *why = s == step ? here : STOP_NONE;
    }
    csv_free(&t);
    return rc;
}

void stop_describe(const StopRules *r, const Config *c, StopReason why, char *out, int n) {
    const char *metric = config_until_names[stop_watched(c)];
    if (why == STOP_CONVERGED)
        snprintf(out, n, "%s = %g %s %g", metric, r->last,
                 c->until_compare == UNTIL_AT_LEAST ? ">=" : "<=", c->until_value);
    else if (why == STOP_PATIENCE)
        snprintf(out, n, "%d evaluation%s without a better %s (best %g)", r->stale,
                 r->stale == 1 ? "" : "s", metric, r->best);
    else snprintf(out, n, "train.steps = %d", c->steps);
}

int stop_read_log(const char *path, long *step, StopReason *why) {
    CsvTable t;
    char err[256];
    if (csv_read(path, &t, err, sizeof err)) return -1;
    int c_step = csv_col(&t, "step"), c_split = csv_col(&t, "split"), found = 0;
    for (int i = t.n_rows - 1; i >= 0 && c_step >= 0 && c_split >= 0 && !found; i--)
        for (int r = STOP_CONVERGED; r <= STOP_CEILING && !found; r++)
            if (!strcmp(t.rows[i][c_split], stop_reason_names[r])) {
                *step = strtol(t.rows[i][c_step], NULL, 10);
                *why = (StopReason)r;
                found = 1;
            }
    csv_free(&t);
    return found ? 0 : -1;
}

void stop_converged_cell(const char *path, char *out, int n) {
    long step;
    StopReason why;
    if (stop_read_log(path, &step, &why)) snprintf(out, n, "%s", "");
    else if (why == STOP_CONVERGED) snprintf(out, n, "%ld", step);
    else snprintf(out, n, "not in %ld steps", step);
}
