// Decoding: the cached incremental decoder equals the full decoder for every positional
// scheme (pre- and post-LN), also on randomized positions (model.pos_random); greedy decoding (beam 1) follows the full model's argmax; a beam
// wide enough to keep every hypothesis finds the exact best sequence.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "decode_reference.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "pos/pos.h"
#include "models/decode.h"
#include "score/evaluate.h"

static Arena arena;

// With g_llama the Llama-style block (rmsnorm, swiglu, no biases; docs/design.md §2.5).
static int g_llama;

// pos_random > 0: positions drawn from [0, pos_random) (evaluation too: eval.positions = sampled).
static void translator_drawn(Model *m, const char *pos, int norm_first, int V, int seed, int pos_random) {
    Config c;
    config_defaults(&c);
    c.model = MODEL_TRANSLATOR;
    snprintf(c.pos, sizeof c.pos, "%s", pos);
    c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.enc_layers = 2; c.dec_layers = 2;
    c.dropout = 0.1f;                // must be switched off while decoding
    c.norm_first = norm_first;
    c.pos_cfg.max_len = pos_random ? pos_random : 8;   // learned: positions wrap past 8
    c.pos_cfg.pos_random = pos_random;
    c.seed = seed;
    if (g_llama) {
        c.norm = NORM_RMSNORM;
        c.activation = ACTIVATION_SWIGLU;
        c.bias = 0;
    }
    model_build(m, &c, V, V, 0);
    // Like a trained model, never predict <pad> or <bos> (the Llama block has no bias to say so).
    if (m->head.bias) m->head.bias->data[TOK_PAD] = m->head.bias->data[TOK_BOS] = -1e4f;
}

static void translator(Model *m, const char *pos, int norm_first, int V, int seed) {
    translator_drawn(m, pos, norm_first, V, seed, 0);
}

// Sources (3,5) with padding.
static const int SRC[15] = {5, 6, 7, 8, 3,   9, 10, 3, 0, 0,   11, 3, 0, 0, 0};

// Feeds tgt (B,T) through the cache in chunks of positions (a chunk of 1 by decode_step, the
// decoder's API; longer ones by decoder_logits with the cache) and returns the largest
// difference from ref, the full forward's logits (B*T,V).
static double cached_vs_full(Model *m, int B, int Ts, const int *tgt, int T, const float *ref, const int *chunks, int n_chunks) {
    int V = m->tgt_vocab, in[3 * 11];
    DecodeState st;
    CHECK(decode_init(&st, m, SRC, B, Ts, T) == 0, "init");
    double worst = 0;
    for (int c = 0, t0 = 0; c < n_chunks; t0 += chunks[c++]) {
        int n = chunks[c];
        for (int b = 0; b < B; b++) memcpy(in + b * n, tgt + b * T + t0, sizeof(int) * (size_t)n);
        StackRun run = { .cache = &st.cache };
        Tensor *z = n == 1 ? decode_step(&st, in) : decoder_logits(m, NULL, SRC, Ts, in, B, n, &run);   // (B*n,V)
        CHECK(st.cache.len == t0 + n, "cache holds %d positions, expected %d", st.cache.len, t0 + n);
        for (int b = 0; b < B; b++)
            for (int i = 0; i < n; i++)
                for (int v = 0; v < V; v++)
                    worst = fmax(worst, fabs(z->data[((long)b * n + i) * V + v] - ref[((long)b * T + t0 + i) * V + v]));
    }
    decode_free(&st);
    return worst;
}

