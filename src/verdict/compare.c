#include "verdict/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "verdict/format.h"

#define LEVEL 0.95

// The series of `metric` for an arm's selection, with the override `gate` ("" none).
static int arm_series(Results *res, const Arm *arm, const char *metric, const char *gate,
                      Series *s, int *gate_percent, char *err, int errlen) {
    const CsvTable *t = results_table(res, arm->file, err, errlen);
    if (!t) return -1;
    Selection sel, over;
    if (selection_parse(arm->select, &sel, err, errlen)) return -1;
    if (gate[0]) {
        if (selection_parse(gate, &over, err, errlen)) return -1;
        if (selection_override(&sel, &over, err, errlen)) return -1;
        // on exact match where the file has it, but a loss on itself (reported, never a reason
        // for untested), even in a file whose exact_match column is empty (an LM's)
        *gate_percent = strcmp(metric, "loss_last") && csv_col(t, "exact_match") >= 0;
        metric = *gate_percent ? "exact_match" : metric;
    }
    if (!strcmp(metric, "mrr")) return series_mrr(t, &sel, s, err, errlen);
    if (series_select(t, &sel, metric, s, err, errlen)) return -1;
    if (s->n == 0) {
        snprintf(err, errlen, "no rows of %s select %s%s%s", arm->file, arm->select,
                 gate[0] ? " with " : "", gate);
        return -1;
    }
    return 0;
}

static int same_seeds(const Series *a, const Series *b) {
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->seed[i] != b->seed[i]) return 0;
    return 1;
}

static int compute_interval(const Claim *c, VerdictRow *v, char *err, int errlen) {
    if (c->pairing == PAIRING_ONE_SAMPLE) {
        v->iv = interval_one_sample(v->a.value, v->a.n, c->target, LEVEL);
    } else if (c->pairing == PAIRING_UNPAIRED) {
        v->iv = interval_unpaired(v->a.value, v->a.n, v->b.value, v->b.n, LEVEL);
    } else if (!same_seeds(&v->a, &v->b)) {
        snprintf(err, errlen, "paired arms with different seeds (%d and %d)", v->a.n, v->b.n);
        return -1;
    } else {
        v->iv = interval_paired(v->a.value, v->b.value, v->a.n, LEVEL);
    }
    return 0;
}

// Appends ", "-separated per-seed values (A - B when b, else A) to the note.
static void note_per_seed(VerdictRow *v, const char *title, int with_b, int percent) {
    size_t len = strlen(v->note);
    len += snprintf(v->note + len, sizeof v->note - len, "%s%s: ", len ? "; " : "", title);
    for (int i = 0; i < v->a.n && len < sizeof v->note; i++) {
        char x[32];
        double d = v->a.value[i] - (with_b ? v->b.value[i] : 0);
        if (with_b) format_signed(x, sizeof x, d, percent);
        else format_value(x, sizeof x, d, percent);
        len += snprintf(v->note + len, sizeof v->note - len, "%s%s", i ? ", " : "", x);
    }
}

static void note_add(VerdictRow *v, const char *text) {
    size_t len = strlen(v->note);
    snprintf(v->note + len, sizeof v->note - len, "%s%s", len ? "; " : "", text);
}

static void write_notes(const Claim *c, VerdictRow *v) {
    int percent = metric_is_percent(c->metric);
    snprintf(v->note, sizeof v->note, "%s", c->note);
    if (c->pairing == PAIRING_PAIRED && v->iv.df > 0) note_per_seed(v, "A-B per seed", 1, percent);
    if (c->pairing == PAIRING_ONE_SAMPLE) note_per_seed(v, "A per seed", 0, percent);
    if (v->label.kind == VERDICT_UNTESTED && v->label.why == UNTESTED_NOT_LEARNED &&
        v->label.alone != VERDICT_WITHIN) {
        char t[64];
        snprintf(t, sizeof t, "interval alone: %s", verdict_word(v->label.alone));
        note_add(v, t);
    }
    if (v->wants_5) {
        char t[96];
        if (v->a.n == v->b.n || c->pairing == PAIRING_ONE_SAMPLE)
            snprintf(t, sizeof t, "means within twice the spread: wants 5 seeds, has %d", v->a.n);
        else snprintf(t, sizeof t, "means within twice the spread: wants 5 seeds, has %d+%d",
                      v->a.n, v->b.n);
        note_add(v, t);
    }
}

