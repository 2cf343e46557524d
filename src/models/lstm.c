#include "models/lstm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/vocab.h"

// --- declaration: torch.nn.LSTM's names and order ------------------------------------------

// {prefix}.weight_ih_l{k}[_reverse], weight_hh, bias_ih, bias_hh: layer by layer, forward
// direction first, as named_parameters() lists them.
static void lstm_net_declare(LstmNet *n, Params *ps, const char *prefix, int layers, int dirs,
                             int in, int d, int bias) {
    n->n_layers = layers;
    n->n_dirs = dirs;
    n->w = calloc((size_t)layers * dirs, sizeof *n->w);
    if (!n->w) { fprintf(stderr, "out of memory (lstm)\n"); exit(1); }
    for (int l = 0; l < layers; l++)
        for (int r = 0; r < dirs; r++) {
            LstmWeights *w = &n->w[l * dirs + r];
            int width = l == 0 ? in : d * dirs;   // later layers read both directions
            int ih[2] = {4 * d, width}, hh[2] = {4 * d, d}, b = 4 * d;
            const char *suffix = r ? "_reverse" : "";
            char name[128];
            snprintf(name, sizeof name, "%s.weight_ih_l%d%s", prefix, l, suffix);
            w->w_ih = param_new(ps, name, 2, ih, 1, INIT_XAVIER);
            snprintf(name, sizeof name, "%s.weight_hh_l%d%s", prefix, l, suffix);
            w->w_hh = param_new(ps, name, 2, hh, 1, INIT_XAVIER);
            if (!bias) continue;
            snprintf(name, sizeof name, "%s.bias_ih_l%d%s", prefix, l, suffix);
            w->b_ih = param_new(ps, name, 1, &b, 0, INIT_ZEROS);
            snprintf(name, sizeof name, "%s.bias_hh_l%d%s", prefix, l, suffix);
            w->b_hh = param_new(ps, name, 1, &b, 0, INIT_ZEROS);
        }
}

void lstm_translator_declare(LstmTranslator *t, Params *ps, const Config *c, int src_vocab,
                             int tgt_vocab) {
    int d = c->d_model;
    t->d = d;
    int es[2] = {src_vocab, d}, ts[2] = {tgt_vocab, d};
    t->enc_embed = param_new(ps, "encoder.embedding.weight", 2, es, 0, INIT_XAVIER);
    lstm_net_declare(&t->enc, ps, "encoder.lstm", c->enc_layers, c->bidirectional ? 2 : 1, d, d,
                     c->bias);
    t->dec_embed = param_new(ps, "decoder.embedding.weight", 2, ts, 0, INIT_XAVIER);
    lstm_net_declare(&t->dec, ps, "decoder.lstm", c->dec_layers, 1, d, d, c->bias);
    t->additive = c->attention == ATTENTION_ADDITIVE;
    if (t->additive) {   // nn.Linear modules decoder.attn.{query,key,v}
        int vs[2] = {1, d};
        linear_declare(&t->attn_query, ps, "decoder.attn.query", d, d, 0);
        linear_declare(&t->attn_key, ps, "decoder.attn.key", d, d, c->bias);
        t->attn_v = param_new(ps, "decoder.attn.v.weight", 2, vs, 1, INIT_XAVIER);
    }
    linear_declare(&t->attn_combine, ps, "decoder.attn_combine", 2 * d, d, c->bias);
    if (c->tie_embeddings) {   // the output layer reads the embedding table; a bias of its own
        t->out.weight = t->dec_embed;
        t->out.bias = c->bias ? param_new(ps, "decoder.out.bias", 1, &tgt_vocab, 0, INIT_ZEROS)
                              : NULL;
    } else {
        linear_declare(&t->out, ps, "decoder.out", d, tgt_vocab, c->bias);
    }
}

void lstm_translator_free(LstmTranslator *t) {
    free(t->enc.w);
    free(t->dec.w);
    t->enc.w = t->dec.w = NULL;
}

// --- forward ---------------------------------------------------------------------------------

static Tensor *embed(const LstmTranslator *t, Tensor *table, const int *ids, int B, int T) {
    int shape[3] = {B, T, t->d};
    return dropout_forward(&t->drop, tensor_view(op_embedding(table, ids, B * T), 3, shape));
}

