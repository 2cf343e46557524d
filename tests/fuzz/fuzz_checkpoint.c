// libFuzzer target for a checkpoint as train.resume and ./eval read it (checkpoint_load and
// checkpoint_read_config in src/run/checkpoint.c): the weights, the AdamW moments, the step,
// the dropout and sampler state in the metadata, and the stored config.
// The model is the one of tests/fuzz/checkpoint.ini (run from the repository's root), whose
// ./train checkpoints are the seeds. Any bytes must load or give a message, never a crash, leak
// or undefined behaviour. Properties checked:
//   - every failure writes a message;
//   - a checkpoint that loads leaves finite weights and moments, a step, an AdamW step, a
//     sampler epoch and position and a token count that are not negative, and the sampler
//     state is restored or refused as train_resume does.
// Built and run by `make fuzz`.
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pos/pos.h"
#include "run/checkpoint.h"
#include "data/task.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static Config cfg;
static Task task;
static Model model;
static AdamW opt;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char err[1024];
    if (config_load(&cfg, &pos_config_checks, "tests/fuzz/checkpoint.ini", 0, NULL, err,
                    sizeof err) ||
        task_load(&task, &cfg, err, sizeof err)) {
        fprintf(stderr, "fuzz_checkpoint: %s (run it from the repository's root)\n", err);
        exit(1);
    }
    model_build(&model, &cfg, task.src_vocab.n,
                task.has_tgt_vocab ? task.tgt_vocab.n : task.src_vocab.n, task.n_classes);
    adamw_init(&opt, &model.ps, cfg.beta1, cfg.beta2, cfg.eps, cfg.weight_decay);
    return 0;
}

static void check_finite(const float *x, long n) {
    for (long i = 0; i < n; i++)
        if (!isfinite(x[i])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("model.safetensors", data, size);
    char err[1024] = "";
    Config stored;
    if (checkpoint_read_config(path, &stored, err, sizeof err)) {
        if (!err[0]) abort();   // every failure must say why
    } else {
        config_free(&stored);
    }
    err[0] = '\0';
    TrainState st;
    if (checkpoint_load(path, &model, &opt, &st, err, sizeof err)) {
        if (!err[0]) abort();
        return 0;
    }
    check_finite(model.ps.data, model.ps.total);
    check_finite(opt.m, opt.n);
    check_finite(opt.v, opt.n);
    if (st.step < 0 || opt.step < 0 || st.sampler.epoch < 0 || st.sampler.pos < 0 ||
        !(st.tokens >= 0)) {
        fprintf(stderr, "negative state: step %ld, adam step %ld, epoch %lld, pos %lld, "
                "tokens %g\n", st.step, opt.step, (long long)st.sampler.epoch,
                (long long)st.sampler.pos, st.tokens);
        abort();
    }
    Sampler s;
    if (sampler_restore(&s, task.train.n, st.sampler) == 0) {
        int batch[4];
        sampler_next(&s, batch, 4);
        for (int i = 0; i < 4; i++)
            if (batch[i] < 0 || batch[i] >= task.train.n) abort();
        sampler_free(&s);
    }
    return 0;
}
