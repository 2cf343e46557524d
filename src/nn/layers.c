#include "nn/layers.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void named(char *out, size_t n, const char *prefix, const char *suffix) {
    snprintf(out, n, "%s.%s", prefix, suffix);
}

Tensor *dropout_forward(const Dropout *d, Tensor *x) {
    if (d->p <= 0) return x;
    return op_dropout(x, d->p, rng_next(d->rng));
}

Tensor *dropout_rows(const Dropout *d, Tensor *x, const RowPacking *packed) {
    if (d->p <= 0) return x;
    return op_dropout_rows(x, d->p, rng_next(d->rng), packed);
}

Tensor *residual_dropout(const Dropout *d, Tensor *x, Tensor *y, const RowPacking *packed) {
    if (d->p <= 0) return op_add(x, y);
    return op_add_dropout(x, y, d->p, rng_next(d->rng), packed);
}

void linear_declare(Linear *l, Params *ps, const char *name, int in, int out, int has_bias) {
    char buf[128];
    int ws[2] = {out, in};
    named(buf, sizeof buf, name, "weight");
    l->weight = param_new(ps, buf, 2, ws, 1, INIT_XAVIER);
    l->bias = NULL;
    if (!has_bias) return;
    named(buf, sizeof buf, name, "bias");
    l->bias = param_new(ps, buf, 1, &out, 0, INIT_ZEROS);
}

Tensor *linear_forward(const Linear *l, Tensor *x) { return op_linear(x, l->weight, l->bias); }

#define NORM_EPS 1e-5f   // both norms, as torch.nn.LayerNorm and Llama 3.2's rms_norm_eps

void norm_declare(Norm *n, Params *ps, const char *name, int d, NormKind kind) {
    char buf[128];
    n->kind = kind;
    named(buf, sizeof buf, name, "weight");
    n->weight = param_new(ps, buf, 1, &d, 0, INIT_ONES);
    n->bias = NULL;
    if (kind == NORM_RMSNORM) return;
    named(buf, sizeof buf, name, "bias");
    n->bias = param_new(ps, buf, 1, &d, 0, INIT_ZEROS);
}

Tensor *norm_forward(const Norm *n, Tensor *x) {
    if (n->kind == NORM_RMSNORM) return op_rmsnorm(x, n->weight, NORM_EPS);
    return op_layernorm(x, n->weight, n->bias, NORM_EPS);
}

void ffn_declare(FFN *f, Params *ps, const char *name, int d, int d_ff, Activation act,
                 int has_bias) {
    char buf[128];
    f->act = act;
    if (act == ACTIVATION_SWIGLU) {   // Llama's names and order: gate, up, down
        named(buf, sizeof buf, name, "gate_proj");
        linear_declare(&f->gate_proj, ps, buf, d, d_ff, has_bias);
        named(buf, sizeof buf, name, "up_proj");
        linear_declare(&f->up_proj, ps, buf, d, d_ff, has_bias);
        named(buf, sizeof buf, name, "down_proj");
        linear_declare(&f->down_proj, ps, buf, d_ff, d, has_bias);
        return;
    }
    named(buf, sizeof buf, name, "fc1");
    linear_declare(&f->fc1, ps, buf, d, d_ff, has_bias);
    named(buf, sizeof buf, name, "fc2");
    linear_declare(&f->fc2, ps, buf, d_ff, d, has_bias);
}

Tensor *ffn_forward(const FFN *f, Tensor *x) {
    if (f->act == ACTIVATION_SWIGLU) {
        Tensor *h = op_swiglu(linear_forward(&f->gate_proj, x), linear_forward(&f->up_proj, x));
        return linear_forward(&f->down_proj, h);
    }
    Tensor *h = linear_forward(&f->fc1, x);
    h = f->act == ACTIVATION_GELU ? op_gelu(h) : op_relu(h);
    return linear_forward(&f->fc2, h);
}

void mha_declare(MultiHeadAttention *m, Params *ps, const char *name, int d, int n_heads,
                 int has_bias) {
    char buf[128];
    const char *parts[4] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    Linear *lins[4] = {&m->q_proj, &m->k_proj, &m->v_proj, &m->o_proj};
    for (int i = 0; i < 4; i++) {
        named(buf, sizeof buf, name, parts[i]);
        linear_declare(lins[i], ps, buf, d, d, has_bias);
    }
    m->n_heads = n_heads;
}

// Writes the new rows x (B,n,d) at positions start.. of cache (B,capacity,d); returns the
// rows 0 .. start+n-1 (B,start+n,d).
static Tensor *cache_append(float *cache, const Tensor *x, int start, int capacity) {
    int B = x->shape[0], n = x->shape[1], d = x->shape[2], T = start + n;
    if (T > capacity) {
        fprintf(stderr, "mha_forward: key/value cache of %d positions is full\n", capacity);
        abort();
    }
    Tensor *all = tensor_new3(B, T, d, 0);
    for (int b = 0; b < B; b++) {
        float *rows = cache + (long)b * capacity * d;
        memcpy(rows + (long)start * d, x->data + (long)b * n * d, sizeof(float) * (size_t)n * d);
        memcpy(all->data + (long)b * T * d, rows, sizeof(float) * (size_t)T * d);
    }
    return all;
}

// The projection of packed rows, back in the padded layout attention runs on.
static Tensor *projected(const Linear *l, Tensor *x, const RowPacking *p) {
    Tensor *y = linear_forward(l, x);
    return p ? op_unpack_rows(y, p) : y;
}

Tensor *mha_forward(const MultiHeadAttention *m, Tensor *x_q, Tensor *x_kv, const AttnCall *c) {
    // Attention runs on the padded layout: packed rows are unpacked, by their rotation where
    // they are rotated.
    const RowPacking *unpack_q = c->rope ? NULL : c->q_pack;
    const RowPacking *unpack_k = c->rope ? NULL : c->kv_pack;
    Tensor *q = projected(&m->q_proj, x_q, unpack_q);                            // (B,Tq,d)
    Tensor *k = c->mem_k ? c->mem_k : projected(&m->k_proj, x_kv, unpack_k);  // (B,Tk,d)
    Tensor *v = c->mem_v ? c->mem_v : projected(&m->v_proj, x_kv, c->kv_pack); // (B,Tk,d)
    if (c->rope) {
        // a padding query's row and a masked key's are never read: not rotated
        q = c->q_pack ? pos_rotate_packed(c->rope, q, c->rows, c->q_pack, 0)
                      : pos_rotate(c->rope, q, c->rows, c->query_pad);
        k = c->kv_pack ? pos_rotate_packed(c->rope, k, c->rows, c->kv_pack, 1)
                       : pos_rotate_key(c->rope, k, c->rows, c->key_pad);
    }
    if (c->past_k) {
        k = cache_append(c->past_k, k, c->rows.start, c->capacity);
        v = cache_append(c->past_v, v, c->rows.start, c->capacity);
    }
    const Dropout *drop = c->drop;
    AttnArgs args = { .n_heads = m->n_heads, .bias = c->bias, .key_pad = c->key_pad,
                      .query_pad = c->query_pad, .causal = c->causal, .dropout = drop->p,
                      .seed = drop->p > 0 ? rng_next(drop->rng) : 0, .probs = c->probs,
                      .logit_train_length = c->logit_train_length };
    Tensor *y = op_attention(q, k, v, &args);                          // (B,Tq,d)
    if (c->q_pack) y = op_pack_rows(y, c->q_pack);                     // (n,d)
    return linear_forward(&m->o_proj, y);
}