// Each row's length up to its last real token (padding is at the end), in the arena.
static const int *token_lengths(const int *ids, int B, int T) {
    int *lengths = arena_alloc(tensor_arena(), sizeof(int) * (size_t)(B ? B : 1));
    for (int b = 0; b < B; b++) {
        lengths[b] = 0;
        for (int i = 0; i < T; i++)
            if (ids[(long)b * T + i] != TOK_PAD) lengths[b] = i + 1;
    }
    return lengths;
}

LstmEncoded lstm_encode(const LstmTranslator *t, const int *src, int B, int Ts) {
    Arena *arena = tensor_arena();
    LstmEncoded e = {.B = B, .Ts = Ts};
    e.lengths = token_lengths(src, B, Ts);
    e.final = arena_alloc(arena, sizeof(LstmState) * (size_t)t->enc.n_layers);
    Tensor *x = embed(t, t->enc_embed, src, B, Ts);
    LstmState zero = {NULL, NULL};
    for (int l = 0; l < t->enc.n_layers; l++) {
        int last = l == t->enc.n_layers - 1;
        LstmState fwd, bwd;
        Tensor *y = op_lstm(x, &t->enc.w[l * t->enc.n_dirs], zero, e.lengths, 0, &fwd);
        if (t->enc.n_dirs == 2) {
            Tensor *yr = op_lstm(x, &t->enc.w[l * 2 + 1], zero, e.lengths, 1, &bwd);
            y = last ? op_add(y, yr) : op_concat(y, yr);   // (B,Ts,d) or (B,Ts,2d)
            fwd.h = op_add(fwd.h, bwd.h);
            fwd.c = op_add(fwd.c, bwd.c);
        }
        e.final[l] = fwd;
        x = last ? y : dropout_forward(&t->drop, y);   // between layers, as torch.nn.LSTM
    }
    e.memory = x;
    return e;
}

// h (B,Tt,d) attends to memory (B,Ts,d): dot-product or additive scores, padded sources masked.
static Tensor *attend(const LstmTranslator *t, const LstmEncoded *enc, Tensor *h, float *probs) {
    int B = h->shape[0], Tt = h->shape[1], Ts = enc->Ts;
    Tensor *scores;                                                // (B,Tt,Ts)
    if (t->additive) {
        int d = t->d;
        scores = op_additive_scores(linear_forward(&t->attn_query, h),
                                    linear_forward(&t->attn_key, enc->memory),
                                    tensor_view(t->attn_v, 1, &d));
    } else {
        scores = op_matmul(h, enc->memory, 0, 1);
    }
    Tensor *mask = tensor_new3(B, Tt, Ts, 0);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < Tt; i++)
            for (int j = 0; j < Ts; j++)
                mask->data[((long)b * Tt + i) * Ts + j] = j < enc->lengths[b] ? 0.0f : -INFINITY;
    Tensor *p = op_softmax(scores, mask);
    if (probs) memcpy(probs, p->data, sizeof(float) * p->size);
    return op_matmul(p, enc->memory, 0, 0);                        // (B,Tt,d)
}

// The decoder up to the output layer: a (B*Tt,d), see lstm_decode; with `packed` (not NULL)
// W_c, its tanh and dropout run on those rows only, and a is (packed->n,d): each row of them
// depends on its own row of [ctx; h] alone, and the dropout masks each element by its index
// in the padded layout, so the token rows have the bits of the padded run.
static Tensor *decode_features(const LstmTranslator *t, const LstmEncoded *enc,
                               const int *tgt_in, int B, int Tt, const int *lengths,
                               LstmState *state, float *probs, const RowPacking *packed) {
    Tensor *y = embed(t, t->dec_embed, tgt_in, B, Tt);
    for (int l = 0; l < t->dec.n_layers; l++) {
        LstmState fin;
        y = op_lstm(y, &t->dec.w[l], state[l], lengths, 0, &fin);
        state[l] = fin;
        if (l < t->dec.n_layers - 1) y = dropout_forward(&t->drop, y);
    }
    Tensor *ctx = attend(t, enc, y, probs);
    Tensor *cat = op_concat(ctx, y);                                              // (B,Tt,2d)
    int rows[2] = {B * Tt, 2 * t->d};
    cat = packed ? op_pack_rows(cat, packed) : tensor_view(cat, 2, rows);
    Tensor *a = op_tanh(linear_forward(&t->attn_combine, cat));                  // (rows,d)
    return dropout_rows(&t->drop, a, packed);
}

