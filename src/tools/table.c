// ./table: a Markdown table of a CSV file's rows (stats/pivot.h), the tables of the experiment
// scripts' results.md. See usage() for the options.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "stats/pivot.h"
#include "util/strbuf.h"

static void usage(FILE *f) {
    fputs(
        "usage: ./table [--rows KEY...] [--cols COL] --value VALUE... [options] FILE.csv\n"
        "\n"
        "Prints a Markdown table of FILE.csv's rows (a header row, then rows); the rules are in\n"
        "src/stats/pivot.h. The experiment scripts write their results.md tables with it.\n"
        "\n"
        "  --rows [HEADING=]KEY  the table's rows, in the order they first appear: KEY is a CSV\n"
        "                     column, or a text naming columns in braces (\"{variant} at\n"
        "                     {length}\"; a brace that names no column holds an EXPR, its\n"
        "                     number printed as %g: \"{position//16*16}\"); repeatable, a\n"
        "                     table column each (the first left-aligned, the others\n"
        "                     right-aligned when all are numbers);\n"
        "                     none: one row over all the rows kept\n"
        "  --cols COL         one table column per value of COL, in numeric order (words as\n"
        "                     they come), for each --value in turn\n"
        "  --value [HEADING=]EXPR[:AGG[:FORMAT]]  the numbers in the cells, a table column each\n"
        "                     (with --cols, a column per COL value each). EXPR: a column, or\n"
        "                     columns and numbers joined by + - * / // (floor of a / b), left\n"
        "                     to right (a+b/c is (a + b) / c). AGG (else --agg): mean, median\n"
        "                     (of an even count the mean of the middle two), sum, count, min,\n"
        "                     max, wmean(COL) (the mean weighted by COL), share (the sum\n"
        "                     over the sum of every row's cell in its column, x --scale:\n"
        "                     --scale 100 for a percentage of the column's total); text, last:\n"
        "                     the first, last row's value as written; argmax(COL): the value\n"
        "                     as written in the row of the largest COL (the first of equal\n"
        "                     ones). FORMAT: this value's --format\n"
        "  --agg AGG          the AGG of values that name none (default: mean ± sd, below)\n"
        "  --filter COND      COL=VALUE, COL!=VALUE, or COL>, COL<, COL>=, COL<= a NUMBER;\n"
        "                     repeatable: a row must meet each (COL=VALUE repeated on one\n"
        "                     column: any of those)\n"
        "  --first-of KEY     only the first row of each KEY (as --rows; \"{run},{seed}\") with a\n"
        "                     value counts: a run's CPU seconds on each of its rows, once\n"
        "  --scale X          multiply the values by X (100: fractions as %; default 1)\n"
        "  --format FMT       a number's printf conversion, one of d i e f g (default %.1f; %d\n"
        "                     truncates, as awk's)\n"
        "  --per COL          average the rows sharing a value of COL first (--per seed: each\n"
        "                     seed's mean over its cell's rows), then mean and sd of those\n"
        "  --steps            cells of runs trained until they converge (columns seed, converged,\n"
        "                     cpu_seconds): per --cols value the steps of each seed (\"-\":\n"
        "                     not in N steps) and their mean CPU seconds; then a line\n"
        "                     naming the ceiling\n"
        "  --label VALUE=TEXT print a row's or column's value VALUE as TEXT (repeatable)\n"
        "  --plain            no header, no Markdown: each row's keys and cells joined by commas\n"
        "                     (for a script: ./table --plain --value cpu_seconds:sum:%.0f F.csv)\n"
        "  --csv              --plain after a header line (key headings, then the --cols values\n"
        "                     or the value headings): a CSV for another ./table\n"
        "  -h, --help         this help\n"
        "\n"
        "Cells (default): mean ± sample standard deviation (n - 1) of value x scale over the\n"
        "cell's rows (a bare mean for one row, empty for none); empty values are skipped. With\n"
        "--cols and a `converged` column, a row some of whose seeds stopped at the ceiling says\n"
        "so: \"none (not in 6000 steps)\", \"rope (2 of 3 seeds not in 6000 steps)\".\n"
        "Bad input (a value that is not a number, a missing column, a ragged row) is reported as\n"
        "`table: FILE:LINE: what is wrong` with exit status 1 (2 for bad options).\n"
        "\n"
        "example: ./table --rows scheme --cols length --value exact_match --scale 100 \\\n"
        "             --filter task=copy results/lengthgen/results.csv\n",
        f);
}

