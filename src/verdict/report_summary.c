#include <stdio.h>
#include <string.h>

#include "verdict/format.h"
#include "verdict/report.h"

static const VerdictRow *headline(const Report *r, const char *key) {
    for (int i = 0; i < r->n; i++)
        if (r->rows[i].claim->quote == QUOTE_HEADLINE && !strcmp(r->rows[i].claim->key, key))
            return &r->rows[i];
    return NULL;
}

static void glance_line(FILE *f, const Remedy *m, const VerdictRow *v) {
    const Claim *c = v->claim;
    int pc = metric_is_percent(c->metric);
    char e[32], lo[32], hi[32];
    format_signed(e, sizeof e, v->iv.effect, pc);
    format_signed(lo, sizeof lo, v->iv.lo, pc), format_signed(hi, sizeof hi, v->iv.hi, pc);
    const char *unit = pc ? "" : (strcmp(c->metric, "mrr") ? " nats" : " MRR");
    fprintf(f, "| %s | %s | %s | %s [%s, %s]%s | %s |\n", m->remedy, m->paper,
            verdict_word(v->label.kind), e, lo, hi, unit, m->setting);
}

int report_summary(FILE *f, const Report *r) {
    fprintf(f, "# The remedies at a glance\n\n"
               "Written by `./verdicts` from `data/claims.csv` and the places of"
               " `data/remedies.csv`: per claim\n"
               "placed there, its headline row (the one `verdicts.md`'s summary quotes), at the"
               " steps its\n"
               "setting names. Effect in points of exact match unless marked.\n\n"
               "| remedy | paper | verdict | effect A − B [95%% interval] | setting |\n"
               "| --- | --- | --- | --- | --- |\n");
    for (int place = 1; place <= r->remedies->n; place++)
        for (int i = 0; i < r->remedies->n; i++) {
            const Remedy *m = &r->remedies->rows[i];
            const VerdictRow *v = m->glance == place ? headline(r, m->key) : NULL;
            if (v) glance_line(f, m, v);
        }
    return ferror(f) ? -1 : 0;
}
