// Shifted positions (the `pos_offset` probe of scripts/extrapolate.sh, view 2), checked on
// whole models built in-process:
//   - relative schemes see only j - i: with every position shifted by k, ALiBi, T5 and KERPLE
//     give bit-identical logits and RoPE and xPos the same up to float rounding (cos/sin of
//     other angles round differently), in the translator (encoder, decoder, cross-attention)
//     and the LM;
//   - absolute schemes (sinusoidal, learned) change;
//   - the learned table wraps (row (t + k) % 32), so offsets k and k + 32 give bit-identical
//     logits.
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "core/arena.h"
#include "core/tape.h"
#include "models/model.h"

static Arena arena;

enum { V = 24, B = 2, TS = 7, TT = 6, LM_T = 9 };
// Two sentences of different lengths (0 = <pad>), so padding masks are part of the check.
static const int src[B * TS] = {5, 6, 7, 8, 9, 10, 3, 11, 12, 13, 3, 0, 0, 0};
static const int tgt_in[B * TT] = {2, 14, 15, 16, 17, 18, 2, 19, 20, 0, 0, 0};
static const int lm_ids[B * LM_T] = {5, 9, 6, 7, 12, 8, 9, 10, 11, 21, 4, 7, 13, 14, 15, 16, 17, 18};

static void small_config(Config *c, const char *model, const char *pos, int offset) {
    config_defaults(c);
    config_word(c, "model.model", model);
    snprintf(c->pos, sizeof c->pos, "%s", pos);
    c->d_model = 16; c->n_heads = 4; c->d_ff = 32; c->enc_layers = 2; c->dec_layers = 2;
    c->dropout = 0;
    c->seed = 11;
    c->pos_cfg.pos_offset = offset;
}

// Logits of the fixed batch from a model of `pos` built with position offset k. The weights
// come from the seed alone, so models with different offsets share them (checked by the caller
// through *params_out, a malloc'ed copy of the parameter buffer).
static float *logits_at(const char *model, const char *pos, int k, long *n, float **params_out, long *n_params) {
    Config c;
    small_config(&c, model, pos, k);
    Model m;
    model_build(&m, &c, V, V, 0);
    model_set_training(&m, 0);
    arena_reset(&arena);
    Tensor *y = !strcmp(model, "lm") ? lm_logits(&m, lm_ids, B, LM_T, NULL) : translator_logits(&m, src, B, TS, tgt_in, TT);
    *n = y->size;
    float *out = malloc(sizeof(float) * (size_t)y->size);
    memcpy(out, y->data, sizeof(float) * (size_t)y->size);
    if (params_out) {
        *n_params = m.ps.total;
        *params_out = malloc(sizeof(float) * (size_t)m.ps.total);
        memcpy(*params_out, m.ps.data, sizeof(float) * (size_t)m.ps.total);
    }
    model_free(&m);
    return out;
}

static double max_abs_diff(const float *a, const float *b, long n) {
    double w = 0;
    for (long i = 0; i < n; i++) w = fmax(w, fabs((double)a[i] - b[i]));
    return w;
}

static double max_abs(const float *a, long n) {
    double w = 0;
    for (long i = 0; i < n; i++) w = fmax(w, fabs((double)a[i]));
    return w;
}

static const int offsets[] = {1, 8, 16, 32, 64, 128, 512};
#define N_OFFSETS (int)(sizeof offsets / sizeof offsets[0])
// RoPE: q_m . k_n depends on m - n exactly, but cos/sin of (t + k) w round differently from
// those of t w; the rounding grows with the angle, so the tolerance is stated relative to the
// largest logit, for offsets up to 512 (measured: below 1e-6). xPos adds scales
// zeta^(+-p/gamma) to the rotation, exact in m - n too, and rounded the same way.
#define ROPE_REL_TOL 2e-5

// The schemes that see only offsets: bias schemes bit for bit, rotations up to rounding.
static const struct { const char *name; int exact; } relative[] = {
    {"alibi", 1}, {"t5", 1}, {"kerple", 1},
    {"rope", 0}, {"xpos", 0},
};
#define N_RELATIVE (int)(sizeof relative / sizeof relative[0])

