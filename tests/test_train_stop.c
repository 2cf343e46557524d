// The stop rules of train.until and train.patience (train/train_stop.h), on hand-made
// validation rows: until fires at the first evaluation whose number reaches the value (equal
// counts), on the number as log.csv prints it; patience stops after exactly N evaluations in a
// row without a better number (equal is not better; better = higher for >=, lower for <= and
// for val_loss); a row without the watched number is an error; replaying the rules over a log
// gives the reason at its last step; and train.until's parse errors.
#include <string.h>
#include "check.h"
#include "fs_helpers.h"
#include "io/fileio.h"
#include "train/train_stop.h"

// Defaults with the given overrides applied; 0 on success.
static int config_with(Config *c, const char *a, const char *b, char *err, int errlen) {
    config_defaults(c);
    if (a && config_set(c, NULL, a, err, errlen)) return -1;
    if (b && config_set(c, NULL, b, err, errlen)) return -1;
    return 0;
}

// Feeds `n` evaluations of the watched number (in column `metric`) and returns the 1-based
// evaluation the rules stop at (0 = never), its reason in *why.
static int stop_at(const Config *c, UntilMetric metric, const double *v, int n, StopReason *why) {
    StopRules r = stop_rules_init(c);
    char err[256];
    for (int i = 0; i < n; i++) {
        LogRow row = {.step = 10 * (i + 1), .split = "val"};
        LogCell cell = log_cell(v[i]);
        if (metric == METRIC_VAL_LOSS) row.loss = cell;
        else if (metric == METRIC_VAL_TOKEN_ACC) row.token_acc = cell;
        else if (metric == METRIC_VAL_EXACT_MATCH) row.exact_match = cell;
        else row.loss_last = cell;
        if (stop_observe(&r, c, &row, why, err, sizeof err)) return -1;
        if (*why) return i + 1;
    }
    *why = STOP_NONE;
    return 0;
}

static void test_until_reaches_value(void) {
    Config c;
    char err[256] = "";
    StopReason why;
    CHECK(!config_with(&c, "train.until=val_exact_match>=0.5", NULL, err, sizeof err), "%s", err);
    CHECK(c.until_compare == UNTIL_AT_LEAST && c.until_metric == METRIC_VAL_EXACT_MATCH &&
          c.until_value == 0.5, "parsed as %d %d %g", c.until_compare, c.until_metric,
          c.until_value);
    // 0.5 itself converges (>=, not >); the value above it comes too late
    CHECK(stop_at(&c, METRIC_VAL_EXACT_MATCH, (double[]){0.2, 0.49, 0.5, 0.7}, 4, &why) == 3 &&
          why == STOP_CONVERGED, "stopped at %d (%d)", stop_at(&c, METRIC_VAL_EXACT_MATCH,
          (double[]){0.2, 0.49, 0.5, 0.7}, 4, &why), why);
    // 0.4999999 is 0.5 in log.csv (%.6g): the log alone tells where the rule fired
    CHECK(stop_at(&c, METRIC_VAL_EXACT_MATCH, (double[]){0.4999999}, 1, &why) == 1,
          "the logged value 0.5 did not converge");
    CHECK(stop_at(&c, METRIC_VAL_EXACT_MATCH, (double[]){0.499999}, 1, &why) == 0,
          "0.499999 converged");
    CHECK(!config_with(&c, "until = val_loss <= 0.05", NULL, err, sizeof err), "%s", err);
    CHECK(stop_at(&c, METRIC_VAL_LOSS, (double[]){0.3, 0.06, 0.05}, 3, &why) == 3 &&
          why == STOP_CONVERGED, "<= did not stop at 0.05 exactly");
    // no rule: never stops
    CHECK(!config_with(&c, NULL, NULL, err, sizeof err), "%s", err);
    CHECK(stop_at(&c, METRIC_VAL_LOSS, (double[]){0, 0, 0, 0}, 4, &why) == 0,
          "stopped with no rule");
}

