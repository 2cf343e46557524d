// Traced forward pass and attention heat maps, see attention.h.
#include "run/attention.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tape.h"
#include "data/parallel_text.h"
#include "data/vocab.h"
#include "io/heatmap.h"
#include "run/decode.h"

// P (H,Tq,Tk) = softmax(q k^T / sqrt(D) + bias) with the key-padding and causal masks, for
// one sequence: q (1,Tq,C), k (1,Tk,C).
static void probabilities(const Tensor *q, const Tensor *k, int H, const Tensor *bias, const int *key_pad,
                          int causal, float *P) {
    int Tq = q->shape[1], Tk = k->shape[1], C = q->shape[2], D = C / H;
    float scale = 1.0f / sqrtf((float)D);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < Tq; i++) {
            float *p = P + ((long)h * Tq + i) * Tk;
            for (int j = 0; j < Tk; j++) {
                if ((causal && j > i + (Tk - Tq)) || (key_pad && key_pad[j])) { p[j] = -INFINITY; continue; }
                float s = 0;
                for (int e = 0; e < D; e++) s += q->data[(long)i * C + h * D + e] * k->data[(long)j * C + h * D + e];
                p[j] = s * scale + (bias ? bias->data[((long)h * Tq + i) * Tk + j] : 0.0f);
            }
            softmax_row(p, p, Tk);
        }
}

static Tensor *traced_mha(const MultiHeadAttention *a, Tensor *xq, Tensor *xkv, const Positional *rope, Tensor *bias,
                          const int *key_pad, int causal, float *P) {
    Tensor *q = linear_forward(&a->q_proj, xq), *k = linear_forward(&a->k_proj, xkv), *v = linear_forward(&a->v_proj, xkv);
    if (rope) { q = pos_rotate(rope, q); k = pos_rotate(rope, k); }
    probabilities(q, k, a->n_heads, bias, key_pad, causal, P);
    AttnArgs args = { .n_heads = a->n_heads, .bias = bias, .key_pad = key_pad, .causal = causal };
    return linear_forward(&a->o_proj, op_attention(q, k, v, &args));
}

static Tensor *add_norm(const Stack *s, const LayerNorm *n, Tensor *x, Tensor *y) {
    Tensor *sum = op_add(x, y);
    return s->norm_first ? sum : layernorm_forward(n, sum);
}

// stack_forward with the probabilities written to self_P [L][H][T][T] and cross_P [L][H][T][Tm].
static Tensor *traced_stack(const Stack *s, Tensor *x, const int *key_pad, Tensor *memory, const int *memory_pad,
                            float *self_P, float *cross_P) {
    int T = x->shape[1], Tm = memory ? memory->shape[1] : 0, H = s->pos.n_heads;
    Tensor *bias = pos_self_bias(&s->pos, T);
    const Positional *rope = pos_uses_rotation(&s->pos) ? &s->pos : NULL;
    for (int l = 0; l < s->n_layers; l++) {
        const Layer *ly = &s->layers[l];
        Tensor *h = s->norm_first ? layernorm_forward(&ly->norm1, x) : x;
        x = add_norm(s, &ly->norm1, x, traced_mha(&ly->self_attn, h, h, rope, bias, key_pad, s->causal,
                                                   self_P + (long)l * H * T * T));
        if (ly->has_cross) {
            h = s->norm_first ? layernorm_forward(&ly->norm2, x) : x;
            x = add_norm(s, &ly->norm2, x, traced_mha(&ly->cross_attn, h, memory, NULL, NULL, memory_pad, 0,
                                                       cross_P + (long)l * H * T * Tm));
        }
        h = s->norm_first ? layernorm_forward(&ly->norm3, x) : x;
        x = add_norm(s, &ly->norm3, x, ffn_forward(&ly->ffn, h));
    }
    return layernorm_forward(&s->norm, x);
}

static Tensor *embed(const Model *m, Tensor *table, const Stack *s, const int *ids, int T) {
    int d = m->cfg.d_model, shape[3] = {1, T, d};
    Tensor *x = tensor_view(op_embedding(table, ids, T), 3, shape);
    if (m->cfg.embed_scale) x = op_scale(x, sqrtf((float)d));
    return pos_add_to_input(&s->pos, x);
}

