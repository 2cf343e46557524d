// ./verdicts: the verdict of every claim in data/claims.csv against the results CSVs it names.
// Thin: reading, comparing and writing live in src/verdict/.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "stats/interval.h"
#include "stats/t_dist.h"
#include "verdict/claims.h"
#include "verdict/compare.h"
#include "verdict/mrr_file.h"
#include "verdict/report.h"

static void usage(FILE *f) {
    fprintf(f,
        "usage: ./verdicts [--claims FILE] [--remedies FILE] [--root DIR] [--out DIR]\n"
        "                  [--commit HASH]\n"
        "       ./verdicts --paired \"A1 A2 ...\" \"B1 B2 ...\" | --welch \"A1 ...\" \"B1 ...\"\n"
        "       ./verdicts --mrr CSV [--beyond L] [--metric COL]\n"
        "\n"
        "Compares row A against row B for every line of the claims file and writes\n"
        "OUT/verdicts.csv (every number of every row), OUT/verdicts.md (a summary line per\n"
        "claim key, then its paragraph and rows), OUT/summary.md (the keys the remedies file\n"
        "places at a glance, one line each, quoting the key's headline row), OUT/summary.svg\n"
        "(every key's headline row as a forest plot, one scale a row), OUT/replaced.csv (the\n"
        "rows of the replaced keys, as verdicts.csv) and, for each key whose rows rank\n"
        "schemes by MRR, OUT/mrr_KEY.csv (each scheme's per-seed MRR).\n"
        "\n"
        "  --claims FILE    one line per compared row (default data/claims.csv): key, paper,\n"
        "                   claim, model, task, steps, evaluation, metric (exact_match,\n"
        "                   token_acc, loss_last, mrr), direction (A>B, A<B, any), pairing\n"
        "                   (paired, unpaired, one-sample), row_a, file_a, select_a, row_b,\n"
        "                   file_b, select_b (one-sample: the target), gate, quote (headline,\n"
        "                   second or empty), note. A selection is col=v1|v2;col=v: a seed's\n"
        "                   value is its mean over every combination of the values.\n"
        "  --remedies FILE  one line per key (default data/remedies.csv): key, remedy, paper,\n"
        "                   claim, setting (summary.md's words for the headline row), glance\n"
        "                   (place in summary.md, or empty), note, intro, and optionally\n"
        "                   replaced_by: the key of a study that answers this one; a replaced\n"
        "                   key's rows leave verdicts.csv, the tallies and the summaries for\n"
        "                   replaced.csv and verdicts.md's last section (its failed arms'\n"
        "                   in-distribution scores, its steps, what the successor does not\n"
        "                   select)\n"
        "  --root DIR       where the results files' paths start (default .)\n"
        "  --out DIR        where to write (default results/verdicts)\n"
        "  --commit HASH    the commit verdicts.md names (default unknown)\n"
        "  --paired A B     print \"effect lo hi df t\" of the 95%% t interval of the\n"
        "                   differences of two samples of one size (space-separated), and exit\n"
        "  --welch A B      the same with Welch's standard error and the Welch-Satterthwaite\n"
        "                   df (fractional), as the study tables print it; df and t are 0\n"
        "                   when there is no spread\n"
        "  --mrr CSV        print \"variant,scheme,mrr,tasks\": each scheme's mean reciprocal\n"
        "                   rank over the tasks of CSV (columns task, scheme, length, the metric,\n"
        "                   an optional variant), scored by the metric's mean over all its rows\n"
        "                   with length > L (--beyond, default 0; --metric, default exact_match);\n"
        "                   tied schemes share their places (the mean of 1/r over them)\n"
        "  -h, --help       this help\n"
        "\n"
        "Intervals at 95%%: paired, the t interval of the per-seed differences (n - 1 df);\n"
        "unpaired, the t interval of the difference of the seed means, Welch's standard error\n"
        "with the smaller arm's n - 1 df (Hsu); one-sample, A's seed mean minus the target.\n"
        "Verdict: untested with one seed, or when either arm's own exact match at the gate\n"
        "(the training length) is below 90%%; floor when both arms are at 0%% or both at 100%%\n"
        "(left out of the tallies); untested when the seeds have no spread and the effect is\n"
        "not 0; else within the spread (the interval holds 0), reproduced or opposite (it\n"
        "excludes 0 in or against the claim's direction), or effect (no direction).\n");
}

