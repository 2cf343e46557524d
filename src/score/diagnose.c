// Per-position diagnosis of a translator, see diagnose.h.
#include "score/diagnose.h"
#include <stdlib.h>
#include <string.h>
#include "data/vocab.h"

void diagnosis_init(Diagnosis *d, int end_token) {
    memset(d, 0, sizeof *d);
    d->end_token = end_token;
}

void diagnosis_free(Diagnosis *d) {
    free(d->by_position.cell);
    free(d->by_clause.cell);
    memset(d, 0, sizeof *d);
}

// The cell of index i, growing the table (new cells zero); NULL if out of memory.
static DiagCell *cell(DiagRows *r, int i) {
    if (i >= r->cap) {
        int cap = r->cap ? r->cap : 64;
        while (cap <= i) cap *= 2;
        DiagCell *c = realloc(r->cell, sizeof *c * (size_t)cap);
        if (!c) return NULL;
        memset(c + r->cap, 0, sizeof *c * (size_t)(cap - r->cap));
        r->cell = c;
        r->cap = cap;
    }
    if (i >= r->n) r->n = i + 1;
    return &r->cell[i];
}

int diagnosis_add_teacher(Diagnosis *d, const int *ref, const int *clause, const int *right,
                          int T) {
    for (int t = 0; t < T; t++) {
        if (ref[t] == TOK_PAD) continue;
        DiagCell *p = cell(&d->by_position, t), *c = cell(&d->by_clause, clause[t]);
        if (!p || !c) return -1;
        p->tokens++, c->tokens++;
        p->correct += right[t], c->correct += right[t];
    }
    return 0;
}

int first_departure(const int *hyp, const int *ref, int n) {
    int t = 0;
    while (t < n && hyp[t] == ref[t]) t++;
    return t;
}

int diagnosis_add_greedy(Diagnosis *d, const int *hyp, const int *ref, const int *clause,
                         int n_cmp) {
    int dep = first_departure(hyp, ref, n_cmp);
    // Reached: every position up to the departure (all when right), every clause that had
    // begun by then.
    int last_clause = dep < n_cmp ? clause[dep] : n_cmp ? clause[n_cmp - 1] : -1;
    for (int t = 0; t <= dep && t < n_cmp; t++)
        if (!cell(&d->by_position, t)) return -1;
    for (int t = 0; t <= dep && t < n_cmp; t++) d->by_position.cell[t].reached++;
    for (int c = 0; c <= last_clause; c++) {
        DiagCell *x = cell(&d->by_clause, c);
        if (!x) return -1;
        x->reached++;
    }
    if (dep == n_cmp) return dep;
    int eos = hyp[dep] == TOK_EOS, end = eos || (d->end_token >= 0 && hyp[dep] == d->end_token);
    DiagCell *cells[2] = {&d->by_position.cell[dep], &d->by_clause.cell[last_clause]};
    for (int k = 0; k < 2; k++) {
        cells[k]->departs++;
        cells[k]->early_eos += eos;
        cells[k]->early_end += end;
    }
    return dep;
}

static void write_rows(FILE *f, const DiagRows *r, const char *split, int length, const char *by) {
    for (int i = 0; i < r->n; i++) {
        const DiagCell *c = &r->cell[i];
        fprintf(f, "%s,%d,%s,%d,%ld,", split, length, by, i, c->tokens);
        if (c->tokens) fprintf(f, "%.6g", (double)c->correct / c->tokens);
        fprintf(f, ",%ld,%ld,", c->reached, c->departs);
        if (c->reached) fprintf(f, "%.6g", (double)c->departs / c->reached);
        fprintf(f, ",%ld,%ld\n", c->early_eos, c->early_end);
    }
}

void diagnosis_write(FILE *f, const Diagnosis *d, const char *split, int length, int header) {
    if (header)
        fprintf(f, "split,length,by,index,tokens,token_acc,reached,departures,departure_rate,"
                   "early_eos,early_end\n");
    write_rows(f, &d->by_position, split, length, "position");
    write_rows(f, &d->by_clause, split, length, "clause");
}
