// Encoder and decoder layers and stacks (docs/design.md §2.5).
//   pre-LN (norm_first):  x += Drop(SelfAttn(LN1(x))); [x += Drop(CrossAttn(LN2(x), memory))];
//                         x += Drop(FFN(LN(x)))
//   post-LN:              x = LN1(x + Drop(SelfAttn(x))); ...
// Every stack ends with its own norm in both modes. LN is LayerNorm or RMSNorm (model.norm).
//
// stack_forward is the one forward pass of a stack: training, evaluation, incremental
// decoding (with a KVCache: the rows given are the next positions) and attention heat maps
// (with probability sinks) all run it. stack_embed is the one way token ids enter a stack.
#ifndef TRANSFORMER_H
#define TRANSFORMER_H
#include "nn/layers.h"
#include "pos/pos.h"

typedef struct Layer {
    MultiHeadAttention self_attn, cross_attn;   // cross_attn: decoder layers of the translator
    Norm norm1, norm2, norm3;                   // encoder: norm1, norm2 (FFN);
                                                // decoder: norm2 = cross, norm3 = FFN
    FFN ffn;
    int has_cross;
} Layer;

typedef struct Stack {
    Layer *layers;
    int n_layers;
    Norm norm;
    Positional pos;
    Tensor *embed;       // the token table feeding this stack (declared by the model)
    int embed_scale;     // multiply embeddings by sqrt(d_model)
    int causal;          // decoder stacks mask future keys
    int norm_first;
    // self-attention temperature: n_train with attn_logit_scale = log, else 0
    int logit_train_length;
    Dropout drop, attn_drop;
} Stack;

// name: "encoder" | "decoder"; cross: layers attend to an encoder memory; embed: the token
// table (V,d) feeding the stack, declared (and named) by the model.
void stack_declare(Stack *s, Params *ps, const Config *c, const char *name, int causal, int cross,
                   const char *pos_input_name, Tensor *embed);
void stack_free(Stack *s);

// ids (B,T) at positions start .. start+T-1 -> (B,T,d): table rows, times sqrt(d) if
// embed_scale, plus the input positions (if the scheme adds any), then dropout.
Tensor *stack_embed(const Stack *s, const int *ids, int B, int T, int start);
// The same of the token rows of a packing of (B,T) only, (n,d), bit for bit; for a scheme
// that adds no input positions (the rows' positions are not at hand).
Tensor *stack_embed_rows(const Stack *s, const int *ids, const RowPacking *p);

// Keys and values of every layer kept between calls, for incremental decoding: N sequences,
// room for `capacity` positions, `len` filled.
typedef struct KVCache {
    int N, capacity, len, n_layers, d;
    float **k, **v;              // per layer: self-attention (N,capacity,d), malloc'd
    Tensor **mem_k, **mem_v;     // per layer: cross-attention keys/values of the memory (N,Tm,d)
} KVCache;
int  kv_cache_init(KVCache *c, const Stack *s, int N, int capacity);   // 0, or -1 if out of memory
// What kv_cache_init allocates for the keys and values (the memory estimate adds it).
double kv_cache_bytes(const Stack *s, int N, int capacity);
// Projects the memory's keys and values once (arena tensors: keep them alive while decoding).
void kv_cache_set_memory(KVCache *c, const Stack *s, Tensor *memory);
// The cache becomes N rows (N <= c->N), row n continuing row from[n]: beam search's
// reordering (N = c->N; rows move within a source, so the memory's rows stay) and greedy
// decoding dropping the rows that have ended (N < c->N: the memory's rows move too).
void kv_cache_select(KVCache *c, const int *from, int N);
// row n continues row parent[n] (kv_cache_select with N = c->N)
void kv_cache_reorder(KVCache *c, const int *parent);
void kv_cache_free(KVCache *c);

// The optional context of stack_forward.
typedef struct StackRun {
    KVCache *cache;      // ids are positions cache->len .. of each sequence; their keys and
                         // values are appended, and len advances by T
    float *self_probs;   // or NULL: [n_layers][B][H][T][Tk]
                         // self-attention probabilities (Tk = len + T)
    float *cross_probs;  // or NULL: [n_layers][B][H][T][Tm] cross-attention probabilities
    RowPacking *rows_out;  // or NULL: the output keeps the packing of a padded batch, (n,d)
                           // token rows, and *rows_out says which (rows NULL: all B*T rows,
                           // nothing was padded); the training loss scores these rows only
} StackRun;

// ids (B,T), embedded (stack_embed, or stack_embed_rows when the batch runs packed) ->
// (B,T,d), padding rows 0 (or packed, see rows_out). key_pad (B,T) marks padded positions,
// whose rows the stack computes nothing for (NULL with a cache: decoding feeds no padding);
// memory (B,Tm,d) and memory_pad (B,Tm) are used by cross-attention (NULL otherwise; with a
// cache, the memory set by kv_cache_set_memory is used). run may be NULL.
Tensor *stack_forward(const Stack *s, const int *ids, int B, int T, const int *key_pad,
                      Tensor *memory, const int *memory_pad, const StackRun *run);
#endif
