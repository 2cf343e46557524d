// SVG line plots; see svg.h. The document is built in memory, then written atomically.
#include "plot/svg.h"
#include "core/errors.h"
#include "io/fileio.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---------------------------------------------------------------- plot object

void plot_init(Plot *p, const char *title, const char *xlabel, const char *ylabel) {
    memset(p, 0, sizeof *p);
    snprintf(p->title, sizeof p->title, "%s", title ? title : "");
    snprintf(p->xlabel, sizeof p->xlabel, "%s", xlabel ? xlabel : "");
    snprintf(p->ylabel, sizeof p->ylabel, "%s", ylabel ? ylabel : "");
    p->width = 640;
    p->height = 400;
    p->xmin = p->xmax = p->ymin = p->ymax = NAN;
}

void plot_free(Plot *p) {
    for (int i = 0; i < p->n_series; i++) {
        PlotSeries *s = &p->series[i];
        free(s->name), free(s->x), free(s->y), free(s->lo), free(s->hi);
    }
    free(p->series);
    p->series = NULL;
    p->n_series = p->cap_series = 0;
}

static double *copy_doubles(const double *v, int n) {
    double *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    if (c && n > 0) memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

int plot_add_series(Plot *p, const char *name, int n, const double *x, const double *y) {
    if (n < 0) n = 0;
    if (p->n_series == p->cap_series) {
        int cap = p->cap_series ? 2 * p->cap_series : 8;
        PlotSeries *s = realloc(p->series, (size_t)cap * sizeof *s);
        if (!s) return -1;
        p->series = s, p->cap_series = cap;
    }
    PlotSeries s = {0};
    s.name = strdup(name ? name : "");
    s.x = copy_doubles(x, n);
    s.y = copy_doubles(y, n);
    s.n = n;
    s.style = -1;
    if (!s.name || !s.x || !s.y) {
        free(s.name), free(s.x), free(s.y);
        return -1;
    }
    p->series[p->n_series] = s;
    return p->n_series++;
}

int plot_set_band(Plot *p, int s, const double *lo, const double *hi) {
    if (s < 0 || s >= p->n_series) return -1;
    PlotSeries *ps = &p->series[s];
    double *l = copy_doubles(lo, ps->n), *h = copy_doubles(hi, ps->n);
    if (!l || !h) { free(l), free(h); return -1; }
    free(ps->lo), free(ps->hi);
    ps->lo = l, ps->hi = h;
    return 0;
}

int plot_set_style(Plot *p, int s, int style) {
    if (s < 0 || s >= p->n_series || style < -1 || style >= PLOT_N_COLORS) return -1;
    p->series[s].style = style;
    return 0;
}

void plot_set_vline(Plot *p, double x, const char *label) {
    p->has_vline = 1;
    p->vline_x = x;
    snprintf(p->vline_label, sizeof p->vline_label, "%s", label ? label : "");
}

// ---------------------------------------------------------------- ticks and numbers

// Largest value of the form {1,2,5} x 10^e that is <= v (v > 0), and the smallest >= v.
static double floor_125(double v) {
    double e = floor(log10(v) + 1e-12), m = v / pow(10, e);
    double mm = m >= 5 - 1e-9 ? 5 : m >= 2 - 1e-9 ? 2 : 1;
    return mm * pow(10, e);
}
static double ceil_125(double v) {
    double e = floor(log10(v) - 1e-12), m = v / pow(10, e);
    double mm = m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 5 + 1e-9 ? 5 : 10;
    return mm * pow(10, e);
}

// k * mant * 10^e computed so that decimal steps come out exact (0.3, not 0.30000000000000004).
static double scaled(double k, double e) {
    return e < 0 ? k / pow(10, -e) : k * pow(10, e);
}

static void add_tick(PlotAxis *a, double v, int major, int label) {
    if (a->n_ticks < PLOT_MAX_TICKS) a->ticks[a->n_ticks++] = (PlotTick){v, major, label};
}

static void linear_axis(double dmin, double dmax, double min_step, PlotAxis *a) {
    if (dmax - dmin <= 1e-12 * fmax(fabs(dmin), fabs(dmax))) {  // one value: give it room
        double pad = dmin == 0 ? 1 : fabs(dmin) * 0.1;
        dmin -= pad, dmax += pad;
    }
    // The finest 1-2-5 step that needs at most 7 intervals once both ends snap to ticks
    // (so little of the axis is empty), starting from a tenth of the span.
    static const double mants[3] = {1, 2, 5};
    double e = floor(log10((dmax - dmin) / 10)), mant = 1, k0 = 0, k1 = 0;
    for (int tries = 0; tries < 40 && isfinite(e); tries++, e++) {
        for (int i = 0; i < 3; i++) {
            mant = mants[i];
            double step = scaled(mant, e);
            if (step < min_step * (1 - 1e-9)) continue;
            k0 = floor(dmin / step + 1e-9), k1 = ceil(dmax / step - 1e-9);
            if (k1 - k0 <= 7) goto found;
        }
    }
    // A span beyond the double range: just mark the ends.
    a->lo = dmin, a->hi = dmax;
    add_tick(a, dmin, 1, 1);
    add_tick(a, dmax, 1, 1);
    return;
found:
    a->lo = scaled(k0 * mant, e);
    a->hi = scaled(k1 * mant, e);
    for (double k = k0; k <= k1 && a->n_ticks < PLOT_MAX_TICKS; k++)
        add_tick(a, scaled(k * mant, e), 1, 1);
}

static void log_ticks(double lo, double hi, PlotAxis *a) {
    a->lo = lo, a->hi = hi, a->n_ticks = 0;
    double decades = log10(hi / lo);
    int e0 = (int)floor(log10(lo) + 1e-9), e1 = (int)ceil(log10(hi) - 1e-9);
    int stride = decades > 10 ? (int)ceil(decades / 10) : 1;  // at most ~10 labelled decades
    for (int e = e0; e <= e1; e++) {
        for (int m = 1; m <= 9; m++) {
            if (m > 1 && decades > 6) break;  // long ranges: decades only
            double v = m * pow(10, e);
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
            int major = m == 1 && (e - e0) % stride == 0;
            if (m == 1 && !major) continue;
            int label = major || ((m == 2 || m == 5) && decades <= 3.01);
            add_tick(a, v, major, label);
        }
    }
}

// A log axis spans exactly the data (log scales waste much room when rounded outwards),
// unless fewer than two labelled ticks would fall inside; then it widens to 1-2-5 values.
static void log_axis(double dmin, double dmax, PlotAxis *a) {
    if (dmax <= dmin * (1 + 1e-9)) dmin /= 2, dmax *= 2;
    log_ticks(dmin, dmax, a);
    int labels = 0;
    for (int i = 0; i < a->n_ticks; i++) labels += a->ticks[i].label;
    if (labels < 2) log_ticks(floor_125(dmin), ceil_125(dmax), a);
}

void plot_axis_step(double dmin, double dmax, int log, double min_step, PlotAxis *a) {
    memset(a, 0, sizeof *a);
    a->log = log;
    int no_data = !(dmin <= dmax) || !isfinite(dmin) || !isfinite(dmax) || (log && dmin <= 0);
    if (no_data) dmin = log ? 1 : 0, dmax = log ? 10 : 1;
    if (log) log_axis(dmin, dmax, a);
    else linear_axis(dmin, dmax, min_step, a);
}

void plot_axis(double dmin, double dmax, int log, PlotAxis *a) {
    plot_axis_step(dmin, dmax, log, 0, a);
}

// Drops trailing zeros of a "%.Nf" / mantissa string: "2.500" -> "2.5", "3.000" -> "3".
static void trim_zeros(char *s) {
    char *dot = strchr(s, '.');
    if (!dot) return;
    char *end = s + strlen(s) - 1;
    while (end > dot && *end == '0') *end-- = '\0';
    if (end == dot) *end = '\0';
}

static int needs_exponent(double v) {
    double a = fabs(v);
    return a >= 1e6 || (a > 1e-300 && a < 1e-4);
}

// 2.5e-5, 1e6, 5e5 (up to three decimals in the mantissa).
static void format_exponent(double v, char *buf, int n) {
    int e = (int)floor(log10(fabs(v)) + 1e-12);
    char mant[32];
    snprintf(mant, sizeof mant, "%.3f", v / pow(10, e));
    trim_zeros(mant);
    snprintf(buf, (size_t)n, "%se%d", mant, e);
}

void plot_format_number(double v, char *buf, int n) {
    if (n <= 0) return;
    if (!isfinite(v)) { snprintf(buf, (size_t)n, "%s", "?"); return; }
    double a = fabs(v);
    if (a < 1e-300) { snprintf(buf, (size_t)n, "0"); return; }
    if (needs_exponent(v)) { format_exponent(v, buf, n); return; }
    for (int d = 0; d <= 10; d++) {  // fewest decimals that still read back as v
        snprintf(buf, (size_t)n, "%.*f", d, v);
        if (fabs(strtod(buf, NULL) - v) <= 1e-9 * a) break;
    }
    trim_zeros(buf);
    if (strcmp(buf, "-0") == 0) snprintf(buf, (size_t)n, "0");
}

// Labels on one axis share a style: all in exponent form when any of them needs it
// (0, 5e5, 1e6, 1.5e6 rather than 0, 500000, 1e6, 1.5e6).
static void tick_label(const PlotAxis *a, double v, char *buf, int n) {
    int exp = 0;
    for (int i = 0; i < a->n_ticks; i++) exp |= a->ticks[i].label && needs_exponent(a->ticks[i].v);
    if (exp && fabs(v) > 1e-300 && isfinite(v)) format_exponent(v, buf, n);
    else plot_format_number(v, buf, n);
}

// ---------------------------------------------------------------- colours

// Okabe-Ito (colour-blind safe), with dark grey for the no-position baseline and wine in
// place of yellow, which is unreadable on white; then Tol's olive and indigo, so that nine
// schemes and a series of one's own each get a slot.
static const char *const palette[PLOT_N_COLORS] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#444444", "#882255",
    "#999933", "#332288",
};

