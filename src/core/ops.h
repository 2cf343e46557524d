// Differentiable ops. Each returns a new arena tensor and, when a gradient is needed,
// records itself on the tape. Forward and backward of each op sit side by side in the
// op's source file:
//   ops_matmul.c     matmul, linear
//   ops_elementwise.c add, mul, scale, relu, gelu, log1p, softplus, tanh, dropout, add_dropout
//   ops_norm.c       softmax, cross_entropy; ops_layernorm.c  layernorm
//   ops_index.c      embedding, mean_pool, select_row, concat, split/merge heads, rel_bias,
//                    pack/unpack rows
//   ops_attention.c  fused multi-head attention; ops_rope.c  rope
//   ops_rmsnorm.c    rmsnorm; ops_swiglu.c  swiglu (the Llama-style block, docs/design.md §2.5)
//   ops_lstm.c       lstm; ops_additive.c  additive_scores (the recurrent translator, §2.8)
// Shapes are written (B,T,C) style; "..." means any leading dimensions.
#ifndef OPS_H
#define OPS_H
#include <stdint.h>
#include "core/tensor.h"

// --- matmul ---------------------------------------------------------------------------
// Batched matrix product: a (...,M,K) or its transpose (...,K,M) when trans_a, times
// b (...,K,N) or (...,N,K) when trans_b -> (...,M,N). Leading dims of a and b must match,
// or b may be 2-D and is then shared by every batch entry.
Tensor *op_matmul(Tensor *a, Tensor *b, int trans_a, int trans_b);
// y = x W^T + b: x (...,in), W (out,in) as PyTorch stores it, b (out) or NULL -> (...,out).
Tensor *op_linear(Tensor *x, Tensor *W, Tensor *b);

// --- elementwise ----------------------------------------------------------------------
Tensor *op_add(Tensor *a, Tensor *b);           // same shape, or b's shape = a's
                                                // last dims (broadcast over leading)
Tensor *op_mul(Tensor *a, Tensor *b);           // same shape
Tensor *op_scale(Tensor *a, float s);
Tensor *op_relu(Tensor *x);
Tensor *op_gelu(Tensor *x);                     // exact: x * Phi(x), with erf
Tensor *op_log1p(Tensor *x);                    // log(1 + x), for x > -1
Tensor *op_softplus(Tensor *x);                 // log(1 + e^x), > 0 everywhere
Tensor *op_tanh(Tensor *x);
// Inverted dropout: zero with probability p, scale the rest by 1/(1-p). p = 0 returns x.
// The mask is a hash of (seed, element index): same seed, same mask, any thread count.
Tensor *op_dropout(Tensor *x, float p, uint64_t seed);
// x + op_dropout(y, p, seed) in one pass, bit for bit, without the dropped tensor (a
// residual; x and y of one size). p = 0: op_add(x, y). packed (or NULL): x and y hold the
// packed rows of a padded batch (RowPacking, below), and each element keeps the mask it has
// in the padded layout, so packing changes no bit.
typedef struct RowPacking RowPacking;
Tensor *op_add_dropout(Tensor *x, Tensor *y, float p, uint64_t seed, const RowPacking *packed);
// op_dropout of packed rows x (n,C), each element masked as in the padded layout (packed NULL:
// op_dropout).
Tensor *op_dropout_rows(Tensor *x, float p, uint64_t seed, const RowPacking *packed);

// --- normalisation and losses ---------------------------------------------------------
// LayerNorm over the last dim: (x - mean) / sqrt(var + eps) * w + b; w, b (C).
Tensor *op_layernorm(Tensor *x, Tensor *w, Tensor *b, float eps);
// Softmax over the last dim of x + bias (bias same shape as x, or NULL; -INFINITY entries
// mask). A row with every entry masked gives zeros.
Tensor *op_softmax(Tensor *x, Tensor *bias);
// Mean token cross-entropy: logits (N,V), targets[N]; targets equal to ignore_index are
// skipped; label smoothing eps spreads eps uniformly over all V classes (as PyTorch).
// Returns a (1) tensor; 0 when every target is ignored.
Tensor *op_cross_entropy(Tensor *logits, const int *targets, int ignore_index, float smoothing);

