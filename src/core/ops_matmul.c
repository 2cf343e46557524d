// Matrix products: the generic batched op_matmul and op_linear (x W^T + b), which is where
// most of the training time goes.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/ops.h"
#include "core/tape.h"

// Only parallelise products big enough to pay for waking the threads.
#define PARALLEL_FLOPS (1L << 18)

// C (M,N) = [C +] A (M,K) B (K,N), row-major. Each C element sums over k in ascending order
// whatever the thread count, so results do not depend on scheduling. Tiles of 4 rows x 64
// columns live in registers/L1 while k runs; the inner j loop vectorises.
static void gemm(int M, int N, int K, const float *A, const float *B, float *C, int accumulate) {
    enum { TR = 4, TC = 64 };
    int row_blocks = (M + TR - 1) / TR;
    #pragma omp parallel for schedule(static) if ((long)M * N * K > PARALLEL_FLOPS)
    for (int rb = 0; rb < row_blocks; rb++) {
        int i0 = rb * TR, nr = M - i0 < TR ? M - i0 : TR;
        for (int j0 = 0; j0 < N; j0 += TC) {
            int nc = N - j0 < TC ? N - j0 : TC;
            float acc[TR][TC];
            memset(acc, 0, sizeof acc);
            if (nr == TR && nc == TC) {
                for (int k = 0; k < K; k++) {
                    const float *b = B + (long)k * N + j0;
                    float a0 = A[(long)(i0 + 0) * K + k], a1 = A[(long)(i0 + 1) * K + k];
                    float a2 = A[(long)(i0 + 2) * K + k], a3 = A[(long)(i0 + 3) * K + k];
                    for (int j = 0; j < TC; j++) {
                        acc[0][j] += a0 * b[j];
                        acc[1][j] += a1 * b[j];
                        acc[2][j] += a2 * b[j];
                        acc[3][j] += a3 * b[j];
                    }
                }
            } else {
                for (int k = 0; k < K; k++) {
                    const float *b = B + (long)k * N + j0;
                    for (int r = 0; r < nr; r++) {
                        float a = A[(long)(i0 + r) * K + k];
                        for (int j = 0; j < nc; j++) acc[r][j] += a * b[j];
                    }
                }
            }
            for (int r = 0; r < nr; r++) {
                float *c = C + (long)(i0 + r) * N + j0;
                if (accumulate) for (int j = 0; j < nc; j++) c[j] += acc[r][j];
                else            for (int j = 0; j < nc; j++) c[j] = acc[r][j];
            }
        }
    }
}

// dst (cols,rows) = src (rows,cols)^T, in the arena.
static float *transposed(const float *src, int rows, int cols) {
    float *dst = arena_alloc(tensor_arena(), sizeof(float) * (size_t)rows * cols);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) dst[(long)c * rows + r] = src[(long)r * cols + c];
    return dst;
}

// The matrix (rows,cols) that is stored either as is or transposed (cols,rows).
static const float *as_rows_cols(const float *p, int rows, int cols, int stored_transposed) {
    return stored_transposed ? transposed(p, cols, rows) : p;
}

// --- op_matmul ------------------------------------------------------------------------
// i[0] trans_a, i[1] trans_b, i[2] batch, i[3] M, i[4] N, i[5] K, f[0] = b is shared (2-D)

static void matmul_backward(const Node *n) {
    Tensor *a = n->in[0], *b = n->in[1];
    int ta = n->i[0], tb = n->i[1], batch = n->i[2], M = n->i[3], N = n->i[4], K = n->i[5];
    int shared_b = n->f[0] != 0;
    for (int e = 0; e < batch; e++) {
        const float *dC = n->out->grad + (long)e * M * N;               // (M,N)
        const float *A = a->data + (long)e * M * K;
        const float *B = b->data + (shared_b ? 0 : (long)e * K * N);
        if (a->grad) {  // dA (M,K) = dC (M,N) B^T (N,K)
            const float *Bt = as_rows_cols(B, N, K, !tb);
            float *dA = a->grad + (long)e * M * K;
            if (!ta) gemm(M, K, N, dC, Bt, dA, 1);
            else {  // a is stored (K,M): add dA^T
                float *tmp = arena_alloc(tensor_arena(), sizeof(float) * (size_t)M * K);
                gemm(M, K, N, dC, Bt, tmp, 0);
                for (int m = 0; m < M; m++)
                    for (int k = 0; k < K; k++) dA[(long)k * M + m] += tmp[(long)m * K + k];
            }
        }
        if (b->grad) {  // dB (K,N) = A^T (K,M) dC (M,N)
            const float *At = as_rows_cols(A, K, M, !ta);
            float *dB = b->grad + (shared_b ? 0 : (long)e * K * N);
            if (!tb) gemm(K, N, M, At, dC, dB, 1);
            else {  // b is stored (N,K): add dB^T
                float *tmp = arena_alloc(tensor_arena(), sizeof(float) * (size_t)K * N);
                gemm(K, N, M, At, dC, tmp, 0);
                for (int k = 0; k < K; k++)
                    for (int j = 0; j < N; j++) dB[(long)j * K + k] += tmp[(long)k * N + j];
            }
        }
    }
}