int plot_color_slot(const char *name) {
    return (int)(fnv1a(name, strlen(name)) % PLOT_N_COLORS);
}

const char *plot_color(int slot) {
    return palette[((slot % PLOT_N_COLORS) + PLOT_N_COLORS) % PLOT_N_COLORS];
}

const char *plot_dash(int k) {
    static const char *const dashes[4] = {"", "7 3", "2 3", "10 3 2 3"};
    return dashes[((k % 4) + 4) % 4];
}

// Slot per series: series with a fixed style first take that slot, then the others take their
// hashed slot or the next free one. dash[i] counts the series drawn in slot[i]'s colour before
// series i (with more series than colours, or two fixed to one slot), for plot_dash.
static void assign_slots(const Plot *p, int *slot, int *dashed) {
    int used[PLOT_N_COLORS] = {0};
    for (int i = 0; i < p->n_series; i++) {
        slot[i] = p->series[i].style;
        dashed[i] = 0;
        if (slot[i] >= 0) dashed[i] = used[slot[i]]++;
    }
    for (int i = 0; i < p->n_series; i++) {
        if (slot[i] >= 0) continue;
        int s = plot_color_slot(p->series[i].name), k = 0;
        while (k < PLOT_N_COLORS && used[(s + k) % PLOT_N_COLORS]) k++;
        if (k < PLOT_N_COLORS) s = (s + k) % PLOT_N_COLORS;
        dashed[i] = used[s]++;
        slot[i] = s;
    }
}

