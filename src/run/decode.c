// Incremental decoding and beam search, see decode.h.
#include "run/decode.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/tape.h"
#include "data/vocab.h"

int decode_init(DecodeState *s, Model *m, const int *src, int N, int Ts, int max_len) {
    memset(s, 0, sizeof *s);
    s->m = m;
    s->N = N;
    s->Ts = Ts;
    s->max_len = max_len;
    s->was_training = m->training;
    s->was_recording = tape_enabled();
    model_set_training(m, 0);
    tape_set_enabled(0);
    int L = m->decoder.n_layers, d = m->cfg.d_model;
    int *src_copy = malloc(sizeof(int) * (size_t)N * Ts);
    s->mem_k = calloc((size_t)L, sizeof(Tensor *));
    s->mem_v = calloc((size_t)L, sizeof(Tensor *));
    s->self_k = calloc((size_t)L, sizeof(float *));
    s->self_v = calloc((size_t)L, sizeof(float *));
    int oom = !src_copy || !s->mem_k || !s->mem_v || !s->self_k || !s->self_v;
    for (int l = 0; l < L && !oom; l++) {
        s->self_k[l] = malloc(sizeof(float) * (size_t)N * max_len * d);
        s->self_v[l] = malloc(sizeof(float) * (size_t)N * max_len * d);
        oom = !s->self_k[l] || !s->self_v[l];
    }
    if (oom) { free(src_copy); s->src = NULL; decode_free(s); return -1; }
    memcpy(src_copy, src, sizeof(int) * (size_t)N * Ts);
    s->src = src_copy;
    s->start = arena_mark(tensor_arena());
    Tensor *memory = model_encode(m, src, N, Ts);                     // (N,Ts,d)
    for (int l = 0; l < L; l++) {
        const MultiHeadAttention *ca = &m->decoder.layers[l].cross_attn;
        s->mem_k[l] = linear_forward(&ca->k_proj, memory);
        s->mem_v[l] = linear_forward(&ca->v_proj, memory);
    }
    s->mark = arena_mark(tensor_arena());
    return 0;
}

void decode_free(DecodeState *s) {
    if (s->src) arena_release(tensor_arena(), s->start);
    for (int l = 0; s->self_k && l < s->m->decoder.n_layers; l++) {
        free(s->self_k[l]);
        free(s->self_v[l]);
    }
    free(s->self_k);
    free(s->self_v);
    free(s->mem_k);
    free(s->mem_v);
    free((void *)s->src);
    if (s->m) {
        model_set_training(s->m, s->was_training);
        tape_set_enabled(s->was_recording);
    }
    memset(s, 0, sizeof *s);
}

// Row t of the stack's self-attention bias (H,T,T) for T = t + 1: (H,1,t+1), or NULL.
static Tensor *bias_row(const Positional *p, int t) {
    Tensor *full = pos_self_bias(p, t + 1);
    if (!full) return NULL;
    int H = full->shape[0], T = t + 1;
    Tensor *row = tensor_new3(H, 1, T, 0);
    for (int h = 0; h < H; h++) memcpy(row->data + (long)h * T, full->data + ((long)h * T + t) * T, sizeof(float) * T);
    return row;
}

// Appends x (N,1,d) at position t of cache (N,max_len,d); returns the first t+1 rows (N,t+1,d).
static Tensor *cache_append(float *cache, const Tensor *x, int N, int max_len, int t, int d) {
    Tensor *out = tensor_new3(N, t + 1, d, 0);
    for (int n = 0; n < N; n++) {
        float *row = cache + (long)n * max_len * d;
        memcpy(row + (long)t * d, x->data + (long)n * d, sizeof(float) * d);
        memcpy(out->data + (long)n * (t + 1) * d, row, sizeof(float) * (size_t)(t + 1) * d);
    }
    return out;
}

// One residual sub-layer around y = f(h): pre-LN x + f(LN(x)), post-LN LN(x + f(x)).
static Tensor *residual(const Stack *st, const LayerNorm *norm, Tensor *x, Tensor *y) {
    Tensor *sum = op_add(x, y);
    return st->norm_first ? sum : layernorm_forward(norm, sum);
}

