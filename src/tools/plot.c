// ./plot: line plots of CSV columns as SVG. See usage() for the options.
//
// Rows are filtered, grouped into series by --group (one series when absent), sorted by x;
// rows sharing (group, x) -- several seeds, say -- are averaged, and --spread shades the
// min..max range across them. An empty x or y cell means "not measured here" and the row is
// skipped; a "nan" value is kept and leaves a gap in the line. More than MAX_PANEL_SERIES
// series (more than a reader tells apart in one frame) are split into panels stacked in one
// picture, sharing both axes' ranges.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "plot/columns.h"
#include "plot/svg.h"
#include "pos/pos.h"

static void usage(FILE *f) {
    fprintf(f,
        "usage: ./plot --x COL --y COL [options] -o OUT.svg IN.csv\n"
        "\n"
        "Draws COL y against COL x from a CSV file (header row) as an SVG line plot.\n"
        "\n"
        "  --x COL              column for the x axis (numbers)\n"
        "  --y COL              column for the y axis (numbers)\n"
        "  --group COL          one series per distinct value of COL (legend in first-seen order)\n"
        "  --filter COL=VALUE   keep rows whose COL equals VALUE; repeatable (the same column\n"
        "                       repeated keeps any of its values, different columns must"
        " all match)\n"
        "  --spread             shade min..max over rows sharing (group, x), e.g. seeds\n"
        "  --band COL           shade mean(y) +- mean(COL) (e.g. a standard deviation column)\n"
        "  --logx, --logy       logarithmic axis (non-positive values are left out)\n"
        "  --xmin X, --xmax X   the x axis's range (points outside it are left out)\n"
        "  --dodge PX           shift the series PX pixels apart sideways, so that equal\n"
        "                       values stay visible (e.g. 4 on an axis of a few whole numbers)\n"
        "  --panel COL          one panel per distinct value of COL (first-seen order), stacked\n"
        "                       in one picture; a panel of more than 8 series is split in\n"
        "                       nearly equal parts (with or without --panel); panels share\n"
        "                       both axes' ranges\n"
        "  --vline X            dashed vertical line at x = X ...\n"
        "  --vline-label TEXT   ... labelled TEXT (e.g. \"training length\")\n"
        "  --title T, --xlabel L, --ylabel L   texts (default: what the columns hold, for\n"
        "                       the columns of ./train's and ./eval's files; else their names)\n"
        "  -o OUT.svg           output file (written atomically)\n"
        "  -h, --help           this help\n"
        "\n"
        "example: ./plot --x length --y token_acc --group scheme --spread --logx \\\n"
        "             --vline 32 --vline-label 'training length' -o acc.svg results.csv\n");
}

#define MAX_FILTERS 32
#define MAX_PANEL_SERIES 8

typedef struct {
    const char *x, *y, *group, *band, *panel, *out, *in;
    const char *title, *xlabel, *ylabel, *vline_label;
    int logx, logy, spread, has_vline;
    double vline, xmin, xmax, dodge;
    int n_filters;
    char *filter_col[MAX_FILTERS];  // split copies of "COL=VALUE"
    const char *filter_val[MAX_FILTERS];
} Options;

static int parse_number(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    if (end == s) return -1;
    while (*end == ' ' || *end == '\t') end++;
    return *end ? -1 : 0;
}

// Option a (one of those that take a value) set to v in o. 0, or -1 (message printed).
static int set_value(Options *o, const char *a, const char *v) {
    if (!strcmp(a, "--x")) o->x = v;
    else if (!strcmp(a, "--y")) o->y = v;
    else if (!strcmp(a, "--group")) o->group = v;
    else if (!strcmp(a, "--band")) o->band = v;
    else if (!strcmp(a, "--vline-label")) o->vline_label = v;
    else if (!strcmp(a, "--title")) o->title = v;
    else if (!strcmp(a, "--xlabel")) o->xlabel = v;
    else if (!strcmp(a, "--ylabel")) o->ylabel = v;
    else if (!strcmp(a, "-o")) o->out = v;
    else if (!strcmp(a, "--panel")) o->panel = v;
    else if (!strcmp(a, "--vline") || !strcmp(a, "--xmin") || !strcmp(a, "--xmax") ||
             !strcmp(a, "--dodge")) {
        double *d = !strcmp(a, "--vline") ? &o->vline : !strcmp(a, "--xmin") ? &o->xmin
                  : !strcmp(a, "--xmax") ? &o->xmax : &o->dodge;
        if (parse_number(v, d) || !isfinite(*d)) {
            fprintf(stderr, "plot: %s wants a number, got '%s'\n", a, v);
            return -1;
        }
        o->has_vline |= d == &o->vline;
    } else {  // --filter
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) {
            fprintf(stderr, "plot: --filter wants COL=VALUE, got '%s'\n", v);
            return -1;
        }
        if (o->n_filters == MAX_FILTERS) {
            fprintf(stderr, "plot: more than %d filters\n", MAX_FILTERS);
            return -1;
        }
        o->filter_col[o->n_filters] = strndup(v, (size_t)(eq - v));
        o->filter_val[o->n_filters++] = eq + 1;
    }
    return 0;
}

