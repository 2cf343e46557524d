// The loss that training minimises and evaluation reports, see loss.h.
#include "models/loss.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "data/vocab.h"

// The targets of the packed rows: targets[rows[r]] for each r.
static const int *packed_targets(const int *targets, const RowPacking *p) {
    int *picked = arena_alloc(tensor_arena(), sizeof(int) * (size_t)p->n);
    for (int r = 0; r < p->n; r++) picked[r] = targets[p->rows[r]];
    return picked;
}

// The logits of a translator's or language model's token rows only, as the stack left them
// packed (StackRun.rows_out), and in *targets the target of each of those rows.
static Tensor *token_row_logits(Model *m, const Batch *b, const int **targets) {
    RowPacking rows;
    StackRun run = {.rows_out = &rows};
    Tensor *logits = m->cfg.model == MODEL_LM
        ? lm_logits(m, b->tgt_in, b->B, b->T_tgt, &run)
        : m->cfg.model == MODEL_LSTM
        ? lstm_translator_logits(&m->lstm, b->src, b->B, b->T_src, b->tgt_in, b->T_tgt, &rows)
        : decoder_logits(m, model_encode(m, b->src, b->B, b->T_src, NULL), b->src, b->T_src,
                         b->tgt_in, b->B, b->T_tgt, &run);
    *targets = rows.rows ? packed_targets(b->tgt_out, &rows) : b->tgt_out;
    return logits;
}

Tensor *batch_loss(Model *m, const Batch *b, float smoothing, Tensor **logits_out,
                   long *correct) {
    Tensor *logits;
    const int *targets;
    int ignore = m->cfg.model == MODEL_CLASSIFIER ? -1 : TOK_PAD;
    switch (m->cfg.model) {
    case MODEL_CLASSIFIER:
        logits = classifier_logits(m, b->src, b->B, b->T_src);
        targets = b->labels;
        break;
    default:   // the translators and the language model
        if (!logits_out) {
            logits = token_row_logits(m, b, &targets);
            break;
        }
        logits = m->cfg.model == MODEL_LM
            ? lm_logits(m, b->tgt_in, b->B, b->T_tgt, NULL)
            : translator_logits(m, b->src, b->B, b->T_src, b->tgt_in, b->T_tgt);
        targets = b->tgt_out;
        break;
    }
    if (logits_out) *logits_out = logits;
    if (correct) *correct = count_correct(logits, targets, (int)tensor_rows(logits), ignore);
    return op_cross_entropy(logits, targets, ignore, smoothing);
}

long count_correct(const Tensor *logits, const int *targets, int n, int ignore) {
    int V = tensor_cols(logits);
    long right = 0;
    for (int i = 0; i < n; i++)
        right += targets[i] != ignore &&
                 kernel_argmax(logits->data + (long)i * V, V) == targets[i];
    return right;
}
