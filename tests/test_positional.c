// The positional schemes against the math of the course note: the sinusoidal worked example
// and wavelengths, the shift-as-rotation identity, the wrapped learned table, RoPE's
// relative-only dot products and its angles with rope_scale and rope_base set, ALiBi slopes,
// T5 buckets and the bias they give the encoder and the decoder; every hook given a span of
// positions (as incremental decoding asks) gives exactly those rows of the whole sequence.
// Randomized positions: the sorted sample (hand-followed for one seed, and its distribution),
// and every hook fed with drawn positions computes with them.
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "grad_check.h"
#include "core/arena.h"
#include "core/ops.h"
#include "pos/pos.h"

static Arena arena;

static void test_sinusoidal_worked_example(void) {
    // d = 4: w_0 = 1, w_1 = 0.01. Rows 1..3 as printed (3 decimals) in the note.
    const float want[4][4] = {{0, 1, 0, 1}, {0.841f, 0.540f, 0.010f, 1.000f},
                              {0.909f, -0.416f, 0.020f, 1.000f}, {0.141f, -0.990f, 0.030f, 1.000f}};
    for (int pos = 0; pos < 4; pos++) {
        float row[4];
        sinusoidal_row(pos, 4, row);
        for (int c = 0; c < 4; c++) CHECK_NEAR(row[c], want[pos][c], 5e-4);
    }
}

// Wavelength of the slowest pair, measured from the table: the angle advanced per position.
static double last_pair_wavelength(int d) {
    float row[1024];
    sinusoidal_row(1, d, row);
    double w = atan2(row[d - 2], row[d - 1]);
    return 2 * 3.14159265358979 / w;
}

static void test_sinusoidal_wavelengths(void) {
    CHECK_NEAR(last_pair_wavelength(16), 19869, 1.0);
    CHECK_NEAR(last_pair_wavelength(512), 60611, 2.0);
    // The fastest pair has wavelength 2 pi.
    float row[8];
    sinusoidal_row(1, 8, row);
    CHECK_NEAR(2 * 3.14159265358979 / atan2(row[0], row[1]), 2 * 3.14159265358979, 1e-5);
}

static void test_shift_is_rotation(void) {
    // (sin w(p+k), cos w(p+k)) = [[cos wk, sin wk], [-sin wk, cos wk]] (sin wp, cos wp), any p.
    int d = 16;
    float a[16], b[16], rk[16];
    int ks[4] = {1, 3, 17, 250};
    for (int kk = 0; kk < 4; kk++) {
        int k = ks[kk];
        sinusoidal_row(k, d, rk);                 // sin wk, cos wk per pair
        double dot0 = -1;
        for (int p = 0; p < 300; p += 7) {
            sinusoidal_row(p, d, a);
            sinusoidal_row(p + k, d, b);
            double dot = 0;
            for (int i = 0; i < d / 2; i++) {
                float s = rk[2 * i], c = rk[2 * i + 1];
                CHECK_NEAR(b[2 * i], c * a[2 * i] + s * a[2 * i + 1], 1e-5);
                CHECK_NEAR(b[2 * i + 1], -s * a[2 * i] + c * a[2 * i + 1], 1e-5);
                dot += a[2 * i] * b[2 * i] + a[2 * i + 1] * b[2 * i + 1];
            }
            if (dot0 < 0) dot0 = dot;
            CHECK_NEAR(dot, dot0, 1e-4);          // P_p . P_p+k depends on k only
        }
    }
}

static void test_learned_wraps(void) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "learned");
    Params ps = {0};
    Positional p;
    pos_init(&p, &c, 1, &ps, "pos", "encoder");
    CHECK(ps.n == 1 && ps.total == 32L * c.d_model, "learned table has %ld parameters, expected 32 x %d", ps.total, c.d_model);
    CHECK(!strcmp(ps.list[0]->name, "pos.weight"), "table name %s", ps.list[0]->name);
    CHECK(learned_row(&p, 33) == 1, "position 33 uses row %d, expected 1", learned_row(&p, 33));
    CHECK(learned_row(&p, 31) == 31 && learned_row(&p, 64) == 0, "wrap rows");
    char err[256] = "";
    CHECK(pos_check_length(&p, 100, err, sizeof err) == 0, "wrapping accepts any length");
    p.cfg.pos_wrap = 0;
    CHECK(pos_check_length(&p, 32, err, sizeof err) == 0, "32 tokens fit without wrap");
    CHECK(pos_check_length(&p, 33, err, sizeof err) == -1 && strstr(err, "max_len = 32"),
          "33 tokens without wrap must be an error naming max_len, got '%s'", err);
    // Added to the input: token 33 of a 40-token sequence gets exactly row 1.
    params_alloc(&ps);
    for (long i = 0; i < ps.total; i++) ps.data[i] = (float)i;
    p.cfg.pos_wrap = 1;
    int shape[3] = {1, 40, c.d_model};
    Tensor *x = tensor_zeros(3, shape, 0);
    Tensor *y = pos_add_to_input(&p, x, (PosSpan){.start = 0, .len = 40});
    CHECK(memcmp(y->data + 33L * c.d_model, p.table->data + 1L * c.d_model, sizeof(float) * c.d_model) == 0,
          "token 33 did not receive row 1");
    params_free(&ps);
}

static void test_rope_relative(void) {
    // Rotate the same q and k vectors to every position: q_m . k_n depends on m - n only,
    // and rotation keeps norms.
    int T = 40, H = 2, D = 8, d = H * D, shape[3] = {1, T, d};
    Tensor *q = tensor_new(3, shape, 0), *k = tensor_new(3, shape, 0);
    Rng r = rng_stream(3, 0);
    float q0[16], k0[16];
    for (int c = 0; c < d; c++) { q0[c] = rng_normal(&r); k0[c] = rng_normal(&r); }
    for (int t = 0; t < T; t++) { memcpy(q->data + t * d, q0, sizeof q0); memcpy(k->data + t * d, k0, sizeof k0); }
    float pos[40];
    for (int t = 0; t < T; t++) pos[t] = (float)t;
    Tensor *qr = op_rope(q, H, pos, 10000), *kr = op_rope(k, H, pos, 10000);
    for (int delta = -5; delta <= 5; delta++) {
        double ref[2] = {0, 0};
        for (int m = 10; m < 30; m++) {
            int n = m - delta;
            for (int h = 0; h < H; h++) {
                double dot = 0;
                for (int e = 0; e < D; e++) dot += qr->data[m * d + h * D + e] * kr->data[n * d + h * D + e];
                if (m == 10) ref[h] = dot;
                CHECK_NEAR(dot, ref[h], 2e-5);
            }
        }
    }
    for (int t = 0; t < T; t++) {
        double n0 = 0, n1 = 0;
        for (int c = 0; c < d; c++) { n0 += q0[c] * q0[c]; n1 += qr->data[t * d + c] * qr->data[t * d + c]; }
        CHECK_NEAR(n1, n0, 1e-4);
    }
    // Position 0 is the identity (the angles themselves: test_rope_scheme_angles).
    CHECK(memcmp(qr->data, q0, sizeof q0) == 0, "rotation at position 0 changed the vector");
}