// Parses argv into o. Returns 0, 1 for --help, -1 on error (message printed).
static int parse_args(int argc, char **argv, Options *o) {
    memset(o, 0, sizeof *o);
    o->xmin = o->xmax = NAN;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!strcmp(a, "--logx")) { o->logx = 1; continue; }
        if (!strcmp(a, "--logy")) { o->logy = 1; continue; }
        if (!strcmp(a, "--spread")) { o->spread = 1; continue; }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (o->in) {
                fprintf(stderr, "plot: more than one input file ('%s' and '%s')\n", o->in, a);
                return -1;
            }
            o->in = a;
            continue;
        }
        static const char *const takes_value[] = {"--x", "--y", "--group", "--filter", "--band",
            "--vline", "--vline-label", "--title", "--xlabel", "--ylabel", "-o", "--xmin",
            "--xmax", "--dodge", "--panel", NULL};
        int known = 0;
        for (int k = 0; takes_value[k]; k++) known |= !strcmp(a, takes_value[k]);
        if (!known) {
            fprintf(stderr, "plot: unknown option '%s' (see ./plot --help)\n", a);
            return -1;
        }
        if (i + 1 >= argc) { fprintf(stderr, "plot: %s needs a value\n", a); return -1; }
        if (set_value(o, a, argv[++i])) return -1;
    }
    const char *missing = !o->x ? "--x COL" : !o->y ? "--y COL" : !o->out ? "-o OUT.svg"
                        : !o->in ? "an input CSV file" : NULL;
    if (missing) { fprintf(stderr, "plot: missing %s (see ./plot --help)\n", missing); return -1; }
    if (o->spread && o->band) {
        fprintf(stderr, "plot: use either --spread or --band, not both\n");
        return -1;
    }
    if (o->xmin >= o->xmax) {
        fprintf(stderr, "plot: --xmin %g is not below --xmax %g\n", o->xmin, o->xmax);
        return -1;
    }
    if (o->dodge < 0) {
        fprintf(stderr, "plot: --dodge wants a number of pixels >= 0, got %g\n", o->dodge);
        return -1;
    }
    if (o->vline_label && !o->has_vline) {
        fprintf(stderr, "plot: --vline-label needs --vline X\n");
        return -1;
    }
    return 0;
}

static void free_options(Options *o) {
    for (int i = 0; i < o->n_filters; i++) free(o->filter_col[i]);
}

// Column index by name, or -1 after printing the available columns.
static int find_column(const CsvTable *t, const char *name, const char *what) {
    int c = csv_col(t, name);
    if (c < 0) {
        char cols[2048];
        csv_columns(t, cols, sizeof cols);
        fprintf(stderr, "plot: %s: unknown %s column '%s' (columns: %s)\n", t->name, what, name,
                cols);
    }
    return c;
}

// Filters on one column OR together; filters on different columns AND together.
static int row_passes(const CsvTable *t, int r, const Options *o, const int *fcol) {
    for (int i = 0; i < o->n_filters; i++) {
        int any = 0, seen_before = 0;
        for (int j = 0; j < i; j++) seen_before |= fcol[j] == fcol[i];
        if (seen_before) continue;
        for (int j = i; j < o->n_filters; j++)
            if (fcol[j] == fcol[i] && !strcmp(t->rows[r][fcol[j]], o->filter_val[j])) any = 1;
        if (!any) return 0;
    }
    return 1;
}

typedef struct { int panel, group, row; double x, y, band; } Rec;

static int cmp_rec(const void *a, const void *b) {
    const Rec *p = a, *q = b;
    if (p->panel != q->panel) return p->panel < q->panel ? -1 : 1;
    if (p->group != q->group) return p->group < q->group ? -1 : 1;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
}

// Reads a numeric cell: 1 with *v set, 0 when empty, -1 (message printed) when not a number.
static int read_cell(const CsvTable *t, int r, int c, double *v) {
    const char *s = t->rows[r][c];
    if (!*s) return 0;
    if (parse_number(s, v) == 0) return 1;
    fprintf(stderr, "plot: %s:%d: column '%s' holds '%s', not a number\n", t->name, t->line[r],
            t->header[c], s);
    return -1;
}

typedef struct { char **names; int n; } Groups;

static int group_index(Groups *g, const char *name) {
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->names[i], name)) return i;
    char **names = realloc(g->names, (size_t)(g->n + 1) * sizeof *names);
    if (!names) return -1;
    g->names = names;
    if (!(g->names[g->n] = strdup(name))) return -1;
    return g->n++;
}

