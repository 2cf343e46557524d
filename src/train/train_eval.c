#include "train/train_eval.h"
#include "score/evaluate.h"
#include "train/train_log.h"

// An evaluation's row: loss, token accuracy, and what else it has.
static LogRow eval_row(long step, int length, const EvalResult *res) {
    return (LogRow){.step = step, .split = "val", .length = length, .loss = log_cell(res->loss),
                    .token_acc = log_cell(res->token_acc)};
}

// exact_match as evaluate_split gives it: -1 when not computed (score/evaluate.h), then missing.
static LogCell exact_cell(double exact_match) {
    return exact_match >= 0 ? log_cell(exact_match) : (LogCell){0};
}

int train_evaluate(Training *tr, long step, int final, LogRow *watched, char *err, int errlen) {
    Model *m = &tr->model;
    *watched = (LogRow){.step = -1};
    EvalResult res;
    // windows of text (the decoder-only algorithmic form is scored as a split)
    if (tr->task.cfg.task == TASK_LM) {
        int T = tr->c->window;
        for (int i = -1; i < tr->n_lengths; i++) {   // -1: the training window
            int length = i < 0 ? T : tr->lengths[i];
            if (evaluate_lm(m, tr->task.lm_val, tr->task.n_lm_val, length, 256, &res, err,
                            errlen))
                return -1;
            LogRow row = eval_row(step, length, &res);
            row.loss_last = log_cell(res.loss_last);
            row.tokens = training_tokens(tr);
            train_log_row(tr->log, &row, tr->log_tokens);
            if (i < 0) *watched = row;
            if (i < 0)
                printf("step %ld: val loss %.4f (last 32: %.4f) acc %.2f%%\n", step, res.loss,
                       res.loss_last, 100 * res.token_acc);
        }
        return 0;
    }
    int classifier = m->cfg.model == MODEL_CLASSIFIER;
    if (tr->task.val.n > 0) {   // parallel_text without val files has no validation split
        if (evaluate_split(m, &tr->task, &tr->task.val, 0, 1, &res, err, errlen)) return -1;
        double seq = classifier ? res.pair_acc : res.exact_match;
        LogRow row = eval_row(step, 0, &res);
        row.exact_match = classifier ? log_cell(res.pair_acc) : exact_cell(res.exact_match);
        row.tokens = training_tokens(tr);
        train_log_row(tr->log, &row, tr->log_tokens);
        *watched = row;
        printf("step %ld: val loss %.4f acc %.2f%% %s %.2f%%\n", step, res.loss,
               100 * res.token_acc, classifier ? "pair" : "exact", 100 * seq);
    }
    for (int i = 0; i < tr->n_lengths; i++) {
        Split s = {0};
        if (task_length_split(&tr->task, tr->lengths[i], tr->c->val_size, &s, err, errlen))
            return -1;
        int rc = evaluate_split(m, &tr->task, &s, 0, final, &res, err, errlen);
        split_free(&s);
        if (rc) return -1;
        LogRow row = eval_row(step, tr->lengths[i], &res);
        row.exact_match = exact_cell(res.exact_match);
        row.tokens = training_tokens(tr);
        train_log_row(tr->log, &row, tr->log_tokens);
    }
    return 0;
}
