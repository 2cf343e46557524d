// Whole models: permutation equivariance without positions (and its failure under a causal
// mask), the symmetric ALiBi bias on an exact reversal, and every scheme's full-model
// gradients against finite differences (also on randomized positions); pool = cls reads the
// <cls> row and embed_scale is sqrt(d); with model.pos_random set but positions plain, a
// translator and a language model compute exactly what they did without it.
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "core/arena.h"
#include "core/tape.h"
#include "models/model.h"
#include "pos/pos.h"

static Arena arena;

static void small_config(Config *c, const char *model, const char *pos) {
    config_defaults(c);
    config_word(c, "model.model", model);
    snprintf(c->pos, sizeof c->pos, "%s", pos);
    c->d_model = 16; c->n_heads = 4; c->d_ff = 24; c->enc_layers = 2; c->dec_layers = 2;
    c->dropout = 0;
}

static double max_abs_diff(const float *a, const float *b, long n) {
    double w = 0;
    for (long i = 0; i < n; i++) w = fmax(w, fabs(a[i] - b[i]));
    return w;
}

static void test_encoder_permutation_equivariant(void) {
    // "the dog bites the man" -> a permutation of the same tokens.
    Config c;
    small_config(&c, "classifier", "none");
    Model m;
    model_build(&m, &c, 20, 0, 5);
    model_set_training(&m, 0);
    int T = 5, d = c.d_model, ids[5] = {7, 9, 12, 7, 15}, perm[5] = {3, 0, 4, 2, 1}, pids[5];
    for (int t = 0; t < T; t++) pids[t] = ids[perm[t]];
    Tensor *h = model_encode(&m, ids, 1, T, NULL), *hp = model_encode(&m, pids, 1, T, NULL);
    double worst = 0;
    for (int t = 0; t < T; t++) worst = fmax(worst, max_abs_diff(hp->data + t * d, h->data + perm[t] * d, d));
    CHECK(worst < 1e-5, "out(PX) differs from P out(X) by %g", worst);
    Tensor *y = classifier_logits(&m, ids, 1, T), *yp = classifier_logits(&m, pids, 1, T);
    CHECK(memcmp(y->data, yp->data, sizeof(float) * 5) == 0 || max_abs_diff(y->data, yp->data, 5) < 1e-6,
          "pooled logits differ by %g", max_abs_diff(y->data, yp->data, 5));
    // With positions the same permutation changes the output.
    Model ms;
    snprintf(c.pos, sizeof c.pos, "sinusoidal");
    model_build(&ms, &c, 20, 0, 5);
    model_set_training(&ms, 0);
    Tensor *s = classifier_logits(&ms, ids, 1, T), *sp = classifier_logits(&ms, pids, 1, T);
    CHECK(max_abs_diff(s->data, sp->data, 5) > 1e-3, "sinusoidal: permuted logits still equal");
    model_free(&m);
    model_free(&ms);
}

static void test_causal_breaks_equivariance(void) {
    Config c;
    small_config(&c, "lm", "none");
    Model m;
    model_build(&m, &c, 20, 20, 0);
    model_set_training(&m, 0);
    int T = 5, V = 20, ids[5] = {7, 9, 12, 8, 15}, perm[5] = {3, 0, 4, 2, 1}, pids[5];
    for (int t = 0; t < T; t++) pids[t] = ids[perm[t]];
    Tensor *y = lm_logits(&m, ids, 1, T, NULL), *yp = lm_logits(&m, pids, 1, T, NULL);
    double worst = 0;
    for (int t = 0; t < T; t++) worst = fmax(worst, max_abs_diff(yp->data + t * V, y->data + perm[t] * V, V));
    CHECK(worst > 1e-3, "a causal stack without positions should not be equivariant (diff %g)", worst);
    model_free(&m);
}

