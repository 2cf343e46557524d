// Heat maps as standalone SVG (attention maps): a row of panels, each a rows x cols grid of
// squares shaded from white (0) to dark blue (1), with the row labels on the left of the
// first panel and the column labels (rotated) above every panel.
//
//   Heatmap h = { "decoder cross-attention, layer 1", H, Tq, Tk, probs, queries, keys, heads };
//   heatmap_write_svg(&h, "cross.svg", err, sizeof err);
//
// Values are clamped to [0, 1] (NaN is drawn grey); labels are XML-escaped.
#ifndef HEATMAP_H
#define HEATMAP_H

typedef struct Heatmap {
    const char *title;
    int n_panels, rows, cols;
    const float *values;              // [n_panels][rows][cols]
    const char *const *row_labels;    // [rows] or NULL
    const char *const *col_labels;    // [cols] or NULL
    const char *const *panel_titles;  // [n_panels] or NULL
} Heatmap;

// The SVG document, malloc'd (NULL when out of memory).
char *heatmap_svg(const Heatmap *h);
// Written atomically. 0, or -1 with err.
int heatmap_write_svg(const Heatmap *h, const char *path, char *err, int errlen);
#endif
