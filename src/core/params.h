// Parameters: named tensors whose values live in one contiguous buffer and whose gradients
// live in another, so that the optimizer, gradient clipping, zeroing and checkpointing are
// each a single loop. Models declare their parameters first, then params_alloc() lays
// them out; the Tensor pointers handed out stay valid until params_free().
#ifndef PARAMS_H
#define PARAMS_H
#include "core/rng.h"
#include "core/tensor.h"

// How params_init fills a parameter; the code that declares it says which.
typedef enum { INIT_XAVIER, INIT_ZEROS, INIT_ONES } ParamInit;

typedef struct Param {
    char name[96];        // PyTorch-style, e.g. "encoder.layers.0.self_attn.q_proj.weight"
    Tensor t;             // data/grad point into the shared buffers after params_alloc
    long offset;          // element offset in the buffers
    int decay;            // AdamW applies weight decay (matrices of Linear layers only)
    ParamInit init;
} Param;

typedef struct Params {
    Param **list;
    int n, cap;
    long total;           // elements
    float *data, *grad;   // one buffer each, `total` floats
    int data_shared;      // data is another Params' (params_alloc_shared): not freed here
} Params;

// Declare a parameter. Its data pointer is NULL until params_alloc.
Tensor *param_new(Params *ps, const char *name, int ndim, const int *shape, int decay,
                  ParamInit init);
void    params_alloc(Params *ps);            // zero-filled values and gradients
// Zero-filled gradients of its own, and data: the values of another Params declared the same
// way (a copy of a model for a micro-batch, train/micro_batches.h).
void    params_alloc_shared(Params *ps, float *data);
// Every parameter by its ParamInit, in declaration order (xavier draws come from r in that order).
void    params_init(Params *ps, Rng *r);
void    params_zero_grad(Params *ps);
Param  *params_find(Params *ps, const char *name);
void    params_free(Params *ps);

// Initialisers (PyTorch conventions).
void init_uniform(Tensor *t, float bound, Rng *r);       // U(-bound, bound)
void init_normal(Tensor *t, float std, Rng *r);
void init_const(Tensor *t, float value);
// bound = sqrt(6 / (fan_in + fan_out)), t (out,in)
void init_xavier_uniform(Tensor *t, Rng *r);
#endif
