// Checkpoints: save, load into a fresh model, identical logits; the header is valid JSON
// with the docs/design.md §3.2 names and shapes; the stored config round-trips; a mismatched model
// is refused with a message naming the tensor; resume state comes back exactly.
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "config_words.h"
#include "core/arena.h"
#include "core/tape.h"
#include "io/fileio.h"
#include "io/json.h"
#include "run/checkpoint.h"

static Arena arena;
static char path[256];

static void config_for(Config *c, const char *pos) {
    config_defaults(c);
    snprintf(c->pos, sizeof c->pos, "%s", pos);
    c->d_model = 16; c->n_heads = 2; c->d_ff = 20; c->enc_layers = 1; c->dec_layers = 2;
    c->seed = 7;
    config_to_ini(c);
}

static const int src[2 * 4] = {5, 6, 7, 3, 8, 3, 0, 0}, tin[2 * 3] = {2, 9, 10, 2, 11, 0};

static void test_round_trip_logits(void) {
    for (int s = 0; s < pos_scheme_count(); s++) {   // every scheme of the registry
        const char *scheme = pos_scheme_at(s)->name;
        Config c;
        config_for(&c, scheme);
        Model a, b;
        model_build(&a, &c, 20, 24, 0);
        for (long i = 0; i < a.ps.total; i++) a.ps.data[i] += 0.01f * (float)(i % 7);   // no tensor left at its constant init (KERPLE's zeros)
        c.seed = 8;                                   // b starts from other weights
        model_build(&b, &c, 20, 24, 0);
        model_set_training(&a, 0);
        model_set_training(&b, 0);
        tape_set_enabled(0);
        char err[512] = "";
        CHECK(checkpoint_save(path, &a, c.text, NULL, NULL, err, sizeof err) == 0, "save: %s", err);
        CHECK(checkpoint_load(path, &b, NULL, NULL, err, sizeof err) == 0, "load: %s", err);
        Tensor *la = translator_logits(&a, src, 2, 4, tin, 3), *lb = translator_logits(&b, src, 2, 4, tin, 3);
        CHECK(memcmp(la->data, lb->data, sizeof(float) * la->size) == 0, "%s: logits differ after a round trip", scheme);
        Config back;
        CHECK(checkpoint_read_config(path, &back, err, sizeof err) == 0, "config: %s", err);
        CHECK(back.text && !strcmp(back.text, c.text), "stored config text differs");
        tape_set_enabled(1);
        config_free(&back);
        config_free(&c);
        model_free(&a);
        model_free(&b);
        arena_reset(&arena);
    }
}