// The scheme set up for an encoder and a decoder stack, as a model does.
static void encoder_and_decoder(const char *scheme, int n_heads, Params *ps, Positional *enc, Positional *dec) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "%s", scheme);
    c.n_heads = n_heads;
    pos_init(enc, &c, 1, ps, "pos", "encoder");
    pos_init(dec, &c, 0, ps, "pos", "decoder");
}
// The scheme as a model stack sets it up: linear scaling by 2 (position interpolation) and
// rope_base 100, d_k = 4. Token t sits at p = t / 2; pair 0 turns by p, pair 1 by p * 100^(-2/4) = p / 10.
// Token 3: angles 1.5 and 0.15; token 4: 2 and 0.2. With pos_offset 1, token 3 is at p = 2.
static void test_rope_scheme_angles(void) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "rope");
    c.d_model = 8; c.n_heads = 2; c.pos_cfg.rope_base = 100;
    c.pos_cfg.rope_scaling = ROPE_SCALING_LINEAR;
    c.pos_cfg.rope_factor = 2;
    Params ps = {0};
    Positional p;
    pos_init(&p, &c, 0, &ps, "pos", "decoder");
    int shape[3] = {1, 5, 8};
    Tensor *x = tensor_zeros(3, shape, 0);
    for (int t = 0; t < 5; t++)
        for (int c2 = 0; c2 < 8; c2 += 2) x->data[t * 8 + c2] = 1;   // every pair (1, 0)
    const double want[2][4] = {{cos(1.5), sin(1.5), cos(0.15), sin(0.15)}, {cos(2.0), sin(2.0), cos(0.2), sin(0.2)}};
    PosSpan rows = {.start = 0, .len = 5};
    Tensor *y = pos_rotate(&p, x, rows, NULL);
    for (int t = 3; t < 5; t++)
        for (int h = 0; h < 2; h++)
            for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[t * 8 + h * 4 + e], want[t - 3][e], 1e-6);
    p.cfg.pos_offset = 1;
    y = pos_rotate(&p, x, rows, NULL);
    for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[3 * 8 + e], want[1][e], 1e-6);
}

// A rope stack of head width 16 (the LM's d_k) with base 10000 and the given stretch; L = 32.
static Positional rope16(const char *scaling, float factor) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "rope");
    config_word(&c, "model.rope_scaling", scaling);
    c.d_model = 64; c.n_heads = 4; c.pos_cfg.rope_factor = factor; c.pos_cfg.rope_original_len = 32;
    c.pos_cfg.yarn_alpha = 0.5f; c.pos_cfg.yarn_beta = 4;
    Params ps = {0};
    Positional p;
    pos_init(&p, &c, 0, &ps, "pos", "decoder");
    return p;
}

// D = 16, b = 10000: θ_i = 10000^(-i/8) = 1, 0.316228, 0.1, ..., 10^-3.5 = 3.16228e-4.
// linear s = 4 divides each by 4. NTK s = 2: b' = 10000 · 2^(16/14) = 22,081.8 (s = 4:
// 48,760.5), so θ_1 = b'^(-1/8), the slowest pair exactly half as fast and pair 0 unchanged.
static void test_rope_inv_freq_by_hand(void) {
    double none[8], f[8];
    Positional p = rope16("none", 1);
    rope_inv_freq(&p, 32, none);
    const double want[8] = {1, 0.316227766, 0.1, 0.0316227766, 0.01, 0.00316227766, 0.001, 0.000316227766};
    for (int i = 0; i < 8; i++) CHECK_NEAR(none[i], want[i], 1e-9);
    p = rope16("linear", 4);
    rope_inv_freq(&p, 32, f);
    for (int i = 0; i < 8; i++) CHECK_NEAR(f[i], want[i] / 4, 1e-9);
    p = rope16("ntk", 2);
    rope_inv_freq(&p, 32, f);
    CHECK_NEAR(f[0], 1, 0);
    CHECK_NEAR(pow(f[1], -8), 22081.79, 0.01);          // the base the pair implies
    CHECK_NEAR(f[2], pow(22081.79, -2.0 / 8), 1e-9);
    CHECK_NEAR(f[7], want[7] / 2, 1e-12);
    p = rope16("ntk", 4);
    rope_inv_freq(&p, 32, f);
    CHECK_NEAR(pow(f[1], -8), 48760.55, 0.01);
    CHECK_NEAR(f[7], want[7] / 4, 1e-12);
}

// YaRN, L = 32, s = 4, alpha 0.5, beta 4. Pair i turns r_i = 32 θ_i / 2π times in the window:
// r_0 = 5.093 > beta: kept (γ = 1, θ' = 1); r_2 = 0.5093 just above alpha and r_3 = 0.161
// below it: γ_3 = 0, θ' = θ/4. The middle pair by hand: r_1 = 32 · 0.316228 / 2π = 1.610535,
// γ = (1.610535 - 0.5) / 3.5 = 0.317296, θ' = 0.316228 · (0.682704/4 + 0.317296) = 0.154310.
static void test_yarn_by_hand(void) {
    CHECK_NEAR(yarn_ramp(0.4, 0.5, 4), 0, 0);
    CHECK_NEAR(yarn_ramp(0.5, 0.5, 4), 0, 0);
    CHECK_NEAR(yarn_ramp(2.25, 0.5, 4), 0.5, 1e-15);
    CHECK_NEAR(yarn_ramp(4, 0.5, 4), 1, 0);
    CHECK_NEAR(yarn_ramp(9, 0.5, 4), 1, 0);
    double f[8];
    Positional p = rope16("yarn", 4);
    rope_inv_freq(&p, 4096, f);
    CHECK_NEAR(f[0], 1, 0);
    CHECK_NEAR(f[1], 0.1543102, 1e-7);
    CHECK_NEAR(f[2], 0.1 * (0.997344 / 4 + 0.002656), 1e-6);
    for (int i = 3; i < 8; i++) CHECK_NEAR(f[i], pow(10000, -i / 8.0) / 4, 1e-15);
    // The temperature: q and k each times 0.1 ln 4 + 1 = 1.138629, the logits times 1.296477.
    CHECK_NEAR(rope_qk_factor(&p), 1.138629436, 1e-9);
    CHECK_NEAR(rope_qk_factor(&p) * rope_qk_factor(&p), 1.296476993, 1e-9);
    Positional q = rope16("yarn", 1), r = rope16("ntk", 4);
    CHECK_NEAR(rope_qk_factor(&q), 1, 0);
    CHECK_NEAR(rope_qk_factor(&r), 1, 0);
    // Through the stack's rotation: at position 0 nothing turns, so a query (1, 2, 0, ...) comes
    // out times 1.138629 and its dot product with itself times 1.296477 (5 -> 6.482385). At
    // position 1 pair 0 (kept, θ' = 1) of (1, 0) is 1.138629 · (cos 1, sin 1) = (0.615204, 0.958124).
    int shape[3] = {1, 2, 64};
    Tensor *x = tensor_zeros(3, shape, 0);
    x->data[0] = 1; x->data[1] = 2; x->data[64] = 1;
    Tensor *y = pos_rotate(&p, x, (PosSpan){.start = 0, .len = 2}, NULL);
    CHECK_NEAR(y->data[0], 1.138629436, 1e-6);
    CHECK_NEAR(y->data[0] * y->data[0] + y->data[1] * y->data[1], 6.482384964, 1e-5);
    CHECK_NEAR(y->data[64], 0.6152041, 1e-6);
    CHECK_NEAR(y->data[65], 0.9581236, 1e-6);
}