static int add(const char **list, int *n, const char *opt, const char *v) {
    if (*n == PIVOT_MAX_ITEMS) {
        fprintf(stderr, "table: more than %d %s\n", PIVOT_MAX_ITEMS, opt);
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}

// Parses argv into s and *in. Returns 0, 1 for --help, -1 on error (message printed).
static int parse_args(int argc, char **argv, PivotSpec *s, const char **in) {
    *s = pivot_spec_default();
    *in = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!strcmp(a, "--plain")) { s->plain = PIVOT_PLAIN; continue; }
        if (!strcmp(a, "--csv")) { s->plain = PIVOT_CSV; continue; }
        if (!strcmp(a, "--steps")) { s->cell = PIVOT_STEPS; continue; }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (*in) {
                fprintf(stderr, "table: more than one input file ('%s' and '%s')\n", *in, a);
                return -1;
            }
            *in = a;
            continue;
        }
        static const char *const takes_value[] = {"--rows", "--cols", "--value", "--filter",
            "--scale", "--format", "--per", "--label", "--agg", "--first-of", NULL};
        int known = 0;
        for (int k = 0; takes_value[k]; k++) known |= !strcmp(a, takes_value[k]);
        if (!known) {
            fprintf(stderr, "table: unknown option '%s' (see ./table --help)\n", a);
            return -1;
        }
        if (i + 1 >= argc) { fprintf(stderr, "table: %s needs a value\n", a); return -1; }
        const char *v = argv[++i];
        int rc = 0;
        if (!strcmp(a, "--rows")) rc = add(s->rows, &s->n_rows, "--rows", v);
        else if (!strcmp(a, "--value")) rc = add(s->values, &s->n_values, "--value", v);
        else if (!strcmp(a, "--filter")) rc = add(s->filters, &s->n_filters, "--filter", v);
        else if (!strcmp(a, "--label")) rc = add(s->labels, &s->n_labels, "--label", v);
        else if (!strcmp(a, "--cols")) s->cols = v;
        else if (!strcmp(a, "--per")) s->per = v;
        else if (!strcmp(a, "--agg")) s->agg = v;
        else if (!strcmp(a, "--first-of")) s->first_of = v;
        else if (!strcmp(a, "--format")) s->format = v;
        else {
            char *end;
            s->scale = strtod(v, &end);
            if (end == v || *end) {
                fprintf(stderr, "table: --scale wants a number, got '%s'\n", v);
                return -1;
            }
        }
        if (rc) return -1;
    }
    if (!*in) { fprintf(stderr, "table: no input file (see ./table --help)\n"); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    PivotSpec spec;
    const char *in;
    int rc = parse_args(argc, argv, &spec, &in);
    if (rc == 1) { usage(stdout); return 0; }
    if (rc) return 2;
    CsvTable t;
    char err[768];
    if (csv_read(in, &t, err, sizeof err)) {
        fprintf(stderr, "table: %s\n", err);
        return 1;
    }
    StrBuf out = {0};
    rc = pivot_markdown(&spec, &t, &out, err, sizeof err);
    csv_free(&t);
    if (rc) {
        fprintf(stderr, "table: %s\n", err);
        strbuf_free(&out);
        return 1;
    }
    if (out.len && fwrite(out.s, 1, out.len, stdout) != out.len) rc = 1;
    strbuf_free(&out);
    if (fflush(stdout) || rc) { fprintf(stderr, "table: write error\n"); return 1; }
    return 0;
}
