// The training step and log.csv: train_step is its parts in order (the same parameters, bit
// for bit, as the forward, backward and clipped update written out, with the output layer on
// every position where the step runs it on the token rows), clips at args.clip and
// reports the norm before clipping, and leaves the model and the optimizer untouched when the
// loss is not finite; log.csv writes a missing value (or a NaN) as an empty cell, and
// train_log_start keeps the rows up to the step, drops a torn last line and keeps or replaces
// the comment lines. On micro-batches a step is the batch's rows run apart, each loss weighted
// by its share of the scored targets and the gradients summed in order (bit for bit, by hand),
// the whole batch's step within rounding, and the same on one thread or two.
#include <omp.h>
#include <string.h>
#include "check.h"
#include "fs_helpers.h"
#include "core/ops.h"
#include "core/tape.h"
#include "io/fileio.h"
#include "data/vocab.h"
#include "models/loss.h"
#include "train/micro_batches.h"
#include "train/train_log.h"
#include "train/train_step.h"

static Arena arena;

// A small translator and one batch of two rows (ids: 0 pad, 2 bos, 3 eos), the first the
// shorter: its padding lies between token rows.
static int src[2 * 4] = {8, 3, 0, 0, 5, 6, 7, 3}, tin[2 * 3] = {2, 11, 0, 2, 9, 10},
           tout[2 * 3] = {11, 3, 0, 9, 10, 3};
static const Batch batch = {.B = 2, .T_src = 4, .T_tgt = 3, .src = src, .tgt_in = tin,
                            .tgt_out = tout, .n_tgt_tokens = 5};

static void build_with(Model *m, AdamW *opt, float dropout) {
    Config c;
    config_defaults(&c);
    c.d_model = 16; c.n_heads = 2; c.d_ff = 20; c.enc_layers = 1; c.dec_layers = 1;
    c.seed = 3;
    if (dropout >= 0) c.dropout = dropout;   // else the default
    model_build(m, &c, 20, 24, 0);
    adamw_init(opt, &m->ps, c.beta1, c.beta2, c.eps, c.weight_decay);
}

static void build(Model *m, AdamW *opt) { build_with(m, opt, -1); }

static void free_model(Model *m, AdamW *opt) {
    adamw_free(opt);
    model_free(m);
}

static void test_step_is_its_parts(void) {
    Model a, b;
    AdamW oa, ob;
    build(&a, &oa);
    build(&b, &ob);
    StepArgs args = {.step = 1, .lr = 1e-2f, .clip = 0.5f, .label_smoothing = 0.1f};
    for (long step = 1; step <= 3; step++) {
        args.step = step;
        StepResult s;
        CHECK(train_step(&a, &batch, &oa, args, &s) == 0, "step %ld refused", step);
        arena_reset(&arena);
        tape_reset();
        params_zero_grad(&b.ps);
        model_seed_positions(&b, (uint64_t)step);
        // by hand with every position's logits, where the step scores the token rows only
        Tensor *logits;
        Tensor *loss = batch_loss(&b, &batch, args.label_smoothing, &logits, NULL);
        long right = count_correct(logits, tout, 6, 0);
        tape_backward(loss);
        float norm = grad_norm(&b.ps);
        adamw_step_scaled(&ob, &b.ps, args.lr, clip_scale(norm, args.clip));
        CHECK(s.loss == loss->data[0], "loss %g, by hand %g", s.loss, loss->data[0]);
        CHECK(s.correct == right, "%ld targets right, by hand %ld", s.correct, right);
        CHECK(s.grad_norm == norm, "gradient norm %g, by hand %g", s.grad_norm, norm);
        CHECK(memcmp(a.ps.data, b.ps.data, sizeof(float) * (size_t)a.ps.total) == 0,
              "step %ld: parameters differ", step);
    }
    free_model(&a, &oa);
    free_model(&b, &ob);
}

// The norm is reported before clipping, and a clip below it changes the update.
static void test_step_clips(void) {
    Model a, b;
    AdamW oa, ob;
    build(&a, &oa);
    build(&b, &ob);
    StepResult sa, sb;
    CHECK(train_step(&a, &batch, &oa, (StepArgs){.step = 1, .lr = 1e-2f}, &sa) == 0, "refused");
    CHECK(sa.grad_norm > 0.1f, "gradient norm %g", sa.grad_norm);
    StepArgs clipped = {.step = 1, .lr = 1e-2f, .clip = sa.grad_norm / 100};
    CHECK(train_step(&b, &batch, &ob, clipped, &sb) == 0, "refused");
    CHECK(sa.grad_norm == sb.grad_norm, "norms %g and %g", sa.grad_norm, sb.grad_norm);
    CHECK(memcmp(oa.m, ob.m, sizeof(float) * (size_t)oa.n) != 0, "clipping changed nothing");
    free_model(&a, &oa);
    free_model(&b, &ob);
}

