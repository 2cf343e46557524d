// Matrix products: the generic batched op_matmul and op_linear (x W^T + b), which is where
// most of the training time goes.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "core/tape.h"

// The batched product of (...,M,K) and (...,K,N) views, any transposes given as strides.
static MatView view_of(const float *p, int rows, int cols, int stored_transposed) {
    return stored_transposed ? mat_cols(p, rows) : mat_rows(p, cols);
}

// Transpose of a view: (i, j) -> (j, i).
static MatView transpose(MatView v) {
    MatView t = {v.p, v.cs, v.rs};
    return t;
}

// --- op_matmul ------------------------------------------------------------------------
// i[0] trans_a, i[1] trans_b, i[2] batch, i[3] M, i[4] N, i[5] K, f[0] = b is shared (2-D)

static void matmul_backward(const Node *n) {
    Tensor *a = n->in[0], *b = n->in[1];
    int ta = n->i[0], tb = n->i[1], batch = n->i[2], M = n->i[3], N = n->i[4], K = n->i[5];
    int shared_b = n->f[0] != 0;
    int acc_a = a->grad && grad_accumulates(a), acc_b = b->grad && grad_accumulates(b);
    Arena *scratch = tensor_arena();
    for (int e = 0; e < batch; e++) {
        const float *dC = n->out->grad + (long)e * M * N;               // (M,N)
        MatView A = view_of(a->data + (long)e * M * K, M, K, ta);       // (M,K)
        MatView B = view_of(b->data + (shared_b ? 0 : (long)e * K * N), K, N, tb);   // (K,N)
        if (a->grad) {   // dA (M,K) += dC (M,N) B^T; stored transposed: dA^T (K,M) += B dC^T
            float *dA = a->grad + (long)e * M * K;
            if (!ta) gemm(scratch, M, K, N, mat_rows(dC, N), transpose(B), dA, K, acc_a, NULL);
            else     gemm(scratch, K, M, N, B, mat_cols(dC, N), dA, M, acc_a, NULL);
        }
        if (b->grad) {   // dB (K,N) += A^T dC; stored transposed: dB^T (N,K) += dC^T A
            float *dB = b->grad + (shared_b ? 0 : (long)e * K * N);
            int acc = acc_b || (shared_b && e > 0);   // a shared B sums over the batch
            if (!tb) gemm(scratch, K, N, M, transpose(A), mat_rows(dC, N), dB, N, acc, NULL);
            else     gemm(scratch, N, K, M, mat_cols(dC, N), A, dB, K, acc, NULL);
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
    for (long e = 0; e < batch; e++)
        gemm(tensor_arena(), M, N, K, view_of(a->data + e * M * K, M, K, trans_a),
             view_of(b->data + (shared_b ? 0 : e * K * N), K, N, trans_b), out->data + e * M * N, N,
             0, NULL);
    if (grad) {
        Node *n = tape_record("matmul", matmul_backward, out, a, b, NULL);
        n->i[0] = trans_a; n->i[1] = trans_b; n->i[2] = (int)batch;
        n->i[3] = M; n->i[4] = N; n->i[5] = K; n->f[0] = (float)shared_b;
    }
    return out;
}

// --- op_linear: y (R,out) = x (R,in) W^T + b ------------------------------------------

// sum[o] += sum over r of dY[r,o], each column summed over r ascending. Threads take
// disjoint column blocks, so the order (and the result) is the same for any thread count.
// A block reads 2 KiB of each row: with blocks of 64 columns the generator's 8000-wide
// gradient was read 256 bytes a row at a 32 KB stride, 1.6x slower.
static void column_sums_add(const float *dY, int R, int cols, float *sum) {
    enum { BLOCK = 512 };
    int blocks = (cols + BLOCK - 1) / BLOCK;
    KERNEL_PARALLEL_FOR((long)R * cols > KERNEL_PARALLEL_WORK, schedule(static),
        for (int cb = 0; cb < blocks; cb++) {
            int c0 = cb * BLOCK, nc = cols - c0 < BLOCK ? cols - c0 : BLOCK;
            float s[BLOCK] = {0};
            for (int r = 0; r < R; r++)
                for (int c = 0; c < nc; c++) s[c] += dY[(long)r * cols + c0 + c];
            for (int c = 0; c < nc; c++) sum[c0 + c] += s[c];
        }
    );
}

static void linear_backward(const Node *n) {
    Tensor *x = n->in[0], *W = n->in[1], *b = n->in[2];
    int R = (int)tensor_rows(x), in = tensor_cols(x), out = W->shape[0];
    const float *dY = n->out->grad;                                     // (R,out)
    // dX += dY W
    if (x->grad)
        gemm(tensor_arena(), R, in, out, mat_rows(dY, out), mat_rows(W->data, in), x->grad, in,
             grad_accumulates(x), NULL);
    // dW += dY^T X
    if (W->grad)
        gemm(tensor_arena(), out, in, R, mat_cols(dY, out), mat_rows(x->data, in), W->grad, in,
             grad_accumulates(W), NULL);
    if (b && b->grad) column_sums_add(dY, R, out, grad_zeroed(b));
}

Tensor *op_linear(Tensor *x, Tensor *W, Tensor *b) {
    int in = tensor_cols(x), out = W->shape[0];
    if (W->ndim != 2 || W->shape[1] != in || (b && b->size != out)) {
        fprintf(stderr, "op_linear: x has %d features, W is (%d,%d)\n", in, W->shape[0],
                W->shape[1]);
        abort();
    }
    int R = (int)tensor_rows(x);
    int shape[TENSOR_MAX_DIMS];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = out;
    int grad = tape_needs_grad(x, W, b);
    Tensor *y = tensor_new(x->ndim, shape, grad);
    // W^T is a strided view of W: gemm's packing reads it in place, nothing is transposed.
    gemm(tensor_arena(), R, out, in, mat_rows(x->data, in), mat_cols(W->data, in), y->data, out,
         0, b ? b->data : NULL);
    if (grad) tape_record("linear", linear_backward, y, x, W, b);
    return y;
}
