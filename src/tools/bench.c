// ./bench — training throughput of standard model shapes, matmul GFLOP/s and attention
// forward+backward throughput, as a table with the thread count. `make bench` runs it.
//
// Every measurement runs in a child process of its own (fork before any OpenMP code in the
// parent), so each reports its own peak resident memory and none inherits another's arena.
// A measurement is `runs` timed repetitions after a warm-up; the table shows the median.
// scripts/bench_torch.py runs the same shapes in PyTorch and, with --compare, alternates
// `./bench --tsv` runs with its own to print ratios measured side by side.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "core/ops.h"
#include "core/optim.h"
#include "core/runtime.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "models/model.h"
#include "models/loss.h"
#include "memory/memory_check.h"
#include "models/model_flops.h"
#include "run/cli.h"
#include "train/train_step.h"

static const char *USAGE =
    "usage: ./bench [--threads 1,2] [--runs N] [--only NAME,...] [--micro-batches K] [--busy]\n"
    "               [--tsv]\n"
    "\n"
    "Training tokens/s and ms/step (median of N runs) for standard shapes, matmul GFLOP/s\n"
    "and fused attention forward+backward throughput, the cost of an OpenMP fork/join, for\n"
    "each thread count.\n"
    "\n"
    "  --threads LIST   thread counts to measure (default 1,2); 0 = auto: every core, then as\n"
    "                   many as other processes leave free (run.threads = 0 in ./train)\n"
    "  --runs N         timed repetitions per measurement, the median is shown (default 5)\n"
    "  --only LIST      any of: toy, multi30k, lstm, lstm30k, lm, llama, lm256, lm768, lm768x4,\n"
    "                   copy, lmcopy, peak, matmul, attention, eval, forkjoin (default all)\n"
    "  --micro-batches K  training steps split each batch into K micro-batches, run at once\n"
    "                   (train.micro_batches, src/train/micro_batches.h; default 1)\n"
    "  --busy           a competing process spins on one core during the measurements\n"
    "  --tsv            machine-readable rows: kind name threads value unit aux unit peak_mib\n"
    "                   [cpu_ms base_mib model_gflops percent_of_peak]\n"
    "\n"
    "cpu ms is the CPU time of all threads per step; base MiB the resident memory before the\n"
    "first step (model, optimizer state, batches); peak MiB the peak resident memory.\n"
    "GFLOP/s: model FLOPs of the steps (6 per weight per position + 12 d per query, key and\n"
    "layer for attention; src/models/model_flops.h) over the wall time;\n"
    "% peak: that against `peak`, a register-only FMA loop on the same number of threads\n"
    "(GFLOP/s by the wall clock, and per CPU-second of all threads). Each timed run is paired\n"
    "with a 0.1 s peak loop just before it, and % peak is the median of the runs' ratios.\n";

// --- model shapes ---------------------------------------------------------------------
// Row b of a batch has a source of src_min + (7b mod span) tokens and a target of
// tgt_min + (5b+3 mod span) tokens, ids spread over the vocabulary; bench_torch.py builds
// the very same batches. A `copy` shape is the algorithmic lab's copy task
// (configs/algorithmic/copy.ini, lm_copy.ini): the target repeats the source; as an lm, one
// padded row <eos> x_1..x_n <bos> x_1..x_n <eos> (data/batch.h, BATCH_PROMPT).
typedef struct {
    const char *name, *label;
    ModelKind model;
    int d, heads, enc, dec, ff, B, V_src, V_tgt;
    int src_min, src_max, tgt_min, tgt_max;    // translator lengths (without specials)
    int T;                                     // lm window (0: copy rows of src_min..src_max)
    int steps;                                 // steps per timed run
    const char *pos;                           // positional scheme
    Activation act;                            // FFN activation
    float dropout, smoothing;                  // dropout everywhere, label smoothing
    // the Llama-style block: rmsnorm, (act swiglu), no biases
    int llama;
    int copy;                                  // the copy task: target = source
} Shape;