// ---------------------------------------------------------------- text output

char *plot_xml_escape(const char *text, char *buf, int n) {
    if (n <= 0) return buf;
    int used = 0;
    const unsigned char *s = (const unsigned char *)(text ? text : ""),
                        *end = s + strlen((const char *)s);
    while (*s) {
        char tmp[8];
        const char *piece = tmp;
        int len = utf8_seq_len(s, (size_t)(end - s)), adv = len ? len : 1;
        switch (*s) {
            case '&': piece = "&amp;"; break;
            case '<': piece = "&lt;"; break;
            case '>': piece = "&gt;"; break;
            case '"': piece = "&quot;"; break;
            case '\'': piece = "&apos;"; break;
            default:
                if (!len || (*s < 0x20 && *s != '\t')) tmp[0] = '?', tmp[1] = '\0';
                else memcpy(tmp, s, (size_t)len), tmp[len] = '\0';
        }
        int plen = (int)strlen(piece);
        if (used + plen >= n) break;  // never cut an entity or a character in half
        memcpy(buf + used, piece, (size_t)plen);
        used += plen;
        s += adv;
    }
    buf[used] = '\0';
    return buf;
}

// Escaped text appended to the document.
static void sb_text(StrBuf *b, const char *text) {
    size_t need = strlen(text) * 6 + 1;
    char small[1024], *buf = need <= sizeof small ? small : malloc(need);
    if (!buf) { b->failed = 1; return; }
    strbuf_printf(b, "%s", plot_xml_escape(text, buf, (int)need));
    if (buf != small) free(buf);
}

// Approximate rendered width of text in pixels (sans-serif glyphs average ~0.6 em).
static double text_width(const char *s, double font_size) {
    int chars = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) chars += (*c & 0xC0) != 0x80;
    return chars * 0.6 * font_size;
}

// ---------------------------------------------------------------- layout and drawing

