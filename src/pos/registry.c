// The list of positional schemes (the only one: config validation, --list-schemes, plots and
// scripts ask it) and the hooks that dispatch to them.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "pos/pos.h"

// One line per scheme: its PosScheme (pos_<name> in src/pos/<name>.c) and its plot style, a
// palette slot of plot/svg.h (colour and marker; each scheme its own, "none" the grey baseline).
// The order is the order scripts and tables list the schemes in. Every line ends in a
// backslash, so a new scheme is one added line (the list ends at the comment below).
#define POS_SCHEMES(X) \
    X(none, 6)         \
    X(sinusoidal, 1)   \
    X(learned, 4)      \
    X(alibi, 2)        \
    X(rope, 0)         \
    X(t5, 3)           \
    X(kerple, 5)       \
    X(fire, 7)         \
    X(xpos, 8)         \
    /* end of the list */

#define DECLARE(name, style) extern const PosScheme pos_##name;
POS_SCHEMES(DECLARE)

static const struct { const PosScheme *scheme; int plot_style; } schemes[] = {
#define ENTRY(name, style) {&pos_##name, style},
    POS_SCHEMES(ENTRY)
};
#define N_SCHEMES (int)(sizeof schemes / sizeof *schemes)

int pos_scheme_count(void) { return N_SCHEMES; }

const PosScheme *pos_scheme_at(int i) { return i >= 0 && i < N_SCHEMES ? schemes[i].scheme : NULL; }

const PosScheme *pos_scheme_find(const char *name) {
    for (int i = 0; i < N_SCHEMES; i++)
        if (strcmp(schemes[i].scheme->name, name) == 0) return schemes[i].scheme;
    return NULL;
}

int pos_scheme_plot_style(const char *name) {
    for (int i = 0; i < N_SCHEMES; i++)
        if (strcasecmp(schemes[i].scheme->name, name) == 0) return schemes[i].plot_style;
    return -1;
}

void pos_init(Positional *p, const Config *c, int bidirectional, Params *ps,
              const char *input_name, const char *stack_name) {
    memset(p, 0, sizeof *p);
    p->scheme = pos_scheme_find(c->pos);
    // config validation rejects unknown names first
    if (!p->scheme) p->scheme = schemes[0].scheme;
    p->cfg = c->pos_cfg;
    p->d_model = c->d_model;
    p->n_heads = c->n_heads;
    p->bidirectional = bidirectional;
    if (p->scheme->declare) p->scheme->declare(p, ps, input_name, stack_name);
}

// The span's positions as the hooks read them: the drawn sample (pos_offset already added),
// or the indices plus pos_offset.
static PosSpan shifted(const Positional *p, PosSpan s) {
    if (!p->draw_from) return (PosSpan){s.start + p->cfg.pos_offset, s.len, NULL};
    if (s.start + s.len > p->n_sampled) {   // a caller forgot pos_draw: a bug, not bad input
        fprintf(stderr, "positions %d..%d used but only %d drawn\n", s.start, s.start + s.len - 1,
                p->n_sampled);
        abort();
    }
    return (PosSpan){s.start, s.len, p->sample};
}

Tensor *pos_add_to_input(const Positional *p, Tensor *x, PosSpan rows) {
    return p->scheme->add_to_input ? p->scheme->add_to_input(p, x, shifted(p, rows)) : x;
}

Tensor *pos_self_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    return p->scheme->self_bias ? p->scheme->self_bias(p, shifted(p, queries), shifted(p, keys))
                                : NULL;
}

Tensor *pos_rotate(const Positional *p, Tensor *x, PosSpan rows, const int *pad) {
    return p->scheme->rotate ? p->scheme->rotate(p, x, shifted(p, rows), pad) : x;
}

Tensor *pos_rotate_key(const Positional *p, Tensor *x, PosSpan rows, const int *pad) {
    if (!p->scheme->rotate_key) return pos_rotate(p, x, rows, pad);
    return p->scheme->rotate_key(p, x, shifted(p, rows), pad);
}

Tensor *pos_rotate_packed(const Positional *p, Tensor *x, PosSpan rows, const RowPacking *packed,
                          int key) {
    if (p->scheme->rotate_packed) return p->scheme->rotate_packed(p, x, shifted(p, rows), packed);
    // a scheme that rotates the padded layout (xPos): its padding rows are 0 either way
    Tensor *padded = op_unpack_rows(x, packed);
    return key ? pos_rotate_key(p, padded, rows, NULL) : pos_rotate(p, padded, rows, NULL);
}

int pos_uses_rotation(const Positional *p) { return p->scheme->rotate != NULL; }
int pos_adds_to_input(const Positional *p) { return p->scheme->add_to_input != NULL; }

int pos_check_length(const Positional *p, int T, char *err, int errlen) {
    if (!p->scheme) return 0;   // no stack of this kind (model = lstm has none): no positions
    if (p->draw_from && T > p->draw_from) {
        snprintf(err, errlen,
                 "sequence of %d tokens needs %d distinct positions, but model.pos_random = %d "
                 "draws them from 0..%d "
                 "(raise pos_random, or evaluate with eval.positions = plain)",
                 T, T, p->draw_from, p->draw_from - 1);
        return -1;
    }
    return p->scheme->check_length ? p->scheme->check_length(p, T, err, errlen) : 0;
}

int pos_check_config(const Config *c, const char **key, char *msg, int n) {
    const PosScheme *s = pos_scheme_find(c->pos);
    *key = "pos";
    return s && s->check_config ? s->check_config(c, key, msg, n) : 0;
}

static const char *scheme_name(int i) { return pos_scheme_at(i)->name; }

const ConfigChecks pos_config_checks = {pos_scheme_count, scheme_name, pos_check_config};
