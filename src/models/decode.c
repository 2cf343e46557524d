// Incremental decoding and beam search, see decode.h.
#include "models/decode.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/tape.h"
#include "data/vocab.h"

// decode_init with the encoder's output for src already computed (memory, or NULL to compute
// it here).
static int init_encoded(DecodeState *s, Model *m, const int *src, Tensor *memory, int N, int Ts,
                        int max_len) {
    memset(s, 0, sizeof *s);
    s->m = m;
    s->N = N;
    int lm = m->cfg.model == MODEL_LM;
    s->Ts = lm ? 0 : Ts;
    s->was_training = m->training;
    s->was_recording = tape_enabled();
    model_set_training(m, 0);
    tape_set_enabled(0);
    if (m->cfg.model == MODEL_LSTM) {   // the encoder once, then the decoder's state per step
        s->start = arena_mark(tensor_arena());
        s->src = malloc(1);
        if (!s->src || lstm_cache_init(&s->lstm, &m->lstm, lstm_encode(&m->lstm, src, N, Ts))) {
            decode_free(s);
            return -1;
        }
        s->mark = arena_mark(tensor_arena());
        return 0;
    }
    int *src_copy = malloc(sizeof(int) * ((size_t)N * s->Ts + 1));
    if (!src_copy || kv_cache_init(&s->cache, &m->decoder, N, lm ? Ts + max_len : max_len)) {
        free(src_copy);
        decode_free(s);
        return -1;
    }
    if (s->Ts) memcpy(src_copy, src, sizeof(int) * (size_t)N * s->Ts);
    s->src = src_copy;
    s->start = arena_mark(tensor_arena());
    if (!lm)   // the language model has no encoder
        // memory (N,Ts,d)
        kv_cache_set_memory(&s->cache, &m->decoder,
                            memory ? memory : model_encode(m, src, N, Ts, NULL));
    s->mark = arena_mark(tensor_arena());
    if (lm && Ts > 0) decode_feed(s, src, Ts);   // its prompt: positions 0 .. Ts-1 in the cache
    return 0;
}

int decode_init(DecodeState *s, Model *m, const int *src, int N, int Ts, int max_len) {
    return init_encoded(s, m, src, NULL, N, Ts, max_len);
}

void decode_free(DecodeState *s) {
    if (s->src) arena_release(tensor_arena(), s->start);
    kv_cache_free(&s->cache);
    lstm_cache_free(&s->lstm);
    free((void *)s->src);
    if (s->m) {
        model_set_training(s->m, s->was_training);
        tape_set_enabled(s->was_recording);
    }
    memset(s, 0, sizeof *s);
}

Tensor *decode_feed(DecodeState *s, const int *tokens, int T) {
    arena_release(tensor_arena(), s->mark);
    if (s->m->cfg.model == MODEL_LSTM)
        return lstm_cache_step(&s->lstm, &s->m->lstm, tokens, T, NULL);
    StackRun run = { .cache = &s->cache };
    // (N*T,V)
    if (s->m->cfg.model == MODEL_LM) return lm_logits(s->m, tokens, s->N, T, &run);
    return decoder_logits(s->m, NULL, s->src, s->Ts, tokens, s->N, T, &run);
}

Tensor *decode_step(DecodeState *s, const int *tokens) { return decode_feed(s, tokens, 1); }

void decode_reorder(DecodeState *s, const int *parent) {
    if (s->m->cfg.model == MODEL_LSTM) lstm_cache_reorder(&s->lstm, parent);
    else kv_cache_reorder(&s->cache, parent);
}

