// The mean reciprocal rank of each scheme over the tasks of a results CSV, per variant, as
// Kazemnejad et al. (2023) rank schemes: score(task, scheme) is the mean of the metric over
// every row of that task and scheme (all seeds) whose length is above `beyond`; per task and
// variant the schemes are ranked by it (verdict/rank.h: tied schemes share their places); a
// scheme's MRR is the mean over the tasks it has. Columns task, scheme, length and the metric;
// an optional variant column keeps variants apart ("" when absent).
//
// Writes "variant,scheme,mrr,tasks" rows (MRR with 4 decimals), variants and schemes in the
// order they first appear.
#ifndef VERDICT_MRR_FILE_H
#define VERDICT_MRR_FILE_H

#include <stdio.h>

#include "io/csv.h"

// 0, or -1 with err set as `file:line: ...` (a missing column, a cell that is not a number,
// more variants, tasks or schemes than it holds).
int mrr_by_variant(const CsvTable *t, int beyond, const char *metric, FILE *out, char *err,
                   int errlen);
#endif