// The cache takes one position per step (decode_step) or several per call (chunks of 4, 1,
// 3, 3): either way the logits are the full forward's.
static void test_incremental_equals_full(void) {
    int B = 3, Ts = 5, T = 11, V = 13;   // T > max_len: the learned table wraps
    int tgt[3 * 11], ones[11], chunks[4] = {4, 1, 3, 3};
    for (int i = 0; i < B * T; i++) tgt[i] = i % T == 0 ? TOK_BOS : 4 + (i * 7) % (V - 4);
    for (int t = 0; t < T; t++) ones[t] = 1;
    for (g_llama = 0; g_llama < 2; g_llama++)
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int nf = 0; nf < 2; nf++) {
            Model m;
            translator(&m, pos_scheme_at(s)->name, nf, V, 3);
            model_set_training(&m, 0);
            tape_set_enabled(0);
            ArenaMark mark = arena_mark(&arena);
            Tensor *full = translator_logits(&m, SRC, B, Ts, tgt, T);        // (B*T,V)
            float *ref = malloc(sizeof(float) * (size_t)B * T * V);
            memcpy(ref, full->data, sizeof(float) * (size_t)B * T * V);
            model_set_training(&m, 1);   // decode_init switches dropout off and back
            double step = cached_vs_full(&m, B, Ts, tgt, T, ref, ones, T);
            CHECK(m.training == 1, "training flag restored");
            double chunked = cached_vs_full(&m, B, Ts, tgt, T, ref, chunks, 4);
            CHECK(step < 2e-5, "%s norm_first=%d llama=%d: incremental differs by %g", pos_scheme_at(s)->name, nf, g_llama, step);
            CHECK(chunked < 2e-5, "%s norm_first=%d llama=%d: chunked decoding differs by %g", pos_scheme_at(s)->name, nf, g_llama,
                  chunked);
            free(ref);
            arena_release(&arena, mark);
            model_free(&m);
        }
    g_llama = 0;
}

// Randomized positions: decoding draws the decoder's positions once, for the whole cache, so
// with a cache of exactly T positions and the same stream it meets the positions a full
// forward over T tokens draws, and must give its logits. (And those positions are drawn:
// the logits differ from those on 0..T-1.)
static void test_incremental_equals_full_on_drawn_positions(void) {
    int B = 3, Ts = 5, T = 11, V = 13;
    int tgt[3 * 11], ones[11], chunks[4] = {4, 1, 3, 3};
    for (int i = 0; i < B * T; i++) tgt[i] = i % T == 0 ? TOK_BOS : 4 + (i * 7) % (V - 4);
    for (int t = 0; t < T; t++) ones[t] = 1;
    for (int s = 0; s < pos_scheme_count(); s++) {
        Model m;
        translator_drawn(&m, pos_scheme_at(s)->name, 1, V, 3, 64);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        ArenaMark mark = arena_mark(&arena);
        model_seed_positions(&m, 5);
        Tensor *full = translator_logits(&m, SRC, B, Ts, tgt, T);        // (B*T,V)
        float *ref = malloc(sizeof(float) * (size_t)B * T * V);
        memcpy(ref, full->data, sizeof(float) * (size_t)B * T * V);
        CHECK(m.decoder.pos.n_sampled == T && m.decoder.pos.sample[T - 1] < 64, "decoder drew %d positions", m.decoder.pos.n_sampled);
        m.cfg.positions = EVAL_POSITIONS_PLAIN;
        model_set_training(&m, 0);
        Tensor *plain = translator_logits(&m, SRC, B, Ts, tgt, T);
        double moved = 0;
        for (long i = 0; i < (long)B * T * V; i++) moved = fmax(moved, fabs(plain->data[i] - ref[i]));
        if (strcmp(pos_scheme_at(s)->name, "none")) CHECK(moved > 1e-3, "%s: drawn and plain positions give the same logits", pos_scheme_at(s)->name);
        m.cfg.positions = EVAL_POSITIONS_SAMPLED;
        model_seed_positions(&m, 5);
        double step = cached_vs_full(&m, B, Ts, tgt, T, ref, ones, T);
        model_seed_positions(&m, 5);
        double chunked = cached_vs_full(&m, B, Ts, tgt, T, ref, chunks, 4);
        CHECK(step < 2e-5, "%s: incremental on drawn positions differs by %g", pos_scheme_at(s)->name, step);
        CHECK(chunked < 2e-5, "%s: chunked decoding on drawn positions differs by %g", pos_scheme_at(s)->name, chunked);
        free(ref);
        arena_release(&arena, mark);
        model_free(&m);
    }
}