int attention_trace(Model *m, const int *src, int Ts, const int *tgt_in, int Tt, AttnMaps *a) {
    memset(a, 0, sizeof *a);
    int H = m->cfg.n_heads, V = m->tgt_vocab;
    a->n_enc = m->encoder.n_layers;
    a->n_dec = m->decoder.n_layers;
    a->H = H;
    a->Ts = Ts;
    a->Tt = Tt;
    a->enc_self = malloc(sizeof(float) * (size_t)a->n_enc * H * Ts * Ts + 1);
    a->dec_self = malloc(sizeof(float) * (size_t)a->n_dec * H * Tt * Tt + 1);
    a->dec_cross = malloc(sizeof(float) * (size_t)a->n_dec * H * Tt * Ts + 1);
    a->logits = malloc(sizeof(float) * (size_t)Tt * V);
    int *src_pad = malloc(sizeof(int) * (size_t)Ts), *tgt_pad = malloc(sizeof(int) * (size_t)Tt);
    if (!a->enc_self || !a->dec_self || !a->dec_cross || !a->logits || !src_pad || !tgt_pad) {
        free(src_pad); free(tgt_pad);
        attention_maps_free(a);
        return -1;
    }
    for (int i = 0; i < Ts; i++) src_pad[i] = src[i] == TOK_PAD;
    for (int i = 0; i < Tt; i++) tgt_pad[i] = tgt_in[i] == TOK_PAD;
    int was_training = m->training, was_recording = tape_enabled();
    model_set_training(m, 0);
    tape_set_enabled(0);
    ArenaMark mark = arena_mark(tensor_arena());
    Tensor *memory = traced_stack(&m->encoder, embed(m, m->src_embed, &m->encoder, src, Ts), src_pad, NULL, NULL,
                                  a->enc_self, NULL);
    Tensor *y = traced_stack(&m->decoder, embed(m, m->tgt_embed, &m->decoder, tgt_in, Tt), tgt_pad, memory, src_pad,
                             a->dec_self, a->dec_cross);
    int shape[2] = {Tt, m->cfg.d_model};
    Tensor *logits = linear_forward(&m->head, tensor_view(y, 2, shape));
    memcpy(a->logits, logits->data, sizeof(float) * (size_t)Tt * V);
    arena_release(tensor_arena(), mark);
    model_set_training(m, was_training);
    tape_set_enabled(was_recording);
    free(src_pad);
    free(tgt_pad);
    return 0;
}

void attention_maps_free(AttnMaps *a) {
    free(a->enc_self);
    free(a->dec_self);
    free(a->dec_cross);
    free(a->logits);
    memset(a, 0, sizeof *a);
}

static int write_maps(const char *dir, int index, const char *kind, const char *what, int layer, const AttnMaps *a,
                      const float *P, int rows, int cols, const char *const *rl, const char *const *cl,
                      const char *sentence, char *err, int errlen) {
    char path[700], title[600], heads[64][24];
    const char *head_titles[64];
    for (int h = 0; h < a->H && h < 64; h++) { snprintf(heads[h], sizeof heads[h], "head %d", h + 1); head_titles[h] = heads[h]; }
    snprintf(path, sizeof path, "%s/line%d_%s_layer%d.svg", dir, index, kind, layer + 1);
    snprintf(title, sizeof title, "%s, layer %d: \"%.400s\"", what, layer + 1, sentence);
    Heatmap hm = { title, a->H < 64 ? a->H : 64, rows, cols, P, rl, cl, head_titles };
    return heatmap_write_svg(&hm, path, err, errlen);
}

int attention_svgs(Translator *t, const char *line, int beam, float alpha, const char *dir, int index,
                   char *err, int errlen) {
    int *src = NULL, Ts = translator_encode(t, line, &src), rc = -1;
    if (Ts < 0) { snprintf(err, errlen, "out of memory"); return -1; }
    int max_len = 2 * Ts + 10, *hyp = malloc(sizeof(int) * (size_t)max_len), *tgt_in = malloc(sizeof(int) * (size_t)max_len);
    const char **src_tok = malloc(sizeof(char *) * (size_t)Ts), **out_tok = malloc(sizeof(char *) * (size_t)max_len);
    const char **in_tok = malloc(sizeof(char *) * (size_t)max_len);
    AttnMaps a = {0};
    if (!hyp || !tgt_in || !src_tok || !out_tok || !in_tok || beam_decode(&t->model, src, 1, Ts, beam, alpha, max_len, hyp)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    int Tt = 0;
    while (Tt < max_len && hyp[Tt] != 0) if (hyp[Tt++] == TOK_EOS) break;
    if (Tt == 0) hyp[Tt++] = TOK_EOS;
    tgt_in[0] = TOK_BOS;
    for (int i = 1; i < Tt; i++) tgt_in[i] = hyp[i - 1];
    for (int i = 0; i < Ts; i++) src_tok[i] = vocab_token(&t->src_vocab, src[i]);
    for (int i = 0; i < Tt; i++) { out_tok[i] = vocab_token(&t->tgt_vocab, hyp[i]); in_tok[i] = vocab_token(&t->tgt_vocab, tgt_in[i]); }
    if (attention_trace(&t->model, src, Ts, tgt_in, Tt, &a)) { snprintf(err, errlen, "out of memory"); goto done; }
    rc = 0;
    int H = a.H;
    for (int l = 0; l < a.n_enc && !rc; l++)
        rc = write_maps(dir, index, "encoder_self", "encoder self-attention", l, &a, a.enc_self + (long)l * H * Ts * Ts,
                        Ts, Ts, src_tok, src_tok, line, err, errlen);
    for (int l = 0; l < a.n_dec && !rc; l++)
        rc = write_maps(dir, index, "decoder_self", "decoder self-attention (rows: output tokens)", l, &a,
                        a.dec_self + (long)l * H * Tt * Tt, Tt, Tt, out_tok, in_tok, line, err, errlen) ||
             write_maps(dir, index, "decoder_cross", "cross-attention (rows: output tokens, columns: source)", l, &a,
                        a.dec_cross + (long)l * H * Tt * Ts, Tt, Ts, out_tok, src_tok, line, err, errlen) ? -1 : 0;
done:
    attention_maps_free(&a);
    free(src); free(hyp); free(tgt_in); free(src_tok); free(out_tok); free(in_tok);
    return rc;
}
