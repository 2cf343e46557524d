// verdicts.md's "Replaced studies": what each replaced key measured and what its successor
// leaves out, every number from the rows themselves (report.h).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "verdict/report.h"

#define MAX_ITEMS 256

// Distinct strings in order of first appearance (a bounded list: the rest are dropped).
typedef struct {
    int n;
    char item[MAX_ITEMS][112];
} List;

static int list_has(const List *l, const char *s) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->item[i], s)) return 1;
    return 0;
}

static void list_add(List *l, const char *s) {
    if (l->n < MAX_ITEMS && !list_has(l, s))
        snprintf(l->item[l->n++], sizeof l->item[0], "%s", s);
}

// "a, b, c" (or "none")
static void list_print(FILE *f, const List *l) {
    if (!l->n) fprintf(f, "none");
    for (int i = 0; i < l->n; i++) fprintf(f, "%s%s", i ? ", " : "", l->item[i]);
}

// Every "col=value" one arm's selection names (one item per value).
static void add_selected(List *l, const char *select) {
    Selection s;
    char err[256], item[112];
    if (selection_parse(select, &s, err, sizeof err)) return;
    for (int c = 0; c < s.n; c++)
        for (int v = 0; v < s.n_values[c]; v++) {
            snprintf(item, sizeof item, "%s=%s", s.col[c], s.value[c][v]);
            list_add(l, item);
        }
}

static void add_rows_selected(List *l, const VerdictRow *rows, int n, const char *key) {
    for (int i = 0; i < n; i++) {
        const Claim *c = rows[i].claim;
        if (strcmp(c->key, key)) continue;
        add_selected(l, c->a.select);
        if (c->pairing != PAIRING_ONE_SAMPLE) add_selected(l, c->b.select);
    }
}

// "scheme fire, xpos; task reverse": the values of old that new lacks, grouped by column.
static void print_not_covered(FILE *f, const List *old, const List *new) {
    List cols = {0};
    for (int i = 0; i < old->n; i++) {
        if (list_has(new, old->item[i])) continue;
        char col[112];
        snprintf(col, sizeof col, "%.*s", (int)strcspn(old->item[i], "="), old->item[i]);
        list_add(&cols, col);
    }
    if (!cols.n) fprintf(f, "nothing");
    for (int c = 0; c < cols.n; c++) {
        fprintf(f, "%s%s ", c ? "; " : "", cols.item[c]);
        size_t k = strlen(cols.item[c]);
        for (int i = 0, first = 1; i < old->n; i++)
            if (!list_has(new, old->item[i]) && !strncmp(old->item[i], cols.item[c], k) &&
                old->item[i][k] == '=') {
                fprintf(f, "%s%s", first ? "" : ", ", old->item[i] + k + 1);
                first = 0;
            }
    }
}

// The arms of key below the gate: "rope + random (copy) 82.6%", each arm and task once.
static void add_failed_arms(List *l, const VerdictRow *rows, int n, const char *key) {
    for (int i = 0; i < n; i++) {
        const VerdictRow *v = &rows[i];
        if (strcmp(v->claim->key, key) || !v->gate_percent) continue;
        const Arm *arm[2] = {&v->claim->a, &v->claim->b};
        double gate[2] = {v->gate_a, v->gate_b};
        for (int k = 0; k < 2; k++) {
            if (isnan(gate[k]) || gate[k] >= GATE_EXACT_MATCH) continue;
            char item[112];
            snprintf(item, sizeof item, "%s (%s) %.1f%%", arm[k]->label, v->claim->task,
                     100 * gate[k]);
            list_add(l, item);
        }
    }
}

static void add_steps(List *l, const VerdictRow *rows, int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].claim->key, key)) list_add(l, rows[i].claim->steps);
}

static void replaced_line(FILE *f, const Report *r, const char *key) {
    const char *successor = remedy_successor(r->remedies, key);
    Report old = *r;
    old.rows = r->replaced, old.n = r->n_replaced;
    static List failed, steps, steps_new, selected, selected_new;
    char tally[256];
    failed.n = steps.n = steps_new.n = selected.n = selected_new.n = 0;
    report_tally(&old, key, tally, sizeof tally);
    add_failed_arms(&failed, r->replaced, r->n_replaced, key);
    add_steps(&steps, r->replaced, r->n_replaced, key);
    add_steps(&steps_new, r->rows, r->n, successor);
    add_rows_selected(&selected, r->replaced, r->n_replaced, key);
    add_rows_selected(&selected_new, r->rows, r->n, successor);
    fprintf(f, "| %s | %s | %s | ", key, successor ? successor : "", tally);
    list_print(f, &failed);
    fprintf(f, " | ");
    list_print(f, &steps);
    fprintf(f, "; ");
    list_print(f, &steps_new);
    fprintf(f, " | ");
    print_not_covered(f, &selected, &selected_new);
    fprintf(f, " |\n");
}

int report_set_aside(VerdictRow *rows, int n, const Remedies *m, VerdictRow *replaced,
                     int *n_replaced) {
    int kept = 0;
    *n_replaced = 0;
    for (int i = 0; i < n; i++) {
        if (remedy_successor(m, rows[i].claim->key)) replaced[(*n_replaced)++] = rows[i];
        else rows[kept++] = rows[i];
    }
    return kept;
}

void report_replaced(FILE *f, const Report *r) {
    if (!r->n_replaced) return;
    fprintf(f, "\n## Replaced studies\n\n"
               "Studies answered by a successor whose arms learn (`replaced_by` in"
               " `data/remedies.csv`): their rows\nare in none of the tables, tallies and"
               " summaries above. Per study: its tally, each arm whose exact\nmatch at the"
               " training length is below 90%% (its task, its score), the steps of the study and"
               " of\nthe successor, and the values its rows select that no row of the successor"
               " selects.\n\n"
               "| study | successor | its rows | arms below 90%% in distribution | steps; the"
               " successor's | not in the successor |\n"
               "| --- | --- | --- | --- | --- | --- |\n");
    report_each_key(f, r, r->replaced, r->n_replaced, replaced_line);
}