// Dynamic NTK is no stretch up to L = 32 positions (bit for bit) and NTK with s = n / L past it.
static void test_rope_dynamic(void) {
    double none[8], ntk[8], f[8];
    Positional d = rope16("dynamic", 1), p = rope16("none", 1);
    rope_inv_freq(&p, 32, none);
    for (int n = 1; n <= 32; n += 31) {
        rope_inv_freq(&d, n, f);
        CHECK(!memcmp(f, none, sizeof f), "dynamic at n = %d differs from none", n);
    }
    for (int s = 2; s <= 128; s *= 4) {
        p = rope16("ntk", (float)s);
        rope_inv_freq(&p, 0, ntk);
        rope_inv_freq(&d, 32 * s, f);
        for (int i = 0; i < 8; i++) CHECK_NEAR(f[i], ntk[i], 1e-15);
    }
    rope_inv_freq(&d, 48, f);   // s = 1.5: b' = 10000 · 1.5^(8/7)
    CHECK_NEAR(pow(f[1], -8), 10000 * pow(1.5, 8.0 / 7), 1e-6);
    // The stack takes n from the rows it rotates: positions 0..63 are n = 64, s = 2.
    int shape[3] = {1, 64, 64};
    Tensor *x = tensor_zeros(3, shape, 0);
    for (int t = 0; t < 64; t++) x->data[t * 64 + 14] = 1;   // pair 7 of head 0 = (1, 0)
    Tensor *y = pos_rotate(&d, x, (PosSpan){.start = 0, .len = 64}, NULL);
    CHECK_NEAR(y->data[63 * 64 + 14], cos(63 * 0.000316227766 / 2), 1e-7);
    CHECK_NEAR(y->data[63 * 64 + 15], sin(63 * 0.000316227766 / 2), 1e-7);
}

// T5 through the bias a stack adds to its scores: table entry (bucket b, head h) = b + 100 h,
// so each bias entry names its bucket. T = 4: the encoder puts key j before query i in
// bucket i - j and after it in 16 + (j - i); the decoder uses i - j for keys before, 0 after.
// A t5 encoder and decoder of 2 heads whose tables name their buckets: entry (b, h) = b + 100 h.
static void t5_naming_buckets(Params *ps, Positional *enc, Positional *dec) {
    encoder_and_decoder("t5", 2, ps, enc, dec);
    params_alloc(ps);
    for (int b = 0; b < T5_BUCKETS; b++)
        for (int h = 0; h < 2; h++) enc->table->data[b * 2 + h] = dec->table->data[b * 2 + h] = (float)(b + 100 * h);
}

static void test_t5_bias_buckets(void) {
    Params ps = {0};
    Positional enc, dec;
    t5_naming_buckets(&ps, &enc, &dec);
    const int want_enc[4][4] = {{0, 17, 18, 19}, {1, 0, 17, 18}, {2, 1, 0, 17}, {3, 2, 1, 0}};
    const int want_dec[4][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}, {3, 2, 1, 0}};
    PosSpan all = {.start = 0, .len = 4};
    Tensor *be = pos_self_bias(&enc, all, all), *bd = pos_self_bias(&dec, all, all);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                CHECK_NEAR(be->data[(h * 4 + i) * 4 + j], want_enc[i][j] + 100 * h, 0);
                CHECK_NEAR(bd->data[(h * 4 + i) * 4 + j], want_dec[i][j] + 100 * h, 0);
            }
    params_free(&ps);
}

static void test_alibi_slopes(void) {
    float m[8];
    alibi_slopes(8, m);
    for (int k = 0; k < 8; k++) CHECK_NEAR(m[k], 1.0 / (2 << k), 0);   // 1/2 ... 1/256
    // 6 heads: the 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3 from the 8-head list.
    float want6[6] = {0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f};
    alibi_slopes(6, m);
    for (int k = 0; k < 6; k++) CHECK_NEAR(m[k], want6[k], 0);
    alibi_slopes(1, m);
    CHECK_NEAR(m[0], 1.0 / 256, 0);
}

static void test_alibi_bias_shape(void) {
    Params ps = {0};
    Positional enc, dec;
    encoder_and_decoder("alibi", 4, &ps, &enc, &dec);
    CHECK(ps.n == 0, "ALiBi has no parameters");
    int T = 6;
    PosSpan all = {.start = 0, .len = T};
    Tensor *be = pos_self_bias(&enc, all, all), *bd = pos_self_bias(&dec, all, all);
    float slopes[4];
    alibi_slopes(4, slopes);
    for (int h = 0; h < 4; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                float e = be->data[(h * T + i) * T + j];
                CHECK(e == be->data[(h * T + j) * T + i], "encoder bias not symmetric");
                CHECK_NEAR(e, -slopes[h] * abs(i - j), 0);
                if (j <= i) CHECK_NEAR(bd->data[(h * T + i) * T + j], -slopes[h] * (i - j), 0);
            }
}

static void test_t5_buckets(void) {
    // Encoder (bidirectional): 16 buckets a side; distances 0-7 exact.
    for (int n = 0; n < 8; n++) {
        CHECK(t5_bucket(-n, 1) == n, "key %d before: bucket %d", n, t5_bucket(-n, 1));
        if (n) CHECK(t5_bucket(n, 1) == 16 + n, "key %d after: bucket %d", n, t5_bucket(n, 1));
    }
    // Log-spaced beyond: 8 + floor(ln(n/8) / ln(16) * 8), capped at 15.
    int ns[6] = {8, 10, 16, 64, 127, 500}, want[6] = {8, 8, 10, 14, 15, 15};
    for (int i = 0; i < 6; i++) {
        CHECK(t5_bucket(-ns[i], 1) == want[i], "distance %d: bucket %d, expected %d", ns[i], t5_bucket(-ns[i], 1), want[i]);
        CHECK(t5_bucket(ns[i], 1) == 16 + want[i], "distance +%d: bucket %d", ns[i], t5_bucket(ns[i], 1));
    }
    // Monotone in distance; decoder (unidirectional): 0-15 exact, future keys share bucket 0.
    for (int n = 1; n < 300; n++) CHECK(t5_bucket(-n, 1) >= t5_bucket(-(n - 1), 1), "not monotone at %d", n);
    for (int n = 0; n < 16; n++) CHECK(t5_bucket(-n, 0) == n, "decoder distance %d", n);
    CHECK(t5_bucket(5, 0) == 0 && t5_bucket(-1000, 0) == 31, "decoder edges");
}

