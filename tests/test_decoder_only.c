// The decoder-only form of the algorithmic task (docs/design.md §5.8) and the attention
// temperature (§2.4), by hand:
//  - BATCH_PROMPT lays out <eos> input <bos> output <eos> and scores the output part only;
//  - a hand-wired language model (no layers: each logit row depends on its own token and
//    position only) continues <eos> input <bos> greedily through the key/value cache, grouped
//    by input length, and evaluate_split counts its exact matches and teacher-forced token accuracy as computed here;
//  - attn_logit_factor is log(n)/log(n_train) past n_train and exactly 1 up to it, and
//    op_attention applies it per query row (n = the keys the row sees), forward and backward.
#include <math.h>
#include <string.h>
#include "check.h"
#include "core/arena.h"
#include "core/tape.h"
#include "data/algorithmic.h"
#include "data/batch.h"
#include "grad_check.h"
#include "models/decode.h"
#include "score/evaluate.h"

static Arena arena;

static int same_ints(const int *a, const int *b, int n) { return !memcmp(a, b, sizeof(int) * (size_t)n); }

static Example example(int *src, int n_src, int *tgt, int n_tgt) {
    return (Example){ .src = src, .n_src = n_src, .tgt = tgt, .n_tgt = n_tgt, .label = -1, .twin = -1, .n_clauses = n_src };
}

// Symbols 0 1 2 are ids 4 5 6; <pad> 0, <bos> 2, <eos> 3.
static void test_prompt_batch_layout(void) {
    int x0[] = {4, 5, 6}, y0[] = {6, 5, 4};        // reverse of "0 1 2"
    int x1[] = {5}, y1[] = {5, 5};                 // duplicate of "1"
    Example ex[2] = { example(x0, 3, y0, 3), example(x1, 1, y1, 2) };
    Split s = { ex, 2 };
    int idx[2] = {0, 1};
    Batch b;
    CHECK(batch_from_split(&s, idx, 2, BATCH_PROMPT, 0, &b) == 0, "batch");
    // The longest row: <eos> + 3 + <bos> + 3 + <eos> = 9 tokens, read as 8 inputs and 8 targets.
    CHECK(b.B == 2 && b.T_tgt == 8 && b.T_src == 0 && !b.src && !b.labels, "shape B %d T %d", b.B, b.T_tgt);
    static const int in[2][8]  = {{3, 4, 5, 6, 2, 6, 5, 4}, {3, 5, 2, 5, 5, 0, 0, 0}};
    static const int out[2][8] = {{0, 0, 0, 0, 6, 5, 4, 3}, {0, 0, 5, 5, 3, 0, 0, 0}};
    CHECK(same_ints(b.tgt_in, in[0], 8) && same_ints(b.tgt_in + 8, in[1], 8), "inputs: <eos> input <bos> output, padded");
    // Scored: the target at every position from <bos> on (the output and <eos>); the next
    // tokens of the start and the input (4 5 6 after <eos> 4 5, <bos> after 6) are <pad>.
    CHECK(same_ints(b.tgt_out, out[0], 8) && same_ints(b.tgt_out + 8, out[1], 8), "targets: output <eos> only");
    CHECK(b.n_tgt_tokens == 4 + 3, "scored tokens %d, want (3 + 1) + (2 + 1)", b.n_tgt_tokens);
    batch_free(&b);
}

