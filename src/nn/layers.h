// Layers built from core ops: Linear, LayerNorm, FFN, multi-head attention. Each layer is
// a struct of parameter tensors, a *_declare that names them in the parameter store, and a
// *_forward; backward comes from the tape (each op's backward sits beside its forward in
// src/core).
#ifndef LAYERS_H
#define LAYERS_H
#include <stdint.h>
#include "core/ops.h"
#include "core/params.h"

// Dropout draws one fresh seed per call from the model's dropout stream; p = 0 when not
// training.
typedef struct Dropout { float p; Rng *rng; } Dropout;
Tensor *dropout_forward(const Dropout *d, Tensor *x);

typedef struct Linear { Tensor *weight, *bias; } Linear;            // weight (out,in), bias (out)
void    linear_declare(Linear *l, Params *ps, const char *name, int in, int out);
Tensor *linear_forward(const Linear *l, Tensor *x);                // (...,in) -> (...,out)

typedef struct LayerNorm { Tensor *weight, *bias; } LayerNorm;      // (d), (d)
void    layernorm_declare(LayerNorm *n, Params *ps, const char *name, int d);
Tensor *layernorm_forward(const LayerNorm *n, Tensor *x);

typedef struct FFN { Linear fc1, fc2; int gelu; } FFN;             // d -> d_ff -> d
void    ffn_declare(FFN *f, Params *ps, const char *name, int d, int d_ff, int gelu);
Tensor *ffn_forward(const FFN *f, Tensor *x);

typedef struct Positional Positional;
typedef struct MultiHeadAttention { Linear q_proj, k_proj, v_proj, o_proj; int n_heads; } MultiHeadAttention;
void    mha_declare(MultiHeadAttention *m, Params *ps, const char *name, int d, int n_heads);
// x_q (B,Tq,d) attends to x_kv (B,Tk,d). rope: rotate q and k with it (self-attention), or
// NULL. bias (H,Tq,Tk) or NULL, key_pad (B,Tk) or NULL; query_pad (B,Tq) or NULL marks padding
// queries, whose output rows are 0 and pass no gradient back (see AttnArgs). -> (B,Tq,d)
Tensor *mha_forward(const MultiHeadAttention *m, Tensor *x_q, Tensor *x_kv, const Positional *rope,
                    Tensor *bias, const int *key_pad, const int *query_pad, int causal, const Dropout *attn_drop);
#endif
