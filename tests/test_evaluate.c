// Metrics and decoding decisions on a model whose output is one fixed distribution: every
// weight is 0 (so every hidden state and LayerNorm output is 0) and the output layer's bias
// holds chosen log-probabilities. Then each loss, exact match and beam choice is a number
// computed by hand: loss_last of the language model, exact match on hand-built batches (an
// output must end with <eos> where the reference does), token accuracy (ties, padding), and
// the GNMT length penalty picking the longer hypothesis (never <bos>).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "models/decode.h"
#include "score/diagnose.h"
#include "models/loss.h"
#include "score/evaluate.h"
#include "score/grad_dump.h"
#include "io/safetensors.h"
#include <unistd.h>

static Arena arena;
enum { V = 6, X = 4, Y = 5 };   // ids 0-3 are <pad> <unk> <bos> <eos>

// A model of `kind` ("translator" or "lm") whose logits are always `logits` (V entries).
static void constant_model(Model *m, const char *kind, const float *logits) {
    Config c;
    config_defaults(&c);
    config_word(&c, "model.model", kind);
    snprintf(c.pos, sizeof c.pos, "none");
    c.d_model = 8; c.n_heads = 2; c.d_ff = 8; c.enc_layers = 1; c.dec_layers = 1;
    c.batch_size = 4;
    model_build(m, &c, V, V, 0);
    memset(m->ps.data, 0, sizeof(float) * (size_t)m->ps.total);
    memcpy(m->head.bias->data, logits, sizeof(float) * V);
}

// Logits 0 except X = ln 3: p(X) = 3/8, any other token 1/8. -ln(3/8) = 0.9808293,
// -ln(1/8) = 2.0794415.
static void test_loss_last_is_the_last_32(void) {
    float z[V] = {0, 0, 0, 0, logf(3), 0};
    Model m;
    constant_model(&m, "lm", z);
    // One window of T = 40: targets are stream[1..40]; the first 8 are X, the last 32 are Y.
    int stream[41];
    for (int i = 0; i < 41; i++) stream[i] = i <= 8 ? X : Y;
    EvalResult r;
    char err[256];
    CHECK(evaluate_lm(&m, stream, 41, 40, 1, &r, err, sizeof err) == 0, "evaluate_lm: %s", err);
    CHECK_NEAR(r.loss_last, 2.0794415, 1e-5);                                    // Y only
    CHECK_NEAR(r.loss, (8 * 0.9808293 + 32 * 2.0794415) / 40, 1e-5);            // 1.8597194
    CHECK_NEAR(r.token_acc, 8.0 / 40, 1e-9);
    model_free(&m);
}

// evaluate_lm runs a batch of long windows through the stack a few windows at a time: its loss,
// loss_last and token accuracy are those of the whole batch in one pass (batch_loss), bit for
// bit. 8 windows of 1024 tokens: two passes of 4 (LM_EVAL_CHUNK_TOKENS), on random weights.
static void test_lm_windows_in_chunks_equal_one_pass(void) {
    enum { VL = 11, T = 1024, W = 8, N = W * T + 1 };
    const char *schemes[2] = {"rope", "alibi"};
    static int stream[N];
    for (int i = 0; i < N; i++) stream[i] = 4 + (int)((i * 7919L + i / 13) % (VL - 4));
    for (int k = 0; k < 2; k++) {
        Config c;
        config_defaults(&c);
        config_word(&c, "model.model", "lm");
        snprintf(c.pos, sizeof c.pos, "%s", schemes[k]);
        c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.dec_layers = 2; c.seed = 5 + k;
        Model m;
        model_build(&m, &c, VL, VL, 0);
        EvalResult r;
        char err[256];
        CHECK(evaluate_lm(&m, stream, N, T, 256, &r, err, sizeof err) == 0, "evaluate_lm: %s", err);
        // the reference: the batch in one pass, as evaluate_lm scored it before
        model_set_training(&m, 0);
        model_seed_positions(&m, MODEL_EVAL_DRAW);
        tape_set_enabled(0);
        int starts[W], tail[W * T];
        for (int w = 0; w < W; w++) starts[w] = w * T;
        Batch b;
        CHECK(batch_lm(stream, N, starts, W, T, &b) == 0, "batch");
        ArenaMark mark = arena_mark(&arena);
        Tensor *logits;
        long right;
        float loss = batch_loss(&m, &b, 0, &logits, &right)->data[0];
        for (int i = 0; i < W * T; i++) tail[i] = i % T >= T - 32 ? b.tgt_out[i] : TOK_PAD;
        float last = op_cross_entropy(logits, tail, TOK_PAD, 0)->data[0];
        arena_release(&arena, mark);
        batch_free(&b);
        tape_set_enabled(1);
        CHECK(r.loss == (double)loss * W * T / ((double)W * T) && r.loss_last == (double)last &&
              r.token_acc == (double)right / (W * T),
              "%s: loss %.9g, loss_last %.9g, token_acc %.9g; one pass %.9g, %.9g, %.9g", schemes[k],
              r.loss, r.loss_last, r.token_acc, loss, last, (double)right / (W * T));
        model_free(&m);
    }
}