static const Shape SHAPES[] = {
    {.name = "toy", .label = "toy translator d64 h4 2+2 ff256 B64", .model = MODEL_TRANSLATOR,
     .d = 64, .heads = 4, .enc = 2, .dec = 2, .ff = 256, .B = 64, .V_src = 95, .V_tgt = 76,
     .src_min = 6, .src_max = 24, .tgt_min = 6, .tgt_max = 22, .steps = 10, .pos = "rope",
     .act = ACTIVATION_RELU, .dropout = 0.1f, .smoothing = 0.1f},
    {.name = "multi30k", .label = "multi30k-sized d256 h8 3+3 ff1024 B64 V8k",
     .model = MODEL_TRANSLATOR, .d = 256, .heads = 8, .enc = 3, .dec = 3, .ff = 1024, .B = 64,
     .V_src = 8000, .V_tgt = 8000, .src_min = 8, .src_max = 18, .tgt_min = 8, .tgt_max = 18,
     .steps = 3, .pos = "rope", .act = ACTIVATION_RELU, .dropout = 0.1f, .smoothing = 0.1f},
    // The recurrent translator of configs/lstm.ini (bidirectional, dot attention) on the toy
    // shape's batches (heads and ff unused).
    {.name = "lstm", .label = "toy lstm d64 bi 2+2 B64", .model = MODEL_LSTM, .d = 64, .heads = 4,
     .enc = 2, .dec = 2, .ff = 256, .B = 64, .V_src = 95, .V_tgt = 76, .src_min = 6, .src_max = 24,
     .tgt_min = 6, .tgt_max = 22, .steps = 10, .pos = "none", .act = ACTIVATION_RELU,
     .dropout = 0.1f, .smoothing = 0.1f},
    // The recurrent translator at the size of the course's LSTM on Multi30k (the hidden width of
    // configs/multi30k/course.ini, one layer each side, batch 32) on the multi30k shape's
    // batches: vocabularies of 8000, sentences of 8..18 words.
    {.name = "lstm30k", .label = "multi30k lstm d128 bi 1+1 B32 V8k", .model = MODEL_LSTM, .d = 128,
     .heads = 4, .enc = 1, .dec = 1, .ff = 512, .B = 32, .V_src = 8000, .V_tgt = 8000, .src_min = 8,
     .src_max = 18, .tgt_min = 8, .tgt_max = 18, .steps = 5, .pos = "none", .act = ACTIVATION_RELU,
     .dropout = 0.1f, .smoothing = 0.1f},
    {.name = "lm", .label = "lm d128 h4 2L ff512 B8 T512 V1k", .model = MODEL_LM, .d = 128,
     .heads = 4, .dec = 2, .ff = 512, .B = 8, .V_src = 1000, .V_tgt = 1000, .T = 512, .steps = 3,
     .pos = "rope", .act = ACTIVATION_RELU, .dropout = 0.1f, .smoothing = 0.1f},
    // The lm shape with the Llama-style block; ff 352 is 2/3 of 512 rounded up to 16
    // (docs/design.md §2.5).
    {.name = "llama", .label = "lm llama d128 h4 2L swiglu352 B8 T512 V1k", .model = MODEL_LM,
     .d = 128, .heads = 4, .dec = 2, .ff = 352, .B = 8, .V_src = 1000, .V_tgt = 1000, .T = 512,
     .steps = 3, .pos = "rope", .act = ACTIVATION_SWIGLU, .dropout = 0.1f, .smoothing = 0.1f,
     .llama = 1},
    // The wide language models, for the kernels' speed (GPT-2 blocks at GPT-2 width in the last
    // two): GELU, the learned (wrapping) position table, vocabulary 76, no dropout, as ./train
    // runs them.
    {.name = "lm256", .label = "lm d256 h4 4L ff1024 B8 T256 gelu", .model = MODEL_LM, .d = 256,
     .heads = 4, .dec = 4, .ff = 1024, .B = 8, .V_src = 76, .V_tgt = 76, .T = 256, .steps = 3,
     .pos = "learned", .act = ACTIVATION_GELU},
    {.name = "lm768", .label = "lm d768 h12 2L ff3072 B4 T256 gelu", .model = MODEL_LM, .d = 768,
     .heads = 12, .dec = 2, .ff = 3072, .B = 4, .V_src = 76, .V_tgt = 76, .T = 256, .steps = 2,
     .pos = "learned", .act = ACTIVATION_GELU},
    {.name = "lm768x4", .label = "lm d768 h12 4L ff3072 B8 T128 gelu", .model = MODEL_LM, .d = 768,
     .heads = 12, .dec = 4, .ff = 3072, .B = 8, .V_src = 76, .V_tgt = 76, .T = 128, .steps = 2,
     .pos = "learned", .act = ACTIVATION_GELU},
    // The algorithmic length-generalisation lab (scripts/lengthgen.sh): configs/algorithmic/
    // copy.ini and lm_copy.ini, inputs of 1..16 digits (vocabulary 10 + 4 specials), batch 64,
    // RoPE, no dropout, no label smoothing.
    {.name = "copy", .label = "copy translator d64 h4 1+1 ff128 B64 n1-16",
     .model = MODEL_TRANSLATOR, .d = 64, .heads = 4, .enc = 1, .dec = 1, .ff = 128, .B = 64,
     .V_src = 14, .V_tgt = 14, .src_min = 1, .src_max = 16, .tgt_min = 1, .tgt_max = 16,
     .steps = 10, .pos = "rope", .act = ACTIVATION_RELU, .copy = 1},
    {.name = "lmcopy", .label = "lm copy d64 h4 2L ff128 B64 n1-16", .model = MODEL_LM, .d = 64,
     .heads = 4, .dec = 2, .ff = 128, .B = 64, .V_src = 14, .V_tgt = 14, .src_min = 1,
     .src_max = 16, .steps = 10, .pos = "rope", .act = ACTIVATION_RELU, .copy = 1},
};
#define N_SHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