// The MRR table of every key whose rows rank schemes (r->mrr, malloc'ed); 1 on error.
static int mrr_tables(Results *res, Report *r, char *err, int errlen) {
    MrrTable *t = calloc((size_t)r->n, sizeof *t);
    if (!t) return 1;
    r->mrr = t;
    for (int i = 0; i < r->n; i++) {
        const char *key = r->rows[i].claim->key;
        int seen = 0;
        for (int j = 0; j < r->n_mrr && !seen; j++) seen = !strcmp(t[j].key, key);
        if (seen || strcmp(r->rows[i].claim->metric, "mrr")) continue;
        if (mrr_table(res, r->rows, r->n, key, &t[r->n_mrr++], err, errlen)) {
            fprintf(stderr, "verdicts: %s\n", err);
            return 1;
        }
    }
    return 0;
}

#define MAX_SAMPLE 1024

// Space-separated numbers of text into x; their count, or -1 (message printed).
static int parse_sample(const char *text, double *x) {
    int n = 0;
    for (const char *p = text;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) return n;
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t') || n == MAX_SAMPLE) {
            fprintf(stderr, "verdicts: '%s' is not a list of numbers\n", text);
            return -1;
        }
        x[n++] = v, p = end;
    }
}

// --paired / --welch: one interval of two samples on stdout.
static int print_interval(const char *mode, const char *ta, const char *tb) {
    static double a[MAX_SAMPLE], b[MAX_SAMPLE];
    int na = parse_sample(ta, a), nb = parse_sample(tb, b), paired = !strcmp(mode, "--paired");
    if (na < 1 || nb < 1) {
        if (na == 0 || nb == 0) fprintf(stderr, "verdicts: %s needs two samples\n", mode);
        return 1;
    }
    if (paired && na != nb) {
        fprintf(stderr, "verdicts: --paired needs samples of one size (%d and %d)\n", na, nb);
        return 1;
    }
    Interval iv = paired ? interval_paired(a, b, na, 0.95) : interval_welch(a, na, b, nb, 0.95);
    printf("%.6f %.6f %.6f %.6f %.6f\n", iv.effect, iv.lo, iv.hi, iv.df,
           iv.df > 0 ? t_critical(0.95, iv.df) : 0);
    return 0;
}

// --mrr CSV [--beyond L] [--metric COL]: the MRR table on stdout.
static int print_mrr(int argc, char **argv) {
    const char *csv = NULL, *metric = "exact_match";
    int beyond = 0;
    for (int i = 2; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--beyond") && i + 1 < argc) {
            beyond = (int)strtol(argv[++i], &end, 10);
            if (!argv[i][0] || *end || beyond < 0) {
                fprintf(stderr, "verdicts: --beyond wants a length, not '%s'\n", argv[i]);
                return 1;
            }
        } else if (!strcmp(argv[i], "--metric") && i + 1 < argc) {
            metric = argv[++i];
        } else if (!csv && argv[i][0] != '-') {
            csv = argv[i];
        } else {
            fprintf(stderr, "verdicts: --mrr: unexpected '%s' (see --help)\n", argv[i]);
            return 1;
        }
    }
    if (!csv) { fprintf(stderr, "verdicts: --mrr needs a CSV file\n"); return 1; }
    CsvTable t;
    char err[512];
    int bad = csv_read(csv, &t, err, sizeof err) || mrr_by_variant(&t, beyond, metric, stdout,
                                                                    err, sizeof err);
    if (bad) fprintf(stderr, "%s\n", err);
    if (t.header) csv_free(&t);
    return bad ? 1 : 0;
}

typedef struct {
    const char *claims, *remedies, *root, *out, *commit;
} Options;

// 0, 1 for --help, -1 on a bad argument (message printed).
static int parse_args(int argc, char **argv, Options *o) {
    *o = (Options){"data/claims.csv", "data/remedies.csv", ".", "results/verdicts", "unknown"};
    const char *names[] = {"--claims", "--remedies", "--root", "--out", "--commit"};
    const char **slots[] = {&o->claims, &o->remedies, &o->root, &o->out, &o->commit};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
        int k = 0;
        while (k < 5 && strcmp(argv[i], names[k])) k++;
        if (k == 5 || i + 1 == argc) {
            fprintf(stderr, "verdicts: %s '%s' (see --help)\n",
                    k == 5 ? "unknown argument" : "no value after", argv[i]);
            return -1;
        }
        *slots[k] = argv[++i];
    }
    return 0;
}

