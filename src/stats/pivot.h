// Pivot tables: the rows of a CSV file (io/csv) summarised as one Markdown table, the tables
// of the experiments' results.md (./table is its command line).
//
//   rows     one table row per distinct key, in the order the keys first appear. A key is one
//            or more row columns, each a CSV column or a text naming columns in braces
//            ("{variant} at {length}"; a brace naming no column holds an EXPR, as in values,
//            its number printed as %g: "{position//16}"); the first names the row
//            (left-aligned), the others are right-aligned when every value they show is a
//            number. No row column: one row over every CSV row kept.
//   columns  with `cols`: one table column per distinct value of that CSV column, in numeric
//            order (as awk's `+ 0` reads it: a word is 0, so words keep their first-seen
//            order), for each value in turn; without it, one table column per value.
//   cells    PIVOT_MEAN: the mean of value * scale over the cell's samples, then " ± " and the
//            sample standard deviation (n - 1) when there are two or more; a sample is a row,
//            or with `per` the mean of the rows sharing a value of that column (a seed's mean
//            over lengths: scale * sum / count). Empty values are skipped; a cell without
//            samples is empty. With `cols`, a row whose runs carry a `converged` column saying
//            "not in N steps" is labelled "(not in N steps)", or "(k of n seeds not in ...)"
//            when only some of its seeds (the `seed` column, each counted once) stopped there.
//            (A sum is the `sum` aggregate of values, below.) PIVOT_STEPS (runs trained until
//            they converge; columns seed, converged, cpu_seconds, the first row of each run read):
//            two table columns per `cols` value, the steps of each seed joined by " / " ("-"
//            for "not in N steps") and the runs' mean CPU seconds (%.1f), then a note naming
//            the ceiling.
//   values   "[HEADING=]EXPR[:AGG[:FORMAT]]". EXPR is a column, or columns and numbers joined
//            by + - * / and // (floor(a / b): a window's index), evaluated left to right
//            (t1+t2/alone is (t1 + t2) / alone; position//16*16 a window's start); a row
//            whose operands include an empty one gives no sample. AGG (else `agg`, else the
//            cell rule above) summarises a cell's samples (value * scale, or the `per` means):
//            mean, median (of an even count: the mean of the middle two), sum, count, min,
//            max; wmean(COL): scale x sum(value x COL) / sum(COL) over the rows whose COL is
//            not empty; share: scale x the cell's sum / the sum of this value over every
//            row's cell in its table column (a row's share of the column's total); text,
//            last: the first, the last sample's column as written; argmax(COL): the value
//            column as written in the row whose COL is largest (the first of equal ones).
//   filters  COL=VALUE, COL!=VALUE, COL>NUMBER, COL<NUMBER, COL>=NUMBER, COL<=NUMBER: a row is
//            kept when it meets every filter, except that several COL=VALUE of one column keep
//            any of those values.
//   first_of a key (as a row column): only the first row of each of its values that has a
//            value counts (a run's CPU seconds repeated on each of its rows counted once).
//   labels   VALUE=TEXT: a key or column value VALUE is printed as TEXT.
//   plain    PIVOT_PLAIN: no header and no Markdown, each row's keys and cells joined by
//            commas (for a script to read; without rows, one line of the cells over every row
//            kept); PIVOT_CSV: the same after a header line (the keys' headings, then the
//            `cols` values or the values' headings), a CSV file for another table.
// Numbers are printed with `format`, one printf conversion (d i: the value truncated, as awk's
// %d). A value that is not a number, or a column the file lacks, is an error naming the file
// (and line): nothing is printed then.
#ifndef STATS_PIVOT_H
#define STATS_PIVOT_H

#include "io/csv.h"
#include "util/strbuf.h"

#define PIVOT_MAX_ITEMS 32

typedef enum { PIVOT_MEAN, PIVOT_STEPS } PivotCell;

typedef enum { PIVOT_MARKDOWN, PIVOT_PLAIN, PIVOT_CSV } PivotOutput;

typedef struct {
    const char *rows[PIVOT_MAX_ITEMS];    // "[HEADING=]COLUMN" or "[HEADING=]text with {COLUMN}"
    int n_rows;
    const char *cols;                     // NULL: one table column per value
    const char *values[PIVOT_MAX_ITEMS];  // "[HEADING=]EXPR[:AGG[:FORMAT]]"
    int n_values;
    const char *filters[PIVOT_MAX_ITEMS];
    int n_filters;
    const char *labels[PIVOT_MAX_ITEMS];  // "VALUE=TEXT"
    int n_labels;
    const char *per;                      // NULL: every row is a sample
    const char *first_of;                 // NULL: every row counts
    const char *agg;                      // NULL: the cell rule (PivotCell)
    int plain;                            // PIVOT_MARKDOWN, PIVOT_PLAIN or PIVOT_CSV
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
