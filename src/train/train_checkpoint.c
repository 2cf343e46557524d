#include "train/train_checkpoint.h"
#include <dirent.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "io/fileio.h"
#include "run/checkpoint.h"

void train_last_good_text(const Training *tr, char *out, size_t n) {
    if (tr->last_good[0])
        snprintf(out, n, "the last good checkpoint is %s (step %ld)", tr->last_good,
                 tr->last_good_step);
    else snprintf(out, n, "there is no checkpoint yet");
}

static int check_finite_params(const Training *tr, long step, char *err, int errlen) {
    const Params *ps = &tr->model.ps;
    for (int i = 0; i < ps->n; i++) {
        const Param *p = ps->list[i];
        for (long j = 0; j < p->t.size; j++)
            if (!isfinite(p->t.data[j])) {
                char good[700];
                train_last_good_text(tr, good, sizeof good);
                snprintf(err, errlen,
                         "step %ld: parameter '%s' holds %g after the update; "
                         "stopped without saving, %s",
                         step, p->name, p->t.data[j], good);
                return -1;
            }
    }
    return 0;
}

int train_checkpoint_save(Training *tr, long step, char *err, int errlen) {
    if (check_finite_params(tr, step, err, errlen)) return -1;
    TrainState st = {step, sampler_state(&tr->sampler), .tokens_known = training_tokens(tr).present,
                     .tokens = tr->tokens};
    if (checkpoint_save(tr->ckpt, &tr->model, tr->c->text, &tr->opt, &st, err, errlen)) {
        char good[700];
        train_last_good_text(tr, good, sizeof good);
        size_t k = strlen(err);
        snprintf(err + k, errlen - k, "; the checkpoint of step %ld was not written, %s", step,
                 good);
        return -1;
    }
    snprintf(tr->last_good, sizeof tr->last_good, "%s", tr->ckpt);
    tr->last_good_step = step;
    return 0;
}

void train_remove_stale_temps(const char *dir) {
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