// KERPLE-log by hand, H = 2: raw_r1 = (0, 1), raw_r2 = (0, -1), so r1 = softplus = (ln 2,
// 1.3132617) and r2 = (ln 2, 0.3132617); bias_h(d) = -r1_h log(1 + r2_h d) for d = |i - j|:
// head 0: 0, -0.3650037, -0.6028590, -0.7796161; head 1: 0, -0.3578820, -0.6388294,
// -0.8701372. Encoder and decoder alike (the decoder's keys after the query are masked).
// Shifting every position (pos_offset 100) leaves every entry unchanged, bit for bit.
static void test_kerple_bias_by_hand(void) {
    Params ps = {0};
    Positional enc, dec;
    encoder_and_decoder("kerple", 2, &ps, &enc, &dec);
    CHECK(ps.n == 4 && !strcmp(ps.list[0]->name, "encoder.kerple.raw_r1") && !strcmp(ps.list[3]->name, "decoder.kerple.raw_r2"),
          "KERPLE parameters: %d, first '%s'", ps.n, ps.n ? ps.list[0]->name : "");
    params_alloc(&ps);
    Positional *both[2] = {&enc, &dec};
    for (int k = 0; k < 2; k++) {
        both[k]->weights[0]->data[1] = 1;
        both[k]->weights[1]->data[1] = -1;
    }
    const double want[2][4] = {{0, -0.3650037, -0.6028590, -0.7796161}, {0, -0.3578820, -0.6388294, -0.8701372}};
    PosSpan all = {.start = 0, .len = 4};
    for (int k = 0; k < 2; k++) {
        Tensor *b = pos_self_bias(both[k], all, all);
        CHECK(b->ndim == 3 && b->shape[0] == 2 && b->shape[1] == 4 && b->shape[2] == 4, "bias shape");
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) CHECK_NEAR(b->data[(h * 4 + i) * 4 + j], want[h][abs(i - j)], 1e-6);
        both[k]->cfg.pos_offset = 100;
        Tensor *shifted = pos_self_bias(both[k], all, all);
        CHECK(!memcmp(shifted->data, b->data, sizeof(float) * (size_t)b->size), "KERPLE bias changed with pos_offset");
    }
    params_free(&ps);
}

// FIRE by hand, H = 2, with an MLP that shows its input: hidden unit 0 = relu(z), the others
// 0; head 0 = unit 0, head 1 = 2 unit 0 + 0.5. Within the threshold L = 32 the input is
// z = log(1 + |i - j|) / log(1 + 32): 0, 0.1982399, 0.3142027, 0.3964797 for distances 0..3,
// in the encoder and the decoder alike, and unchanged by pos_offset 10 (every position
// still below L). With pos_offset 40 the normaliser is log(1 + max(i, j)): query 43 and key
// 40 give log 4 / log 44 = 0.3663385, query 41 and key 40 log 2 / log 42 = 0.1854490: FIRE is not
// offset-invariant beyond L, by design.
static void test_fire_bias_by_hand(void) {
    Params ps = {0};
    Positional enc, dec;
    encoder_and_decoder("fire", 2, &ps, &enc, &dec);
    CHECK(ps.n == 8 && !strcmp(ps.list[0]->name, "encoder.fire.fc1.weight") && !strcmp(ps.list[7]->name, "decoder.fire.fc2.bias"),
          "FIRE parameters: %d, first '%s'", ps.n, ps.n ? ps.list[0]->name : "");
    params_alloc(&ps);
    Positional *both[2] = {&enc, &dec};
    for (int k = 0; k < 2; k++) {
        Tensor **w = both[k]->weights;   // fc1.weight (32,1), fc1.bias (32), fc2.weight (2,32), fc2.bias (2)
        w[0]->data[0] = 1;
        w[2]->data[0] = 1;
        w[2]->data[32] = 2;
        w[3]->data[1] = 0.5f;
    }
    const double z[4] = {0, 0.1982399, 0.3142027, 0.3964797};
    PosSpan all = {.start = 0, .len = 4};
    for (int k = 0; k < 2; k++) {
        Tensor *b = pos_self_bias(both[k], all, all);
        CHECK(b->ndim == 3 && b->shape[0] == 2 && b->shape[1] == 4 && b->shape[2] == 4, "bias shape");
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                CHECK_NEAR(b->data[i * 4 + j], z[abs(i - j)], 1e-6);
                CHECK_NEAR(b->data[16 + i * 4 + j], 2 * z[abs(i - j)] + 0.5, 1e-6);
            }
        both[k]->cfg.pos_offset = 10;
        Tensor *within = pos_self_bias(both[k], all, all);
        CHECK(!memcmp(within->data, b->data, sizeof(float) * (size_t)b->size), "FIRE bias changed with pos_offset 10 < L");
        both[k]->cfg.pos_offset = 40;
        Tensor *beyond = pos_self_bias(both[k], all, all);
        CHECK_NEAR(beyond->data[3 * 4 + 0], 0.3663385, 1e-6);   // query 43, key 40
        CHECK_NEAR(beyond->data[0 * 4 + 3], 0.3663385, 1e-6);   // query 40, key 43 (masked in the decoder)
        CHECK_NEAR(beyond->data[1 * 4 + 0], 0.1854490, 1e-6);   // query 41, key 40: log 2 / log 42
    }
    params_free(&ps);
}

