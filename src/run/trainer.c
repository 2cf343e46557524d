#include "run/trainer.h"
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/crash_point.h"
#include "core/optim.h"
#include "core/runtime.h"
#include "core/tape.h"
#include "io/fileio.h"
#include "pos/pos.h"
#include "run/checkpoint.h"
#include "run/evaluate.h"
#include "run/stop.h"
#include "run/memory_estimate.h"
#include "run/task.h"

#define LOG_HEADER "step,split,length,loss,token_acc,exact_match,loss_last,lr,grad_norm\n"

static int file_exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0;
}

// The checkpoint a resume value names: a checkpoint file, or a run folder holding one.
static void resume_path(const char *value, char *out, size_t n) {
    struct stat s;
    if (stat(value, &s) == 0 && S_ISDIR(s.st_mode)) snprintf(out, n, "%s/model.safetensors", value);
    else snprintf(out, n, "%s", value);
}

// Keep the header and the rows up to `step` (a resumed run rewrites what came after). A last
// line without '\n' was torn by a crash and is dropped. Written atomically: a kill here
// leaves the old log whole. The lines before the header are comments: `note` replaces them
// (a fresh run), or with note NULL they are kept (a resumed run).
static int truncate_log(const char *path, long step, const char *note, char *err, int errlen) {
    size_t n = 0;
    char *text = NULL;
    if (file_exists(path) && !(text = read_file(path, &n, (size_t)1 << 30, err, errlen))) return -1;
    char *old_header = text;
    while (old_header && *old_header == '#' && strchr(old_header, '\n'))
        old_header = strchr(old_header, '\n') + 1;
    size_t kept = old_header && !note ? (size_t)(old_header - text) : 0, len = 0;
    if (!note) note = "";
    char *out = malloc(strlen(note) + kept + strlen(LOG_HEADER) + n + 1);
    if (!out) { free(text); snprintf(err, errlen, "%s: out of memory", path); return -1; }
    if (kept) memcpy(out, text, kept), len = kept;
    memcpy(out + len, note, strlen(note)), len += strlen(note);
    memcpy(out + len, LOG_HEADER, strlen(LOG_HEADER)), len += strlen(LOG_HEADER);
    char *line = old_header ? strchr(old_header, '\n') : NULL;   // skip the old header
    while (line && line[1]) {
        char *next = strchr(line + 1, '\n');
        if (!next) break;                             // torn last row
        if (strtol(line + 1, NULL, 10) <= step) {
            memcpy(out + len, line + 1, (size_t)(next - line));
            len += (size_t)(next - line);
        }
        line = next;
    }
    int rc = write_file_atomic(path, out, len, err, errlen);
    free(out);
    free(text);
    return rc;
}

// A run killed while writing a file leaves its temporary (every file goes through
// write_file_atomic); the real file beside it is intact. Remove those leftovers so they do
// not pile up.
static void remove_stale_temps(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_atomic_temp(e->d_name)) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (!unlink(path)) printf("removed %s, left by an interrupted run\n", path);
        }
    closedir(d);
}

static void log_value(FILE *f, double v, int last) {
    if (isnan(v) || v < -0.5) fprintf(f, "%s", last ? "\n" : ",");
    else fprintf(f, last ? "%.6g\n" : "%.6g,", v);
}

static void log_row(FILE *f, long step, const char *split, int length, double loss, double acc,
                    double exact, double loss_last, double lr, double gnorm) {
    fprintf(f, "%ld,%s,%d,", step, split, length);
    log_value(f, loss, 0);
    log_value(f, acc, 0);
    log_value(f, exact, 0);
    log_value(f, loss_last, 0);
    log_value(f, lr, 0);
    log_value(f, gnorm, 1);
    fflush(f);
}

typedef struct Run {
    Config *c;
    Task task;
    Model model;
    AdamW opt;
    Sampler sampler;
    char dir[512], ckpt[600], log_path[600];
    FILE *log;
    int lengths[64], n_lengths;
    char init_note[700];         // log.csv's first line when train.init_from gave the weights
    char last_good[600];         // the newest checkpoint known good ("" = none yet)
    long last_good_step;
    long step;                   // the step running, for the out-of-memory message
    MemoryEstimate memory;       // checked in setup, printed first once the run folder exists
} Run;

