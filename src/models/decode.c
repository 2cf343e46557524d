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

int decode_select(DecodeState *s, const int *from, int N) {
    if (s->m->cfg.model == MODEL_LSTM) {
        if (N != s->N) return -1;   // its cache keeps every row
        lstm_cache_reorder(&s->lstm, from);
        return 0;
    }
    if (N != s->N && s->Ts) {   // each row's source (the memory's padding) follows the row
        int *src = malloc(sizeof(int) * (size_t)N * s->Ts);
        if (!src) return -1;
        for (int n = 0; n < N; n++)
            memcpy(src + (long)n * s->Ts, s->src + (long)from[n] * s->Ts, sizeof(int) * s->Ts);
        free((void *)s->src);
        s->src = src;
    }
    kv_cache_select(&s->cache, from, N);
    s->N = N;
    return 0;
}

void decode_reorder(DecodeState *s, const int *parent) { decode_select(s, parent, s->N); }

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

// The search's state. Sentence b's hypotheses are rows b*K .. b*K+K-1 of score, score_new,
// seq and seq_new (by sentence); the decode batch holds the sentences of `active` in order, K
// rows each (batch row i*K + k of the logits, lse, tokens and parent for active[i]).
typedef struct {
    int K, V, max_len, limit, ref_T, end_token, n_active;
    float alpha;
    const int *ref, *stop_at;
    int *active, *tokens, *parent, *seq, *seq_new, *n_done, *out;
    double *score, *score_new, *best, *lse;
    Cand *cand;
} Search;

// Batch rows row0+from .. row0+K-1 (sentence rows base+from ..) hold no hypothesis: they keep
// their cache row and score -inf.
static void idle_rows(Search *S, int row0, int base, int from) {
    for (int k = from; k < S->K; k++) {
        S->parent[row0 + k] = row0 + k;
        S->tokens[row0 + k] = TOK_PAD;
        S->score_new[base + k] = -INFINITY;
    }
}

// The best 2K continuations of sentence b's live hypotheses (scores score[0..K); logits and
// lse from batch row row0) at step t, into cand; returns how many.
static int gather(Cand *cand, int K, const float *logits, int V, const double *score,
                  const double *lse, int row0, int t, int b, const int *stop_at, int end_token) {
    int nc = 0;
    for (int k = 0; k < K; k++) {
        if (score[k] == -INFINITY) continue;
        const float *z = logits + (long)(row0 + k) * V;
        for (int v = 0; v < V; v++)
            if (allowed(v, t, b, stop_at, end_token))
                offer(cand, &nc, 2 * K, (Cand){score[k] + ((double)z[v] - lse[row0 + k]), k, v});
    }
    return nc;
}

// The steps decoding may take from the cache's length: a learned table without wrap-around
// cannot go past its rows, so it stops there.
static int decodable_steps(Model *m, int cached, int max_len) {
    int limit = max_len;
    char msg[256];
    while (limit > 1 && pos_check_length(&m->decoder.pos, cached + limit, msg, sizeof msg))
        limit--;
    return limit;
}

// Sentence b (batch rows from row0) at step t: its best continuations become its rows' tokens
// and parents, an ended hypothesis its output if the best so far. The sentence is done when
// n_done[b] reaches K (K hypotheses ended, none left, or, with ref, it left its reference).
static void advance(Search *S, const float *logits, int row0, int b, int t) {
    int K = S->K, base = b * K, max_len = S->max_len, live = 0;
    if (S->n_done[b] >= K) { idle_rows(S, row0, base, 0); return; }
    int nc = gather(S->cand, K, logits, S->V, S->score + base, S->lse, row0, t, b, S->stop_at,
                    S->end_token);
    for (int i = 0; i < nc && live < K; i++) {
        const Cand *c = &S->cand[i];
        const int *prev = S->seq + (long)(base + c->beam) * max_len;
        int leaves = S->ref && (t >= S->ref_T || c->token != S->ref[(long)b * S->ref_T + t]);
        if (c->token == TOK_EOS || t == S->limit - 1 || leaves) {
            // An ended hypothesis (or one cut at max_len): keep it if it is the best so far.
            double norm = c->score / length_penalty(t + 1, S->alpha);
            if (norm > S->best[b]) {
                S->best[b] = norm;
                memcpy(S->out + (long)b * max_len, prev, sizeof(int) * t);
                S->out[(long)b * max_len + t] = c->token;
            }
            if (c->token == TOK_EOS && ++S->n_done[b] >= K) break;
            if (c->token == TOK_EOS) continue;
            if (leaves) { S->n_done[b] = K; break; }
        }
        int n = live++;
        S->parent[row0 + n] = row0 + c->beam;
        S->tokens[row0 + n] = c->token;
        S->score_new[base + n] = c->score;
        memcpy(S->seq_new + (long)(base + n) * max_len, prev, sizeof(int) * t);
        S->seq_new[(long)(base + n) * max_len + t] = c->token;
    }
    idle_rows(S, row0, base, live);
    if (live == 0) S->n_done[b] = K;
}