// A language model with no layers and a learned position table: logits(t) = generator(LN(E[token
// t] + P[t])). Token v is coordinate v (one-hot E, no sqrt(d) factor); positions 0..3 add
// nothing, positions 4.. add 2 to coordinate 7. Generator row w reads coordinate v with weight
// 10 when w = next[v], and <eos> also reads coordinate 7. LayerNorm keeps the order of the
// coordinates, so the next token is next[current token] at positions 0..3 (<bos> -> "1" (5),
// "1" -> "2" (6), "2" -> <eos>), and <eos> from position 4 on (coordinate 7 is then the
// largest). So the continuation depends on where <bos> stands, i.e. on the input's length:
// after <eos> and 1 input token "1 2 <eos>", after 2 "1 <eos>", after 3 or more "<eos>".
enum { V = 7, D = 8 };
static void wired_lm(Model *m) {
    Config c;
    config_defaults(&c);
    c.model = MODEL_LM;
    snprintf(c.pos, sizeof c.pos, "learned");
    c.d_model = D; c.n_heads = 1; c.d_ff = 4; c.dec_layers = 0; c.embed_scale = 0; c.dropout = 0; c.pos_cfg.max_len = 8;
    model_build(m, &c, V, V, 0);
    memset(m->src_embed->data, 0, sizeof(float) * V * D);
    for (int v = 0; v < V; v++) m->src_embed->data[v * D + v] = 1;
    Tensor *pos = &params_find(&m->ps, "pos.weight")->t;
    memset(pos->data, 0, sizeof(float) * pos->size);
    for (int t = 4; t < 8; t++) pos->data[t * D + 7] = 2;
    memset(m->head.weight->data, 0, sizeof(float) * V * D);
    memset(m->head.bias->data, 0, sizeof(float) * V);
    static const int next[V] = {4, 4, 5, 4, 4, 6, 3};   // next[current token]
    for (int v = 0; v < V; v++) m->head.weight->data[next[v] * D + v] += 10;
    m->head.weight->data[TOK_EOS * D + 7] += 10;
}

static void test_greedy_continuation_by_hand(void) {
    Model m;
    wired_lm(&m);
    Task t;
    memset(&t, 0, sizeof t);
    t.batch_kind = BATCH_PROMPT;
    int one[] = {4}, two[] = {4, 4}, other[] = {6};
    int y12[] = {5, 6}, y1[] = {5}, y11[] = {5, 5};
    // A (1 input token) and B (2) are continued exactly; C's and D's references differ.
    Example ex[4] = { example(one, 1, y12, 2), example(two, 2, y1, 1), example(other, 1, y11, 2), example(two, 2, y12, 2) };
    Split s = { ex, 4 };
    m.cfg.batch_size = 3;   // ordered by input length: A C B | D, so a batch holds two lengths
    EvalResult r;
    char err[256] = "";
    CHECK(evaluate_split(&m, &t, &s, 0, 1, &r, err, sizeof err) == 0, "evaluate: %s", err);
    CHECK(r.n_examples == 4 && r.n_tokens == 3 + 2 + 3 + 3, "%d examples, %ld tokens", r.n_examples, r.n_tokens);
    CHECK_NEAR(r.exact_match, 2.0 / 4, 1e-12);
    // Teacher forcing, the token at position p predicting p+1: A <bos>@2 5@3 6@4 -> 5 6 <eos>
    // (3 of 3); B <bos>@3 5@4 -> 5 <eos> (2 of 2); C <bos>@2 5@3 5@4 -> 5 6 <eos> against
    // 5 5 <eos> (2 of 3); D <bos>@3 5@4 6@5 -> 5 <eos> <eos> against 5 6 <eos> (2 of 3).
    CHECK_NEAR(r.token_acc, 9.0 / 11, 1e-12);
    // The continuations themselves, through the cache: prompts <eos> x x, then <eos> x.
    int prompts[6] = {3, 4, 6, 3, 5, 5}, short_prompts[4] = {3, 4, 3, 6}, out[2 * 5];
    CHECK(greedy_decode(&m, prompts, NULL, 2, 3, 5, NULL, 0, NULL, -1, out) == 0, "decode");
    static const int after2[5] = {5, 3, 0, 0, 0}, after1[5] = {5, 6, 3, 0, 0};
    CHECK(same_ints(out, after2, 5) && same_ints(out + 5, after2, 5), "after 2: %d %d %d / %d %d %d",
          out[0], out[1], out[2], out[5], out[6], out[7]);
    CHECK(greedy_decode(&m, short_prompts, NULL, 2, 2, 5, NULL, 0, NULL, -1, out) == 0, "decode");
    CHECK(same_ints(out, after1, 5) && same_ints(out + 5, after1, 5), "after 1: %d %d %d / %d %d %d",
          out[0], out[1], out[2], out[5], out[6], out[7]);
    model_free(&m);
}

