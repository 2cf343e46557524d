// The memory estimate's parts against the code they describe: sizes as text, the parameter
// count against model_build, and a pass's arena bytes (the probe's record replayed at a shape
// it did not run) against the arena's real high-water mark after a training step, a forward
// pass and cached decoding, for every scheme and block. (tests/test_memory.sh measures whole
// runs' peak resident memory.)
#include "check.h"
#include "config_words.h"
#include "pos/pos.h"
#include <string.h>
#include "core/byte_size.h"
#include "core/tape.h"
#include "models/loss.h"
#include "models/decode.h"
#include "memory/memory_estimate.h"
#include "memory/memory_probe.h"

static void test_byte_sizes(void) {
    const char *good[] = {"8G", "512M", "1.5G", "100K", "4096", "2GiB", "3gb", "1T", "7B"};
    double want[] = {8.0 * (1 << 30), 512.0 * (1 << 20), 1.5 * (1 << 30), 100.0 * 1024, 4096, 2.0 * (1 << 30),
                     3.0 * (1 << 30), 1099511627776.0, 7};
    for (int i = 0; i < 9; i++) {
        double v = -1;
        CHECK(byte_size_parse(good[i], &v) == 0 && v == want[i], "'%s' -> %.0f, expected %.0f", good[i], v, want[i]);
    }
    const char *bad[] = {"", "-1G", "8Q", "8G extra", "G", "inf", "nan", "99999999999T"};
    for (int i = 0; i < 8; i++) {
        double v;
        CHECK(byte_size_parse(bad[i], &v) == -1, "'%s' accepted", bad[i]);
    }
    char out[32];
    byte_size_format(0, out, sizeof out);
    CHECK(!strcmp(out, "0 B"), "0 -> '%s'", out);
    byte_size_format(1.5 * (1 << 30), out, sizeof out);
    CHECK(!strcmp(out, "1.50 GiB"), "1.5 GiB -> '%s'", out);
    byte_size_format(310.0 * (1 << 30), out, sizeof out);
    CHECK(!strcmp(out, "310 GiB"), "310 GiB -> '%s'", out);
    byte_size_format(12.34 * (1 << 20), out, sizeof out);
    CHECK(!strcmp(out, "12.3 MiB"), "12.34 MiB -> '%s'", out);
}

static Config small(const char *model, const char *pos) {
    Config c;
    config_defaults(&c);
    config_word(&c, "model.model", model);
    config_word(&c, "task.task", !strcmp(model, "lm") ? "lm" : !strcmp(model, "classifier") ? "order" : "toy_translate");
    snprintf(c.pos, sizeof c.pos, "%s", pos);
    c.d_model = 32; c.n_heads = 4; c.d_ff = 48; c.enc_layers = 2; c.dec_layers = 3; c.threads = 1;
    return c;
}

// The block options (docs/design.md §2.5): the default block, then one option at a time,
// then the Llama-style combination.
typedef struct { const char *norm, *activation; int bias; } Block;
static const Block BLOCKS[] = {{"layernorm", "relu", 1}, {"rmsnorm", "relu", 1}, {"layernorm", "swiglu", 1},
                               {"layernorm", "gelu", 0}, {"rmsnorm", "swiglu", 0}};
#define N_BLOCKS (int)(sizeof BLOCKS / sizeof BLOCKS[0])
static void set_block(Config *c, const Block *b) {
    config_word(c, "model.norm", b->norm);
    config_word(c, "model.activation", b->activation);
    c->bias = b->bias;
}

static void test_param_count_matches_model_build(void) {
    const char *models[] = {"translator", "lm", "classifier"};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < pos_scheme_count() + N_BLOCKS; j++) {   // every scheme of the registry, every block
            const char *pos = pos_scheme_at(j < pos_scheme_count() ? j : 0)->name;
            Config c = small(models[i], pos);
            if (j >= pos_scheme_count()) set_block(&c, &BLOCKS[j - pos_scheme_count()]);
            MemoryVocab v = {57, 43, 5};
            Model m;
            model_build(&m, &c, v.src, !strcmp(models[i], "lm") ? v.src : v.tgt, v.classes);
            if (!strcmp(models[i], "lm")) v.tgt = v.src;
            CHECK(memory_param_count(&c, v) == (double)m.ps.total, "%s %s %s %s bias %d: estimate %.0f, model %ld",
                  models[i], pos, config_enum_name(&c, &c.norm), config_enum_name(&c, &c.activation), c.bias, memory_param_count(&c, v), m.ps.total);
            model_free(&m);
        }
}