static void test_header_names_and_shapes(void) {
    Config c;
    config_for(&c, "learned");
    Model m;
    model_build(&m, &c, 20, 24, 0);
    char err[512];
    CHECK(checkpoint_save(path, &m, c.text, NULL, NULL, err, sizeof err) == 0, "save: %s", err);
    size_t n;
    char *bytes = read_file(path, &n, 1 << 24, err, sizeof err);
    CHECK(bytes && n > 8, "read: %s", err);
    if (!bytes) return;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | (unsigned char)bytes[i];
    CHECK(hlen % 8 == 0 && 8 + hlen <= n, "header length %llu", (unsigned long long)hlen);
    JsonDoc *doc = json_parse(bytes + 8, hlen, NULL, err, sizeof err);
    CHECK(doc != NULL, "header is not JSON: %s", err);
    if (!doc) { free(bytes); return; }
    const JsonValue *root = json_root(doc);
    struct { const char *name; int64_t d0, d1; } want[] = {
        {"src_embed.weight", 20, 16}, {"tgt_embed.weight", 24, 16}, {"src_pos.weight", 32, 16}, {"tgt_pos.weight", 32, 16},
        {"encoder.layers.0.self_attn.q_proj.weight", 16, 16}, {"encoder.layers.0.self_attn.o_proj.bias", 16, -1},
        {"encoder.layers.0.norm1.weight", 16, -1}, {"encoder.layers.0.norm2.bias", 16, -1},
        {"encoder.layers.0.ffn.fc1.weight", 20, 16}, {"encoder.layers.0.ffn.fc2.weight", 16, 20},
        {"decoder.layers.1.cross_attn.k_proj.weight", 16, 16}, {"decoder.layers.1.norm3.weight", 16, -1},
        {"encoder.norm.weight", 16, -1}, {"decoder.norm.bias", 16, -1}, {"generator.weight", 24, 16}, {"generator.bias", 24, -1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const JsonValue *t = json_get(root, want[i].name);
        CHECK(t != NULL, "tensor %s missing from the header", want[i].name);
        if (!t) continue;
        CHECK(!strcmp(json_str(json_get(t, "dtype")), "F32"), "%s dtype", want[i].name);
        const JsonValue *shape = json_get(t, "shape");
        int64_t d0 = -1, d1 = -1;
        json_int64(json_at(shape, 0), &d0);
        if (json_len(shape) > 1) json_int64(json_at(shape, 1), &d1);
        CHECK(d0 == want[i].d0 && d1 == want[i].d1, "%s shape [%lld, %lld]", want[i].name, (long long)d0, (long long)d1);
    }
    const JsonValue *meta = json_get(root, "__metadata__");
    CHECK(meta && json_str(json_get(meta, "format_version")) && json_str(json_get(meta, "config")), "metadata");
    CHECK(json_len(root) == (size_t)m.ps.n + 1, "header has %zu entries, model %d tensors + metadata", json_len(root), m.ps.n);
    json_free(doc);
    free(bytes);
    model_free(&m);
    config_free(&c);
}

static void test_mismatch_refused(void) {
    Config c;
    config_for(&c, "learned");
    Model m, other;
    model_build(&m, &c, 20, 24, 0);
    char err[512] = "";
    checkpoint_save(path, &m, c.text, NULL, NULL, err, sizeof err);
    c.d_ff = 21;                                   // a model of another shape
    model_build(&other, &c, 20, 24, 0);
    CHECK(checkpoint_load(path, &other, NULL, NULL, err, sizeof err) == -1 && strstr(err, "ffn.fc1.weight") && strstr(err, "[20, 16]"),
          "shape mismatch message: '%s'", err);
    model_free(&other);
    snprintf(c.pos, sizeof c.pos, "t5");           // a model with a tensor the file lacks
    c.d_ff = 20;
    model_build(&other, &c, 20, 24, 0);
    CHECK(checkpoint_load(path, &other, NULL, NULL, err, sizeof err) == -1 && strstr(err, "rel_bias"),
          "missing-tensor message: '%s'", err);
    // The other way: the t5 model's file has rel_bias tables a `none` model lacks.
    checkpoint_save(path, &other, c.text, NULL, NULL, err, sizeof err);
    model_free(&other);
    snprintf(c.pos, sizeof c.pos, "none");
    model_build(&other, &c, 20, 24, 0);
    CHECK(checkpoint_load(path, &other, NULL, NULL, err, sizeof err) == -1 && strstr(err, "unexpected tensor") &&
          strstr(err, "rel_bias"), "unexpected-tensor message: '%s'", err);
    model_free(&other);
    model_free(&m);
    config_free(&c);
}

// A checkpoint of one block (docs/design.md §2.5) loaded into a model of another: refused,
// and the message names the config key that renames or drops the tensor.
static void test_block_mismatch_refused(void) {
    Config c;
    config_for(&c, "rope");
    Model m, other;
    c.norm = NORM_RMSNORM;
    c.activation = ACTIVATION_SWIGLU;
    c.bias = 0;
    model_build(&m, &c, 20, 24, 0);
    char err[512] = "";
    CHECK(checkpoint_save(path, &m, c.text, NULL, NULL, err, sizeof err) == 0, "save: %s", err);
    struct { const char *norm, *act; int bias; const char *want; } cases[] = {
        {"layernorm", "swiglu", 0, "tensor 'encoder.layers.0.norm1.bias' is missing (does the checkpoint match the config? model.norm = rmsnorm has no norm biases)"},
        {"rmsnorm", "swiglu", 1, "tensor 'encoder.layers.0.self_attn.q_proj.bias' is missing (does the checkpoint match the config? model.bias = false"},
        {"rmsnorm", "gelu", 0, "tensor 'encoder.layers.0.ffn.fc1.weight' is missing (does the checkpoint match the config? model.activation = swiglu"},
    };
    for (int i = 0; i < 3; i++) {
        config_word(&c, "model.norm", cases[i].norm);
        config_word(&c, "model.activation", cases[i].act);
        c.bias = cases[i].bias;
        model_build(&other, &c, 20, 24, 0);
        CHECK(checkpoint_load(path, &other, NULL, NULL, err, sizeof err) == -1 && strstr(err, cases[i].want),
              "case %d: '%s'", i, err);
        model_free(&other);
    }
    // The other way: a default-block file has norm biases an rmsnorm model does not know.
    c.norm = NORM_LAYERNORM;
    c.activation = ACTIVATION_RELU;
    c.bias = 1;
    model_build(&other, &c, 20, 24, 0);
    checkpoint_save(path, &other, c.text, NULL, NULL, err, sizeof err);
    model_free(&other);
    c.norm = NORM_RMSNORM;
    model_build(&other, &c, 20, 24, 0);
    CHECK(checkpoint_load(path, &other, NULL, NULL, err, sizeof err) == -1 && strstr(err, "unexpected tensor 'encoder.layers.0.norm1.bias'") &&
          strstr(err, "model.norm = rmsnorm"), "unexpected norm bias: '%s'", err);
    model_free(&other);
    model_free(&m);
    config_free(&c);
}

static void test_resume_state(void) {
    Config c;
    config_for(&c, "rope");
    Model m, back;
    model_build(&m, &c, 20, 24, 0);
    model_build(&back, &c, 20, 24, 0);
    AdamW opt, opt2;
    adamw_init(&opt, &m.ps, 0.9f, 0.98f, 1e-9f, 0.01f);
    adamw_init(&opt2, &back.ps, 0.9f, 0.98f, 1e-9f, 0.01f);
    for (long i = 0; i < opt.n; i++) { opt.m[i] = (float)i * 0.5f; opt.v[i] = (float)i; }
    opt.step = 123;
    rng_next(&m.dropout_rng);
    TrainState st = { 456, { 99, 3, 17 } }, got;
    char err[512] = "";
    CHECK(checkpoint_save(path, &m, c.text, &opt, &st, err, sizeof err) == 0, "save: %s", err);
    CHECK(checkpoint_load(path, &back, &opt2, &got, err, sizeof err) == 0, "load: %s", err);
    CHECK(got.step == 456 && got.sampler.seed == 99 && got.sampler.epoch == 3 && got.sampler.pos == 17, "train state");
    CHECK(opt2.step == 123 && memcmp(opt.m, opt2.m, sizeof(float) * opt.n) == 0 && memcmp(opt.v, opt2.v, sizeof(float) * opt.n) == 0,
          "optimizer state");
    CHECK(back.dropout_rng.state == m.dropout_rng.state, "dropout RNG state");
    // A weights-only checkpoint cannot be resumed.
    checkpoint_save(path, &m, c.text, NULL, &st, err, sizeof err);
    CHECK(checkpoint_load(path, &back, &opt2, &got, err, sizeof err) == -1 && strstr(err, "optimizer"), "weights-only resume: '%s'", err);
    adamw_free(&opt); adamw_free(&opt2);
    model_free(&m); model_free(&back);
    config_free(&c);
}

// Rewrites the first `from` in the file at `path` with `to` (same length: offsets stay valid).
static void patch_file(const char *from, const char *to) {
    size_t n;
    char err[256];
    char *bytes = read_file(path, &n, 1 << 24, err, sizeof err), *at = NULL;
    for (size_t i = 0; bytes && !at && i + strlen(from) <= n; i++)
        if (!memcmp(bytes + i, from, strlen(from))) at = bytes + i;
    CHECK(at != NULL, "'%s' not in the checkpoint", from);
    if (at) memcpy(at, to, strlen(to));
    if (bytes) write_file_atomic(path, bytes, n, err, sizeof err);
    free(bytes);
}

// Found while writing tests/fuzz/fuzz_checkpoint.c's property (the state it loads is never
// negative): the metadata numbers went through strtoull, which takes " -1" as 2^64 - 1, and
// a step above LONG_MAX became negative when stored, so such a checkpoint resumed at step -1.
// Every number is now digits only, within the type it is stored in.
static void test_fuzz_state_numbers_in_range(void) {
    Config c;
    config_for(&c, "rope");
    Model m;
    model_build(&m, &c, 20, 24, 0);
    AdamW opt;
    adamw_init(&opt, &m.ps, 0.9f, 0.98f, 1e-9f, 0.01f);
    char err[512] = "";
    TrainState got, bad = { -1, { 99, 3, 17 }, 0, 0 };   // step -1 is written 2^64 - 1
    checkpoint_save(path, &m, c.text, &opt, &bad, err, sizeof err);
    CHECK(checkpoint_load(path, &m, &opt, &got, err, sizeof err) == -1 &&
          strstr(err, "metadata step = '18446744073709551615' is out of range "
                      "(at most 9223372036854775807)"), "step 2^64 - 1: '%s'", err);
    bad = (TrainState){ 456, { 99, -1, 17 }, 0, 0 };
    checkpoint_save(path, &m, c.text, &opt, &bad, err, sizeof err);
    CHECK(checkpoint_load(path, &m, &opt, &got, err, sizeof err) == -1 &&
          strstr(err, "metadata sampler_epoch = '18446744073709551615' is out of range"),
          "epoch 2^64 - 1: '%s'", err);
    const char *words[] = {"\" -1\"", "\"+45\"", "\"4 6\"", "\"4e6\""};
    for (int i = 0; i < 4; i++) {
        bad = (TrainState){ 456, { 99, 3, 17 }, 0, 0 };
        checkpoint_save(path, &m, c.text, &opt, &bad, err, sizeof err);
        patch_file("\"456\"", words[i]);
        char want[96];
        snprintf(want, sizeof want, "metadata step = '%.3s' is not a number", words[i] + 1);
        CHECK(checkpoint_load(path, &m, &opt, &got, err, sizeof err) == -1 && strstr(err, want),
              "step %s: '%s'", words[i], err);
    }
    adamw_free(&opt);
    model_free(&m);
    config_free(&c);
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    snprintf(path, sizeof path, "/tmp/test_checkpoint_%d.safetensors", (int)getpid());
    RUN(test_round_trip_logits);
    RUN(test_header_names_and_shapes);
    RUN(test_mismatch_refused);
    RUN(test_block_mismatch_refused);
    RUN(test_resume_state);
    RUN(test_fuzz_state_numbers_in_range);
    remove(path);
    arena_free(&arena);
    return check_summary();
}
