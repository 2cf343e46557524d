#include "verdict/mrr_table.h"

#include <string.h>

// Adds the arm (its label, series and gate) unless the table has it; -1 with err set.
static int add_arm(Results *res, MrrTable *t, const Arm *arm, const Series *s, double gate,
                   char *err, int errlen) {
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].scheme, arm->label)) return 0;
    if (t->n == MRR_TABLE_MAX) return snprintf(err, errlen, "more than 32 schemes"), -1;
    MrrEntry *e = &t->e[t->n++];
    Interval iv = interval_one_sample(s->value, s->n, 0, 0.95);
    *e = (MrrEntry){arm->label, iv.effect, sample_sd(s->value, s->n), iv.lo, iv.hi, gate, 0};
    const CsvTable *table = results_table(res, arm->file, err, errlen);
    Selection sel;
    if (!table || selection_parse(arm->select, &sel, err, errlen)) return -1;
    return pooled_mrr(table, &sel, &e->pooled, err, errlen);
}

int mrr_table(Results *res, const VerdictRow *rows, int n, const char *key, MrrTable *t,
              char *err, int errlen) {
    t->key = key, t->n = 0;
    for (int i = 0; i < n; i++) {
        const VerdictRow *v = &rows[i];
        if (strcmp(v->claim->key, key) || strcmp(v->claim->metric, "mrr")) continue;
        if (add_arm(res, t, &v->claim->a, &v->a, v->gate_a, err, errlen) ||
            add_arm(res, t, &v->claim->b, &v->b, v->gate_b, err, errlen))
            return -1;
    }
    return 0;
}