// A translator's teacher-forced pass over long sentences runs a few sentences at a time through
// each stack (TF_CHUNK_TOKENS): loss and token accuracy are those of the batch in one pass
// (batch_loss), bit for bit, and exact match counts the outputs of greedy_decode encoding the
// batch itself. 5 pairs of about 1000 tokens, random weights: chunks of 3 and 2 sentences.
static void test_long_sentences_in_chunks_equal_one_pass(void) {
    enum { VT = 11, B = 5, L = 1000 };
    static int src[B][L + 40], tgt[B][L + 40];
    Example ex[B];
    for (int i = 0; i < B; i++) {
        int ns = L + 7 * i, nt = L + 40 - 9 * i;   // different lengths: padding in both stacks
        for (int j = 0; j < ns; j++) src[i][j] = 4 + (int)((j * 31L + i * 7) % (VT - 4));
        for (int j = 0; j < nt; j++) tgt[i][j] = 4 + (int)((j * 17L + i * 3) % (VT - 4));
        ex[i] = (Example){.src = src[i], .n_src = ns, .tgt = tgt[i], .n_tgt = nt};
    }
    Config c;
    config_defaults(&c);
    config_word(&c, "model.model", "translator");
    snprintf(c.pos, sizeof c.pos, "rope");
    c.d_model = 16; c.n_heads = 2; c.d_ff = 24; c.enc_layers = 1; c.dec_layers = 1;
    c.batch_size = B; c.seed = 3;
    Model m;
    model_build(&m, &c, VT, VT, 0);
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_TRANSLATE;
    Split split = {ex, B};
    EvalResult r;
    char err[256] = "";
    CHECK(evaluate_split(&m, &t, &split, 0, 1, &r, err, sizeof err) == 0, "evaluate_split: %s", err);
    // the reference: the batch in one pass, then greedy_decode encoding it again
    model_set_training(&m, 0);
    model_seed_positions(&m, MODEL_EVAL_DRAW);
    tape_set_enabled(0);
    int idx[B] = {0, 1, 2, 3, 4};
    Batch b;
    CHECK(batch_from_split(&split, idx, B, t.batch_kind, 0, &b) == 0, "batch");
    ArenaMark mark = arena_mark(&arena);
    Tensor *logits;
    long right, exact = 0;
    float loss = batch_loss(&m, &b, 0, &logits, &right)->data[0];
    arena_release(&arena, mark);
    int max_len = b.T_tgt + 2, *hyp = malloc(sizeof(int) * (size_t)B * max_len);
    CHECK(hyp && greedy_decode(&m, b.src, NULL, B, b.T_src, max_len, b.tgt_out, b.T_tgt, NULL, -1,
                               hyp) == 0, "greedy");
    for (int i = 0; hyp && i < B; i++)
        exact += memcmp(hyp + (long)i * max_len, b.tgt_out + (long)i * b.T_tgt,
                        sizeof(int) * (size_t)(ex[i].n_tgt + 1)) == 0;
    tape_set_enabled(1);
    CHECK(r.loss == (double)loss && r.token_acc == (double)right / b.n_tgt_tokens &&
          r.exact_match == (double)exact / B,
          "loss %.9g, token_acc %.9g, exact %g; one pass %.9g, %.9g, %g", r.loss, r.token_acc,
          r.exact_match, loss, (double)right / b.n_tgt_tokens, (double)exact / B);
    free(hyp);
    batch_free(&b);
    model_free(&m);
}