typedef struct { double lo, hi, p0, p1; int log; } Scale;  // value range -> pixel range

static int on_axis(double v, int log) { return isfinite(v) && (!log || v > 0); }

// x inside the range the caller set (a NaN bound: no limit on that side).
static int in_x_range(const Plot *p, double x) {
    return on_axis(x, p->logx) && !(x < p->xmin) && !(x > p->xmax);
}

static double to_px(const Scale *s, double v) {
    double t = s->log ? (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo))
                      : (v - s->lo) / (s->hi - s->lo);
    return s->p0 + t * (s->p1 - s->p0);
}

static void widen(double *mn, double *mx, double v, int log) {
    if (!on_axis(v, log)) return;
    if (v < *mn) *mn = v;
    if (v > *mx) *mx = v;
}

// Data range over drawable points (and band, vline) inside the x range, for both axes; a
// bound the caller set replaces the data's. *whole: every x drawn is a whole number.
static void data_range(const Plot *p, double *xmin, double *xmax, double *ymin, double *ymax,
                       int *whole) {
    *xmin = *ymin = INFINITY;
    *xmax = *ymax = -INFINITY;
    *whole = 1;
    for (int i = 0; i < p->n_series; i++) {
        const PlotSeries *s = &p->series[i];
        for (int k = 0; k < s->n; k++) {
            if (!in_x_range(p, s->x[k])) continue;
            widen(xmin, xmax, s->x[k], p->logx);  // an x with no y still shapes the axis
            widen(ymin, ymax, s->y[k], p->logy);
            if (s->lo) widen(ymin, ymax, s->lo[k], p->logy), widen(ymin, ymax, s->hi[k], p->logy);
            *whole &= s->x[k] == floor(s->x[k]);
        }
    }
    if (p->has_vline && in_x_range(p, p->vline_x)) widen(xmin, xmax, p->vline_x, p->logx);
    if (on_axis(p->xmin, p->logx)) *xmin = p->xmin;
    if (on_axis(p->xmax, p->logx)) *xmax = p->xmax;
    if (on_axis(p->ymin, p->logy)) *ymin = p->ymin;
    if (on_axis(p->ymax, p->logy)) *ymax = p->ymax;
}

typedef struct {
    double left, top, w, h;          // plot area
    double total_w, total_h;
    double legend_x, legend_w;
    double y_label_w;                // widest y tick label
    PlotAxis ax, ay;
    Scale sx, sy;
    int has_data;
} Layout;

#define TICK_FONT 12.0
#define LABEL_FONT 13.0
#define TITLE_FONT 16.0
#define LEGEND_FONT 12.0
#define LEGEND_ROW 20.0
#define VLINE_FONT 11.0
#define INSET 8.0   // gap between the frame and the first/last tick, so markers clear the frame

static void make_layout(const Plot *p, Layout *L) {
    memset(L, 0, sizeof *L);
    double xmin, xmax, ymin, ymax;
    int whole;
    data_range(p, &xmin, &xmax, &ymin, &ymax, &whole);
    L->has_data = xmin <= xmax && ymin <= ymax;
    plot_axis_step(xmin, xmax, p->logx, whole && xmin <= xmax ? 1 : 0, &L->ax);
    plot_axis(ymin, ymax, p->logy, &L->ay);

    for (int i = 0; i < L->ay.n_ticks; i++) {
        if (!L->ay.ticks[i].label) continue;
        char num[48];
        tick_label(&L->ay, L->ay.ticks[i].v, num, sizeof num);
        L->y_label_w = fmax(L->y_label_w, text_width(num, TICK_FONT));
    }
    L->w = p->width > 100 ? p->width : 640;
    L->h = p->height > 100 ? p->height : 400;
    L->left = 14 + (p->ylabel[0] ? LABEL_FONT + 10 : 0) + L->y_label_w + 8;
    L->top = p->title[0] ? 20 + TITLE_FONT + 12 : 20;
    // its label sits above the frame
    if (p->has_vline && p->vline_label[0]) L->top += VLINE_FONT + 6;

    double name_w = text_width(p->legend_title, LEGEND_FONT) + 4;
    for (int i = 0; i < p->n_series; i++)
        name_w = fmax(name_w, 30 + text_width(p->series[i].name, LEGEND_FONT));
    L->legend_x = L->left + L->w + 20;
    L->legend_w = p->n_series ? name_w + 16 : 0;
    L->total_w = L->legend_x + L->legend_w + 10;
    double legend_h = (p->legend_title[0] ? LEGEND_ROW : 0) + p->n_series * LEGEND_ROW + 10;
    double bottom = 8 + TICK_FONT + 8 + (p->xlabel[0] ? LABEL_FONT + 12 : 0) + 10;
    L->total_h = L->top + fmax(L->h, legend_h) + bottom;

    // the outermost dodged series stays as far inside the frame as an undodged one
    double inset = INSET + (p->n_series > 1 ? (p->n_series - 1) / 2.0 * p->dodge : 0);
    L->sx = (Scale){L->ax.lo, L->ax.hi, L->left + inset, L->left + L->w - inset, p->logx};
    L->sy = (Scale){L->ay.lo, L->ay.hi, L->top + L->h - INSET, L->top + INSET, p->logy};
}