static void test_symmetric_bias_blind_to_reversal(void) {
    // "dog bites man" vs "man bites dog": reversing the order keeps |i - j|, so a symmetric
    // ALiBi encoder with mean pooling gives identical logits; RoPE does not.
    int ids[3] = {7, 9, 12}, rev[3] = {12, 9, 7};
    const char *schemes[2] = {"alibi", "rope"};
    for (int s = 0; s < 2; s++) {
        Config c;
        small_config(&c, "classifier", schemes[s]);
        Model m;
        model_build(&m, &c, 20, 0, 5);
        model_set_training(&m, 0);
        Tensor *y = classifier_logits(&m, ids, 1, 3), *yr = classifier_logits(&m, rev, 1, 3);
        double diff = max_abs_diff(y->data, yr->data, 5);
        if (s == 0) CHECK(diff < 1e-5, "alibi: reversal changed logits by %g", diff);
        else        CHECK(diff > 1e-4, "rope: reversal left logits unchanged (%g)", diff);
        model_free(&m);
    }
}

// Loss of a translator batch with padding in both source and target.
static int g_src[2 * 6] = {5, 6, 7, 8, 3, 0, 9, 5, 3, 0, 0, 0};
static int g_tin[2 * 5] = {2, 10, 11, 12, 0, 2, 13, 14, 0, 0};
static int g_tout[2 * 5] = {10, 11, 12, 3, 0, 13, 14, 3, 0, 0};

// Every forward pass restarts the positions stream, so that with model.pos_random each one
// draws the same positions (a no-op without it).
static float model_loss_value(Model *m) {
    model_seed_positions(m, 1);
    Tensor *logits = translator_logits(m, g_src, 2, 6, g_tin, 5);
    return op_cross_entropy(logits, g_tout, 0, 0.1f)->data[0];
}

// llama: the Llama-style block (rmsnorm, swiglu, no biases; docs/design.md §2.5), with every
// scheme as well as with rope. pos_random > 0: training draws positions from [0, pos_random)
// (the learned table gets a row for each).
static void check_model_gradients(int pos_random) {
    for (int llama = 0; llama < 2; llama++)
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int norm_first = 0; norm_first < 2; norm_first++) {
            Config c;
            small_config(&c, "translator", pos_scheme_at(s)->name);
            c.d_model = 8; c.n_heads = 2; c.d_ff = 12; c.enc_layers = 1; c.dec_layers = 1;
            c.norm_first = norm_first;
            c.activation = llama ? ACTIVATION_SWIGLU : ACTIVATION_GELU;   // smooth: relu kinks make finite differences noisy (relu is checked alone in test_ops)
            if (llama) {
                c.norm = NORM_RMSNORM;
                c.bias = 0;
            }
            c.pos_cfg.max_len = pos_random ? pos_random : 4;   // learned: the 6-token source wraps
            c.pos_cfg.pos_random = pos_random;
            Model m;
            model_build(&m, &c, 16, 16, 0);
            arena_reset(&arena);
            tape_reset();
            params_zero_grad(&m.ps);
            model_seed_positions(&m, 1);
            Tensor *loss = op_cross_entropy(translator_logits(&m, g_src, 2, 6, g_tin, 5), g_tout, 0, 0.1f);
            tape_backward(loss);
            tape_set_enabled(0);
            int bad = 0, checked = 0;
            for (int k = 0; k < m.ps.n; k++) {       // a few elements of every parameter tensor
                Param *p = m.ps.list[k];
                for (long j = 0; j < p->t.size; j += 1 + p->t.size / 4) {
                    float old = p->t.data[j];
                    p->t.data[j] = old + 1e-2f;
                    double lp = model_loss_value(&m);
                    p->t.data[j] = old - 1e-2f;
                    double lm = model_loss_value(&m);
                    p->t.data[j] = old;
                    double num = (lp - lm) / 2e-2, ana = p->t.grad[j];
                    checked++;
                    if (fabs(num - ana) > 2e-2 * fmax(fabs(num), fabs(ana)) + 2e-3) {
                        if (bad++ < 3) CHECK(0, "%s norm_first=%d llama=%d %s[%ld]: numeric %.5f analytic %.5f",
                                             pos_scheme_at(s)->name, norm_first, llama, p->name, j, num, ana);
                    }
                }
                arena_reset(&arena);
            }
            CHECK(bad == 0, "%s norm_first=%d llama=%d pos_random=%d: %d of %d gradient elements off",
                  pos_scheme_at(s)->name, norm_first, llama, pos_random, bad, checked);
            tape_set_enabled(1);
            model_free(&m);
        }
}