static int best_token(const float *row, int V) {   // argmax over tokens other than <pad>, <bos>
    int best = -1;
    for (int v = 0; v < V; v++)
        if (v != TOK_PAD && v != TOK_BOS && (best < 0 || row[v] > row[best])) best = v;
    return best;
}

// Greedy decoding (beam search with one hypothesis, on the cache) takes at every step the
// most likely token of the full model re-run on the whole prefix; given a reference, it stops
// at the first token that leaves it.
static void test_greedy_is_argmax_of_full_model(void) {
    int B = 3, Ts = 5, V = 13, max_len = 12;
    for (int s = 0; s < pos_scheme_count(); s++)   // every scheme of the registry
        for (int seed = 1; seed <= 3; seed++) {
            const char *scheme = pos_scheme_at(s)->name;
            Model m;
            translator(&m, scheme, seed % 2, V, seed);
            model_set_training(&m, 0);
            tape_set_enabled(0);
            int out[3 * 12], cut[3 * 12];
            CHECK(greedy_decode(&m, SRC, NULL, B, Ts, max_len, NULL, 0, NULL, -1, out) == 0, "greedy");
            int steps = 0;
            for (int b = 0; b < B; b++) {
                int prefix[12] = {TOK_BOS}, t = 0, ended = 0;
                for (; t < max_len && !ended; t++) {
                    ArenaMark mark = arena_mark(&arena);
                    Tensor *z = translator_logits(&m, SRC + b * Ts, 1, Ts, prefix, t + 1);   // (t+1,V)
                    int next = best_token(z->data + (long)t * V, V);
                    arena_release(&arena, mark);
                    CHECK(out[b * max_len + t] == next, "%s seed %d row %d step %d: greedy %d, full model %d", scheme,
                          seed, b, t, out[b * max_len + t], next);
                    if (t + 1 < max_len) prefix[t + 1] = next;
                    ended = next == TOK_EOS;
                    steps++;
                }
                for (; t < max_len; t++) CHECK(out[b * max_len + t] == 0, "padding after <eos>");
            }
            CHECK(steps > B, "at least one sentence has more than one token");
            // A reference equal to the output except at step 1: decoding stops right there.
            int ref[3 * 12];
            memcpy(ref, out, sizeof ref);
            for (int b = 0; b < B; b++) ref[b * max_len + 1] = out[b * max_len + 1] == 4 ? 5 : 4;
            CHECK(greedy_decode(&m, SRC, NULL, B, Ts, max_len, ref, max_len, NULL, -1, cut) == 0, "greedy with a reference");
            for (int b = 0; b < B; b++)
                for (int t = 0; t < max_len; t++) {
                    int want = out[b * max_len] == TOK_EOS ? (t == 0 ? TOK_EOS : 0) : t < 2 ? out[b * max_len + t] : 0;
                    CHECK(cut[b * max_len + t] == want, "%s seed %d row %d step %d: %d, expected %d", scheme, seed, b, t,
                          cut[b * max_len + t], want);
                }
            model_free(&m);
        }
}

