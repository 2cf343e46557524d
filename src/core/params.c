#include "core/params.h"
#include "core/kernels.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Tensor *param_new(Params *ps, const char *name, int ndim, const int *shape, int decay,
                  ParamInit init) {
    if (ps->data) {
        fprintf(stderr, "param_new(%s): parameters already allocated\n", name);
        abort();
    }
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 64;
        ps->list = realloc(ps->list, sizeof(Param *) * ps->cap);
    }
    Param *p = calloc(1, sizeof *p);
    if (!ps->list || !p) { fprintf(stderr, "out of memory (parameters)\n"); exit(1); }
    snprintf(p->name, sizeof p->name, "%s", name);
    p->t.ndim = ndim;
    memcpy(p->t.shape, shape, sizeof(int) * ndim);
    p->t.size = shape_size(ndim, shape);
    p->offset = ps->total;
    p->decay = decay;
    p->init = init;
    ps->total += p->t.size;
    ps->list[ps->n++] = p;
    return &p->t;
}

static void alloc_with(Params *ps, float *shared_data) {
    size_t bytes = sizeof(float) * (size_t)(ps->total ? ps->total : 1);
    ps->data_shared = shared_data != NULL;
    ps->data = shared_data ? shared_data : calloc(1, bytes);
    ps->grad = calloc(1, bytes);
    if (!ps->data || !ps->grad) {
        fprintf(stderr, "out of memory: %ld parameters\n", ps->total);
        exit(1);
    }
    for (int i = 0; i < ps->n; i++) {
        ps->list[i]->t.data = ps->data + ps->list[i]->offset;
        ps->list[i]->t.grad = ps->grad + ps->list[i]->offset;
    }
}

void params_alloc(Params *ps) { alloc_with(ps, NULL); }
void params_alloc_shared(Params *ps, float *data) { alloc_with(ps, data); }

void params_init(Params *ps, Rng *r) {
    for (int i = 0; i < ps->n; i++) {
        Tensor *t = &ps->list[i]->t;
        switch (ps->list[i]->init) {
        case INIT_ZEROS: init_const(t, 0); break;
        case INIT_ONES:  init_const(t, 1); break;
        default:         init_xavier_uniform(t, r); break;
        }
    }
}

void params_zero_grad(Params *ps) { kernel_zero(ps->grad, ps->total); }

Param *params_find(Params *ps, const char *name) {
    for (int i = 0; i < ps->n; i++)
        if (strcmp(ps->list[i]->name, name) == 0) return ps->list[i];
    return NULL;
}

void params_free(Params *ps) {
    for (int i = 0; i < ps->n; i++) free(ps->list[i]);
    free(ps->list);
    if (!ps->data_shared) free(ps->data);
    free(ps->grad);
    memset(ps, 0, sizeof *ps);
}

void init_uniform(Tensor *t, float bound, Rng *r) {
    for (long i = 0; i < t->size; i++) t->data[i] = (2.0f * rng_uniform(r) - 1.0f) * bound;
}

void init_normal(Tensor *t, float std, Rng *r) {
    for (long i = 0; i < t->size; i++) t->data[i] = std * rng_normal(r);
}

void init_const(Tensor *t, float value) {
    for (long i = 0; i < t->size; i++) t->data[i] = value;
}

void init_xavier_uniform(Tensor *t, Rng *r) {
    init_uniform(t, sqrtf(6.0f / (float)(t->shape[0] + t->shape[1])), r);
}