static void run_split(Model *m, Example *ex, int n, int decode, EvalResult *r) {
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_TRANSLATE;
    Split s = { ex, n };
    char err[256] = "";
    CHECK(evaluate_split(m, &t, &s, 0, decode, r, err, sizeof err) == 0, "evaluate_split: %s", err);
}

static void test_exact_match_needs_eos(void) {
    int src[1] = {Y}, xx[2] = {X, X};
    // A model that always says <eos> (p = 1/2): it matches the empty target only.
    float says_eos[V] = {-1e4f, 0, -1e4f, logf(3), 0, 0};
    Model m;
    constant_model(&m, "translator", says_eos);
    Example two[2] = {{ .src = src, .n_src = 1, .tgt = NULL, .n_tgt = 0 },
                      { .src = src, .n_src = 1, .tgt = xx, .n_tgt = 2 }};
    EvalResult r;
    run_split(&m, two, 2, 1, &r);
    CHECK_NEAR(r.exact_match, 0.5, 0);
    model_free(&m);
    // A model that always says X: its output X X X ... has the reference's tokens but no
    // <eos> after them, so it is not a match. Loss over X X <eos>: (2 (-ln 3/6) - ln 1/6) / 3
    // with p(X) = 3/6 and p(<eos>) = 1/6 (<pad> and <bos> excluded): 1.0593222.
    float says_x[V] = {-1e4f, 0, -1e4f, 0, logf(3), 0};
    constant_model(&m, "translator", says_x);
    run_split(&m, two + 1, 1, 1, &r);
    CHECK_NEAR(r.exact_match, 0, 0);
    CHECK_NEAR(r.loss, (2 * log(2.0) + log(6.0)) / 3, 1e-5);
    CHECK_NEAR(r.token_acc, 2.0 / 3, 1e-9);
    model_free(&m);
}

// The length oracle (eval.length = oracle): a model that always prefers <eos> (X and Y tied
// next, so X, the lower id) must write X until the reference length and <eos> exactly there.
static void test_length_oracle_forbids_early_eos(void) {
    float says_eos[V] = {-1e4f, -1e4f, -1e4f, logf(3), 0, 0};
    Model m;
    constant_model(&m, "translator", says_eos);
    int src[3 * 2] = {Y, TOK_EOS, Y, TOK_EOS, Y, TOK_EOS}, stop_at[3] = {3, 0, 1}, out[3 * 6];
    CHECK(greedy_decode(&m, src, NULL, 3, 2, 6, NULL, 0, stop_at, -1, out) == 0, "greedy_decode with a length oracle");
    const int want[3 * 6] = {X, X, X, TOK_EOS, 0, 0,   TOK_EOS, 0, 0, 0, 0, 0,   X, TOK_EOS, 0, 0, 0, 0};
    for (int i = 0; i < 3 * 6; i++) CHECK(out[i] == want[i], "row %d step %d: %d, expected %d", i / 6, i % 6, out[i], want[i]);
    CHECK(greedy_decode(&m, src, NULL, 3, 2, 6, NULL, 0, NULL, -1, out) == 0 && out[0] == TOK_EOS && out[6] == TOK_EOS,
          "without the oracle every row is <eos> at once");
    // With X the end token (as "." ends every toy_translate sentence): X only at the last
    // token, Y (next likeliest) before it.
    CHECK(greedy_decode(&m, src, NULL, 3, 2, 6, NULL, 0, stop_at, X, out) == 0, "greedy_decode with a length oracle and an end token");
    const int want_end[3 * 6] = {Y, Y, X, TOK_EOS, 0, 0,   TOK_EOS, 0, 0, 0, 0, 0,   X, TOK_EOS, 0, 0, 0, 0};
    for (int i = 0; i < 3 * 6; i++)
        CHECK(out[i] == want_end[i], "end token X: row %d step %d: %d, expected %d", i / 6, i % 6, out[i], want_end[i]);
    model_free(&m);
}