// A length oracle (eval.length = oracle): with real models of every scheme, no row emits
// <eos> before its stop_at and every row emits it exactly there, nor the end token (here id
// END) before stop_at - 1; before the end, each token is the full model's most likely token
// among those allowed.
static void test_length_oracle_on_every_scheme(void) {
    enum { END = 5 };
    int B = 3, Ts = 5, V = 13, max_len = 12, stop_at[3] = {0, 4, 9}, ends_seen = 0;
    for (int s = 0; s < pos_scheme_count(); s++) {
        const char *scheme = pos_scheme_at(s)->name;
        Model m;
        translator(&m, scheme, s % 2, V, 7);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        int out[3 * 12];
        CHECK(greedy_decode(&m, SRC, NULL, B, Ts, max_len, NULL, 0, stop_at, END, out) == 0, "greedy with a length oracle");
        for (int b = 0; b < B; b++) {
            int prefix[12] = {TOK_BOS};
            for (int t = 0; t < max_len; t++) {
                int got = out[b * max_len + t];
                if (t > stop_at[b]) { CHECK(got == 0, "%s row %d step %d: %d after the end", scheme, b, t, got); continue; }
                if (t == stop_at[b]) { CHECK(got == TOK_EOS, "%s row %d: %d at the reference length, not <eos>", scheme, b, got); continue; }
                ArenaMark mark = arena_mark(&arena);
                Tensor *z = translator_logits(&m, SRC + b * Ts, 1, Ts, prefix, t + 1);
                float *row = z->data + (long)t * V;
                row[TOK_EOS] = -INFINITY;   // what the oracle forbids
                if (t < stop_at[b] - 1) row[END] = -INFINITY;
                int want = best_token(row, V);
                ends_seen += want == END;
                arena_release(&arena, mark);
                CHECK(got == want, "%s row %d step %d: %d, expected %d (never <eos> before %d)", scheme, b, t, got, want, stop_at[b]);
                prefix[t + 1] = got;
            }
        }
        model_free(&m);
    }
    CHECK(ends_seen > 0, "the end token was never chosen where it is allowed: the test shows nothing about it");
}

static void test_wide_beam_is_exact(void) {
    int V = 6, max_len = 3, Ts = 3, src[3] = {4, 5, 3};
    for (int seed = 1; seed <= 4; seed++) {
        Model m;
        translator(&m, "sinusoidal", 1, V, seed);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        // Exhaustive: sequences ending in <eos> (length 1..3) and cut sequences of length 3.
        double best = -INFINITY;
        int best_seq[3] = {0}, best_len = 0, seq[3];
        for (int code = 0; code < 6 + 36 + 216; code++) {
            int len = code < 6 ? 1 : code < 42 ? 2 : 3, c = code < 6 ? code : code < 42 ? code - 6 : code - 42;
            for (int i = len - 1; i >= 0; i--) { seq[i] = c % V; c /= V; }
            int ok = 1;
            for (int i = 0; i < len; i++) ok &= seq[i] != TOK_PAD && seq[i] != TOK_BOS && (i == len - 1 || seq[i] != TOK_EOS);
            if (!ok || (len < 3 && seq[len - 1] != TOK_EOS)) continue;
            double lp = seq_logprob(&arena, &m, src, Ts, seq, len);
            if (lp > best) { best = lp; best_len = len; memcpy(best_seq, seq, sizeof seq); }
        }
        int out[3];
        CHECK(beam_decode(&m, src, 1, Ts, 300, 0.0f, max_len, out) == 0, "beam");
        int same = 1;
        for (int i = 0; i < 3; i++) same &= out[i] == (i < best_len ? best_seq[i] : 0);
        CHECK(same, "seed %d: beam %d %d %d, exhaustive best %d %d %d (len %d, log p %.4f)", seed, out[0], out[1], out[2],
              best_seq[0], best_seq[1], best_seq[2], best_len, best);
        model_free(&m);
    }
}

// decode_reorder moves each row's cached prefix to the rows that continue it, for every scheme
// (decode_reference.h's reorder_gap): parents {1, 0} swap the two rows, {1, 1} copy row 1 to both,
// {0, 1} (greedy decoding's) keep them.
static void test_reorder_follows_parents(void) {
    int V = 13, Ts = 5, src[10], parents[3][2] = {{1, 0}, {1, 1}, {0, 1}};   // {0, 1}: greedy's
    memcpy(src, SRC, sizeof(int) * 5);
    memcpy(src + 5, SRC, sizeof(int) * 5);   // the rows of one sentence share its source
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int k = 0; k < 3; k++) {
            Model m;
            translator(&m, pos_scheme_at(s)->name, 1, V, 2);
            double worst = reorder_gap(&arena, &m, src, SRC, Ts, parents[k]);
            CHECK(worst < 2e-5, "%s parents {%d, %d}: logits after the reorder differ by %g", pos_scheme_at(s)->name,
                  parents[k][0], parents[k][1], worst);
            model_free(&m);
        }
}