// Keeps a tick label only when it clears every label already placed (majors go first).
typedef struct { double a, b; } Span;

static int span_free(const Span *placed, int n, Span s) {
    for (int i = 0; i < n; i++)
        if (s.a < placed[i].b && placed[i].a < s.b) return 0;
    return 1;
}

static void draw_grid(StrBuf *b, const Layout *L) {
    double x0 = L->left, x1 = L->left + L->w, y0 = L->top, y1 = L->top + L->h;
    strbuf_printf(b, "<g class=\"grid\" fill=\"none\">\n");
    for (int i = 0; i < L->ax.n_ticks; i++) {
        const PlotTick *t = &L->ax.ticks[i];
        double x = to_px(&L->sx, t->v);
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                  x, y0, x, y1, t->major ? "#dddddd" : "#eeeeee");
    }
    for (int i = 0; i < L->ay.n_ticks; i++) {
        const PlotTick *t = &L->ay.ticks[i];
        double y = to_px(&L->sy, t->v);
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                  x0, y, x1, y, t->major ? "#dddddd" : "#eeeeee");
    }
    strbuf_printf(b, "</g>\n");
}

static void draw_axes(StrBuf *b, const Plot *p, const Layout *L) {
    double x0 = L->left, y0 = L->top, y1 = L->top + L->h;
    strbuf_printf(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"none\" stroke=\"#333333\"/>\n", x0, y0, L->w, L->h);
    strbuf_printf(b, "<g class=\"ticks\" stroke=\"#333333\">\n");
    for (int i = 0; i < L->ax.n_ticks; i++) {
        double x = to_px(&L->sx, L->ax.ticks[i].v), len = L->ax.ticks[i].major ? 5 : 3;
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y1, x,
                      y1 + len);
    }
    for (int i = 0; i < L->ay.n_ticks; i++) {
        double y = to_px(&L->sy, L->ay.ticks[i].v), len = L->ay.ticks[i].major ? 5 : 3;
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0 - len, y,
                      x0, y);
    }
    strbuf_printf(b, "</g>\n");

    // Tick labels: majors placed first, minors only where they do not overlap.
    Span placed[PLOT_MAX_TICKS];
    char num[48];
    strbuf_printf(b, "<g class=\"tick-labels\" font-size=\"%g\" fill=\"#333333\">\n", TICK_FONT);
    for (int axis = 0; axis < 2; axis++) {
        const PlotAxis *a = axis == 0 ? &L->ax : &L->ay;
        const Scale *s = axis == 0 ? &L->sx : &L->sy;
        int n_placed = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < a->n_ticks; i++) {
                const PlotTick *t = &a->ticks[i];
                if (!t->label || t->major != (pass == 0)) continue;
                tick_label(a, t->v, num, sizeof num);
                double pos = to_px(s, t->v);
                double half = axis == 0 ? text_width(num, TICK_FONT) / 2 + 4 : TICK_FONT / 2 + 1;
                Span sp = {pos - half, pos + half};
                if (!span_free(placed, n_placed, sp)) continue;
                placed[n_placed++] = sp;
                if (axis == 0)
                    strbuf_printf(b,
                                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                                  pos, y1 + 8 + TICK_FONT, num);
                else
                    strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                              x0 - 8, pos + TICK_FONT * 0.35, num);
            }
        }
    }
    strbuf_printf(b, "</g>\n");

    if (p->xlabel[0]) {
        strbuf_printf(b,
                      "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                      "font-size=\"%g\">",
                      x0 + L->w / 2, y1 + 8 + TICK_FONT + 10 + LABEL_FONT, LABEL_FONT);
        sb_text(b, p->xlabel);
        strbuf_printf(b, "</text>\n");
    }
    if (p->ylabel[0]) {
        double x = 14 + LABEL_FONT * 0.8, y = y0 + L->h / 2;
        strbuf_printf(b, "<text class=\"ylabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                  "font-size=\"%g\" transform=\"rotate(-90 %.1f %.1f)\">", x, y, LABEL_FONT, x, y);
        sb_text(b, p->ylabel);
        strbuf_printf(b, "</text>\n");
    }
    if (p->title[0]) {
        strbuf_printf(b,
                      "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                      "font-size=\"%g\" font-weight=\"bold\">",
                      x0 + L->w / 2, 20 + TITLE_FONT, TITLE_FONT);
        sb_text(b, p->title);
        strbuf_printf(b, "</text>\n");
    }
}