// FIRE with model.fire_learned: two more parameters per stack, log_c and log_l, zero at the
// start (c = 1, L = 32: the fixed scheme's bias, bit for bit). Set to ln 2 and ln 1/4 they
// give c = 2 and L = 8, and with the MLP of test_fire_bias_by_hand (head 0 = z) the input is
// z = log(1 + 2 |i - j|) / log(1 + 2 max(8, i, j)): 0, log 3 / log 17 = 0.3877619,
// log 5 / log 17 = 0.5680610, log 7 / log 17 = 0.6868209 for distances 0..3; with pos_offset
// 10 the positions pass L: query 13 and key 10 give log 7 / log 27 = 0.5904146, query 11 and
// key 10 log 3 / log 23 = 0.3503793.
static void test_fire_learned_by_hand(void) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "fire");
    c.n_heads = 2;
    Params ps = {0}, fixed_ps = {0};
    Positional p, fixed;
    pos_init(&fixed, &c, 0, &fixed_ps, "pos", "decoder");
    c.pos_cfg.fire_learned = 1;
    pos_init(&p, &c, 0, &ps, "pos", "decoder");
    CHECK(ps.n == 6 && !strcmp(ps.list[4]->name, "decoder.fire.log_c") && !strcmp(ps.list[5]->name, "decoder.fire.log_l")
              && !ps.list[4]->decay && !ps.list[5]->decay,
          "learned FIRE parameters: %d, fifth '%s'", ps.n, ps.n > 4 ? ps.list[4]->name : "");
    params_alloc(&ps);
    params_alloc(&fixed_ps);
    Positional *both[2] = {&p, &fixed};
    for (int k = 0; k < 2; k++) {
        Tensor **w = both[k]->weights;
        w[0]->data[0] = 1;
        w[2]->data[0] = 1;
        w[2]->data[32] = 2;
        w[3]->data[1] = 0.5f;
    }
    PosSpan all = {0, 4, NULL};
    Tensor *start = pos_self_bias(&p, all, all), *same = pos_self_bias(&fixed, all, all);
    CHECK(!memcmp(start->data, same->data, sizeof(float) * (size_t)same->size), "learned FIRE at its start differs from the fixed one");
    p.weights[4]->data[0] = (float)log(2.0);
    p.weights[5]->data[0] = (float)log(0.25);
    const double z[4] = {0, 0.3877619, 0.5680610, 0.6868209};
    Tensor *b = pos_self_bias(&p, all, all);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            CHECK_NEAR(b->data[i * 4 + j], z[abs(i - j)], 1e-6);
            CHECK_NEAR(b->data[16 + i * 4 + j], 2 * z[abs(i - j)] + 0.5, 1e-6);
        }
    p.cfg.pos_offset = 10;
    Tensor *beyond = pos_self_bias(&p, all, all);
    CHECK_NEAR(beyond->data[3 * 4 + 0], 0.5904146, 1e-6);   // query 13, key 10
    CHECK_NEAR(beyond->data[1 * 4 + 0], 0.3503793, 1e-6);   // query 11, key 10
    params_free(&ps);
    params_free(&fixed_ps);
}

// xPos by hand: one head of width 4 (pairs 0, 1: zeta = 1.6/5.6 = 0.2857143, 3.6/5.6 =
// 0.6428571), gamma 2, rope_base 10000 (angles p and p/100). Every pair (1, 0) at position 2:
// the query becomes (cos 2, sin 2) * zeta_0 and (cos 0.02, sin 0.02) * zeta_1, the key the
// same rotation times 1/zeta_0 = 3.5 and 1/zeta_1 = 1.5555556. The encoder (bidirectional)
// gets the rotation alone. A query at 5 and a key at 2 holding pair 0 only: q . k =
// cos(3) zeta_0^(3/2) = -0.1511924, RoPE's cos(3) times the decay.
static Config xpos_config(int d_model, int n_heads, float gamma) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "xpos");
    c.d_model = d_model; c.n_heads = n_heads; c.pos_cfg.xpos_gamma = gamma;
    return c;
}

static void test_xpos_by_hand(void) {
    Config c = xpos_config(4, 1, 2);
    Params ps = {0};
    Positional dec, enc;
    pos_init(&dec, &c, 0, &ps, "pos", "decoder");
    pos_init(&enc, &c, 1, &ps, "pos", "encoder");
    CHECK(ps.n == 0, "xPos has no parameters");
    int shape[3] = {1, 3, 4};
    Tensor *x = tensor_zeros(3, shape, 0);
    for (int t = 0; t < 3; t++) x->data[t * 4] = x->data[t * 4 + 2] = 1;
    PosSpan rows = {.start = 0, .len = 3};
    Tensor *q = pos_rotate(&dec, x, rows, NULL), *k = pos_rotate_key(&dec, x, rows, NULL), *e = pos_rotate_key(&enc, x, rows, NULL);
    const double rot[4] = {cos(2.0), sin(2.0), cos(0.02), sin(0.02)}, zq[4] = {0.2857143, 0.2857143, 0.6428571, 0.6428571};
    const double zk[4] = {3.5, 3.5, 1.5555556, 1.5555556};
    for (int c2 = 0; c2 < 4; c2++) {
        CHECK_NEAR(q->data[8 + c2], rot[c2] * zq[c2], 1e-6);
        CHECK_NEAR(k->data[8 + c2], rot[c2] * zk[c2], 1e-6);
        CHECK_NEAR(e->data[8 + c2], rot[c2], 1e-6);
        CHECK_NEAR(q->data[c2], c2 % 2 == 0, 0);   // position 0: no rotation, no scale
    }
    Tensor *one = tensor_zeros(3, (int[]){1, 1, 4}, 0);
    one->data[0] = 1;
    Tensor *q5 = pos_rotate(&dec, one, (PosSpan){.start = 5, .len = 1}, NULL), *k2 = pos_rotate_key(&dec, one, (PosSpan){.start = 2, .len = 1}, NULL);
    double dot = 0;
    for (int c2 = 0; c2 < 4; c2++) dot += (double)q5->data[c2] * k2->data[c2];
    CHECK_NEAR(dot, -0.1511924, 1e-6);
    params_free(&ps);
}

// q . k depends on m - n only: the same contents at (7, 3) and (12, 8), two heads of width 4,
// gamma 8.
static void test_xpos_relative(void) {
    Config c = xpos_config(8, 2, 8);
    Params ps = {0};
    Positional p;
    pos_init(&p, &c, 0, &ps, "pos", "decoder");
    Rng r = rng_stream(3, 0);
    Tensor *qv = tensor_new(3, (int[]){1, 1, 8}, 0), *kv = tensor_new(3, (int[]){1, 1, 8}, 0);
    for (int i = 0; i < 8; i++) qv->data[i] = rng_normal(&r), kv->data[i] = rng_normal(&r);
    double dots[2];
    const int at[2][2] = {{7, 3}, {12, 8}};
    for (int s = 0; s < 2; s++) {
        Tensor *q = pos_rotate(&p, qv, (PosSpan){.start = at[s][0], .len = 1}, NULL), *k = pos_rotate_key(&p, kv, (PosSpan){.start = at[s][1], .len = 1}, NULL);
        dots[s] = 0;
        for (int i = 0; i < 8; i++) dots[s] += (double)q->data[i] * k->data[i];
    }
    CHECK(fabs(dots[0] - dots[1]) <= 1e-5 * fabs(dots[0]) + 1e-6, "q.k at (7,3) %.7f, at (12,8) %.7f", dots[0], dots[1]);
    params_free(&ps);
}