static void test_not_finite_updates_nothing(void) {
    Model m;
    AdamW opt;
    build(&m, &opt);
    // token 8, the batch's first source token: every element, so dropout cannot remove it
    for (int c = 0; c < m.cfg.d_model; c++) m.src_embed->data[8 * m.cfg.d_model + c] = NAN;
    size_t bytes = sizeof(float) * (size_t)m.ps.total;
    float *before = malloc(bytes);
    memcpy(before, m.ps.data, bytes);
    StepResult s;
    CHECK(train_step(&m, &batch, &opt, (StepArgs){.step = 1, .lr = 1e-2f}, &s) == -1,
          "a NaN loss was accepted");
    CHECK(!isfinite(s.loss) || !isfinite(s.grad_norm), "loss %g, norm %g", s.loss, s.grad_norm);
    CHECK(memcmp(before, m.ps.data, bytes) == 0, "parameters changed");
    CHECK(opt.step == 0, "the optimizer counted the step (%ld)", opt.step);
    int moments = 1;
    for (long i = 0; i < opt.n; i++) moments &= opt.m[i] == 0 && opt.v[i] == 0;
    CHECK(moments, "the optimizer's moments changed");
    free(before);
    free_model(&m, &opt);
}

// Row r of the batch alone: its loss, weighted by w, backpropagated into m's zeroed gradients.
static float row_backward(Model *m, int r, float w) {
    Batch row = batch;
    row.B = 1;
    row.src += r * batch.T_src, row.tgt_in += r * batch.T_tgt, row.tgt_out += r * batch.T_tgt;
    arena_reset(&arena);
    tape_reset();
    params_zero_grad(&m->ps);
    model_seed_positions(m, 1);
    Tensor *loss = batch_loss(m, &row, 0, NULL, NULL);
    float l = loss->data[0];
    tape_backward(op_scale(loss, w));
    return l;
}

// Micro-batch boundaries by tokens, by hand. Source rows of 6, 1, 1, 1 tokens (9): two
// micro-batches split after row 0 (6 | 3, where halving the rows gave 7 | 2); three keep a
// row each for the last two. Rows of 1, 1, 1, 6 split after row 2 (3 | 6: after row 3 would
// leave none). Target-input tokens count too (last case).
static void test_micro_batches_split_by_tokens(void) {
    enum { B = 4, T = 6 };
    int src[B * T], tgt[B * T], bounds[4];
    Batch b = {.B = B, .T_src = T, .src = src};
    int lengths[2][B] = {{6, 1, 1, 1}, {1, 1, 1, 6}};
    for (int c = 0; c < 2; c++) {
        for (int r = 0; r < B; r++)
            for (int t = 0; t < T; t++) src[r * T + t] = t < lengths[c][r] ? 7 : TOK_PAD;
        micro_batches_split(&b, 2, bounds);
        int want = c == 0 ? 1 : 3;
        CHECK(bounds[0] == 0 && bounds[1] == want && bounds[2] == B,
              "rows %d %d %d %d, 2 micro-batches: bounds %d %d %d, want 0 %d 4", lengths[c][0],
              lengths[c][1], lengths[c][2], lengths[c][3], bounds[0], bounds[1], bounds[2], want);
    }
    for (int r = 0; r < B; r++)
        for (int t = 0; t < T; t++) src[r * T + t] = t < lengths[0][r] ? 7 : TOK_PAD;
    micro_batches_split(&b, 3, bounds);
    CHECK(bounds[1] == 1 && bounds[2] == 2 && bounds[3] == 4, "3 micro-batches: %d %d %d",
          bounds[1], bounds[2], bounds[3]);
    // sources 2, 2, 2, 2 and target inputs 5, 0, 0, 0: rows of 7, 2, 2, 2 tokens (13); after
    // row 0 leaves 7 | 6, after row 1 9 | 4: row 0's boundary is nearer 6.5
    for (int r = 0; r < B; r++)
        for (int t = 0; t < T; t++) {
            src[r * T + t] = t < 2 ? 7 : TOK_PAD;
            tgt[r * T + t] = r == 0 && t < 5 ? 7 : TOK_PAD;
        }
    b.tgt_in = tgt, b.T_tgt = T;
    micro_batches_split(&b, 2, bounds);
    CHECK(bounds[1] == 1, "target tokens: bound %d, want 1 (7 | 6 tokens)", bounds[1]);
}

