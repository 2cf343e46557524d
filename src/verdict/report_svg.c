// summary.svg: the headline row of every claim key as a forest plot (plot/forest.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/forest.h"
#include "verdict/format.h"
#include "verdict/report.h"

static const char *colour_of(VerdictKind k) {
    switch (k) {
    case VERDICT_REPRODUCED: return "#1a7f37";
    case VERDICT_OPPOSITE: return "#cf222e";
    case VERDICT_UNTESTED: return "#c8c8c8";
    default: return "#6e7781";
    }
}

// The headline rows of the keys in the order of their first row.
static int headlines(const Report *r, const VerdictRow **out) {
    int n = 0;
    for (int i = 0; i < r->n; i++)
        if (r->rows[i].claim->quote == QUOTE_HEADLINE) out[n++] = &r->rows[i];
    return n;
}

int report_svg(FILE *f, const Report *r) {
    const VerdictRow **h = calloc((size_t)r->n + 1, sizeof *h);
    ForestRow *rows = calloc((size_t)r->n + 1, sizeof *rows);
    char (*text)[160] = calloc((size_t)r->n + 1, sizeof *text);
    int bad = !h || !rows || !text, n = bad ? 0 : headlines(r, h);
    for (int i = 0; i < n; i++) {
        const Claim *c = h[i]->claim;
        int pc = metric_is_percent(c->metric), u = pc ? 100 : 1;
        char e[32], lo[32], hi[32];
        format_signed(e, sizeof e, h[i]->iv.effect, pc);
        format_signed(lo, sizeof lo, h[i]->iv.lo, pc);
        format_signed(hi, sizeof hi, h[i]->iv.hi, pc);
        snprintf(text[i], sizeof text[i], "%s [%s, %s] %s: %s", e, lo, hi,
                 pc ? "points" : (strcmp(c->metric, "mrr") ? "nats" : "MRR"),
                 verdict_word(h[i]->label.kind));
        rows[i] = (ForestRow){c->key, u * h[i]->iv.effect, u * h[i]->iv.lo, u * h[i]->iv.hi,
                              text[i], colour_of(h[i]->label.kind)};
    }
    Forest fp = {"The remedies: effect A - B of the row each verdict quotes, with its 95% interval",
                 "each row on its own scale; dashed: no effect; green reproduced, red opposite, "
                 "grey within the spread or floor, light untested", rows, n};
    char *svg = bad ? NULL : forest_svg(&fp);
    if (svg) fputs(svg, f);
    free(svg), free(h), free(rows), free(text);
    return !svg || ferror(f) ? -1 : 0;
}
