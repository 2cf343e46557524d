// What verdicts.md's sections share per claim key (report.h): the walk over the distinct keys
// of a list of rows and the tally of a key's rows. Apart from report_md.c so that
// report_replaced.c can use them without a call circle between the two.
#include <stdio.h>
#include <string.h>

#include "verdict/format.h"
#include "verdict/report.h"

void report_each_key(FILE *f, const Report *r, const VerdictRow *rows, int n,
                     void (*fn)(FILE *, const Report *, const char *)) {
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(rows[j].claim->key, rows[i].claim->key);
        if (!seen) fn(f, r, rows[i].claim->key);
    }
}

void report_tally(const Report *r, const char *key, char *buf, int len) {
    int count[VERDICT_KINDS] = {0}, total = 0, want = 0;
    for (int i = 0; i < r->n; i++) {
        const VerdictRow *v = &r->rows[i];
        if (strcmp(v->claim->key, key)) continue;
        count[v->label.kind]++;
        want += v->wants_5;
        total += v->label.kind != VERDICT_FLOOR;
    }
    int n = snprintf(buf, len, "%d rows: ", total), first = 1;
    static const VerdictKind order[] = {VERDICT_REPRODUCED, VERDICT_OPPOSITE, VERDICT_EFFECT,
                                        VERDICT_WITHIN, VERDICT_UNTESTED};
    for (int k = 0; k < 5 && n < len; k++)
        if (count[order[k]]) {
            n += snprintf(buf + n, len - n, "%s%d %s", first ? "" : ", ", count[order[k]],
                          verdict_word(order[k]));
            first = 0;
        }
    if (want && n < len) n += snprintf(buf + n, len - n, "; %d want 5 seeds", want);
    if (count[VERDICT_FLOOR] && n < len)
        snprintf(buf + n, len - n, " (and %d floor, left out)", count[VERDICT_FLOOR]);
}
