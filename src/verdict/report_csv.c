#include <stdio.h>

#include "verdict/format.h"
#include "verdict/report.h"

static const char *const header[] = {
    "key", "claim", "model", "task", "steps", "evaluation", "metric", "row_a", "row_b", "n",
    "mean_a", "sd_a", "mean_b", "sd_b", "effect", "lo95", "hi95", "df", "pairing", "indist_a",
    "indist_b", "verdict", "note"};
static const char *const pairing_name[] = {"paired", "unpaired", "one-sample"};

// The in-distribution score as the tables show it: % for exact match, else the metric's own.
static void format_gate(char *buf, int len, double g, int percent) {
    if (g != g) buf[0] = 0;
    else if (percent) snprintf(buf, len, "%.1f", 100 * g);
    else format_value(buf, len, g, 0);
}

static int write_row(FILE *f, const VerdictRow *v) {
    const Claim *c = v->claim;
    int pc = metric_is_percent(c->metric), one = c->pairing == PAIRING_ONE_SAMPLE;
    char n[32], ma[32], sa[32], mb[32], sb[32], e[32], lo[32], hi[32], df[32], ia[32], ib[32];
    char verdict[128];
    if (one || v->a.n == v->b.n) snprintf(n, sizeof n, "%d", v->a.n);
    else snprintf(n, sizeof n, "%d+%d", v->a.n, v->b.n);
    format_value(ma, sizeof ma, v->mean_a, pc), format_value(sa, sizeof sa, v->sd_a, pc);
    format_value(mb, sizeof mb, v->mean_b, pc), format_value(sb, sizeof sb, v->sd_b, pc);
    if (one) sb[0] = 0;
    format_signed(e, sizeof e, v->iv.effect, pc);
    format_signed(lo, sizeof lo, v->iv.lo, pc), format_signed(hi, sizeof hi, v->iv.hi, pc);
    if (v->iv.df > 0) snprintf(df, sizeof df, "%.2f", v->iv.df);
    else df[0] = 0;
    format_gate(ia, sizeof ia, v->gate_a, v->gate_percent);
    format_gate(ib, sizeof ib, v->gate_b, v->gate_percent);
    verdict_text(v, verdict, sizeof verdict);
    const char *fields[] = {c->key, c->claim, c->model, c->task, c->steps, c->evaluation,
                            c->metric, c->a.label, c->b.label, n, ma, sa, mb, sb, e, lo, hi, df,
                            pairing_name[c->pairing], ia, ib, verdict, v->note};
    return csv_write_row(f, 23, fields);
}

int report_mrr_csv(FILE *f, const MrrTable *t) {
    fprintf(f, "scheme,mrr_of_seed_means,mrr_mean,mrr_sd,lo95,hi95,indist\n");
    for (int i = 0; i < t->n; i++) {
        const MrrEntry *e = &t->e[i];
        fprintf(f, "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f\n", e->scheme, e->pooled, e->mean, e->sd,
                e->lo, e->hi, 100 * e->indist);
    }
    return ferror(f) ? -1 : 0;
}

int report_csv(FILE *f, const Report *r) {
    if (csv_write_row(f, 23, header)) return -1;
    for (int i = 0; i < r->n; i++)
        if (write_row(f, &r->rows[i])) return -1;
    return 0;
}
