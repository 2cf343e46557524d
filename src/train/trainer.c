#include "train/trainer.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/crash_point.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "io/fileio.h"
#include "pos/pos.h"
#include "memory/memory_check.h"
#include "score/evaluate.h"
#include "train/train_checkpoint.h"
#include "train/train_compute.h"
#include "train/train_eval.h"
#include "train/train_guard.h"
#include "train/train_log.h"
#include "train/train_resume.h"
#include "train/train_step.h"
#include "train/train_stop.h"

static int file_exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0;
}

static void progress(long step, long steps, double loss, double tokens_per_s, double eta) {
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\rstep %ld/%ld | loss %.4f | %.1fk tok/s | ETA %dm%02ds   ", step, steps, loss,
            tokens_per_s / 1000, (int)(eta / 60), (int)fmod(eta, 60));
    if (step == steps) fputc('\n', stderr);
}

static int setup(Training *tr, char *err, int errlen) {
    Config *c = tr->c;
    if (c->eval_lengths[0] &&
        (tr->n_lengths = parse_lengths(c->eval_lengths, tr->lengths, 64, err, errlen)) < 0)
        return -1;
    char msg[256];
    // a length the task cannot generate: refused before any step
    for (int i = 0; i < tr->n_lengths; i++)
        if (task_check_length(c, tr->lengths[i], msg, sizeof msg)) {
            snprintf(err, errlen, "eval_lengths: %s", msg);
            return -1;
        }
    snprintf(tr->dir, sizeof tr->dir, "%s/%s", c->out_dir, c->name);
    snprintf(tr->ckpt, sizeof tr->ckpt, "%s/model.safetensors", tr->dir);
    snprintf(tr->log_path, sizeof tr->log_path, "%s/log.csv", tr->dir);
    if (!c->resume[0] && file_exists(tr->ckpt)) {
        snprintf(err, errlen,
                 "%s already holds a run; continue it with train.resume=%s, or remove the folder, "
                 "or pick another run.name",
                 tr->dir, tr->dir);
        return -1;
    }
    // Memory first: from the config alone before loading data, then with the data's shapes.
    if (memory_check_train(c, NULL, &tr->memory, err, errlen) ||
        task_load(&tr->task, c, err, errlen))
        return -1;
    Task *t = &tr->task;
    if (memory_check_train(c, t, &tr->memory, err, errlen)) return -1;
    arena_reserve(tensor_arena(), (size_t)tr->memory.activations);
    // The longest training sequence: recorded in the run's config as n_train of
    // model.attn_logit_scale (docs/design.md §2.4), so ./eval scales by the length trained on.
    int T = task_train_length(t);
    if (!c->attn_train_length) {
        char set[64];
        snprintf(set, sizeof set, "model.attn_train_length=%d", T);
        if (config_set(c, &pos_config_checks, set, err, errlen)) return -1;
    }
    model_build(&tr->model, c, t->src_vocab.n, t->has_tgt_vocab ? t->tgt_vocab.n : t->src_vocab.n,
                t->n_classes);
    // Refuse lengths the positional scheme cannot encode before any work (learned, no wrap).
    if (model_check_length(&tr->model, T, err, errlen)) return -1;
    adamw_init(&tr->opt, &tr->model.ps, c->beta1, c->beta2, c->eps, c->weight_decay);
    long train_n = t->cfg.task == TASK_LM ? (t->n_lm_train - 1) / (c->window + 1) : t->train.n;
    if (train_n < 1) { snprintf(err, errlen, "no training examples"); return -1; }
    if (sampler_init(&tr->sampler, (int)train_n, rng_stream((uint64_t)c->seed, RNG_DATA).state)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

// train.bucket: the length of each training pair, for batches of similar lengths.
static int *bucket_lengths(const Split *s) {
    int *len = malloc(sizeof(int) * (size_t)(s->n ? s->n : 1));
    for (int i = 0; len && i < s->n; i++)
        len[i] = s->ex[i].n_src > s->ex[i].n_tgt ? s->ex[i].n_src : s->ex[i].n_tgt;
    return len;
}

static void make_batch(Training *tr, Batch *b) {
    int B = tr->c->batch_size, *idx = malloc(sizeof(int) * (size_t)B);
    sampler_next(&tr->sampler, idx, B);
    if (tr->task.cfg.task == TASK_LM) {
        for (int i = 0; i < B; i++) idx[i] *= tr->c->window + 1;   // window i starts here
        batch_lm(tr->task.lm_train, tr->task.n_lm_train, idx, B, tr->c->window, b);
    } else {
        batch_from_split(&tr->task.train, idx, B, tr->task.batch_kind, tr->task.add_cls, b);
    }
    free(idx);
}

// A training row of log.csv: the step's loss, its token accuracy (classifier: over sentences),
// the learning rate and the gradient norm.
static void log_step(const Training *tr, long step, const Batch *b, const StepResult *s,
                     float lr) {
    LogRow row = {.step = step, .split = "train", .loss = log_cell(s->loss),
                  .token_acc = log_cell((double)s->correct / b->n_tgt_tokens), .lr = log_cell(lr),
                  .grad_norm = log_cell(s->grad_norm), .tokens = training_tokens(tr)};
    train_log_row(tr->log, &row, tr->log_tokens);
}

// The stop rules before the first step: a run with them needs a validation split; a resumed
// run replays them over its log, and one that its rules already stop (converged, out of
// patience, at train.steps) is finished: *finished = 1 after saying so, nothing is written.
static int stop_rules_start(Training *tr, long start, int *finished, char *err, int errlen) {
    Config *c = tr->c;
    tr->stop = stop_rules_init(c);
    int lm = tr->task.cfg.task == TASK_LM;
    if (tr->stop.on && !lm && tr->task.val.n == 0) {
        snprintf(err, errlen, "train.%s needs a validation split (task.val_src, task.val_tgt)",
                 c->until_compare != UNTIL_OFF ? "until" : "patience");
        return -1;
    }
    if (!c->resume[0] || !tr->stop.on) return 0;
    StopReason why;
    if (stop_replay_log(&tr->stop, c, tr->log_path, start, lm ? c->window : 0, &why, err,
                        errlen))
        return -1;
    if (why == STOP_NONE && start < c->steps) return 0;
    char what[160];
    stop_describe(&tr->stop, c, why == STOP_NONE ? STOP_CEILING : why, what, sizeof what);
    printf("run %s %s at step %ld (%s): nothing to do; %s\n", tr->dir,
           why == STOP_CONVERGED ? "converged" : "stopped", start, what,
           why == STOP_CONVERGED  ? "to train on, change train.until"
           : why == STOP_PATIENCE ? "to train on, raise train.patience or change train.until"
                                  : "to train on, raise train.steps");
    *finished = 1;
    return 0;
}

// The row that ends the log of a run with stop rules, and the line that says why.
static void log_stop(Training *tr, long step, StopReason why) {
    LogRow row = {.step = step, .split = stop_reason_names[why], .tokens = training_tokens(tr)};
    train_log_row(tr->log, &row, tr->log_tokens);
    char what[160];
    stop_describe(&tr->stop, tr->c, why, what, sizeof what);
    printf("stopped at step %ld: %s (%s)\n", step, stop_reason_names[why], what);
}

// What a run records (config.ini, the config in each checkpoint) is its config, not how this
// invocation started: a resumed run records the same text as an unbroken one.
static int record_config(Config *c, char *err, int errlen) {
    char resume[sizeof c->resume];
    memcpy(resume, c->resume, sizeof resume);
    c->resume[0] = '\0';
    char *text = config_to_ini(c);
    memcpy(c->resume, resume, sizeof resume);
    if (!text) snprintf(err, errlen, "out of memory");
    return text ? 0 : -1;
}

// Once everything is loaded: bucketed sampling (*lengths, freed by the caller), the run folder
// (made only now: a failed set-up leaves no empty folder) with config.ini, the vocabularies
// and the log's header, the log opened for appending, and the run's first lines on stdout.
static int open_run_folder(Training *tr, long start, int **lengths, char *err, int errlen) {
    Config *c = tr->c;
    if (c->bucket && tr->task.cfg.task != TASK_LM) {
        if (!(*lengths = bucket_lengths(&tr->task.train)))
            return errorf(err, errlen, "out of memory");
        sampler_set_buckets(&tr->sampler, *lengths, c->batch_size);
    }
    if (make_dirs(tr->dir, err, errlen)) return -1;
    memory_report(&tr->memory, c, stdout);
    train_remove_stale_temps(tr->dir);
    if (record_config(c, err, errlen)) return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/config.ini", tr->dir);
    if (write_file_atomic(path, c->text, strlen(c->text), err, errlen) ||
        task_save_vocabs(&tr->task, tr->dir, err, errlen) ||
        train_log_start(tr->log_path, start, c->resume[0] ? NULL : tr->init_note, tr->log_tokens,
                        err, errlen))
        return -1;
    if (!(tr->log = fopen(tr->log_path, "a")))
        return errorf(err, errlen, "%s: cannot append", tr->log_path);
    printf("run %s: %s, %s, pos = %s, %ld parameters, %d training examples, steps %ld..%d\n",
           tr->dir, config_enum_name(c, &c->model), config_enum_name(c, &c->task), c->pos,
           tr->model.ps.total, tr->sampler.n, start + 1, c->steps);
    if (tr->init_note[0])
        printf("weights: %s", tr->init_note + 2);   // "init_from = PATH (step N)"
    if (tr->task.cfg.task != TASK_LM && tr->task.val.n == 0)
        printf("no validation split (task.val_src / val_tgt unset): no val rows are logged\n");
    fflush(stdout);
    return 0;
}

// What follows a step: the evaluation when due (its rows may stop the run: *why), the
// checkpoint when due or stopping, the log's guard and a stop signal's. 0, or as the guards.
static int after_step(Training *tr, Arena *arena, long step, StopReason *why, char *err,
                      int errlen) {
    const Config *c = tr->c;
    int rc = 0, last = step == c->steps;
    if (step % c->eval_every == 0 || last) {
        // the step's tensors are done with: evaluation reuses their memory
        arena_reset(arena);
        LogRow watched;
        rc = train_evaluate(tr, step, last, &watched, err, errlen);
        if (!rc && watched.step >= 0)
            rc = stop_observe(&tr->stop, c, &watched, why, err, errlen);
    }
    if (!rc && !*why && last && tr->stop.on) *why = STOP_CEILING;
    if (!rc && *why) log_stop(tr, step, *why);
    if (!rc && (step % c->ckpt_every == 0 || last || *why))
        rc = train_checkpoint_save(tr, step, err, errlen);
    if (!rc) rc = guard_log_written(tr, step, err, errlen);
    if (!rc && !last && !*why) rc = guard_stop_signal(tr, step, err, errlen);
    return rc;
}

// The row of compute.csv for the steps start+1 .. step that ran; rc is the loop's (0, or the
// number of the signal that stopped it), and stays unless the row cannot be written.
static int append_compute(Training *tr, int rc, StopReason why, long start, long step,
                          double tokens, double t0, char *err, int errlen) {
    char msg[256];
    const char *stop = rc ? "signal" : why ? stop_reason_names[why] : "ceiling";
    if (train_compute_append(tr->dir, start + 1, step, stop, tokens, process_cpu_seconds(),
                             wall_seconds() - t0, msg, sizeof msg) && !rc)
        return errorf(err, errlen, "%s", msg);
    return rc;
}

int train_run(Config *c, char *err, int errlen) {
    Training tr;
    memset(&tr, 0, sizeof tr);
    tr.c = c;
    tr.tokens_known = 1;   // counted from step 0, unless a resume says otherwise
    runtime_set_threads(c->threads);
    Arena arena;
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    arena_on_failure(&arena, guard_out_of_memory, &tr);
    long start = 0;
    int rc = setup(&tr, err, errlen);
    if (!rc) rc = micro_batches_init(&tr.micro, &tr.model, c->micro_batches, err, errlen);
    if (!rc && c->resume[0]) rc = train_resume(&tr, &start, err, errlen);
    else if (!rc && c->init_from[0]) rc = train_init_from(&tr, err, errlen);
    int finished = 0;
    if (!rc) rc = stop_rules_start(&tr, start, &finished, err, errlen);
    // the tokens column: a run with stop rules, or one whose log has it already
    tr.log_tokens = tr.stop.on || (c->resume[0] && train_log_has_tokens(tr.log_path));
    if (finished) goto done;
    int *lengths = NULL;
    if (!rc) rc = open_run_folder(&tr, start, &lengths, err, errlen);
    double t0 = wall_seconds(), tokens = 0;
    long step = start;
    StopReason why = STOP_NONE;
    while (!rc && !why && step < c->steps) {
        step++;
        crash_point("step");       // tests: TF_CRASH_AT=step:N kills,
                                   // TF_PAUSE_AT=step:N stops the process here
        runtime_adapt_threads();   // run.threads = 0: as many as other processes leave free
        tr.step = step;
        Batch b;
        make_batch(&tr, &b);
        float lr = lr_at(c->schedule, step - 1, c->steps, c->lr, c->warmup, c->min_lr_ratio);
        StepArgs args = {.step = step, .lr = lr, .clip = c->clip,
                         .label_smoothing = c->label_smoothing, .micro = &tr.micro};
        StepResult s;
        if (train_step(&tr.model, &b, &tr.opt, args, &s)) {
            rc = guard_not_finite(&tr, step, &s, err, errlen);
            batch_free(&b);
            break;
        }
        long n_tok = b.n_tgt_tokens;
        for (long i = 0; b.src && i < (long)b.B * b.T_src; i++) n_tok += b.src[i] != TOK_PAD;
        tokens += n_tok;
        tr.tokens += n_tok;
        // Rows depend on the step alone, so a resumed run writes the same rows as an unbroken one.
        if (step % c->log_every == 0 || step == 1 || step == c->steps)
            log_step(&tr, step, &b, &s, lr);
        double elapsed = wall_seconds() - t0;
        progress(step, c->steps, s.loss, tokens / elapsed,
                 elapsed / (step - start) * (c->steps - step));
        batch_free(&b);
        rc = after_step(&tr, &arena, step, &why, err, errlen);
        fflush(stdout);
    }
    if (rc >= 0 && tr.log)   // finished, or stopped by a signal (rc = its number)
        rc = append_compute(&tr, rc, why, start, step, tokens, t0, err, errlen);
    if (!rc)
        printf("done: %s in %.1f s (%.0f tokens/s)\n", tr.ckpt, wall_seconds() - t0,
               tokens / (wall_seconds() - t0));
    if (tr.log) fclose(tr.log);
    free(lengths);
done:
    sampler_free(&tr.sampler);
    adamw_free(&tr.opt);
    micro_batches_free(&tr.micro);
    model_free(&tr.model);
    task_free(&tr.task);
    arena_free(&arena);
    return rc;
}
