#include "stats/pivot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/interval.h"

#define MAX_PIECES 16


typedef enum { OP_EQ, OP_NE, OP_GT, OP_LT, OP_GE, OP_LE } Op;

typedef struct {
    int col;
    Op op;
    char *value;
    double number;
} Filter;

// How a value's cell summarises its samples (pivot.h, "values").
typedef enum {
    AGG_MEAN_SD, AGG_MEAN, AGG_MEDIAN, AGG_SUM, AGG_COUNT, AGG_MIN, AGG_MAX, AGG_WMEAN,
    AGG_SHARE, AGG_TEXT, AGG_LAST, AGG_ARGMAX   // from AGG_TEXT on: the value as written
} Agg;

static const char *const agg_names[] = {"", "mean", "median", "sum", "count", "min", "max",
    "wmean(COL)", "share", "text", "last", NULL};

typedef struct {   // a printf conversion, "ll" added to an integer one
    char s[32];
    int integer;
} Fmt;


#define MAX_OPERANDS 8

// One value of the spec: an expression of columns and numbers, left to right.
typedef struct {
    const char *heading;
    int n_operands;
    int col[MAX_OPERANDS];        // -1: number[i]
    double number[MAX_OPERANDS];
    char op[MAX_OPERANDS];        // op[i] joins operand i - 1 and i
    Agg agg;
    int by_col;                   // AGG_ARGMAX: the column whose largest value picks the row;
                                  // AGG_WMEAN: the weights' column
    Fmt fmt;
} Value;

// One table column of the row key: literal texts and CSV columns, in order.
typedef struct {
    char *heading;
    int n_pieces;
    const char *text[MAX_PIECES];   // a literal (col -1, expr NULL)
    int col[MAX_PIECES];
    Value *expr[MAX_PIECES];        // {EXPR} that is not a column: its number, as %g
    int right;                      // every value shown is a number (not the first key)
} Key;

// The samples of one cell: with `per`, groups of rows sharing its value; else one a row.
typedef struct {
    int n, cap;
    char **group;      // the per column's value (NULL without per)
    double *sum;       // raw values summed
    int *count;
    StrBuf steps;      // PIVOT_STEPS: "150 / -"
    const char *text;  // AGG_TEXT, AGG_LAST, AGG_ARGMAX: the value as written (NULL: none)
    double best;       // AGG_ARGMAX: the largest by_col so far
    double weight;     // AGG_WMEAN: the weights summed (sum holds value x weight)
} Cell;

typedef struct {
    char **cells;      // [n_keys] the key's texts
    char **seen;       // the annotation's (or PIVOT_STEPS') runs already counted
    int n_seen, cap_seen;
    int runs, stuck;
    const char *ceiling;
} Row;

typedef struct {
    const PivotSpec *spec;
    const CsvTable *t;
    char *err;
    int errlen;
    char **copies;               // the spec's strings, cut at '=' and braces
    int n_copies, cap_copies;
    Key keys[PIVOT_MAX_ITEMS];
    int n_keys;
    Value key_exprs[PIVOT_MAX_ITEMS];   // the keys' {EXPR}s
    int n_key_exprs;
    Value values[PIVOT_MAX_ITEMS];
    int n_values;
    Filter filters[PIVOT_MAX_ITEMS];
    int n_filters;
    int cols_col, per_col, seed_col, converged_col, cpu_col;
    Key first_of;                // with spec->first_of: the runs counted once
    Row first_seen;              // the first_of texts met
    Fmt fmt;                     // the spec's format
    Row *rows;
    int n_rows, cap_rows;
    char **colv;                 // the distinct `cols` values
    int n_colv, cap_colv;
    Cell *cells;                 // [row][column], grown with the rows and columns
    int cell_rows, cell_cols;
    const char *ceiling;         // PIVOT_STEPS: the last "not in N steps"
} Pivot;