// --- indexing and reshaping -----------------------------------------------------------
// Rows of table (V,C) picked by ids[n] -> (n,C). Backward scatter-adds into the table.
// Ids outside [0,V) abort: callers validate data before it gets here.
Tensor *op_embedding(Tensor *table, const int *ids, int n);
// Mean over the positions t with keep[b*T+t] != 0: x (B,T,C) -> (B,C).
Tensor *op_mean_pool(Tensor *x, const int *keep);
// x (B,T,C) -> (B,C): position t of every sequence (cls pooling takes t = 0).
Tensor *op_select_row(Tensor *x, int t);
// (...,Ca) and (...,Cb) with the same leading dims -> (...,Ca+Cb): a's columns, then b's.
Tensor *op_concat(Tensor *a, Tensor *b);
// (B,T,H*D) <-> (B,H,T,D).
Tensor *op_split_heads(Tensor *x, int n_heads);
Tensor *op_merge_heads(Tensor *x);
// Learned relative bias: table (n_buckets,H), bucket[i*Tk+j] -> (H,Tq,Tk) with
// out[h,i,j] = table[bucket[i*Tk+j], h].
Tensor *op_rel_bias(Tensor *table, const int *bucket, int Tq, int Tk);

// Packed rows: the token rows of a padded batch (pad (B,T) nonzero at padding) listed in
// order, rows[r] = b*T + t. Position-wise work (norms, products, residual sums) on the n
// packed rows gives each token's row as on the padded batch and skips the padding.
struct RowPacking { const int *rows; int n, B, T; };
// Fills p (rows in the step arena); returns 1 if some row is padding, 0 if none is (then
// nothing needs packing and p->rows is NULL).
int row_packing_init(RowPacking *p, const int *pad, int B, int T);
// x (B,T,C) or (B*T,C) -> (n,C): the token rows.
Tensor *op_pack_rows(Tensor *x, const RowPacking *p);
// x (n,C) -> (B,T,C): the token rows back in place, padding rows 0.
Tensor *op_unpack_rows(Tensor *x, const RowPacking *p);
// The one walk of the ops that move packed rows to their padded places and back (pack,
// unpack, RoPE's): the token rows in runs of consecutive padded rows (a sequence's), each
// moved by one copy or loop (a row at a time was a call per 64 floats), with only the padding
// between runs to zero. A run holds packed rows [r, r + len) at padded rows [row, row + len)
// and follows the padding rows [gap, row); the walk ends with an empty run at row B*T, whose
// gap is the trailing padding:
//   for (RowRun u = row_run_first(p); row_run_more(p, u); u = row_run_next(p, u)) ...
typedef struct { int r, len; long row, gap; } RowRun;
static inline RowRun row_run_at(const RowPacking *p, int r, long gap) {
    RowRun u = {r, 0, (long)p->B * p->T, gap};
    if (r < p->n && !p->rows) u.row = r, u.len = p->n - r;   // nothing packed: one run
    else if (r < p->n) {
        u.row = p->rows[r];
        u.len = 1;
        while (r + u.len < p->n && p->rows[r + u.len] == u.row + u.len) u.len++;
    }
    return u;
}
static inline RowRun row_run_first(const RowPacking *p) { return row_run_at(p, 0, 0); }
static inline int row_run_more(const RowPacking *p, RowRun u) { return u.r <= p->n; }
static inline RowRun row_run_next(const RowPacking *p, RowRun u) {
    if (!u.len) return (RowRun){p->n + 1, 0, 0, 0};   // past the trailing padding: the end
    return row_run_at(p, u.r + u.len, u.row + u.len);
}
// A run's gap of padding rows set to 0, in x of rows of C floats.
static inline void row_run_zero_gap(float *x, RowRun u, long C) {
    if (u.row > u.gap)
        __builtin_memset(x + u.gap * C, 0, sizeof(float) * (size_t)((u.row - u.gap) * C));
}

// One softmax row: out = softmax(z) (out may alias z); all -INFINITY gives zeros.
void softmax_row(const float *z, float *out, int n);

