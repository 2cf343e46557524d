// Layers built from core ops: Linear, the norms (LayerNorm, RMSNorm), FFN (ReLU/GELU, or
// SwiGLU's gated form), multi-head attention. Each layer is a struct of parameter tensors, a
// *_declare that names them in the parameter store and says how each is initialised
// (ParamInit), and a *_forward; backward comes from the tape (each op's backward sits beside
// its forward in src/core). Attention also serves incremental decoding (a key/value cache)
// and heat maps (a probability sink), see AttnCall. The Llama-style options (model.norm,
// activation = swiglu, bias = false) are choices made here, at declaration (docs/design.md §2.5).
#ifndef LAYERS_H
#define LAYERS_H
#include <stdint.h>
#include "core/ops.h"
#include "core/params.h"
#include "pos/pos.h"

// Dropout draws one fresh seed per call from the model's dropout stream; p = 0 when not
// training.
typedef struct Dropout { float p; Rng *rng; } Dropout;
Tensor *dropout_forward(const Dropout *d, Tensor *x);
// The same of packed rows x (ops.h, RowPacking): each element keeps its padded layout's mask.
Tensor *dropout_rows(const Dropout *d, Tensor *x, const RowPacking *packed);
// x + dropout_forward(d, y), fused (op_add_dropout): the same draw and the same bits; packed
// (or NULL): x and y are packed rows, masked as in the padded layout.
Tensor *residual_dropout(const Dropout *d, Tensor *x, Tensor *y, const RowPacking *packed);

// Linear: xavier-uniform weight (decayed), zero bias; with has_bias = 0 no bias tensor at all
// (bias NULL, nothing named NAME.bias).
// weight (out,in), bias (out) or NULL
typedef struct Linear { Tensor *weight, *bias; } Linear;
void    linear_declare(Linear *l, Params *ps, const char *name, int in, int out, int has_bias);
Tensor *linear_forward(const Linear *l, Tensor *x);                // (...,in) -> (...,out)

// A norm over the last dim, both with eps = 1e-5 and a unit weight. LayerNorm:
// (x - mean) / sqrt(var + eps) * w + b with a zero-initialised bias; RMSNorm:
// x / sqrt(mean(x^2) + eps) * w, no bias (bias NULL, nothing named NAME.bias).
typedef struct Norm { NormKind kind; Tensor *weight, *bias; } Norm;  // (d), (d) or NULL
void    norm_declare(Norm *n, Params *ps, const char *name, int d, NormKind kind);
Tensor *norm_forward(const Norm *n, Tensor *x);

// FFN, d -> d_ff -> d. relu/gelu: fc2(act(fc1 x)). swiglu: down_proj(silu(gate_proj x) *
// up_proj x), d_ff the width of gate and up (three matrices instead of two).
typedef struct FFN {
    Activation act;
    Linear fc1, fc2;                      // relu, gelu
    Linear gate_proj, up_proj, down_proj; // swiglu
} FFN;
void    ffn_declare(FFN *f, Params *ps, const char *name, int d, int d_ff, Activation act,
                    int has_bias);
Tensor *ffn_forward(const FFN *f, Tensor *x);

typedef struct MultiHeadAttention {
    Linear q_proj, k_proj, v_proj, o_proj;
    int n_heads;
} MultiHeadAttention;
void    mha_declare(MultiHeadAttention *m, Params *ps, const char *name, int d, int n_heads,
                    int has_bias);

// What one attention call needs besides its inputs. Zero-initialise and set what applies.
typedef struct AttnCall {
    const Positional *rope;     // self-attention: rotate q and k by it, or NULL
    PosSpan rows;               // positions of x_q's rows (self-attention: also x_kv's)
    Tensor *bias;               // (H,Tq,Tk) added to the scores, or NULL
    const int *key_pad;         // (B,Tk) or NULL
    const int *query_pad;       // (B,Tq) or NULL: padding queries (see AttnArgs)
    int causal;
    const Dropout *drop;        // on the probabilities (required)
    float *probs;               // (B,H,Tq,Tk) sink for the probabilities, or NULL
    int logit_train_length;     // model.attn_logit_scale = log: n_train (AttnArgs), else 0
    // Packed rows (ops.h, RowPacking), or NULL: x_q holds the packed token rows of q_pack
    // (n,d) and the output is packed the same way; x_kv those of kv_pack. Attention itself
    // runs on the padded (B,T,d) layout.
    const RowPacking *q_pack, *kv_pack;
    // Incremental decoding. Cross-attention: the memory's keys and values, projected once
    // (x_kv is not read). Self-attention: past_k, past_v (B,capacity,d) hold the keys and
    // values of positions 0 .. rows.start-1; the new rows' are appended there and every
    // cached row is attended to.
    Tensor *mem_k, *mem_v;
    float *past_k, *past_v;
    int capacity;
} AttnCall;
// x_q (B,Tq,d) attends to x_kv (B,Tk,d) -> (B,Tq,d) (packed rows: see AttnCall).
Tensor *mha_forward(const MultiHeadAttention *m, Tensor *x_q, Tensor *x_kv, const AttnCall *c);
#endif