static void test_relative_schemes_ignore_offset(void) {
    const char *models[2] = {"translator", "lm"};
    for (int mi = 0; mi < 2; mi++)
        for (int r = 0; r < N_RELATIVE; r++) {
            const char *scheme = relative[r].name;
            long n, np0, np;
            float *p0, *p;
            float *y0 = logits_at(models[mi], scheme, 0, &n, &p0, &np0);
            double worst_rel = 0;
            for (int i = 0; i < N_OFFSETS; i++) {
                long n1;
                float *y = logits_at(models[mi], scheme, offsets[i], &n1, &p, &np);
                CHECK(np == np0 && memcmp(p, p0, sizeof(float) * (size_t)np) == 0,
                      "%s %s: the offset changed the initial weights", models[mi], scheme);
                double diff = max_abs_diff(y0, y, n);
                if (relative[r].exact) {
                    CHECK(n1 == n && memcmp(y0, y, sizeof(float) * (size_t)n) == 0,
                          "%s %s: offset %d changed the logits by %g (want bit-identical)", models[mi],
                          scheme, offsets[i], diff);
                } else {
                    worst_rel = fmax(worst_rel, diff / max_abs(y0, n));
                    CHECK(diff <= ROPE_REL_TOL * max_abs(y0, n), "%s %s: offset %d changed the logits by %g (max logit %g)",
                          models[mi], scheme, offsets[i], diff, max_abs(y0, n));
                }
                free(y);
                free(p);
            }
            if (!relative[r].exact)
                printf("# %s %s: largest change over offsets up to 512, relative to the largest logit: %.2g\n",
                       models[mi], scheme, worst_rel);
            free(y0);
            free(p0);
        }
}

static void test_absolute_schemes_see_offset(void) {
    const char *models[2] = {"translator", "lm"};
    const char *schemes[2] = {"sinusoidal", "learned"};
    for (int mi = 0; mi < 2; mi++)
        for (int s = 0; s < 2; s++) {
            long n, n1;
            float *y0 = logits_at(models[mi], schemes[s], 0, &n, NULL, NULL);
            int probes[3] = {1, 8, 16};   // not multiples of 32: the learned table does not wrap back
            for (int i = 0; i < 3; i++) {
                float *y = logits_at(models[mi], schemes[s], probes[i], &n1, NULL, NULL);
                double diff = max_abs_diff(y0, y, n);
                CHECK(diff > 1e-3, "%s %s: offset %d left the logits unchanged (diff %g)", models[mi], schemes[s],
                      probes[i], diff);
                free(y);
            }
            free(y0);
        }
}

static void test_learned_wrap_is_periodic(void) {
    // Default max_len = 32 and pos_wrap = true: row (t + k) % 32. Offsets 30 and 62 make the
    // sentence itself cross the end of the table.
    const char *models[2] = {"translator", "lm"};
    int ks[] = {0, 3, 8, 17, 30, 45};
    for (int mi = 0; mi < 2; mi++)
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            long n, n1, n2;
            float *y = logits_at(models[mi], "learned", ks[i], &n, NULL, NULL);
            float *y32 = logits_at(models[mi], "learned", ks[i] + 32, &n1, NULL, NULL);
            float *y512 = logits_at(models[mi], "learned", ks[i] + 512, &n2, NULL, NULL);
            CHECK(n == n1 && memcmp(y, y32, sizeof(float) * (size_t)n) == 0,
                  "%s learned: offsets %d and %d differ by %g (want bit-identical)", models[mi], ks[i], ks[i] + 32,
                  max_abs_diff(y, y32, n));
            CHECK(n == n2 && memcmp(y, y512, sizeof(float) * (size_t)n) == 0,
                  "%s learned: offsets %d and %d differ by %g (want bit-identical)", models[mi], ks[i], ks[i] + 512,
                  max_abs_diff(y, y512, n));
            free(y);
            free(y32);
            free(y512);
        }
    // Half a period is not a period.
    long n, n1;
    float *a = logits_at("translator", "learned", 5, &n, NULL, NULL), *b = logits_at("translator", "learned", 21, &n1, NULL, NULL);
    CHECK(max_abs_diff(a, b, n) > 1e-3, "learned: offsets 5 and 21 gave the same logits");
    free(a);
    free(b);
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    tape_set_enabled(0);
    RUN(test_relative_schemes_ignore_offset);
    RUN(test_absolute_schemes_see_offset);
    RUN(test_learned_wrap_is_periodic);
    arena_free(&arena);
    return check_summary();
}