// Two micro-batches of one row each: row 0 scores 2 targets, row 1 3, so their losses weigh
// 2/5 and 3/5 (not 1/2 each), and the update is that of the summed gradients.
static void test_micro_batches_by_hand(void) {
    Model a, r0, r1;
    AdamW oa, o0, o1;
    build_with(&a, &oa, 0);
    build_with(&r0, &o0, 0);
    build_with(&r1, &o1, 0);
    MicroBatches mb;
    char err[128];
    CHECK(micro_batches_init(&mb, &a, 2, err, sizeof err) == 0, "%s", err);
    StepArgs args = {.step = 1, .lr = 1e-2f, .clip = 0.5f, .micro = &mb};
    StepResult s;
    CHECK(train_step(&a, &batch, &oa, args, &s) == 0, "refused");
    float l0 = row_backward(&r0, 0, 2.0f / 5), l1 = row_backward(&r1, 1, 3.0f / 5);
    float want = 2.0f / 5 * l0 + 3.0f / 5 * l1;
    CHECK(fabsf(s.loss - want) <= 1e-6f * want, "loss %.8g, by hand %.8g", s.loss, want);
    for (long j = 0; j < r0.ps.total; j++) r0.ps.grad[j] += r1.ps.grad[j];
    float norm = grad_norm(&r0.ps);
    adamw_step_scaled(&o0, &r0.ps, args.lr, clip_scale(norm, args.clip));
    CHECK(s.grad_norm == norm, "gradient norm %g, by hand %g", s.grad_norm, norm);
    CHECK(memcmp(a.ps.data, r0.ps.data, sizeof(float) * (size_t)a.ps.total) == 0,
          "parameters differ from the hand-summed step");
    micro_batches_free(&mb);
    free_model(&a, &oa);
    free_model(&r0, &o0);
    free_model(&r1, &o1);
}

// With dropout (each micro-batch draws its own): the same parameters, bit for bit, on one
// thread and on two; and without dropout the whole batch's step within rounding.
static void test_micro_batches_threads(void) {
    Model m[3];
    AdamW o[3];
    MicroBatches mb[2];
    char err[128];
    StepResult s[3];
    int threads = omp_get_max_threads();
    for (int i = 0; i < 2; i++) {
        build_with(&m[i], &o[i], 0.2f);
        CHECK(micro_batches_init(&mb[i], &m[i], 2, err, sizeof err) == 0, "%s", err);
        omp_set_num_threads(i + 1);
        for (long step = 1; step <= 3; step++)
            train_step(&m[i], &batch, &o[i],
                       (StepArgs){.step = step, .lr = 1e-2f, .clip = 1, .micro = &mb[i]}, &s[i]);
    }
    omp_set_num_threads(threads);
    CHECK(s[0].loss == s[1].loss && s[0].grad_norm == s[1].grad_norm,
          "1 thread: loss %.9g norm %.9g; 2 threads: %.9g %.9g", s[0].loss, s[0].grad_norm,
          s[1].loss, s[1].grad_norm);
    CHECK(memcmp(m[0].ps.data, m[1].ps.data, sizeof(float) * (size_t)m[0].ps.total) == 0,
          "parameters differ between 1 and 2 threads");
    for (int i = 0; i < 2; i++) {
        micro_batches_free(&mb[i]);
        free_model(&m[i], &o[i]);
    }
    build_with(&m[0], &o[0], 0);
    build_with(&m[2], &o[2], 0);
    CHECK(micro_batches_init(&mb[0], &m[0], 2, err, sizeof err) == 0, "%s", err);
    train_step(&m[0], &batch, &o[0], (StepArgs){.step = 1, .lr = 1e-2f, .micro = &mb[0]}, &s[0]);
    train_step(&m[2], &batch, &o[2], (StepArgs){.step = 1, .lr = 1e-2f}, &s[2]);
    CHECK(fabsf(s[0].loss - s[2].loss) <= 1e-6f * s[2].loss &&
          fabsf(s[0].grad_norm - s[2].grad_norm) <= 1e-5f * s[2].grad_norm,
          "micro-batches: loss %.8g norm %.8g; whole batch: %.8g %.8g", s[0].loss,
          s[0].grad_norm, s[2].loss, s[2].grad_norm);
    CHECK(s[0].correct == s[2].correct, "correct %ld, whole batch %ld", s[0].correct,
          s[2].correct);
    micro_batches_free(&mb[0]);
    free_model(&m[0], &o[0]);
    free_model(&m[2], &o[2]);
}

static char *read_all(const char *path) {
    char err[256];
    size_t n;
    return read_file(path, &n, 1 << 20, err, sizeof err);
}