// After a step: each row continues its parent, and the sentences that are done leave the batch
// (the LSTM's cache keeps its rows: there they stay, idle). Returns how many sentences go on,
// or -1 if out of memory.
static int next_batch(Search *S, DecodeState *s) {
    int K = S->K, kept = 0, going = 0;
    for (int i = 0; i < S->n_active; i++) going += S->n_done[S->active[i]] < K;
    if (going == S->n_active || going == 0 || s->m->cfg.model == MODEL_LSTM) {
        decode_reorder(s, S->parent);
        return going;
    }
    // the kept rows' parents and tokens, moved down in place (each from a row at or after it)
    for (int i = 0; i < S->n_active; i++) {
        if (S->n_done[S->active[i]] >= K) continue;
        for (int k = 0; k < K; k++) {
            S->parent[kept * K + k] = S->parent[i * K + k];
            S->tokens[kept * K + k] = S->tokens[i * K + k];
        }
        S->active[kept++] = S->active[i];
    }
    S->n_active = kept;
    return decode_select(s, S->parent, kept * K) ? -1 : kept;
}

// One step of every sentence in the batch: -1 if out of memory, else how many go on.
static int search_step(Search *S, DecodeState *s, int t) {
    Tensor *logits = decode_step(s, S->tokens);                       // (s->N,V)
    for (int n = 0; n < s->N; n++) S->lse[n] = log_sum_exp(logits->data + (long)n * S->V, S->V);
    for (int i = 0; i < S->n_active; i++) advance(S, logits->data, i * S->K, S->active[i], t);
    for (int n = 0; n < S->n_active * S->K; n++) {
        int row = S->active[n / S->K] * S->K + n % S->K;
        S->score[row] = S->score_new[row];
    }
    int *swap = S->seq; S->seq = S->seq_new; S->seq_new = swap;
    return next_batch(S, s);
}

// S's arrays for B sentences of K hypotheses (S->max_len set): scores 0 for each sentence's
// first hypothesis and -inf for the others (one live hypothesis at first: no duplicates),
// every sentence active, no best yet. 0, or -1 when out of memory (search_free frees).
static int search_alloc(Search *S, int B, int K) {
    int N = B * K;
    S->active = malloc(sizeof(int) * (size_t)B); S->tokens = malloc(sizeof(int) * (size_t)N);
    S->parent = malloc(sizeof(int) * (size_t)N); S->n_done = calloc((size_t)B, sizeof(int));
    S->seq = calloc((size_t)N * S->max_len, sizeof(int));
    S->seq_new = malloc(sizeof(int) * (size_t)N * S->max_len);
    S->score = malloc(sizeof(double) * (size_t)N);
    S->score_new = malloc(sizeof(double) * (size_t)N);
    S->best = malloc(sizeof(double) * (size_t)B); S->lse = malloc(sizeof(double) * (size_t)N);
    S->cand = malloc(sizeof(Cand) * (size_t)2 * K);
    if (!S->active || !S->tokens || !S->parent || !S->n_done || !S->seq || !S->seq_new ||
        !S->score || !S->score_new || !S->best || !S->lse || !S->cand)
        return -1;
    for (int n = 0; n < N; n++) S->score[n] = n % K == 0 ? 0 : -INFINITY;
    for (int b = 0; b < B; b++) S->best[b] = -INFINITY, S->active[b] = b;
    return 0;
}
static void search_free(Search *S) {
    free(S->active); free(S->tokens); free(S->parent); free(S->n_done); free(S->seq);
    free(S->seq_new); free(S->score); free(S->score_new); free(S->best); free(S->lse);
    free(S->cand);
}