static void test_full_model_gradients(void) { check_model_gradients(0); }
static void test_gradients_on_drawn_positions(void) { check_model_gradients(24); }

// model.pos_random with eval.positions = plain: every position is its index again, so a
// translator and a language model give bit-identical logits to the same model without
// pos_random (learned: both with a 64-row table); in training mode (drawn) they differ.
static void test_plain_positions_equal_no_pos_random(void) {
    static const char *kinds[2] = {"translator", "lm"};
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int k = 0; k < 2; k++) {
            Model m[2];
            for (int i = 0; i < 2; i++) {
                Config c;
                small_config(&c, kinds[k], pos_scheme_at(s)->name);
                c.pos_cfg.max_len = 64;
                c.pos_cfg.pos_random = i ? 64 : 0;
                c.positions = EVAL_POSITIONS_PLAIN;
                model_build(&m[i], &c, 16, 16, 0);
                model_set_training(&m[i], 0);
            }
            arena_reset(&arena);
            Tensor *z[2], *drawn;
            for (int i = 0; i < 2; i++)
                z[i] = k ? lm_logits(&m[i], g_tin, 2, 5, NULL) : translator_logits(&m[i], g_src, 2, 6, g_tin, 5);
            CHECK(z[0]->size == z[1]->size && !memcmp(z[0]->data, z[1]->data, sizeof(float) * (size_t)z[0]->size),
                  "%s %s: plain positions with pos_random differ from no pos_random", kinds[k], pos_scheme_at(s)->name);
            model_set_training(&m[1], 1);   // dropout is 0: only the positions change
            drawn = k ? lm_logits(&m[1], g_tin, 2, 5, NULL) : translator_logits(&m[1], g_src, 2, 6, g_tin, 5);
            if (strcmp(pos_scheme_at(s)->name, "none"))
                CHECK(max_abs_diff(drawn->data, z[0]->data, z[0]->size) > 1e-3, "%s %s: training drew no positions",
                      kinds[k], pos_scheme_at(s)->name);
            model_free(&m[0]);
            model_free(&m[1]);
        }
}

// Gradients of activations are not zeroed when allocated: the first backward op to write one
// assigns (tensor.h). If an op read a gradient nobody had written, the leftovers of an
// earlier step would leak in. So: fill the arena with NaN, then with zeros, train the same
// step on each, and demand bit-identical, finite parameter gradients, for every model
// kind, positional scheme and LayerNorm placement, with dropout on.
static void step_gradients(Model *m, const char *kind, Rng dropout, float fill, float *out) {
    m->dropout_rng = dropout;   // the same dropout masks every time
    arena_reset(&arena);
    float *stale = arena_alloc(&arena, arena.used_peak);
    for (size_t i = 0; i < arena.used_peak / sizeof(float); i++) stale[i] = fill;
    arena_reset(&arena);
    tape_reset();
    params_zero_grad(&m->ps);
    static const int ids[2 * 6] = {4, 5, 6, 7, 8, 9, 9, 8, 7, 1, 0, 0}, labels[2] = {1, 0};
    Tensor *logits = !strcmp(kind, "translator") ? translator_logits(m, g_src, 2, 6, g_tin, 5)
                   : !strcmp(kind, "lm") ? lm_logits(m, ids, 2, 6, NULL) : classifier_logits(m, ids, 2, 6);
    const int *targets = !strcmp(kind, "translator") ? g_tout : !strcmp(kind, "lm") ? ids : labels;
    tape_backward(op_cross_entropy(logits, targets, strcmp(kind, "classifier") ? 0 : -1, 0.1f));
    memcpy(out, m->ps.grad, sizeof(float) * (size_t)m->ps.total);
}