// Greedy decoding drops the sentences that have ended (decode_select with fewer rows): the rows
// kept, with their sources, caches and memory, give the same logits bit for bit as in the full
// batch, for every scheme. Three rows of different source lengths decode two tokens; row 1
// leaves, then row 0; rows 0 and 2, then row 2, continue as in the batch that kept all three.
static void test_dropping_rows_keeps_each_rows_logits(void) {
    enum { N = 3, Ts = 5, STEPS = 4 };
    int V = 13, toks[STEPS][N] = {{TOK_BOS, TOK_BOS, TOK_BOS}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
    int keep[2][N] = {{0, 2}, {1}}, kept_n[2] = {2, 1}, rows_of[2][N] = {{0, 2}, {2}};
    for (int s = 0; s < pos_scheme_count(); s++) {
        const char *scheme = pos_scheme_at(s)->name;
        Model m;
        translator(&m, scheme, s % 2, V, 3);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        float full[2][N * 13];   // the full batch's logits at steps 2 and 3
        DecodeState a, b;
        CHECK(decode_init(&a, &m, SRC, N, Ts, STEPS) == 0, "init");
        for (int t = 0; t < STEPS; t++) {
            Tensor *z = decode_step(&a, toks[t]);
            if (t >= 2) memcpy(full[t - 2], z->data, sizeof(float) * N * V);
        }
        decode_free(&a);
        CHECK(decode_init(&b, &m, SRC, N, Ts, STEPS) == 0, "init");
        decode_step(&b, toks[0]);
        decode_step(&b, toks[1]);
        int same = 1;
        for (int d = 0; d < 2; d++) {
            CHECK(decode_select(&b, keep[d], kept_n[d]) == 0 && b.N == kept_n[d], "select");
            int in[N];
            for (int n = 0; n < kept_n[d]; n++) in[n] = toks[2 + d][rows_of[d][n]];
            Tensor *z = decode_step(&b, in);
            for (int n = 0; n < kept_n[d]; n++)
                same &= memcmp(z->data + (long)n * V, full[d] + (long)rows_of[d][n] * V,
                               sizeof(float) * V) == 0;
        }
        CHECK(same, "%s: a kept row's logits differ from the full batch's", scheme);
        decode_free(&b);
        model_free(&m);
    }
}

// evaluate_split decodes a translator with the encoder output of its teacher-forced pass
// (score/evaluate.c) where positions are fixed, and encodes again where they are drawn: either
// way its greedy outputs are those of greedy_decode encoding the batch itself after the same
// teacher-forced pass. Targets set to those outputs (length oracle: every row ends at its
// reference length) must be matched exactly, for every scheme, also on drawn positions.
static void test_evaluation_decodes_as_greedy_decode(void) {
    enum { B = 3, Ts = 5, L = 6 };
    int V = 13, src[B][Ts - 1], tgt[B][L];
    for (int b = 0; b < B; b++) {
        for (int i = 0; i < Ts - 1; i++) src[b][i] = 4 + (b * 5 + i * 3) % (V - 4);
        for (int i = 0; i < L; i++) tgt[b][i] = 4;   // placeholders: the batch's shapes only
    }
    Example ex[B];
    for (int b = 0; b < B; b++) ex[b] = (Example){.src = src[b], .n_src = Ts - 1, .tgt = tgt[b], .n_tgt = L};
    Split split = {ex, B};
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_TRANSLATE_NO_EOS;   // a length oracle: rows end at their reference's length
    int idx[B] = {0, 1, 2};
    for (int drawn = 0; drawn < 2; drawn++)
        for (int s = 0; s < pos_scheme_count(); s++) {
            const char *scheme = pos_scheme_at(s)->name;
            Model m;
            translator_drawn(&m, scheme, s % 2, V, 7, drawn ? 16 : 0);
            model_set_training(&m, 0);
            tape_set_enabled(0);
            Batch bt;
            CHECK(batch_from_split(&split, idx, B, t.batch_kind, 0, &bt) == 0, "batch");
            int max_len = bt.T_tgt + 2, out[B * 16], stop_at[B] = {L, L, L};
            // what evaluate_split did before: the teacher-forced pass, then greedy_decode
            model_seed_positions(&m, MODEL_EVAL_DRAW);
            ArenaMark mark = arena_mark(&arena);
            translator_logits(&m, bt.src, B, bt.T_src, bt.tgt_in, bt.T_tgt);
            arena_release(&arena, mark);
            CHECK(max_len <= 16 && greedy_decode(&m, bt.src, NULL, B, bt.T_src, max_len, NULL, 0, stop_at,
                                                 task_end_token(&t), out) == 0, "greedy");
            batch_free(&bt);
            for (int b = 0; b < B; b++) memcpy(tgt[b], out + b * max_len, sizeof(int) * L);
            EvalResult r;
            char err[256] = "";
            CHECK(evaluate_split(&m, &t, &split, 0, 1, &r, err, sizeof err) == 0, "evaluate_split: %s", err);
            CHECK(r.exact_match == 1, "%s%s: exact match %g of the greedy outputs, expected 1", scheme,
                  drawn ? " (drawn positions)" : "", r.exact_match);
            model_free(&m);
            for (int b = 0; b < B; b++)
                for (int i = 0; i < L; i++) tgt[b][i] = 4;
        }
}

// greedy_replay on the logits of one teacher-forced pass gives greedy_decode's outputs, int for
// int, for every scheme: references that leave the greedy output at step 0, 1 or 2 (or never:
// the output ends with <eos>), with and without a length oracle; and for a language model's
// prompts, from the position of their <bos>. It stands in only where positions are fixed.
static void test_replay_equals_greedy_decode(void) {
    enum { B = 3, Ts = 5, T = 7, V = 13, P = 3 };
    int max_len = T + 2;
    for (int s = 0; s < pos_scheme_count(); s++) {
        const char *scheme = pos_scheme_at(s)->name;
        Model m;
        translator(&m, scheme, s % 2, V, 5);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        CHECK(greedy_replays(&m), "%s: a translator with fixed positions replays", scheme);
        int free_out[B * (T + 2)], ref[B * T], tgt_in[B * T], stop_at[B];
        CHECK(greedy_decode(&m, SRC, NULL, B, Ts, T, NULL, 0, NULL, -1, free_out) == 0, "greedy");
        for (int oracle = 0; oracle < 2; oracle++) {
            // row b follows the free output up to step b, then another token (row 2: <eos> at 2)
            for (int b = 0; b < B; b++)
                for (int t = 0; t < T; t++) {
                    int o = free_out[b * T + t];
                    ref[b * T + t] = t < b ? (o == TOK_EOS ? 4 : o) : t == b ? (b == 2 ? TOK_EOS : o == 4 ? 5 : 4) : TOK_PAD;
                }
            for (int b = 0; b < B; b++) stop_at[b] = b + 1;
            for (int i = 0; i < B * T; i++) tgt_in[i] = i % T == 0 ? TOK_BOS : ref[i - 1];
            int decoded[B * (T + 2)], replayed[B * (T + 2)];
            const int *stop = oracle ? stop_at : NULL;
            CHECK(greedy_decode(&m, SRC, NULL, B, Ts, max_len, ref, T, stop, -1, decoded) == 0, "decode");
            ArenaMark mark = arena_mark(&arena);
            Tensor *z = translator_logits(&m, SRC, B, Ts, tgt_in, T);   // (B*T,V)
            int rc = greedy_replay(&m, z->data, T, 0, B, max_len, ref, T, stop, -1, replayed);
            arena_release(&arena, mark);
            CHECK(rc == 0, "%s oracle %d: replay %d", scheme, oracle, rc);
            CHECK(!memcmp(decoded, replayed, sizeof decoded), "%s oracle %d: replayed outputs differ from decoding",
                  scheme, oracle);
        }
        model_free(&m);
    }
    // a language model continuing prompts <eos> x1 x2 after <bos>, replayed from position P
    for (int s = 0; s < pos_scheme_count(); s++) {
        Config c;
        config_defaults(&c);
        c.model = MODEL_LM;
        snprintf(c.pos, sizeof c.pos, "%s", pos_scheme_at(s)->name);
        c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.dec_layers = 2; c.seed = 9;
        c.pos_cfg.max_len = 16;
        Model m;
        model_build(&m, &c, V, V, 0);
        m.head.bias->data[TOK_PAD] = m.head.bias->data[TOK_BOS] = -1e4f;
        model_set_training(&m, 0);
        tape_set_enabled(0);
        int prompt[B * P], free_out[B * 4], ref[B * 4], in[B * (P + 4)], decoded[B * 6], replayed[B * 6];
        for (int b = 0; b < B; b++) {
            prompt[b * P] = TOK_EOS;
            for (int i = 1; i < P; i++) prompt[b * P + i] = 4 + (b * 3 + i * 5) % (V - 4);
        }
        CHECK(greedy_decode(&m, prompt, NULL, B, P, 4, NULL, 0, NULL, -1, free_out) == 0, "lm greedy");
        for (int b = 0; b < B; b++)
            for (int t = 0; t < 4; t++) {
                int o = free_out[b * 4 + t];
                ref[b * 4 + t] = t < b ? (o == TOK_EOS ? 4 : o) : t == b ? (o == 4 ? 5 : 4) : TOK_PAD;
            }
        for (int b = 0; b < B; b++) {
            memcpy(in + b * (P + 4), prompt + b * P, sizeof(int) * P);
            in[b * (P + 4) + P] = TOK_BOS;
            for (int t = 0; t < 3; t++) in[b * (P + 4) + P + 1 + t] = ref[b * 4 + t];
        }
        CHECK(greedy_decode(&m, prompt, NULL, B, P, 6, ref, 4, NULL, -1, decoded) == 0, "lm decode");
        ArenaMark mark = arena_mark(&arena);
        Tensor *z = lm_logits(&m, in, B, P + 4, NULL);   // (B*(P+4),V)
        int rc = greedy_replay(&m, z->data, P + 4, P, B, 6, ref, 4, NULL, -1, replayed);
        arena_release(&arena, mark);
        CHECK(rc == 0 && !memcmp(decoded, replayed, sizeof decoded), "lm %s: replayed continuations differ (rc %d)",
              pos_scheme_at(s)->name, rc);
        model_free(&m);
    }
    // drawn positions and a RoPE stretched by the length so far: decoding, not a replay
    Model m;
    translator_drawn(&m, "rope", 0, V, 5, 16);
    CHECK(!greedy_replays(&m), "drawn positions are not replayed");
    model_free(&m);
    translator(&m, "rope", 0, V, 5);
    m.decoder.pos.cfg.rope_scaling = ROPE_SCALING_DYNAMIC;
    CHECK(!greedy_replays(&m), "dynamic RoPE is not replayed");
    m.decoder.pos.cfg.rope_scaling = ROPE_SCALING_NONE;
    model_free(&m);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_incremental_equals_full);
    RUN(test_incremental_equals_full_on_drawn_positions);
    RUN(test_reorder_follows_parents);
    RUN(test_dropping_rows_keeps_each_rows_logits);
    RUN(test_greedy_is_argmax_of_full_model);
    RUN(test_length_oracle_on_every_scheme);
    RUN(test_wide_beam_is_exact);
    RUN(test_evaluation_decodes_as_greedy_decode);
    RUN(test_replay_equals_greedy_decode);
    arena_free(&arena);
    return check_summary();
}
