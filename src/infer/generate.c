// Sampling from and scoring with the language model, see generate.h.
#include "infer/generate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "data/vocab.h"
#include "models/decode.h"
#include "infer/progress.h"

typedef struct { float z; int id; } Scored;

static int by_logit(const void *a, const void *b) {   // most likely first, lower id on ties
    const Scored *x = a, *y = b;
    if (x->z != y->z) return x->z > y->z ? -1 : 1;
    return x->id - y->id;
}

int lm_pick(const float *z, int V, const GenOptions *o, Rng *rng) {
    const int first = TOK_EOS + 1;   // no specials
    int best = first + kernel_argmax(z + first, V - first);
    if (o->temperature == 0) return best;
    int n = V - first;
    Scored *s = malloc(sizeof(Scored) * (size_t)n);
    if (!s) return best;
    for (int i = 0; i < n; i++) s[i] = (Scored){z[first + i], first + i};
    qsort(s, (size_t)n, sizeof *s, by_logit);
    int k = o->top_k > 0 && o->top_k < n ? o->top_k : n;
    double sum = 0;
    for (int i = 0; i < k; i++) sum += exp(((double)s[i].z - s[0].z) / o->temperature);
    double u = rng_uniform(rng) * sum, acc = 0;
    int pick = s[k - 1].id;   // if rounding leaves u beyond the last sum
    for (int i = 0; i < k; i++) {
        acc += exp(((double)s[i].z - s[0].z) / o->temperature);
        if (u < acc) { pick = s[i].id; break; }
    }
    free(s);
    return pick;
}

// Room for `positions` positions of one sequence: 0, or -1 with the scheme's message.
static int open_lm(DecodeState *st, Model *m, int positions, char *err, int errlen) {
    if (m->cfg.model != MODEL_LM) {
        snprintf(err, errlen, "not a language model (model = lm)");
        return -1;
    }
    if (model_check_length(m, positions, err, errlen)) return -1;
    if (decode_init(st, m, NULL, 1, 0, positions)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int lm_generate(Model *m, const int *prompt, int n_prompt, const GenOptions *o, int *out, char *err,
                int errlen) {
    if (n_prompt < 1 || o->n_tokens < 1) {
        snprintf(err, errlen, "need a prompt and at least one token");
        return -1;
    }
    DecodeState st;
    if (open_lm(&st, m, n_prompt + o->n_tokens - 1, err, errlen)) return -1;
    int V = m->src_vocab;
    Rng rng = rng_stream(o->seed, RNG_SAMPLE);
    Progress p = progress_start("generate", "tokens", o->n_tokens);
    Tensor *z = decode_feed(&st, prompt, n_prompt);                   // (n_prompt,V)
    for (int i = 0; i < o->n_tokens; i++) {
        int rows = i == 0 ? n_prompt : 1;
        out[i] = lm_pick(z->data + (long)(rows - 1) * V, V, o, &rng);
        if (i + 1 < o->n_tokens) z = decode_step(&st, &out[i]);     // (1,V)
        progress_update(&p, i + 1);
    }
    progress_end(&p);
    decode_free(&st);
    return 0;
}

int lm_score(Model *m, const int *ids, int n, double *loss, char *err, int errlen) {
    if (n < 2) { snprintf(err, errlen, "a text to score needs at least two tokens"); return -1; }
    DecodeState st;
    if (open_lm(&st, m, n - 1, err, errlen)) return -1;
    int V = m->src_vocab;
    Progress p = progress_start("score", "positions", n - 1);
    for (int t0 = 0; t0 < n - 1; t0 += GEN_SCORE_CHUNK) {
        int T = n - 1 - t0 < GEN_SCORE_CHUNK ? n - 1 - t0 : GEN_SCORE_CHUNK;
        Tensor *logits = decode_feed(&st, ids + t0, T);               // (T,V)
        for (int i = 0; i < T; i++) {
            const float *z = logits->data + (long)i * V;
            loss[t0 + i] = log_sum_exp(z, V) - z[ids[t0 + i + 1]];
        }
        progress_update(&p, t0 + T);
    }
    progress_end(&p);
    decode_free(&st);
    return 0;
}