// A fresh arena for one pass, the model and the tape set for training or evaluation.
static void begin_pass(Model *m, Arena *arena, int train) {
    model_set_training(m, train);
    arena_init(arena, 0);
    tensor_set_arena(arena);
    tape_set_enabled(train);
    tape_reset();
}

// One LM pass on a stream of tokens, as the trainer (train) or evaluate_lm (no tape) runs it;
// the arena's high-water mark against memory_pass_bytes.
static void lm_pass_shape(const char *pos, const Block *block, int train, float dropout, int d_ff, int B,
                          int T) {
    Config c = small("lm", pos);
    set_block(&c, block);
    c.dropout = dropout;
    c.d_model = 64; c.d_ff = d_ff;   // big enough that the gemms run on every thread, as in real runs
    int V = 50, n = B * (T + 1) + 1;
    int *stream = malloc(sizeof(int) * (size_t)n), starts[3] = {0, T + 1, 2 * (T + 1)};
    c.pos_cfg.max_len = T;
    for (int i = 0; i < n; i++) stream[i] = 4 + (i * 7) % (V - 4);
    Model m;
    model_build(&m, &c, V, V, 0);
    Arena arena;
    begin_pass(&m, &arena, train);
    Batch b;
    CHECK(batch_lm(stream, n, starts, B, T, &b) == 0, "batch");
    Tensor *loss = batch_loss(&m, &b, 0, NULL, NULL);
    if (train) tape_backward(loss);
    MemoryVocab v = {V, V, 0};
    MemoryPass p = {B, 0, T, train, 0};
    double est = memory_pass_bytes(&c, v, &p), got = (double)arena.used_peak;
    // The gemm packing scratch is bounded, not followed product by product: allow 3%.
    CHECK(fabs(est - got) <= 0.03 * got, "pos %s %s %s bias %d train %d dropout %g: estimate %.0f bytes, arena peak %.0f",
          pos, config_enum_name(&c, &c.norm), config_enum_name(&c, &c.activation), c.bias, train, dropout, est, got);
    batch_free(&b);
    tape_set_enabled(1);
    model_free(&m);
    arena_free(&arena);
    free(stream);
}

static void lm_pass(const char *pos, const Block *block, int train, float dropout) {
    lm_pass_shape(pos, block, train, dropout, 256, 3, 128);
}

static void test_lm_pass_matches_arena(void) {
    // rows past gemm's cap on a packed operand (d_ff x B·T floats over GEMM_A_PACK_MAX): the
    // probe's shapes are all under it, so the replay must size the packing as gemm does
    lm_pass_shape("rope", &BLOCKS[0], 1, 0, 1024, 2, 640);
    for (int i = 0; i < pos_scheme_count(); i++) {
        const char *pos = pos_scheme_at(i)->name;
        lm_pass(pos, &BLOCKS[0], 1, 0.1f);
        lm_pass(pos, &BLOCKS[0], 1, 0);
        lm_pass(pos, &BLOCKS[0], 0, 0);
    }
    for (int b = 1; b < N_BLOCKS; b++) {
        lm_pass("rope", &BLOCKS[b], 1, 0.1f);
        lm_pass("rope", &BLOCKS[b], 0, 0);
    }
}

