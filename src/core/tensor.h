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
    int grad_flagged;     // grad comes from tensor_new: a "written yet?" flag sits in front of it
} Tensor;

// The arena that tensor_new and the tape allocate from, one per thread (a thread running a
// micro-batch allocates from that micro-batch's). Owned by the caller (the training loop
// resets it every step). tensor_set_arena must be called before any op in that thread.
void   tensor_set_arena(Arena *a);
Arena *tensor_arena(void);

// New tensor in the arena. data is uninitialised unless zeroed; grad is allocated when
// with_grad is true, but not zeroed (see grad_accumulates).
Tensor *tensor_new(int ndim, const int *shape, int with_grad);
Tensor *tensor_zeros(int ndim, const int *shape, int with_grad);
Tensor *tensor_new2(int d0, int d1, int with_grad);
Tensor *tensor_new3(int d0, int d1, int d2, int with_grad);
// A view with another shape over the same data and grad (same size): a reshape needs no
// tape entry because gradients flow through the shared grad array.
Tensor *tensor_view(Tensor *t, int ndim, const int *shape);
// The gradient of a tensor_new tensor starts out unwritten rather than zeroed. Most of
// them are written by exactly one backward op, so zeroing every activation's gradient in
// the forward pass was wasted work: 8% of a small model's step. Before a backward op writes
// a gradient it asks:
//   grad_accumulates(t)  1: add (+=) to what is there; 0: this op writes first and must
//                        assign (=) every element. Either way t counts as written afterwards.
//   grad_zeroed(t)       for an op that writes only some elements, or code that seeds a
//                        gradient by hand: zeroes an unwritten gradient; returns t->grad.
// Call them outside parallel regions, right before the write. Parameter gradients (and any
// tensor not made by tensor_new) always count as written. A view shares its tensor's flag.
int    grad_accumulates(Tensor *t);
float *grad_zeroed(Tensor *t);
// Size of the last dimension and number of rows before it.
static inline int  tensor_cols(const Tensor *t) { return t->shape[t->ndim - 1]; }
static inline long tensor_rows(const Tensor *t) { return t->size / t->shape[t->ndim - 1]; }
long shape_size(int ndim, const int *shape);
#endif