// Evaluate the validation split (and the extra lengths) and log one row each.
static int evaluate_and_log(Run *r, long step, int final, char *err, int errlen) {
    Model *m = &r->model;
    EvalResult res;
    // windows of text (the decoder-only algorithmic form is scored as a split)
    if (r->task.cfg.task == TASK_LM) {
        int T = r->c->window;
        if (evaluate_lm(m, r->task.lm_val, r->task.n_lm_val, T, 256, &res, err, errlen)) return -1;
        log_row(r->log, step, "val", T, res.loss, res.token_acc, -1, res.loss_last, -1, -1);
        printf("step %ld: val loss %.4f (last 32: %.4f) acc %.2f%%\n", step, res.loss,
               res.loss_last, 100 * res.token_acc);
        for (int i = 0; i < r->n_lengths; i++) {
            if (evaluate_lm(m, r->task.lm_val, r->task.n_lm_val, r->lengths[i], 256, &res, err,
                            errlen))
                return -1;
            log_row(r->log, step, "val", r->lengths[i], res.loss, res.token_acc, -1, res.loss_last,
                    -1, -1);
        }
        return 0;
    }
    int classifier = m->cfg.model == MODEL_CLASSIFIER;
    if (r->task.val.n > 0) {   // parallel_text without val files has no validation split
        if (evaluate_split(m, &r->task, &r->task.val, 0, 1, &res, err, errlen)) return -1;
        double seq = classifier ? res.pair_acc : res.exact_match;
        log_row(r->log, step, "val", 0, res.loss, res.token_acc, seq, -1, -1, -1);
        printf("step %ld: val loss %.4f acc %.2f%% %s %.2f%%\n", step, res.loss,
               100 * res.token_acc, classifier ? "pair" : "exact", 100 * seq);
    }
    for (int i = 0; i < r->n_lengths; i++) {
        Split s = {0};
        if (task_length_split(&r->task, r->lengths[i], r->c->val_size, &s, err, errlen)) return -1;
        int rc = evaluate_split(m, &r->task, &s, 0, final, &res, err, errlen);
        split_free(&s);
        if (rc) return -1;
        log_row(r->log, step, "val", r->lengths[i], res.loss, res.token_acc, res.exact_match, -1,
                -1, -1);
    }
    return 0;
}

// "the last good checkpoint is X (step N)" or "there is no checkpoint yet".
static void last_good_text(const Run *r, char *out, size_t n) {
    if (r->last_good[0])
        snprintf(out, n, "the last good checkpoint is %s (step %ld)", r->last_good,
                 r->last_good_step);
    else snprintf(out, n, "there is no checkpoint yet");
}

// Never save weights that are no longer finite: the update itself can overflow even when the
// loss and gradient norm it came from were finite.
static int check_finite_params(const Run *r, long step, char *err, int errlen) {
    const Params *ps = &r->model.ps;
    for (int i = 0; i < ps->n; i++) {
        const Param *p = ps->list[i];
        for (long j = 0; j < p->t.size; j++)
            if (!isfinite(p->t.data[j])) {
                char good[700];
                last_good_text(r, good, sizeof good);
                snprintf(err, errlen,
                         "step %ld: parameter '%s' holds %g after the update; "
                         "stopped without saving, %s",
                         step, p->name, p->t.data[j], good);
                return -1;
            }
    }
    return 0;
}

static int save_checkpoint(Run *r, long step, char *err, int errlen) {
    if (check_finite_params(r, step, err, errlen)) return -1;
    TrainState st = { step, sampler_state(&r->sampler) };
    if (checkpoint_save(r->ckpt, &r->model, r->c->text, &r->opt, &st, err, errlen)) {
        char good[700];
        last_good_text(r, good, sizeof good);
        size_t k = strlen(err);
        snprintf(err + k, errlen - k, "; the checkpoint of step %ld was not written, %s", step,
                 good);
        return -1;
    }
    snprintf(r->last_good, sizeof r->last_good, "%s", r->ckpt);
    r->last_good_step = step;
    return 0;
}