Tensor *decode_step(DecodeState *s, const int *tokens) {
    Model *m = s->m;
    const Stack *st = &m->decoder;
    int N = s->N, d = m->cfg.d_model, t = s->t;
    arena_release(tensor_arena(), s->mark);
    // Embedding at position t: the same positional scheme, shifted by t.
    Positional here = st->pos;
    here.offset += t;
    int shape[3] = {N, 1, d};
    Tensor *x = tensor_view(op_embedding(m->tgt_embed, tokens, N), 3, shape);
    if (m->cfg.embed_scale) x = op_scale(x, sqrtf((float)d));
    x = pos_add_to_input(&here, x);
    Tensor *bias = bias_row(&st->pos, t);
    int rope = pos_uses_rotation(&st->pos);
    int *mem_pad = arena_alloc(tensor_arena(), sizeof(int) * (size_t)N * s->Ts);
    for (long i = 0; i < (long)N * s->Ts; i++) mem_pad[i] = s->src[i] == TOK_PAD;
    for (int l = 0; l < st->n_layers; l++) {
        const Layer *ly = &st->layers[l];
        // Causal self-attention: the new query against every cached key (all are earlier).
        Tensor *h = st->norm_first ? layernorm_forward(&ly->norm1, x) : x;
        Tensor *q = linear_forward(&ly->self_attn.q_proj, h);
        Tensor *k = linear_forward(&ly->self_attn.k_proj, h);
        Tensor *v = linear_forward(&ly->self_attn.v_proj, h);
        if (rope) { q = pos_rotate(&here, q); k = pos_rotate(&here, k); }
        Tensor *K = cache_append(s->self_k[l], k, N, s->max_len, t, d);
        Tensor *V = cache_append(s->self_v[l], v, N, s->max_len, t, d);
        AttnArgs self_args = { .n_heads = ly->self_attn.n_heads, .bias = bias };
        Tensor *y = linear_forward(&ly->self_attn.o_proj, op_attention(q, K, V, &self_args));
        x = residual(st, &ly->norm1, x, y);
        if (ly->has_cross) {
            h = st->norm_first ? layernorm_forward(&ly->norm2, x) : x;
            q = linear_forward(&ly->cross_attn.q_proj, h);
            AttnArgs cross_args = { .n_heads = ly->cross_attn.n_heads, .key_pad = mem_pad };
            y = linear_forward(&ly->cross_attn.o_proj, op_attention(q, s->mem_k[l], s->mem_v[l], &cross_args));
            x = residual(st, &ly->norm2, x, y);
        }
        h = st->norm_first ? layernorm_forward(&ly->norm3, x) : x;
        x = residual(st, &ly->norm3, x, ffn_forward(&ly->ffn, h));
    }
    x = layernorm_forward(&st->norm, x);
    int shape2[2] = {N, d};
    s->t++;
    return linear_forward(&m->head, tensor_view(x, 2, shape2));       // (N,V)
}

void decode_reorder(DecodeState *s, const int *parent) {
    int N = s->N, d = s->m->cfg.d_model;
    size_t row = (size_t)s->max_len * d, used = (size_t)s->t * d;
    float *tmp = malloc(sizeof(float) * (size_t)N * used + 1);
    if (!tmp) abort();   // a few MB at most; nothing sensible to do without them
    float **caches[2] = {s->self_k, s->self_v};
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < s->m->decoder.n_layers; l++) {
            float *cache = caches[c][l];
            for (int n = 0; n < N; n++) memcpy(tmp + n * used, cache + parent[n] * row, sizeof(float) * used);
            for (int n = 0; n < N; n++) memcpy(cache + n * row, tmp + n * used, sizeof(float) * used);
        }
    free(tmp);
}

// ---------------------------------------------------------------- beam search

typedef struct { double score; int beam, token; } Cand;

// Inserts c into the list (sorted by score, best first, at most cap entries). Equal scores
// keep the earlier candidate first, so the lowest token id wins ties as argmax does.
static void offer(Cand *list, int *n, int cap, Cand c) {
    if (*n == cap && c.score <= list[*n - 1].score) return;
    int i = *n < cap ? (*n)++ : cap - 1;
    while (i > 0 && list[i - 1].score < c.score) { list[i] = list[i - 1]; i--; }
    list[i] = c;
}

static double length_penalty(int len, float alpha) {
    return alpha == 0 ? 1.0 : pow((5.0 + len) / 6.0, alpha);
}

