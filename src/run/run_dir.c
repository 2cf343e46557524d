// Opening a saved run for inference, see run_dir.h.
#include "run/run_dir.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "core/runtime.h"
#include "core/tape.h"
#include "pos/pos.h"
#include "core/tensor.h"
#include "run/checkpoint.h"
#include "memory/memory_check.h"

enum { OPENED_ARENA = 1, OPENED_TASK = 2, OPENED_MODEL = 4 };

void run_locate(const char *arg, char *ckpt, char *dir, size_t n) {
    struct stat s;
    if (stat(arg, &s) == 0 && S_ISDIR(s.st_mode)) {
        snprintf(dir, n, "%s", arg);
        snprintf(ckpt, n, "%s/model.safetensors", arg);
    } else {
        snprintf(ckpt, n, "%s", arg);
        snprintf(dir, n, "%s", arg);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0'; else snprintf(dir, n, ".");
    }
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int run_read_config(Run *r, const char *arg, int allow_ini, int n_over, char **over, char *err,
                    int errlen) {
    memset(r, 0, sizeof *r);
    Config *c = &r->cfg;
    if (allow_ini && ends_with(arg, ".ini")) {
        if (config_load(c, &pos_config_checks, arg, n_over, over, err, errlen)) return -1;
    } else {
        run_locate(arg, r->ckpt, r->dir, sizeof r->ckpt);
        if (checkpoint_read_config(r->ckpt, c, err, errlen)) return -1;
        for (int i = 0; i < n_over; i++) {
            // the message names the override
            if (config_set(c, &pos_config_checks, over[i], err, errlen)) {
                config_free(c);
                return -1;
            }
        }
    }
    if (config_validate(c, &pos_config_checks, err, errlen) ||
        config_check_files(c, err, errlen)) {
        config_free(c);
        return -1;
    }
    return 0;
}

void run_inference_begin(Arena *arena, int threads) {
    runtime_set_threads(threads);
    arena_init(arena, 0);
    tensor_set_arena(arena);
    tape_set_enabled(0);
}

int run_open(Run *r, char *err, int errlen) {
    run_inference_begin(&r->arena, r->cfg.threads);
    r->opened = OPENED_ARENA;
    // Memory from the config alone first: an absurd test_size is refused before generating it.
    // A generated task's training split (drawn from its own seed, apart from the held-out
    // sets) is not read by inference: not made, unless the run predates
    // model.attn_train_length, which its training data tells (below).
    Config data = r->cfg;
    if (r->cfg.attn_train_length &&
        (r->cfg.task == TASK_TOY_TRANSLATE || r->cfg.task == TASK_ALGORITHMIC))
        data.train_size = 0;
    if (memory_check_eval(&r->cfg, NULL, r->lengths, r->n_lengths, &r->memory, err, errlen) ||
        task_load(&r->task, &data, err, errlen))
        return -1;
    r->opened |= OPENED_TASK;
    const Task *t = &r->task;
    if (memory_check_eval(&r->cfg, t, r->lengths, r->n_lengths, &r->memory, err, errlen))
        return -1;
    arena_reserve(&r->arena, (size_t)r->memory.activations);
    if (r->ckpt[0] && task_check_vocabs(t, r->dir, err, errlen)) return -1;
    // A run trained before model.attn_train_length was recorded: its training data, rebuilt, tells.
    if (!r->cfg.attn_train_length) r->cfg.attn_train_length = task_train_length(t);
    model_build(&r->model, &r->cfg, t->src_vocab.n,
                t->has_tgt_vocab ? t->tgt_vocab.n : t->src_vocab.n, t->n_classes);
    r->opened |= OPENED_MODEL;
    model_set_training(&r->model, 0);
    if (r->ckpt[0] && checkpoint_load(r->ckpt, &r->model, NULL, NULL, err, errlen)) return -1;
    memory_report(&r->memory, &r->cfg, stderr);
    return 0;
}

void run_close(Run *r) {
    if (r->opened & OPENED_MODEL) model_free(&r->model);
    if (r->opened & OPENED_TASK) task_free(&r->task);
    if (r->opened & OPENED_ARENA) arena_free(&r->arena);
    config_free(&r->cfg);
    memset(r, 0, sizeof *r);
}
