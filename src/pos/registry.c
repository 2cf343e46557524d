// The list of positional schemes and the hooks that dispatch to them.
#include <stdio.h>
#include <string.h>
#include "pos/pos.h"

static const PosScheme *const schemes[] = {
    &pos_none, &pos_sinusoidal, &pos_learned, &pos_alibi, &pos_rope, &pos_t5,
};

const PosScheme *pos_scheme_find(const char *name) {
    for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++)
        if (strcmp(schemes[i]->name, name) == 0) return schemes[i];
    return NULL;
}

void pos_init(Positional *p, const Config *c, int bidirectional, Params *ps,
              const char *input_name, const char *stack_name) {
    memset(p, 0, sizeof *p);
    p->scheme = pos_scheme_find(c->pos);
    if (!p->scheme) p->scheme = &pos_none;   // config validation rejects unknown names first
    p->d_model = c->d_model;
    p->n_heads = c->n_heads;
    p->max_len = c->max_len;
    p->wrap = c->pos_wrap;
    p->offset = c->pos_offset;
    p->rope_base = c->rope_base;
    p->rope_scale = c->rope_scale;
    p->bidirectional = bidirectional;
    if (p->scheme->declare) p->scheme->declare(p, ps, input_name, stack_name);
}

static PosSpan shifted(const Positional *p, PosSpan s) { return (PosSpan){s.start + p->offset, s.len}; }

Tensor *pos_add_to_input(const Positional *p, Tensor *x, PosSpan rows) {
    return p->scheme->add_to_input ? p->scheme->add_to_input(p, x, shifted(p, rows)) : x;
}

Tensor *pos_self_bias(const Positional *p, PosSpan queries, PosSpan keys) {
    return p->scheme->self_bias ? p->scheme->self_bias(p, shifted(p, queries), shifted(p, keys)) : NULL;
}

Tensor *pos_rotate(const Positional *p, Tensor *x, PosSpan rows) {
    return p->scheme->rotate ? p->scheme->rotate(p, x, shifted(p, rows)) : x;
}

int pos_uses_rotation(const Positional *p) { return p->scheme->rotate != NULL; }

int pos_check_length(const Positional *p, int T, char *err, int errlen) {
    return p->scheme->check_length ? p->scheme->check_length(p, T, err, errlen) : 0;
}