static void test_gradients_ignore_stale_memory(void) {
    const char *kinds[3] = {"translator", "lm", "classifier"};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < pos_scheme_count(); s++)
            for (int norm_first = 0; norm_first < 2; norm_first++) {
                Config c;
                small_config(&c, kinds[k], pos_scheme_at(s)->name);
                c.norm_first = norm_first;
                c.dropout = 0.1f;
                Model m;
                int classifier = !strcmp(kinds[k], "classifier");
                model_build(&m, &c, 16, classifier ? 0 : 16, classifier ? 3 : 0);
                Rng dropout = m.dropout_rng;
                float *clean = malloc(sizeof(float) * (size_t)m.ps.total), *stale = malloc(sizeof(float) * (size_t)m.ps.total);
                step_gradients(&m, kinds[k], dropout, 0.0f, clean);   // sizes the arena
                step_gradients(&m, kinds[k], dropout, 0.0f, clean);
                step_gradients(&m, kinds[k], dropout, NAN, stale);
                long finite = 0;
                for (long i = 0; i < m.ps.total; i++) finite += isfinite(clean[i]);
                CHECK(finite == m.ps.total && !memcmp(clean, stale, sizeof(float) * (size_t)m.ps.total),
                      "%s %s norm_first=%d: %ld of %ld gradients finite, stale memory %s", kinds[k], pos_scheme_at(s)->name,
                      norm_first, finite, m.ps.total, memcmp(clean, stale, sizeof(float) * (size_t)m.ps.total) ? "changes them" : "changes nothing");
                free(clean);
                free(stale);
                model_free(&m);
            }
}

// pool = cls: the logits are the head applied to the encoder's first row (the <cls> token),
// on ids whose first and last rows differ.
static void test_pool_cls_reads_first_row(void) {
    Config c;
    small_config(&c, "classifier", "sinusoidal");
    c.pool = POOL_CLS;
    Model m;
    model_build(&m, &c, 20, 0, 3);
    model_set_training(&m, 0);
    int T = 4, d = c.d_model, ids[4] = {4, 9, 12, 15};
    Tensor *h = model_encode(&m, ids, 1, T, NULL), *y = classifier_logits(&m, ids, 1, T);
    CHECK(max_abs_diff(h->data, h->data + (T - 1) * d, d) > 1e-2, "first and last rows do not differ");
    Param *w = params_find(&m.ps, "head.weight"), *b = params_find(&m.ps, "head.bias");
    CHECK(w && b, "no head.weight / head.bias");
    if (!w || !b) { model_free(&m); return; }
    for (int k = 0; k < 3; k++) {
        double z = b->t.data[k];
        for (int e = 0; e < d; e++) z += w->t.data[k * d + e] * h->data[e];
        CHECK_NEAR(y->data[k], z, 1e-5);
    }
    model_free(&m);
}

// pool = mean averages the real tokens only: padding after the sentence changes nothing.
static void test_mean_pool_ignores_padding(void) {
    Config c;
    small_config(&c, "classifier", "sinusoidal");
    Model m;
    model_build(&m, &c, 20, 0, 3);
    model_set_training(&m, 0);
    int ids[3] = {7, 9, 12}, padded[5] = {7, 9, 12, 0, 0};
    Tensor *y = classifier_logits(&m, ids, 1, 3), *yp = classifier_logits(&m, padded, 1, 5);
    CHECK(max_abs_diff(y->data, yp->data, 3) < 1e-5, "padding changed the logits by %g", max_abs_diff(y->data, yp->data, 3));
    model_free(&m);
}

static void scale_embeddings(Model *m, const char *name, float by) {
    Param *p = params_find(&m->ps, name);
    CHECK(p, "no %s", name);
    if (p) for (long i = 0; i < p->t.size; i++) p->t.data[i] *= by;
}

