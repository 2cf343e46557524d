// Attention maps: the traced forward gives the model's logits for every scheme and both
// LayerNorm placements, its probabilities are distributions that respect the masks, and the
// heat map SVG holds one square per cell; its probabilities are the ones the attention op uses.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "plot/heatmap.h"
#include "pos/pos.h"
#include "infer/attention.h"

static Arena arena;

static void test_trace_matches_model(void) {
    int Ts = 6, Tt = 5, V = 11;
    int src[6] = {5, 6, 7, 8, 3, 0}, tgt[5] = {TOK_BOS, 4, 9, 10, 0};   // padded on both sides
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int nf = 0; nf < 2; nf++) {
            Config c;
            config_defaults(&c);
            snprintf(c.pos, sizeof c.pos, "%s", pos_scheme_at(s)->name);
            c.d_model = 16; c.n_heads = 4; c.d_ff = 24; c.enc_layers = 2; c.dec_layers = 2; c.norm_first = nf;
            Model m;
            model_build(&m, &c, V, V, 0);
            model_set_training(&m, 0);
            tape_set_enabled(0);
            ArenaMark mark = arena_mark(&arena);
            Tensor *ref = translator_logits(&m, src, 1, Ts, tgt, Tt);
            AttnMaps a;
            CHECK(attention_trace(&m, src, Ts, tgt, Tt, &a) == 0, "trace");
            double worst = 0;   // the real target positions (the model skips padding queries)
            for (int i = 0; i < Tt * V; i++)
                if (tgt[i / V] != 0) worst = fmax(worst, fabs(a.logits[i] - ref->data[i]));
            CHECK(worst < 1e-5, "%s norm_first=%d: traced logits differ by %g", pos_scheme_at(s)->name, nf, worst);
            // Rows are distributions; padded keys and (decoder) future keys get nothing; a padding
            // query's row is 0 (op_attention skips it).
            double row_err = 0, masked = 0;
            for (int l = 0; l < 2; l++)
                for (int h = 0; h < 4; h++) {
                    for (int i = 0; i < Ts; i++) {
                        const float *p = a.enc_self + (((long)l * 4 + h) * Ts + i) * Ts;
                        double sum = 0;
                        for (int j = 0; j < Ts; j++) sum += p[j];
                        row_err = fmax(row_err, fabs(sum - (src[i] != 0)));
                        masked = fmax(masked, p[5]);
                    }
                    for (int i = 0; i < Tt; i++) {
                        const float *p = a.dec_self + (((long)l * 4 + h) * Tt + i) * Tt;
                        const float *x = a.dec_cross + (((long)l * 4 + h) * Tt + i) * Ts;
                        double sum = 0, sx = 0;
                        for (int j = 0; j < Tt; j++) { sum += p[j]; if (j > i || j == 4) masked = fmax(masked, p[j]); }
                        for (int j = 0; j < Ts; j++) sx += x[j];
                        masked = fmax(masked, x[5]);
                        row_err = fmax(row_err, fmax(fabs(sum - (tgt[i] != 0)), fabs(sx - (tgt[i] != 0))));
                    }
                }
            CHECK(row_err < 1e-5 && masked == 0, "%s: rows sum to 1 within %g, masked weight %g", pos_scheme_at(s)->name, row_err, masked);
            attention_maps_free(&a);
            arena_release(&arena, mark);
            model_free(&m);
        }
}

static Tensor *named(Model *m, const char *name) {
    Param *p = params_find(&m->ps, name);
    CHECK(p, "no parameter %s", name);
    return p ? &p->t : NULL;
}

