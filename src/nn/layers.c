#include "nn/layers.h"
#include <stdio.h>
#include "pos/pos.h"

static void named(char *out, size_t n, const char *prefix, const char *suffix) {
    snprintf(out, n, "%s.%s", prefix, suffix);
}

Tensor *dropout_forward(const Dropout *d, Tensor *x) {
    if (d->p <= 0) return x;
    return op_dropout(x, d->p, rng_next(d->rng));
}

void linear_declare(Linear *l, Params *ps, const char *name, int in, int out) {
    char buf[128];
    int ws[2] = {out, in};
    named(buf, sizeof buf, name, "weight");
    l->weight = param_new(ps, buf, 2, ws, 1);
    named(buf, sizeof buf, name, "bias");
    l->bias = param_new(ps, buf, 1, &out, 0);
}

Tensor *linear_forward(const Linear *l, Tensor *x) { return op_linear(x, l->weight, l->bias); }

void layernorm_declare(LayerNorm *n, Params *ps, const char *name, int d) {
    char buf[128];
    named(buf, sizeof buf, name, "weight");
    n->weight = param_new(ps, buf, 1, &d, 0);
    named(buf, sizeof buf, name, "bias");
    n->bias = param_new(ps, buf, 1, &d, 0);
}

Tensor *layernorm_forward(const LayerNorm *n, Tensor *x) { return op_layernorm(x, n->weight, n->bias, 1e-5f); }

void ffn_declare(FFN *f, Params *ps, const char *name, int d, int d_ff, int gelu) {
    char buf[128];
    named(buf, sizeof buf, name, "fc1");
    linear_declare(&f->fc1, ps, buf, d, d_ff);
    named(buf, sizeof buf, name, "fc2");
    linear_declare(&f->fc2, ps, buf, d_ff, d);
    f->gelu = gelu;
}

Tensor *ffn_forward(const FFN *f, Tensor *x) {
    Tensor *h = linear_forward(&f->fc1, x);
    h = f->gelu ? op_gelu(h) : op_relu(h);
    return linear_forward(&f->fc2, h);
}

void mha_declare(MultiHeadAttention *m, Params *ps, const char *name, int d, int n_heads) {
    char buf[128];
    const char *parts[4] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    Linear *lins[4] = {&m->q_proj, &m->k_proj, &m->v_proj, &m->o_proj};
    for (int i = 0; i < 4; i++) {
        named(buf, sizeof buf, name, parts[i]);
        linear_declare(lins[i], ps, buf, d, d);
    }
    m->n_heads = n_heads;
}

Tensor *mha_forward(const MultiHeadAttention *m, Tensor *x_q, Tensor *x_kv, const Positional *rope,
                    Tensor *bias, const int *key_pad, const int *query_pad, int causal, const Dropout *attn_drop) {
    Tensor *q = linear_forward(&m->q_proj, x_q);       // (B,Tq,d)
    Tensor *k = linear_forward(&m->k_proj, x_kv);      // (B,Tk,d)
    Tensor *v = linear_forward(&m->v_proj, x_kv);      // (B,Tk,d)
    if (rope) {
        q = pos_rotate(rope, q);
        k = pos_rotate(rope, k);
    }
    AttnArgs args = { .n_heads = m->n_heads, .bias = bias, .key_pad = key_pad, .query_pad = query_pad, .causal = causal,
                      .dropout = attn_drop->p, .seed = attn_drop->p > 0 ? rng_next(attn_drop->rng) : 0 };
    Tensor *y = op_attention(q, k, v, &args);          // (B,Tq,d)
    return linear_forward(&m->o_proj, y);
}
