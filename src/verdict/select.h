// Selecting a per-seed series from a results CSV. A selection is "col=v1|v2;col2=v": a row
// is taken when each named column holds one of its values. A seed's value is the mean of its
// rows' metric over every combination of the values (lengths 17-64, eight schemes), and a seed
// that lacks a combination is left out, as is a row whose metric cell is empty; two rows of
// one seed and combination are an error. An override ("length=3") replaces or adds filters:
// the gate is the arm's own selection at the training length.
//
// The metric "mrr" is the mean reciprocal rank of the one selected scheme: per seed and task,
// every scheme the other filters select is scored by its mean exact match over the selected
// lengths, ranked (verdict/rank.h), and the reciprocal ranks are averaged over the tasks.
#ifndef VERDICT_SELECT_H
#define VERDICT_SELECT_H

#include "io/csv.h"

#define SELECT_MAX_FILTERS 12
#define SELECT_MAX_VALUES 24
#define SERIES_MAX_SEEDS 64

typedef struct {
    int n;
    char col[SELECT_MAX_FILTERS][48];
    int n_values[SELECT_MAX_FILTERS];
    char value[SELECT_MAX_FILTERS][SELECT_MAX_VALUES][48];
} Selection;

typedef struct {
    int n;
    int seed[SERIES_MAX_SEEDS];       // ascending
    double value[SERIES_MAX_SEEDS];
} Series;

// Parses text into s; 0, or -1 with err set (no "=", too many filters or values, too long).
int selection_parse(const char *text, Selection *s, char *err, int errlen);
// Replaces s's filter of each column `over` names, or adds it.
int selection_override(Selection *s, const Selection *over, char *err, int errlen);
// The series of `metric` in t under s; 0, or -1 with err set (unknown column, a value that is
// not a number, a duplicate row: `file:line: ...`). No row at all is not an error (n = 0).
int series_select(const CsvTable *t, const Selection *s, const char *metric, Series *out,
                  char *err, int errlen);
int series_mrr(const CsvTable *t, const Selection *s, Series *out, char *err, int errlen);
// The MRR of the seed means: as series_mrr, but each scheme scored by its mean over every seed
// at once (scripts/mrr.sh's ranking); one number into *mrr.
int pooled_mrr(const CsvTable *t, const Selection *s, double *mrr, char *err, int errlen);
double series_mean(const Series *s);
#endif
