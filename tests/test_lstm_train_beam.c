// The LSTM translator in training mode and beam search on both translators:
//  - in training, dropout is where torch.nn.LSTM and docs/design.md §2.8 put it (the
//    embeddings, between stacked layers, the attentional state; not the last layer's output,
//    not the state handed to the decoder, not the recurrence): the model's logits equal
//    tests/lstm_reference.h's plain-loop forward drawing its masks from a copy of the model's
//    dropout stream, and the model draws exactly as many seeds;
//  - beam search (models/decode.c) with a beam wider than every hypothesis finds what an
//    exhaustive search over all outputs finds (3 output tokens, at most 4 steps, each output
//    scored by the full model's log-probability over the GNMT length penalty), for the
//    Transformer translator and the LSTM translator, at alpha 0, 0.6 and 2.5; and the LSTM's
//    cached state follows beam search's parents (both h and c of every layer).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "decode_reference.h"
#include "config_words.h"
#include "lstm_reference.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "models/decode.h"

static Arena arena;

// Every bias a random value in [-0.3, 0.3) (they start at 0, where a bias mistake hides).
static void randomise_biases(Model *m, uint64_t seed) {
    Rng r = rng_stream(seed, 77);
    for (int i = 0; i < m->ps.n; i++)
        if (strstr(m->ps.list[i]->name, "bias"))
            for (long e = 0; e < m->ps.list[i]->t.size; e++)
                m->ps.list[i]->t.data[e] = 0.6f * rng_uniform(&r) - 0.3f;
}

static void lstm_model(Model *m, int bidirectional, int layers, float dropout, int V, int seed) {
    Config c;
    config_defaults(&c);
    config_word(&c, "model.model", "lstm");
    config_word(&c, "model.pos", "none");
    c.d_model = 6;
    c.enc_layers = c.dec_layers = layers;
    c.bidirectional = bidirectional;
    c.dropout = dropout;
    c.seed = seed;
    model_build(m, &c, V, V, 0);
    randomise_biases(m, (uint64_t)seed);
}

// Training mode, dropout 0.5: the model's logits and its dropout stream against the
// reference's; evaluation mode (dropout off) against the reference without dropout.
static void test_lstm_dropout_where_torch_puts_it(void) {
    enum { B = 2, Ts = 5, Tt = 4, V = 11 };
    static const int src[B * Ts] = {5, 6, 7, 8, 3, 9, 10, 3, 0, 0};
    static const int tgt[B * Tt] = {2, 4, 5, 6, 2, 7, 8, 3};
    static const struct { int bidirectional, layers; } shapes[] = {{1, 2}, {0, 2}, {1, 1}, {1, 3}, {0, 3}};
    float ref[B * Tt * V];
    for (int s = 0; s < 5; s++) {
        Model m;
        lstm_model(&m, shapes[s].bidirectional, shapes[s].layers, 0.5f, V, 3 + s);
        tape_set_enabled(0);
        model_set_training(&m, 1);
        ArenaMark mark = arena_mark(&arena);
        Rng copy = m.dropout_rng;
        Tensor *z = translator_logits(&m, src, B, Ts, tgt, Tt);           // (B*Tt,V)
        lstm_reference(&m, src, B, Ts, tgt, Tt, 0.5f, &copy, ref, NULL);
        double worst = 0;
        for (int i = 0; i < B * Tt * V; i++) worst = fmax(worst, fabs(z->data[i] - ref[i]));
        CHECK(worst < 2e-4, "bidirectional %d, %d layers, training: logits differ from the reference by %g",
              shapes[s].bidirectional, shapes[s].layers, worst);
        CHECK(copy.state == m.dropout_rng.state,
              "bidirectional %d, %d layers: the model drew another number of dropout seeds than the "
              "reference's %d", shapes[s].bidirectional, shapes[s].layers, 3 + 2 * (shapes[s].layers - 1));
        // Dropout did something: the evaluation logits are far from these.
        model_set_training(&m, 0);
        Tensor *e = translator_logits(&m, src, B, Ts, tgt, Tt);
        double moved = 0, worst_eval = 0;
        lstm_reference(&m, src, B, Ts, tgt, Tt, 0, NULL, ref, NULL);
        for (int i = 0; i < B * Tt * V; i++) {
            moved = fmax(moved, fabs(e->data[i] - z->data[i]));
            worst_eval = fmax(worst_eval, fabs(e->data[i] - ref[i]));
        }
        CHECK(moved > 0.05, "dropout 0.5 moved the logits by only %g", moved);
        CHECK(worst_eval < 2e-4, "evaluation: logits differ from the reference by %g", worst_eval);
        arena_release(&arena, mark);
        model_free(&m);
    }
}

// ---------------------------------------------------------------- beam = exhaustive search

static void translator_model(Model *m, int V, int seed) {
    Config c;
    config_defaults(&c);
    c.model = MODEL_TRANSLATOR;
    config_word(&c, "model.pos", seed % 2 ? "sinusoidal" : "rope");
    c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.enc_layers = 2; c.dec_layers = 2;
    c.seed = seed;
    model_build(m, &c, V, V, 0);
    randomise_biases(m, (uint64_t)seed);
}