// Positions whose key scale leaves float32's safe range are refused with a message naming
// the key: with gamma 32 and zeta_0 = 2/7 that is past position 80 * 32 / ln 3.5 = 2043.5.
// Encoders have no decay and no limit. An odd head width is a config error on model.pos.
static void test_xpos_limits(void) {
    Config c = xpos_config(64, 4, 32);   // the defaults: d_k = 16, gamma 32
    Params ps = {0};
    Positional dec, enc;
    pos_init(&dec, &c, 0, &ps, "pos", "decoder");
    pos_init(&enc, &c, 1, &ps, "pos", "encoder");
    char err[256] = "";
    CHECK(pos_check_length(&dec, 2044, err, sizeof err) == 0, "positions 0..2043 refused: %s", err);
    CHECK(pos_check_length(&dec, 2045, err, sizeof err) == -1 && strstr(err, "position 2044") && strstr(err, "xpos_gamma"),
          "position 2044 accepted or message '%s'", err);
    CHECK(pos_check_length(&enc, 100000, err, sizeof err) == 0, "encoder refused a length");
    c.d_model = 12; c.n_heads = 4;
    const char *key = NULL;
    CHECK(pos_check_config(&c, &key, err, sizeof err) == -1 && key && !strcmp(key, "pos") && strstr(err, "even head size"),
          "odd head width: '%s'", err);
}

// Gradients of the score bias reach the stack's learned parameters through the tape: a
// finite-difference check of the bias (H, 3 queries at positions 5.., 7 keys) against each
// tensor in Positional.table and .weights, for every scheme of the registry that learns
// its bias, encoder and decoder.
static const Positional *gc_pos;
static Tensor *f_self_bias(Tensor **in) { return pos_self_bias(gc_pos, (PosSpan){.start = 5, .len = 3}, (PosSpan){.start = 0, .len = 8}); }

static void test_learned_bias_gradients(void) {
    for (int s = 0; s < pos_scheme_count(); s++)
        for (int bidir = 0; bidir < 2; bidir++) {
            Config c;
            config_defaults(&c);
            snprintf(c.pos, sizeof c.pos, "%s", pos_scheme_at(s)->name);
            c.d_model = 8; c.n_heads = 2;
            Params ps = {0};
            Positional p;
            pos_init(&p, &c, bidir, &ps, "pos", "decoder");
            if (!p.scheme->self_bias || ps.n == 0) {   // no learned bias
                params_free(&ps);
                continue;
            }
            params_alloc(&ps);
            gc_rng = rng_stream(11, 0);
            for (long i = 0; i < ps.total; i++) ps.data[i] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
            if (!strcmp(p.scheme->name, "fire"))   // keep its hidden ReLUs off their kink for z in [0, 1]
                for (int k = 0; k < p.weights[1]->size; k++) {
                    float w = fabsf(p.weights[0]->data[k]) + 0.1f;
                    p.weights[1]->data[k] = p.weights[1]->data[k] >= 0 ? w : -w;
                }
            Tensor *in[POS_MAX_WEIGHTS + 1] = {p.table};
            for (int w = 0; w < POS_MAX_WEIGHTS; w++) in[w + 1] = p.weights[w];
            gc_pos = &p;
            grad_check(pos_scheme_at(s)->name, f_self_bias, in, POS_MAX_WEIGHTS + 1);
            params_free(&ps);
        }
}

// The learned c and L against finite differences, encoder and decoder: queries at 25..27,
// keys at 20..27, c = e^0.3, L = 26.5 (log_l = ln 26.5/32), so that L sets the normaliser of
// the entries with max(i, j) = 25, 26 and a position that of max(i, j) = 27, and both
// branches of dz/dL are checked (a step of 1e-2 in log_l moves L by 0.27: no position crossed).
static Tensor *f_fire_late_bias(Tensor **in) { return pos_self_bias(gc_pos, (PosSpan){25, 3, NULL}, (PosSpan){20, 8, NULL}); }

static void test_fire_learned_gradients(void) {
    for (int bidir = 0; bidir < 2; bidir++) {
        Config c;
        config_defaults(&c);
        snprintf(c.pos, sizeof c.pos, "fire");
        c.d_model = 8; c.n_heads = 2; c.pos_cfg.fire_learned = 1;
        Params ps = {0};
        Positional p;
        pos_init(&p, &c, bidir, &ps, "pos", "decoder");
        params_alloc(&ps);
        gc_rng = rng_stream(12, 0);
        for (long i = 0; i < ps.total; i++) ps.data[i] = 2.0f * rng_uniform(&gc_rng) - 1.0f;
        for (int k = 0; k < p.weights[1]->size; k++) {   // hidden ReLUs off their kink for z in [0, 1]
            float w = fabsf(p.weights[0]->data[k]) + 0.1f;
            p.weights[1]->data[k] = p.weights[1]->data[k] >= 0 ? w : -w;
        }
        p.weights[4]->data[0] = 0.3f;
        p.weights[5]->data[0] = (float)log(26.5 / 32);
        Tensor *in[POS_MAX_WEIGHTS];
        for (int w = 0; w < POS_MAX_WEIGHTS; w++) in[w] = p.weights[w];
        gc_pos = &p;
        grad_check(bidir ? "fire learned, encoder" : "fire learned, decoder", f_fire_late_bias, in, POS_MAX_WEIGHTS);
        params_free(&ps);
    }
}

// Rows [a, a+n) of a (1,T,d) tensor as a (1,n,d) tensor.
static Tensor *rows_of(const Tensor *x, int a, int n) {
    int d = x->shape[2], shape[3] = {1, n, d};
    Tensor *y = tensor_new(3, shape, 0);
    memcpy(y->data, x->data + (long)a * d, sizeof(float) * (size_t)n * d);
    return y;
}