static void draw_vline(StrBuf *b, const Plot *p, const Layout *L) {
    if (!p->has_vline || !in_x_range(p, p->vline_x)) return;
    double x = to_px(&L->sx, p->vline_x), y0 = L->top, y1 = L->top + L->h;
    strbuf_printf(b, "<g class=\"vline\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"#555555\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>\n", x, y0, x, y1);
    if (p->vline_label[0]) {
        // Above the frame, centred on the line but kept inside the picture: never over data.
        double half = text_width(p->vline_label, VLINE_FONT) / 2;
        double cx = fmin(fmax(x, half + 4), L->total_w - half - 4);
        strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"%g\" "
                  "fill=\"#444444\">", cx, y0 - 5, VLINE_FONT);
        sb_text(b, p->vline_label);
        strbuf_printf(b, "</text>\n");
    }
    strbuf_printf(b, "</g>\n");
}

static int point_ok(const Plot *p, double x, double y) {
    return in_x_range(p, x) && on_axis(y, p->logy) && !(y < p->ymin) && !(y > p->ymax);
}

// " stroke-dasharray=..." for the k-th series of one colour, or "" for the first.
static void sb_dash(StrBuf *b, int k) {
    if (*plot_dash(k)) strbuf_printf(b, " stroke-dasharray=\"%s\"", plot_dash(k));
}

// Shaded band: one closed polygon per run of consecutive points with valid bounds; a run of
// a single point becomes an error bar.
static void draw_band(StrBuf *b, const Plot *p, const Layout *L, const PlotSeries *s,
                      const char *color, double dx) {
    if (!s->lo) return;
    strbuf_printf(b, "<g class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\">\n",
                  color);
    int k = 0;
    while (k < s->n) {
        if (!point_ok(p, s->x[k], s->lo[k]) || !on_axis(s->hi[k], p->logy)) { k++; continue; }
        int end = k;
        while (end + 1 < s->n && point_ok(p, s->x[end + 1], s->lo[end + 1]) &&
               on_axis(s->hi[end + 1], p->logy))
            end++;
        if (end == k) {
            double x = to_px(&L->sx, s->x[k]) + dx;
            strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-opacity=\"0.5\" stroke-width=\"6\"/>\n",
                      x, to_px(&L->sy, s->lo[k]), x, to_px(&L->sy, s->hi[k]), color);
        } else {
            strbuf_printf(b, "<path d=\"");
            for (int i = k; i <= end; i++)
                strbuf_printf(b, "%c%.1f %.1f", i == k ? 'M' : 'L', to_px(&L->sx, s->x[i]) + dx,
                              to_px(&L->sy, s->hi[i]));
            for (int i = end; i >= k; i--)
                strbuf_printf(b, "L%.1f %.1f", to_px(&L->sx, s->x[i]) + dx,
                              to_px(&L->sy, s->lo[i]));
            strbuf_printf(b, "Z\"/>\n");
        }
        k = end + 1;
    }
    strbuf_printf(b, "</g>\n");
}

// Marker shape per palette slot, so series differ by more than colour: filled circle,
// square, triangle, diamond, inverted triangle, then hollow circle, square, diamond,
// triangle, inverted triangle.
static const int marker_shape[PLOT_N_COLORS] = {0, 1, 2, 3, 4, 0, 1, 3, 2, 4};
static int marker_hollow(int slot) { return slot >= 5; }
static const char *marker_tag(int slot) {
    int shape = marker_shape[slot];
    return shape == 0 ? "circle" : shape == 1 ? "rect" : "path";
}

// Opens the marker element (attributes follow; the caller closes it) centred at (x, y).
static void marker_open(StrBuf *b, int slot, double x, double y, double r, const char *color) {
    switch (marker_shape[slot]) {
        case 0: strbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r); break;
        case 1: strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                          x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8); break;
        case 2:
            strbuf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - r * 1.2,
                          x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8);
            break;
        case 3: strbuf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"",
                          x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y); break;
        default:
            strbuf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y + r * 1.2,
                          x + r * 1.1, y - r * 0.8, x - r * 1.1, y - r * 0.8);
            break;
    }
    if (marker_hollow(slot))
        strbuf_printf(b, " fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"", color);
    else
        strbuf_printf(b, " fill=\"%s\" stroke=\"white\" stroke-width=\"1\"", color);
}

