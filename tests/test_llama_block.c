// The Llama-style block options (docs/design.md §2.5): RMSNorm and SwiGLU's gated product
// against finite differences and hand-computed values, the SwiGLU FFN by hand, and the
// tensor names and shapes each option gives every model kind (§3.2).
#include <string.h>
#include "check.h"
#include "config_words.h"
#include "grad_check.h"
#include "core/arena.h"
#include "models/model.h"

static Arena arena;

static Tensor *f_rmsnorm(Tensor **in) { return op_rmsnorm(in[0], in[1], 1e-5f); }
static Tensor *f_swiglu(Tensor **in) { return op_swiglu(in[0], in[1]); }
// gate and up one tensor: its gradient gets both terms, the second added to the first
static Tensor *f_swiglu_self(Tensor **in) { return op_swiglu(in[0], in[0]); }

static void test_rmsnorm_gradients(void) {
    int shapes[][2] = {{1, 4}, {3, 7}, {5, 33}};
    for (int s = 0; s < 3; s++) {
        int xs[3] = {2, shapes[s][0], shapes[s][1]};
        Tensor *in[2] = {gc_input(3, xs, 1), gc_input(1, xs + 2, 1)};
        grad_check("rmsnorm", f_rmsnorm, in, 2);
    }
}

static void test_rmsnorm_values(void) {
    // Row (1, 2, 3, 4): mean(x^2) = 30/4 = 7.5, rstd = 1/sqrt(7.5 + 1e-5) = 0.3651481; no mean
    // is subtracted (LayerNorm would give -1.342, -0.447, ...). With w = (1, 0.5, 2, -1):
    // (0.3651481, 0.3651481, 2.1908888, -1.4605925).
    int xs[2] = {1, 4}, ws = 4;
    Tensor *x = tensor_new(2, xs, 0), *w = tensor_new(1, &ws, 0);
    float xv[4] = {1, 2, 3, 4}, wv[4] = {1, 0.5f, 2, -1};
    memcpy(x->data, xv, sizeof xv);
    memcpy(w->data, wv, sizeof wv);
    Tensor *y = op_rmsnorm(x, w, 1e-5f);
    double want[4] = {0.3651481, 0.3651481, 2.1908888, -1.4605925};
    for (int i = 0; i < 4; i++) CHECK_NEAR(y->data[i], want[i], 1e-6);
    // A zero row stays zero (eps keeps rstd finite).
    memset(x->data, 0, sizeof xv);
    y = op_rmsnorm(x, w, 1e-5f);
    for (int i = 0; i < 4; i++) CHECK(y->data[i] == 0, "zero row gave %g", y->data[i]);
}

static void test_swiglu_gradients(void) {
    int shapes[][3] = {{1, 1, 1}, {2, 3, 17}, {4, 5, 40}};
    for (int s = 0; s < 3; s++) {
        Tensor *in[2] = {gc_input(3, shapes[s], 1), gc_input(3, shapes[s], 1)};
        for (long i = 0; i < in[0]->size; i++) in[0]->data[i] *= 3;   // reach silu's curved part
        grad_check("swiglu", f_swiglu, in, 2);
        float *up_grad = in[1]->grad;                         // one input without a gradient
        in[1]->grad = NULL;
        grad_check("swiglu gate only", f_swiglu, in, 2);
        in[1]->grad = up_grad;
        in[0]->grad = NULL;
        grad_check("swiglu up only", f_swiglu, in, 2);
        grad_check("swiglu of one tensor", f_swiglu_self, in + 1, 1);
    }
}