Tensor *op_matmul(Tensor *a, Tensor *b, int trans_a, int trans_b) {
    if (a->ndim < 2 || b->ndim < 2) { fprintf(stderr, "op_matmul: need 2-D or more\n"); abort(); }
    int ar = a->shape[a->ndim - 2], ac = a->shape[a->ndim - 1];
    int br = b->shape[b->ndim - 2], bc = b->shape[b->ndim - 1];
    int M = trans_a ? ac : ar, K = trans_a ? ar : ac;
    int Kb = trans_b ? bc : br, N = trans_b ? br : bc;
    long batch = a->size / ((long)M * K);
    int shared_b = b->ndim == 2 && a->ndim > 2;
    if (K != Kb || (!shared_b && b->size / ((long)K * N) != batch)) {
        fprintf(stderr, "op_matmul: shapes do not match (M=%d K=%d vs K=%d N=%d)\n", M, K, Kb, N);
        abort();
    }
    int shape[TENSOR_MAX_DIMS];
    memcpy(shape, a->shape, sizeof shape);
    shape[a->ndim - 2] = M;
    shape[a->ndim - 1] = N;
    int grad = tape_needs_grad(a, b, NULL);
    Tensor *out = tensor_new(a->ndim, shape, grad);
    for (long e = 0; e < batch; e++) {
        const float *A = as_rows_cols(a->data + e * M * K, M, K, trans_a);
        const float *B = as_rows_cols(b->data + (shared_b ? 0 : e * K * N), K, N, trans_b);
        gemm(M, N, K, A, B, out->data + e * M * N, 0);
    }
    if (grad) {
        Node *n = tape_record("matmul", matmul_backward, out, a, b, NULL);
        n->i[0] = trans_a; n->i[1] = trans_b; n->i[2] = (int)batch;
        n->i[3] = M; n->i[4] = N; n->i[5] = K; n->f[0] = (float)shared_b;
    }
    return out;
}

// --- op_linear: y (R,out) = x (R,in) W^T + b ------------------------------------------

static void linear_backward(const Node *n) {
    Tensor *x = n->in[0], *W = n->in[1], *b = n->in[2];
    int R = (int)tensor_rows(x), in = tensor_cols(x), out = W->shape[0];
    const float *dY = n->out->grad;                                     // (R,out)
    if (x->grad) gemm(R, in, out, dY, W->data, x->grad, 1);             // dX += dY W
    if (W->grad) gemm(out, in, R, transposed(dY, R, out), x->data, W->grad, 1);  // dW += dY^T X
    if (b && b->grad) {
        #pragma omp parallel for schedule(static) if ((long)R * out > PARALLEL_FLOPS)
        for (int o = 0; o < out; o++) {
            float s = 0;
            for (int r = 0; r < R; r++) s += dY[(long)r * out + o];
            b->grad[o] += s;
        }
    }
}

Tensor *op_linear(Tensor *x, Tensor *W, Tensor *b) {
    int in = tensor_cols(x), out = W->shape[0];
    if (W->ndim != 2 || W->shape[1] != in || (b && b->size != out)) {
        fprintf(stderr, "op_linear: x has %d features, W is (%d,%d)\n", in, W->shape[0], W->shape[1]);
        abort();
    }
    int R = (int)tensor_rows(x);
    int shape[TENSOR_MAX_DIMS];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = out;
    int grad = tape_needs_grad(x, W, b);
    Tensor *y = tensor_new(x->ndim, shape, grad);
    gemm(R, out, in, x->data, transposed(W->data, out, in), y->data, 0);  // W^T packed once per call
    if (b)
        for (int r = 0; r < R; r++)
            for (int o = 0; o < out; o++) y->data[(long)r * out + o] += b->data[o];
    if (grad) tape_record("linear", linear_backward, y, x, W, b);
    return y;
}
