// The LSTM translator (model = lstm, src/models/lstm.c): its tensor names and shapes (those of
// the equivalent torch.nn.Module), gradients of the whole model against finite differences,
// source padding that changes nothing, and decoding with a cached state equal to the full
// teacher-forced pass.
#include <math.h>
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "grad_check.h"
#include "data/vocab.h"
#include "infer/attention.h"
#include "models/decode.h"
#include "models/loss.h"
#include "score/evaluate.h"

static Arena arena;

// variant: 0 bidirectional, 1 one direction, 2 tied output, 3 additive attention
static void variant_config(Config *c, int variant) {
    config_defaults(c);
    config_word(c, "model.model", "lstm");
    config_word(c, "model.pos", "none");
    if (variant == 3) config_word(c, "model.attention", "additive");
    c->d_model = 6;
    c->enc_layers = c->dec_layers = 2;
    c->bidirectional = variant != 1;
    c->tie_embeddings = variant == 2;
    c->dropout = 0.1f;
    c->seed = 5;
}
static const char *VARIANT[] = {"bidirectional", "one direction", "tied", "additive"};

static void lstm_config(Config *c, int bidirectional, int tied, int layers) {
    config_defaults(c);
    config_word(c, "model.model", "lstm");
    config_word(c, "model.pos", "none");
    c->d_model = 6;
    c->enc_layers = c->dec_layers = layers;
    c->bidirectional = bidirectional;
    c->tie_embeddings = tied;
    c->dropout = 0.1f;   // must be off while decoding and in the gradient check
    c->seed = 5;
}

static void test_lstm_tensor_names(void) {
    Config c;
    lstm_config(&c, 1, 0, 2);
    Model m;
    model_declare(&m, &c, 11, 13, 0);
    // d = 6, 4d = 24; layer 1 of the bidirectional encoder reads both directions (2d = 12).
    static const struct { const char *name; int rows, cols; } want[] = {
        {"encoder.embedding.weight", 11, 6},
        {"encoder.lstm.weight_ih_l0", 24, 6}, {"encoder.lstm.weight_hh_l0", 24, 6},
        {"encoder.lstm.bias_ih_l0", 24, 0}, {"encoder.lstm.bias_hh_l0", 24, 0},
        {"encoder.lstm.weight_ih_l0_reverse", 24, 6}, {"encoder.lstm.weight_hh_l0_reverse", 24, 6},
        {"encoder.lstm.bias_ih_l0_reverse", 24, 0}, {"encoder.lstm.bias_hh_l0_reverse", 24, 0},
        {"encoder.lstm.weight_ih_l1", 24, 12}, {"encoder.lstm.weight_hh_l1", 24, 6},
        {"encoder.lstm.bias_ih_l1", 24, 0}, {"encoder.lstm.bias_hh_l1", 24, 0},
        {"encoder.lstm.weight_ih_l1_reverse", 24, 12}, {"encoder.lstm.weight_hh_l1_reverse", 24, 6},
        {"encoder.lstm.bias_ih_l1_reverse", 24, 0}, {"encoder.lstm.bias_hh_l1_reverse", 24, 0},
        {"decoder.embedding.weight", 13, 6},
        {"decoder.lstm.weight_ih_l0", 24, 6}, {"decoder.lstm.weight_hh_l0", 24, 6},
        {"decoder.lstm.bias_ih_l0", 24, 0}, {"decoder.lstm.bias_hh_l0", 24, 0},
        {"decoder.lstm.weight_ih_l1", 24, 6}, {"decoder.lstm.weight_hh_l1", 24, 6},
        {"decoder.lstm.bias_ih_l1", 24, 0}, {"decoder.lstm.bias_hh_l1", 24, 0},
        {"decoder.attn_combine.weight", 6, 12}, {"decoder.attn_combine.bias", 6, 0},
        {"decoder.out.weight", 13, 6}, {"decoder.out.bias", 13, 0},
    };
    int n = (int)(sizeof want / sizeof want[0]);
    CHECK(m.ps.n == n, "%d tensors, want %d", m.ps.n, n);
    for (int i = 0; i < n && i < m.ps.n; i++) {
        Tensor *t = &m.ps.list[i]->t;
        CHECK(!strcmp(m.ps.list[i]->name, want[i].name), "tensor %d is %s, want %s", i,
              m.ps.list[i]->name, want[i].name);
        CHECK(t->shape[0] == want[i].rows && (want[i].cols ? t->ndim == 2 && t->shape[1] == want[i].cols
                                                            : t->ndim == 1),
              "%s has the wrong shape", want[i].name);
    }
    model_free(&m);
    // Tied, one direction, no biases: no decoder.out.weight, no bias anywhere.
    lstm_config(&c, 0, 1, 1);
    c.bias = 0;
    model_declare(&m, &c, 11, 13, 0);
    const char *tied[] = {"encoder.embedding.weight", "encoder.lstm.weight_ih_l0",
                          "encoder.lstm.weight_hh_l0", "decoder.embedding.weight",
                          "decoder.lstm.weight_ih_l0", "decoder.lstm.weight_hh_l0",
                          "decoder.attn_combine.weight"};
    CHECK(m.ps.n == 7, "%d tensors, want 7", m.ps.n);
    for (int i = 0; i < 7 && i < m.ps.n; i++)
        CHECK(!strcmp(m.ps.list[i]->name, tied[i]), "tensor %d is %s, want %s", i,
              m.ps.list[i]->name, tied[i]);
    CHECK(m.lstm.out.weight == m.lstm.dec_embed, "the output layer does not read the embedding");
    model_free(&m);
    // Additive attention: decoder.attn.{query,key,v} between the decoder's LSTM and attn_combine.
    variant_config(&c, 3);
    model_declare(&m, &c, 11, 13, 0);
    Param *q = params_find(&m.ps, "decoder.attn.query.weight");
    Param *kb = params_find(&m.ps, "decoder.attn.key.bias"), *v = params_find(&m.ps, "decoder.attn.v.weight");
    CHECK(q && kb && v && !params_find(&m.ps, "decoder.attn.query.bias"), "additive attention names");
    CHECK(v && v->t.shape[0] == 1 && v->t.shape[1] == 6, "decoder.attn.v.weight is not [1, 6]");
    CHECK(m.ps.n == 30 + 4 && !strcmp(m.ps.list[26]->name, "decoder.attn.query.weight"), "%d tensors", m.ps.n);
    model_free(&m);
}