static double peak_mib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int token(int b, int t, int step, int V) {
    return TOK_EOS + 1 + (b * 131 + t * 31 + step * 17) % (V - TOK_EOS - 1);
}

static void shape_config(const Shape *s, Config *c);

// The batch of one step; tokens counted as the positions the model reads (non-pad source +
// target), *flops its model FLOPs (models/model_flops.h) over the rows' non-pad lengths.
static void make_batch(const Shape *s, int step, Batch *bt, long *tokens, double *flops) {
    memset(bt, 0, sizeof *bt);
    Config c;
    shape_config(s, &c);
    bt->B = s->B;
    *tokens = 0;
    *flops = 0;
    if (s->model == MODEL_LM && s->copy) {   // <eos> x <bos> x <eos>, scored on the second x
        int span = s->src_max - s->src_min + 1, T = 0;
        for (int b = 0; b < s->B; b++) {   // the longest row
            int row = 2 * (s->src_min + (7 * b) % span + 1);
            if (row > T) T = row;
        }
        bt->T_tgt = T;
        bt->tgt_in = calloc((size_t)s->B * T, sizeof(int));
        bt->tgt_out = calloc((size_t)s->B * T, sizeof(int));
        for (int b = 0; b < s->B; b++) {
            int n = s->src_min + (7 * b) % span;
            int *in = bt->tgt_in + b * T, *out = bt->tgt_out + b * T;
            in[0] = TOK_EOS;
            in[n + 1] = TOK_BOS;
            for (int t = 0; t < n; t++) {
                int id = token(b, t, step, s->V_src);
                in[1 + t] = in[n + 2 + t] = out[n + 1 + t] = id;
            }
            out[2 * n + 1] = TOK_EOS;
            bt->n_tgt_tokens += n + 1;
            *tokens += 2 * n + 2;
            *flops += model_flops_sequence(&c, s->V_tgt, 0, 2 * n + 2);
        }
        return;
    }
    if (s->model == MODEL_LM) {
        bt->T_tgt = s->T;
        bt->tgt_in = malloc(sizeof(int) * (size_t)s->B * s->T);
        bt->tgt_out = malloc(sizeof(int) * (size_t)s->B * s->T);
        for (int b = 0; b < s->B; b++)
            for (int t = 0; t < s->T; t++) {
                bt->tgt_in[b * s->T + t] = token(b, t, step, s->V_src);
                bt->tgt_out[b * s->T + t] = token(b, t + 1, step, s->V_src);
            }
        bt->n_tgt_tokens = s->B * s->T;
        *tokens = bt->n_tgt_tokens;
        *flops = s->B * model_flops_sequence(&c, s->V_tgt, 0, s->T);
        return;
    }
    int Ts = s->src_max + 1, Tt = s->tgt_max + 1;
    bt->T_src = Ts;
    bt->T_tgt = Tt;
    bt->src = calloc((size_t)s->B * Ts, sizeof(int));
    bt->tgt_in = calloc((size_t)s->B * Tt, sizeof(int));
    bt->tgt_out = calloc((size_t)s->B * Tt, sizeof(int));
    for (int b = 0; b < s->B; b++) {
        int ns = s->src_min + (7 * b) % (s->src_max - s->src_min + 1);
        int nt = s->copy ? ns : s->tgt_min + (5 * b + 3) % (s->tgt_max - s->tgt_min + 1);
        for (int t = 0; t < ns; t++) bt->src[b * Ts + t] = token(b, t, step, s->V_src);
        bt->src[b * Ts + ns] = TOK_EOS;
        bt->tgt_in[b * Tt] = TOK_BOS;
        for (int t = 0; t < nt; t++) {
            int id = s->copy ? bt->src[b * Ts + t] : token(b, t + 100, step, s->V_tgt);
            bt->tgt_out[b * Tt + t] = id;
            bt->tgt_in[b * Tt + t + 1] = id;
        }
        bt->tgt_out[b * Tt + nt] = TOK_EOS;
        bt->n_tgt_tokens += nt + 1;
        *tokens += ns + 1 + nt + 1;
        *flops += model_flops_sequence(&c, s->V_tgt, ns + 1, nt + 1);
    }
}

static void shape_config(const Shape *s, Config *c) {
    config_defaults(c);
    c->model = s->model;
    c->task = s->copy ? TASK_ALGORITHMIC : s->model == MODEL_LM ? TASK_LM : TASK_TOY_TRANSLATE;
    snprintf(c->pos, sizeof c->pos, "%s", s->pos);
    c->activation = s->act;
    c->d_model = s->d; c->n_heads = s->heads; c->d_ff = s->ff;
    c->enc_layers = s->enc; c->dec_layers = s->dec;
    c->dropout = s->dropout; c->label_smoothing = s->smoothing; c->batch_size = s->B; c->seed = 1;
    if (s->llama) {
        c->norm = NORM_RMSNORM;
        c->bias = 0;
    }
}