// Beam search; with ref (beam 1 only) a sentence also stops when it leaves its reference.
// memory: the encoder's output for src (K = 1), or NULL.
static int search(Model *m, const int *src, Tensor *memory, int B, int Ts, int K, float alpha,
                  int max_len, const int *ref, int ref_T, const int *stop_at, int end_token,
                  int *out) {
    int N = B * K, rc = -1;
    Search S = { .K = K, .V = m->tgt_vocab, .max_len = max_len, .ref_T = ref_T,
                 .end_token = end_token, .n_active = B, .alpha = alpha, .ref = ref,
                 .stop_at = stop_at, .out = out };
    int *rep = calloc((size_t)N * Ts + 1, sizeof(int));
    DecodeState s;
    memset(&s, 0, sizeof s);
    if (search_alloc(&S, B, K) || !rep) goto done;
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
            memcpy(rep + ((long)b * K + k) * Ts, src + (long)b * Ts, sizeof(int) * Ts);
    if (init_encoded(&s, m, rep, memory, N, Ts, max_len)) goto done;
    memset(out, 0, sizeof(int) * (size_t)B * max_len);
    for (int n = 0; n < N; n++) S.tokens[n] = TOK_BOS;
    S.limit = decodable_steps(m, s.cache.len, max_len);
    int going = B;
    for (int t = 0; t < S.limit && going > 0; t++) going = search_step(&S, &s, t);
    rc = going < 0 ? -1 : 0;
done:
    decode_free(&s);
    free(rep);
    search_free(&S);
    return rc;
}

int greedy_replays(const Model *m) {
    int lm = m->cfg.model == MODEL_LM;
    if (!lm && m->cfg.model != MODEL_TRANSLATOR) return 0;   // the LSTM: its own steps
    // drawn positions are drawn anew by each pass; dynamic RoPE stretches by the length so far
    if (m->decoder.pos.draw_from || (!lm && m->encoder.pos.draw_from)) return 0;
    return m->decoder.pos.cfg.rope_scaling != ROPE_SCALING_DYNAMIC;
}

int greedy_replay(Model *m, const float *logits, int T, int first, int B, int max_len,
                  const int *ref, int ref_T, const int *stop_at, int end_token, int *out) {
    int V = m->tgt_vocab, rc = -1, going = B;
    Search S = { .K = 1, .V = V, .max_len = max_len, .ref_T = ref_T, .end_token = end_token,
                 .n_active = B, .ref = ref, .stop_at = stop_at, .out = out };
    float *step = malloc(sizeof(float) * (size_t)B * V);
    if (search_alloc(&S, B, 1) || !step) goto done;
    memset(out, 0, sizeof(int) * (size_t)B * max_len);
    S.limit = decodable_steps(m, first, max_len);   // a cache holding `first` positions
    rc = 0;
    for (int t = 0; t < S.limit && going > 0; t++) {
        if (first + t >= T) { rc = 1; break; }   // a sentence goes on past the logits
        for (int i = 0; i < S.n_active; i++) {
            float *z = step + (long)i * V;
            memcpy(z, logits + ((long)S.active[i] * T + first + t) * V, sizeof(float) * (size_t)V);
            S.lse[i] = log_sum_exp(z, V);
        }
        for (int i = 0; i < S.n_active; i++) advance(&S, step, i, S.active[i], t);
        for (int i = 0; i < S.n_active; i++) S.score[S.active[i]] = S.score_new[S.active[i]];
        int *swap = S.seq; S.seq = S.seq_new; S.seq_new = swap;
        going = 0;   // the sentences that are done leave, as next_batch drops them
        for (int i = 0; i < S.n_active; i++)
            if (S.n_done[S.active[i]] < 1) S.active[going++] = S.active[i];
        S.n_active = going;
    }
done:
    search_free(&S);
    free(step);
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