// After SIGTERM / SIGINT (see run/stop.h): the step is done; save it unless it just was, say
// how to go on, and return the signal's number.
static int stop_after_step(Run *r, long step, int signo, char *err, int errlen) {
    if (step % r->c->ckpt_every && save_checkpoint(r, step, err, errlen)) return -1;
    fflush(stdout);
    if (isatty(STDERR_FILENO)) fputc('\n', stderr);   // end the progress line
    fprintf(stderr,
            "stopped by %s after step %ld (checkpoint %s); "
            "resume with: ./train %s/config.ini train.resume=%s\n",
            signo == SIGINT ? "SIGINT" : "SIGTERM", step, r->ckpt, r->dir, r->dir);
    return signo;
}

static void progress(long step, long steps, double loss, double tokens_per_s, double eta) {
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\rstep %ld/%ld | loss %.4f | %.1fk tok/s | ETA %dm%02ds   ", step, steps, loss,
            tokens_per_s / 1000, (int)(eta / 60), (int)fmod(eta, 60));
    if (step == steps) fputc('\n', stderr);
}

static int setup(Run *r, char *err, int errlen) {
    Config *c = r->c;
    if (c->eval_lengths[0] &&
        (r->n_lengths = parse_lengths(c->eval_lengths, r->lengths, 64, err, errlen)) < 0)
        return -1;
    char msg[256];
    // a length the task cannot generate: refused before any step
    for (int i = 0; i < r->n_lengths; i++)
        if (task_check_length(c, r->lengths[i], msg, sizeof msg)) {
            snprintf(err, errlen, "eval_lengths: %s", msg);
            return -1;
        }
    snprintf(r->dir, sizeof r->dir, "%s/%s", c->out_dir, c->name);
    snprintf(r->ckpt, sizeof r->ckpt, "%s/model.safetensors", r->dir);
    snprintf(r->log_path, sizeof r->log_path, "%s/log.csv", r->dir);
    if (!c->resume[0] && file_exists(r->ckpt)) {
        snprintf(err, errlen,
                 "%s already holds a run; continue it with train.resume=%s, or remove the folder, "
                 "or pick another run.name",
                 r->dir, r->dir);
        return -1;
    }
    // Memory first: from the config alone before loading data, then with the data's shapes.
    if (memory_check_train(c, NULL, &r->memory, err, errlen) || task_load(&r->task, c, err, errlen))
        return -1;
    Task *t = &r->task;
    if (memory_check_train(c, t, &r->memory, err, errlen)) return -1;
    // The longest training sequence: recorded in the run's config as n_train of
    // model.attn_logit_scale (docs/design.md §2.4), so ./eval scales by the length trained on.
    int T = task_train_length(t);
    if (!c->attn_train_length) {
        char set[64];
        snprintf(set, sizeof set, "model.attn_train_length=%d", T);
        if (config_set(c, &pos_config_checks, set, err, errlen)) return -1;
    }
    model_build(&r->model, c, t->src_vocab.n, t->has_tgt_vocab ? t->tgt_vocab.n : t->src_vocab.n,
                t->n_classes);
    // Refuse lengths the positional scheme cannot encode before any work (learned, no wrap).
    if (model_check_length(&r->model, T, err, errlen)) return -1;
    adamw_init(&r->opt, &r->model.ps, c->beta1, c->beta2, c->eps, c->weight_decay);
    long train_n = t->cfg.task == TASK_LM ? (t->n_lm_train - 1) / (c->window + 1) : t->train.n;
    if (train_n < 1) { snprintf(err, errlen, "no training examples"); return -1; }
    if (sampler_init(&r->sampler, (int)train_n, rng_stream((uint64_t)c->seed, RNG_DATA).state)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int resume(Run *r, long *start, char *err, int errlen) {
    char path[600];
    resume_path(r->c->resume, path, sizeof path);
    TrainState st;
    if (checkpoint_load(path, &r->model, &r->opt, &st, err, errlen)) return -1;
    int n = r->sampler.n;
    sampler_free(&r->sampler);
    if (sampler_restore(&r->sampler, n, st.sampler)) {
        snprintf(err, errlen,
                 "%s: sampler state (epoch %lld, position %lld) does not fit this data "
                 "(%d training examples)",
                 path, (long long)st.sampler.epoch, (long long)st.sampler.pos, n);
        return -1;
    }
    if (st.step > r->c->steps) {
        snprintf(err, errlen,
                 "%s is at step %ld, past steps = %d (raise train.steps to continue it)", path,
                 st.step, r->c->steps);
        return -1;
    }
    snprintf(r->last_good, sizeof r->last_good, "%s", path);
    r->last_good_step = st.step;
    *start = st.step;
    printf("resumed from %s at step %ld\n", path, st.step);
    return 0;
}

// train.init_from: another run's weights (a checkpoint, or a run folder holding one) start this
// run; its optimizer moments, step, schedule, data order and dropout stream are this run's
// own, as in a fresh run. The model is built from this run's config, so the window and the
// RoPE stretch may differ from the source's; a tensor the source lacks, holds extra or has in
// another shape is refused by checkpoint_load, which names it and both shapes.
static int init_weights(Run *r, char *err, int errlen) {
    char path[600], why[1024];
    resume_path(r->c->init_from, path, sizeof path);
    Rng own_dropout = r->model.dropout_rng;
    TrainState source;
    if (checkpoint_load(path, &r->model, NULL, &source, why, sizeof why)) {
        snprintf(err, errlen, "train.init_from = %s: %s", r->c->init_from, why);
        return -1;
    }
    r->model.dropout_rng = own_dropout;
    snprintf(r->init_note, sizeof r->init_note, "# init_from = %s (step %ld)\n", path, source.step);
    return 0;
}

// The arena could not grow mid-run (the estimate was short, or memory went to others):
// stop as a NaN does, naming the step and the checkpoint to resume from.
static void out_of_memory(size_t bytes, void *ctx) {
    const Run *r = ctx;
    char good[700];
    last_good_text(r, good, sizeof good);
    fflush(stdout);
    fprintf(stderr,
            "error: step %ld: out of memory: cannot allocate %zu MiB for activations; "
            "stopped, %s\n",
            r->step, bytes >> 20, good);
    exit(1);
}

// train.bucket: the length of each training pair, for batches of similar lengths.
static int *bucket_lengths(const Split *s) {
    int *len = malloc(sizeof(int) * (size_t)(s->n ? s->n : 1));
    for (int i = 0; len && i < s->n; i++)
        len[i] = s->ex[i].n_src > s->ex[i].n_tgt ? s->ex[i].n_src : s->ex[i].n_tgt;
    return len;
}

static void make_batch(Run *r, Batch *b) {
    int B = r->c->batch_size, *idx = malloc(sizeof(int) * (size_t)B);
    sampler_next(&r->sampler, idx, B);
    if (r->task.cfg.task == TASK_LM) {
        for (int i = 0; i < B; i++) idx[i] *= r->c->window + 1;   // window i starts here
        batch_lm(r->task.lm_train, r->task.n_lm_train, idx, B, r->c->window, b);
    } else {
        batch_from_split(&r->task.train, idx, B, r->task.batch_kind, r->task.add_cls, b);
    }
    free(idx);
}

int train_run(Config *c, char *err, int errlen) {
    Run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    runtime_set_threads(c->threads);
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    arena_on_failure(&arena, out_of_memory, &r);
    long start = 0;
    int rc = setup(&r, err, errlen);
    if (!rc && c->resume[0]) rc = resume(&r, &start, err, errlen);
    else if (!rc && c->init_from[0]) rc = init_weights(&r, err, errlen);
    int *lengths = NULL;
    if (!rc && c->bucket && r.task.cfg.task != TASK_LM) {
        if (!(lengths = bucket_lengths(&r.task.train))) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else sampler_set_buckets(&r.sampler, lengths, c->batch_size);
    }
    if (!rc) rc = make_dirs(r.dir, err, errlen);   // only once everything loaded: no empty folders
    if (!rc) memory_report(&r.memory, c, stdout);
    if (!rc) remove_stale_temps(r.dir);
    if (!rc) {
        char path[600];
        snprintf(path, sizeof path, "%s/config.ini", r.dir);
        rc = write_file_atomic(path, c->text, strlen(c->text), err, errlen) ||
             task_save_vocabs(&r.task, r.dir, err, errlen) ||
             truncate_log(r.log_path, start, c->resume[0] ? NULL : r.init_note, err, errlen)
             ? -1 : 0;
    }
    if (!rc && !(r.log = fopen(r.log_path, "a"))) {
        snprintf(err, errlen, "%s: cannot append", r.log_path);
        rc = -1;
    }
    if (!rc) {
        printf("run %s: %s, %s, pos = %s, %ld parameters, %d training examples, steps %ld..%d\n",
               r.dir, config_enum_name(c, &c->model), config_enum_name(c, &c->task), c->pos,
               r.model.ps.total, r.sampler.n, start + 1, c->steps);
        if (r.init_note[0]) printf("weights: %s", r.init_note + 2);   // "init_from = PATH (step N)"
        if (r.task.cfg.task != TASK_LM && r.task.val.n == 0)
            printf("no validation split (task.val_src / val_tgt unset): no val rows are logged\n");
        fflush(stdout);
    }
    double t0 = wall_seconds(), tokens = 0;
    for (long step = start + 1; !rc && step <= c->steps; step++) {
        crash_point("step");       // tests: TF_CRASH_AT=step:N kills,
                                   // TF_PAUSE_AT=step:N stops the process here
        runtime_adapt_threads();   // run.threads = 0: as many as other processes leave free
        r.step = step;
        Batch b;
        make_batch(&r, &b);
        arena_reset(&arena);
        tape_reset();
        params_zero_grad(&r.model.ps);
        model_seed_positions(&r.model, (uint64_t)step);   // randomized positions: this step's draw
        Tensor *logits;
        Tensor *loss = batch_loss(&r.model, &b, c->label_smoothing, &logits);
        float lr = lr_at(c->schedule, step - 1, c->steps, c->lr, c->warmup, c->min_lr_ratio);
        tape_backward(loss);
        float gnorm = grad_norm(&r.model.ps);   // clipped inside the update below
        if (!isfinite(loss->data[0]) || !isfinite(gnorm)) {
            char good[700];
            last_good_text(&r, good, sizeof good);
            snprintf(err, errlen, "step %ld: the loss is %g (gradient norm %g); stopped, %s",
                     step, loss->data[0], gnorm, good);
            batch_free(&b);
            rc = -1;
            break;
        }
        adamw_step_scaled(&r.opt, &r.model.ps, lr, clip_scale(gnorm, c->clip));
        long n_tok = b.n_tgt_tokens;
        for (long i = 0; b.src && i < (long)b.B * b.T_src; i++) n_tok += b.src[i] != TOK_PAD;
        tokens += n_tok;
        // Rows depend on the step alone, so a resumed run writes the same rows as an unbroken one.
        if (step % c->log_every == 0 || step == 1 || step == c->steps) {
            int classifier = r.model.cfg.model == MODEL_CLASSIFIER;
            long right = classifier ? count_correct(logits, b.labels, b.B, -1)
                                    : count_correct(logits, b.tgt_out, b.B * b.T_tgt, TOK_PAD);
            log_row(r.log, step, "train", 0, loss->data[0], (double)right / b.n_tgt_tokens, -1, -1,
                    lr, gnorm);
        }
        double elapsed = wall_seconds() - t0;
        progress(step, c->steps, loss->data[0], tokens / elapsed,
                 elapsed / (step - start) * (c->steps - step));
        batch_free(&b);
        int last = step == c->steps;
        if (step % c->eval_every == 0 || last) {
            // the step's tensors are done with: evaluation reuses their memory
            arena_reset(&arena);
            rc = evaluate_and_log(&r, step, last, err, errlen);
        }
        if (!rc && (step % c->ckpt_every == 0 || last)) rc = save_checkpoint(&r, step, err, errlen);
        if (!rc && ferror(r.log)) {
            char good[700];
            last_good_text(&r, good, sizeof good);
            snprintf(err, errlen, "%s: write failed (disk full?); stopped at step %ld, %s",
                     r.log_path, step, good);
            rc = -1;
        }
        if (!rc && !last && stop_signal_received())
            rc = stop_after_step(&r, step, stop_signal_received(), err, errlen);
        fflush(stdout);
    }
    if (!rc)
        printf("done: %s in %.1f s (%.0f tokens/s)\n", r.ckpt, wall_seconds() - t0,
               tokens / (wall_seconds() - t0));
    if (r.log) fclose(r.log);
    sampler_free(&r.sampler);
    free(lengths);
    adamw_free(&r.opt);
    model_free(&r.model);
    task_free(&r.task);
    arena_free(&arena);
    return rc;
}