// The machine's peak: every thread runs a loop of independent fused multiply-adds on
// vectors that never leave the registers (no loads, no stores), the widest the build's
// -march allows. Twelve accumulators cover the FMA latency on two pipes. GFLOP/s counts 2
// per lane per FMA; aux is the same per CPU-second of all threads, which survives a loaded
// machine (the wall-clock figure does not).
#if defined(__AVX512F__)
#define PEAK_LANES 16
#define PEAK_WIDTH "AVX-512"
#elif defined(__AVX__)
#define PEAK_LANES 8
#define PEAK_WIDTH "AVX2"
#else
#define PEAK_LANES 4
#define PEAK_WIDTH "128-bit"
#endif
typedef float peak_vec __attribute__((vector_size(PEAK_LANES * sizeof(float))));
enum { PEAK_ACC = 12 };

static float peak_loop(long iters, float seed) {
    peak_vec acc[PEAK_ACC], mul = {0}, add = {0};
    mul += 0.999999f;
    add += seed * 1e-7f;
    for (int a = 0; a < PEAK_ACC; a++) acc[a] = add + (float)a;
    for (long i = 0; i < iters; i++)   // the sum below uses every accumulator: nothing is dropped
        for (int a = 0; a < PEAK_ACC; a++) acc[a] = acc[a] * mul + add;
    float sum = 0;
    for (int a = 0; a < PEAK_ACC; a++)
        for (int l = 0; l < PEAK_LANES; l++) sum += acc[a][l];
    return sum;
}

// One timed region of the loop above on every thread (~0.1 s): GFLOP/s by the wall clock,
// and per CPU-second of all threads in *per_cpu_s (if not NULL).
static double peak_gflops(double *per_cpu_s) {
    const long iters = 20000000;
    volatile float sink = 0;
    double t0 = wall_seconds(), c0 = cpu_seconds();
    int threads = 1;
    #pragma omp parallel reduction(+ : sink)
    {
        #pragma omp single
        threads = omp_get_num_threads();
        sink += peak_loop(iters, (float)omp_get_thread_num());
    }
    double flops = 2.0 * PEAK_LANES * PEAK_ACC * (double)iters * threads;
    if (per_cpu_s) *per_cpu_s = flops / (cpu_seconds() - c0) / 1e9 * threads;
    return flops / (wall_seconds() - t0) / 1e9;
}

// value and aux: the measured numbers; peak: peak RSS (MiB); cpu: CPU ms per training step;
// base: RSS (MiB) before the first training step (model, optimizer state, batches);
// gflops: model GFLOP/s (median); peak_frac: model FLOP/s against the peak loop run just
// before, median over the runs.
typedef struct { double value, aux, peak, cpu, base, peak_frac, gflops; } Result;

static int micro_batches = 1;   // --micro-batches