static void label_row(const Claim *c, VerdictRow *v) {
    int one = c->pairing == PAIRING_ONE_SAMPLE;
    double low = NAN;
    if (v->gate_percent && !isnan(v->gate_a)) low = v->gate_a;
    if (v->gate_percent && !isnan(v->gate_b) && !(v->gate_b >= low)) low = v->gate_b;
    LabelInput in = {v->a.n, one ? v->a.n : v->b.n, v->mean_a, v->mean_b,
                     metric_is_percent(c->metric), c->direction, v->iv, low};
    v->label = verdict_label(&in);
    double s2 = !one && v->sd_b > v->sd_a ? v->sd_b : v->sd_a;
    int n_min = one || v->a.n < v->b.n ? v->a.n : v->b.n;
    double gap = v->mean_a - v->mean_b;
    v->wants_5 = v->label.kind <= VERDICT_WITHIN && n_min < 5 && s2 > 0 && gap * gap < 4 * s2 * s2;
}

int compare_claim(Results *res, const Claim *c, const char *claims_path, VerdictRow *v,
                  char *err, int errlen) {
    char why[512];
    int one = c->pairing == PAIRING_ONE_SAMPLE, unused;
    memset(v, 0, sizeof *v);
    v->claim = c, v->gate_a = v->gate_b = NAN;
    Series g;
    if (arm_series(res, &c->a, c->metric, "", &v->a, &unused, why, sizeof why) ||
        (!one && arm_series(res, &c->b, c->metric, "", &v->b, &unused, why, sizeof why)))
        goto fail;
    if (c->gate[0]) {
        if (arm_series(res, &c->a, c->metric, c->gate, &g, &v->gate_percent, why, sizeof why))
            goto fail;
        v->gate_a = series_mean(&g);
        if (!one) {
            if (arm_series(res, &c->b, c->metric, c->gate, &g, &v->gate_percent, why, sizeof why))
                goto fail;
            v->gate_b = series_mean(&g);
        }
    }
    v->mean_a = sample_mean(v->a.value, v->a.n), v->sd_a = sample_sd(v->a.value, v->a.n);
    v->mean_b = one ? c->target : sample_mean(v->b.value, v->b.n);
    v->sd_b = one ? 0 : sample_sd(v->b.value, v->b.n);
    if (compute_interval(c, v, why, sizeof why)) goto fail;
    label_row(c, v);
    write_notes(c, v);
    return 0;
fail:
    snprintf(err, errlen, "%s:%d: %s", claims_path, c->line, why);
    return -1;
}

void verdict_text(const VerdictRow *v, char *buf, int len) {
    int percent = metric_is_percent(v->claim->metric);
    char e[32], lo[32], hi[32];
    format_signed(e, sizeof e, v->iv.effect, percent);
    format_signed(lo, sizeof lo, v->iv.lo, percent);
    format_signed(hi, sizeof hi, v->iv.hi, percent);
    double low = isnan(v->gate_b) || v->gate_a < v->gate_b ? v->gate_a : v->gate_b;
    switch (v->label.kind) {
    case VERDICT_UNTESTED:
        if (v->label.why == UNTESTED_ONE_SEED)
            snprintf(buf, len, "untested (one seed: no interval)");
        else if (v->label.why == UNTESTED_NO_SPREAD)
            snprintf(buf, len, "untested (no spread: no interval)");
        else snprintf(buf, len, "untested (not learned: %.1f%% in distribution)", 100 * low);
        break;
    case VERDICT_FLOOR:
        snprintf(buf, len, "floor (both arms at %s)", v->mean_a > 0.5 ? "100%" : "0%");
        break;
    case VERDICT_WITHIN: snprintf(buf, len, "within the spread"); break;
    default: snprintf(buf, len, "%s: %s [%s, %s]", verdict_word(v->label.kind), e, lo, hi);
    }
}
