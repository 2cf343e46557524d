// The MRR table of a claim key whose rows compare schemes by mean reciprocal rank: one entry per
// scheme its rows name (first-seen order), with the per-seed MRR's mean, sd and the 95% t
// interval of that mean, its in-distribution exact match, and the MRR of its seed means
// (verdict/select.h pooled_mrr) beside it for comparison.
#ifndef VERDICT_MRR_TABLE_H
#define VERDICT_MRR_TABLE_H

#include "verdict/compare.h"

#define MRR_TABLE_MAX 32

typedef struct {
    const char *scheme;
    double mean, sd, lo, hi, indist, pooled;
} MrrEntry;

typedef struct {
    const char *key;
    int n;
    MrrEntry e[MRR_TABLE_MAX];
} MrrTable;

// The table of `key` from rows[0..n); t->n = 0 when none of its rows is on MRR. 0, or -1 with
// err set.
int mrr_table(Results *res, const VerdictRow *rows, int n, const char *key, MrrTable *t,
              char *err, int errlen);
#endif