static void test_swiglu_values(void) {
    // silu(a) * u: silu(1) = 1 * sigmoid(1) = 0.7310586, silu(-2) = -2 * 0.1192029, silu(0) = 0.
    int n = 3;
    Tensor *a = tensor_new(1, &n, 0), *u = tensor_new(1, &n, 0);
    float av[3] = {1, -2, 0}, uv[3] = {2, 3, 5};
    memcpy(a->data, av, sizeof av);
    memcpy(u->data, uv, sizeof uv);
    Tensor *y = op_swiglu(a, u);
    CHECK_NEAR(y->data[0], 1.4621172, 1e-6);
    CHECK_NEAR(y->data[1], -0.7152175, 1e-6);
    CHECK_NEAR(y->data[2], 0, 0);
    // The gate is the silu'd one: swapping the inputs changes the value (silu(2) * 1 = 1.7616).
    CHECK_NEAR(op_swiglu(u, a)->data[0], 1.7615942, 1e-6);
}

static void test_swiglu_ffn_by_hand(void) {
    // d = 2, d_ff = 1, no biases: gate = (1, 0), up = (0, 2), down = (3, -1)^T. For x = (1, 1):
    // gate x = 1, up x = 2, h = silu(1) * 2 = 1.4621172, y = (3h, -h) = (4.3863516, -1.4621172).
    Params ps;
    memset(&ps, 0, sizeof ps);
    FFN f;
    ffn_declare(&f, &ps, "ffn", 2, 1, ACTIVATION_SWIGLU, 0);
    params_alloc(&ps);
    CHECK(ps.n == 3 && !f.gate_proj.bias && !f.up_proj.bias && !f.down_proj.bias, "%d tensors, want 3 weights", ps.n);
    f.gate_proj.weight->data[0] = 1; f.gate_proj.weight->data[1] = 0;
    f.up_proj.weight->data[0] = 0;   f.up_proj.weight->data[1] = 2;
    f.down_proj.weight->data[0] = 3; f.down_proj.weight->data[1] = -1;
    int xs[2] = {1, 2};
    Tensor *x = tensor_new(2, xs, 0);
    x->data[0] = x->data[1] = 1;
    Tensor *y = ffn_forward(&f, x);
    CHECK_NEAR(y->data[0], 4.3863516, 1e-5);
    CHECK_NEAR(y->data[1], -1.4621172, 1e-5);
    params_free(&ps);
}

static void llama_config(Config *c, const char *model) {
    config_defaults(c);
    config_word(c, "model.model", model);
    snprintf(c->pos, sizeof c->pos, "rope");
    c->norm = NORM_RMSNORM;
    c->activation = ACTIVATION_SWIGLU;
    c->bias = 0;
    c->d_model = 16; c->n_heads = 4; c->d_ff = 24; c->enc_layers = 2; c->dec_layers = 2;
}

static int has(const Model *m, const char *name, int d0, int d1) {
    Param *p = params_find((Params *)&m->ps, name);
    if (!p) return 0;
    return p->t.shape[0] == d0 && (d1 < 0 ? p->t.ndim == 1 : p->t.ndim == 2 && p->t.shape[1] == d1);
}