typedef int (*Writer)(FILE *, const void *);

// Writes OUT/name with fn's text of ctx, atomically; 0 or -1 (message printed).
static int write_out(const char *out, const char *name, Writer fn, const void *r) {
    char *text = NULL, path[1024], err[512];
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) { perror("verdicts: open_memstream"); return -1; }
    int bad = fn(f, r);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", out, name);
    if (!bad && write_file_atomic(path, text, n, err, sizeof err)) {
        fprintf(stderr, "verdicts: %s\n", err);
        bad = 1;
    }
    free(text);
    return bad ? -1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (!strcmp(argv[1], "--paired") || !strcmp(argv[1], "--welch"))) {
        if (argc != 4) {
            fprintf(stderr, "verdicts: %s needs two samples\n", argv[1]);
            return 1;
        }
        return print_interval(argv[1], argv[2], argv[3]);
    }
    if (argc >= 2 && !strcmp(argv[1], "--mrr")) return print_mrr(argc, argv);
    Options o;
    int a = parse_args(argc, argv, &o);
    if (a) { usage(a > 0 ? stdout : stderr); return a > 0 ? 0 : 1; }
    char err[1024];
    Claims claims;
    Remedies remedies;
    if (claims_read(o.claims, &claims, err, sizeof err)) {
        fprintf(stderr, "verdicts: %s\n", err);
        return 1;
    }
    if (remedies_read(o.remedies, &remedies, err, sizeof err)) {
        fprintf(stderr, "verdicts: %s\n", err);
        claims_free(&claims);
        return 1;
    }
    Results results = {.root = o.root};
    VerdictRow *rows = calloc((size_t)claims.n, sizeof *rows);
    int bad = !rows;
    for (int i = 0; i < claims.n && !bad; i++)
        if (compare_claim(&results, &claims.rows[i], o.claims, &rows[i], err, sizeof err)) {
            fprintf(stderr, "verdicts: %s\n", err);
            bad = 1;
        }
    // The MRR tables of every key, replaced or not; then a replaced key's rows set aside.
    Report r = {rows, claims.n, &remedies, o.commit, NULL, 0, NULL, 0};
    if (!bad) bad = mrr_tables(&results, &r, err, sizeof err);
    VerdictRow *replaced = bad ? NULL : calloc((size_t)claims.n, sizeof *replaced);
    bad = bad || !replaced;
    if (!bad) r.n = report_set_aside(rows, claims.n, &remedies, replaced, &r.n_replaced);
    r.replaced = replaced;
    Report gone = {replaced, r.n_replaced, &remedies, o.commit, NULL, 0, NULL, 0};
    if (!bad && make_dirs(o.out, err, sizeof err)) {
        fprintf(stderr, "verdicts: %s\n", err);
        bad = 1;
    }
    bad = bad || write_out(o.out, "verdicts.csv", (Writer)report_csv, &r) ||
          write_out(o.out, "verdicts.md", (Writer)report_md, &r) ||
          write_out(o.out, "summary.md", (Writer)report_summary, &r) ||
          write_out(o.out, "summary.svg", (Writer)report_svg, &r) ||
          write_out(o.out, "replaced.csv", (Writer)report_csv, &gone);
    for (int i = 0; i < r.n_mrr && !bad; i++) {
        char name[256];
        snprintf(name, sizeof name, "mrr_%s.csv", r.mrr[i].key);
        bad = write_out(o.out, name, (Writer)report_mrr_csv, &r.mrr[i]);
    }
    if (!bad)
        printf("wrote %s/verdicts.csv, verdicts.md, summary.md and summary.svg (%d rows) and"
               " replaced.csv (%d rows)\n", o.out, r.n, r.n_replaced);
    free((void *)r.mrr);
    free(replaced);
    free(rows);
    results_free(&results);
    remedies_free(&remedies);
    claims_free(&claims);
    return bad ? 1 : 0;
}
