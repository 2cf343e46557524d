// series_mrr of verdict/select.h: the mean reciprocal rank of one scheme among the others.
#include <stdio.h>
#include <string.h>

#include "verdict/rank.h"
#include "verdict/select.h"

#define MRR_MAX_SCHEMES 32

static int filter_of(const Selection *s, const char *col) {
    for (int f = 0; f < s->n; f++)
        if (!strcmp(s->col[f], col)) return f;
    return -1;
}

// The distinct schemes (file order) of the rows s selects with its scheme filter dropped.
static int list_schemes(const CsvTable *t, const Selection *s, int fs,
                        char names[][48], int *n, char *err, int errlen) {
    int cols[SELECT_MAX_FILTERS];
    for (int f = 0; f < s->n; f++)
        if ((cols[f] = csv_col(t, s->col[f])) < 0) {
            snprintf(err, errlen, "%s: no column '%s'", t->name, s->col[f]);
            return -1;
        }
    *n = 0;
    for (int r = 0; r < t->n_rows; r++) {
        int hit = 1;
        for (int f = 0; f < s->n && hit; f++) {
            if (f == fs) continue;
            hit = 0;
            for (int v = 0; v < s->n_values[f] && !hit; v++)
                hit = !strcmp(t->rows[r][cols[f]], s->value[f][v]);
        }
        const char *name = t->rows[r][cols[fs]];
        int k = 0;
        while (hit && k < *n && strcmp(names[k], name)) k++;
        if (!hit || k < *n) continue;
        if (*n == MRR_MAX_SCHEMES || strlen(name) >= 48) {
            snprintf(err, errlen, "%s:%d: too many schemes, or a name too long", t->name,
                     t->line[r]);
            return -1;
        }
        strcpy(names[(*n)++], name);
    }
    return 0;
}

static double value_of(const Series *s, int seed) {
    for (int i = 0; i < s->n; i++)
        if (s->seed[i] == seed) return s->value[i];
    return 0;   // a scheme without this seed's rows scores nothing
}

// Adds each seed's reciprocal rank on task `task` (the value of filter ft) to sum, count.
static int add_task(const CsvTable *t, const Selection *s, int ft, int fs, int task,
                    char names[][48], int n_schemes, Series *sum, int *count, char *err,
                    int errlen) {
    static Series by_scheme[MRR_MAX_SCHEMES];
    Selection one = *s;
    strcpy(one.value[ft][0], s->value[ft][task]);
    one.n_values[ft] = 1;
    int target = -1;
    for (int k = 0; k < n_schemes; k++) {
        strcpy(one.value[fs][0], names[k]);
        if (series_select(t, &one, "exact_match", &by_scheme[k], err, errlen)) return -1;
        if (!strcmp(names[k], s->value[fs][0])) target = k;
    }
    if (target < 0) return 0;
    for (int i = 0; i < by_scheme[target].n; i++) {
        int seed = by_scheme[target].seed[i];
        double score[MRR_MAX_SCHEMES];
        for (int k = 0; k < n_schemes; k++) score[k] = value_of(&by_scheme[k], seed);
        int j = 0;
        while (j < sum->n && sum->seed[j] != seed) j++;
        if (j == sum->n) sum->seed[sum->n] = seed, sum->value[sum->n++] = 0, count[j] = 0;
        sum->value[j] += reciprocal_rank(score, n_schemes, target);
        count[j]++;
    }
    return 0;
}

// The mean of a series' values (every seed at once: each seed's value averages as many rows).
static double pooled_score(const Series *s) {
    return series_mean(s);
}

int pooled_mrr(const CsvTable *t, const Selection *s, double *mrr, char *err, int errlen) {
    static Series by_scheme[MRR_MAX_SCHEMES];
    int fs = filter_of(s, "scheme"), ft = filter_of(s, "task");
    if (fs < 0 || ft < 0 || s->n_values[fs] != 1) {
        snprintf(err, errlen, "mrr wants one scheme=NAME and a task= filter");
        return -1;
    }
    char names[MRR_MAX_SCHEMES][48];
    int n_schemes;
    if (list_schemes(t, s, fs, names, &n_schemes, err, errlen)) return -1;
    double sum = 0;
    for (int task = 0; task < s->n_values[ft]; task++) {
        Selection one = *s;
        strcpy(one.value[ft][0], s->value[ft][task]);
        one.n_values[ft] = 1;
        double score[MRR_MAX_SCHEMES];
        int target = 0;
        for (int k = 0; k < n_schemes; k++) {
            strcpy(one.value[fs][0], names[k]);
            if (series_select(t, &one, "exact_match", &by_scheme[k], err, errlen)) return -1;
            score[k] = pooled_score(&by_scheme[k]);
            if (!strcmp(names[k], s->value[fs][0])) target = k;
        }
        sum += reciprocal_rank(score, n_schemes, target);
    }
    *mrr = sum / s->n_values[ft];
    return 0;
}

int series_mrr(const CsvTable *t, const Selection *s, Series *out, char *err, int errlen) {
    int fs = filter_of(s, "scheme"), ft = filter_of(s, "task");
    if (fs < 0 || ft < 0 || s->n_values[fs] != 1) {
        snprintf(err, errlen, "mrr wants one scheme=NAME and a task= filter");
        return -1;
    }
    char names[MRR_MAX_SCHEMES][48];
    int n_schemes, count[SERIES_MAX_SEEDS];
    if (list_schemes(t, s, fs, names, &n_schemes, err, errlen)) return -1;
    Series sum = {0};
    for (int task = 0; task < s->n_values[ft]; task++)
        if (add_task(t, s, ft, fs, task, names, n_schemes, &sum, count, err, errlen)) return -1;
    out->n = 0;   // the seeds ranked on every task, ascending as series_select gives them
    for (int i = 0; i < sum.n; i++)
        if (count[i] == s->n_values[ft]) {
            int j = out->n++;
            while (j > 0 && out->seed[j - 1] > sum.seed[i]) {
                out->seed[j] = out->seed[j - 1], out->value[j] = out->value[j - 1];
                j--;
            }
            out->seed[j] = sum.seed[i], out->value[j] = sum.value[i] / s->n_values[ft];
        }
    return 0;
}