static void test_patience_counts_evaluations(void) {
    Config c;
    char err[256] = "";
    StopReason why;
    // patience 2 on val_loss (lower is better): 1.0 best, 0.9 best, 0.95 stale 1, 0.9 (equal:
    // not better) stale 2 -> stops at the 4th evaluation
    CHECK(!config_with(&c, "train.patience=2", NULL, err, sizeof err), "%s", err);
    const double loss[] = {1.0, 0.9, 0.95, 0.9, 0.1};
    int at = stop_at(&c, METRIC_VAL_LOSS, loss, 5, &why);
    CHECK(at == 4 && why == STOP_PATIENCE, "stopped at %d (reason %d), want 4", at, why);
    // a better number resets the count: 1, 2 (stale 1), 0.5 (best), 0.6, 0.7 -> the 5th
    at = stop_at(&c, METRIC_VAL_LOSS, (double[]){1, 2, 0.5, 0.6, 0.7}, 5, &why);
    CHECK(at == 5 && why == STOP_PATIENCE, "stopped at %d, want 5", at);
    // with until >= the watched number is the until metric, higher is better
    CHECK(!config_with(&c, "train.until=val_token_acc>=0.99", "train.patience=2", err,
                       sizeof err), "%s", err);
    at = stop_at(&c, METRIC_VAL_TOKEN_ACC, (double[]){0.5, 0.4, 0.6, 0.6, 0.55}, 5, &why);
    CHECK(at == 5 && why == STOP_PATIENCE, "stopped at %d, want 5", at);
    // until wins when both fire at one evaluation
    at = stop_at(&c, METRIC_VAL_TOKEN_ACC, (double[]){0.995, 0.99}, 2, &why);
    CHECK(at == 1 && why == STOP_CONVERGED, "stopped at %d (reason %d)", at, why);
    CHECK(!config_with(&c, "train.patience=1", NULL, err, sizeof err), "%s", err);
    at = stop_at(&c, METRIC_VAL_LOSS, (double[]){1.0, 1.0}, 2, &why);
    CHECK(at == 2 && why == STOP_PATIENCE, "patience 1 stopped at %d, want 2", at);
}

static void test_missing_metric(void) {
    Config c;
    char err[256] = "";
    CHECK(!config_with(&c, "train.until=val_exact_match>=0.5", NULL, err, sizeof err), "%s", err);
    StopRules r = stop_rules_init(&c);
    StopReason why;
    LogRow row = {.step = 20, .split = "val", .loss = log_cell(1)};
    CHECK(stop_observe(&r, &c, &row, &why, err, sizeof err) == -1 &&
          strstr(err, "step 20: train.until watches val_exact_match"), "got '%s'", err);
}

static void test_replay_log(void) {
    char path[256], err[256] = "";
    path_in_tmp(path, sizeof path, "log.csv");
    const char *log = TRAIN_LOG_HEADER_TOKENS
                      "10,train,0,2,0.1,,,0.001,1,40\n"
                      "10,val,0,1.5,0.2,0.1,,,,40\n"
                      "10,val,16,1.7,0.1,0.0,,,,40\n"      // a length set: not watched
                      "20,val,0,1.2,0.3,0.5,,,,80\n"
                      "20,val,16,1.3,0.1,0.9,,,,80\n"
                      "20,converged,0,,,,,,,80\n";
    write_file_atomic(path, log, strlen(log), err, sizeof err);
    Config c;
    CHECK(!config_with(&c, "train.until=val_exact_match>=0.5", NULL, err, sizeof err), "%s", err);
    StopRules r = stop_rules_init(&c);
    StopReason why;
    CHECK(!stop_replay_log(&r, &c, path, 20, 0, &why, err, sizeof err), "%s", err);
    CHECK(why == STOP_CONVERGED, "replay to 20: reason %d", why);
    r = stop_rules_init(&c);
    CHECK(!stop_replay_log(&r, &c, path, 10, 0, &why, err, sizeof err) && why == STOP_NONE,
          "replay to 10: reason %d", why);
    // a stricter until: the run goes on
    CHECK(!config_with(&c, "train.until=val_exact_match>=0.6", NULL, err, sizeof err), "%s", err);
    r = stop_rules_init(&c);
    CHECK(!stop_replay_log(&r, &c, path, 20, 0, &why, err, sizeof err) && why == STOP_NONE,
          "stricter until stopped: %d", why);
    // patience 1 on val_loss: 1.5 then 1.2 is better -> no stop
    CHECK(!config_with(&c, "train.patience=1", NULL, err, sizeof err), "%s", err);
    r = stop_rules_init(&c);
    CHECK(!stop_replay_log(&r, &c, path, 20, 0, &why, err, sizeof err) && why == STOP_NONE &&
          r.stale == 0 && r.best == 1.2, "patience replay: %d, stale %d, best %g", why, r.stale,
          r.best);
}