// Sources (3,5) with padding at the end; targets (3,7): <bos> then tokens.
enum { B = 3, TS = 5, TT = 7, V = 13 };
static const int SRC[B * TS] = {5, 6, 7, 8, 3,   9, 10, 3, 0, 0,   11, 3, 0, 0, 0};
static int TGT[B * TT], TGT_OUT[B * TT];

static void make_targets(void) {
    for (int i = 0; i < B * TT; i++) {
        TGT[i] = i % TT == 0 ? TOK_BOS : 4 + (i * 5) % (V - 4);
        TGT_OUT[i] = i % TT == TT - 1 ? TOK_EOS : 4 + ((i + 1) * 5) % (V - 4);
    }
    TGT_OUT[TT - 1] = TOK_PAD;   // one ignored target
}

static Model *g_model;
static Tensor *f_loss(Tensor **in) {
    Tensor *logits = translator_logits(g_model, SRC, B, TS, TGT, TT);
    return op_cross_entropy(logits, TGT_OUT, TOK_PAD, 0);
}

// Variant `variant` of the model (variant_config), without dropout.
static void build_variant(Model *m, int variant) {
    Config c;
    variant_config(&c, variant);
    c.dropout = 0;
    model_build(m, &c, V, V, 0);
}

static void test_lstm_model_gradients(void) {
    make_targets();
    for (int variant = 0; variant < 4; variant++) {
        Model m;
        build_variant(&m, variant);
        for (int i = 0; i < m.ps.n; i++)   // biases away from 0, so their gradients matter
            if (m.ps.list[i]->t.ndim == 1)
                for (long e = 0; e < m.ps.list[i]->t.size; e++)
                    m.ps.list[i]->t.data[e] = 0.3f * sinf((float)(e + i));
        g_model = &m;
        Tensor **in = malloc(sizeof(Tensor *) * (size_t)m.ps.n);
        for (int i = 0; i < m.ps.n; i++) in[i] = &m.ps.list[i]->t;
        grad_check(VARIANT[variant], f_loss, in, m.ps.n);
        free(in);
        model_free(&m);
    }
}

// The same sources with two more padding columns: the same logits.
static void test_lstm_source_padding_changes_nothing(void) {
    make_targets();
    Config c;
    lstm_config(&c, 1, 0, 2);
    Model m;
    model_build(&m, &c, V, V, 0);
    model_set_training(&m, 0);
    tape_set_enabled(0);
    int wide[B * (TS + 2)];
    memset(wide, 0, sizeof wide);
    for (int b = 0; b < B; b++) memcpy(wide + b * (TS + 2), SRC + b * TS, sizeof(int) * TS);
    Tensor *a = translator_logits(&m, SRC, B, TS, TGT, TT);
    Tensor *w = translator_logits(&m, wide, B, TS + 2, TGT, TT);
    double worst = 0;
    for (long e = 0; e < a->size; e++) worst = fmax(worst, fabs(a->data[e] - w->data[e]));
    CHECK(worst <= 1e-6, "padding changed the logits by %g", worst);
    tape_set_enabled(1);
    model_free(&m);
}