// embed_scale multiplies the embedding rows by sqrt(d_model) = 4: a model with it equals one
// without it whose tables were multiplied by 4 (translator and lm, same initial weights).
static void test_embed_scale_is_sqrt_d(void) {
    const char *kinds[2] = {"translator", "lm"};
    int ids[5] = {5, 6, 7, 8, 3}, tgt[4] = {2, 9, 10, 11};
    for (int k = 0; k < 2; k++) {
        Config c;
        small_config(&c, kinds[k], "sinusoidal");
        Model with, without;
        model_build(&with, &c, 13, 13, 0);
        c.embed_scale = 0;
        model_build(&without, &c, 13, 13, 0);
        model_set_training(&with, 0);
        model_set_training(&without, 0);
        Tensor *a, *b;
        if (k == 0) {
            scale_embeddings(&without, "src_embed.weight", 4);
            scale_embeddings(&without, "tgt_embed.weight", 4);
            a = translator_logits(&with, ids, 1, 5, tgt, 4);
            b = translator_logits(&without, ids, 1, 5, tgt, 4);
        } else {
            scale_embeddings(&without, "embed.weight", 4);
            a = lm_logits(&with, ids, 1, 5, NULL);
            b = lm_logits(&without, ids, 1, 5, NULL);
        }
        CHECK(max_abs_diff(a->data, b->data, a->size) < 1e-4, "%s: logits differ by %g", kinds[k],
              max_abs_diff(a->data, b->data, a->size));
        model_free(&with);
        model_free(&without);
    }
}

static void test_parameter_names(void) {
    Config c;
    small_config(&c, "translator", "t5");
    Model m;
    model_build(&m, &c, 30, 40, 0);
    const char *want[] = {"src_embed.weight", "tgt_embed.weight", "encoder.layers.0.self_attn.q_proj.weight",
                          "encoder.layers.1.norm2.bias", "encoder.layers.0.ffn.fc1.weight", "decoder.layers.1.cross_attn.o_proj.bias",
                          "decoder.layers.0.norm3.weight", "encoder.norm.weight", "decoder.norm.bias",
                          "encoder.rel_bias.weight", "decoder.rel_bias.weight", "generator.weight"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) CHECK(params_find(&m.ps, want[i]), "missing %s", want[i]);
    Param *g = params_find(&m.ps, "generator.weight"), *f1 = params_find(&m.ps, "encoder.layers.0.ffn.fc1.weight");
    Param *rb = params_find(&m.ps, "encoder.rel_bias.weight");
    CHECK(g && g->t.shape[0] == 40 && g->t.shape[1] == 16, "generator shape");
    CHECK(f1 && f1->t.shape[0] == 24 && f1->t.shape[1] == 16, "fc1 is [d_ff, d]");
    CHECK(rb && rb->t.shape[0] == 32 && rb->t.shape[1] == 4, "rel_bias is [32, h]");
    model_free(&m);
}

// The residual path: with every sub-layer's weights 0 (attention and FFN outputs 0) and
// LayerNorms of weight 1, bias 0, a layer leaves its input to the norms, so the encoder's
// output is LayerNorm of the embedding, pre- and post-LN. Embedding row (1, 2, 3, 4) (scaled
// by sqrt(4), which LayerNorm undoes): (x - 2.5) / sqrt(1.25) = (-1.3416408, -0.4472136,
// 0.4472136, 1.3416408). Without the residual the layers would pass on 0.
static void test_residual_carries_the_input(void) {
    for (int nf = 0; nf < 2; nf++) {
        Config c;
        small_config(&c, "classifier", "none");
        c.d_model = 4; c.n_heads = 2; c.d_ff = 4; c.norm_first = nf;
        Model m;
        model_build(&m, &c, 8, 0, 2);
        model_set_training(&m, 0);
        memset(m.ps.data, 0, sizeof(float) * (size_t)m.ps.total);
        for (int i = 0; i < m.ps.n; i++) {
            Param *p = m.ps.list[i];
            size_t n = strlen(p->name);
            if (strstr(p->name, "norm") && n > 7 && !strcmp(p->name + n - 7, ".weight"))
                for (long e = 0; e < p->t.size; e++) p->t.data[e] = 1;
        }
        Param *e = params_find(&m.ps, "embed.weight");
        CHECK(e != NULL, "no embed.weight");
        if (!e) { model_free(&m); continue; }
        for (int k = 0; k < 4; k++) e->t.data[5 * 4 + k] = (float)(k + 1);
        int ids[1] = {5};
        ArenaMark mark = arena_mark(&arena);
        Tensor *h = model_encode(&m, ids, 1, 1, NULL);   // (1,1,4)
        const double want[4] = {-1.3416408, -0.4472136, 0.4472136, 1.3416408};
        for (int k = 0; k < 4; k++) CHECK(fabs(h->data[k] - want[k]) < 1e-4, "norm_first=%d: h[%d] = %g, expected %g", nf, k, h->data[k], want[k]);
        arena_release(&arena, mark);
        model_free(&m);
    }
}

