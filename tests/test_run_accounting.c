// What ./train derives and counts, by hand:
//  - the memory estimate's terms (memory/memory_estimate.h) for small configs: the parameter
//    count of an LSTM translator added up from its tensors, bytes a parameter (training 4 + 4
//    + 8 for weights, gradients and the AdamW moments, + 4 for each micro-batch past the
//    first, + 12 for the checkpoint buffer or 24 when resuming; evaluation and translation
//    4 + 24), the data term of the generated tasks, the activations of the passes the run makes
//    at the shapes the config implies (sources and targets of max_tokens + 1), ./translate's
//    decoding of batch x beam rows for 2 Ts + 10 steps, the 4 MiB program term, the total;
//  - CPU seconds: user plus system time, against times(2)'s ticks after a burst of
//    system time;
//  - task_train_length (model.attn_train_length, docs/design.md §2.4) for every task form:
//    the language model's window, the decoder-only algorithmic form's 34 (copy, up to 16
//    symbols) and 50 (duplicate), a translator's longest source or target + 1, the
//    classifier's longest sentence (+ 1 with <cls>);
//  - lengths= lists: a..b steps by 1 up to 64 apart and doubles beyond;
//  - zero values that must not read as "unset": train.warmup = 0 (the learning rate of step 1
//    is the full rate, noam's f(t) = t^-1/2), train.min_lr_ratio = 0 (cosine decays to 0),
//    ./generate --top-k 0 (every token, frequencies softmax(z / T)).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <unistd.h>
#include "check.h"
#include "config_words.h"
#include "core/arena.h"
#include "memory/memory_estimate.h"
#include "infer/generate.h"
#include "memory/memory_probe.h"
#include "data/task.h"
#include "train/train_compute.h"

static Arena arena;
#define MiB (1024.0 * 1024.0)

// The LSTM translator, d = 6, 2 + 2 layers, bidirectional encoder, biases, on toy_translate.
static void lstm_toy_config(Config *c) {
    config_defaults(c);
    config_word(c, "task.task", "toy_translate");
    config_word(c, "model.model", "lstm");
    config_word(c, "model.pos", "none");
    config_word(c, "run.max_memory", "64G");   // the check, not the machine, is under test
    c->d_model = 6;
    c->enc_layers = c->dec_layers = 2;
    c->train_size = 1000; c->val_size = 50; c->test_size = 70;
    c->max_tokens = 32; c->max_clauses = 3;
    c->batch_size = 16;
}

static void test_memory_estimate_terms_by_hand(void) {
    Config c;
    lstm_toy_config(&c);
    MemoryVocab v = {4, 4, 2};   // before the data is loaded: the four specials
    // Parameters, d = 6, 4d = 24 gate rows, V = 4 each side:
    //   encoder embedding 4 x 6                                   24
    //   encoder layer 0, each direction: W_ih 24 x 6, W_hh 24 x 6, two biases of 24: 336 (x 2)
    //   encoder layer 1 reads both directions: W_ih 24 x 12: 480 (x 2)
    //   decoder embedding 24; decoder layers 0 and 1: 336 each
    //   attn_combine 6 x 12 + 6 = 78; out 4 x 6 + 4 = 28
    double P = 24 + 2 * 336 + 2 * 480 + 24 + 2 * 336 + 78 + 28;
    CHECK_NEAR(memory_param_count(&c, v), P, 0);
    // Data: 1120 examples of 96 bytes and 8 a token, a toy sentence pair counted at
    // min(max_tokens, 8 a clause) = 24 tokens.
    double data = 1120 * (96 + 8 * 24.0);
    // Activations: a training step of 16 rows of max_tokens + 1 = 33 (the <eos> and <bos>),
    // or the evaluation of 16 validation sentences with greedy decoding of 33 + 2 tokens.
    MemoryPass step = {16, 33, 33, 1, 0}, val = {16, 33, 33, 0, 35}, test = {16, 33, 33, 0, 35};
    double act = fmax(memory_pass_bytes(&c, v, &step), memory_pass_bytes(&c, v, &val));
    MemoryEstimate e;
    memory_estimate_train(&c, NULL, &e);
    CHECK_NEAR(e.params, 28 * P, 0);
    CHECK_NEAR(e.data, data, 0);
    CHECK_NEAR(e.program, 4 * MiB, 0);
    CHECK_NEAR(e.activations, act, 0);
    CHECK_NEAR(e.total, 28 * P + data + 4 * MiB + act, 1e-6);
    CHECK(act > 0, "no activations");
    c.micro_batches = 3;   // two more gradient buffers
    memory_estimate_train(&c, NULL, &e);
    CHECK_NEAR(e.params, (16 + 8 + 12) * P, 0);
    c.micro_batches = 1;
    snprintf(c.resume, sizeof c.resume, "runs/x");   // the file read and decoded
    memory_estimate_train(&c, NULL, &e);
    CHECK_NEAR(e.params, (16 + 24) * P, 0);
    c.resume[0] = 0;
    // ./eval: weights, and the checkpoint read whole and decoded; val and test splits.
    memory_estimate_eval(&c, NULL, NULL, 0, &e);
    CHECK_NEAR(e.params, 28 * P, 0);
    CHECK_NEAR(e.data, data, 0);
    CHECK_NEAR(e.activations, fmax(memory_pass_bytes(&c, v, &val), memory_pass_bytes(&c, v, &test)), 0);
    // The language model: 500 windows of 24 + 1 tokens and the 200000-token held-out text,
    // 4 bytes a token; the training text is capped at 2^28 tokens.
    Config lm;
    config_defaults(&lm);
    config_word(&lm, "task.task", "lm");
    config_word(&lm, "model.model", "lm");
    lm.train_size = 500;
    lm.window = 24;
    CHECK_NEAR(memory_data_bytes(&lm), 4 * (500 * 25 + 200000.0), 0);
    lm.train_size = 20000000;
    CHECK_NEAR(memory_data_bytes(&lm), 4 * (268435456.0 + 200000.0), 0);
}

