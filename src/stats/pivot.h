// Pivot tables: the rows of a CSV file (io/csv) summarised as one Markdown table, the tables
// of the experiments' results.md (./table is its command line).
//
//   rows     one table row per distinct key, in the order the keys first appear. A key is one
//            or more row columns, each a CSV column or a text naming columns in braces
//            ("{variant} at {length}"); the first names the row (left-aligned), the others
//            are right-aligned when every value they show is a number.
//   columns  with `cols`: one table column per distinct value of that CSV column, in numeric
//            order (as awk's `+ 0` reads it: a word is 0, so words keep their first-seen
//            order); without it, one table column per value column.
//   cells    PIVOT_MEAN: the mean of value * scale over the cell's samples, then " ± " and the
//            sample standard deviation (n - 1) when there are two or more; a sample is a row,
//            or with `per` the mean of the rows sharing a value of that column (a seed's mean
//            over lengths: scale * sum / count). Empty values are skipped; a cell without
//            samples is empty. With `cols`, a row whose runs carry a `converged` column saying
//            "not in N steps" is labelled "(not in N steps)", or "(k of n seeds not in ...)"
//            when only some of its seeds (the `seed` column, each counted once) stopped there.
//            PIVOT_SUM: the sum of value * scale. PIVOT_STEPS (runs trained until they
//            converge; columns seed, converged, cpu_seconds, the first row of each run read):
//            two table columns per `cols` value, the steps of each seed joined by " / " ("-"
//            for "not in N steps") and the runs' mean CPU seconds (%.1f), then a note naming
//            the ceiling.
//   filters  COL=VALUE, COL!=VALUE, COL>NUMBER, COL<NUMBER: a row is kept when it meets every
//            filter, except that several COL=VALUE of one column keep any of those values.
//   labels   VALUE=TEXT: a key or column value VALUE is printed as TEXT.
// Numbers are printed with `format`, one printf conversion (d i: the value truncated, as awk's
// %d). A value that is not a number, or a column the file lacks, is an error naming the file
// (and line): nothing is printed then.
#ifndef STATS_PIVOT_H
#define STATS_PIVOT_H

#include "io/csv.h"
#include "util/strbuf.h"

#define PIVOT_MAX_ITEMS 32

typedef enum { PIVOT_MEAN, PIVOT_SUM, PIVOT_STEPS } PivotCell;

typedef struct {
    const char *rows[PIVOT_MAX_ITEMS];    // "[HEADING=]COLUMN" or "[HEADING=]text with {COLUMN}"
    int n_rows;
    const char *cols;                     // NULL: one table column per value
    const char *values[PIVOT_MAX_ITEMS];  // "[HEADING=]COLUMN"
    int n_values;
    const char *filters[PIVOT_MAX_ITEMS];
    int n_filters;
    const char *labels[PIVOT_MAX_ITEMS];  // "VALUE=TEXT"
    int n_labels;
    const char *per;                      // NULL: every row is a sample
    double scale;                         // 1 unless set
    const char *format;                   // "%.1f" unless set
    PivotCell cell;
} PivotSpec;

// A spec with its defaults: scale 1, format %.1f, PIVOT_MEAN, nothing else.
PivotSpec pivot_spec_default(void);

// Writes the table (lines ending in '\n') to out. Returns 0, or -1 with err set and nothing
// appended (a spec that does not fit the file, a value that is not a number).
int pivot_markdown(const PivotSpec *spec, const CsvTable *t, StrBuf *out, char *err, int errlen);

#endif