// The hooks asked for some positions (query rows a.., key rows 0..; the rows a.. of an input)
// give bit for bit what they give for the whole sequence at those positions, with and
// without pos_offset: what incremental decoding relies on.
static void test_spans_give_rows_of_the_whole(void) {
    int T = 12, d = 16, H = 4;
    for (int s = 0; s < pos_scheme_count(); s++)   // every scheme of the registry
        for (int bidir = 0; bidir < 2; bidir++)
            for (int offset = 0; offset <= 5; offset += 5) {
                Config c;
                config_defaults(&c);
                snprintf(c.pos, sizeof c.pos, "%s", pos_scheme_at(s)->name);
                c.d_model = d; c.n_heads = H; c.pos_cfg.max_len = 8; c.pos_cfg.pos_offset = offset;   // learned wraps past 8
                Params ps = {0};
                Positional p;
                pos_init(&p, &c, bidir, &ps, "pos", "encoder");
                params_alloc(&ps);
                Rng r = rng_stream(7, 0);
                for (long i = 0; i < ps.total; i++) ps.data[i] = rng_normal(&r);
                int shape[3] = {1, T, d};
                Tensor *x = tensor_new(3, shape, 0);
                for (long i = 0; i < x->size; i++) x->data[i] = rng_normal(&r);
                Tensor *full_in = pos_add_to_input(&p, x, (PosSpan){.start = 0, .len = T}), *full_rot = pos_rotate(&p, x, (PosSpan){.start = 0, .len = T}, NULL);
                Tensor *full_key = pos_rotate_key(&p, x, (PosSpan){.start = 0, .len = T}, NULL);
                Tensor *full_bias = pos_self_bias(&p, (PosSpan){.start = 0, .len = T}, (PosSpan){.start = 0, .len = T});
                int same = 1;
                for (int a = 0; a < T; a += 3)
                    for (int n = 1; a + n <= T; n += 4) {
                        Tensor *part = rows_of(x, a, n);
                        Tensor *in = pos_add_to_input(&p, part, (PosSpan){.start = a, .len = n}), *rot = pos_rotate(&p, part, (PosSpan){.start = a, .len = n}, NULL);
                        same &= !memcmp(in->data, full_in->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        same &= !memcmp(rot->data, full_rot->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        Tensor *key = pos_rotate_key(&p, part, (PosSpan){.start = a, .len = n}, NULL);
                        same &= !memcmp(key->data, full_key->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        Tensor *bias = pos_self_bias(&p, (PosSpan){.start = a, .len = n}, (PosSpan){.start = 0, .len = a + n});   // (H,n,a+n)
                        same &= !bias == !full_bias;
                        for (int h = 0; bias && h < H; h++)
                            for (int i = 0; i < n; i++)
                                same &= !memcmp(bias->data + ((long)h * n + i) * (a + n),
                                                full_bias->data + ((long)h * T + a + i) * T, sizeof(float) * (size_t)(a + n));
                    }
                CHECK(same, "%s bidirectional=%d offset=%d: a span's rows differ from the whole's", pos_scheme_at(s)->name, bidir, offset);
                params_free(&ps);
            }
}

// ---------------------------------------------------------------- randomized positions

// Followed by hand: stream (7, 1) gives rng_below(10), (9), (8), (7), (6) = 5, 7, 1, 0, 0
// (the test checks these draws too). Algorithm S keeps i when the draw is below the number
// still needed: i = 0 (5 >= 3) no, i = 1 (7 >= 3) no, i = 2 (1 < 3) yes, i = 3 (0 < 2) yes,
// i = 4 (0 < 1) yes: {2, 3, 4}. The next sample of the stream is {0, 3, 6}, and stream (7, 2)
// with L = 2048, n = 5 gives {496, 1275, 1430, 1434, 2020} (both from a Python splitmix64).
static void test_sample_by_hand(void) {
    Rng r = rng_keyed(7, 1), copy = r;
    const int draws[5] = {5, 7, 1, 0, 0};
    for (int i = 0; i < 5; i++) CHECK((int)rng_below(&copy, (uint64_t)(10 - i)) == draws[i], "draw %d", i);
    int out[5], want1[3] = {2, 3, 4}, want2[3] = {0, 3, 6}, want3[5] = {496, 1275, 1430, 1434, 2020};
    pos_sample_sorted(&r, 10, 3, out);
    CHECK(!memcmp(out, want1, sizeof want1), "first sample {%d, %d, %d}, expected {2, 3, 4}", out[0], out[1], out[2]);
    pos_sample_sorted(&r, 10, 3, out);
    CHECK(!memcmp(out, want2, sizeof want2), "second sample {%d, %d, %d}, expected {0, 3, 6}", out[0], out[1], out[2]);
    r = rng_keyed(7, 2);
    pos_sample_sorted(&r, 2048, 5, out);
    CHECK(!memcmp(out, want3, sizeof want3), "L = 2048: {%d, %d, %d, %d, %d}", out[0], out[1], out[2], out[3], out[4]);
    r = rng_keyed(7, 2);   // the same stream gives the same sample
    int again[5];
    pos_sample_sorted(&r, 2048, 5, again);
    CHECK(!memcmp(out, again, sizeof out), "not reproducible");
    r = rng_keyed(3, 0);   // n = L: every position
    pos_sample_sorted(&r, 4, 4, out);
    for (int i = 0; i < 4; i++) CHECK(out[i] == i, "n = L: out[%d] = %d", i, out[i]);
}

// Sorted, distinct, inside [0, L) for many draws; and uniform over subsets: each of the 6
// pairs of {0, 1, 2, 3} comes up 1/6 of the time (60000 draws: sd of a count 91, allow 500).
static void test_sample_properties(void) {
    Rng r = rng_keyed(11, 5);
    int out[40], bad = 0;
    for (int k = 0; k < 2000; k++) {
        int L = 40 + k % 2009, n = 1 + k % 40;
        pos_sample_sorted(&r, L, n, out);
        for (int i = 0; i < n; i++) bad += out[i] < 0 || out[i] >= L || (i && out[i] <= out[i - 1]);
    }
    CHECK(bad == 0, "%d positions unsorted, repeated or out of range", bad);
    int count[4][4] = {{0}};
    for (int k = 0; k < 60000; k++) {
        pos_sample_sorted(&r, 4, 2, out);
        count[out[0]][out[1]]++;
    }
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) CHECK(abs(count[a][b] - 10000) < 500, "pair {%d, %d} drawn %d times of 60000", a, b, count[a][b]);
}

// pos_draw: nothing when off; otherwise the sample plus pos_offset, and a span then reads
// those positions: row t of the span {start 1, len 2} sits at sample[1 + t].
static void test_draw_feeds_spans(void) {
    Params ps = {0};
    Positional p;
    encoder_and_decoder("sinusoidal", 2, &ps, &p, &p);
    Rng r = rng_keyed(7, 1);
    pos_draw(&p, &r, 3);
    CHECK(p.n_sampled == 0 && p.sample == NULL, "pos_random off drew positions");
    p.draw_from = 10;
    p.cfg.pos_offset = 100;
    pos_draw(&p, &r, 3);   // {2, 3, 4} (test_sample_by_hand) + 100
    CHECK(p.n_sampled == 3 && p.sample[0] == 102 && p.sample[1] == 103 && p.sample[2] == 104,
          "drawn {%d, %d, %d}, expected {102, 103, 104}", p.sample[0], p.sample[1], p.sample[2]);
    int d = p.d_model, shape[3] = {1, 2, d};
    Tensor *y = pos_add_to_input(&p, tensor_zeros(3, shape, 0), (PosSpan){.start = 1, .len = 2});
    float row[1024];
    for (int t = 0; t < 2; t++) {
        sinusoidal_row(103 + t, d, row);
        CHECK(!memcmp(y->data + t * d, row, sizeof(float) * (size_t)d), "span row %d is not P[%d]", t, 103 + t);
    }
    char err[256] = "";
    CHECK(pos_check_length(&p, 10, err, sizeof err) == 0, "10 positions of 10");
    CHECK(pos_check_length(&p, 11, err, sizeof err) == -1 && strstr(err, "model.pos_random = 10"),
          "11 tokens from 10 positions: '%s'", err);
    pos_free(&p);
}

// Each scheme computes with the drawn positions {0, 5, 7} (set by hand; pos_offset 0):
// sinusoidal adds P[0], P[5], P[7]; learned adds rows 0, 5, 7; RoPE turns row t's pair 0 by
// p_t (d_k = 2); ALiBi's bias is -m_h |p_i - p_j| in the encoder (m_0 = 1/4: 0, -1.25, -1.75 /
// -1.25, 0, -0.5 / ...) and -m_h (p_i - p_j) for keys before the query in the decoder; T5
// puts p_j - p_i in its buckets (encoder: key 5 before query 0 -> distance 5 -> bucket 16+5).
static void set_sample(Positional *p, const int *pos, int n) {
    p->draw_from = 8;
    p->sample = malloc(sizeof(int) * (size_t)n);
    memcpy(p->sample, pos, sizeof(int) * (size_t)n);
    p->n_sampled = p->sample_capacity = n;
}

static void test_hooks_use_drawn_positions(void) {
    const int pos[3] = {0, 5, 7};
    PosSpan all = {.start = 0, .len = 3};
    Config c;
    config_defaults(&c);
    c.d_model = 8; c.n_heads = 4; c.pos_cfg.max_len = 8;
    int shape[3] = {1, 3, 8};
    float row[8];
    {   // sinusoidal
        Params ps = {0};
        Positional p;
        snprintf(c.pos, sizeof c.pos, "sinusoidal");
        pos_init(&p, &c, 1, &ps, "pos", "encoder");
        set_sample(&p, pos, 3);
        Tensor *y = pos_add_to_input(&p, tensor_zeros(3, shape, 0), all);
        for (int t = 0; t < 3; t++) {
            sinusoidal_row(pos[t], 8, row);
            for (int e = 0; e < 8; e++) CHECK_NEAR(y->data[t * 8 + e], row[e], 0);
        }
        CHECK_NEAR(y->data[1 * 8 + 0], sin(5.0), 1e-6);   // P[5, 0] = sin(5)
        pos_free(&p);
    }
    {   // learned: row p_t of the table, whose entries are their own flat index
        Params ps = {0};
        Positional p;
        snprintf(c.pos, sizeof c.pos, "learned");
        pos_init(&p, &c, 1, &ps, "pos", "encoder");
        params_alloc(&ps);
        for (long i = 0; i < ps.total; i++) ps.data[i] = (float)i;
        set_sample(&p, pos, 3);
        Tensor *y = pos_add_to_input(&p, tensor_zeros(3, shape, 0), all);
        for (int t = 0; t < 3; t++)
            for (int e = 0; e < 8; e++) CHECK_NEAR(y->data[t * 8 + e], pos[t] * 8 + e, 0);
        pos_free(&p);
        params_free(&ps);
    }
    {   // rope, 4 heads of width 2: every pair (1, 0) of row t turns to (cos p_t, sin p_t)
        Params ps = {0};
        Positional p;
        snprintf(c.pos, sizeof c.pos, "rope");
        pos_init(&p, &c, 1, &ps, "pos", "encoder");
        set_sample(&p, pos, 3);
        Tensor *x = tensor_zeros(3, shape, 0);
        for (int i = 0; i < 24; i += 2) x->data[i] = 1;
        Tensor *y = pos_rotate(&p, x, all, NULL);
        for (int t = 0; t < 3; t++) {
            CHECK_NEAR(y->data[t * 8 + 6], cos(pos[t]), 1e-6);
            CHECK_NEAR(y->data[t * 8 + 7], sin(pos[t]), 1e-6);
        }
        pos_free(&p);
    }
    {   // alibi, slopes 1/4, 1/16, 1/64, 1/256
        Params ps = {0};
        Positional enc, dec;
        encoder_and_decoder("alibi", 4, &ps, &enc, &dec);
        set_sample(&enc, pos, 3);
        set_sample(&dec, pos, 3);
        Tensor *be = pos_self_bias(&enc, all, all), *bd = pos_self_bias(&dec, all, all);
        const float want_enc0[3][3] = {{0, -1.25f, -1.75f}, {-1.25f, 0, -0.5f}, {-1.75f, -0.5f, 0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                CHECK_NEAR(be->data[i * 3 + j], want_enc0[i][j], 0);
                CHECK_NEAR(be->data[(3 * 3) + i * 3 + j], want_enc0[i][j] / 4, 0);   // head 1: m = 1/16
                if (j <= i) CHECK_NEAR(bd->data[i * 3 + j], want_enc0[i][j], 0);    // keys before the query
            }
        pos_free(&enc);
        pos_free(&dec);
    }
    {   // t5: table entry (bucket b, head h) = b + 100 h names the bucket
        Params ps = {0};
        Positional enc, dec;
        t5_naming_buckets(&ps, &enc, &dec);
        set_sample(&enc, pos, 3);
        set_sample(&dec, pos, 3);
        Tensor *be = pos_self_bias(&enc, all, all), *bd = pos_self_bias(&dec, all, all);
        // encoder: distance 5 and 7 ahead -> 16 + 5, 16 + 7 (exact, < 8); 2 ahead -> 18; behind: 5, 7, 2
        const int want_enc[3][3] = {{0, 21, 23}, {5, 0, 18}, {7, 2, 0}};
        const int want_dec[3][3] = {{0, 0, 0}, {5, 0, 0}, {7, 2, 0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                CHECK_NEAR(be->data[i * 3 + j], want_enc[i][j], 0);
                CHECK_NEAR(bd->data[i * 3 + j], want_dec[i][j], 0);
            }
        pos_free(&enc);
        pos_free(&dec);
        params_free(&ps);
    }
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    RUN(test_sinusoidal_worked_example);
    RUN(test_sinusoidal_wavelengths);
    RUN(test_shift_is_rotation);
    RUN(test_learned_wraps);
    RUN(test_rope_relative);
    RUN(test_rope_scheme_angles);
    RUN(test_rope_inv_freq_by_hand);
    RUN(test_yarn_by_hand);
    RUN(test_rope_dynamic);
    RUN(test_alibi_slopes);
    RUN(test_alibi_bias_shape);
    RUN(test_t5_buckets);
    RUN(test_t5_bias_buckets);
    RUN(test_kerple_bias_by_hand);
    RUN(test_fire_bias_by_hand);
    RUN(test_fire_learned_by_hand);
    RUN(test_fire_learned_gradients);
    RUN(test_xpos_by_hand);
    RUN(test_xpos_relative);
    RUN(test_xpos_limits);
    RUN(test_learned_bias_gradients);
    RUN(test_spans_give_rows_of_the_whole);
    RUN(test_sample_by_hand);
    RUN(test_sample_properties);
    RUN(test_draw_feeds_spans);
    RUN(test_hooks_use_drawn_positions);
    arena_free(&arena);
    return check_summary();
}