// ./translate: beam search on batch x beam rows, caches of 2 Ts + 10 positions.
static void test_translate_estimate_by_hand(void) {
    Config c;
    config_defaults(&c);
    c.model = MODEL_TRANSLATOR;
    config_word(&c, "run.max_memory", "64G");
    c.d_model = 16; c.n_heads = 2; c.d_ff = 32; c.enc_layers = c.dec_layers = 2;
    MemoryVocab v = {40, 30, 0};
    MemoryProbe p;
    CHECK(memory_probe_init(&p, &c, 40, 30, 0) == 0, "probe");
    int batch = 4, beam = 3, Ts = 9, N = batch * beam, steps = 2 * Ts + 10;
    double want = memory_probe_arena(&p, PROBE_DECODE, N, Ts, steps) + kv_cache_bytes(&p.m.decoder, N, steps);
    memory_probe_free(&p);
    MemoryEstimate e;
    memory_estimate_translate(&c, v, batch, beam, Ts, &e);
    CHECK_NEAR(e.activations, want, 0);
    CHECK_NEAR(e.params, 28 * memory_param_count(&c, v), 0);
    CHECK_NEAR(e.data, 0, 0);
    CHECK_NEAR(e.total, e.params + want + 4 * MiB, 1e-6);
}

// ---------------------------------------------------------------- CPU seconds

static double tick_seconds(void) {
    struct tms t;
    times(&t);
    return (double)(t.tms_utime + t.tms_stime) / (double)sysconf(_SC_CLK_TCK);
}

static double system_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

// Reading /dev/zero is almost all system time (the kernel fills the buffer): 0.2 s of it,
// then process_cpu_seconds against times(2), whose ticks count user + system (1/100 s).
static void test_cpu_seconds_are_user_plus_system(void) {
    FILE *f = fopen("/dev/zero", "rb");
    if (!f) SKIP("no /dev/zero");
    static char buf[1 << 20];
    double s0 = system_seconds();
    for (int i = 0; i < 200000 && system_seconds() - s0 < 0.2; i++)
        if (fread(buf, 1, sizeof buf, f) != sizeof buf) break;
    fclose(f);
    double sys = system_seconds() - s0;
    if (sys < 0.1) SKIP("only %.3f s of system time after the reads", sys);
    double ticks = tick_seconds(), cpu = process_cpu_seconds();
    printf("# system time %.3f s; process_cpu_seconds %.3f, times() %.3f\n", sys, cpu, ticks);
    CHECK(fabs(cpu - ticks) < 0.05, "process_cpu_seconds %.3f s, times() says %.3f s (user + system)", cpu, ticks);
}

// ---------------------------------------------------------------- derived lengths

static int train_length(Config *c, int *hand) {
    Task t;
    char err[256];
    if (task_load(&t, c, err, sizeof err)) { CHECK(0, "task_load: %s", err); return -1; }
    if (hand) {   // the longest training source or target, by hand
        *hand = 0;
        for (int i = 0; i < t.train.n; i++) {
            if (t.train.ex[i].n_src > *hand) *hand = t.train.ex[i].n_src;
            if (t.train.ex[i].n_tgt > *hand) *hand = t.train.ex[i].n_tgt;
        }
    }
    int n = task_train_length(&t);
    task_free(&t);
    return n;
}