int beam_decode(Model *m, const int *src, int B, int Ts, int K, float alpha, int max_len, int *out) {
    int N = B * K, V = m->tgt_vocab, rc = -1;
    int *rep = malloc(sizeof(int) * (size_t)N * Ts), *tokens = malloc(sizeof(int) * (size_t)N);
    int *parent = malloc(sizeof(int) * (size_t)N), *seq = malloc(sizeof(int) * (size_t)N * max_len);
    int *seq_new = malloc(sizeof(int) * (size_t)N * max_len), *n_done = calloc((size_t)B, sizeof(int));
    double *score = malloc(sizeof(double) * (size_t)N), *score_new = malloc(sizeof(double) * (size_t)N);
    double *best = malloc(sizeof(double) * (size_t)B), *lse = malloc(sizeof(double) * (size_t)N);
    Cand *cand = malloc(sizeof(Cand) * (size_t)2 * K);
    DecodeState s;
    memset(&s, 0, sizeof s);
    if (!rep || !tokens || !parent || !seq || !seq_new || !n_done || !score || !score_new || !best || !lse || !cand)
        goto done;
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++) memcpy(rep + ((long)b * K + k) * Ts, src + (long)b * Ts, sizeof(int) * Ts);
    if (decode_init(&s, m, rep, N, Ts, max_len)) goto done;
    memset(out, 0, sizeof(int) * (size_t)B * max_len);
    memset(seq, 0, sizeof(int) * (size_t)N * max_len);
    for (int n = 0; n < N; n++) {
        tokens[n] = TOK_BOS;
        score[n] = n % K == 0 ? 0 : -INFINITY;   // one live hypothesis at first: no duplicates
    }
    for (int b = 0; b < B; b++) best[b] = -INFINITY;
    // A learned table without wrap-around cannot go past its rows: stop there.
    int limit = max_len;
    char msg[256];
    while (limit > 1 && pos_check_length(&m->decoder.pos, limit, msg, sizeof msg)) limit--;
    int remaining = B;
    for (int t = 0; t < limit && remaining; t++) {
        Tensor *logits = decode_step(&s, tokens);                     // (N,V)
        for (int n = 0; n < N; n++) {                                  // log-sum-exp per row
            const float *z = logits->data + (long)n * V;
            float mx = z[0];
            for (int v = 1; v < V; v++) mx = z[v] > mx ? z[v] : mx;
            double sum = 0;
            for (int v = 0; v < V; v++) sum += exp((double)z[v] - mx);
            lse[n] = mx + log(sum);
        }
        for (int b = 0; b < B; b++) {
            int base = b * K;
            if (n_done[b] >= K) {                                      // finished: rows idle
                for (int k = 0; k < K; k++) { parent[base + k] = base + k; tokens[base + k] = TOK_PAD; score_new[base + k] = -INFINITY; }
                continue;
            }
            int nc = 0;
            for (int k = 0; k < K; k++) {
                int n = base + k;
                if (score[n] == -INFINITY) continue;
                const float *z = logits->data + (long)n * V;
                for (int v = 0; v < V; v++)   // <pad> and <bos> are never outputs
                    if (v != TOK_PAD && v != TOK_BOS) offer(cand, &nc, 2 * K, (Cand){score[n] + ((double)z[v] - lse[n]), k, v});
            }
            int live = 0;
            for (int i = 0; i < nc && live < K; i++) {
                const Cand *c = &cand[i];
                const int *prev = seq + (long)(base + c->beam) * max_len;
                if (c->token == TOK_EOS || t == limit - 1) {
                    // An ended hypothesis (or one cut at max_len): keep it if it is the best so far.
                    double norm = c->score / length_penalty(t + 1, alpha);
                    if (norm > best[b]) {
                        best[b] = norm;
                        memcpy(out + (long)b * max_len, prev, sizeof(int) * t);
                        out[(long)b * max_len + t] = c->token;
                    }
                    if (c->token == TOK_EOS && ++n_done[b] >= K) break;
                    if (c->token == TOK_EOS) continue;
                }
                int n = base + live++;
                parent[n] = base + c->beam;
                tokens[n] = c->token;
                score_new[n] = c->score;
                memcpy(seq_new + (long)n * max_len, prev, sizeof(int) * t);
                seq_new[(long)n * max_len + t] = c->token;
            }
            for (int k = live; k < K; k++) { parent[base + k] = base + k; tokens[base + k] = TOK_PAD; score_new[base + k] = -INFINITY; }
            if (n_done[b] >= K || live == 0) { n_done[b] = K; remaining--; }
        }
        for (int n = 0; n < N; n++) score[n] = score_new[n];
        int *swap = seq; seq = seq_new; seq_new = swap;
        decode_reorder(&s, parent);
    }
    rc = 0;
done:
    decode_free(&s);
    free(rep); free(tokens); free(parent); free(seq); free(seq_new); free(n_done);
    free(score); free(score_new); free(best); free(lse); free(cand);
    return rc;
}
