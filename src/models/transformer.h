// Encoder and decoder layers and stacks (docs/design.md §2.5).
//   pre-LN (norm_first):  x += Drop(SelfAttn(LN1(x))); [x += Drop(CrossAttn(LN2(x), memory))]; x += Drop(FFN(LN(x)))
//   post-LN:              x = LN1(x + Drop(SelfAttn(x))); ...
// Every stack ends with its own LayerNorm in both modes.
#ifndef TRANSFORMER_H
#define TRANSFORMER_H
#include "nn/layers.h"
#include "pos/pos.h"

typedef struct Layer {
    MultiHeadAttention self_attn, cross_attn;   // cross_attn: decoder layers of the translator
    LayerNorm norm1, norm2, norm3;              // encoder: norm1, norm2 (FFN); decoder: norm2 = cross, norm3 = FFN
    FFN ffn;
    int has_cross;
} Layer;

typedef struct Stack {
    Layer *layers;
    int n_layers;
    LayerNorm norm;
    Positional pos;
    int causal;          // decoder stacks mask future keys
    int norm_first;
    Dropout drop, attn_drop;
} Stack;

// name: "encoder" | "decoder"; cross: layers attend to an encoder memory.
void stack_declare(Stack *s, Params *ps, const Config *c, const char *name, int causal, int cross,
                   const char *pos_input_name);
void stack_free(Stack *s);
// x (B,T,d) -> (B,T,d). key_pad (B,T) marks padded positions of x; memory (B,Tm,d) and
// memory_pad (B,Tm) are used by cross-attention (NULL otherwise).
Tensor *stack_forward(const Stack *s, Tensor *x, const int *key_pad, Tensor *memory, const int *memory_pad);
#endif
