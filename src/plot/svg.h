// Line plots written as standalone SVG files (no plotting dependency; open in a browser).
//
//   Plot p;
//   plot_init(&p, "Loss vs length", "length", "loss");
//   p.logx = 1;
//   int s = plot_add_series(&p, "rope", n, xs, ys);     // copies the arrays
//   plot_set_band(&p, s, lo, hi);                        // optional shaded band
//   plot_set_style(&p, s, 0);                            // optional fixed palette slot
//   plot_set_vline(&p, 32, "training length");          // optional dashed marker line
//   p.xmin = 1, p.xmax = 6;                              // optional x range (NAN: the data's)
//   if (plot_write_svg(&p, "loss.svg", err, sizeof err)) puts(err);
//   plot_free(&p);
//
// Points are joined in the order given (sort them first). A point whose x or y is NaN/inf,
// non-positive on a log axis, or outside a range the caller set, is skipped and breaks the
// line there. The axes cover every drawable point, band and the marker line (or the range the
// caller set), with "nice" ticks: 1-2-5 steps on linear axes (which end on ticks; never below 1
// on an x axis whose values are all whole numbers), decades (with 2 and 5 labelled when the
// range spans at most three decades) on log axes (which end at the data, or at 1-2-5 values
// when the data spans too little to show two labels). Tick labels that would overlap are
// dropped, minor ones first. The legend sits to the right of the plot area, never on the data.
// Colours come from a fixed colour-blind-friendly palette (Okabe-Ito): a series given a style
// (palette slot) by the caller always gets that colour (./plot gives each positional scheme the
// style its registry line names); others get a colour from a hash of the name (moved to the
// next free colour when two series of one plot collide). Each colour has its own marker shape;
// a colour used again is drawn dashed, then dotted, then dash-dotted. `dodge` shifts the
// series sideways from each other by that many pixels, so that equal values stay visible.
// plot_panels_svg stacks several plots in one picture under one title.
#ifndef SVG_H
#define SVG_H

typedef struct PlotSeries {
    char   *name;
    int     n;
    double *x, *y;    // [n]
    double *lo, *hi;  // [n] band around y, or NULL; a NaN bound leaves a gap in the band
    int     style;    // palette slot fixed by the caller, or -1: chosen from the name
} PlotSeries;

typedef struct Plot {
    char title[256], xlabel[128], ylabel[128];
    char legend_title[128];       // heading above the legend entries ("" for none)
    int  logx, logy;
    int  has_vline;
    double vline_x;
    char vline_label[128];
    int  width, height;           // size of the plot area in pixels (margins and legend add to it)
    double xmin, xmax, ymin, ymax;  // axis ranges set by the caller; NAN: from the data
    double dodge;                 // pixels between neighbouring series' x (0: none)
    int  n_series, cap_series;
    PlotSeries *series;
} Plot;

void plot_init(Plot *p, const char *title, const char *xlabel, const char *ylabel);
void plot_free(Plot *p);

// Adds a series (arrays copied). Returns its index, or -1 when out of memory.
int plot_add_series(Plot *p, const char *name, int n, const double *x, const double *y);

// Shaded band between lo[i] and hi[i] for series s (arrays of the series' length, copied).
int plot_set_band(Plot *p, int s, const double *lo, const double *hi);

// Fixes series s to palette slot `style` (0..PLOT_N_COLORS-1: colour and marker); -1 lets
// the name choose. Returns 0, or -1 for a bad series or slot.
int plot_set_style(Plot *p, int s, int style);

// Vertical dashed line at x with a label at its top (e.g. the training length).
void plot_set_vline(Plot *p, double x, const char *label);

// The SVG document as a malloc'd string (caller frees), or NULL when out of memory.
char *plot_svg(const Plot *p);

// Several plots stacked top to bottom in one SVG under `title` (malloc'd, or NULL when out of
// memory); each keeps its own axes and legend (give them the same ranges to compare them).
char *plot_panels_svg(const Plot *panels, int n, const char *title);
int plot_write_panels_svg(const Plot *panels, int n, const char *title, const char *path,
                          char *err, int errlen);

// Renders and writes the SVG atomically (temporary file in the same folder, then rename).
// Returns 0, or -1 with `err` set.
int plot_write_svg(const Plot *p, const char *path, char *err, int errlen);

// ---- building blocks, exposed for tests ----

#define PLOT_MAX_TICKS 128

typedef struct PlotTick {
    double v;
    int major;   // decade on a log axis; every tick on a linear axis
    int label;   // gets a number printed next to it
} PlotTick;

typedef struct PlotAxis {
    double lo, hi;    // axis range: covers the data; linear axes end on ticks
    int log;
    int n_ticks;
    PlotTick ticks[PLOT_MAX_TICKS];
} PlotAxis;

// Axis range and ticks for data spanning [dmin, dmax] (dmin > dmax means no data). On a log
// axis dmin must be the smallest positive value. A linear axis's tick step is at least
// min_step (1 for whole numbers: no tick between two clauses), or any 1-2-5 step when 0.
void plot_axis(double dmin, double dmax, int log, PlotAxis *a);
void plot_axis_step(double dmin, double dmax, int log, double min_step, PlotAxis *a);

// Dash pattern of the k-th series drawn in one colour: "" (solid), then dashed, dotted,
// dash-dotted, and round again.
const char *plot_dash(int k);

// Shortest plain form of a tick value: 0.2, 1000, 2.5e-5, 1e6 (never "-0", "nan").
void plot_format_number(double v, char *buf, int n);

// Palette slot a series name hashes to (0..PLOT_N_COLORS-1) and a slot's colour ("#rrggbb").
#define PLOT_N_COLORS 10
int plot_color_slot(const char *name);
const char *plot_color(int slot);

// Writes text with & < > " ' escaped for XML into buf (truncated to n); control characters
// and invalid UTF-8 bytes become '?'. Returns buf.
char *plot_xml_escape(const char *text, char *buf, int n);

#endif
