// Writing the verdicts: verdicts.csv (one line per compared row, every number), verdicts.md
// (a summary line per claim key quoting its headline row, then each key's paragraph, claims and
// rows, then the replaced studies), summary.md (the keys data/remedies.csv places at a glance,
// one line each) and summary.svg (every key's headline row as a forest plot). The rows of a
// replaced key are in none of them but verdicts.md's last section. The words come from
// data/claims.csv and data/remedies.csv; the numbers from verdict/compare.h.
#ifndef VERDICT_REPORT_H
#define VERDICT_REPORT_H

#include <stdio.h>

#include "verdict/claims.h"
#include "verdict/compare.h"
#include "verdict/mrr_table.h"

typedef struct {
    const VerdictRow *rows;
    int n;
    const Remedies *remedies;
    const char *commit;       // named in verdicts.md's first paragraph
    const MrrTable *mrr;      // [n_mrr] the keys ranked by MRR
    int n_mrr;
    const VerdictRow *replaced;  // [n_replaced] the rows of the keys data/remedies.csv replaces
    int n_replaced;
} Report;

int report_csv(FILE *f, const Report *r);
int report_md(FILE *f, const Report *r);
// verdicts.md's last section: per replaced key, its successor, its tally, the arms below the
// gate with their in-distribution scores, the steps of both, and the selected values (schemes,
// tasks, lengths) of its rows that no row of the successor selects.
void report_replaced(FILE *f, const Report *r);
// Moves the rows of the keys m replaces from rows[n] to replaced (room for n), in order; the
// rows that stay keep theirs. Returns how many stay; *n_replaced how many moved.
int report_set_aside(VerdictRow *rows, int n, const Remedies *m, VerdictRow *replaced,
                     int *n_replaced);
int report_summary(FILE *f, const Report *r);
// summary.svg: every key's headline row as a forest plot (plot/forest.h), coloured by verdict.
int report_svg(FILE *f, const Report *r);
// mrr_KEY.csv: scheme,mrr_of_seed_means,mrr_mean,mrr_sd,lo95,hi95,indist
int report_mrr_csv(FILE *f, const MrrTable *t);
// fn(f, r, key) once per distinct claim key of rows[n], in the order the keys first appear.
void report_each_key(FILE *f, const Report *r, const VerdictRow *rows, int n,
                     void (*fn)(FILE *, const Report *, const char *));
// The tally of key's rows: "8 rows: 2 reproduced, 6 within the spread; 1 want 5 seeds"
// (floor rows left out and counted after it).
void report_tally(const Report *r, const char *key, char *buf, int len);
#endif
