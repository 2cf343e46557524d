#include "verdict/claims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/select.h"

// The columns a file must have, in any order; -1 with err set when one is missing.
static int need_columns(const CsvTable *t, const char *const *names, int n, int *cols,
                        char *err, int errlen) {
    for (int i = 0; i < n; i++)
        if ((cols[i] = csv_col(t, names[i])) < 0) {
            char have[512];
            csv_columns(t, have, sizeof have);
            snprintf(err, errlen, "%s:1: no column '%s' (columns: %s)", t->name, names[i], have);
            return -1;
        }
    return 0;
}

enum { C_KEY, C_PAPER, C_CLAIM, C_MODEL, C_TASK, C_STEPS, C_EVALUATION, C_METRIC, C_DIRECTION,
       C_PAIRING, C_ROW_A, C_FILE_A, C_SELECT_A, C_ROW_B, C_FILE_B, C_SELECT_B, C_GATE, C_QUOTE,
       C_NOTE, C_COLUMNS };
static const char *const claim_columns[C_COLUMNS] = {
    "key", "paper", "claim", "model", "task", "steps", "evaluation", "metric", "direction",
    "pairing", "row_a", "file_a", "select_a", "row_b", "file_b", "select_b", "gate", "quote",
    "note"};

// Index of s in words[n], or -1.
static int word_index(const char *s, const char *const *words, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s, words[i])) return i;
    return -1;
}

// The enumerated fields and the selections of one row; -1 with the reason in why.
static int parse_claim_fields(Claim *c, char **f, const int *col, char *why, int whylen) {
    static const char *const dirs[] = {"A<B", "any", "A>B"};
    static const char *const pairings[] = {"paired", "unpaired", "one-sample"};
    static const char *const quotes[] = {"", "headline", "second"};
    static const char *const metrics[] = {"exact_match", "token_acc", "loss_last", "mrr"};
    int d = word_index(f[col[C_DIRECTION]], dirs, 3);
    int p = word_index(f[col[C_PAIRING]], pairings, 3);
    int q = word_index(f[col[C_QUOTE]], quotes, 3);
    if (d < 0) return snprintf(why, whylen, "direction '%s' is not A>B, A<B or any",
                               f[col[C_DIRECTION]]), -1;
    if (p < 0) return snprintf(why, whylen, "pairing '%s' is not paired, unpaired or one-sample",
                               f[col[C_PAIRING]]), -1;
    if (q < 0) return snprintf(why, whylen, "quote '%s' is not headline, second or empty",
                               f[col[C_QUOTE]]), -1;
    if (word_index(f[col[C_METRIC]], metrics, 4) < 0)
        return snprintf(why, whylen, "unknown metric '%s'", f[col[C_METRIC]]), -1;
    if (!f[col[C_KEY]][0]) return snprintf(why, whylen, "an empty key"), -1;
    c->direction = d - 1, c->pairing = (Pairing)p, c->quote = (Quote)q;
    Selection s;
    char e[256];
    if (selection_parse(f[col[C_SELECT_A]], &s, e, sizeof e) ||
        (c->pairing != PAIRING_ONE_SAMPLE && selection_parse(f[col[C_SELECT_B]], &s, e, sizeof e))
        || (f[col[C_GATE]][0] && selection_parse(f[col[C_GATE]], &s, e, sizeof e)))
        return snprintf(why, whylen, "%s", e), -1;
    if (c->pairing == PAIRING_ONE_SAMPLE) {
        char *end;
        c->target = strtod(f[col[C_SELECT_B]], &end);
        if (end == f[col[C_SELECT_B]] || *end)
            return snprintf(why, whylen, "one-sample: select_b '%s' is not a number",
                            f[col[C_SELECT_B]]), -1;
    }
    if (!f[col[C_FILE_A]][0] || (c->pairing != PAIRING_ONE_SAMPLE && !f[col[C_FILE_B]][0]))
        return snprintf(why, whylen, "a compared arm without a results file"), -1;
    return 0;
}

static void claim_texts(Claim *c, char **f, const int *col) {
    c->key = f[col[C_KEY]], c->paper = f[col[C_PAPER]], c->claim = f[col[C_CLAIM]];
    c->model = f[col[C_MODEL]], c->task = f[col[C_TASK]], c->steps = f[col[C_STEPS]];
    c->evaluation = f[col[C_EVALUATION]], c->metric = f[col[C_METRIC]];
    c->gate = f[col[C_GATE]], c->note = f[col[C_NOTE]];
    c->a = (Arm){f[col[C_ROW_A]], f[col[C_FILE_A]], f[col[C_SELECT_A]]};
    c->b = (Arm){f[col[C_ROW_B]], f[col[C_FILE_B]], f[col[C_SELECT_B]]};
}