// Markers are drawn when a series is sparse enough to show them, and always for a point that
// has no neighbour to join (it would be invisible otherwise).
#define MAX_MARKED_POINTS 60

static void draw_series(StrBuf *b, const Plot *p, const Layout *L, const PlotSeries *s,
                        const char *color, int slot, int dashed, double dx) {
    strbuf_printf(b, "<g class=\"series\" data-name=\"");
    sb_text(b, s->name);
    strbuf_printf(b, "\">\n<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
              "stroke-linejoin=\"round\"", color);
    sb_dash(b, dashed);
    strbuf_printf(b, " d=\"");
    int pen_down = 0;
    for (int k = 0; k < s->n; k++) {
        if (!point_ok(p, s->x[k], s->y[k])) { pen_down = 0; continue; }
        strbuf_printf(b, "%c%.1f %.1f", pen_down ? 'L' : 'M', to_px(&L->sx, s->x[k]) + dx,
                      to_px(&L->sy, s->y[k]));
        pen_down = 1;
    }
    strbuf_printf(b, "\"/>\n");
    for (int k = 0; k < s->n; k++) {
        if (!point_ok(p, s->x[k], s->y[k])) continue;
        int alone = (k == 0 || !point_ok(p, s->x[k - 1], s->y[k - 1])) &&
                    (k + 1 == s->n || !point_ok(p, s->x[k + 1], s->y[k + 1]));
        if (s->n > MAX_MARKED_POINTS && !alone) continue;
        marker_open(b, slot, to_px(&L->sx, s->x[k]) + dx, to_px(&L->sy, s->y[k]), 3.5, color);
        strbuf_printf(b, " class=\"pt\"><title>");  // the title shows as a tooltip in browsers
        sb_text(b, s->name);
        strbuf_printf(b, ": x=%.6g y=%.6g</title></%s>\n", s->x[k], s->y[k], marker_tag(slot));
    }
    strbuf_printf(b, "</g>\n");
}

static void draw_legend(StrBuf *b, const Plot *p, const Layout *L, const int *slot,
                        const int *dashed) {
    if (!p->n_series) return;
    double x = L->legend_x, y = L->top + 4;
    strbuf_printf(b, "<g class=\"legend\" font-size=\"%g\">\n", LEGEND_FONT);
    if (p->legend_title[0]) {
        strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\" fill=\"#333333\">", x,
                      y + 12);
        sb_text(b, p->legend_title);
        strbuf_printf(b, "</text>\n");
        y += LEGEND_ROW;
    }
    for (int i = 0; i < p->n_series; i++, y += LEGEND_ROW) {
        const char *c = plot_color(slot[i]);
        double cy = y + 8;
        if (p->series[i].lo)
            strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"10\" fill=\"%s\" "
                      "fill-opacity=\"0.18\"/>\n", x, cy - 5, c);
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"2\"", x, cy, x + 22, cy, c);
        sb_dash(b, dashed[i]);
        strbuf_printf(b, "/>\n");
        if (p->series[i].n <= MAX_MARKED_POINTS) {
            marker_open(b, slot[i], x + 11, cy, 3.5, c);
            strbuf_printf(b, "/>\n");
        }
        strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222222\">", x + 30,
                      cy + LEGEND_FONT * 0.35);
        sb_text(b, p->series[i].name);
        strbuf_printf(b, "</text>\n");
    }
    strbuf_printf(b, "</g>\n");
}

// The plot's elements after its <svg> tag (the white background first). 0, or -1 when out of
// memory.
static int draw_plot(StrBuf *b, const Plot *p, const Layout *L) {
    int n = p->n_series > 0 ? p->n_series : 1;
    int *slot = malloc((size_t)n * sizeof *slot), *dashed = malloc((size_t)n * sizeof *dashed);
    if (!slot || !dashed) { free(slot), free(dashed); return -1; }
    assign_slots(p, slot, dashed);
    strbuf_printf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    draw_grid(b, L);
    draw_axes(b, p, L);
    draw_vline(b, p, L);
    // series i of n sits (i - (n - 1) / 2) dodges right of its x
    for (int i = 0; i < p->n_series; i++)
        draw_band(b, p, L, &p->series[i], plot_color(slot[i]),
                  (i - (p->n_series - 1) / 2.0) * p->dodge);
    for (int i = 0; i < p->n_series; i++)
        draw_series(b, p, L, &p->series[i], plot_color(slot[i]), slot[i], dashed[i],
                    (i - (p->n_series - 1) / 2.0) * p->dodge);
    if (!L->has_data)
        strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" "
                  "fill=\"#888888\">no data</text>\n", L->left + L->w / 2, L->top + L->h / 2);
    draw_legend(b, p, L, slot, dashed);
    free(slot), free(dashed);
    return 0;
}

