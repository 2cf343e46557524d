// Attention maps: the traced forward gives the model's logits for every scheme and both
// LayerNorm placements, its probabilities are distributions that respect the masks, and the
// heat map SVG holds one square per cell.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "io/heatmap.h"
#include "run/attention.h"

static Arena arena;

static void test_trace_matches_model(void) {
    const char *schemes[] = {"none", "sinusoidal", "learned", "alibi", "rope", "t5"};
    int Ts = 6, Tt = 5, V = 11;
    int src[6] = {5, 6, 7, 8, 3, 0}, tgt[5] = {TOK_BOS, 4, 9, 10, 0};   // padded on both sides
    for (int s = 0; s < 6; s++)
        for (int nf = 0; nf < 2; nf++) {
            Config c;
            config_defaults(&c);
            snprintf(c.pos, sizeof c.pos, "%s", schemes[s]);
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
            CHECK(worst < 1e-5, "%s norm_first=%d: traced logits differ by %g", schemes[s], nf, worst);
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
            CHECK(row_err < 1e-5 && masked == 0, "%s: rows sum to 1 within %g, masked weight %g", schemes[s], row_err, masked);
            attention_maps_free(&a);
            arena_release(&arena, mark);
            model_free(&m);
        }
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
    RUN(test_heatmap_svg);
    arena_free(&arena);
    return check_summary();
}