static void test_llama_tensor_names(void) {
    const char *kinds[] = {"classifier", "translator", "lm"};
    for (int k = 0; k < 3; k++) {
        Config c;
        llama_config(&c, kinds[k]);
        Model m;
        model_build(&m, &c, 20, 24, 5);
        const char *S = k == 0 ? "encoder" : "decoder";
        char name[128];
        int biases = 0;
        for (int i = 0; i < m.ps.n; i++) biases += strstr(m.ps.list[i]->name, ".bias") != NULL;
        CHECK(biases == 0, "%s: %d tensors named *.bias", kinds[k], biases);
        snprintf(name, sizeof name, "%s.layers.1.ffn.gate_proj.weight", S);
        CHECK(has(&m, name, 24, 16), "%s: %s [d_ff, d]", kinds[k], name);
        snprintf(name, sizeof name, "%s.layers.1.ffn.up_proj.weight", S);
        CHECK(has(&m, name, 24, 16), "%s: %s [d_ff, d]", kinds[k], name);
        snprintf(name, sizeof name, "%s.layers.0.ffn.down_proj.weight", S);
        CHECK(has(&m, name, 16, 24), "%s: %s [d, d_ff]", kinds[k], name);
        snprintf(name, sizeof name, "%s.layers.0.ffn.fc1.weight", S);
        CHECK(!params_find(&m.ps, name), "%s: swiglu still declares %s", kinds[k], name);
        snprintf(name, sizeof name, "%s.layers.0.norm1.weight", S);
        CHECK(has(&m, name, 16, -1), "%s: %s", kinds[k], name);
        snprintf(name, sizeof name, "%s.norm.weight", S);
        CHECK(has(&m, name, 16, -1), "%s: %s", kinds[k], name);
        CHECK(has(&m, k == 0 ? "head.weight" : "generator.weight", k == 0 ? 5 : 24 - 4 * (k == 2), 16), "%s: output layer", kinds[k]);
        // Per layer: 4 attention weights (8 with cross-attention), 3 FFN weights, 2 or 3 norm
        // weights; then the stack's norm, the embeddings and the output weight.
        int per_layer = k == 1 ? 4 + 4 + 3 + 3 : 4 + 3 + 2;
        int want = (k == 1 ? 2 * (4 + 3 + 2) + 1 + 2 * per_layer + 1 + 2 : 2 * per_layer + 1 + 1) + 1;
        CHECK(m.ps.n == want, "%s: %d tensors, want %d", kinds[k], m.ps.n, want);
        model_free(&m);
    }
}

static void test_options_one_at_a_time(void) {
    // Each option changes only its own tensors: rmsnorm drops the norms' biases, bias = false
    // the Linear ones, swiglu swaps fc1/fc2 for gate/up/down.
    Config c;
    config_defaults(&c);
    c.model = MODEL_LM;
    c.d_model = 16; c.n_heads = 4; c.d_ff = 24; c.dec_layers = 1;
    Model m;
    c.norm = NORM_RMSNORM;
    model_build(&m, &c, 20, 20, 0);
    CHECK(!params_find(&m.ps, "decoder.layers.0.norm1.bias") && !params_find(&m.ps, "decoder.norm.bias") &&
          params_find(&m.ps, "decoder.layers.0.ffn.fc1.bias") && params_find(&m.ps, "generator.bias"), "rmsnorm alone");
    model_free(&m);
    c.norm = NORM_LAYERNORM;
    c.bias = 0;
    model_build(&m, &c, 20, 20, 0);
    CHECK(params_find(&m.ps, "decoder.layers.0.norm3.bias") && !params_find(&m.ps, "decoder.layers.0.self_attn.q_proj.bias") &&
          !params_find(&m.ps, "decoder.layers.0.ffn.fc2.bias") && !params_find(&m.ps, "generator.bias"), "bias = false alone");
    model_free(&m);
    c.bias = 1;
    c.activation = ACTIVATION_SWIGLU;
    model_build(&m, &c, 20, 20, 0);
    CHECK(params_find(&m.ps, "decoder.layers.0.ffn.gate_proj.bias") && params_find(&m.ps, "decoder.layers.0.ffn.up_proj.bias") &&
          has(&m, "decoder.layers.0.ffn.down_proj.bias", 16, -1) && !params_find(&m.ps, "decoder.layers.0.ffn.fc1.weight"),
          "swiglu alone");
    model_free(&m);
}

int main(void) {
    arena_init(&arena, 1 << 20);
    tensor_set_arena(&arena);
    gc_rng = rng_stream(43, 0);
#define T(fn) do { arena_reset(&arena); RUN(fn); } while (0)
    T(test_rmsnorm_gradients); T(test_rmsnorm_values); T(test_swiglu_gradients); T(test_swiglu_values);
    T(test_swiglu_ffn_by_hand); T(test_llama_tensor_names); T(test_options_one_at_a_time);
    arena_free(&arena);
    return check_summary();
}