static void test_train_length_of_every_task_form(void) {
    Config c;
    int longest;
    // lm: the window
    config_defaults(&c);
    config_word(&c, "task.task", "lm");
    config_word(&c, "model.model", "lm");
    c.train_size = 50; c.window = 24;
    CHECK(train_length(&c, NULL) == 24, "lm: %d, expected the window 24", train_length(&c, NULL));
    // toy_translate translator: the longest source or target, with its <eos> (or <bos>)
    config_defaults(&c);
    c.train_size = 300; c.val_size = 10; c.test_size = 10;
    int n = train_length(&c, &longest);
    CHECK(n == longest + 1 && longest > 10, "toy_translate: %d, expected %d + 1", n, longest);
    // algorithmic copy, translator: inputs of up to 16 symbols + <eos>
    config_defaults(&c);
    config_word(&c, "task.task", "algorithmic");
    c.train_size = 2000; c.val_size = 10; c.test_size = 10;
    n = train_length(&c, &longest);
    CHECK(n == 17 && longest == 16, "algorithmic copy translator: %d (longest %d), expected 17", n, longest);
    // the decoder-only form: <eos> input <bos> output
    config_word(&c, "model.model", "lm");
    n = train_length(&c, NULL);
    CHECK(n == 34, "algorithmic copy, decoder-only: %d, expected 1 + 16 + 1 + 16 = 34", n);
    config_word(&c, "task.algorithm", "duplicate");
    n = train_length(&c, NULL);
    CHECK(n == 50, "algorithmic duplicate, decoder-only: %d, expected 1 + 16 + 1 + 32 = 50", n);
    // the classifier: "the N1 V the N2" (5 words, no <eos>), and <cls> first with pool = cls
    config_defaults(&c);
    config_word(&c, "task.task", "order");
    config_word(&c, "model.model", "classifier");
    c.train_size = 200; c.val_size = 20; c.test_size = 20;
    n = train_length(&c, &longest);
    CHECK(n == 5 && longest == 5, "order, pool = mean: %d (longest %d), expected 5", n, longest);
    config_word(&c, "model.pool", "cls");
    n = train_length(&c, NULL);
    CHECK(n == 6, "order, pool = cls: %d, expected 5 + <cls> = 6", n);
}

static void test_length_lists(void) {
    int out[80];
    char err[200];
    int n = parse_lengths("1..65", out, 80, err, sizeof err);
    CHECK(n == 65 && out[0] == 1 && out[64] == 65, "1..65 (64 apart): %d values, expected 1, 2, ..., 65", n);
    n = parse_lengths("1..66", out, 80, err, sizeof err);
    static const int doubling[7] = {1, 2, 4, 8, 16, 32, 64};
    CHECK(n == 7 && !memcmp(out, doubling, sizeof doubling), "1..66 (65 apart): %d values, expected 1, 2, 4, ..., 64", n);
    n = parse_lengths("32,64..256,3", out, 80, err, sizeof err);
    static const int mixed[5] = {32, 64, 128, 256, 3};
    CHECK(n == 5 && !memcmp(out, mixed, sizeof mixed), "32,64..256,3: %d values", n);
}

static void test_zero_values(void) {
    // warm-up 0: no ramp
    CHECK_NEAR(lr_at(SCHED_CONSTANT, 0, 100, 0.5f, 0, 0.1f), 0.5, 0);
    CHECK_NEAR(lr_at(SCHED_COSINE, 0, 100, 1.0f, 0, 0.1f), 1.0, 1e-7);
    // noam without warm-up: lr sqrt(w) min(t^-1/2, t w^-3/2) with w = 1, t = step + 1
    CHECK_NEAR(lr_at(SCHED_NOAM, 0, 100, 1.0f, 0, 0), 1.0, 1e-7);
    CHECK_NEAR(lr_at(SCHED_NOAM, 3, 100, 1.0f, 0, 0), 0.5, 1e-7);
    // min_lr_ratio 0: half way 0.5, at the end 0
    CHECK_NEAR(lr_at(SCHED_COSINE, 60, 110, 1.0f, 10, 0), 0.5, 1e-6);
    CHECK_NEAR(lr_at(SCHED_COSINE, 110, 110, 1.0f, 10, 0), 0.0, 1e-7);
    // --top-k 0: all tokens at their softmax(z / T) frequencies (200000 draws)
    enum { V = 9 };
    float z[V] = {9, 9, 9, 9, 0.5f, 1.0f, -0.3f, 0.2f, 0.8f};   // the specials (0..3) never drawn
    GenOptions o = {1, 0.8f, 0, 0};
    Rng rng = rng_stream(4, RNG_SAMPLE);
    int count[V] = {0}, draws = 200000;
    for (int i = 0; i < draws; i++) count[lm_pick(z, V, &o, &rng)]++;
    double sum = 0;
    for (int v = 4; v < V; v++) sum += exp(z[v] / 0.8);
    for (int v = 0; v < V; v++) CHECK_NEAR((double)count[v] / draws, v < 4 ? 0 : exp(z[v] / 0.8) / sum, 0.005);
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_memory_estimate_terms_by_hand);
    RUN(test_translate_estimate_by_hand);
    RUN(test_cpu_seconds_are_user_plus_system);
    RUN(test_train_length_of_every_task_form);
    RUN(test_length_lists);
    RUN(test_zero_values);
    arena_free(&arena);
    return check_summary();
}