// The same targets with two more padding columns (ignored targets; the decoder's LSTMs skip
// them): the same loss and the same gradient of every parameter, bit for bit, in training
// mode (dropout 0); also through batch_loss without logits, whose output layer takes the
// token rows only (packed), with the same count of correct targets.
static void test_lstm_target_padding_changes_nothing(void) {
    make_targets();
    for (int variant = 0; variant < 4; variant++) {
        Model m;
        build_variant(&m, variant);
        enum { TW = TT + 2 };
        int wide_in[B * TW], wide_out[B * TW];
        for (int i = 0; i < B * TW; i++) wide_in[i] = wide_out[i] = TOK_PAD;
        for (int b = 0; b < B; b++) {
            memcpy(wide_in + b * TW, TGT + b * TT, sizeof(int) * TT);
            memcpy(wide_out + b * TW, TGT_OUT + b * TT, sizeof(int) * TT);
        }
        float loss[3], *grads[3];
        long total = 0, correct[2];
        for (int i = 0; i < m.ps.n; i++) total += m.ps.list[i]->t.size;
        for (int run = 0; run < 3; run++) {
            params_zero_grad(&m.ps);
            tape_reset();
            Tensor *l;
            if (run < 2) {
                Tensor *logits = translator_logits(&m, SRC, B, TS, run ? wide_in : TGT, run ? TW : TT);
                l = op_cross_entropy(logits, run ? wide_out : TGT_OUT, TOK_PAD, 0.1f);
                if (run) correct[0] = count_correct(logits, wide_out, B * TW, TOK_PAD);
            } else {
                Batch bt = {.B = B, .T_src = TS, .T_tgt = TW, .src = (int *)SRC, .tgt_in = wide_in,
                            .tgt_out = wide_out};
                l = batch_loss(&m, &bt, 0.1f, NULL, &correct[1]);
            }
            loss[run] = l->data[0];
            tape_backward(l);
            grads[run] = arena_alloc(&arena, sizeof(float) * (size_t)total);
            long off = 0;
            for (int i = 0; i < m.ps.n; i++) {
                Tensor *t = &m.ps.list[i]->t;
                memcpy(grads[run] + off, t->grad, sizeof(float) * t->size);
                off += t->size;
            }
        }
        for (int run = 1; run < 3; run++) {
            CHECK(loss[0] == loss[run], "%s: loss %.9g with padding (run %d), %.9g without",
                  VARIANT[variant], loss[run], run, loss[0]);
            CHECK(!memcmp(grads[0], grads[run], sizeof(float) * (size_t)total),
                  "%s: target padding changed a gradient (run %d)", VARIANT[variant], run);
        }
        CHECK(correct[0] == correct[1], "%s: %ld correct from the token rows, %ld from all",
              VARIANT[variant], correct[1], correct[0]);
        model_free(&m);
    }
    tape_reset();
}

// With dropout on: batch_loss without logits runs W_c, tanh, dropout and the output layer on
// the target's token rows only, each element masked as in the padded layout; the loss and every
// gradient equal those of the padded pass's logits, bit for bit, under the same dropout stream
// (and another stream gives another loss, so the masks matter).
static void test_lstm_token_rows_keep_dropout_masks(void) {
    make_targets();
    for (int variant = 0; variant < 4; variant += 3) {
        Config c;
        variant_config(&c, variant);
        c.dropout = 0.3f;
        Model m;
        model_build(&m, &c, V, V, 0);
        enum { TW = TT + 2 };   // two padding columns, and sequence 1 three tokens shorter
        int in[B * TW], out[B * TW];
        for (int i = 0; i < B * TW; i++) {
            int b = i / TW, t = i % TW, len = b == 1 ? TT - 3 : TT;
            in[i] = t < len ? TGT[b * TT + t] : TOK_PAD;
            out[i] = t < len ? TGT_OUT[b * TT + t] : TOK_PAD;
        }
        Rng before = m.dropout_rng;
        Batch bt = {.B = B, .T_src = TS, .T_tgt = TW, .src = (int *)SRC, .tgt_in = in,
                    .tgt_out = out};
        float loss[3], *grads[2];
        for (int run = 0; run < 3; run++) {
            m.dropout_rng = before;
            if (run == 2) rng_next(&m.dropout_rng);
            params_zero_grad(&m.ps);
            tape_reset();
            Tensor *l = run == 1 ? batch_loss(&m, &bt, 0.1f, NULL, NULL)
                                 : op_cross_entropy(translator_logits(&m, SRC, B, TS, in, TW),
                                                    out, TOK_PAD, 0.1f);
            loss[run] = l->data[0];
            if (run == 2) break;
            tape_backward(l);
            grads[run] = arena_alloc(&arena, sizeof(float) * (size_t)m.ps.total);
            memcpy(grads[run], m.ps.grad, sizeof(float) * (size_t)m.ps.total);
        }
        CHECK(loss[0] == loss[1], "%s: loss %.9g from the token rows, %.9g from all",
              VARIANT[variant], loss[1], loss[0]);
        CHECK(!memcmp(grads[0], grads[1], sizeof(float) * (size_t)m.ps.total),
              "%s: the token rows' pass changed a gradient", VARIANT[variant]);
        CHECK(loss[2] != loss[0], "%s: another dropout stream gave the same loss %.9g",
              VARIANT[variant], loss[0]);
        model_free(&m);
    }
    tape_reset();
}