// Layer 0's self-attention probabilities of a stack (`prefix` "encoder" or "decoder") as the
// attention op computes them: queries and keys from the named parameters (pre-LN, no
// positions: x = sqrt(d) embedding, h = LayerNorm(x)), and values one-hot per key, so that
// the op's output row i of head h is its probability row P[h][i][.].
static void op_probabilities(Model *m, const char *prefix, const char *embed, const int *ids, int T, int causal,
                             float *P) {
    char name[128];
    int d = m->cfg.d_model, H = m->cfg.n_heads, D = d / H, shape[3] = {1, T, d};
    Tensor *x = op_scale(tensor_view(op_embedding(named(m, embed), ids, T), 3, shape), sqrtf((float)d));
#define P_(what) (snprintf(name, sizeof name, "%s.layers.0.%s", prefix, what), named(m, name))
    Tensor *h = op_layernorm(x, P_("norm1.weight"), P_("norm1.bias"), 1e-5f);
    Tensor *q = op_linear(h, P_("self_attn.q_proj.weight"), P_("self_attn.q_proj.bias"));
    Tensor *k = op_linear(h, P_("self_attn.k_proj.weight"), P_("self_attn.k_proj.bias"));
#undef P_
    Tensor *v = tensor_zeros(3, shape, 0);
    for (int j = 0; j < T; j++)
        for (int hd = 0; hd < H; hd++) v->data[j * d + hd * D + j] = 1;
    int pad[16];
    for (int j = 0; j < T; j++) pad[j] = ids[j] == TOK_PAD;
    AttnArgs args = { .n_heads = H, .key_pad = pad, .causal = causal };
    Tensor *y = op_attention(q, k, v, &args);
    for (int hd = 0; hd < H; hd++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) P[(hd * T + i) * T + j] = y->data[i * d + hd * D + j];
}

// The heat maps show the probabilities the attention op uses (scaled by 1/sqrt(d_k), masked),
// for the encoder's and the decoder's self-attention.
static void test_heatmap_is_op_probabilities(void) {
    int Ts = 6, Tt = 5, V = 11, H = 2;
    int src[6] = {5, 6, 7, 8, 3, 0}, tgt[5] = {TOK_BOS, 4, 9, 10, 0};
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "none");
    c.d_model = 16; c.n_heads = H; c.d_ff = 24; c.enc_layers = 1; c.dec_layers = 1; c.norm_first = 1;
    Model m;
    model_build(&m, &c, V, V, 0);
    model_set_training(&m, 0);
    tape_set_enabled(0);
    ArenaMark mark = arena_mark(&arena);
    AttnMaps a;
    CHECK(attention_trace(&m, src, Ts, tgt, Tt, &a) == 0, "trace");
    float enc[2 * 6 * 6], dec[2 * 5 * 5];
    op_probabilities(&m, "encoder", "src_embed.weight", src, Ts, 0, enc);
    op_probabilities(&m, "decoder", "tgt_embed.weight", tgt, Tt, 1, dec);
    double worst = 0;
    for (int i = 0; i < H * Ts * Ts; i++)   // real queries: a padding query's row is 0 (op_attention skips it)
        if (src[i / Ts % Ts] != TOK_PAD) worst = fmax(worst, fabs(enc[i] - a.enc_self[i]));
    for (int i = 0; i < H * Tt * Tt; i++)
        if (tgt[i / Tt % Tt] != TOK_PAD) worst = fmax(worst, fabs(dec[i] - a.dec_self[i]));   // real queries
    CHECK(worst < 1e-6, "heat maps differ from the op's probabilities by %g", worst);
    attention_maps_free(&a);
    arena_release(&arena, mark);
    model_free(&m);
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++) n++;
    return n;
}

static void test_heatmap_svg(void) {
    float v[2 * 2 * 3] = {0, 0.5f, 1, 2, -1, NAN, 0.25f, 0.25f, 0.5f, 1, 0, 0};
    const char *rows[] = {"a", "<b&>"}, *cols[] = {"x", "y", "z"}, *heads[] = {"head 1", "head 2"};
    Heatmap h = {"t\"itle", 2, 2, 3, v, rows, cols, heads};
    char *svg = heatmap_svg(&h);
    CHECK(svg && !strncmp(svg, "<svg", 4) && strstr(svg, "</svg>"), "document");
    CHECK(count(svg, "<rect x=") == 2 * 2 * 3 + 2, "%d rects", count(svg, "<rect x="));   // cells + two frames
    CHECK(strstr(svg, "&lt;b&amp;&gt;") && strstr(svg, "t&quot;itle") && !strstr(svg, "<b&>"), "escaping");
    CHECK(count(svg, "fill=\"#ffffff\"") == 4 && count(svg, "fill=\"#08306b\"") == 3, "shades (clamped to [0,1])");
    CHECK(strstr(svg, "#bbbbbb") != NULL, "NaN is grey");
    free(svg);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_trace_matches_model);
    RUN(test_heatmap_is_op_probabilities);
    RUN(test_heatmap_svg);
    arena_free(&arena);
    return check_summary();
}
