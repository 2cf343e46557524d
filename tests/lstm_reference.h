// The LSTM translator's forward pass (model = lstm, docs/design.md §2.8) written out in plain
// loops from the design document, for tests that compare the model with it: torch.nn.LSTM's
// cell (gate order i, f, g, o), padded source steps that keep the state and output 0, both
// directions concatenated between encoder layers and summed after the last (and in the final
// states), the decoder started from the encoder's final states, Luong dot-product attention
// over the real source steps, a = tanh(W_c [ctx; h] + b_c), logits = a W_out^T + b_out.
//
// Dropout, when `rng` is given, goes where torch.nn.LSTM and the design put it, each a fresh
// seed from rng in this order: the source embeddings, the output of every encoder layer but
// the last, the target embeddings, the output of every decoder layer but the last, and a.
// Element e of a tensor is kept when hash_uniform(seed, e) >= p and then scaled by 1/(1-p).
// Nothing else is dropped: not the encoder's memory or final states, not the recurrence.
#ifndef LSTM_REFERENCE_H
#define LSTM_REFERENCE_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"
#include "data/vocab.h"
#include "models/model.h"
#include "util/hash.h"

static void ref_dropout(float *x, long n, float p, Rng *rng) {
    if (!rng || p <= 0) return;
    uint64_t seed = rng_next(rng);
    float s = 1.0f / (1.0f - p);
    for (long e = 0; e < n; e++) x[e] = hash_uniform(seed, (uint64_t)e) >= p ? x[e] * s : 0.0f;
}

static double ref_sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }

// One direction of one layer: in (B,T,I) -> out (B,T,d); (h, c) (B,d) hold the initial state
// (zeros when NULL is wanted: pass zeroed arrays) and receive the final one.
static void ref_lstm_dir(const float *in, int B, int T, int I, int d, const LstmWeights *w,
                         const int *lengths, int reverse, float *h, float *c, float *out) {
    double *a = malloc(sizeof(double) * 4 * (size_t)d);
    float *hn = malloc(sizeof(float) * (size_t)d);
    for (int b = 0; b < B; b++) {
        float *hb = h + (long)b * d, *cb = c + (long)b * d;
        for (int k = 0; k < T; k++) {
            int t = reverse ? T - 1 - k : k;
            float *o = out + ((long)b * T + t) * d;
            if (lengths && t >= lengths[b]) { memset(o, 0, sizeof(float) * (size_t)d); continue; }
            const float *x = in + ((long)b * T + t) * I;
            for (int g = 0; g < 4 * d; g++) {
                double s = (w->b_ih ? w->b_ih->data[g] : 0) + (w->b_hh ? w->b_hh->data[g] : 0);
                for (int i = 0; i < I; i++) s += (double)w->w_ih->data[(long)g * I + i] * x[i];
                for (int j = 0; j < d; j++) s += (double)w->w_hh->data[(long)g * d + j] * hb[j];
                a[g] = s;
            }
            for (int j = 0; j < d; j++) {
                double ig = ref_sigmoid(a[j]), fg = ref_sigmoid(a[d + j]);
                double gg = tanh(a[2 * d + j]), og = ref_sigmoid(a[3 * d + j]);
                cb[j] = (float)(fg * cb[j] + ig * gg);
                hn[j] = (float)(og * tanh(cb[j]));
            }
            memcpy(hb, hn, sizeof(float) * (size_t)d);
            memcpy(o, hn, sizeof(float) * (size_t)d);
        }
    }
    free(a);
    free(hn);
}