// Exact match with a length oracle. A model that always prefers <eos> (then X) matches
// nothing when it stops itself, but X X <eos> when decoded to the reference length: the
// reference X X then matches, X Y does not. Trained without <eos> (BATCH_TRANSLATE_NO_EOS) the
// oracle is implied, and the loss covers the tokens only: p(X) = p(Y) = 1/5, ln 5 a token.
static void test_exact_match_with_length_oracle(void) {
    float says_eos[V] = {-1e4f, -1e4f, -1e4f, logf(3), 0, 0};
    Model m;
    constant_model(&m, "translator", says_eos);
    int src[1] = {Y}, xx[2] = {X, X}, xy[2] = {X, Y};
    Example ex[2] = {{ .src = src, .n_src = 1, .tgt = xx, .n_tgt = 2 }, { .src = src, .n_src = 1, .tgt = xy, .n_tgt = 2 }};
    Task t;
    memset(&t, 0, sizeof t);
    Split s = { ex, 2 };
    EvalResult r;
    char err[256] = "";
    const BatchKind kinds[3] = {BATCH_TRANSLATE, BATCH_TRANSLATE, BATCH_TRANSLATE_NO_EOS};
    const char *length[3] = {"model", "oracle", "model"};
    const double want[3] = {0, 0.5, 0.5};
    for (int k = 0; k < 3; k++) {
        t.batch_kind = kinds[k];
        config_word(&t.cfg, "eval.length", length[k]);
        CHECK(evaluate_split(&m, &t, &s, 0, 1, &r, err, sizeof err) == 0, "evaluate_split: %s", err);
        CHECK(fabs(r.exact_match - want[k]) < 1e-12, "case %d: exact match %g, expected %g", k, r.exact_match, want[k]);
    }
    CHECK(r.n_tokens == 4, "without <eos>: %ld target tokens, expected 4", r.n_tokens);
    CHECK_NEAR(r.loss, log(5.0), 1e-5);
    model_free(&m);
}

// The per-position CSV of ./eval --positions on hand-built sets (all one clause: the task here
// is not toy_translate). The X model on targets X Y X and X X, with X as the "end token": under
// teacher forcing the argmax X is right where the target is X; greedy X X X ... leaves X Y X
// <eos> at position 1 and X X <eos> at position 2 (an X where <eos> belongs), both departures
// with the end token. The <eos> model on target X: departs at position 0 with an early <eos>.
static char *diagnose_csv(Model *m, Example *ex, int n, int end_token) {
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_TRANSLATE;
    Split s = { ex, n };
    Diagnosis d;
    diagnosis_init(&d, end_token);
    EvalResult r;
    char err[256] = "", *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(evaluate_diagnose(m, &t, &s, 0, 1, &d, &r, err, sizeof err) == 0, "evaluate_diagnose: %s", err);
    diagnosis_write(f, &d, "test", 4, 1);
    fclose(f);
    diagnosis_free(&d);
    return text;
}

