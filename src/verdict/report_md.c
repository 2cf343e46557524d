#include <math.h>
#include <stdio.h>
#include <string.h>

#include "verdict/format.h"
#include "verdict/report.h"

// What verdicts.md says about its method before the rows (the claims are data/claims.csv's).
static const char *const method[] = {
    "Effect: A − B, in points for percentages (exact match, token accuracy), in nats for losses,",
    "in reciprocal rank for MRR. Paired: the same trained models scored two ways, the t interval",
    "of the per-seed differences (n − 1 df). Unpaired: different trained models (even with the",
    "same seeds), the t interval of the difference of the seed means with Welch's standard",
    "error and the smaller arm's n − 1 df (Hsu), which holds 95% on simulated 3- and 5-seed",
    "studies (`tests/test_stats.c`). One-sample: A's seed mean against a fixed target.",
    "Cells: mean ± sample sd over the seeds. In distribution: each arm's own exact match (%) at",
    "the longest training length (3 clauses, 16 symbols); a row whose A or B is below 90% there is",
    "untested whatever its interval (for losses: the loss at the 32-token training window, shown,",
    "never gating). Floor: both arms at 0% or both at 100%, where no interval tells them apart;",
    "the tallies leave such rows out. A tested row with fewer than 5 seeds whose means lie within",
    "twice the larger sd of each other wants 5 seeds (its note and the tally say so).",
    "`./verdicts --help` has the details.", NULL};


// "22.6 ± 12.6" (B of a one-sample row: the target alone)
static void cell(char *buf, int len, double mean, double sd, int percent, int alone) {
    char m[32], s[32];
    format_value(m, sizeof m, mean, percent), format_value(s, sizeof s, sd, percent);
    if (alone) snprintf(buf, len, "%s", m);
    else snprintf(buf, len, "%s ± %s", m, s);
}

static void interval_text(char *buf, int len, const VerdictRow *v) {
    int pc = metric_is_percent(v->claim->metric);
    char e[32], lo[32], hi[32];
    format_signed(e, sizeof e, v->iv.effect, pc);
    format_signed(lo, sizeof lo, v->iv.lo, pc), format_signed(hi, sizeof hi, v->iv.hi, pc);
    snprintf(buf, len, "%s [%s, %s]", e, lo, hi);
}

// A row in a few words: "A mean ± sd% vs B mean ± sd% (evaluation, steps; note)".
static void short_text(char *buf, int len, const VerdictRow *v) {
    const Claim *c = v->claim;
    int pc = metric_is_percent(c->metric), one = c->pairing == PAIRING_ONE_SAMPLE;
    char a[64], b[64];
    cell(a, sizeof a, v->mean_a, v->sd_a, pc, 0), cell(b, sizeof b, v->mean_b, v->sd_b, pc, one);
    snprintf(buf, len, "%s %s%s vs %s %s%s (%s%s%s, %s%s%s)", c->a.label, a, pc ? "%" : "",
             c->b.label, b, pc ? "%" : "", c->evaluation,
             strcmp(c->metric, "exact_match") ? ", " : "",
             strcmp(c->metric, "exact_match") ? c->metric : "", c->steps,
             v->note[0] ? "; " : "", v->note);
}

static const VerdictRow *quoted(const Report *r, const char *key, Quote q) {
    for (int i = 0; i < r->n; i++)
        if (r->rows[i].claim->quote == q && !strcmp(r->rows[i].claim->key, key)) return &r->rows[i];
    return NULL;
}

static void summary_line(FILE *f, const Report *r, const char *key) {
    const VerdictRow *h = quoted(r, key, QUOTE_HEADLINE), *h2 = quoted(r, key, QUOTE_SECOND);
    const Remedy *m = remedy_find(r->remedies, key);
    static char res[2048], iv[256], v[128], tally[256];
    if (!h) return;
    short_text(res, sizeof res, h), interval_text(iv, sizeof iv, h);
    if (h2) {
        size_t n = strlen(res), k = strlen(iv);
        res[n] = ';', res[n + 1] = ' ', short_text(res + n + 2, (int)(sizeof res - n - 2), h2);
        iv[k] = ';', iv[k + 1] = ' ', interval_text(iv + k + 2, (int)(sizeof iv - k - 2), h2);
    }
    verdict_text(h, v, sizeof v), report_tally(r, key, tally, sizeof tally);
    fprintf(f, "| %s | %s | %s | %s | %s; %s%s%s |\n", key, m ? m->claim : "", res, iv, v, tally,
            m && m->note[0] ? "; " : "", m ? m->note : "");
}