static Result bench_model(const Shape *s, int runs) {
    Config c;
    shape_config(s, &c);
    Model m;
    model_build(&m, &c, s->V_src, s->V_tgt, 0);
    AdamW opt;
    adamw_init(&opt, &m.ps, c.beta1, c.beta2, c.eps, c.weight_decay);
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    enum { NB = 4 };   // a few different batches, as a real run sees
    Batch batches[NB];
    long tokens[NB];
    double flops[NB];
    for (int i = 0; i < NB; i++) make_batch(s, i, &batches[i], &tokens[i], &flops[i]);
    double base = peak_mib();
    // The trainer's step (train/train_step.h) at a fixed learning rate. Warm-up: size the arena.
    MicroBatches micro;
    char err[128];
    if (micro_batches_init(&micro, &m, micro_batches, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    StepArgs args = {.step = 1, .lr = 1e-3f, .clip = c.clip, .label_smoothing = c.label_smoothing,
                     .micro = &micro};
    StepResult out;
    for (int i = 0; i < 2; i++) train_step(&m, &batches[i % NB], &opt, args, &out);
    double *ms = malloc(sizeof(double) * runs), *tps = malloc(sizeof(double) * runs),
           *cpu = malloc(sizeof(double) * runs);
    double *frac = malloc(sizeof(double) * runs), *gf = malloc(sizeof(double) * runs);
    for (int r = 0; r < runs; r++) {
        // The host's speed drifts between seconds (other tenants); the peak loop right before
        // each run sees the same machine as the run it divides.
        double peak = peak_gflops(NULL), f = 0;
        long n = 0;
        double t0 = wall_seconds(), c0 = cpu_seconds();
        for (int i = 0; i < s->steps; i++) {
            runtime_adapt_threads();   // --threads 0
            train_step(&m, &batches[i % NB], &opt, args, &out);
            n += tokens[i % NB];
            f += flops[i % NB];
        }
        double dt = wall_seconds() - t0;
        cpu[r] = (cpu_seconds() - c0) * 1000 / s->steps;
        ms[r] = dt * 1000 / s->steps;
        tps[r] = n / dt;
        gf[r] = f / dt / 1e9;
        frac[r] = peak > 0 ? gf[r] / peak : 0;
    }
    Result res = {median(tps, runs), median(ms, runs), peak_mib(), median(cpu, runs), base,
                  median(frac, runs), median(gf, runs)};
    free(ms); free(tps); free(cpu); free(frac); free(gf);
    for (int i = 0; i < NB; i++) batch_free(&batches[i]);
    adamw_free(&opt);
    micro_batches_free(&micro);
    model_free(&m);
    arena_free(&arena);
    return res;
}

// Evaluation of one long lm window without gradients: memory must stay linear in T.
static Result bench_eval(int T, int runs) {
    Shape s = SHAPES[2];
    s.T = T; s.B = 1;
    Config c;
    shape_config(&s, &c);
    Model m;
    model_build(&m, &c, s.V_src, s.V_tgt, 0);
    model_set_training(&m, 0);
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    Batch b;
    long tokens;
    double flops;
    make_batch(&s, 0, &b, &tokens, &flops);
    tape_set_enabled(0);
    double *ms = malloc(sizeof(double) * runs);
    for (int r = 0; r < runs; r++) {
        arena_reset(&arena);
        double t0 = wall_seconds();
        batch_loss(&m, &b, 0, NULL, NULL);
        ms[r] = (wall_seconds() - t0) * 1000;
    }
    tape_set_enabled(1);
    Result res = {median(ms, runs), (double)arena.used_peak / (1 << 20), peak_mib(), 0, 0, 0, 0};
    free(ms);
    batch_free(&b);
    model_free(&m);
    arena_free(&arena);
    return res;
}

static void fill(Tensor *t, unsigned seed) {
    for (long i = 0; i < t->size; i++)
        t->data[i] = (float)((i * 2654435761u + seed) % 1000) / 1000.0f - 0.5f;
}

// Square C = A B through op_matmul (no gradient), repeated to fill about 0.2 s a run.
static Result bench_matmul(int n, int runs) {
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    tape_set_enabled(0);
    Tensor *a = tensor_new2(n, n, 0), *b = tensor_new2(n, n, 0);
    fill(a, 1); fill(b, 2);
    ArenaMark mark = arena_mark(&arena);
    double flops = 2.0 * n * n * n;
    int reps = (int)(4e8 / flops) + 1;
    op_matmul(a, b, 0, 0);
    double *g = malloc(sizeof(double) * runs);
    for (int r = 0; r < runs; r++) {
        double t0 = wall_seconds();
        for (int i = 0; i < reps; i++) {
            arena_release(&arena, mark);
            op_matmul(a, b, 0, 0);
        }
        g[r] = flops * reps / (wall_seconds() - t0) / 1e9;
    }
    tape_set_enabled(1);
    Result res = {median(g, runs), 0, peak_mib(), 0, 0, 0, 0};
    free(g);
    arena_free(&arena);
    return res;
}

// Fused attention forward + backward, causal, no dropout. GFLOP/s counts the nominal
// 12 B H T^2 D (forward 4, backward 8) as if nothing were masked.
enum { ATT_B = 8, ATT_H = 8, ATT_T = 256, ATT_D = 32 };
static Result bench_attention(int runs) {
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    int C = ATT_H * ATT_D;
    double flops = 12.0 * ATT_B * ATT_H * ATT_T * (double)ATT_T * ATT_D;
    int reps = (int)(4e8 / flops) + 1;
    double *ms = malloc(sizeof(double) * runs);
    for (int r = -1; r < runs; r++) {   // r = -1 warms up
        double t0 = wall_seconds();
        for (int i = 0; i < reps; i++) {
            arena_reset(&arena);
            tape_reset();
            Tensor *q = tensor_new3(ATT_B, ATT_T, C, 1), *k = tensor_new3(ATT_B, ATT_T, C, 1),
                   *v = tensor_new3(ATT_B, ATT_T, C, 1);
            fill(q, 1); fill(k, 2); fill(v, 3);
            AttnArgs args = {.n_heads = ATT_H, .causal = 1};
            Tensor *y = op_attention(q, k, v, &args);
            float *dy = grad_zeroed(y);
            for (long e = 0; e < y->size; e++) dy[e] = (float)(e % 7) * 0.1f - 0.3f;
            tape_replay();
        }
        if (r >= 0) ms[r] = (wall_seconds() - t0) * 1000 / reps;
    }
    double m = median(ms, runs);
    Result res = {flops / (m / 1000) / 1e9, m, peak_mib(), 0, 0, 0, 0};
    free(ms);
    arena_free(&arena);
    return res;
}

// The cost of one OpenMP fork/join with nothing to do: what every parallel region pays
// before its work can be shared (with OMP_WAIT_POLICY=passive, mostly waking the sleeping
// threads). Work smaller than a few of these stays on one thread (kernels.h).
static Result bench_forkjoin(int runs) {
    enum { REGIONS = 2000 };
    double *us = malloc(sizeof(double) * runs);
    volatile int sink = 0;
    for (int r = -1; r < runs; r++) {   // r = -1 warms up
        double t0 = wall_seconds();
        for (int i = 0; i < REGIONS; i++) {
            #pragma omp parallel
            if (omp_get_thread_num() == 0) sink = sink + 1;
        }
        if (r >= 0) us[r] = (wall_seconds() - t0) * 1e6 / REGIONS;
    }
    Result res = {median(us, runs), 0, peak_mib(), 0, 0, 0, 0};
    free(us);
    return res;
}

static Result bench_peak(int runs) {
    double *g = malloc(sizeof(double) * runs), *gc = malloc(sizeof(double) * runs);
    peak_gflops(NULL);   // warms up (and wakes the threads)
    for (int r = 0; r < runs; r++) g[r] = peak_gflops(&gc[r]);
    Result res = {median(g, runs), median(gc, runs), peak_mib(), 0, 0, 0, 0};
    free(g); free(gc);
    return res;
}

// --- child processes and the table ------------------------------------------------------

typedef enum { K_MODEL, K_MATMUL, K_ATTENTION, K_EVAL, K_FORKJOIN, K_PEAK } Kind;

// Run f in a child with `threads` OpenMP threads; the result comes back through a pipe.
static int measure(Kind kind, int arg, int threads, int runs, Result *out) {
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        runtime_set_threads(threads);
        Result r = kind == K_MODEL ? bench_model(&SHAPES[arg], runs)
                 : kind == K_MATMUL ? bench_matmul(arg, runs)
                 : kind == K_EVAL ? bench_eval(arg, runs)
                 : kind == K_FORKJOIN ? bench_forkjoin(runs)
                 : kind == K_PEAK ? bench_peak(runs) : bench_attention(runs);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], out, sizeof *out);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static const char *threads_label(int threads) {
    static char buf[16];
    if (threads <= 0) return "auto";
    snprintf(buf, sizeof buf, "%d", threads);
    return buf;
}

// A competitor for --busy: a child process that spins until it is killed.
static pid_t start_busy(void) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) for (volatile unsigned long i = 0;; i++) {}
    return pid;
}