double log_sum_exp(const float *z, int V) {
    float mx = kernel_max(z, V);
    double sum = 0;
    for (int v = 0; v < V; v++) sum += exp((double)z[v] - mx);
    return mx + log(sum);
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

// May row b's hypotheses take token v at step t? <pad> and <bos> never; with a length oracle
// (stop_at), <eos> exactly at step stop_at[b] and nothing else there, and end_token (the
// sentence's last token, or -1) not before step stop_at[b] - 1.
static int allowed(int v, int t, int b, const int *stop_at, int end_token) {
    if (v == TOK_PAD || v == TOK_BOS) return 0;
    if (!stop_at) return 1;
    if ((v == TOK_EOS) != (t >= stop_at[b])) return 0;
    return v != end_token || t >= stop_at[b] - 1;
}

// Rows base+from .. base+K-1 hold no hypothesis: they keep their cache row and score -inf.
static void idle_rows(int *parent, int *tokens, double *score_new, int base, int from, int K) {
    for (int k = from; k < K; k++) {
        parent[base + k] = base + k;
        tokens[base + k] = TOK_PAD;
        score_new[base + k] = -INFINITY;
    }
}

// The best 2K continuations of sentence b's live hypotheses (rows base..base+K-1) at step t,
// into cand; returns how many.
static int gather(Cand *cand, int K, const float *logits, int V, const double *score,
                  const double *lse, int base, int t, int b, const int *stop_at, int end_token) {
    int nc = 0;
    for (int k = 0; k < K; k++) {
        int n = base + k;
        if (score[n] == -INFINITY) continue;
        const float *z = logits + (long)n * V;
        for (int v = 0; v < V; v++)
            if (allowed(v, t, b, stop_at, end_token))
                offer(cand, &nc, 2 * K, (Cand){score[n] + ((double)z[v] - lse[n]), k, v});
    }
    return nc;
}

// The steps decoding may take from the cache's length: a learned table without wrap-around
// cannot go past its rows, so it stops there.
static int decodable_steps(Model *m, const DecodeState *s, int max_len) {
    int limit = max_len;
    char msg[256];
    while (limit > 1 && pos_check_length(&m->decoder.pos, s->cache.len + limit, msg, sizeof msg))
        limit--;
    return limit;
}

// Beam search; with ref (beam 1 only) a sentence also stops when it leaves its reference.
// memory: the encoder's output for src (K = 1), or NULL.
static int search(Model *m, const int *src, Tensor *memory, int B, int Ts, int K, float alpha,
                  int max_len, const int *ref, int ref_T, const int *stop_at, int end_token,
                  int *out) {
    int N = B * K, V = m->tgt_vocab, rc = -1;
    int *rep = calloc((size_t)N * Ts + 1, sizeof(int)), *tokens = malloc(sizeof(int) * (size_t)N);
    int *parent = malloc(sizeof(int) * (size_t)N), *seq = malloc(sizeof(int) * (size_t)N * max_len);
    int *seq_new = malloc(sizeof(int) * (size_t)N * max_len),
        *n_done = calloc((size_t)B, sizeof(int));
    double *score = malloc(sizeof(double) * (size_t)N),
           *score_new = malloc(sizeof(double) * (size_t)N);
    double *best = malloc(sizeof(double) * (size_t)B), *lse = malloc(sizeof(double) * (size_t)N);
    Cand *cand = malloc(sizeof(Cand) * (size_t)2 * K);
    DecodeState s;
    memset(&s, 0, sizeof s);
    if (!rep || !tokens || !parent || !seq || !seq_new || !n_done || !score || !score_new ||
        !best || !lse || !cand)
        goto done;
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
            memcpy(rep + ((long)b * K + k) * Ts, src + (long)b * Ts, sizeof(int) * Ts);
    if (init_encoded(&s, m, rep, memory, N, Ts, max_len)) goto done;
    memset(out, 0, sizeof(int) * (size_t)B * max_len);
    memset(seq, 0, sizeof(int) * (size_t)N * max_len);
    for (int n = 0; n < N; n++) {
        tokens[n] = TOK_BOS;
        score[n] = n % K == 0 ? 0 : -INFINITY;   // one live hypothesis at first: no duplicates
    }
    for (int b = 0; b < B; b++) best[b] = -INFINITY;
    int limit = decodable_steps(m, &s, max_len);
    int remaining = B;
    for (int t = 0; t < limit && remaining; t++) {
        Tensor *logits = decode_step(&s, tokens);                     // (N,V)
        for (int n = 0; n < N; n++) lse[n] = log_sum_exp(logits->data + (long)n * V, V);
        for (int b = 0; b < B; b++) {
            int base = b * K;
            if (n_done[b] >= K) {                                      // finished: rows idle
                idle_rows(parent, tokens, score_new, base, 0, K);
                continue;
            }
            int nc = gather(cand, K, logits->data, V, score, lse, base, t, b, stop_at, end_token);
            int live = 0;
            for (int i = 0; i < nc && live < K; i++) {
                const Cand *c = &cand[i];
                const int *prev = seq + (long)(base + c->beam) * max_len;
                int leaves = ref && (t >= ref_T || c->token != ref[(long)b * ref_T + t]);
                if (c->token == TOK_EOS || t == limit - 1 || leaves) {
                    // An ended hypothesis (or one cut at max_len): keep it if it is the
                    // best so far.
                    double norm = c->score / length_penalty(t + 1, alpha);
                    if (norm > best[b]) {
                        best[b] = norm;
                        memcpy(out + (long)b * max_len, prev, sizeof(int) * t);
                        out[(long)b * max_len + t] = c->token;
                    }
                    if (c->token == TOK_EOS && ++n_done[b] >= K) break;
                    if (c->token == TOK_EOS) continue;
                    if (leaves) { n_done[b] = K; break; }
                }
                int n = base + live++;
                parent[n] = base + c->beam;
                tokens[n] = c->token;
                score_new[n] = c->score;
                memcpy(seq_new + (long)n * max_len, prev, sizeof(int) * t);
                seq_new[(long)n * max_len + t] = c->token;
            }
            idle_rows(parent, tokens, score_new, base, live, K);
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

int beam_decode(Model *m, const int *src, int B, int Ts, int beam, float alpha, int max_len,
                int *out) {
    return search(m, src, NULL, B, Ts, beam, alpha, max_len, NULL, 0, NULL, -1, out);
}

int greedy_decode(Model *m, const int *src, Tensor *memory, int B, int Ts, int max_len,
                  const int *ref, int ref_T, const int *stop_at, int end_token, int *out) {
    return search(m, src, memory, B, Ts, 1, 0.0f, max_len, ref, ref_T, stop_at, end_token, out);
}