// set_until TEXT: the message config_set gives for train.until=TEXT ("" when accepted).
static const char *until_error(const char *text) {
    static char err[512];
    char assignment[128];
    Config c;
    config_defaults(&c);
    snprintf(assignment, sizeof assignment, "train.until=%s", text);
    err[0] = '\0';
    config_set(&c, NULL, assignment, err, sizeof err);
    return err;
}

static void test_until_parse_errors(void) {
    const char *e = until_error("val_exact>=0.99");
    CHECK(strstr(e, "unknown metric 'val_exact'") &&
          strstr(e, "val_loss, val_token_acc, val_exact_match, val_loss_last"), "got '%s'", e);
    e = until_error("val_loss<0.05");
    CHECK(strstr(e, "the comparison must be >= or <="), "got '%s'", e);
    e = until_error("val_loss=>0.05");
    CHECK(strstr(e, "the comparison must be >= or <="), "got '%s'", e);
    e = until_error("val_loss");
    CHECK(strstr(e, "no comparison"), "got '%s'", e);
    e = until_error("val_exact_match>=1.5");
    CHECK(strstr(e, "val_exact_match = 1.5 is out of range; it lies in [0, 1]"), "got '%s'", e);
    e = until_error("val_loss<=-1");
    CHECK(strstr(e, "out of range; it lies in [0, inf)"), "got '%s'", e);
    e = until_error("val_loss<=abc");
    CHECK(strstr(e, "'abc' is not a finite number"), "got '%s'", e);
    e = until_error("val_loss<=0.5x");
    CHECK(strstr(e, "trailing garbage 'x'"), "got '%s'", e);
    CHECK(!*until_error("val_token_acc >= 1"), "a valid until refused: %s",
          until_error("val_token_acc >= 1"));
    CHECK(!*until_error(""), "the empty until refused");
}

// The config a run stores names train.until and train.patience only when they are set, so a
// run without them stores what it stored before the keys existed.
static void test_quiet_defaults(void) {
    Config c;
    char err[256] = "";
    CHECK(!config_with(&c, NULL, NULL, err, sizeof err), "%s", err);
    const char *text = config_to_ini(&c);
    CHECK(text && !strstr(text, "until") && !strstr(text, "patience"), "defaults written");
    config_free(&c);
    CHECK(!config_with(&c, "train.until=val_loss<=0.1", "train.patience=3", err, sizeof err),
          "%s", err);
    text = config_to_ini(&c);
    CHECK(text && strstr(text, "until = val_loss<=0.1\n") && strstr(text, "patience = 3\n"),
          "set keys not written:\n%s", text ? text : "");
    config_free(&c);
}

int main(void) {
    if (tmpdir_create("test_train_stop")) return 1;
    RUN(test_until_reaches_value);
    RUN(test_patience_counts_evaluations);
    RUN(test_missing_metric);
    RUN(test_replay_log);
    RUN(test_until_parse_errors);
    RUN(test_quiet_defaults);
    tmpdir_remove();
    return check_summary();
}