static int wanted(const char *only, const char *name) {
    if (!only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

// The first name of the --only list that is neither a shape nor one of the other
// measurements, or NULL: an unknown name must not pass as "nothing to measure".
static const char *unknown_name(const char *only) {
    static const char *const OTHERS[] = {"peak", "matmul", "attention", "eval", "forkjoin"};
    for (const char *p = only; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        int known = 0;
        for (int s = 0; s < N_SHAPES && !known; s++)
            known = strlen(SHAPES[s].name) == n && !strncmp(p, SHAPES[s].name, n);
        for (size_t k = 0; k < sizeof OTHERS / sizeof OTHERS[0] && !known; k++)
            known = strlen(OTHERS[k]) == n && !strncmp(p, OTHERS[k], n);
        if (!known) return p;
        p += n;
    }
    return NULL;
}

// What the command line asks for.
typedef struct {
    int threads[8], n_threads, runs, tsv, busy;
    const char *only;   // NULL: everything
} BenchOptions;

// --threads LIST: comma-separated counts, 0 for auto. 0, or prints why and returns 2.
static int parse_threads(const char *list, BenchOptions *o) {
    o->n_threads = 0;
    for (const char *p = list; *p; p += *p == ',') {
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || n < 0 || n > 1024 || o->n_threads == 8) {
            fprintf(stderr, "bench: --threads: '%s' is not a list of at most 8 counts like 1,2 "
                            "(see ./bench --help)\n", list);
            return 2;
        }
        o->threads[o->n_threads++] = (int)n;
        p = end;
    }
    if (o->n_threads) return 0;
    fprintf(stderr, "bench: --threads: empty list (see ./bench --help)\n");
    return 2;
}

// Reads argv into o through the tools' option reader. 0, or the exit code: 0 after --help
// (usage on stdout), 2 after a mistake (message on stderr).
static int parse_options(int argc, char **argv, BenchOptions *o, int *exit_code) {
    *o = (BenchOptions){.threads = {1, 2}, .n_threads = 2, .runs = 5};
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(USAGE, stdout);
            return *exit_code = 0, 1;
        }
    const char *threads = NULL, *runs = NULL, *micro = NULL;
    const CliOption opts[] = {{"--threads", &threads, NULL}, {"--runs", &runs, NULL},
                              {"--only", &o->only, NULL},   {"--micro-batches", &micro, NULL},
                              {"--tsv", NULL, &o->tsv},     {"--busy", NULL, &o->busy},
                              {NULL, NULL, NULL}};
    long long n;
    int n_rest;
    *exit_code = 2;
    if (cli_read("bench", argc, argv, 1, opts, NULL, &n_rest, 0)) return 1;
    if (threads && parse_threads(threads, o)) return 1;
    if (runs && cli_int("bench", "--runs", runs, 1, 1000000, &n)) return 1;
    if (runs) o->runs = (int)n;
    if (micro && cli_int("bench", "--micro-batches", micro, 1, 64, &n)) return 1;
    if (micro) micro_batches = (int)n;
    const char *unknown = o->only ? unknown_name(o->only) : NULL;
    if (unknown) {
        fprintf(stderr, "bench: --only: no shape or measurement '%.*s' (see --help)\n",
                (int)strcspn(unknown, ","), unknown);
        return 1;
    }
    return 0;
}

