#include "train/micro_batches.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/kernels.h"
#include "core/ops.h"
#include "data/vocab.h"
#include "models/loss.h"

int micro_batches_init(MicroBatches *mb, const Model *m, int k, char *err, int errlen) {
    *mb = (MicroBatches){.k = k};
    if (k <= 1) return 0;
    mb->copies = calloc((size_t)k - 1, sizeof *mb->copies);
    mb->arenas = calloc((size_t)k - 1, sizeof *mb->arenas);
    mb->tapes = calloc((size_t)k, sizeof *mb->tapes);
    if (!mb->copies || !mb->arenas || !mb->tapes) {
        free(mb->copies), free(mb->arenas), free(mb->tapes);
        snprintf(err, errlen, "out of memory (train.micro_batches = %d)", k);
        return -1;
    }
    Arena *step_arena = tensor_arena();   // its out-of-memory handler serves them all
    for (int i = 0; i < k - 1; i++) {
        model_share(&mb->copies[i], m);
        arena_init(&mb->arenas[i], 0);
        if (step_arena) arena_on_failure(&mb->arenas[i], step_arena->on_failure,
                                         step_arena->failure_ctx);
    }
    return 0;
}

void micro_batches_free(MicroBatches *mb) {
    for (int i = 0; mb->copies && i < mb->k - 1; i++) {
        model_free(&mb->copies[i]);
        arena_free(&mb->arenas[i]);
    }
    for (int i = 0; mb->tapes && i < mb->k; i++) tape_free(&mb->tapes[i]);
    free(mb->copies), free(mb->arenas), free(mb->tapes);
    *mb = (MicroBatches){0};
}

// Rows r0..r1-1 of b, in place (the arrays are row-major [B, T]).
static Batch batch_rows(const Batch *b, int r0, int r1) {
    Batch s = *b;
    s.B = r1 - r0;
    if (b->src) s.src = b->src + (long)r0 * b->T_src;
    if (b->tgt_in) s.tgt_in = b->tgt_in + (long)r0 * b->T_tgt;
    if (b->tgt_out) s.tgt_out = b->tgt_out + (long)r0 * b->T_tgt;
    if (b->labels) s.labels = b->labels + r0;
    return s;
}

// Tokens of row r: what its micro-batch's time goes with (the products, norms and FFN run on
// token rows only).
static long row_tokens(const Batch *b, int r) {
    long n = 0;
    for (int t = 0; b->src && t < b->T_src; t++) n += b->src[(long)r * b->T_src + t] != TOK_PAD;
    for (int t = 0; b->tgt_in && t < b->T_tgt; t++)
        n += b->tgt_in[(long)r * b->T_tgt + t] != TOK_PAD;
    return n;
}

// Row by row, without an array of B running counts (batch_size may be 2^20, too much for
// the stack).
void micro_batches_split(const Batch *b, int k, int *bounds) {
    long total = 0, before = 0;   // before: the tokens of the rows before r
    for (int r = 0; r < b->B; r++) total += row_tokens(b, r);
    bounds[0] = 0;
    for (int i = 1, r = 0; i < k; i++) {
        // the boundary nearest i/k of the tokens, leaving a row for each micro-batch
        double goal = (double)total * i / k;
        int lo = bounds[i - 1] + 1, hi = b->B - (k - i);
        for (; r < lo; r++) before += row_tokens(b, r);
        for (; r < hi; r++) {   // each row's tokens counted once
            long t = row_tokens(b, r);
            if (before + t > goal) {   // row r straddles the goal: in, if that lands nearer
                if (goal - before > before + t - goal) before += t, r++;
                break;
            }
            before += t;
        }
        bounds[i] = r;
    }
    bounds[k] = b->B;
}

// The targets the loss averages over (batch_loss): every label, or the non-pad targets.
static long scored_targets(const Model *m, const Batch *b) {
    if (m->cfg.model == MODEL_CLASSIFIER) return b->B;
    long n = 0;
    for (long i = 0; i < (long)b->B * b->T_tgt; i++) n += b->tgt_out[i] != TOK_PAD;
    return n;
}

float micro_batches_backward(const MicroBatches *mb, Model *m, const Batch *b, float smoothing,
                             long *correct) {
    int k = mb->k < b->B ? mb->k : b->B, bounds[k + 1];
    Batch part[k];
    float weight[k], loss[k];
    long right[k], scored[k], total = 0;
    micro_batches_split(b, k, bounds);
    for (int i = 0; i < k; i++) {
        part[i] = batch_rows(b, bounds[i], bounds[i + 1]);
        total += scored[i] = scored_targets(m, &part[i]);
    }
    for (int i = 0; i < k; i++) weight[i] = total ? (float)scored[i] / (float)total : 0.0f;
    // The copies start the step where the model does: its positions; dropout seeds of their
    // own, keyed by the model's stream as it stands, so nothing is drawn from it.
    for (int i = 1; i < k; i++) {
        Model *c = &mb->copies[i - 1];
        c->pos_rng = m->pos_rng;
        c->dropout_rng = rng_keyed(m->dropout_rng.state, (uint64_t)i);
        model_set_training(c, m->training);
        params_zero_grad(&c->ps);
    }
    Arena *step_arena = tensor_arena();
    int threads = omp_get_max_threads() < k ? omp_get_max_threads() : k;
    #pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int i = 0; i < k; i++) {
        omp_set_num_threads(1);   // the micro-batch's ops: one thread, whichever runs it
        Arena *arena = i ? &mb->arenas[i - 1] : step_arena, *arena_before = tensor_arena();
        if (i) arena_reset(arena);
        tensor_set_arena(arena);
        Tape *tape_before = tape_use(&mb->tapes[i]);
        tape_reset();
        Tensor *l = batch_loss(i ? &mb->copies[i - 1] : m, &part[i], smoothing, NULL, &right[i]);
        loss[i] = l->data[0];
        tape_backward(op_scale(l, weight[i]));
        tape_use(tape_before);
        tensor_set_arena(arena_before);
    }
    // The copies' gradients into the model's, in micro-batch order.
    long n = m->ps.total;
    #pragma omp parallel for schedule(static) if (n * (k - 1) > KERNEL_PARALLEL_ELEMS)
    for (long j = 0; j < n; j++) {
        float g = m->ps.grad[j];
        for (int i = 1; i < k; i++) g += mb->copies[i - 1].ps.grad[j];
        m->ps.grad[j] = g;
    }
    float mean = 0;
    long all_right = 0;
    for (int i = 0; i < k; i++) mean += weight[i] * loss[i], all_right += right[i];
    if (correct) *correct = all_right;
    return mean;
}
