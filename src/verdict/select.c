#include "verdict/select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Copies [s, e) into dst of size n; -1 when it does not fit.
static int copy_span(char *dst, int n, const char *s, const char *e) {
    if (e - s >= n) return -1;
    memcpy(dst, s, (size_t)(e - s));
    dst[e - s] = 0;
    return 0;
}

// One "col=v1|v2" of [s, e) into filter f of sel.
static int parse_filter(const char *s, const char *e, Selection *sel, int f, char *err,
                        int errlen) {
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq || eq == s) {
        snprintf(err, errlen, "'%.*s' is not col=value", (int)(e - s), s);
        return -1;
    }
    if (copy_span(sel->col[f], sizeof sel->col[f], s, eq)) goto too_long;
    sel->n_values[f] = 0;
    for (const char *v = eq + 1;;) {
        const char *bar = memchr(v, '|', (size_t)(e - v));
        const char *end = bar ? bar : e;
        if (sel->n_values[f] == SELECT_MAX_VALUES) {
            snprintf(err, errlen, "more than %d values for %s", SELECT_MAX_VALUES, sel->col[f]);
            return -1;
        }
        if (copy_span(sel->value[f][sel->n_values[f]++], 48, v, end)) goto too_long;
        if (!bar) return 0;
        v = bar + 1;
    }
too_long:
    snprintf(err, errlen, "'%.*s': a name or value over 47 characters", (int)(e - s), s);
    return -1;
}

int selection_parse(const char *text, Selection *s, char *err, int errlen) {
    s->n = 0;
    for (const char *p = text; *p;) {
        const char *semi = strchr(p, ';');
        const char *end = semi ? semi : p + strlen(p);
        if (s->n == SELECT_MAX_FILTERS) {
            snprintf(err, errlen, "more than %d filters", SELECT_MAX_FILTERS);
            return -1;
        }
        if (parse_filter(p, end, s, s->n, err, errlen)) return -1;
        s->n++;
        p = semi ? semi + 1 : end;
    }
    if (s->n == 0) {
        snprintf(err, errlen, "an empty selection");
        return -1;
    }
    return 0;
}

int selection_override(Selection *s, const Selection *over, char *err, int errlen) {
    for (int o = 0; o < over->n; o++) {
        int f = 0;
        while (f < s->n && strcmp(s->col[f], over->col[o])) f++;
        if (f == s->n) {
            if (s->n == SELECT_MAX_FILTERS) {
                snprintf(err, errlen, "more than %d filters", SELECT_MAX_FILTERS);
                return -1;
            }
            s->n++;
        }
        memcpy(s->col[f], over->col[o], sizeof s->col[f]);
        memcpy(s->value[f], over->value[o], sizeof s->value[f]);
        s->n_values[f] = over->n_values[o];
    }
    return 0;
}

// The column of each filter in t (cols[f]) and of name; -1 with err set when one is missing.
static int find_columns(const CsvTable *t, const Selection *s, int *cols, char *err, int errlen) {
    for (int f = 0; f < s->n; f++) {
        cols[f] = csv_col(t, s->col[f]);
        if (cols[f] < 0) {
            char names[512];
            csv_columns(t, names, sizeof names);
            snprintf(err, errlen, "%s: no column '%s' (columns: %s)", t->name, s->col[f], names);
            return -1;
        }
    }
    return 0;
}

static int row_matches(char **row, const Selection *s, const int *cols) {
    for (int f = 0; f < s->n; f++) {
        int hit = 0;
        for (int v = 0; v < s->n_values[f] && !hit; v++)
            hit = !strcmp(row[cols[f]], s->value[f][v]);
        if (!hit) return 0;
    }
    return 1;
}

static int parse_double(const char *s, double *v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end == s || *end || errno ? -1 : 0;
}

// The slot of `seed` in acc (seeds[0..*n-1] ascending), added when new; -1 when full.
static int seed_slot(int *seeds, int *n, int seed) {
    int i = 0;
    while (i < *n && seeds[i] < seed) i++;
    if (i < *n && seeds[i] == seed) return i;
    if (*n == SERIES_MAX_SEEDS) return -1;
    return i;
}

typedef struct {
    int n, seed[SERIES_MAX_SEEDS], count[SERIES_MAX_SEEDS];
    double sum[SERIES_MAX_SEEDS];
} Accum;

// Adds value v of `seed` to a; -1 when there are too many seeds.
static int accum_add(Accum *a, int seed, double v) {
    int i = seed_slot(a->seed, &a->n, seed);
    if (i < 0) return -1;
    if (i == a->n || a->seed[i] != seed) {
        memmove(a->seed + i + 1, a->seed + i, (size_t)(a->n - i) * sizeof *a->seed);
        memmove(a->count + i + 1, a->count + i, (size_t)(a->n - i) * sizeof *a->count);
        memmove(a->sum + i + 1, a->sum + i, (size_t)(a->n - i) * sizeof *a->sum);
        a->seed[i] = seed, a->count[i] = 0, a->sum[i] = 0, a->n++;
    }
    a->count[i]++;
    a->sum[i] += v;
    return a->count[i];
}

static int combinations(const Selection *s) {
    int k = 1;
    for (int f = 0; f < s->n; f++) k *= s->n_values[f];
    return k;
}

int series_select(const CsvTable *t, const Selection *s, const char *metric, Series *out,
                  char *err, int errlen) {
    int cols[SELECT_MAX_FILTERS], seed_col = csv_col(t, "seed"), mcol = csv_col(t, metric);
    if (find_columns(t, s, cols, err, errlen)) return -1;
    if (seed_col < 0 || mcol < 0) {
        snprintf(err, errlen, "%s: no column '%s'", t->name, seed_col < 0 ? "seed" : metric);
        return -1;
    }
    Accum a = {0};
    int want = combinations(s);
    for (int r = 0; r < t->n_rows; r++) {
        char **row = t->rows[r];
        if (!row_matches(row, s, cols) || !row[mcol][0]) continue;
        double v, seed;
        if (parse_double(row[mcol], &v) || parse_double(row[seed_col], &seed)) {
            snprintf(err, errlen, "%s:%d: '%s' or seed '%s' is not a number", t->name,
                     t->line[r], row[mcol], row[seed_col]);
            return -1;
        }
        int count = accum_add(&a, (int)seed, v);
        if (count < 0 || count > want) {
            snprintf(err, errlen, count < 0 ? "%s:%d: more than 64 seeds"
                                            : "%s:%d: a second row of this seed and setting",
                     t->name, t->line[r]);
            return -1;
        }
    }
    out->n = 0;
    for (int i = 0; i < a.n; i++)
        if (a.count[i] == want) {
            out->seed[out->n] = a.seed[i];
            out->value[out->n++] = a.sum[i] / want;
        }
    return 0;
}

double series_mean(const Series *s) {
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += s->value[i];
    return s->n ? sum / s->n : 0;
}