static void row_line(FILE *f, const VerdictRow *v) {
    const Claim *c = v->claim;
    int pc = metric_is_percent(c->metric), one = c->pairing == PAIRING_ONE_SAMPLE;
    static const char *const pairing_name[] = {"paired", "unpaired", "one-sample"};
    char a[64], b[64], iv[128], pr[96], ia[32] = "—", ib[32] = "—", verdict[128], e[32];
    cell(a, sizeof a, v->mean_a, v->sd_a, pc, 0), cell(b, sizeof b, v->mean_b, v->sd_b, pc, one);
    interval_text(iv, sizeof iv, v);
    char *sp = strchr(iv, ' ');
    format_signed(e, sizeof e, v->iv.effect, pc);
    char n[32];
    if (one || v->a.n == v->b.n) snprintf(n, sizeof n, "%d", v->a.n);
    else snprintf(n, sizeof n, "%d+%d", v->a.n, v->b.n);
    if (v->iv.df > 0)
        snprintf(pr, sizeof pr, "%s (n=%s, df %.1f)", pairing_name[c->pairing], n, v->iv.df);
    else snprintf(pr, sizeof pr, "%s (n=%s, no spread)", pairing_name[c->pairing], n);
    if (!isnan(v->gate_a)) {
        if (v->gate_percent) snprintf(ia, sizeof ia, "%.1f", 100 * v->gate_a);
        else format_value(ia, sizeof ia, v->gate_a, 0);
    }
    if (!isnan(v->gate_b)) {
        if (v->gate_percent) snprintf(ib, sizeof ib, "%.1f", 100 * v->gate_b);
        else format_value(ib, sizeof ib, v->gate_b, 0);
    }
    verdict_text(v, verdict, sizeof verdict);
    fprintf(f, "| %s, %s, %s, %s, %s | %s | %s | %s | %s | %s | %s | %s | %s, %s | %s | %s |\n",
            c->model, c->task, c->steps, c->evaluation, c->metric, c->a.label, c->b.label, a, b,
            e, sp ? sp + 1 : iv, pr, ia, ib, verdict, v->note);
}

static void mrr_section(FILE *f, const MrrTable *t) {
    fprintf(f, "MRR per scheme: each seed ranked on its own (tied schemes share their places),"
               " mean ± sd over\nthe seeds and the 95%% interval of the mean; the last column"
               " ranks the seed means\n(`mrr_%s.csv`):\n\n"
               "| scheme | MRR per seed | 95%% interval | in distribution (%%) | MRR of the seed"
               " means |\n| --- | ---: | --- | ---: | ---: |\n", t->key);
    for (int i = 0; i < t->n; i++) {
        const MrrEntry *e = &t->e[i];
        fprintf(f, "| %s | %.3f ± %.3f | [%.3f, %.3f] | %.1f | %.3f |\n", e->scheme, e->mean,
                e->sd, e->lo, e->hi, 100 * e->indist, e->pooled);
    }
    fprintf(f, "\n");
}

static void key_section(FILE *f, const Report *r, const char *key) {
    const Remedy *m = remedy_find(r->remedies, key);
    fprintf(f, "\n## %s\n\n%s\n\n", key, m ? m->intro : "");
    for (int i = 0; i < r->n; i++) {
        const Claim *c = r->rows[i].claim;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(r->rows[j].claim->key, key) &&
                   !strcmp(r->rows[j].claim->claim, c->claim);
        if (!strcmp(c->key, key) && !seen)
            fprintf(f, "- claim: %s%s%s%s\n", c->claim, c->paper[0] ? " (" : "", c->paper,
                    c->paper[0] ? ")" : "");
    }
    fprintf(f, "\n");
    for (int i = 0; i < r->n_mrr; i++)
        if (!strcmp(r->mrr[i].key, key) && r->mrr[i].n) mrr_section(f, &r->mrr[i]);
    fprintf(f, "| setting | A | B | A | B | A − B | 95%% interval | pairing"
               " | in distribution A, B | verdict | note |\n"
               "| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->rows[i].claim->key, key)) row_line(f, &r->rows[i]);
}

int report_md(FILE *f, const Report *r) {
    fprintf(f, "# Verdicts: effect sizes with 95%% intervals\n\n"
               "Written by `./verdicts` at commit %s from `data/claims.csv` (one line per\n"
               "compared row: the claim, its arms and how they are compared) and the results\n"
               "files it names; every row is also in `verdicts.csv`.\n", r->commit);
    for (int i = 0; method[i]; i++) fprintf(f, "%s\n", method[i]);
    fprintf(f, "\n## Summary\n\nOne line per remedy: the row quoted, its interval and verdict; the"
               " tally counts every row of the remedy but the floor rows.\n\n"
               "| remedy | claim (paper) | result here | 95%% interval | verdict |\n"
               "| --- | --- | --- | --- | --- |\n");
    report_each_key(f, r, r->rows, r->n, summary_line);
    report_each_key(f, r, r->rows, r->n, key_section);
    report_replaced(f, r);
    return ferror(f) ? -1 : 0;
}