// Turns the records of one group (sorted by x) into a series: mean y per distinct x, plus
// the band (min..max across duplicates, or mean +- mean band value).
static int add_group_series(Plot *p, const char *name, const Rec *rec, int n, const Options *o) {
    double *buf = malloc((size_t)4 * (size_t)n * sizeof *buf);
    if (!buf) return -1;
    double *xs = buf, *ys = buf + n, *lo = buf + 2 * n, *hi = buf + 3 * n;
    int m = 0;
    for (int i = 0; i < n;) {
        int j = i;
        double sum = 0, bsum = 0, mn = INFINITY, mx = -INFINITY;
        int cnt = 0, bcnt = 0;
        for (; j < n && rec[j].x == rec[i].x; j++) {
            if (isfinite(rec[j].y))
                sum += rec[j].y, cnt++, mn = fmin(mn, rec[j].y), mx = fmax(mx, rec[j].y);
            if (isfinite(rec[j].band)) bsum += rec[j].band, bcnt++;
        }
        xs[m] = rec[i].x;
        ys[m] = cnt ? sum / cnt : NAN;
        lo[m] = hi[m] = NAN;
        if (o->spread && cnt) lo[m] = mn, hi[m] = mx;
        if (o->band && cnt && bcnt) lo[m] = ys[m] - bsum / bcnt, hi[m] = ys[m] + bsum / bcnt;
        m++;
        i = j;
    }
    int s = plot_add_series(p, name, m, xs, ys);
    // a scheme's own colour, also for a row named after it ("rope + random")
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(name, " "), name);
    int rc = s < 0 ? -1 : plot_set_style(p, s, pos_scheme_plot_style(first));
    if (s >= 0 && (o->spread || o->band)) rc = plot_set_band(p, s, lo, hi);
    free(buf);
    return rc;
}

// An axis's title: the option's text, else what the column holds, else its name.
static const char *axis_title(const char *given, const char *col) {
    return given ? given : column_title(col) ? column_title(col) : col;
}

static void default_title(const Options *o, char *buf, size_t n) {
    size_t used = (size_t)snprintf(buf, n, "%s against %s", axis_title(o->ylabel, o->y),
                                   axis_title(o->xlabel, o->x));
    for (int i = 0; i < o->n_filters && used < n; i++)
        used +=
            (size_t)snprintf(buf + used, n - used, "%s%s=%s%s", i ? ", " : " (", o->filter_col[i],
                             o->filter_val[i], i + 1 == o->n_filters ? ")" : "");
}

// Panel part + 1 of parts of the panel value `panel`: its title, axes, range and line.
static void init_panel(Plot *p, const Options *o, const Groups *pg, int panel, int part,
                       int parts) {
    char ptitle[256] = "";
    if (o->panel) {
        snprintf(ptitle, sizeof ptitle, parts > 1 ? "%s = %s (%d of %d)" : "%s = %s",
                 o->panel, pg->names[panel], part + 1, parts);
    }
    plot_init(p, ptitle, axis_title(o->xlabel, o->x), axis_title(o->ylabel, o->y));
    p->logx = o->logx, p->logy = o->logy;
    p->xmin = o->xmin, p->xmax = o->xmax, p->dodge = o->dodge;
    if (o->group) snprintf(p->legend_title, sizeof p->legend_title, "%s", o->group);
    if (o->has_vline) plot_set_vline(p, o->vline, o->vline_label);
}

// Something to plot: rows matched and n of them have both values (message printed if not);
// a warning for the points a log axis leaves out.
static int check_rows(const Options *o, int n_matched, int n, int n_off_log) {
    if (n_matched == 0) {
        fprintf(stderr, "plot: %s: no rows %s\n", o->in,
                o->n_filters ? "match the filters" : "(header only)");
        return -1;
    }
    if (n == 0) {
        fprintf(stderr, "plot: %s: none of the %d rows has both '%s' and '%s' filled in\n",
                o->in, n_matched, o->x, o->y);
        return -1;
    }
    if (n_off_log)
        fprintf(stderr,
                "plot: warning: %d point%s with non-positive values left out of the log axis\n",
                n_off_log, n_off_log == 1 ? "" : "s");
    return 0;
}

// The SVG (one panel, or panels under the main title) and the line that reports it.
static int write_panels(Plot *panels, int n_panels, const Options *o, const char *title,
                        int n_series, int n) {
    char err[512];
    const char *main_title = o->title ? o->title : title;
    int written = n_panels == 1 ? (snprintf(panels[0].title, sizeof panels[0].title, "%s",
                                            main_title),
                                   plot_write_svg(&panels[0], o->out, err, sizeof err))
                                : plot_write_panels_svg(panels, n_panels, main_title, o->out, err,
                                                        sizeof err);
    if (written) {
        fprintf(stderr, "plot: %s\n", err);
        return -1;
    }
    if (n_panels > 1)
        printf("wrote %s: %d series in %d panels from %d rows\n", o->out, n_series, n_panels, n);
    else
        printf("wrote %s: %d series from %d rows\n", o->out, n_series, n);
    return 0;
}