int claims_read(const char *path, Claims *c, char *err, int errlen) {
    memset(c, 0, sizeof *c);
    if (csv_read(path, &c->table, err, errlen)) return -1;
    int col[C_COLUMNS];
    if (need_columns(&c->table, claim_columns, C_COLUMNS, col, err, errlen)) goto fail;
    c->rows = calloc((size_t)c->table.n_rows + 1, sizeof *c->rows);
    if (!c->rows) { snprintf(err, errlen, "%s: out of memory", path); goto fail; }
    for (int r = 0; r < c->table.n_rows; r++) {
        Claim *cl = &c->rows[r];
        char why[300];
        cl->line = c->table.line[r];
        claim_texts(cl, c->table.rows[r], col);
        if (parse_claim_fields(cl, c->table.rows[r], col, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", path, cl->line, why);
            goto fail;
        }
        c->n++;
    }
    if (c->n == 0) { snprintf(err, errlen, "%s: no claims", path); goto fail; }
    return 0;
fail:
    claims_free(c);
    return -1;
}

void claims_free(Claims *c) {
    free(c->rows);
    if (c->table.header) csv_free(&c->table);
    memset(c, 0, sizeof *c);
}

// Each replaced_by names another key that stands (not replaced), and a replaced key is at no
// glance place: summary.md quotes what stands. -1 with `file:line: ...` in err.
static int check_successors(const Remedies *r, const char *path, char *err, int errlen) {
    for (int i = 0; i < r->n; i++) {
        const Remedy *m = &r->rows[i];
        if (!m->replaced_by[0]) continue;
        const Remedy *s = remedy_find(r, m->replaced_by);
        const char *why = !s ? "is not a key of the file"
                          : s == m ? "is the key itself"
                          : s->replaced_by[0] ? "is itself replaced"
                          : m->glance ? "is given, but the key has a glance place" : NULL;
        if (why) {
            snprintf(err, errlen, "%s:%d: replaced_by '%s' %s", path, m->line, m->replaced_by,
                     why);
            return -1;
        }
    }
    return 0;
}

int remedies_read(const char *path, Remedies *r, char *err, int errlen) {
    static const char *const names[] = {"key", "remedy", "paper", "claim", "setting", "glance",
                                        "note", "intro"};
    int col[8];
    memset(r, 0, sizeof *r);
    if (csv_read(path, &r->table, err, errlen)) return -1;
    if (need_columns(&r->table, names, 8, col, err, errlen)) goto fail;
    int replaced_col = csv_col(&r->table, "replaced_by");
    r->rows = calloc((size_t)r->table.n_rows + 1, sizeof *r->rows);
    if (!r->rows) { snprintf(err, errlen, "%s: out of memory", path); goto fail; }
    for (int i = 0; i < r->table.n_rows; i++) {
        char **f = r->table.rows[i], *end;
        Remedy *m = &r->rows[r->n++];
        *m = (Remedy){r->table.line[i], f[col[0]], f[col[1]], f[col[2]], f[col[3]], f[col[4]],
                      f[col[6]], f[col[7]], 0, replaced_col >= 0 ? f[replaced_col] : ""};
        m->glance = f[col[5]][0] ? (int)strtol(f[col[5]], &end, 10) : 0;
        if (f[col[5]][0] && (*end || m->glance < 1)) {
            snprintf(err, errlen, "%s:%d: glance '%s' is not a place (1, 2, ...)", path,
                     m->line, f[col[5]]);
            goto fail;
        }
    }
    if (check_successors(r, path, err, errlen)) goto fail;
    return 0;
fail:
    remedies_free(r);
    return -1;
}

void remedies_free(Remedies *r) {
    free(r->rows);
    if (r->table.header) csv_free(&r->table);
    memset(r, 0, sizeof *r);
}

const Remedy *remedy_find(const Remedies *r, const char *key) {
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->rows[i].key, key)) return &r->rows[i];
    return NULL;
}

const char *remedy_successor(const Remedies *r, const char *key) {
    const Remedy *m = remedy_find(r, key);
    return m && m->replaced_by && m->replaced_by[0] ? m->replaced_by : NULL;
}

int metric_is_percent(const char *metric) {
    return !strcmp(metric, "exact_match") || !strcmp(metric, "token_acc");
}