static void test_positions_by_hand(void) {
    float says_x[V] = {-1e4f, 0, -1e4f, 0, logf(3), 0};
    Model m;
    constant_model(&m, "translator", says_x);
    int src[1] = {Y}, xyx[3] = {X, Y, X}, xx[2] = {X, X}, x[1] = {X};
    Example ex[2] = {{ .src = src, .n_src = 1, .tgt = xyx, .n_tgt = 3 }, { .src = src, .n_src = 1, .tgt = xx, .n_tgt = 2 }};
    char *csv = diagnose_csv(&m, ex, 2, X);
    const char *want =
        "split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end\n"
        "test,4,position,0,2,1,2,0,0,0,0\n"
        "test,4,position,1,2,0.5,2,1,0.5,0,1\n"
        "test,4,position,2,2,0.5,1,1,1,0,1\n"
        "test,4,position,3,1,0,0,0,,0,0\n"
        "test,4,clause,0,7,0.571429,2,2,1,0,2\n";
    CHECK(csv && !strcmp(csv, want), "X model:\n%s\nexpected\n%s", csv ? csv : "(none)", want);
    free(csv);
    model_free(&m);
    float says_eos[V] = {-1e4f, 0, -1e4f, logf(3), 0, 0};
    constant_model(&m, "translator", says_eos);
    Example one = { .src = src, .n_src = 1, .tgt = x, .n_tgt = 1 };
    csv = diagnose_csv(&m, &one, 1, -1);
    want = "split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end\n"
           "test,4,position,0,1,0,1,1,1,1,1\n"
           "test,4,position,1,1,1,0,0,,0,0\n"
           "test,4,clause,0,2,0.5,1,1,1,1,1\n";
    CHECK(csv && !strcmp(csv, want), "<eos> model:\n%s\nexpected\n%s", csv ? csv : "(none)", want);
    free(csv);
    model_free(&m);
}

// Token accuracy: the argmax of a row (the lowest id among equal maxima, as greedy decoding
// picks) against the target, padding targets left out. A model that puts its highest logit on
// <pad> (ln 4 against 0 for the other 4 tokens, <bos> excluded: p = 1/8 each) gets no token
// right, though the shorter row's padding targets equal its argmax; every loss is ln 8.
static void test_token_accuracy_ties_and_padding(void) {
    int two[2] = {2, 3}, targets[2] = {0, 1};
    Tensor *z = tensor_new(2, two, 0);
    const float rows[6] = {1, 1, 0,   0, 2, 2};   // ties: ids 0 and 1, ids 1 and 2
    memcpy(z->data, rows, sizeof rows);
    CHECK(count_correct(z, targets, 2, -1) == 2, "count_correct %ld, expected 2", count_correct(z, targets, 2, -1));
    float says_pad[V] = {logf(4), 0, -1e4f, 0, 0, 0};
    Model m;
    constant_model(&m, "translator", says_pad);
    int src[1] = {Y}, xx[2] = {X, X};
    Example ex[2] = {{ .src = src, .n_src = 1, .tgt = xx, .n_tgt = 2 }, { .src = src, .n_src = 1, .tgt = NULL, .n_tgt = 0 }};
    EvalResult r;
    run_split(&m, ex, 2, 0, &r);
    CHECK(r.n_tokens == 4, "%ld target tokens, expected 4 (X X <eos>, <eos>)", r.n_tokens);
    CHECK_NEAR(r.token_acc, 0, 0);
    CHECK_NEAR(r.loss, log(8.0), 1e-5);
    model_free(&m);
}

// count_correct's argmax is the first index of a row's largest entry; NaNs never win and a
// NaN first entry gives 0. Against the running comparison, on rows of 1..70 entries drawn from
// five values (many ties, the largest in the vector part or the tail), NaNs and signed zeros.
static int first_largest(const float *row, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (row[i] > row[best]) best = i;
    return best;
}

static void test_count_correct_takes_the_first_largest(void) {
    const float values[5] = {-1.5f, -0.0f, 0.0f, 2.0f, NAN};
    unsigned state = 12345;
    int checked = 0;
    for (int n = 1; n <= 70; n++)
        for (int trial = 0; trial < 40; trial++) {
            int shape[2] = {1, n};
            Tensor *z = tensor_new(2, shape, 0);
            for (int i = 0; i < n; i++) {
                state = state * 1664525u + 1013904223u;
                int pick = (state >> 24) % (trial < 20 ? 4 : 5);   // NaNs in half the rows
                z->data[i] = values[pick];
            }
            int want = first_largest(z->data, n);
            for (int t = 0; t < n; t++) {
                long got = count_correct(z, &t, 1, -1);
                CHECK(got == (t == want), "row of %d (trial %d): target %d counted %ld, first "
                      "largest is %d", n, trial, t, got, want);
                checked++;
            }
        }
    CHECK(checked == 70 * 71 / 2 * 40, "%d targets checked", checked);
}