// A padded batch's token rows are computed as each sequence alone: a third of this batch is
// padding, so its stacks pack their token rows (models/transformer.c), and the rows of the
// short sequence must equal its own unpadded pass, for every scheme. The language model's are
// equal bit for bit; the translator's within rounding (measured 7e-7: cross-attention sums its
// 3 keys among 6 in the batch, the masked ones in the same vectors).
static void test_padding_changes_no_row(void) {
    int src[2 * 6] = {5, 6, 7, 8, 3, 0, 9, 5, 3, 0, 0, 0}, tin[2 * 5] = {2, 10, 11, 12, 0, 2, 13, 14, 0, 0};
    int src1[3] = {9, 5, 3}, tin1[3] = {2, 13, 14}, V = 16;
    for (int lm = 0; lm < 2; lm++)
        for (int i = 0; i < pos_scheme_count(); i++) {
            const char *pos = pos_scheme_at(i)->name;
            Config c;
            small_config(&c, lm ? "lm" : "translator", pos);
            c.pos_cfg.max_len = 8;
            Model m;
            model_build(&m, &c, V, V, 0);
            model_set_training(&m, 0);
            arena_reset(&arena);
            Tensor *both = lm ? lm_logits(&m, tin, 2, 5, NULL) : translator_logits(&m, src, 2, 6, tin, 5);
            Tensor *alone = lm ? lm_logits(&m, tin1, 1, 3, NULL) : translator_logits(&m, src1, 1, 3, tin1, 3);
            const float *row1 = both->data + 5L * V;   // the second sequence's first 3 positions
            int same = memcmp(row1, alone->data, sizeof(float) * 3 * V) == 0;
            CHECK(lm ? same : max_abs_diff(row1, alone->data, 3L * V) < 1e-5,
                  "%s %s: the padded batch's rows differ from the sequence alone by %g", lm ? "lm" : "translator",
                  pos, max_abs_diff(row1, alone->data, 3L * V));
            model_free(&m);
        }
}

// A packed batch embeds its token rows only (stack_embed_rows): bit for bit the padded
// embedding's token rows (scaled by sqrt(d), dropout drawn by each element's padded index),
// and the table's gradient from them the same.
static void test_embed_rows_as_padded(void) {
    Config c;
    small_config(&c, "lm", "rope");
    c.dropout = 0.3f;
    Model m;
    model_build(&m, &c, 16, 16, 0);
    enum { B = 2, T = 5 };
    int ids[B * T] = {2, 10, 11, 12, 0, 2, 13, 0, 0, 0}, pad[B * T];
    for (int i = 0; i < B * T; i++) pad[i] = ids[i] == 0;
    arena_reset(&arena);
    RowPacking p;
    CHECK(row_packing_init(&p, pad, B, T) == 1 && p.n == 6, "packing");
    Rng before = m.dropout_rng;
    float *grads[2], *rows[2];
    long n_table = m.decoder.embed->size;
    for (int packed = 0; packed < 2; packed++) {
        m.dropout_rng = before;
        tape_reset();
        params_zero_grad(&m.ps);
        Tensor *x = packed ? stack_embed_rows(&m.decoder, ids, &p)
                           : op_pack_rows(stack_embed(&m.decoder, ids, B, T, 0), &p);
        float *g = grad_zeroed(x);
        for (long e = 0; e < x->size; e++) g[e] = (float)(e % 7) - 3.0f;
        tape_replay();
        rows[packed] = arena_alloc(&arena, sizeof(float) * (size_t)x->size);
        memcpy(rows[packed], x->data, sizeof(float) * (size_t)x->size);
        grads[packed] = arena_alloc(&arena, sizeof(float) * (size_t)n_table);
        memcpy(grads[packed], m.decoder.embed->grad, sizeof(float) * (size_t)n_table);
    }
    long size = (long)p.n * c.d_model, dropped = 0;
    for (long e = 0; e < size; e++) dropped += rows[1][e] == 0.0f;
    CHECK(dropped > 0 && dropped < size, "dropout dropped %ld of %ld", dropped, size);
    CHECK(memcmp(rows[0], rows[1], sizeof(float) * (size_t)size) == 0,
          "the packed embedding differs from the padded one's token rows");
    CHECK(memcmp(grads[0], grads[1], sizeof(float) * (size_t)n_table) == 0,
          "the packed embedding's table gradient differs");
    model_free(&m);
}

