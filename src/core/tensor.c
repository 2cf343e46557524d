#include "core/tensor.h"
#include "core/kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local Arena *step_arena;   // each thread its own: micro-batches run at once
enum { GRAD_FLAG_BYTES = 64 };

void   tensor_set_arena(Arena *a) { step_arena = a; }
Arena *tensor_arena(void) { return step_arena; }

long shape_size(int ndim, const int *shape) {
    long n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    return n;
}

Tensor *tensor_new(int ndim, const int *shape, int with_grad) {
    if (!step_arena || ndim < 1 || ndim > TENSOR_MAX_DIMS) {
        fprintf(stderr, "tensor_new: %s\n", step_arena ? "bad ndim" : "no arena set");
        abort();
    }
    Tensor *t = arena_alloc(step_arena, sizeof *t);
    memset(t, 0, sizeof *t);
    t->ndim = ndim;
    memcpy(t->shape, shape, sizeof(int) * ndim);
    t->size = shape_size(ndim, shape);
    t->data = arena_alloc(step_arena, sizeof(float) * t->size);
    if (with_grad) {   // the flag, then the gradient; 64 bytes keep the array aligned
        int *flag = arena_alloc(step_arena, GRAD_FLAG_BYTES + sizeof(float) * t->size);
        *flag = 0;
        t->grad = (float *)((char *)flag + GRAD_FLAG_BYTES);
        t->grad_flagged = 1;
    }
    return t;
}

static int *written_flag(Tensor *t) { return (int *)((char *)t->grad - GRAD_FLAG_BYTES); }

int grad_accumulates(Tensor *t) {
    if (!t->grad_flagged) return 1;
    int written = *written_flag(t);
    *written_flag(t) = 1;
    return written;
}

float *grad_zeroed(Tensor *t) {
    if (!grad_accumulates(t)) kernel_zero(t->grad, t->size);
    return t->grad;
}

Tensor *tensor_zeros(int ndim, const int *shape, int with_grad) {
    Tensor *t = tensor_new(ndim, shape, with_grad);
    memset(t->data, 0, sizeof(float) * t->size);
    return t;
}

Tensor *tensor_new2(int d0, int d1, int with_grad) {
    int s[2] = {d0, d1};
    return tensor_new(2, s, with_grad);
}

Tensor *tensor_new3(int d0, int d1, int d2, int with_grad) {
    int s[3] = {d0, d1, d2};
    return tensor_new(3, s, with_grad);
}

Tensor *tensor_view(Tensor *t, int ndim, const int *shape) {
    if (shape_size(ndim, shape) != t->size) {
        fprintf(stderr, "tensor_view: size mismatch\n");
        abort();
    }
    Tensor *v = arena_alloc(step_arena, sizeof *v);
    *v = *t;
    v->ndim = ndim;
    memset(v->shape, 0, sizeof v->shape);
    memcpy(v->shape, shape, sizeof(int) * ndim);
    return v;
}