// A translator's or a classifier's pass at B = 5, sources of 37 and targets of 29 tokens
// (shapes the probe never runs, none a multiple of 16), against the arena.
static void model_pass(const char *model, const char *pos, const Block *block, int train) {
    Config c = small(model, pos);
    set_block(&c, block);
    c.dropout = train ? 0.1f : 0;
    c.pos_cfg.max_len = 64;
    int V = 50, C = 5, B = 5, Ts = 37, Tt = 29, cls = !strcmp(model, "classifier");
    int *src = malloc(sizeof(int) * B * Ts), *tgt = malloc(sizeof(int) * B * Tt * 2);
    for (int i = 0; i < B * Ts; i++) src[i] = 4 + (i * 7) % (V - 4);
    for (int i = 0; i < B * Tt * 2; i++) tgt[i] = 4 + (i * 5) % (V - 4);
    int labels[5] = {0, 1, 2, 3, 4};
    src[B * Ts - 1] = TOK_PAD;   // padding, as real batches have
    if (!cls) tgt[B * Tt - 1] = tgt[2 * B * Tt - 1] = TOK_PAD;
    Model m;
    model_build(&m, &c, V, V, C);
    Arena arena;
    begin_pass(&m, &arena, train);
    Batch b = {B, Ts, cls ? 0 : Tt, src, cls ? NULL : tgt, cls ? NULL : tgt + B * Tt,
               cls ? labels : NULL, B * Tt};
    Tensor *loss = batch_loss(&m, &b, 0, NULL, NULL);
    if (train) tape_backward(loss);
    MemoryVocab v = {V, V, C};
    MemoryPass p = {B, Ts, cls ? 1 : Tt, train, 0};
    double est = memory_pass_bytes(&c, v, &p), got = (double)arena.used_peak;
    CHECK(fabs(est - got) <= 0.03 * got, "%s pos %s %s %s train %d: estimate %.0f bytes, arena peak %.0f",
          model, pos, config_enum_name(&c, &c.norm), config_enum_name(&c, &c.activation), train, est, got);
    tape_reset();
    tape_set_enabled(1);
    model_free(&m);
    arena_free(&arena);
    free(src);
    free(tgt);
}

static void test_models_pass_matches_arena(void) {
    for (int i = 0; i < pos_scheme_count(); i++)
        for (int train = 0; train < 2; train++) {
            model_pass("translator", pos_scheme_at(i)->name, &BLOCKS[0], train);
            model_pass("classifier", pos_scheme_at(i)->name, &BLOCKS[0], train);
        }
    for (int b = 1; b < N_BLOCKS; b++) model_pass("translator", "rope", &BLOCKS[b], 1);
}

// Cached decoding: decode_init on N sources (translator) or an empty cache (lm), `steps`
// tokens fed one at a time after a first feed of `first` tokens; the arena's peak plus the
// cache against the probe's decoding term.
static void decode_pass(const char *model, const char *pos, int N, int Ts, int first, int steps) {
    Config c = small(model, pos);
    c.pos_cfg.max_len = 128;
    int V = 50, lm = !strcmp(model, "lm"), cap = lm ? first + steps : steps + 1;
    int *src = malloc(sizeof(int) * N * (Ts + first + 1)), *tok = malloc(sizeof(int) * N);
    for (int i = 0; i < N * (Ts + first + 1); i++) src[i] = 4 + (i * 7) % (V - 4);
    for (int i = 0; i < N; i++) tok[i] = TOK_BOS;
    Model m;
    model_build(&m, &c, V, V, 0);
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    DecodeState s;
    CHECK(decode_init(&s, &m, lm ? NULL : src, N, lm ? 0 : Ts, cap) == 0, "decode_init");
    if (first) decode_feed(&s, src, first);
    for (int t = 0; t < steps; t++) decode_step(&s, tok);
    // the cache: keys and values of every layer, N rows of cap positions of d_model floats
    double got = (double)arena.used_peak + 2.0 * c.dec_layers * N * cap * c.d_model * sizeof(float);
    decode_free(&s);
    MemoryProbe p;
    CHECK(memory_probe_init(&p, &c, V, V, 0) == 0, "probe");
    double est = lm ? fmax(memory_probe_arena(&p, PROBE_DECODE, N, first, first),
                           memory_probe_arena(&p, PROBE_DECODE, N, cap, 1))
                    : memory_probe_arena(&p, PROBE_DECODE, N, Ts, cap);
    est += kv_cache_bytes(&p.m.decoder, N, cap);
    CHECK(fabs(est - got) <= 0.03 * got, "%s pos %s N %d Ts %d first %d steps %d: estimate %.0f bytes, measured %.0f",
          model, pos, N, Ts, first, steps, est, got);
    memory_probe_free(&p);
    model_free(&m);
    arena_free(&arena);
    free(src);
    free(tok);
}

static void test_decoding_matches_arena(void) {
    for (int i = 0; i < pos_scheme_count(); i++) {
        const char *pos = pos_scheme_at(i)->name;
        decode_pass("translator", pos, 7, 41, 0, 53);
        decode_pass("lm", pos, 3, 0, 45, 20);
    }
}

int main(void) {
    RUN(test_byte_sizes);
    RUN(test_param_count_matches_model_build);
    RUN(test_lm_pass_matches_arena);
    RUN(test_models_pass_matches_arena);
    RUN(test_decoding_matches_arena);
    return check_summary();
}
