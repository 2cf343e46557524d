// ./eval --dump-grads: see grad_dump.h.
#include "score/grad_dump.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tape.h"
#include "io/safetensors.h"
#include "models/loss.h"

// The data ./eval scores, as one batch.
static int dump_batch(const Model *m, const Task *t, const Config *c, Batch *b, char *err,
                      int errlen) {
    if (t->cfg.task == TASK_LM) {
        int T = c->window, windows = (t->n_lm_val - 1) / T;
        if (windows > 256) windows = 256;
        if (windows < 1) {
            snprintf(err, errlen, "window of %d tokens is longer than the evaluation text", T);
            return -1;
        }
        int *starts = malloc(sizeof(int) * (size_t)windows);
        if (!starts) { snprintf(err, errlen, "out of memory"); return -1; }
        for (int i = 0; i < windows; i++) starts[i] = i * T;
        int rc = batch_lm(t->lm_val, t->n_lm_val, starts, windows, T, b);
        free(starts);
        if (rc) snprintf(err, errlen, "out of memory making the batch");
        return rc;
    }
    const Split *s = &t->val;
    if (s->n < 1) {
        snprintf(err, errlen, "--dump-grads: the run has no validation split");
        return -1;
    }
    int *idx = malloc(sizeof(int) * (size_t)s->n);
    if (!idx) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int i = 0; i < s->n; i++) idx[i] = i;
    int rc = batch_from_split(s, idx, s->n, t->batch_kind, t->add_cls, b);
    free(idx);
    if (rc) snprintf(err, errlen, "out of memory making the batch");
    return rc;
}

static float *ids_as_floats(const int *ids, long n) {
    float *f = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (long i = 0; f && i < n; i++) f[i] = (float)ids[i];
    return f;
}

int grad_dump(Model *m, const Task *t, Config *c, const char *path, char *err, int errlen) {
    Batch b;
    if (dump_batch(m, t, c, &b, err, errlen)) return -1;
    int T = b.T_src > b.T_tgt ? b.T_src : b.T_tgt;
    if (model_check_length(m, T, err, errlen)) { batch_free(&b); return -1; }

    int was_recording = tape_enabled();
    model_set_training(m, 0);                     // dropout off: a deterministic step
    tape_set_enabled(1);
    tape_reset();
    params_zero_grad(&m->ps);
    Tensor *logits;
    Tensor *loss = batch_loss(m, &b, c->label_smoothing, &logits, NULL);
    tape_backward(loss);
    tape_reset();
    tape_set_enabled(was_recording);

    int n_params = m->ps.n, cap = n_params + 5, n = 0;
    StTensorIn *ts = calloc((size_t)cap, sizeof *ts);
    char **names = calloc((size_t)cap, sizeof *names);
    float *owned[4] = {0};
    int n_owned = 0, rc = 0;
    if (!ts || !names) { snprintf(err, errlen, "out of memory"); rc = -1; }
    struct { const char *name; const int *ids; int rows, cols; } parts[4] = {
        {"batch.src", b.src, b.B, b.T_src}, {"batch.tgt_in", b.tgt_in, b.B, b.T_tgt},
        {"batch.tgt_out", b.tgt_out, b.B, b.T_tgt}, {"batch.labels", b.labels, b.B, 0},
    };
    for (int k = 0; k < 4 && !rc; k++) {
        if (!parts[k].ids) continue;
        long count = (long)parts[k].rows * (parts[k].cols ? parts[k].cols : 1);
        float *f = owned[n_owned++] = ids_as_floats(parts[k].ids, count);
        if (!f) { snprintf(err, errlen, "out of memory"); rc = -1; break; }
        ts[n] = (StTensorIn){ .name = parts[k].name, .ndim = parts[k].cols ? 2 : 1,
                              .shape = {parts[k].rows, parts[k].cols}, .data = f };
        n++;
    }
    if (!rc) ts[n++] = (StTensorIn){ .name = "loss", .ndim = 1, .shape = {1}, .data = loss->data };
    for (int i = 0; i < n_params && !rc; i++) {
        const Param *p = m->ps.list[i];
        size_t len = strlen(p->name) + 6;
        if (!(names[i] = malloc(len))) { snprintf(err, errlen, "out of memory"); rc = -1; break; }
        snprintf(names[i], len, "grad.%s", p->name);
        ts[n] = (StTensorIn){ .name = names[i], .ndim = p->t.ndim, .data = p->t.grad };
        for (int d = 0; d < p->t.ndim; d++) ts[n].shape[d] = p->t.shape[d];
        n++;
    }
    if (!rc) {
        char smoothing[32];
        snprintf(smoothing, sizeof smoothing, "%.9g", c->label_smoothing);
        // config_to_ini keeps its text in the config: render a copy, free it here
        Config copy = *c;
        copy.text = NULL;
        char *config_text = config_to_ini(&copy);
        const char *keys[] = {"format", "config", "label_smoothing", "targets"};
        const char *vals[] = {
            "grad-dump-1", config_text, smoothing,
            "batch.tgt_out 0 = <pad> (ignored); loss = mean over the kept targets"};
        rc = config_text ? st_save(path, ts, n, keys, vals, 4, err, errlen)
                         : (snprintf(err, errlen, "out of memory"), -1);
        free(config_text);
    }
    for (int i = 0; i < n_params && names; i++) free(names[i]);
    for (int k = 0; k < n_owned; k++) free(owned[k]);
    free(names);
    free(ts);
    batch_free(&b);
    return rc;
}
