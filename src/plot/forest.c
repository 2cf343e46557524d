#include "plot/forest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "plot/svg.h"
#include "util/strbuf.h"

#define ROW_H 28
#define TOP 48

// The row's scale: the farthest of its point and bounds from zero (1 when all are 0).
static double row_scale(const ForestRow *r) {
    double s = fabs(r->point);
    if (fabs(r->lo) > s) s = fabs(r->lo);
    if (fabs(r->hi) > s) s = fabs(r->hi);
    return s > 0 ? s : 1;
}

static void forest_row(StrBuf *b, const ForestRow *r, int y) {
    char esc[512];
    double s = row_scale(r), w = FOREST_HALF_WIDTH;
    strbuf_printf(b, "<g class=\"row\"><text x=\"10\" y=\"%d\">%s</text>", y + 4,
                  plot_xml_escape(r->label, esc, sizeof esc));
    strbuf_printf(b, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"%s\" "
                  "stroke-width=\"3\"/>", FOREST_ZERO_X + w * r->lo / s, y,
                  FOREST_ZERO_X + w * r->hi / s, y, r->colour);
    strbuf_printf(b, "<circle cx=\"%.2f\" cy=\"%d\" r=\"5\" fill=\"%s\"/>",
                  FOREST_ZERO_X + w * r->point / s, y, r->colour);
    strbuf_printf(b, "<text x=\"580\" y=\"%d\">%s</text></g>\n", y + 4,
                  plot_xml_escape(r->text, esc, sizeof esc));
}

char *forest_svg(const Forest *f) {
    StrBuf b = {0};
    char esc[512];
    int height = 60 + ROW_H * f->n;
    strbuf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"980\" height=\"%d\" "
                  "font-family=\"sans-serif\" font-size=\"13\">\n", height);
    strbuf_printf(&b, "<rect width=\"980\" height=\"%d\" fill=\"white\"/>\n", height);
    strbuf_printf(&b, "<text x=\"10\" y=\"22\" font-size=\"15\">%s</text>\n",
                  plot_xml_escape(f->title, esc, sizeof esc));
    strbuf_printf(&b, "<text x=\"10\" y=\"40\" fill=\"#555\">%s</text>\n",
                  plot_xml_escape(f->subtitle, esc, sizeof esc));
    strbuf_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\" "
                  "stroke-dasharray=\"4 3\"/>\n", FOREST_ZERO_X, TOP, FOREST_ZERO_X, height - 6);
    for (int i = 0; i < f->n; i++) forest_row(&b, &f->rows[i], TOP + ROW_H * (i + 1) - 10);
    strbuf_printf(&b, "</svg>\n");
    if (b.failed) { strbuf_free(&b); return NULL; }
    return b.s;
}

int forest_write_svg(const Forest *f, const char *path, char *err, int errlen) {
    char *svg = forest_svg(f);
    if (!svg) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    int rc = write_file_atomic(path, svg, strlen(svg), err, errlen);
    free(svg);
    return rc;
}