// Memory before any work: the largest wanted shape's training step against what is available
// (reported unless the output is --tsv). 0, or 1 with the message printed.
static int check_memory(const BenchOptions *o) {
    MemoryEstimate largest = {0};
    Config largest_cfg;
    for (int s = 0; s < N_SHAPES; s++) {
        const Shape *sh = &SHAPES[s];
        if (!wanted(o->only, sh->name)) continue;   // each estimate runs a probe's step
        Config c;
        shape_config(sh, &c);
        MemoryVocab v = {sh->V_src, sh->V_tgt, 0};
        int T = sh->T ? sh->T : sh->model == MODEL_LM ? 2 * sh->src_max + 2 : sh->tgt_max + 1;
        MemoryPass p = {sh->B, sh->src_max + 1, T, 1, 0};
        MemoryEstimate e;
        memory_estimate_step(&c, v, &p, &e);
        if (e.total > largest.total) largest = e, largest_cfg = c;
    }
    char err[512];
    if (largest.total > 0 && memory_check(&largest, &largest_cfg, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    if (largest.total > 0 && !o->tsv) memory_report(&largest, &largest_cfg, stdout);
    return 0;
}

// The peak rows, first, for reference beside the model rows (each of their runs divides by a
// peak loop of its own, in bench_model). Returns 1 if a measurement failed.
static int peak_rows(const BenchOptions *o, int need_peak) {
    int failed = 0;
    if (need_peak && !o->tsv)
        printf("%-44s %7s %10s %13s\n", "peak: register-only FMA loop", "threads", "GFLOP/s",
               "per CPU-s");
    for (int t = 0; need_peak && t < o->n_threads; t++) {
        Result r;
        if (measure(K_PEAK, 0, o->threads[t], o->runs, &r)) { failed = 1; continue; }
        if (o->tsv)
            printf("peak\tfma\t%d\t%.2f\tGFLOP/s\t%.2f\tGFLOP/cpu-s\t%.1f\n", o->threads[t],
                   r.value, r.aux, r.peak);
        else
            printf("%-44s %7s %10.1f %13.1f\n", "fused multiply-adds, " PEAK_WIDTH,
                   threads_label(o->threads[t]), r.value, r.aux);
        fflush(stdout);
    }
    return failed;
}

// The training-step rows of every wanted shape. Returns 1 if a measurement failed.
static int model_rows(const BenchOptions *o, int need_peak) {
    int failed = 0;
    if (!o->tsv)
        printf("%s%-44s %7s %10s %9s %9s %9s %9s %8s %7s\n", need_peak ? "\n" : "",
               "training step", "threads", "tokens/s", "ms/step", "cpu ms", "peak MiB",
               "base MiB", "GFLOP/s", "% peak");
    for (int s = 0; s < N_SHAPES; s++) {
        if (!wanted(o->only, SHAPES[s].name)) continue;
        for (int t = 0; t < o->n_threads; t++) {
            Result r;
            if (measure(K_MODEL, s, o->threads[t], o->runs, &r)) { failed = 1; continue; }
            double gflops = r.gflops, pct = 100 * r.peak_frac;
            const char *label = SHAPES[s].label, *th = threads_label(o->threads[t]);
            if (o->tsv)
                printf("train\t%s\t%d\t%.1f\ttokens/s\t%.3f\tms/step\t"
                       "%.1f\t%.3f\t%.1f\t%.2f\t%.2f\n",
                       SHAPES[s].name, o->threads[t], r.value, r.aux, r.peak, r.cpu, r.base,
                       gflops, pct);
            else if (gflops > 0)
                printf("%-44s %7s %10.0f %9.2f %9.2f %9.0f %9.0f %8.1f %6.1f%%\n", label, th,
                       r.value, r.aux, r.cpu, r.peak, r.base, gflops, pct);
            else
                printf("%-44s %7s %10.0f %9.2f %9.2f %9.0f %9.0f %8s %7s\n", label, th, r.value,
                       r.aux, r.cpu, r.peak, r.base, "-", "-");
            fflush(stdout);
        }
    }
    return failed;
}

// The matmul rows (n = 64 .. 1024). Returns 1 if a measurement failed.
static int matmul_rows(const BenchOptions *o) {
    int failed = 0;
    if (!o->tsv) printf("\n%-44s %7s %12s\n", "matmul C = A B (n x n)", "threads", "GFLOP/s");
    for (int n = 64; n <= 1024; n *= 2)
        for (int t = 0; t < o->n_threads; t++) {
            Result r;
            if (measure(K_MATMUL, n, o->threads[t], o->runs, &r)) { failed = 1; continue; }
            if (o->tsv)
                printf("matmul\t%d\t%d\t%.2f\tGFLOP/s\t0\t-\t%.1f\n", n, o->threads[t], r.value,
                       r.peak);
            else printf("%-44d %7s %12.1f\n", n, threads_label(o->threads[t]), r.value);
            fflush(stdout);
        }
    return failed;
}

// The attention, evaluation and fork/join rows, as far as wanted. 1 if a measurement failed.
static int kernel_rows(const BenchOptions *o) {
    int failed = 0;
    char label[96];
    snprintf(label, sizeof label, "attention fwd+bwd B%d H%d T%d D%d causal", ATT_B, ATT_H,
             ATT_T, ATT_D);
    if (wanted(o->only, "attention") && !o->tsv)
        printf("\n%-44s %7s %12s %10s %9s\n", "attention", "threads", "GFLOP/s", "ms",
               "peak MiB");
    for (int t = 0; wanted(o->only, "attention") && t < o->n_threads; t++) {
        Result r;
        if (measure(K_ATTENTION, 0, o->threads[t], o->runs, &r)) { failed = 1; continue; }
        if (o->tsv)
            printf("attention\tcausal\t%d\t%.2f\tGFLOP/s\t%.3f\tms\t%.1f\n", o->threads[t],
                   r.value, r.aux, r.peak);
        else
            printf("%-44s %7s %12.1f %10.2f %9.0f\n", label, threads_label(o->threads[t]),
                   r.value, r.aux, r.peak);
        fflush(stdout);
    }
    if (wanted(o->only, "eval") && !o->tsv)
        printf("\n%-44s %7s %12s %10s %9s\n", "lm evaluation, no grad, B1", "threads", "ms",
               "arena MiB", "peak MiB");
    for (int t = 0; wanted(o->only, "eval") && t < o->n_threads; t++) {
        Result r;
        if (measure(K_EVAL, 4096, o->threads[t], o->runs, &r)) { failed = 1; continue; }
        if (o->tsv)
            printf("eval\tT4096\t%d\t%.2f\tms\t%.1f\tarena_mib\t%.1f\n", o->threads[t], r.value,
                   r.aux, r.peak);
        else
            printf("%-44s %7s %12.1f %10.1f %9.0f\n", "lm d128 T4096 window",
                   threads_label(o->threads[t]), r.value, r.aux, r.peak);
        fflush(stdout);
    }
    if (wanted(o->only, "forkjoin") && !o->tsv)
        printf("\n%-44s %7s %12s\n", "OpenMP fork/join", "threads", "us/region");
    for (int t = 0; wanted(o->only, "forkjoin") && t < o->n_threads; t++) {
        Result r;
        if (measure(K_FORKJOIN, 0, o->threads[t], o->runs, &r)) { failed = 1; continue; }
        if (o->tsv)
            printf("forkjoin\tempty\t%d\t%.2f\tus\t0\t-\t%.1f\n", o->threads[t], r.value, r.peak);
        else
            printf("%-44s %7s %12.2f\n", "an empty parallel region",
                   threads_label(o->threads[t]), r.value);
        fflush(stdout);
    }
    return failed;
}

int main(int argc, char **argv) {
    runtime_init(argc, argv);
    // The parent runs the memory probe (a training step at tiny shapes) and then forks the
    // measurements: a child forked from a process whose OpenMP threads exist has only the
    // forking thread and waits at its first parallel region for the others forever. One
    // thread here keeps libgomp from starting any; each child sets its own count.
    runtime_set_threads(1);
    BenchOptions o;
    int code;
    if (parse_options(argc, argv, &o, &code)) return code;
    if (check_memory(&o)) return 1;
    pid_t competitor = o.busy ? start_busy() : 0;
    if (competitor < 0) { perror("bench: fork"); return 1; }
    if (!o.tsv) {
        printf("bench: median of %d runs; OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s%s\n\n", o.runs,
               getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)",
               getenv("GOMP_SPINCOUNT") ? getenv("GOMP_SPINCOUNT") : "(unset)",
               o.busy ? "; a competing process spins on one core" : "");
    }
    int need_peak = wanted(o.only, "peak");
    for (int s = 0; s < N_SHAPES; s++) need_peak |= wanted(o.only, SHAPES[s].name);
    int failed = peak_rows(&o, need_peak);
    failed |= model_rows(&o, need_peak);
    if (wanted(o.only, "matmul")) failed |= matmul_rows(&o);
    failed |= kernel_rows(&o);
    if (competitor > 0) { kill(competitor, SIGKILL); waitpid(competitor, NULL, 0); }
    if (failed) fprintf(stderr, "bench: a measurement failed\n");
    return failed;
}
