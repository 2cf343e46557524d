#include "verdict/mrr_file.h"

#include <stdlib.h>
#include <string.h>

#include "verdict/rank.h"

#define MAX_NAMES 32

typedef struct {
    int n;
    const char *name[MAX_NAMES];
} Names;

// The index of s in names, added when new; -1 when full.
static int name_index(Names *names, const char *s) {
    for (int i = 0; i < names->n; i++)
        if (!strcmp(names->name[i], s)) return i;
    if (names->n == MAX_NAMES) return -1;
    names->name[names->n] = s;
    return names->n++;
}

typedef struct {
    Names variants, tasks[MAX_NAMES], schemes[MAX_NAMES];
    double sum[MAX_NAMES][MAX_NAMES][MAX_NAMES];   // [variant][task][scheme]
    int count[MAX_NAMES][MAX_NAMES][MAX_NAMES];
} Scores;

// Adds every row above `beyond` into sc; -1 with err set.
static int gather(const CsvTable *t, int beyond, const char *metric, Scores *sc, char *err,
                  int errlen) {
    int ct = csv_col(t, "task"), cs = csv_col(t, "scheme"), cl = csv_col(t, "length");
    int cm = csv_col(t, metric), cv = csv_col(t, "variant");
    const char *need[] = {"task", "scheme", "length", metric};
    int have[] = {ct, cs, cl, cm};
    for (int i = 0; i < 4; i++)
        if (have[i] < 0)
            return snprintf(err, errlen, "%s:1: no column \"%s\"", t->name, need[i]), -1;
    for (int r = 0; r < t->n_rows; r++) {
        char **row = t->rows[r], *end;
        if (atoi(row[cl]) <= beyond || !row[cm][0]) continue;
        double x = strtod(row[cm], &end);
        if (*end) return snprintf(err, errlen, "%s:%d: %s is \"%s\", not a number", t->name,
                                  t->line[r], metric, row[cm]), -1;
        int v = name_index(&sc->variants, cv >= 0 ? row[cv] : "");
        int k = v < 0 ? -1 : name_index(&sc->tasks[v], row[ct]);
        int s = v < 0 ? -1 : name_index(&sc->schemes[v], row[cs]);
        if (k < 0 || s < 0)
            return snprintf(err, errlen, "%s:%d: more than %d names", t->name, t->line[r],
                            MAX_NAMES), -1;
        sc->sum[v][k][s] += x, sc->count[v][k][s]++;
    }
    return 0;
}

static void write_variant(const Scores *sc, int v, FILE *out) {
    double total[MAX_NAMES] = {0}, score[MAX_NAMES];
    int n_tasks[MAX_NAMES] = {0}, who[MAX_NAMES];
    for (int k = 0; k < sc->tasks[v].n; k++) {
        int n = 0;
        for (int s = 0; s < sc->schemes[v].n; s++)
            if (sc->count[v][k][s]) who[n] = s, score[n++] = sc->sum[v][k][s] / sc->count[v][k][s];
        for (int i = 0; i < n; i++) {
            total[who[i]] += reciprocal_rank(score, n, i);
            n_tasks[who[i]]++;
        }
    }
    for (int s = 0; s < sc->schemes[v].n; s++)
        fprintf(out, "%s,%s,%.4f,%d\n", sc->variants.name[v], sc->schemes[v].name[s],
                n_tasks[s] ? total[s] / n_tasks[s] : 0, n_tasks[s]);
}

int mrr_by_variant(const CsvTable *t, int beyond, const char *metric, FILE *out, char *err,
                   int errlen) {
    Scores *sc = calloc(1, sizeof *sc);
    if (!sc) return snprintf(err, errlen, "out of memory"), -1;
    int bad = gather(t, beyond, metric, sc, err, errlen);
    if (!bad) {
        fprintf(out, "variant,scheme,mrr,tasks\n");
        for (int v = 0; v < sc->variants.n; v++) write_variant(sc, v, out);
    }
    free(sc);
    return bad;
}
