// The positional schemes against the math of the course note: the sinusoidal worked example
// and wavelengths, the shift-as-rotation identity, the wrapped learned table, RoPE's
// relative-only dot products and its angles with rope_scale and rope_base set, ALiBi slopes,
// T5 buckets and the bias they give the encoder and the decoder; every hook given a span of
// positions (as incremental decoding asks) gives exactly those rows of the whole sequence.
#include <stdlib.h>
#include <string.h>
#include "check.h"
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
    p.wrap = 0;
    CHECK(pos_check_length(&p, 32, err, sizeof err) == 0, "32 tokens fit without wrap");
    CHECK(pos_check_length(&p, 33, err, sizeof err) == -1 && strstr(err, "max_len = 32"),
          "33 tokens without wrap must be an error naming max_len, got '%s'", err);
    // Added to the input: token 33 of a 40-token sequence gets exactly row 1.
    params_alloc(&ps);
    for (long i = 0; i < ps.total; i++) ps.data[i] = (float)i;
    p.wrap = 1;
    int shape[3] = {1, 40, c.d_model};
    Tensor *x = tensor_zeros(3, shape, 0);
    Tensor *y = pos_add_to_input(&p, x, (PosSpan){0, 40});
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
// The scheme as a model stack sets it up: rope_scale 2 (position interpolation) and rope_base
// 100, d_k = 4. Token t sits at p = t / 2; pair 0 turns by p, pair 1 by p * 100^(-2/4) = p / 10.
// Token 3: angles 1.5 and 0.15; token 4: 2 and 0.2. With pos_offset 1, token 3 is at p = 2.
static void test_rope_scheme_angles(void) {
    Config c;
    config_defaults(&c);
    snprintf(c.pos, sizeof c.pos, "rope");
    c.d_model = 8; c.n_heads = 2; c.rope_scale = 2; c.rope_base = 100;
    Params ps = {0};
    Positional p;
    pos_init(&p, &c, 0, &ps, "pos", "decoder");
    int shape[3] = {1, 5, 8};
    Tensor *x = tensor_zeros(3, shape, 0);
    for (int t = 0; t < 5; t++)
        for (int c2 = 0; c2 < 8; c2 += 2) x->data[t * 8 + c2] = 1;   // every pair (1, 0)
    const double want[2][4] = {{cos(1.5), sin(1.5), cos(0.15), sin(0.15)}, {cos(2.0), sin(2.0), cos(0.2), sin(0.2)}};
    PosSpan rows = {0, 5};
    Tensor *y = pos_rotate(&p, x, rows);
    for (int t = 3; t < 5; t++)
        for (int h = 0; h < 2; h++)
            for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[t * 8 + h * 4 + e], want[t - 3][e], 1e-6);
    p.offset = 1;
    y = pos_rotate(&p, x, rows);
    for (int e = 0; e < 4; e++) CHECK_NEAR(y->data[3 * 8 + e], want[1][e], 1e-6);
}