static int fail(Pivot *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

PivotSpec pivot_spec_default(void) {
    PivotSpec s;
    memset(&s, 0, sizeof s);
    s.scale = 1;
    s.format = "%.1f";
    s.cell = PIVOT_MEAN;
    return s;
}

// The column `name`, or -1 with an error listing the file's columns.
static int column(Pivot *p, const char *name) {
    int c = csv_col(p->t, name);
    if (c < 0) {
        char cols[512];
        csv_columns(p->t, cols, sizeof cols);
        fail(p, "%s: no column \"%s\" (columns: %s)", p->t->name, name, cols);
    }
    return c;
}

// A whole-string number (awk would read "12abc" as 12; a table must not).
static int number(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0';
}

// awk's `s + 0`: the number at the start of s, 0 when there is none.
static double leading_number(const char *s) { return strtod(s, NULL); }

static int grow(void **a, int *cap, int need, size_t size) {
    if (need <= *cap) return 0;
    int n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *g = realloc(*a, (size_t)n * size);
    if (!g) return -1;
    memset((char *)g + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
    *a = g;
    *cap = n;
    return 0;
}

// A copy of s that lives as long as p (freed by free_pivot); NULL when out of memory.
static char *cut(Pivot *p, const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (!copy || grow((void **)&p->copies, &p->cap_copies, p->n_copies + 1, sizeof *p->copies)) {
        free(copy);
        return NULL;
    }
    memcpy(copy, s, n);
    return p->copies[p->n_copies++] = copy;
}

// "HEADING=REST" -> heading, rest; no '=': both the whole text.
static int split_heading(Pivot *p, const char *item, char **heading, char **rest) {
    char *s = cut(p, item);
    if (!s) return fail(p, "out of memory");
    char *eq = strchr(s, '=');
    if (eq) { *eq = '\0'; *heading = s; *rest = eq + 1; }
    else if (!(*heading = cut(p, item))) return fail(p, "out of memory");
    else *rest = s;
    return 0;
}

static int compile_expr(Pivot *p, char *expr, Value *v);

// {NAME}: the column NAME, else NAME is an expression (a number, printed as %g).
static int compile_piece(Pivot *p, const char *item, char *name, Key *k) {
    int i = k->n_pieces++;
    k->text[i] = NULL;
    k->expr[i] = NULL;
    if ((k->col[i] = csv_col(p->t, name)) >= 0) return 0;
    if (p->n_key_exprs == PIVOT_MAX_ITEMS) return fail(p, "more than %d {EXPR} in rows",
                                                       PIVOT_MAX_ITEMS);
    Value *v = k->expr[i] = &p->key_exprs[p->n_key_exprs++];
    v->heading = item;
    return compile_expr(p, name, v);
}

static int compile_key(Pivot *p, const char *item, Key *k) {
    char *text = NULL;
    if (split_heading(p, item, &k->heading, &text)) return -1;
    k->n_pieces = 0;
    if (!strchr(text, '{')) {
        k->text[0] = NULL;
        k->expr[0] = NULL;
        k->col[0] = column(p, text);
        k->n_pieces = 1;
        return k->col[0] < 0 ? -1 : 0;
    }
    while (*text) {   // literals and {COLUMN}s
        if (k->n_pieces + 2 > MAX_PIECES) return fail(p, "row \"%s\": too many pieces", item);
        char *open = strchr(text, '{');
        if (open != text) {
            k->text[k->n_pieces] = text;
            k->expr[k->n_pieces] = NULL;
            k->col[k->n_pieces++] = -1;
            if (!open) break;
            *open = '\0';
        }
        char *close = strchr(open + 1, '}');
        if (!close) return fail(p, "row \"%s\": a '{' without its '}'", item);
        *close = '\0';
        if (compile_piece(p, item, open + 1, k)) return -1;
        text = close + 1;
    }
    return 0;
}

static int compile_filter(Pivot *p, const char *item, Filter *f) {
    char *s = cut(p, item);
    if (!s) return fail(p, "out of memory");
    size_t at = strcspn(s, "!=<>");
    if (at == 0 || !s[at] || (s[at] == '!' && s[at + 1] != '='))
        return fail(p, "filter \"%s\": not COL=VALUE, COL!=VALUE or COL>, <, >=, <= NUMBER",
                    item);
    int eq = s[at + 1] == '=';
    f->op = s[at] == '=' ? OP_EQ : s[at] == '!' ? OP_NE : s[at] == '>' ? (eq ? OP_GE : OP_GT)
          : eq ? OP_LE : OP_LT;
    f->value = s + at + (f->op == OP_NE || f->op == OP_GE || f->op == OP_LE ? 2 : 1);
    s[at] = '\0';
    if ((f->col = column(p, s)) < 0) return -1;
    if (f->op != OP_EQ && f->op != OP_NE && !number(f->value, &f->number))
        return fail(p, "filter \"%s\": \"%s\" is not a number", item, f->value);
    return 0;
}

#define FORMAT_WANTED "format \"%s\": wants one number conversion such as %%.1f, %%.3g or %%d"

// One printf conversion of d i e E f F g G, with flags, width and precision; %% anywhere.
static int compile_format(Pivot *p, const char *format, Fmt *f) {
    int convs = 0, out = 0;
    const int room = (int)sizeof f->s - 4;
    for (const char *c = format; *c; c++) {
        if (out > room) return fail(p, "format \"%s\": too long", format);
        f->s[out++] = *c;
        if (*c != '%') continue;
        if (c[1] == '%') { f->s[out++] = *++c; continue; }
        c++;
        while (*c && strchr("-+ #0", *c)) f->s[out++] = *c++;
        while (*c >= '0' && *c <= '9') f->s[out++] = *c++;
        if (*c == '.')
            for (f->s[out++] = *c++; *c >= '0' && *c <= '9';) f->s[out++] = *c++;
        if (!*c || !strchr("dieEfFgG", *c) || out > room) return fail(p, FORMAT_WANTED, format);
        f->integer = *c == 'd' || *c == 'i';
        if (f->integer) { f->s[out++] = 'l'; f->s[out++] = 'l'; }
        f->s[out++] = *c;
        convs++;
    }
    f->s[out] = '\0';
    if (convs != 1) return fail(p, FORMAT_WANTED, format);
    return 0;
}

static void put_number(const Fmt *f, StrBuf *b, double x) {
    if (f->integer) {
        double c = x != x ? 0 : x > 9.2e18 ? 9.2e18 : x < -9.2e18 ? -9.2e18 : x;   // no overflow
        strbuf_printf(b, f->s, (long long)c);
    } else {
        strbuf_printf(b, f->s, x);
    }
}

// "NAME", "argmax(COL)" or "wmean(COL)" into v->agg (and v->by_col).
static int compile_agg(Pivot *p, const char *name, Value *v) {
    size_t n = strlen(name);
    for (int a = AGG_ARGMAX; a >= 0; a -= AGG_ARGMAX - AGG_WMEAN) {
        size_t f = a == AGG_ARGMAX ? 7 : 6;   // "argmax(", "wmean("
        if (strncmp(name, a == AGG_ARGMAX ? "argmax(" : "wmean(", f) || n < f + 2 ||
            name[n - 1] != ')')
            continue;
        char *col = cut(p, name + f);
        if (!col) return fail(p, "out of memory");
        col[n - f - 1] = '\0';
        v->agg = (Agg)a;
        return (v->by_col = column(p, col)) < 0 ? -1 : 0;
    }
    for (int a = AGG_MEAN; agg_names[a]; a++)
        if (a != AGG_WMEAN && !strcmp(name, agg_names[a])) { v->agg = (Agg)a; return 0; }
    return fail(p, "aggregate \"%s\": not mean, median, sum, count, min, max, wmean(COL), "
                   "share, text, last or argmax(COL)", name);
}

// EXPR: one column (its whole name first), else columns and numbers joined by + - * /.
static int compile_expr(Pivot *p, char *expr, Value *v) {
    v->n_operands = 0;
    if ((v->col[0] = csv_col(p->t, expr)) >= 0) { v->n_operands = 1; return 0; }
    char op = 0;
    for (;;) {
        size_t len = strcspn(expr, "+-*/");
        char next = expr[len];
        expr[len] = '\0';
        if (v->n_operands == MAX_OPERANDS)
            return fail(p, "value \"%s\": more than %d operands", v->heading, MAX_OPERANDS);
        int i = v->n_operands++;
        v->op[i] = op;
        if (next == '/' && expr[len + 1] == '/') { next = 'f'; len++; }   // a // b
        if (number(expr, &v->number[i])) v->col[i] = -1;
        else if ((v->col[i] = column(p, expr)) < 0) return -1;
        if (!next) return 0;
        op = next;
        expr += len + 1;
    }
}

// "[HEADING=]EXPR[:AGG[:FORMAT]]"; without AGG the spec's agg, else the cell rule.
static int compile_value(Pivot *p, const char *item, Value *v) {
    char *heading = NULL, *rest = NULL;
    if (split_heading(p, item, &heading, &rest)) return -1;
    char *agg = strchr(rest, ':'), *format = NULL;
    if (agg) {
        *agg++ = '\0';
        if ((format = strchr(agg, ':'))) *format++ = '\0';
        if (!strchr(item, '=')) heading = rest;   // no heading: the expression names it
    }
    v->heading = heading;
    const PivotSpec *s = p->spec;
    v->agg = AGG_MEAN_SD;
    if (agg && *agg ? compile_agg(p, agg, v) : s->agg && compile_agg(p, s->agg, v)) return -1;
    if (compile_expr(p, rest, v)) return -1;
    if (v->agg >= AGG_TEXT && (v->n_operands != 1 || v->col[0] < 0))
        return fail(p, "value \"%s\": text, last and argmax take one column", item);
    return compile_format(p, format && *format ? format : s->format ? s->format : "%.1f",
                          &v->fmt);
}

static int compile(Pivot *p) {
    const PivotSpec *s = p->spec;
    if (s->n_rows > PIVOT_MAX_ITEMS || s->n_values > PIVOT_MAX_ITEMS ||
        s->n_filters > PIVOT_MAX_ITEMS || s->n_labels > PIVOT_MAX_ITEMS)
        return fail(p, "more than %d rows, values, filters or labels", PIVOT_MAX_ITEMS);
    for (int i = 0; i < s->n_rows; i++)
        if (compile_key(p, s->rows[i], &p->keys[p->n_keys++])) return -1;
    for (int i = 0; i < s->n_filters; i++)
        if (compile_filter(p, s->filters[i], &p->filters[p->n_filters++])) return -1;
    for (int i = 0; i < s->n_labels; i++)
        if (!strchr(s->labels[i], '='))
            return fail(p, "label \"%s\": not VALUE=TEXT", s->labels[i]);
    p->cols_col = p->per_col = p->seed_col = p->converged_col = p->cpu_col = -1;
    if (s->cols && (p->cols_col = column(p, s->cols)) < 0) return -1;
    if (s->per && (p->per_col = column(p, s->per)) < 0) return -1;
    if (s->first_of && compile_key(p, s->first_of, &p->first_of)) return -1;
    if (compile_format(p, s->format ? s->format : "%.1f", &p->fmt)) return -1;
    if (s->cell == PIVOT_STEPS) {
        if (!s->cols) return fail(p, "steps to converge need a column per task (--cols)");
        if (s->n_values) return fail(p, "steps to converge read their own columns: no --value");
        if ((p->seed_col = column(p, "seed")) < 0 ||
            (p->converged_col = column(p, "converged")) < 0 ||
            (p->cpu_col = column(p, "cpu_seconds")) < 0)
            return -1;
    } else {
        if (s->n_values < 1) return fail(p, "no value column (--value)");
        for (int i = 0; i < s->n_values; i++)
            if (compile_value(p, s->values[i], &p->values[p->n_values++])) return -1;
        if (s->cols) {   // the annotation of runs that hit the ceiling
            p->converged_col = csv_col(p->t, "converged");
            p->seed_col = csv_col(p->t, "seed");
        }
    }
    return 0;
}

static int keep(const Pivot *p, char **row) {
    for (int i = 0; i < p->n_filters; i++) {
        const Filter *f = &p->filters[i];
        const char *v = row[f->col];
        if (f->op == OP_NE && !strcmp(v, f->value)) return 0;
        if (f->op == OP_GT && !(leading_number(v) > f->number)) return 0;
        if (f->op == OP_LT && !(leading_number(v) < f->number)) return 0;
        if (f->op == OP_GE && !(leading_number(v) >= f->number)) return 0;
        if (f->op == OP_LE && !(leading_number(v) <= f->number)) return 0;
        if (f->op == OP_EQ) {   // any of the values this column's = filters name
            int any = 0;
            for (int j = 0; j < p->n_filters; j++)
                any |= p->filters[j].op == OP_EQ && p->filters[j].col == f->col &&
                       !strcmp(v, p->filters[j].value);
            if (!any) return 0;
        }
    }
    return 1;
}

static const char *label(const Pivot *p, const char *v) {
    for (int i = 0; i < p->spec->n_labels; i++) {
        const char *l = p->spec->labels[i], *eq = strchr(l, '=');
        if (strlen(v) == (size_t)(eq - l) && !strncmp(v, l, (size_t)(eq - l))) return eq + 1;
    }
    return v;
}

static int evaluate(Pivot *p, int i, const Value *v, double *x);

// Key k of CSV row i (-1: none), malloc'ed; NULL with an error (a {EXPR} not a number).
static char *key_text(Pivot *p, const Key *k, int i) {
    StrBuf b = {0};
    for (int j = 0; j < k->n_pieces; j++) {
        double x = 0;
        if (k->expr[j] && evaluate(p, i, k->expr[j], &x)) { strbuf_free(&b); return NULL; }
        if (k->expr[j]) strbuf_printf(&b, "%g", x);
        else strbuf_puts(&b, k->col[j] < 0 ? k->text[j] : p->t->rows[i][k->col[j]]);
    }
    if (!b.s && !b.failed) strbuf_puts(&b, "");
    if (b.failed) { strbuf_free(&b); fail(p, "out of memory"); return NULL; }
    return b.s;
}

// The cell grid grows to rows x cols, keeping what it holds.
static int grow_cells(Pivot *p, int rows, int cols) {
    if (rows <= p->cell_rows && cols <= p->cell_cols) return 0;
    int nr = p->cell_rows, nc = p->cell_cols;
    if (rows > nr) nr = rows > 2 * nr ? rows : 2 * nr;
    if (cols > nc) nc = cols > 2 * nc ? cols : 2 * nc;
    Cell *g = calloc((size_t)nr * nc, sizeof *g);
    if (!g) return -1;
    for (int r = 0; r < p->cell_rows; r++)
        for (int c = 0; c < p->cell_cols; c++) g[r * nc + c] = p->cells[r * p->cell_cols + c];
    free(p->cells);
    p->cells = g;
    p->cell_rows = nr;
    p->cell_cols = nc;
    return 0;
}

static Cell *cell_at(Pivot *p, int r, int c) { return &p->cells[r * p->cell_cols + c]; }

// The row of CSV row i's key, added when new; -1 with an error.
static int find_row(Pivot *p, int i) {
    char *texts[PIVOT_MAX_ITEMS];
    for (int k = 0; k < p->n_keys; k++)
        if (!(texts[k] = key_text(p, &p->keys[k], i))) {
            while (k--) free(texts[k]);
            return -1;
        }
    for (int r = 0; r < p->n_rows; r++) {
        int same = 1;
        for (int k = 0; k < p->n_keys && same; k++) same = !strcmp(p->rows[r].cells[k], texts[k]);
        if (same) {
            for (int k = 0; k < p->n_keys; k++) free(texts[k]);
            return r;
        }
    }
    if (grow((void **)&p->rows, &p->cap_rows, p->n_rows + 1, sizeof *p->rows)) goto oom;
    Row *nr = &p->rows[p->n_rows];
    if (!(nr->cells = malloc(sizeof(char *) * (p->n_keys ? p->n_keys : 1)))) goto oom;
    memcpy(nr->cells, texts, sizeof(char *) * p->n_keys);
    return p->n_rows++;
oom:
    for (int k = 0; k < p->n_keys; k++) free(texts[k]);
    return fail(p, "out of memory");
}

static int find_col(Pivot *p, const char *v) {
    for (int c = 0; c < p->n_colv; c++)
        if (!strcmp(p->colv[c], v)) return c;
    if (grow((void **)&p->colv, &p->cap_colv, p->n_colv + 1, sizeof *p->colv)) return -1;
    size_t n = strlen(v) + 1;
    if (!(p->colv[p->n_colv] = malloc(n))) return -1;
    memcpy(p->colv[p->n_colv], v, n);
    return p->n_colv++;
}

// Whether run `id` of row r is new (remembered from now on); -1 when out of memory.
static int first_of_run(Row *r, const char *id) {
    for (int i = 0; i < r->n_seen; i++)
        if (!strcmp(r->seen[i], id)) return 0;
    if (grow((void **)&r->seen, &r->cap_seen, r->n_seen + 1, sizeof *r->seen)) return -1;
    size_t n = strlen(id) + 1;
    if (!(r->seen[r->n_seen] = malloc(n))) return -1;
    memcpy(r->seen[r->n_seen++], id, n);
    return 1;
}

// Adds value v (raw) to cell c, in the group of `group` (NULL: a group of its own).
static int add_sample(Cell *c, const char *group, double v) {
    int g = -1;
    if (group)
        for (int i = 0; i < c->n && g < 0; i++)
            if (!strcmp(c->group[i], group)) g = i;
    if (g < 0) {
        if (c->n == c->cap) {
            int n = c->cap ? 2 * c->cap : 4;
            char **gr = realloc(c->group, sizeof *gr * n);
            if (gr) c->group = gr;
            double *s = realloc(c->sum, sizeof *s * n);
            if (s) c->sum = s;
            int *k = realloc(c->count, sizeof *k * n);
            if (k) c->count = k;
            if (!gr || !s || !k) return -1;
            c->cap = n;
        }
        g = c->n++;
        c->group[g] = (char *)group;
        c->sum[g] = 0;
        c->count[g] = 0;
    }
    c->sum[g] += v;
    c->count[g]++;
    return 0;
}

static int parse_value(Pivot *p, int r, int col, double *v) {
    if (number(p->t->rows[r][col], v)) return 0;
    return fail(p, "%s:%d: column \"%s\": \"%s\" is not a number", p->t->name, p->t->line[r],
                p->t->header[col], p->t->rows[r][col]);
}

// PIVOT_STEPS: the first row of each run (row, column, seed).
static int add_steps(Pivot *p, int i, char **row) {
    char id[512];
    snprintf(id, sizeof id, "%s\x1f%s", row[p->cols_col], row[p->seed_col]);
    int r = find_row(p, i);
    if (r < 0) return -1;
    int first = first_of_run(&p->rows[r], id);
    if (first <= 0) return first < 0 ? fail(p, "out of memory") : 0;
    int c = find_col(p, row[p->cols_col]);
    double cpu;
    if (c < 0 || grow_cells(p, p->n_rows, p->n_colv)) return fail(p, "out of memory");
    if (parse_value(p, i, p->cpu_col, &cpu)) return -1;
    Cell *cell = cell_at(p, r, c);
    const char *conv = row[p->converged_col];
    if (!strncmp(conv, "not in", 6)) { p->ceiling = conv; conv = "-"; }
    strbuf_printf(&cell->steps, "%s%s", cell->n ? " / " : "", conv);
    return add_sample(cell, NULL, cpu);
}

// Whether value v has a sample on row: none of its columns empty.
static int has_value(const Value *v, char **row) {
    for (int i = 0; i < v->n_operands; i++)
        if (v->col[i] >= 0 && !row[v->col[i]][0]) return 0;
    return 1;
}

// Value v on row i into *x: 0, or -1 with an error (an operand that is not a number).
static int evaluate(Pivot *p, int i, const Value *v, double *x) {
    for (int k = 0; k < v->n_operands; k++) {
        double y = v->number[k];
        if (v->col[k] >= 0 && parse_value(p, i, v->col[k], &y)) return -1;
        switch (k ? v->op[k] : 0) {
        case '+': *x += y; break;
        case '-': *x -= y; break;
        case '*': *x *= y; break;
        case '/': *x /= y; break;
        case 'f': *x = floor(*x / y); break;
        default: *x = y;
        }
    }
    return 0;
}

// AGG_TEXT, AGG_LAST, AGG_ARGMAX: keep the value as written (the first, the last, or the
// largest by_col's).
static int add_text(Pivot *p, int i, const Value *v, Cell *cell) {
    char **row = p->t->rows[i];
    if (v->agg == AGG_TEXT) {
        if (!cell->text) cell->text = row[v->col[0]];
        return 0;
    }
    if (v->agg == AGG_LAST) {
        cell->text = row[v->col[0]];
        return 0;
    }
    double by;
    if (!row[v->by_col][0]) return 0;
    if (parse_value(p, i, v->by_col, &by)) return -1;
    if (!cell->text || by > cell->best) {
        cell->text = row[v->col[0]];
        cell->best = by;
    }
    return 0;
}

static int add_row(Pivot *p, int i) {
    char **row = p->t->rows[i];
    if (!keep(p, row)) return 0;
    if (p->spec->cell == PIVOT_STEPS) return add_steps(p, i, row);
    int any = 0;
    for (int v = 0; v < p->n_values; v++) any |= has_value(&p->values[v], row);
    if (!any) return 0;
    if (p->spec->first_of) {
        char *id = key_text(p, &p->first_of, i);
        if (!id) return -1;
        int first = first_of_run(&p->first_seen, id);
        free(id);
        if (first <= 0) return first < 0 ? fail(p, "out of memory") : 0;
    }
    int r = find_row(p, i);
    if (r < 0) return -1;
    if (p->converged_col >= 0) {
        char id[32];
        const char *seed = id;
        if (p->seed_col >= 0) seed = row[p->seed_col];
        else snprintf(id, sizeof id, "%d", i);
        Row *rw = &p->rows[r];
        int first = first_of_run(rw, seed);
        if (first < 0) return fail(p, "out of memory");
        if (first) {
            rw->runs++;
            if (!strncmp(row[p->converged_col], "not in ", 7)) {
                rw->stuck++;
                rw->ceiling = row[p->converged_col];
            }
        }
    }
    int c0 = p->cols_col >= 0 ? find_col(p, row[p->cols_col]) : 0;
    if (c0 < 0 || grow_cells(p, p->n_rows, (p->cols_col >= 0 ? p->n_colv : 1) * p->n_values))
        return fail(p, "out of memory");
    for (int v = 0; v < p->n_values; v++) {
        const Value *val = &p->values[v];
        if (!has_value(val, row)) continue;
        Cell *cell = cell_at(p, r, c0 * p->n_values + v);
        if (val->agg >= AGG_TEXT) {
            if (add_text(p, i, val, cell)) return -1;
            continue;
        }
        double x = 0, w = 1;
        if (val->agg == AGG_WMEAN && !row[val->by_col][0]) continue;
        if (evaluate(p, i, val, &x)) return -1;
        if (val->agg == AGG_SUM) x *= p->spec->scale;
        if (val->agg == AGG_WMEAN) {   // x * w summed, beside the weights
            if (parse_value(p, i, val->by_col, &w)) return -1;
            x *= w;
            cell->weight += w;
        }
        if (add_sample(cell, p->per_col >= 0 ? row[p->per_col] : NULL, x))
            return fail(p, "out of memory");
    }
    return 0;
}

static int by_number(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cell_sum(const Cell *c) {
    double s = 0;
    for (int i = 0; i < c->n; i++) s += c->sum[i];
    return s;
}

// The text of the cell at row r, index i ("mean ± sd", a median, ...), nothing when it has no
// samples.
static void put_cell(Pivot *p, StrBuf *b, int r, int i, const Value *v) {
    const Cell *c = cell_at(p, r, i);
    if (v->agg >= AGG_TEXT) {
        if (c->text) strbuf_puts(b, c->text);
        return;
    }
    if (!c->n) return;
    if (v->agg == AGG_SHARE) {   // of the sum over every row's cell in this table column
        double total = 0;
        for (int row = 0; row < p->n_rows; row++) total += cell_sum(cell_at(p, row, i));
        put_number(&v->fmt, b, p->spec->scale * cell_sum(c) / total);
        return;
    }
    if (v->agg == AGG_SUM || v->agg == AGG_COUNT || v->agg == AGG_WMEAN) {
        double s = cell_sum(c);
        if (v->agg == AGG_WMEAN) put_number(&v->fmt, b, p->spec->scale * (s / c->weight));
        else put_number(&v->fmt, b, v->agg == AGG_SUM ? s : c->n);
        return;
    }
    double *x = malloc(sizeof *x * c->n);
    if (!x) { b->failed = 1; return; }
    for (int i = 0; i < c->n; i++)   // a row: v * scale; a group: scale * sum / count
        x[i] = p->spec->scale * c->sum[i] / c->count[i];
    if (v->agg == AGG_MEAN_SD || v->agg == AGG_MEAN) {
        put_number(&v->fmt, b, sample_mean(x, c->n));
        if (v->agg == AGG_MEAN_SD && c->n > 1) {
            strbuf_puts(b, " ± ");
            put_number(&v->fmt, b, sample_sd(x, c->n));
        }
    } else {
        qsort(x, (size_t)c->n, sizeof *x, by_number);
        int m = c->n / 2;
        double median = c->n % 2 ? x[m] : (x[m - 1] + x[m]) / 2;
        put_number(&v->fmt, b, v->agg == AGG_MIN ? x[0] : v->agg == AGG_MAX ? x[c->n - 1] : median);
    }
    free(x);
}

static void sort_cols(Pivot *p) {   // insertion sort by number: stable, so words keep their order
    int nv = p->spec->cell == PIVOT_STEPS ? 1 : p->n_values;
    for (int i = 1; i < p->n_colv; i++)
        for (int j = i; j > 0 && leading_number(p->colv[j - 1]) > leading_number(p->colv[j]); j--) {
            char *t = p->colv[j];
            p->colv[j] = p->colv[j - 1];
            p->colv[j - 1] = t;
            for (int r = 0; r < p->n_rows; r++)
                for (int v = 0; v < nv; v++) {
                    Cell tc = *cell_at(p, r, j * nv + v);
                    *cell_at(p, r, j * nv + v) = *cell_at(p, r, (j - 1) * nv + v);
                    *cell_at(p, r, (j - 1) * nv + v) = tc;
                }
        }
}

// spec->plain: each row's keys and cells joined by commas, after a header line with
// PIVOT_CSV (the keys' headings, then the `cols` values or the values' headings).
static void write_plain(Pivot *p, StrBuf *b) {
    int n_cols = p->cols_col >= 0 ? p->n_colv : 1;
    if (p->spec->plain == PIVOT_CSV) {
        const char *sep = "";
        for (int k = 0; k < p->n_keys; k++, sep = ",")
            strbuf_printf(b, "%s%s", sep, p->keys[k].heading);
        for (int v = 0; v < p->n_values; v++)
            for (int c = 0; c < n_cols; c++, sep = ",")
                strbuf_printf(b, "%s%s", sep, p->cols_col >= 0 ? label(p, p->colv[c])
                                                               : p->values[v].heading);
        strbuf_puts(b, "\n");
    }
    for (int r = 0; r < p->n_rows; r++) {
        const char *sep = "";
        for (int k = 0; k < p->n_keys; k++, sep = ",")
            strbuf_printf(b, "%s%s", sep, label(p, p->rows[r].cells[k]));
        for (int v = 0; v < p->n_values; v++)
            for (int c = 0; c < n_cols; c++, sep = ",") {
                strbuf_puts(b, sep);
                put_cell(p, b, r, c * p->n_values + v, &p->values[v]);
            }
        strbuf_puts(b, "\n");
    }
}

static void write_table(Pivot *p, StrBuf *b) {
    const PivotSpec *s = p->spec;
    for (int k = 1; k < p->n_keys; k++) {
        p->keys[k].right = p->n_rows > 0;
        double x;
        for (int r = 0; r < p->n_rows; r++)
            p->keys[k].right &= number(label(p, p->rows[r].cells[k]), &x);
    }
    int per_value = p->cols_col >= 0 ? p->n_colv : 1;   // table columns of each value
    int n_cols = s->cell == PIVOT_STEPS ? p->n_colv : per_value * p->n_values;
    strbuf_puts(b, "|");
    for (int k = 0; k < p->n_keys; k++) strbuf_printf(b, " %s |", p->keys[k].heading);
    for (int c = 0; c < n_cols; c++) {
        if (s->cell == PIVOT_STEPS) {
            const char *v = label(p, p->colv[c]);
            strbuf_printf(b, " %s: steps | %s: CPU s |", v, v);
        } else {
            const char *h = p->cols_col >= 0 ? label(p, p->colv[c % per_value])
                                             : p->values[c].heading;
            strbuf_printf(b, " %s |", h);
        }
    }
    strbuf_puts(b, "\n|");
    for (int k = 0; k < p->n_keys; k++) strbuf_puts(b, p->keys[k].right ? " ---: |" : " --- |");
    for (int c = 0; c < n_cols; c++)
        strbuf_puts(b, s->cell == PIVOT_STEPS ? " ---: | ---: |" : " ---: |");
    strbuf_puts(b, "\n");
    for (int r = 0; r < p->n_rows; r++) {
        const Row *rw = &p->rows[r];
        strbuf_puts(b, "|");
        for (int k = 0; k < p->n_keys; k++) {
            strbuf_printf(b, " %s", label(p, rw->cells[k]));
            if (k == 0 && rw->stuck) {
                if (rw->stuck < rw->runs)
                    strbuf_printf(b, " (%d of %d seeds %s)", rw->stuck, rw->runs, rw->ceiling);
                else strbuf_printf(b, " (%s)", rw->ceiling);
            }
            strbuf_puts(b, " |");
        }
        for (int c = 0; c < n_cols; c++) {
            if (s->cell != PIVOT_STEPS) {   // column c: value c / per_value at c % per_value
                int v = c / per_value;
                strbuf_puts(b, " ");
                size_t before = b->len;
                put_cell(p, b, r, (c % per_value) * p->n_values + v, &p->values[v]);
                strbuf_puts(b, b->len == before ? "|" : " |");
                continue;
            }
            const Cell *cell = cell_at(p, r, c);
            if (!cell->n) { strbuf_puts(b, " | |"); continue; }
            double cpu = 0;
            for (int i = 0; i < cell->n; i++) cpu += cell->sum[i];
            strbuf_printf(b, " %s | %.1f |", cell->steps.s, cpu / cell->n);
        }
        strbuf_puts(b, "\n");
    }
    if (s->cell == PIVOT_STEPS && p->ceiling)
        strbuf_printf(b, "\n\"-\": did not converge (%s).\n", p->ceiling);
}

static void free_pivot(Pivot *p) {
    for (int r = 0; r < p->n_rows; r++) {
        for (int k = 0; k < p->n_keys; k++) free(p->rows[r].cells[k]);
        for (int i = 0; i < p->rows[r].n_seen; i++) free(p->rows[r].seen[i]);
        free(p->rows[r].cells);
        free(p->rows[r].seen);
    }
    free(p->rows);
    for (int i = 0; i < p->first_seen.n_seen; i++) free(p->first_seen.seen[i]);
    free(p->first_seen.seen);
    for (int c = 0; c < p->n_colv; c++) free(p->colv[c]);
    free(p->colv);
    for (int i = 0; i < p->cell_rows * p->cell_cols; i++) {
        free(p->cells[i].group);
        free(p->cells[i].sum);
        free(p->cells[i].count);
        strbuf_free(&p->cells[i].steps);
    }
    free(p->cells);
    for (int i = 0; i < p->n_copies; i++) free(p->copies[i]);
    free(p->copies);
}

int pivot_markdown(const PivotSpec *spec, const CsvTable *t, StrBuf *out, char *err, int errlen) {
    Pivot p;
    memset(&p, 0, sizeof p);
    p.spec = spec;
    p.t = t;
    p.err = err;
    p.errlen = errlen;
    int rc = compile(&p);
    if (!rc && !p.n_keys && (find_row(&p, -1) < 0 || grow_cells(&p, 1, p.n_values)))
        rc = fail(&p, "out of memory");   // no row column: one row, even with no rows kept
    for (int i = 0; i < t->n_rows && !rc; i++) rc = add_row(&p, i);
    if (!rc) {
        if (p.cols_col >= 0) sort_cols(&p);
        StrBuf b = {0};
        if (spec->plain) write_plain(&p, &b);
        else write_table(&p, &b);
        if (b.failed) rc = fail(&p, "out of memory");
        else strbuf_append(out, b.s, b.len);
        strbuf_free(&b);
    }
    free_pivot(&p);
    return rc;
}