#define SVG_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" \
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" " \
    "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\">\n"

char *plot_svg(const Plot *p) {
    Layout L;
    make_layout(p, &L);
    StrBuf b = {0};
    strbuf_printf(&b, SVG_HEAD, ceil(L.total_w), ceil(L.total_h), ceil(L.total_w),
                  ceil(L.total_h));
    if (draw_plot(&b, p, &L)) b.failed = 1;
    strbuf_printf(&b, "</svg>\n");
    if (b.failed) { strbuf_free(&b); return NULL; }
    return b.s;
}

// Each panel is a nested <svg> placed under the previous one, all with the ranges that cover
// every panel's data; the title spans them all.
char *plot_panels_svg(const Plot *panels, int n, const char *title) {
    Layout *L = malloc((size_t)(n > 0 ? n : 1) * sizeof *L);
    Plot *shared = malloc((size_t)(n > 0 ? n : 1) * sizeof *shared);
    if (!L || !shared) { free(L), free(shared); return NULL; }
    double lo[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY}, r[4];
    for (int i = 0; i < n; i++) {
        int whole;
        data_range(&panels[i], &r[0], &r[1], &r[2], &r[3], &whole);
        lo[0] = fmin(lo[0], r[0]), lo[1] = fmax(lo[1], r[1]);
        lo[2] = fmin(lo[2], r[2]), lo[3] = fmax(lo[3], r[3]);
    }
    double top = title && title[0] ? 20 + TITLE_FONT + 4 : 0, h = top;
    double w = title ? text_width(title, TITLE_FONT) + 40 : 0;
    for (int i = 0; i < n; i++) {
        shared[i] = panels[i];
        if (isfinite(lo[0]) && lo[0] <= lo[1]) shared[i].xmin = lo[0], shared[i].xmax = lo[1];
        if (isfinite(lo[2]) && lo[2] <= lo[3]) shared[i].ymin = lo[2], shared[i].ymax = lo[3];
        make_layout(&shared[i], &L[i]);
        w = fmax(w, ceil(L[i].total_w));
        h += ceil(L[i].total_h);
    }
    StrBuf b = {0};
    strbuf_printf(&b, SVG_HEAD, w, h, w, h);
    strbuf_printf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    if (top > 0) {
        strbuf_printf(&b, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                      "font-size=\"%g\" font-weight=\"bold\">", w / 2, 20 + TITLE_FONT, TITLE_FONT);
        sb_text(&b, title);
        strbuf_printf(&b, "</text>\n");
    }
    for (int i = 0, y = (int)top; i < n; y += (int)ceil(L[i].total_h), i++) {
        strbuf_printf(&b, "<svg class=\"panel\" x=\"0\" y=\"%d\" width=\"%.0f\" height=\"%.0f\">\n",
                      y, ceil(L[i].total_w), ceil(L[i].total_h));
        if (draw_plot(&b, &shared[i], &L[i])) b.failed = 1;
        strbuf_printf(&b, "</svg>\n");
    }
    strbuf_printf(&b, "</svg>\n");
    free(L), free(shared);
    if (b.failed) { strbuf_free(&b); return NULL; }
    return b.s;
}

// ---------------------------------------------------------------- file output

int plot_write_svg(const Plot *p, const char *path, char *err, int errlen) {
    char *svg = plot_svg(p);
    if (!svg) return errorf(err, errlen, "%s: out of memory rendering the plot", path);
    int rc = write_file_atomic(path, svg, strlen(svg), err, errlen);
    free(svg);
    return rc;
}

int plot_write_panels_svg(const Plot *panels, int n, const char *title, const char *path,
                          char *err, int errlen) {
    char *svg = plot_panels_svg(panels, n, title);
    if (!svg) return errorf(err, errlen, "%s: out of memory rendering the plot", path);
    int rc = write_file_atomic(path, svg, strlen(svg), err, errlen);
    free(svg);
    return rc;
}
