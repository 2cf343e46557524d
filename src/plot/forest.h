// Forest plots as standalone SVG: one row per estimate, its point (a dot) and interval (a bar)
// with its label on the left and a text on the right. Estimates in different units share the
// picture, so each row has its own scale: zero sits at one x for every row (dashed), and the
// farthest of the row's point and bounds from zero reaches FOREST_HALF_WIDTH pixels from it.
//
//   ForestRow rows[] = {{"rope_base", 0.226, 0.070, 0.382, "+22.6 [+7.0, +38.2]", "#1a7f37"}};
//   Forest f = {"Effects", "each row on its own scale", rows, 1};
//   forest_write_svg(&f, "summary.svg", err, sizeof err);
//
// Texts are XML-escaped; a row whose values are all 0 is drawn at zero.
#ifndef FOREST_H
#define FOREST_H

#define FOREST_ZERO_X 400
#define FOREST_HALF_WIDTH 150

typedef struct {
    const char *label;
    double point, lo, hi;
    const char *text;     // right of the plot (the numbers, the verdict)
    const char *colour;   // "#rrggbb" of the bar and the dot
} ForestRow;

typedef struct {
    const char *title, *subtitle;
    const ForestRow *rows;
    int n;
} Forest;

// The SVG text (malloc'ed), or NULL when out of memory.
char *forest_svg(const Forest *f);
int forest_write_svg(const Forest *f, const char *path, char *err, int errlen);
#endif