static void test_logit_factor_by_hand(void) {
    CHECK(attn_logit_factor(1, 33) == 1.0f && attn_logit_factor(33, 33) == 1.0f, "identity up to n_train");
    CHECK(attn_logit_factor(100, 0) == 1.0f && attn_logit_factor(100, 1) == 1.0f, "no n_train: identity");
    CHECK_NEAR(attn_logit_factor(64, 32), 1.2, 1e-6);                 // 6 / 5
    CHECK_NEAR(attn_logit_factor(66, 33), 1.198240239, 1e-6);         // ln 66 / ln 33
    CHECK_NEAR(attn_logit_factor(256, 16), 2.0, 1e-6);                // 8 / 4
    CHECK_NEAR(attn_logit_factor(17, 16), 1.021866, 1e-6);            // ln 17 / ln 16
}

// One head of width 1: q = 1, keys k_j = j, values v_j = j, no 1/sqrt(D) change (D = 1).
// Causal row i sees keys 0..i: n = i + 1. With n_train = 2 the factor is 1 for rows 0 and 1
// and ln 3 / ln 2 for row 2 (n = 3), whose scores 0 1 2 become 0, f, 2f.
static void test_attention_applies_factor(void) {
    Tensor *q = tensor_new3(1, 3, 1, 0), *k = tensor_new3(1, 3, 1, 0), *v = tensor_new3(1, 3, 1, 0);
    for (int j = 0; j < 3; j++) { q->data[j] = 1; k->data[j] = (float)j; v->data[j] = (float)j; }
    AttnArgs args = { .n_heads = 1, .causal = 1, .logit_train_length = 2 };
    Tensor *y = op_attention(q, k, v, &args);
    double f = log(3.0) / log(2.0), e1 = exp(f), e2 = exp(2 * f);
    double row1 = exp(1.0) / (1 + exp(1.0));                          // keys 0, 1; factor 1
    CHECK_NEAR(y->data[0], 0.0, 1e-6);
    CHECK_NEAR(y->data[1], row1, 1e-6);
    CHECK_NEAR(y->data[2], (e1 + 2 * e2) / (1 + e1 + e2), 1e-5);
    args.logit_train_length = 0;                                      // off: row 2 unscaled
    Tensor *plain = op_attention(q, k, v, &args);
    CHECK_NEAR(plain->data[2], (exp(1.0) + 2 * exp(2.0)) / (1 + exp(1.0) + exp(2.0)), 1e-5);
    args.logit_train_length = 3;                                      // n <= n_train everywhere: bit-identical
    Tensor *same = op_attention(q, k, v, &args);
    CHECK(!memcmp(same->data, plain->data, sizeof(float) * 3), "n_train 3: the same bits as off");
    // A padding key is not counted: with key 0 masked, row 2 sees n = 2 keys, factor 1.
    int pad[3] = {1, 0, 0};
    args = (AttnArgs){ .n_heads = 1, .causal = 1, .key_pad = pad, .logit_train_length = 2 };
    Tensor *padded = op_attention(q, k, v, &args);
    CHECK_NEAR(padded->data[2], (exp(1.0) + 2 * exp(2.0)) / (exp(1.0) + exp(2.0)), 1e-5);
}

// Gradients of the scaled scores (rows past n_train = 3, and a bias that needs its own
// gradient), against finite differences.
static AttnArgs grad_args;
static Tensor *scaled_attention(Tensor **in) {
    grad_args.bias = in[3];
    return op_attention(in[0], in[1], in[2], &grad_args);
}
static void test_factor_gradients(void) {
    gc_rng = rng_stream(7, RNG_INIT);
    int shape[3] = {2, 6, 4}, bias_shape[3] = {2, 6, 6};
    Tensor *in[4] = { gc_input(3, shape, 1), gc_input(3, shape, 1), gc_input(3, shape, 1), gc_input(3, bias_shape, 1) };
    int pad[12] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};   // row 1's key 1 is padding: n counts the others
    grad_args = (AttnArgs){ .n_heads = 2, .causal = 1, .key_pad = pad, .logit_train_length = 3 };
    CHECK(grad_check("scaled attention", scaled_attention, in, 4) <= 1.0, "finite differences");
}

int main(void) {
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    RUN(test_prompt_batch_layout);
    RUN(test_greedy_continuation_by_hand);
    RUN(test_logit_factor_by_hand);
    RUN(test_attention_applies_factor);
    RUN(test_factor_gradients);
    arena_free(&arena);
    return check_summary();
}
