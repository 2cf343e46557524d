// The memory check and report, see memory_check.h.
#include "memory/memory_check.h"
#include <string.h>
#include "core/byte_size.h"
#include "core/errors.h"
#include "memory/memory_limit.h"

static void breakdown(const MemoryEstimate *e, char *out, size_t n) {
    char p[32], a[32], d[32], g[32];
    byte_size_format(e->params, p, sizeof p);
    byte_size_format(e->activations, a, sizeof a);
    byte_size_format(e->data, d, sizeof d);
    byte_size_format(e->program, g, sizeof g);
    if (e->partial)
        snprintf(out, n, "%s %s, data %s, program %s; activations not counted", e->params_label,
                 p, d, g);
    else
        snprintf(out, n, "activations %s, %s %s, data %s, program %s", a, e->params_label, p, d,
                 g);
}

int memory_check(const MemoryEstimate *e, const Config *c, char *err, int errlen) {
    char total[32], limit_text[32], parts[200], source[64];
    double limit = memory_limit(c, source, sizeof source);
    if (limit < 0 || e->total <= limit) return 0;
    byte_size_format(e->total, total, sizeof total);
    byte_size_format(limit, limit_text, sizeof limit_text);
    breakdown(e, parts, sizeof parts);
    if (strcmp(c->max_memory, "auto"))
        return errorf(err, errlen,
                      "%s needs %s %s (%s); %s allows %s. %s or raise run.max_memory.",
                      e->setting, e->partial ? "more than" : "about", total, parts, source,
                      limit_text, e->advice);
    return errorf(err, errlen,
                  "%s needs %s %s (%s); %s are available (%s). %s or set run.max_memory.",
                  e->setting, e->partial ? "more than" : "about", total, parts, limit_text,
                  source, e->advice);
}

void memory_report(const MemoryEstimate *e, const Config *c, FILE *out) {
    char total[32], limit_text[32], parts[200], source[64];
    double limit = memory_limit(c, source, sizeof source);
    byte_size_format(e->total, total, sizeof total);
    breakdown(e, parts, sizeof parts);
    if (limit < 0) {
        fprintf(out, "memory: about %s (%s); what is available is unknown\n", total, parts);
    } else {
        byte_size_format(limit, limit_text, sizeof limit_text);
        fprintf(out, "memory: about %s (%s); %s %s\n", total, parts, limit_text,
                strcmp(c->max_memory, "auto") ? "allowed by run.max_memory" : "available");
    }
    fflush(out);
}

int memory_check_train(const Config *c, const Task *t, MemoryEstimate *e, char *err, int errlen) {
    memory_estimate_train(c, t, e);
    return memory_check(e, c, err, errlen);
}

int memory_check_eval(const Config *c, const Task *t, const int *lengths, int n_lengths,
                      MemoryEstimate *e, char *err, int errlen) {
    memory_estimate_eval(c, t, lengths, n_lengths, e);
    return memory_check(e, c, err, errlen);
}