// V = 6: <pad> <unk> <bos> <eos> and two words; a hypothesis takes <unk>, <eos> or a word
// (never <pad> or <bos>), so there are 1 + 3 + 9 + 27 outputs ending in <eos> within 4 steps
// and 81 cut at the fourth. Each scored as beam search documents: log p / ((5 + len) / 6)^alpha,
// len counting <eos> (a cut output: 4).
static void test_beam_is_exhaustive_search(void) {
    enum { V = 6, MAX = 4, Ts = 3 };
    static const int srcs[2][Ts] = {{4, 5, 3}, {5, 3, 0}};
    static const float alphas[3] = {0.0f, 0.6f, 2.5f};
    int cut_wins = 0, eos_wins = 0, alpha_matters = 0;
    for (int kind = 0; kind < 2; kind++)
        for (int seed = 1; seed <= 3; seed++) {
            Model m;
            if (kind) lstm_model(&m, seed != 2, 2, 0.1f, V, seed);
            else translator_model(&m, V, seed);
            // sharper distributions than a fresh model's, so that outputs differ clearly
            Tensor *w = kind ? m.lstm.out.weight : m.head.weight;
            for (long e = 0; e < w->size; e++) w->data[e] *= 4;
            model_set_training(&m, 0);
            tape_set_enabled(0);
            for (int s = 0; s < 2; s++) {
                int first[MAX];
                for (int a = 0; a < 3; a++) {
                    double best = -INFINITY;
                    int best_seq[MAX] = {0}, best_len = 0, seq[MAX];
                    for (int len = 1; len <= MAX; len++) {
                        int count = 1;
                        for (int i = 0; i < len; i++) count *= V;
                        for (int code = 0; code < count; code++) {
                            int ok = 1;
                            for (int i = len - 1, c = code; i >= 0; i--, c /= V) seq[i] = c % V;
                            for (int i = 0; i < len; i++)
                                ok &= seq[i] != TOK_PAD && seq[i] != TOK_BOS &&
                                      (seq[i] != TOK_EOS || i == len - 1);
                            if (!ok || (len < MAX && seq[len - 1] != TOK_EOS)) continue;
                            double score = seq_logprob(&arena, &m, srcs[s], Ts, seq, len) /
                                           pow((5.0 + len) / 6.0, alphas[a]);
                            if (score > best) {
                                best = score;
                                best_len = len;
                                memcpy(best_seq, seq, sizeof seq);
                            }
                        }
                    }
                    int out[MAX];
                    CHECK(beam_decode(&m, srcs[s], 1, Ts, 100, alphas[a], MAX, out) == 0, "beam");
                    int same = 1;
                    for (int i = 0; i < MAX; i++) same &= out[i] == (i < best_len ? best_seq[i] : 0);
                    CHECK(same, "%s seed %d source %d alpha %g: beam %d %d %d %d, exhaustive %d %d %d %d (score %.5f)",
                          kind ? "lstm" : "translator", seed, s, alphas[a], out[0], out[1], out[2], out[3],
                          best_seq[0], best_seq[1], best_seq[2], best_seq[3], best);
                    if (best_seq[best_len - 1] == TOK_EOS) eos_wins++; else cut_wins++;
                    if (a == 0) memcpy(first, best_seq, sizeof first);
                    else alpha_matters += memcmp(first, best_seq, sizeof first) != 0;
                }
            }
            model_free(&m);
        }
    printf("# exhaustive winners: %d end in <eos>, %d cut at 4 tokens; %d differ from alpha 0's\n",
           eos_wins, cut_wins, alpha_matters);
    CHECK(eos_wins > 0 && cut_wins > 0 && alpha_matters > 0,
          "the cases do not tell apart <eos>-ended and cut outputs, or alpha: %d, %d, %d", eos_wins, cut_wins,
          alpha_matters);
}

// decode_reorder on the LSTM's cache (decode_reference.h's reorder_gap): parents {1, 0} swap
// the two rows, {1, 1} copy row 1 to both.
static void test_lstm_reorder_follows_parents(void) {
    enum { V = 8, Ts = 4 };
    static const int src[2 * Ts] = {5, 6, 7, 3, 5, 6, 7, 3};   // the rows of one sentence
    static const int parents[2][2] = {{1, 0}, {1, 1}};
    for (int k = 0; k < 2; k++) {
        Model m;
        lstm_model(&m, 1, 2, 0.1f, V, 9);
        double worst = reorder_gap(&arena, &m, src, src, Ts, parents[k]);
        CHECK(worst < 2e-5, "parents {%d, %d}: logits after the reorder differ by %g", parents[k][0], parents[k][1], worst);
        model_free(&m);
    }
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_lstm_dropout_where_torch_puts_it);
    RUN(test_beam_is_exhaustive_search);
    RUN(test_lstm_reorder_follows_parents);
    arena_free(&arena);
    return check_summary();
}
