// Layers built from core ops: Linear, LayerNorm, FFN, multi-head attention. Each layer is
// a struct of parameter tensors, a *_declare that names them in the parameter store and says
// how each is initialised (ParamInit), and a *_forward; backward comes from the tape (each
// op's backward sits beside its forward in src/core). Attention also serves incremental
// decoding (a key/value cache) and heat maps (a probability sink), see AttnCall.
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

// Linear: xavier-uniform weight (decayed), zero bias. LayerNorm: unit weight, zero bias.
typedef struct Linear { Tensor *weight, *bias; } Linear;            // weight (out,in), bias (out)
void    linear_declare(Linear *l, Params *ps, const char *name, int in, int out);
Tensor *linear_forward(const Linear *l, Tensor *x);                // (...,in) -> (...,out)

typedef struct LayerNorm { Tensor *weight, *bias; } LayerNorm;      // (d), (d)
void    layernorm_declare(LayerNorm *n, Params *ps, const char *name, int d);
Tensor *layernorm_forward(const LayerNorm *n, Tensor *x);

typedef struct FFN { Linear fc1, fc2; Activation act; } FFN;       // d -> d_ff -> d
void    ffn_declare(FFN *f, Params *ps, const char *name, int d, int d_ff, Activation act);
Tensor *ffn_forward(const FFN *f, Tensor *x);

typedef struct MultiHeadAttention { Linear q_proj, k_proj, v_proj, o_proj; int n_heads; } MultiHeadAttention;
void    mha_declare(MultiHeadAttention *m, Params *ps, const char *name, int d, int n_heads);

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
    // Incremental decoding. Cross-attention: the memory's keys and values, projected once
    // (x_kv is not read). Self-attention: past_k, past_v (B,capacity,d) hold the keys and
    // values of positions 0 .. rows.start-1; the new rows' are appended there and every
    // cached row is attended to.
    Tensor *mem_k, *mem_v;
    float *past_k, *past_v;
    int capacity;
} AttnCall;
// x_q (B,Tq,d) attends to x_kv (B,Tk,d) -> (B,Tq,d).
Tensor *mha_forward(const MultiHeadAttention *m, Tensor *x_q, Tensor *x_kv, const AttnCall *c);
#endif