// T5 through the bias a stack adds to its scores: table entry (bucket b, head h) = b + 100 h,
// so each bias entry names its bucket. T = 4: the encoder puts key j before query i in
// bucket i - j and after it in 16 + (j - i); the decoder uses i - j for keys before, 0 after.
static void test_t5_bias_buckets(void) {
    Params ps = {0};
    Positional enc, dec;
    encoder_and_decoder("t5", 2, &ps, &enc, &dec);
    params_alloc(&ps);
    for (int b = 0; b < T5_BUCKETS; b++)
        for (int h = 0; h < 2; h++) enc.table->data[b * 2 + h] = dec.table->data[b * 2 + h] = (float)(b + 100 * h);
    const int want_enc[4][4] = {{0, 17, 18, 19}, {1, 0, 17, 18}, {2, 1, 0, 17}, {3, 2, 1, 0}};
    const int want_dec[4][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}, {3, 2, 1, 0}};
    PosSpan all = {0, 4};
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
    PosSpan all = {0, T};
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
    PosSpan all = {0, 4};
    for (int k = 0; k < 2; k++) {
        Tensor *b = pos_self_bias(both[k], all, all);
        CHECK(b->ndim == 3 && b->shape[0] == 2 && b->shape[1] == 4 && b->shape[2] == 4, "bias shape");
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) CHECK_NEAR(b->data[(h * 4 + i) * 4 + j], want[h][abs(i - j)], 1e-6);
        both[k]->offset = 100;
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
    PosSpan all = {0, 4};
    for (int k = 0; k < 2; k++) {
        Tensor *b = pos_self_bias(both[k], all, all);
        CHECK(b->ndim == 3 && b->shape[0] == 2 && b->shape[1] == 4 && b->shape[2] == 4, "bias shape");
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                CHECK_NEAR(b->data[i * 4 + j], z[abs(i - j)], 1e-6);
                CHECK_NEAR(b->data[16 + i * 4 + j], 2 * z[abs(i - j)] + 0.5, 1e-6);
            }
        both[k]->offset = 10;
        Tensor *within = pos_self_bias(both[k], all, all);
        CHECK(!memcmp(within->data, b->data, sizeof(float) * (size_t)b->size), "FIRE bias changed with pos_offset 10 < L");
        both[k]->offset = 40;
        Tensor *beyond = pos_self_bias(both[k], all, all);
        CHECK_NEAR(beyond->data[3 * 4 + 0], 0.3663385, 1e-6);   // query 43, key 40
        CHECK_NEAR(beyond->data[0 * 4 + 3], 0.3663385, 1e-6);   // query 40, key 43 (masked in the decoder)
        CHECK_NEAR(beyond->data[1 * 4 + 0], 0.1854490, 1e-6);   // query 41, key 40: log 2 / log 42
    }
    params_free(&ps);
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
    c.d_model = d_model; c.n_heads = n_heads; c.xpos_gamma = gamma;
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
    PosSpan rows = {0, 3};
    Tensor *q = pos_rotate(&dec, x, rows), *k = pos_rotate_key(&dec, x, rows), *e = pos_rotate_key(&enc, x, rows);
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
    Tensor *q5 = pos_rotate(&dec, one, (PosSpan){5, 1}), *k2 = pos_rotate_key(&dec, one, (PosSpan){2, 1});
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
        Tensor *q = pos_rotate(&p, qv, (PosSpan){at[s][0], 1}), *k = pos_rotate_key(&p, kv, (PosSpan){at[s][1], 1});
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
static Tensor *f_self_bias(Tensor **in) { return pos_self_bias(gc_pos, (PosSpan){5, 3}, (PosSpan){0, 8}); }

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
                c.d_model = d; c.n_heads = H; c.max_len = 8; c.pos_offset = offset;   // learned wraps past 8
                Params ps = {0};
                Positional p;
                pos_init(&p, &c, bidir, &ps, "pos", "encoder");
                params_alloc(&ps);
                Rng r = rng_stream(7, 0);
                for (long i = 0; i < ps.total; i++) ps.data[i] = rng_normal(&r);
                int shape[3] = {1, T, d};
                Tensor *x = tensor_new(3, shape, 0);
                for (long i = 0; i < x->size; i++) x->data[i] = rng_normal(&r);
                Tensor *full_in = pos_add_to_input(&p, x, (PosSpan){0, T}), *full_rot = pos_rotate(&p, x, (PosSpan){0, T});
                Tensor *full_key = pos_rotate_key(&p, x, (PosSpan){0, T});
                Tensor *full_bias = pos_self_bias(&p, (PosSpan){0, T}, (PosSpan){0, T});
                int same = 1;
                for (int a = 0; a < T; a += 3)
                    for (int n = 1; a + n <= T; n += 4) {
                        Tensor *part = rows_of(x, a, n);
                        Tensor *in = pos_add_to_input(&p, part, (PosSpan){a, n}), *rot = pos_rotate(&p, part, (PosSpan){a, n});
                        same &= !memcmp(in->data, full_in->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        same &= !memcmp(rot->data, full_rot->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        Tensor *key = pos_rotate_key(&p, part, (PosSpan){a, n});
                        same &= !memcmp(key->data, full_key->data + (long)a * d, sizeof(float) * (size_t)n * d);
                        Tensor *bias = pos_self_bias(&p, (PosSpan){a, n}, (PosSpan){0, a + n});   // (H,n,a+n)
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

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    RUN(test_sinusoidal_worked_example);
    RUN(test_sinusoidal_wavelengths);
    RUN(test_shift_is_rotation);
    RUN(test_learned_wraps);
    RUN(test_rope_relative);
    RUN(test_rope_scheme_angles);
    RUN(test_alibi_slopes);
    RUN(test_alibi_bias_shape);
    RUN(test_t5_buckets);
    RUN(test_t5_bias_buckets);
    RUN(test_kerple_bias_by_hand);
    RUN(test_fire_bias_by_hand);
    RUN(test_xpos_by_hand);
    RUN(test_xpos_relative);
    RUN(test_xpos_limits);
    RUN(test_learned_bias_gradients);
    RUN(test_spans_give_rows_of_the_whole);
    arena_free(&arena);
    return check_summary();
}
