#include "score/evaluate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "core/kernels.h"
#include "core/tape.h"
#include "models/loss.h"
#include "models/decode.h"
#include "score/diagnose.h"

// Reference length of a target row: its tokens before <eos> or <pad>.
static int content_length(const int *ref, int T) {
    int n = 0;
    while (n < T && ref[n] != TOK_EOS && ref[n] != TOK_PAD) n++;
    return n;
}

// The entries of a reference row an output must equal: its tokens, and its <eos> unless a length
// oracle put the end there.
static int compared_length(const int *ref, int T, int oracle) {
    int n = content_length(ref, T);
    return n + (!oracle && n < T && ref[n] == TOK_EOS);
}

// Is the greedy output an exact match of the reference row (T entries)?
static int exact_output(const int *hyp, const int *ref, int T, int oracle) {
    int n_cmp = compared_length(ref, T, oracle);
    return first_departure(hyp, ref, n_cmp) == n_cmp;
}

// Exact match decodes to the reference length when asked to (eval.length = oracle), and always
// for a model trained without <eos> (train.eos = false), which has no other way to stop.
static int length_oracle(const Task *t) {
    return t->batch_kind == BATCH_TRANSLATE_NO_EOS || t->cfg.length == EVAL_LENGTH_ORACLE;
}