Tensor *lstm_decode(const LstmTranslator *t, const LstmEncoded *enc, const int *tgt_in, int B,
                    int Tt, const int *lengths, LstmState *state, float *probs) {
    return linear_forward(&t->out,
                          decode_features(t, enc, tgt_in, B, Tt, lengths, state, probs, NULL));
}

Tensor *lstm_translator_logits(const LstmTranslator *t, const int *src, int B, int Ts,
                               const int *tgt_in, int Tt, RowPacking *rows_out) {
    LstmEncoded enc = lstm_encode(t, src, B, Ts);
    LstmState *state = arena_alloc(tensor_arena(), sizeof(LstmState) * (size_t)t->dec.n_layers);
    memcpy(state, enc.final, sizeof(LstmState) * (size_t)t->dec.n_layers);
    const int *lengths = token_lengths(tgt_in, B, Tt);
    const RowPacking *packed = NULL;
    if (rows_out) {   // W_c, tanh, dropout and the output layer on the token rows only
        int *pad = arena_alloc(tensor_arena(), sizeof(int) * (size_t)((long)B * Tt + 1));
        for (int b = 0; b < B; b++)
            for (int i = 0; i < Tt; i++) pad[(long)b * Tt + i] = i >= lengths[b];
        if (row_packing_init(rows_out, pad, B, Tt)) packed = rows_out;
    }
    return linear_forward(&t->out,
                          decode_features(t, &enc, tgt_in, B, Tt, lengths, state, NULL, packed));
}

// --- incremental decoding --------------------------------------------------------------------

int lstm_cache_init(LstmCache *c, const LstmTranslator *t, LstmEncoded enc) {
    memset(c, 0, sizeof *c);
    c->N = enc.B;
    c->n_layers = t->dec.n_layers;
    c->d = t->d;
    c->enc = enc;
    c->h = calloc((size_t)c->n_layers, sizeof(float *));
    c->c = calloc((size_t)c->n_layers, sizeof(float *));
    if (!c->h || !c->c) { lstm_cache_free(c); return -1; }
    size_t bytes = sizeof(float) * (size_t)c->N * c->d;
    for (int l = 0; l < c->n_layers; l++) {
        c->h[l] = malloc(bytes ? bytes : 1);
        c->c[l] = malloc(bytes ? bytes : 1);
        if (!c->h[l] || !c->c[l]) { lstm_cache_free(c); return -1; }
        memcpy(c->h[l], enc.final[l].h->data, bytes);
        memcpy(c->c[l], enc.final[l].c->data, bytes);
    }
    return 0;
}

Tensor *lstm_cache_step(LstmCache *c, const LstmTranslator *t, const int *tokens, int T,
                        float *probs) {
    LstmState *state = arena_alloc(tensor_arena(), sizeof(LstmState) * (size_t)c->n_layers);
    size_t bytes = sizeof(float) * (size_t)c->N * c->d;
    for (int l = 0; l < c->n_layers; l++) {
        state[l].h = tensor_new2(c->N, c->d, 0);
        state[l].c = tensor_new2(c->N, c->d, 0);
        memcpy(state[l].h->data, c->h[l], bytes);
        memcpy(state[l].c->data, c->c[l], bytes);
    }
    Tensor *logits = lstm_decode(t, &c->enc, tokens, c->N, T, NULL, state, probs);
    for (int l = 0; l < c->n_layers; l++) {
        memcpy(c->h[l], state[l].h->data, bytes);
        memcpy(c->c[l], state[l].c->data, bytes);
    }
    return logits;
}

void lstm_cache_reorder(LstmCache *c, const int *parent) {
    size_t row = sizeof(float) * (size_t)c->d;
    float *tmp = malloc(row * (size_t)c->N + 1);
    if (!tmp) { fprintf(stderr, "out of memory (lstm cache)\n"); exit(1); }
    float **arrays[2] = {c->h, c->c};
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < c->n_layers; l++) {
            for (int n = 0; n < c->N; n++)
                memcpy(tmp + (long)n * c->d, arrays[k][l] + (long)parent[n] * c->d, row);
            memcpy(arrays[k][l], tmp, row * (size_t)c->N);
        }
    free(tmp);
}

void lstm_cache_free(LstmCache *c) {
    for (int l = 0; l < c->n_layers; l++) {
        if (c->h) free(c->h[l]);
        if (c->c) free(c->c[l]);
    }
    free(c->h);
    free(c->c);
    memset(c, 0, sizeof *c);
}
