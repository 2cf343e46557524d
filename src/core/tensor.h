// Tensor: a float32 array with a shape and, when a gradient flows into it, a gradient array
// of the same shape. Row-major, contiguous, at most 4 dimensions.
//
// Tensors made during a step live in the step arena (tensor_new); parameters live in the
// contiguous parameter buffer (core/params.h). A tensor "requires grad" iff grad != NULL.
#ifndef TENSOR_H
#define TENSOR_H
#include "core/arena.h"

#define TENSOR_MAX_DIMS 4

typedef struct Tensor {
    float *data;
    float *grad;          // NULL: no gradient flows here (a constant, or no-grad mode)
    int ndim;
    int shape[TENSOR_MAX_DIMS];
    long size;            // product of the shape
} Tensor;

// The arena that tensor_new and the tape allocate from. Owned by the caller (the training
// loop resets it every step). tensor_set_arena must be called before any op.
void   tensor_set_arena(Arena *a);
Arena *tensor_arena(void);

// New tensor in the arena. data is uninitialised unless zeroed; grad is allocated (zeroed)
// when with_grad is true.
Tensor *tensor_new(int ndim, const int *shape, int with_grad);
Tensor *tensor_zeros(int ndim, const int *shape, int with_grad);
Tensor *tensor_new2(int d0, int d1, int with_grad);
Tensor *tensor_new3(int d0, int d1, int d2, int with_grad);
// A view with another shape over the same data and grad (same size): a reshape needs no
// tape entry because gradients flow through the shared grad array.
Tensor *tensor_view(Tensor *t, int ndim, const int *shape);
// Size of the last dimension and number of rows before it.
static inline int  tensor_cols(const Tensor *t) { return t->shape[t->ndim - 1]; }
static inline long tensor_rows(const Tensor *t) { return t->size / t->shape[t->ndim - 1]; }
long shape_size(int ndim, const int *shape);
#endif