// Step by step (decode_step), or in chunks of 3, 1, 3 steps (decode_feed): the logits of the
// full teacher-forced pass.
static void test_lstm_cached_decoding_equals_full(void) {
    make_targets();
    for (int variant = 0; variant < 4; variant++) {
        Config c;
        variant_config(&c, variant);
        Model m;
        model_build(&m, &c, V, V, 0);
        model_set_training(&m, 0);
        tape_set_enabled(0);
        Tensor *full = translator_logits(&m, SRC, B, TS, TGT, TT);
        float *ref = malloc(sizeof(float) * (size_t)full->size);
        memcpy(ref, full->data, sizeof(float) * (size_t)full->size);
        model_set_training(&m, 1);   // decode_init must switch dropout off itself
        tape_set_enabled(1);
        for (int chunked = 0; chunked < 2; chunked++) {
            int chunks[3] = {3, 1, 3}, n_chunks = chunked ? 3 : TT, in[B * TT];
            DecodeState st;
            CHECK(decode_init(&st, &m, SRC, B, TS, TT) == 0, "decode_init");
            double worst = 0;
            for (int k = 0, t0 = 0; k < n_chunks; k++) {
                int n = chunked ? chunks[k] : 1;
                for (int b = 0; b < B; b++)
                    memcpy(in + b * n, TGT + b * TT + t0, sizeof(int) * (size_t)n);
                Tensor *z = n == 1 ? decode_step(&st, in) : decode_feed(&st, in, n);
                for (int b = 0; b < B; b++)
                    for (int i = 0; i < n; i++)
                        for (int v = 0; v < V; v++)
                            worst = fmax(worst, fabs(z->data[((long)b * n + i) * V + v]
                                                     - ref[((long)b * TT + t0 + i) * V + v]));
                t0 += n;
            }
            decode_free(&st);
            CHECK(worst <= 1e-5, "%s, chunked %d: cached logits differ by %g", VARIANT[variant],
                  chunked, worst);
        }
        free(ref);
        model_free(&m);
    }
}

// The traced pass of ./translate --attention: the logits of translator_logits, and one map of
// probabilities over the real source tokens (each row sums to 1).
static void test_lstm_attention_trace(void) {
    make_targets();
    Config c;
    lstm_config(&c, 1, 0, 2);
    Model m;
    model_build(&m, &c, V, V, 0);
    int Ts = 3;   // the second source: 9 10 <eos>
    AttnMaps a;
    CHECK(attention_trace(&m, SRC + TS, Ts, TGT, TT, &a) == 0, "attention_trace");
    CHECK(a.cross_only && a.n_enc == 0 && a.n_dec == 1 && a.H == 1, "%d %d %d", a.n_enc, a.n_dec, a.H);
    model_set_training(&m, 0);
    tape_set_enabled(0);
    Tensor *full = translator_logits(&m, SRC + TS, 1, Ts, TGT, TT);
    double worst = 0;
    for (long e = 0; e < full->size; e++) worst = fmax(worst, fabs(full->data[e] - a.logits[e]));
    CHECK(worst <= 1e-6, "traced logits differ by %g", worst);
    for (int i = 0; i < TT; i++) {
        double sum = 0;
        for (int j = 0; j < Ts; j++) sum += a.dec_cross[i * Ts + j];
        CHECK_NEAR(sum, 1.0, 1e-5);
    }
    tape_set_enabled(1);
    attention_maps_free(&a);
    model_free(&m);
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    gc_rng = rng_stream(53, 0);
#define T(fn) do { arena_reset(&arena); tape_reset(); RUN(fn); } while (0)
    T(test_lstm_tensor_names);
    T(test_lstm_model_gradients);
    T(test_lstm_source_padding_changes_nothing);
    T(test_lstm_target_padding_changes_nothing);
    T(test_lstm_token_rows_keep_dropout_masks);
    T(test_lstm_cached_decoding_equals_full);
    T(test_lstm_attention_trace);
    arena_free(&arena);
    return check_summary();
}
