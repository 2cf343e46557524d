// SVG heat maps, see heatmap.h.
#include "plot/heatmap.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/fileio.h"
#include "plot/svg.h"
#include "util/strbuf.h"

#define CELL 18        // pixels per cell
#define LABEL_W 110    // room for row labels
#define LABEL_H 90     // room for rotated column labels
#define GAP 30         // between panels

// White -> #08306b (dark blue), linear in each channel.
static void shade(float v, char *out) {
    if (isnan(v)) { strcpy(out, "#bbbbbb"); return; }
    double t = v < 0 ? 0 : v > 1 ? 1 : v;
    int r = (int)lround(255 + t * (8 - 255)), g = (int)lround(255 + t * (48 - 255)),
        bl = (int)lround(255 + t * (107 - 255));
    sprintf(out, "#%02x%02x%02x", r, g, bl);
}

char *heatmap_svg(const Heatmap *h) {
    StrBuf b = {0};
    int pw = h->cols * CELL, ph = h->rows * CELL;
    int width = LABEL_W + h->n_panels * (pw + GAP), height = 40 + LABEL_H + ph + 20;
    char esc[512], col[16];
    strbuf_printf(&b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "font-family=\"sans-serif\" font-size=\"11\">\n",
                  width, height);
    strbuf_printf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    strbuf_printf(&b, "<text x=\"10\" y=\"20\" font-size=\"14\">%s</text>\n",
                  plot_xml_escape(h->title ? h->title : "", esc, sizeof esc));
    for (int p = 0; p < h->n_panels; p++) {
        int x0 = LABEL_W + p * (pw + GAP), y0 = 40 + LABEL_H;
        if (h->panel_titles)
            strbuf_printf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", x0, 36,
                          plot_xml_escape(h->panel_titles[p], esc, sizeof esc));
        for (int c = 0; h->col_labels && c < h->cols; c++) {
            int x = x0 + c * CELL + CELL / 2 + 4, y = y0 - 4;
            strbuf_printf(&b, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-60 %d %d)\">%s</text>\n",
                          x, y, x, y, plot_xml_escape(h->col_labels[c], esc, sizeof esc));
        }
        for (int r = 0; r < h->rows; r++)
            for (int c = 0; c < h->cols; c++) {
                float v = h->values[((long)p * h->rows + r) * h->cols + c];
                shade(v, col);
                strbuf_printf(&b,
                              "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                              "fill=\"%s\"><title>%.3f</title></rect>\n",
                              x0 + c * CELL, y0 + r * CELL, CELL, CELL, col, (double)v);
            }
        strbuf_printf(&b,
                      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                      "fill=\"none\" stroke=\"#888\"/>\n",
                      x0, y0, pw, ph);
    }
    for (int r = 0; h->row_labels && r < h->rows; r++)
        strbuf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", LABEL_W - 6,
                      40 + LABEL_H + r * CELL + CELL - 5,
                      plot_xml_escape(h->row_labels[r], esc, sizeof esc));
    strbuf_printf(&b, "</svg>\n");
    if (b.failed) { strbuf_free(&b); return NULL; }
    return b.s;
}

int heatmap_write_svg(const Heatmap *h, const char *path, char *err, int errlen) {
    char *svg = heatmap_svg(h);
    if (!svg) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    int rc = write_file_atomic(path, svg, strlen(svg), err, errlen);
    free(svg);
    return rc;
}