// --- attention ------------------------------------------------------------------------
typedef struct AttnArgs {
    int n_heads;
    Tensor *bias;               // (H,Tq,Tk) added to the scaled scores, or NULL; may carry a grad
    const int *key_pad;         // (B,Tk): nonzero marks a padding key (masked), or NULL
    const int *query_pad;       // (B,Tq): nonzero marks a padding query, or NULL: its output row
                                // is 0 and is treated as a constant (no gradient flows back from
                                // it), which is exact when nothing real depends on it
    int causal;                 // mask keys j > i
    float dropout;              // on the attention probabilities
    uint64_t seed;
    float *probs;               // (B,H,Tq,Tk) or NULL: receives the softmax probabilities
                                // (masked entries and padding query rows 0; before dropout),
                                // e.g. for attention heat maps; costs nothing when NULL
    int logit_train_length;     // > 0: each row's scores (bias included) are multiplied by
                                // attn_logit_factor(n, logit_train_length), n = the keys the row
                                // may attend to (model.attn_logit_scale = log); 0: off
} AttnArgs;
// Query rows op_attention handles together per (batch, head), forward and backward: its
// per-thread scratch holds this many rows. With AVX-512 6
// rows of 4 vectors of sums (ops_attention.c), elsewhere 8 rows in groups of 4.
#if defined(__AVX512F__)
#define ATTN_ROW_BLOCK 6
#else
#define ATTN_ROW_BLOCK 8
#endif
// The attention temperature of model.attn_logit_scale = log (docs/design.md §2.4):
// log(n) / log(n_train) for n > n_train >= 2, else exactly 1.
float attn_logit_factor(int n, int n_train);
// Multi-head attention on head-interleaved inputs: q (B,Tq,H*D), k and v (B,Tk,H*D);
// scores = (q k^T / sqrt(D) + bias) [* attn_logit_factor], masked, softmax over keys, dropout,
// times v -> (B,Tq,H*D).
// Nothing of size T*T is kept unless a gradient is needed.
Tensor *op_attention(Tensor *q, Tensor *k, Tensor *v, const AttnArgs *args);
// 1 (the default): with AVX-512, heads of 16 with at most 64 keys and neither a bias nor a
// temperature take op_attention's forward with 16 query rows a vector; 0: the general one, the
// same bits (tests compare the two).
extern int attn_short_heads;

// --- rotary embedding -----------------------------------------------------------------
// In each head (width D) the pair (2i,2i+1) at position pos[t] is rotated by
// pos[t] * inv_freq[i] (inv_freq: D/2 values) and multiplied by `factor` (1 = a pure
// rotation; YaRN scales q and k so). x (B,T,H*D), pos (T). pad (B,T) nonzero marks rows that
// nothing reads (attention's padding queries and masked keys), or NULL: such a row is not
// rotated, its output row is 0 and no gradient flows back from it.
Tensor *op_rope_freq(Tensor *x, int n_heads, const float *pos, const double *inv_freq,
                     float factor, const int *pad);
// op_rope_freq of op_unpack_rows(x, p), bit for bit, without the unpacked copy (nor its
// gradient's): x (n,H*D) holds the token rows of p (RowPacking), row k at position
// pos[p->rows[k] % p->T]; the result is (B,T,H*D) with the padding rows 0.
Tensor *op_rope_rows(Tensor *x, const RowPacking *p, int n_heads, const float *pos,
                     const double *inv_freq, float factor);
// RoPE's unstretched inverse frequencies: out[i] = base^(-2i/D) for i < D/2 (D the head width).
void rope_plain_inv_freq(double base, int D, double *out);
// The plain case: inv_freq = rope_plain_inv_freq(base), factor 1, no padding.
Tensor *op_rope(Tensor *x, int n_heads, const float *pos, float base);

// --- the Llama-style block ------------------------------------------------------------
// RMSNorm over the last dim: x / sqrt(mean(x^2) + eps) * w; w (C). No mean, no bias.
Tensor *op_rmsnorm(Tensor *x, Tensor *w, float eps);
// SwiGLU's gated product: silu(gate) * up, silu(a) = a * sigmoid(a); gate and up same shape.
Tensor *op_swiglu(Tensor *gate, Tensor *up);

// --- the LSTM layer -------------------------------------------------------------------
// One direction of one LSTM layer, PyTorch's layout and gate order (i, f, g, o) in the
// blocks of 4H rows: W_ih (4H,I), W_hh (4H,H), b_ih and b_hh (4H) or NULL.
typedef struct LstmWeights { Tensor *w_ih, *w_hh, *b_ih, *b_hh; } LstmWeights;
// A state (h, c), each (B,H); in an initial state NULL means zeros.
typedef struct LstmState { Tensor *h, *c; } LstmState;
// x (B,T,I) batch-major -> the hidden state of every step (B,T,H). Steps t >= lengths[b]
// (lengths (B), or NULL: all T) keep the state and output 0, as a packed sequence in PyTorch.
// reverse: steps run from t = T-1 down to 0 (the backward direction; with lengths it starts at
// each sequence's last real step). *final receives the state after the last step (B,H) of each:
// outputs whose gradients flow back into the steps.
Tensor *op_lstm(Tensor *x, const LstmWeights *w, LstmState init, const int *lengths, int reverse,
                LstmState *final);
// Additive (Bahdanau) attention scores: q (B,Tq,A), k (B,Tk,A), v (A) ->
// s (B,Tq,Tk), s[b,i,j] = sum_a v[a] tanh(q[b,i,a] + k[b,j,a]).
Tensor *op_additive_scores(Tensor *q, Tensor *k, Tensor *v);
#endif