// logits (B*Tt,V) and, if probs is not NULL, the attention (B,Tt,Ts); rng NULL: no dropout.
static void lstm_reference(const Model *m, const int *src, int B, int Ts, const int *tgt_in,
                           int Tt, float p, Rng *rng, float *logits, float *probs) {
    const LstmTranslator *t = &m->lstm;
    int d = t->d, dirs = t->enc.n_dirs, L = t->enc.n_layers, V = m->tgt_vocab;
    int *len = malloc(sizeof(int) * (size_t)B);
    for (int b = 0; b < B; b++) {
        len[b] = 0;
        for (int i = 0; i < Ts; i++) if (src[(long)b * Ts + i] != TOK_PAD) len[b] = i + 1;
    }
    size_t wide = (size_t)B * Ts * 2 * d;
    float *x = malloc(sizeof(float) * wide), *y = malloc(sizeof(float) * wide);
    float *yf = malloc(sizeof(float) * (size_t)B * Ts * d), *yb = malloc(sizeof(float) * (size_t)B * Ts * d);
    float *hf = malloc(sizeof(float) * (size_t)B * d), *cf = malloc(sizeof(float) * (size_t)B * d);
    float *hb = malloc(sizeof(float) * (size_t)B * d), *cb = malloc(sizeof(float) * (size_t)B * d);
    float *fin_h = malloc(sizeof(float) * (size_t)L * B * d), *fin_c = malloc(sizeof(float) * (size_t)L * B * d);
    for (long r = 0; r < (long)B * Ts; r++)
        memcpy(x + r * d, t->enc_embed->data + (long)src[r] * d, sizeof(float) * (size_t)d);
    ref_dropout(x, (long)B * Ts * d, p, rng);
    int I = d;
    for (int l = 0; l < L; l++) {
        int last = l == L - 1;
        memset(hf, 0, sizeof(float) * (size_t)B * d); memset(cf, 0, sizeof(float) * (size_t)B * d);
        memset(hb, 0, sizeof(float) * (size_t)B * d); memset(cb, 0, sizeof(float) * (size_t)B * d);
        ref_lstm_dir(x, B, Ts, I, d, &t->enc.w[l * dirs], len, 0, hf, cf, yf);
        if (dirs == 2) ref_lstm_dir(x, B, Ts, I, d, &t->enc.w[l * 2 + 1], len, 1, hb, cb, yb);
        int width = last || dirs == 1 ? d : 2 * d;
        for (long r = 0; r < (long)B * Ts; r++)
            for (int j = 0; j < d; j++) {
                if (dirs == 1) y[r * width + j] = yf[r * d + j];
                else if (last) y[r * width + j] = yf[r * d + j] + yb[r * d + j];
                else { y[r * width + j] = yf[r * d + j]; y[r * width + d + j] = yb[r * d + j]; }
            }
        for (long e = 0; e < (long)B * d; e++) {
            fin_h[(long)l * B * d + e] = hf[e] + (dirs == 2 ? hb[e] : 0);
            fin_c[(long)l * B * d + e] = cf[e] + (dirs == 2 ? cb[e] : 0);
        }
        if (!last) ref_dropout(y, (long)B * Ts * width, p, rng);
        memcpy(x, y, sizeof(float) * (size_t)B * Ts * width);
        I = width;
    }
    const float *memory = x;   // (B,Ts,d), no dropout
    int Ld = t->dec.n_layers;
    float *u = malloc(sizeof(float) * (size_t)B * Tt * d), *v = malloc(sizeof(float) * (size_t)B * Tt * d);
    for (long r = 0; r < (long)B * Tt; r++)
        memcpy(u + r * d, t->dec_embed->data + (long)tgt_in[r] * d, sizeof(float) * (size_t)d);
    ref_dropout(u, (long)B * Tt * d, p, rng);
    for (int l = 0; l < Ld; l++) {
        memcpy(hf, fin_h + (long)l * B * d, sizeof(float) * (size_t)B * d);
        memcpy(cf, fin_c + (long)l * B * d, sizeof(float) * (size_t)B * d);
        ref_lstm_dir(u, B, Tt, d, d, &t->dec.w[l], NULL, 0, hf, cf, v);
        if (l < Ld - 1) ref_dropout(v, (long)B * Tt * d, p, rng);
        memcpy(u, v, sizeof(float) * (size_t)B * Tt * d);
    }
    float *a = malloc(sizeof(float) * (size_t)B * Tt * d);
    double *sc = malloc(sizeof(double) * (size_t)Ts), *cat = malloc(sizeof(double) * 2 * (size_t)d);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < Tt; i++) {
            const float *h = u + ((long)b * Tt + i) * d;
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < len[b]; j++) {
                double s = 0;
                for (int k = 0; k < d; k++) s += (double)h[k] * memory[((long)b * Ts + j) * d + k];
                sc[j] = s;
                mx = fmax(mx, s);
            }
            for (int j = 0; j < len[b]; j++) sum += (sc[j] = exp(sc[j] - mx));
            for (int k = 0; k < d; k++) cat[k] = 0, cat[d + k] = h[k];
            for (int j = 0; j < Ts; j++) {
                double pj = j < len[b] ? sc[j] / sum : 0;
                if (probs) probs[((long)b * Tt + i) * Ts + j] = (float)pj;
                for (int k = 0; k < d; k++) cat[k] += pj * memory[((long)b * Ts + j) * d + k];
            }
            for (int r = 0; r < d; r++) {
                double s = t->attn_combine.bias ? t->attn_combine.bias->data[r] : 0;
                for (int k = 0; k < 2 * d; k++) s += t->attn_combine.weight->data[(long)r * 2 * d + k] * cat[k];
                a[((long)b * Tt + i) * d + r] = (float)tanh(s);
            }
        }
    ref_dropout(a, (long)B * Tt * d, p, rng);
    for (long r = 0; r < (long)B * Tt; r++)
        for (int o = 0; o < V; o++) {
            double s = t->out.bias ? t->out.bias->data[o] : 0;
            for (int k = 0; k < d; k++) s += (double)t->out.weight->data[(long)o * d + k] * a[r * d + k];
            logits[r * V + o] = (float)s;
        }
    free(len); free(x); free(y); free(yf); free(yb); free(hf); free(cf); free(hb); free(cb);
    free(fin_h); free(fin_c); free(u); free(v); free(a); free(sc); free(cat);
}
#endif