static void test_log_missing_cells(void) {
    char path[256];
    path_in_tmp(path, sizeof path, "rows.csv");
    FILE *f = fopen(path, "w");
    train_log_row(f, &(LogRow){.step = 7, .split = "train", .loss = log_cell(1.5),
                               .token_acc = log_cell(0), .lr = log_cell(2e-3),
                               .grad_norm = log_cell(0.25)}, 0);
    train_log_row(f, &(LogRow){.step = 7, .split = "val", .length = 12, .loss = log_cell(NAN),
                               .exact_match = log_cell(-1), .loss_last = log_cell(3)}, 0);
    train_log_row(f, &(LogRow){.step = 8, .split = "val"}, 0);
    // with the tokens column: a count in full (not %.6g), or empty when unknown
    train_log_row(f, &(LogRow){.step = 9, .split = "val", .loss = log_cell(2),
                               .tokens = log_cell(12345678)}, 1);
    train_log_row(f, &(LogRow){.step = 9, .split = "converged"}, 1);
    fclose(f);
    char *text = read_all(path);
    const char *want = "7,train,0,1.5,0,,,0.002,0.25\n"
                       "7,val,12,,,-1,3,,\n"
                       "8,val,0,,,,,,\n"
                       "9,val,0,2,,,,,,12345678\n"
                       "9,converged,0,,,,,,,\n";
    CHECK(text && !strcmp(text, want), "got:\n%s", text ? text : "(nothing)");
    free(text);
}

static void test_log_start(void) {
    char path[256], err[256] = "";
    path_in_tmp(path, sizeof path, "log.csv");
    const char *old = "# init_from = a (step 5)\n" TRAIN_LOG_HEADER
                      "1,train,0,1,,,,,\n2,train,0,2,,,,,\n3,train,0,3,,,,,\n4,tr";
    write_file_atomic(path, old, strlen(old), err, sizeof err);
    CHECK(train_log_start(path, 2, NULL, 0, err, sizeof err) == 0, "resume: %s", err);
    char *text = read_all(path);
    const char *resumed = "# init_from = a (step 5)\n" TRAIN_LOG_HEADER
                          "1,train,0,1,,,,,\n2,train,0,2,,,,,\n";
    CHECK(text && !strcmp(text, resumed), "resumed at 2:\n%s", text ? text : "(nothing)");
    free(text);
    CHECK(train_log_start(path, 0, "# x\n", 0, err, sizeof err) == 0, "fresh: %s", err);
    text = read_all(path);
    CHECK(text && !strcmp(text, "# x\n" TRAIN_LOG_HEADER), "fresh:\n%s", text ? text : "");
    free(text);
    CHECK(!train_log_has_tokens(path), "a log without the tokens column has it");
}

// A run that gains a stop rule on resume: the kept rows get an empty tokens cell; a stop row
// is dropped, because the run goes on past it.
static void test_log_start_tokens(void) {
    char path[256], err[256] = "";
    path_in_tmp(path, sizeof path, "log_tokens.csv");
    const char *old = TRAIN_LOG_HEADER "1,train,0,1,,,,,\n2,val,0,2,,,,,\n2,ceiling,0,,,,,,\n";
    write_file_atomic(path, old, strlen(old), err, sizeof err);
    CHECK(train_log_start(path, 2, NULL, 1, err, sizeof err) == 0, "resume: %s", err);
    char *text = read_all(path);
    const char *want = TRAIN_LOG_HEADER_TOKENS "1,train,0,1,,,,,,\n2,val,0,2,,,,,,\n";
    CHECK(text && !strcmp(text, want), "got:\n%s", text ? text : "(nothing)");
    free(text);
    CHECK(train_log_has_tokens(path), "the tokens column is not seen");
    // a log with it already: rows kept as they are
    old = TRAIN_LOG_HEADER_TOKENS "3,val,0,2,,,,,,96\n3,converged,0,,,,,,,96\n";
    write_file_atomic(path, old, strlen(old), err, sizeof err);
    CHECK(train_log_start(path, 3, NULL, 1, err, sizeof err) == 0, "resume: %s", err);
    text = read_all(path);
    want = TRAIN_LOG_HEADER_TOKENS "3,val,0,2,,,,,,96\n";
    CHECK(text && !strcmp(text, want), "got:\n%s", text ? text : "(nothing)");
    free(text);
}

int main(void) {
    if (tmpdir_create("test_train_step")) return 1;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_step_is_its_parts);
    RUN(test_step_clips);
    RUN(test_not_finite_updates_nothing);
    RUN(test_micro_batches_split_by_tokens);
    RUN(test_micro_batches_by_hand);
    RUN(test_micro_batches_threads);
    RUN(test_log_missing_cells);
    RUN(test_log_start);
    RUN(test_log_start_tokens);
    arena_free(&arena);
    tmpdir_remove();
    return check_summary();
}