// Without a tape each sub-layer's intermediates are released and its output moved down
// (models/transformer.c): the logits are those of the pass that records (bit for bit), on a
// padded batch whose rows are packed and on a text window, pre- and post-LN; and the arena's
// peak no longer grows with the layers (a 4-layer stack peaks as a 2-layer one).
static void test_no_tape_forward_releases_sublayers(void) {
    int src[2 * 6] = {5, 6, 7, 8, 3, 0, 9, 5, 3, 0, 0, 0}, tin[2 * 5] = {2, 10, 11, 12, 0, 2, 13, 14, 0, 0};
    int V = 16;
    const char *schemes[3] = {"rope", "alibi", "learned"};
    for (int lm = 0; lm < 2; lm++)
        for (int nf = 0; nf < 2; nf++)
            for (int k = 0; k < 3; k++) {
                size_t peak[2];
                for (int deep = 0; deep < 2; deep++) {
                    Config c;
                    small_config(&c, lm ? "lm" : "translator", schemes[k]);
                    c.pos_cfg.max_len = 8;
                    c.norm_first = nf;
                    c.enc_layers = c.dec_layers = deep ? 4 : 2;
                    Model m;
                    model_build(&m, &c, V, V, 0);
                    model_set_training(&m, 0);
                    Tensor *z[2];
                    for (int tape = 1; tape >= 0; tape--) {
                        tape_set_enabled(tape);
                        arena_reset(&arena);
                        arena.used_peak = 0;
                        z[tape] = lm ? lm_logits(&m, tin, 2, 5, NULL)
                                     : translator_logits(&m, src, 2, 6, tin, 5);
                        if (tape) {   // keep the recorded pass's logits past the next reset
                            static float kept[2 * 5 * 16];
                            memcpy(kept, z[1]->data, sizeof kept);
                            z[1]->data = kept;
                            tape_reset();
                        }
                    }
                    peak[deep] = arena.used_peak;
                    CHECK(memcmp(z[0]->data, z[1]->data, sizeof(float) * 2 * 5 * V) == 0,
                          "%s %s norm_first=%d %d layers: logits without a tape differ by %g",
                          lm ? "lm" : "translator", schemes[k], nf, c.dec_layers,
                          max_abs_diff(z[0]->data, z[1]->data, 2L * 5 * V));
                    tape_set_enabled(1);
                    model_free(&m);
                }
                CHECK(peak[1] == peak[0], "%s %s norm_first=%d: peak %zu bytes at 4 layers, %zu at 2",
                      lm ? "lm" : "translator", schemes[k], nf, peak[1], peak[0]);
            }
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    RUN(test_encoder_permutation_equivariant);
    RUN(test_causal_breaks_equivariance);
    RUN(test_symmetric_bias_blind_to_reversal);
    RUN(test_full_model_gradients);
    RUN(test_gradients_on_drawn_positions);
    RUN(test_plain_positions_equal_no_pos_random);
    RUN(test_gradients_ignore_stale_memory);
    RUN(test_parameter_names);
    RUN(test_pool_cls_reads_first_row);
    RUN(test_mean_pool_ignores_padding);
    RUN(test_padding_changes_no_row);
    RUN(test_embed_rows_as_padded);
    RUN(test_embed_scale_is_sqrt_d);
    RUN(test_residual_carries_the_input);
    RUN(test_no_tape_forward_releases_sublayers);
    arena_free(&arena);
    return check_summary();
}
