#include "train/train_resume.h"
#include <stdio.h>
#include <sys/stat.h>
#include "run/checkpoint.h"

// The checkpoint a resume or init_from value names: a checkpoint file, or a run folder
// holding one.
static void checkpoint_path(const char *value, char *out, size_t n) {
    struct stat s;
    if (stat(value, &s) == 0 && S_ISDIR(s.st_mode)) snprintf(out, n, "%s/model.safetensors", value);
    else snprintf(out, n, "%s", value);
}

int train_resume(Training *tr, long *start, char *err, int errlen) {
    char path[600];
    checkpoint_path(tr->c->resume, path, sizeof path);
    TrainState st;
    if (checkpoint_load(path, &tr->model, &tr->opt, &st, err, errlen)) return -1;
    int n = tr->sampler.n;
    sampler_free(&tr->sampler);
    if (sampler_restore(&tr->sampler, n, st.sampler)) {
        snprintf(err, errlen,
                 "%s: sampler state (epoch %lld, position %lld) does not fit this data "
                 "(%d training examples)",
                 path, (long long)st.sampler.epoch, (long long)st.sampler.pos, n);
        return -1;
    }
    if (st.step > tr->c->steps) {
        snprintf(err, errlen,
                 "%s is at step %ld, past steps = %d (raise train.steps to continue it)", path,
                 st.step, tr->c->steps);
        return -1;
    }
    snprintf(tr->last_good, sizeof tr->last_good, "%s", path);
    tr->last_good_step = st.step;
    tr->tokens = st.tokens;
    tr->tokens_known = st.tokens_known;
    *start = st.step;
    printf("resumed from %s at step %ld\n", path, st.step);
    return 0;
}

int train_init_from(Training *tr, char *err, int errlen) {
    char path[600], why[1024];
    checkpoint_path(tr->c->init_from, path, sizeof path);
    Rng own_dropout = tr->model.dropout_rng;
    TrainState source;
    if (checkpoint_load(path, &tr->model, NULL, &source, why, sizeof why)) {
        snprintf(err, errlen, "train.init_from = %s: %s", tr->c->init_from, why);
        return -1;
    }
    tr->model.dropout_rng = own_dropout;
    snprintf(tr->init_note, sizeof tr->init_note, "# init_from = %s (step %ld)\n", path,
             source.step);
    return 0;
}