// The decoder-only form (BATCH_PROMPT): rows idx[0..n) of s, grouped by input length, are
// continued greedily after <eos> input <bos> (greedy_decode with prompts <eos> input, then
// <bos> as the first step; the key/value cache holds rows of one length). With logits, the
// teacher-forced pass's (n*T,V) of the batch of those rows, the decoding is replayed from them
// (greedy_replay). Returns how many continuations are exactly output <eos>, -1 if out of
// memory, or -2 when a replay cannot stand for decoding (then decode: call without logits).
static long exact_continuations(Model *m, const Split *s, const int *idx, int n,
                                const Tensor *logits, int T) {
    long exact = 0;
    for (int g = 0, k; g < n; g = k) {
        int len = s->ex[idx[g]].n_src, ref_T = 1;
        for (k = g; k < n && s->ex[idx[k]].n_src == len; k++)
            if (s->ex[idx[k]].n_tgt + 1 > ref_T) ref_T = s->ex[idx[k]].n_tgt + 1;
        int rows = k - g, max_len = ref_T + 2, P = len + 1;
        int *prompt = malloc(sizeof(int) * (size_t)rows * P),
            *ref = calloc((size_t)rows * ref_T, sizeof(int));
        int *hyp = malloc(sizeof(int) * (size_t)rows * max_len);
        int rc = !prompt || !ref || !hyp;
        for (int r = 0; !rc && r < rows; r++) {
            const Example *e = &s->ex[idx[g + r]];
            prompt[(long)r * P] = TOK_EOS;
            // a held-out pair may have an empty side, whose ids are NULL
            if (len) memcpy(prompt + (long)r * P + 1, e->src, sizeof(int) * (size_t)len);
            if (e->n_tgt) memcpy(ref + (long)r * ref_T, e->tgt, sizeof(int) * (size_t)e->n_tgt);
            ref[(long)r * ref_T + e->n_tgt] = TOK_EOS;
        }
        if (!rc && logits)   // rows g.. of the batch: P is the <bos> that starts the output
            rc = greedy_replay(m, logits->data + (long)g * T * m->tgt_vocab, T, P, rows, max_len,
                               ref, ref_T, NULL, -1, hyp);
        else if (!rc)
            rc = greedy_decode(m, prompt, NULL, rows, P, max_len, ref, ref_T, NULL, -1, hyp);
        for (int r = 0; !rc && r < rows; r++)
            exact += exact_output(hyp + (long)r * max_len, ref + (long)r * ref_T, ref_T, 0);
        free(prompt); free(ref); free(hyp);
        if (rc) return rc > 0 ? -2 : -1;
    }
    return exact;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

// Orders idx[0..n) by input length, then index: the decoder-only form decodes rows of one input
// length together. -1 if out of memory.
static int sort_by_length(const Split *s, int *idx, int n) {
    long *key = malloc(sizeof(long) * (size_t)(n ? n : 1));
    if (!key) return -1;
    for (int i = 0; i < n; i++) key[i] = ((long)s->ex[idx[i]].n_src << 32) | idx[i];
    qsort(key, (size_t)n, sizeof(long), cmp_long);
    for (int i = 0; i < n; i++) idx[i] = (int)(key[i] & 0xffffffffL);
    free(key);
    return 0;
}

static int length_ok(Model *m, const Batch *b, char *err, int errlen) {
    int T = b->T_src > b->T_tgt ? b->T_src : b->T_tgt;
    return model_check_length(m, T, err, errlen);
}

// Teacher-forced and greedy rows of one batch into the diagnosis (right: (B,T), is the
// teacher-forced argmax the reference token, from right_tokens).
static int diagnose_batch(Diagnosis *d, const Task *t, const Batch *b, const int *right,
                          const int *hyp, int max_len, int oracle) {
    int T = b->T_tgt, rc = 0;
    int *clause = malloc(sizeof(int) * (size_t)T);
    for (int i = 0; i < b->B && clause && !rc; i++) {
        const int *ref = b->tgt_out + (long)i * T;
        task_target_clauses(t, ref, T, clause);
        rc = diagnosis_add_teacher(d, ref, clause, right + (long)i * T, T) ||
             diagnosis_add_greedy(d, hyp + (long)i * max_len, ref, clause,
                                  compared_length(ref, T, oracle)) < 0;
    }
    if (!clause) rc = -1;
    free(clause);
    return rc ? -1 : 0;
}

// Whether each row's argmax is its target, (n) malloc'd; NULL when out of memory. What a
// diagnosis needs of the logits, kept through decoding (which reuses their memory) instead
// of a copy of them.
static int *right_tokens(const Tensor *logits, const int *targets, long n) {
    int V = tensor_cols(logits), *right = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (long i = 0; right && i < n; i++)
        right[i] = kernel_argmax(logits->data + i * V, V) == targets[i];
    return right;
}

// The greedy outputs of a translator's batch of nb rows (nb, T_tgt + 2) malloc'd: replayed
// from the teacher-forced logits (B*T_tgt,V) when given, else decoded (memory: the batch's
// encoder output, or NULL). NULL when out of memory, or when a replay cannot stand for
// decoding (*replay_failed set: decode instead).
static int *greedy_translations(Model *m, const Task *t, const Batch *b, int nb,
                                const Tensor *logits, Tensor *memory, int *replay_failed) {
    int max_len = b->T_tgt + 2;   // anything longer than the reference is wrong anyway
    int *hyp = malloc(sizeof(int) * (size_t)nb * max_len),
        *stop_at = malloc(sizeof(int) * (size_t)nb);
    for (int i = 0; hyp && stop_at && i < nb; i++)
        stop_at[i] = content_length(b->tgt_out + (long)i * b->T_tgt, b->T_tgt);
    const int *oracle = length_oracle(t) ? stop_at : NULL;
    int rc = !hyp || !stop_at ? -1
             : logits ? greedy_replay(m, logits->data, b->T_tgt, 0, nb, max_len, b->tgt_out,
                                      b->T_tgt, oracle, task_end_token(t), hyp)
                      : greedy_decode(m, b->src, memory, nb, b->T_src, max_len, b->tgt_out,
                                      b->T_tgt, oracle, task_end_token(t), hyp);
    free(stop_at);
    if (rc > 0) *replay_failed = 1;
    if (rc) { free(hyp); return NULL; }
    return hyp;
}

// A translator's batch of nb rows, its greedy outputs hyp (greedy_translations; NULL: out of
// memory): the exact outputs added to *exact and, with diag, the rows into the diagnosis
// (right: the batch's teacher-forced right tokens, right_tokens). -1 when out of memory.
static int score_translations(const Task *t, const Batch *b, int nb, Diagnosis *diag,
                              const int *right, const int *hyp, long *exact) {
    int max_len = b->T_tgt + 2;
    int oracle = length_oracle(t);
    int failed = !hyp || (diag && !right) ||
                 (diag && diagnose_batch(diag, t, b, right, hyp, max_len, oracle));
    // Compared: the tokens, and the end unless the oracle placed it.
    for (int i = 0; !failed && i < nb; i++)
        *exact += exact_output(hyp + (long)i * max_len, b->tgt_out + (long)i * b->T_tgt,
                               b->T_tgt, oracle);
    return failed ? -1 : 0;
}

// The classifier's twins (each pair once): both right (pair_acc), and how far apart their
// logits are (max_twin_diff). all_logits: C per example of the split, by its index.
static void score_twins(const Split *s, const int *idx, int n, const float *all_logits, int C,
                        EvalResult *r) {
    int pairs = 0, both = 0;
    for (int k = 0; k < n; k++) {
        int i = idx[k], j = s->ex[i].twin;
        if (j <= i) continue;
        const float *li = all_logits + (long)i * C, *lj = all_logits + (long)j * C;
        pairs++;
        both += kernel_argmax(li, C) == s->ex[i].label && kernel_argmax(lj, C) == s->ex[j].label;
        for (int c = 0; c < C; c++)
            r->max_twin_diff = fmax(r->max_twin_diff, fabs(li[c] - lj[c]));
    }
    r->pair_acc = pairs ? (double)both / pairs : 0;
    r->twin_pairs = pairs;
}

// The indices of the split's examples of n_clauses `length` (all when length <= 0) into *n,
// ordered by input length with by_length; NULL when out of memory.
static int *examples_of_length(const Split *s, int length, int by_length, int *n) {
    int *idx = malloc(sizeof(int) * (size_t)(s->n ? s->n : 1));
    *n = 0;
    if (!idx) return NULL;
    for (int i = 0; i < s->n; i++)
        if (length <= 0 || s->ex[i].n_clauses == length) idx[(*n)++] = i;
    if (by_length && sort_by_length(s, idx, *n)) {
        free(idx);
        return NULL;
    }
    return idx;
}

// Does greedy decoding take the teacher-forced pass's encoder output instead of encoding the
// batch again? A transformer translator's, when its positions are fixed: drawn positions
// (model.pos_random, eval.positions = sampled) are drawn anew by each encoding.
static int reuse_encoder(const Model *m) {
    return m->cfg.model == MODEL_TRANSLATOR && !m->encoder.pos.draw_from;
}

int evaluate_split(Model *m, const Task *t, const Split *s, int length, int decode, EvalResult *r,
                   char *err, int errlen) {
    return evaluate_diagnose(m, t, s, length, decode, NULL, r, err, errlen);
}

// Sentences w0 .. w0+n-1 of x (B,T,d) as a tensor of their own (n,T,d), sharing x's data.
static Tensor rows_of(const Tensor *x, int w0, int n) {
    Tensor part = *x;
    long row = x->size / x->shape[0];
    part.data = x->data + w0 * row;
    part.shape[0] = n;
    part.size = n * row;
    return part;
}

// A translator's batch, teacher-forced: the encoder output (B,Ts,d) into *memory, *above the
// arena mark just above it, and the logits (B*Tt,V), each row the same bits as in one pass
// (rows are independent; positions are fixed: reuse_encoder), model_eval_chunk sentences at a
// time: a batch of long sentences (64 of 260 tokens at 32 clauses) goes a few at a time.
static Tensor *chunked_logits(Model *m, const Batch *b, Tensor **memory, ArenaMark *above) {
    int B = b->B, Ts = b->T_src, Tt = b->T_tgt, V = m->tgt_vocab, T = Ts > Tt ? Ts : Tt;
    int chunk = m->decoder.pos.draw_from ? B : model_eval_chunk(T, B);   // drawn: one pass
    Arena *a = tensor_arena();
    *memory = tensor_new3(B, Ts, m->cfg.d_model, 0);
    for (int w0 = 0; w0 < B; w0 += chunk) {
        int n = B - w0 < chunk ? B - w0 : chunk;
        ArenaMark mark = arena_mark(a);
        Tensor *y = model_encode(m, b->src + (long)w0 * Ts, n, Ts, NULL);   // (n,Ts,d)
        memcpy((*memory)->data + (long)w0 * Ts * y->shape[2], y->data,
               sizeof(float) * (size_t)y->size);
        arena_release(a, mark);
    }
    *above = arena_mark(a);   // decoding keeps the memory, the rest is released
    Tensor *logits = tensor_new2(B * Tt, V, 0);
    for (int w0 = 0; w0 < B; w0 += chunk) {
        int n = B - w0 < chunk ? B - w0 : chunk;
        ArenaMark mark = arena_mark(a);
        Tensor part = rows_of(*memory, w0, n);
        Tensor *z = decoder_logits(m, &part, b->src + (long)w0 * Ts, Ts, b->tgt_in + (long)w0 * Tt,
                                   n, Tt, NULL);                               // (n*Tt,V)
        memcpy(logits->data + (long)w0 * Tt * V, z->data, sizeof(float) * (size_t)z->size);
        arena_release(a, mark);
    }
    return logits;
}

// A batch's teacher-forced loss, its logits and count of right tokens. With keep_memory (a
// translator whose greedy decoding follows) the encoder output stays in *memory and *above is
// the arena mark just above it, so that decoding reuses it; else *memory is NULL and *above
// the batch's start.
static Tensor *teacher_forced(Model *m, const Batch *b, int keep_memory, Tensor **logits, long *right,
                              Tensor **memory, ArenaMark *above) {
    *memory = NULL;
    *above = arena_mark(tensor_arena());
    if (!keep_memory) return batch_loss(m, b, 0, logits, right);
    *logits = chunked_logits(m, b, memory, above);
    *right = count_correct(*logits, b->tgt_out, (int)tensor_rows(*logits), TOK_PAD);
    return op_cross_entropy(*logits, b->tgt_out, TOK_PAD, 0);
}

// The exact matches of a scored batch (its rows idx[0..nb) of s), added to *exact: greedy
// translations or continuations, replayed from the logits where they stand for decoding, else
// (or when a replay cannot) decoded once the logits' memory, above `mark`, is released (the
// forward pass is counted: decoding reuses its memory). A diagnosis keeps which tokens were
// right until the outputs are decoded. 0, or -1 when out of memory.
static int batch_exact(Model *m, const Task *t, const Split *s, const int *idx, Batch *b, int nb,
                       Tensor *logits, Tensor *memory, ArenaMark mark, Diagnosis *diag,
                       long *exact) {
    int translate = model_is_seq2seq(m->cfg.model), replay_failed = 0;
    int continue_prompts = t->batch_kind == BATCH_PROMPT, replay = greedy_replays(m);
    int *kept = diag && translate ? right_tokens(logits, b->tgt_out, (long)nb * b->T_tgt) : NULL;
    int *hyp = translate && replay
                   ? greedy_translations(m, t, b, nb, logits, NULL, &replay_failed) : NULL;
    long continued = continue_prompts && replay
                         ? exact_continuations(m, s, idx, nb, logits, b->T_tgt) : -2;
    arena_release(tensor_arena(), mark);
    if (translate && (!hyp || replay_failed)) {
        free(hyp);
        hyp = greedy_translations(m, t, b, nb, NULL, memory, &replay_failed);
    }
    if (continue_prompts && continued == -2)
        continued = exact_continuations(m, s, idx, nb, NULL, 0);
    int failed = 0;
    if (translate) {
        failed = score_translations(t, b, nb, diag, kept, hyp, exact) != 0;
    } else if (continue_prompts) {
        failed = continued < 0;
        if (!failed) *exact += continued;
    }
    free(hyp);
    free(kept);
    return failed ? -1 : 0;
}

int evaluate_diagnose(Model *m, const Task *t, const Split *s, int length, int decode,
                      Diagnosis *diag, EvalResult *r, char *err, int errlen) {
    memset(r, 0, sizeof *r);
    r->exact_match = -1;
    int n;
    int *idx = examples_of_length(s, length, t->batch_kind == BATCH_PROMPT, &n);
    if (!idx) return errorf(err, errlen, "out of memory");
    int C = m->n_classes, classifier = m->cfg.model == MODEL_CLASSIFIER;
    float *all_logits = classifier ? calloc((size_t)(s->n ? s->n : 1) * C, sizeof(float)) : NULL;
    int was_training = m->training, was_recording = tape_enabled();
    model_set_training(m, 0);
    model_seed_positions(m, MODEL_EVAL_DRAW);   // same drawn positions whenever this set is scored
    tape_set_enabled(0);
    Arena *a = tensor_arena();
    double loss_sum = 0;
    long correct = 0, exact = 0;
    int bs = m->cfg.batch_size, rc = 0;
    for (int start = 0; start < n && !rc; start += bs) {
        int nb = n - start < bs ? n - start : bs;
        Batch b;
        if (batch_from_split(s, idx + start, nb, t->batch_kind, t->add_cls, &b)) {
            snprintf(err, errlen, "out of memory making a batch");
            rc = -1;
            break;
        }
        if ((rc = length_ok(m, &b, err, errlen))) { batch_free(&b); break; }
        ArenaMark start_of_batch = arena_mark(a), mark;
        Tensor *logits, *memory;
        long right;
        Tensor *loss = teacher_forced(m, &b, decode && reuse_encoder(m), &logits, &right, &memory,
                                      &mark);
        long tokens = classifier ? nb : b.n_tgt_tokens;
        loss_sum += (double)loss->data[0] * tokens;
        r->n_tokens += tokens;
        correct += right;
        if (classifier)
            for (int i = 0; i < nb; i++)
                memcpy(all_logits + (long)idx[start + i] * C, logits->data + (long)i * C,
                       sizeof(float) * C);
        int failed = 0;
        if (decode) failed = batch_exact(m, t, s, idx + start, &b, nb, logits, memory, mark, diag,
                                         &exact) != 0;
        else arena_release(a, mark);
        batch_free(&b);
        arena_release(a, start_of_batch);
        if (failed) rc = errorf(err, errlen, "out of memory while decoding");
    }
    if (!rc) {
        r->n_examples = n;
        r->loss = r->n_tokens ? loss_sum / r->n_tokens : 0;
        r->token_acc = r->n_tokens ? (double)correct / r->n_tokens : 0;
        if (decode && (model_is_seq2seq(m->cfg.model) || t->batch_kind == BATCH_PROMPT))
            r->exact_match = n ? (double)exact / n : 0;
        if (classifier) score_twins(s, idx, n, all_logits, C, r);
    }
    model_set_training(m, was_training);
    tape_set_enabled(was_recording);
    free(idx);
    free(all_logits);
    return rc;
}

// The logits of a batch of B windows (B*T,V): lm_logits of model_eval_chunk windows at a time
// (a batch of 64k tokens keeps its one loss, but its stack's intermediates, 64 MiB of FFN
// rows at d_ff = 256, were first touched at each new window size, a fault a page), each row the
// same bits as in one pass (rows are independent; positions drawn anew by each pass, with
// model.pos_random, keep the batch in one pass).
static Tensor *lm_batch_logits(Model *m, const Batch *b) {
    int B = b->B, T = b->T_tgt, V = m->tgt_vocab;
    int chunk = model_eval_chunk(T, B);
    if (chunk == B || m->decoder.pos.draw_from) return lm_logits(m, b->tgt_in, B, T, NULL);
    Tensor *all = tensor_new2(B * T, V, 0);
    for (int w0 = 0; w0 < B; w0 += chunk) {
        int n = B - w0 < chunk ? B - w0 : chunk;
        ArenaMark mark = arena_mark(tensor_arena());
        Tensor *z = lm_logits(m, b->tgt_in + (long)w0 * T, n, T, NULL);   // (n*T,V)
        memcpy(all->data + (long)w0 * T * V, z->data, sizeof(float) * (size_t)n * T * V);
        arena_release(tensor_arena(), mark);
    }
    return all;
}

int evaluate_lm(Model *m, const int *stream, int n, int T, int max_windows, EvalResult *r,
                char *err, int errlen) {
    memset(r, 0, sizeof *r);
    r->exact_match = -1;
    int windows = (n - 1) / T < max_windows ? (n - 1) / T : max_windows;
    if (windows < 1) {
        snprintf(err, errlen, "window of %d tokens is longer than the evaluation text", T);
        return -1;
    }
    int was_training = m->training, was_recording = tape_enabled();
    // first: evaluation may take other positions than training (pos_random)
    model_set_training(m, 0);
    if (model_check_length(m, T, err, errlen)) { model_set_training(m, was_training); return -1; }
    model_seed_positions(m, MODEL_EVAL_DRAW);
    tape_set_enabled(0);
    int bs = 65536 / T > 0 ? (65536 / T < 64 ? 65536 / T : 64) : 1;   // about 64k tokens a batch
    int *starts = malloc(sizeof(int) * (size_t)bs);
    double loss_sum = 0, last_sum = 0;
    long correct = 0, last_n = 0;
    int last = T < 32 ? T : 32, rc = 0;
    for (int w0 = 0; w0 < windows; w0 += bs) {
        int nb = windows - w0 < bs ? windows - w0 : bs;
        for (int i = 0; i < nb; i++) starts[i] = (w0 + i) * T;
        Batch b;
        if (batch_lm(stream, n, starts, nb, T, &b)) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        ArenaMark mark = arena_mark(tensor_arena());
        Tensor *logits = lm_batch_logits(m, &b);
        // the training loss, unsmoothed (batch_loss's)
        correct += count_correct(logits, b.tgt_out, nb * T, TOK_PAD);
        loss_sum += (double)op_cross_entropy(logits, b.tgt_out, TOK_PAD, 0)->data[0] * nb * T;
        // The last `last` targets of each window: the others are ignored (as <pad> is).
        int *tail = arena_alloc(tensor_arena(), sizeof(int) * (size_t)nb * T);
        for (int i = 0; i < nb * T; i++) tail[i] = i % T >= T - last ? b.tgt_out[i] : TOK_PAD;
        last_sum += (double)op_cross_entropy(logits, tail, TOK_PAD, 0)->data[0] * nb * last;
        last_n += (long)nb * last;
        arena_release(tensor_arena(), mark);
        batch_free(&b);
    }
    free(starts);
    r->n_examples = windows;
    r->n_tokens = (long)windows * T;
    r->loss = loss_sum / r->n_tokens;
    r->token_acc = (double)correct / r->n_tokens;
    r->loss_last = last_n ? last_sum / last_n : 0;
    model_set_training(m, was_training);
    tape_set_enabled(was_recording);
    return rc;
}