// Beam 2 with p(X) = 0.8, p(<eos>) = 0.2 (others ~0) at every step. Ended hypotheses:
// "<eos>" scores ln 0.2 = -1.609 (length 1, penalty 1), "X <eos>" scores ln 0.8 + ln 0.2 =
// -1.833, divided by ((5 + 2) / 6)^alpha. alpha = 0: "<eos>" wins; alpha = 1: -1.833 / (7/6)
// = -1.571 > -1.609, so "X <eos>" wins.
static void test_length_penalty_decides_beam(void) {
    float z[V] = {-1e4f, -1e4f, -1e4f, logf(0.2f), logf(0.8f), -1e4f};
    Model m;
    constant_model(&m, "translator", z);
    int src[2] = {Y, TOK_EOS}, out[2][6];
    CHECK(beam_decode(&m, src, 1, 2, 2, 0.0f, 6, out[0]) == 0, "beam_decode failed");
    CHECK(beam_decode(&m, src, 1, 2, 2, 1.0f, 6, out[1]) == 0, "beam_decode failed");
    CHECK(out[0][0] == TOK_EOS && out[0][1] == 0, "alpha 0: got %d %d, expected <eos>", out[0][0], out[0][1]);
    CHECK(out[1][0] == X && out[1][1] == TOK_EOS && out[1][2] == 0, "alpha 1: got %d %d %d, expected X <eos>",
          out[1][0], out[1][1], out[1][2]);
    model_free(&m);
    // <bos> the likeliest token: never chosen, the same choice as before for alpha 0.
    z[TOK_BOS] = 2;
    constant_model(&m, "translator", z);
    CHECK(beam_decode(&m, src, 1, 2, 2, 0.0f, 6, out[0]) == 0, "beam_decode failed");
    CHECK(out[0][0] == TOK_EOS && out[0][1] == 0, "<bos> likeliest: got %d %d, expected <eos>", out[0][0], out[0][1]);
    model_free(&m);
    // X and Y tied (0.4 each, <eos> 0.2): the lower id wins, as greedy decoding's argmax does;
    // nothing ends, so after max_len 3 the output is X X X.
    float tie[V] = {-1e4f, -1e4f, -1e4f, logf(0.2f), logf(0.4f), logf(0.4f)};
    constant_model(&m, "translator", tie);
    CHECK(beam_decode(&m, src, 1, 2, 1, 0.0f, 3, out[0]) == 0, "beam_decode failed");
    CHECK(out[0][0] == X && out[0][1] == X && out[0][2] == X, "tie: got %d %d %d, expected X X X", out[0][0], out[0][1], out[0][2]);
    model_free(&m);
}

// ./eval --dump-grads on two hand-built examples, targets X<eos> and X X<eos> (3 X, 2 <eos>
// kept), with label smoothing 0.1. Logits ln 3 for X, 0 elsewhere: lse = ln 8, mean_z = ln3/6.
// Row loss (1-eps)(lse - z_t) + eps (lse - mean_z): X 1.0723803, <eos> 2.0611313; mean
// 1.4678807 (unsmoothed it would be 1.4202742). Gradient of the output bias: p_v - eps/V per
// row minus (1-eps) times the share of targets equal to v: X 3/8 - 1/60 - 0.54 = -0.1816667,
// <eos> 1/8 - 1/60 - 0.36 = -0.2516667, any other 1/8 - 1/60 = 0.1083333.
static const StTensor *dumped(const StFile *f, const char *name) {
    const StTensor *t = st_find(f, name);
    CHECK(t != NULL, "the dump has no %s", name);
    return t;
}

