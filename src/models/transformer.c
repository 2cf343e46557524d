#include "models/transformer.h"
#include <stdio.h>
#include <stdlib.h>

void stack_declare(Stack *s, Params *ps, const Config *c, const char *name, int causal, int cross,
                   const char *pos_input_name) {
    int n = causal ? c->dec_layers : c->enc_layers, d = c->d_model;
    int gelu = c->activation[0] == 'g';
    s->layers = calloc((size_t)n, sizeof(Layer));
    s->n_layers = n;
    s->causal = causal;
    s->norm_first = c->norm_first;
    char buf[128];
    for (int i = 0; i < n; i++) {
        Layer *l = &s->layers[i];
        l->has_cross = cross;
        snprintf(buf, sizeof buf, "%s.layers.%d.self_attn", name, i);
        mha_declare(&l->self_attn, ps, buf, d, c->n_heads);
        if (cross) {
            snprintf(buf, sizeof buf, "%s.layers.%d.cross_attn", name, i);
            mha_declare(&l->cross_attn, ps, buf, d, c->n_heads);
        }
        snprintf(buf, sizeof buf, "%s.layers.%d.norm1", name, i);
        layernorm_declare(&l->norm1, ps, buf, d);
        if (cross) {
            snprintf(buf, sizeof buf, "%s.layers.%d.norm2", name, i);
            layernorm_declare(&l->norm2, ps, buf, d);
        }
        // The FFN's norm: norm2 in an encoder layer, norm3 in a decoder layer.
        snprintf(buf, sizeof buf, "%s.layers.%d.norm%d", name, i, causal ? 3 : 2);
        layernorm_declare(&l->norm3, ps, buf, d);
        snprintf(buf, sizeof buf, "%s.layers.%d.ffn", name, i);
        ffn_declare(&l->ffn, ps, buf, d, c->d_ff, gelu);
    }
    snprintf(buf, sizeof buf, "%s.norm", name);
    layernorm_declare(&s->norm, ps, buf, d);
    pos_init(&s->pos, c, !causal, ps, pos_input_name, name);
}

void stack_free(Stack *s) {
    free(s->layers);
    s->layers = NULL;
}

// One residual sub-layer: pre-LN x + Drop(f(LN(x))), or post-LN LN(x + Drop(f(x))).
typedef enum { SUB_SELF, SUB_CROSS, SUB_FFN } Sublayer;

static Tensor *sublayer(const Stack *s, const Layer *l, Sublayer which, const LayerNorm *norm, Tensor *x,
                        Tensor *bias, const int *key_pad, Tensor *memory, const int *memory_pad) {
    Tensor *h = s->norm_first ? layernorm_forward(norm, x) : x, *y;
    const Positional *rope = pos_uses_rotation(&s->pos) ? &s->pos : NULL;
    switch (which) {
    // A padding position's own attention output is never used by a real position (it is a
    // masked key to every other row, and the loss ignores it): skip computing it.
    case SUB_SELF:  y = mha_forward(&l->self_attn, h, h, rope, bias, key_pad, key_pad, s->causal, &s->attn_drop); break;
    case SUB_CROSS: y = mha_forward(&l->cross_attn, h, memory, NULL, NULL, memory_pad, key_pad, 0, &s->attn_drop); break;
    default:        y = ffn_forward(&l->ffn, h); break;
    }
    Tensor *sum = op_add(x, dropout_forward(&s->drop, y));
    return s->norm_first ? sum : layernorm_forward(norm, sum);
}

Tensor *stack_forward(const Stack *s, Tensor *x, const int *key_pad, Tensor *memory, const int *memory_pad) {
    Tensor *bias = pos_self_bias(&s->pos, x->shape[1]);     // (H,T,T) or NULL, shared by every layer
    for (int i = 0; i < s->n_layers; i++) {
        const Layer *l = &s->layers[i];
        x = sublayer(s, l, SUB_SELF, &l->norm1, x, bias, key_pad, NULL, NULL);
        if (l->has_cross) x = sublayer(s, l, SUB_CROSS, &l->norm2, x, NULL, key_pad, memory, memory_pad);
        x = sublayer(s, l, SUB_FFN, &l->norm3, x, NULL, NULL, NULL, NULL);
    }
    return layernorm_forward(&s->norm, x);
}