static int run(const Options *o) {
    char err[512];
    CsvTable t;
    if (csv_read(o->in, &t, err, sizeof err)) { fprintf(stderr, "plot: %s\n", err); return 1; }

    int rc = 1, fcol[MAX_FILTERS], n_panels = 0;
    Rec *rec = NULL;
    Groups g = {0}, pg = {0};
    Plot *panels = NULL;
    int cx = find_column(&t, o->x, "x"), cy = find_column(&t, o->y, "y");
    int cg = o->group ? find_column(&t, o->group, "group") : 0;
    int cb = o->band ? find_column(&t, o->band, "band") : 0;
    int cp = o->panel ? find_column(&t, o->panel, "panel") : 0;
    if (cx < 0 || cy < 0 || cg < 0 || cb < 0 || cp < 0) goto done;
    for (int i = 0; i < o->n_filters; i++)
        if ((fcol[i] = find_column(&t, o->filter_col[i], "filter")) < 0) goto done;

    rec = malloc((size_t)(t.n_rows ? t.n_rows : 1) * sizeof *rec);
    if (!rec) { fprintf(stderr, "plot: out of memory\n"); goto done; }
    int n = 0, n_matched = 0, n_off_log = 0;
    for (int r = 0; r < t.n_rows; r++) {
        if (!row_passes(&t, r, o, fcol)) continue;
        n_matched++;
        Rec e = {.row = r, .band = NAN};
        int hx = read_cell(&t, r, cx, &e.x), hy = read_cell(&t, r, cy, &e.y);
        int hb = o->band ? read_cell(&t, r, cb, &e.band) : 1;
        if (hx < 0 || hy < 0 || hb < 0) goto done;
        if (!hx || !hy || !isfinite(e.x)) continue;
        if ((o->logx && e.x <= 0) || (o->logy && e.y <= 0)) n_off_log++;
        const char *gname = o->group ? t.rows[r][cg] : o->y;
        e.group = group_index(&g, *gname ? gname : "(empty)");
        e.panel = o->panel ? group_index(&pg, t.rows[r][cp]) : 0;
        if (e.group < 0 || e.panel < 0) { fprintf(stderr, "plot: out of memory\n"); goto done; }
        rec[n++] = e;
    }
    if (check_rows(o, n_matched, n, n_off_log)) goto done;
    qsort(rec, (size_t)n, sizeof *rec, cmp_rec);

    char title[512];
    default_title(o, title, sizeof title);
    // Panels: a run of records per panel value, cut into ceil(series / 8) nearly equal parts.
    panels = calloc((size_t)n, sizeof *panels);  // never more panels than records
    if (!panels) { fprintf(stderr, "plot: out of memory\n"); goto done; }
    int n_series = 0;
    for (int i = 0; i < n;) {
        int end = i, ns = 0;
        for (; end < n && rec[end].panel == rec[i].panel; end++)
            ns += end == i || rec[end].group != rec[end - 1].group;
        int parts = (ns + MAX_PANEL_SERIES - 1) / MAX_PANEL_SERIES, s = 0;
        for (int part = 0; part < parts; part++) {
            Plot *p = &panels[n_panels++];
            init_panel(p, o, &pg, rec[i].panel, part, parts);
            for (int last = (int)((long)(part + 1) * ns / parts); s < last; s++) {
                int j = i;
                while (j < end && rec[j].group == rec[i].group) j++;
                if (add_group_series(p, g.names[rec[i].group], rec + i, j - i, o)) {
                    fprintf(stderr, "plot: out of memory\n");
                    goto done;
                }
                n_series++;
                i = j;
            }
        }
    }
    if (write_panels(panels, n_panels, o, title, n_series, n)) goto done;
    rc = 0;
done:
    for (int i = 0; i < n_panels; i++) plot_free(&panels[i]);
    free(panels);
    for (int i = 0; i < g.n; i++) free(g.names[i]);
    for (int i = 0; i < pg.n; i++) free(pg.names[i]);
    free(g.names), free(pg.names);
    free(rec);
    csv_free(&t);
    return rc;
}

int main(int argc, char **argv) {
    Options o;
    int a = parse_args(argc, argv, &o);
    if (a != 0) {
        free_options(&o);
        if (a > 0) { usage(stdout); return 0; }
        return 2;
    }
    int rc = run(&o);
    free_options(&o);
    return rc;
}