static void test_grad_dump_by_hand(void) {
    float z[V] = {0, 0, 0, 0, logf(3), 0};
    Model m;
    constant_model(&m, "translator", z);
    int src[1] = {Y}, one[1] = {X}, two[2] = {X, X};
    Example ex[2] = { { .src = src, .n_src = 1, .tgt = one, .n_tgt = 1 }, { .src = src, .n_src = 1, .tgt = two, .n_tgt = 2 } };
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_TRANSLATE;
    t.val = (Split){ ex, 2 };
    Config c = m.cfg;
    c.label_smoothing = 0.1f;
    char path[64], err[256] = "";
    snprintf(path, sizeof path, "/tmp/test_evaluate_%d.grads", (int)getpid());
    CHECK(grad_dump(&m, &t, &c, path, err, sizeof err) == 0, "grad_dump: %s", err);
    StFile *f = st_load(path, err, sizeof err);
    CHECK(f != NULL, "st_load: %s", err);
    if (f) {
        const StTensor *loss = dumped(f, "loss"), *out = dumped(f, "batch.tgt_out"), *g = dumped(f, "grad.generator.bias");
        if (loss) CHECK_NEAR(loss->data[0], 1.4678807, 1e-5);
        float want[6] = {X, TOK_EOS, TOK_PAD, X, X, TOK_EOS};
        if (out) CHECK(out->numel == 6 && !memcmp(out->data, want, sizeof want), "batch.tgt_out is not the targets");
        double gw[V] = {0.1083333, 0.1083333, 0.1083333, -0.2516667, -0.1816667, 0.1083333};
        for (int v = 0; g && v < V; v++) CHECK_NEAR(g->data[v], gw[v], 1e-5);
        const char *ls = st_meta(f, "label_smoothing");
        CHECK(ls && !strcmp(ls, "0.100000001"), "label_smoothing metadata '%s'", ls ? ls : "(none)");
        st_free(f);
    }
    model_free(&m);
    // Dropout is off for the dump: on a model with real weights and dropout 0.5, two dumps are
    // the same bytes and the loss is the evaluation loss (unsmoothed here).
    Config d;
    config_defaults(&d);
    snprintf(d.pos, sizeof d.pos, "sinusoidal");
    d.d_model = 8; d.n_heads = 2; d.d_ff = 8; d.enc_layers = 1; d.dec_layers = 1; d.dropout = 0.5f; d.batch_size = 4;
    model_build(&m, &d, V, V, 0);
    model_set_training(&m, 1);
    EvalResult r;
    CHECK(evaluate_split(&m, &t, &t.val, 0, 0, &r, err, sizeof err) == 0, "evaluate_split: %s", err);
    char path2[80];
    snprintf(path2, sizeof path2, "%s.2", path);
    CHECK(grad_dump(&m, &t, &d, path, err, sizeof err) == 0 && grad_dump(&m, &t, &d, path2, err, sizeof err) == 0,
          "grad_dump: %s", err);
    StFile *a = st_load(path, err, sizeof err), *b = st_load(path2, err, sizeof err);
    CHECK(a && b, "st_load: %s", err);
    if (a && b) {
        const StTensor *loss = dumped(a, "loss");
        if (loss) CHECK_NEAR(loss->data[0], r.loss, 1e-5);
        int differ = st_count(a) != st_count(b);
        for (int i = 0; !differ && i < st_count(a); i++) {
            const StTensor *x = st_get(a, i), *y = st_find(b, x->name);
            differ = !y || x->numel != y->numel || memcmp(x->data, y->data, sizeof(float) * (size_t)x->numel);
        }
        CHECK(!differ, "two dumps of the same model differ (dropout on?)");
    }
    if (a) st_free(a);
    if (b) st_free(b);
    unlink(path);
    unlink(path2);
    model_free(&m);
}

int main(void) {
    arena_init(&arena, 1 << 22);
    tensor_set_arena(&arena);
    tape_set_enabled(0);
    RUN(test_loss_last_is_the_last_32);
    RUN(test_lm_windows_in_chunks_equal_one_pass);
    RUN(test_long_sentences_in_chunks_equal_one_pass);
    RUN(test_exact_match_needs_eos);
    RUN(test_length_oracle_forbids_early_eos);
    RUN(test_exact_match_with_length_oracle);
    RUN(test_positions_by_hand);
    RUN(test_token_accuracy_ties_and_padding);
    RUN(test_count_correct_takes_the_first_largest);
    RUN(test_length_penalty_decides_beam);
    RUN(test_grad_dump_by_hand);
    arena_free(&arena);
    return check_summary();
}
