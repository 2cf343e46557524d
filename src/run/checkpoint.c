#include "run/checkpoint.h"
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/safetensors.h"
#include "pos/pos.h"

static void u64_text(char *buf, size_t n, uint64_t v) { snprintf(buf, n, "%" PRIu64, v); }

int checkpoint_save(const char *path, const Model *m, const char *config_text, const AdamW *opt,
                    const TrainState *st, char *err, int errlen) {
    int n = m->ps.n, total = n + (opt ? 2 : 0);
    StTensorIn *t = calloc((size_t)total, sizeof *t);
    for (int i = 0; i < n; i++) {
        const Param *p = m->ps.list[i];
        t[i].name = p->name;
        t[i].ndim = p->t.ndim;
        for (int d = 0; d < p->t.ndim; d++) t[i].shape[d] = p->t.shape[d];
        t[i].data = p->t.data;
    }
    if (opt) {
        t[n] = (StTensorIn){ .name = "optimizer.exp_avg", .ndim = 1, .shape = {opt->n},
                             .data = opt->m };
        t[n + 1] = (StTensorIn){ .name = "optimizer.exp_avg_sq", .ndim = 1, .shape = {opt->n},
                                 .data = opt->v };
    }
    char step[32], adam_step[32], rng[32], s_seed[32], s_epoch[32], s_pos[32];
    u64_text(step, sizeof step, st ? (uint64_t)st->step : 0);
    u64_text(adam_step, sizeof adam_step, opt ? (uint64_t)opt->step : 0);
    u64_text(rng, sizeof rng, m->dropout_rng.state);
    u64_text(s_seed, sizeof s_seed, st ? st->sampler.seed : 0);
    u64_text(s_epoch, sizeof s_epoch, st ? (uint64_t)st->sampler.epoch : 0);
    u64_text(s_pos, sizeof s_pos, st ? (uint64_t)st->sampler.pos : 0);
    char tokens[32];
    u64_text(tokens, sizeof tokens, st && st->tokens_known ? (uint64_t)st->tokens : 0);
    const char *keys[] = {"format_version", "config", "step", "adam_step", "dropout_rng",
                          "sampler_seed", "sampler_epoch", "sampler_pos", "tokens"};
    const char *vals[] = {CHECKPOINT_FORMAT, config_text, step, adam_step, rng, s_seed, s_epoch,
                          s_pos, tokens};
    int rc = st_save(path, t, total, keys, vals, st && st->tokens_known ? 9 : 8, err, errlen);
    free(t);
    return rc;
}

static StFile *open_checked(const char *path, char *err, int errlen) {
    StFile *f = st_load(path, err, errlen);
    if (!f) return NULL;
    const char *v = st_meta(f, "format_version");
    if (!v || strcmp(v, CHECKPOINT_FORMAT)) {
        if (v)
            snprintf(err, errlen, "%s: unsupported format_version '%.40s' (expected %s)", path, v,
                     CHECKPOINT_FORMAT);
        else
            snprintf(err, errlen,
                     "%s: not a checkpoint of this project: no format_version in the metadata",
                     path);
        st_free(f);
        return NULL;
    }
    if (!st_meta(f, "config")) {
        snprintf(err, errlen, "%s: metadata has no config", path);
        st_free(f);
        return NULL;
    }
    return f;
}

int checkpoint_read_config(const char *path, Config *c, char *err, int errlen) {
    StFile *f = open_checked(path, err, errlen);
    if (!f) return -1;
    char name[600];
    snprintf(name, sizeof name, "%s (config)", path);
    int rc = config_load_text(c, &pos_config_checks, name, st_meta(f, "config"), err, errlen);
    if (!rc) rc = config_validate(c, &pos_config_checks, err, errlen);
    st_free(f);
    return rc;
}

// A metadata value: decimal digits only, at most max (the type it is stored in). strtoull
// alone took " -1" or "+5" and wrapped past 2^64 - 1, and a step above LONG_MAX turned
// negative once stored, so a damaged checkpoint resumed at a negative step.
static int meta_u64(const StFile *f, const char *path, const char *key, uint64_t max,
                    uint64_t *out, char *err, int errlen) {
    const char *v = st_meta(f, key);
    if (!v || !*v) { snprintf(err, errlen, "%s: metadata has no %s", path, key); return -1; }
    uint64_t x = 0;
    for (const char *c = v; *c; c++) {
        if (*c < '0' || *c > '9') {
            snprintf(err, errlen, "%s: metadata %s = '%.40s' is not a number", path, key, v);
            return -1;
        }
        unsigned d = (unsigned)(*c - '0');
        if (x > (max - d) / 10) {
            snprintf(err, errlen, "%s: metadata %s = '%.40s' is out of range (at most %" PRIu64
                     ")", path, key, v, max);
            return -1;
        }
        x = 10 * x + d;
    }
    *out = x;
    return 0;
}

static int shape_matches(const StTensor *s, const Tensor *t) {
    if (s->ndim != t->ndim) return 0;
    for (int d = 0; d < t->ndim; d++)
        if (s->shape[d] != t->shape[d]) return 0;
    return 1;
}

// A NaN or Inf in a checkpoint is damage (a good run never saves one): refuse it by name.
static int check_finite(const char *path, const char *name, const float *x, long long n, char *err,
                        int errlen) {
    for (long long i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            snprintf(err, errlen,
                     "%s: tensor '%s' holds %g at element %lld; the checkpoint is damaged", path,
                     name, (double)x[i], i);
            return -1;
        }
    return 0;
}

static int is_optimizer_tensor(const char *name) {
    return !strcmp(name, "optimizer.exp_avg") || !strcmp(name, "optimizer.exp_avg_sq");
}

static void shape_text(char *buf, size_t n, int ndim, const long long *shape) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < ndim && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, d ? ", %lld" : "%lld", shape[d]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

// Why a tensor the model and the file disagree on may be missing: the block options name
// tensors differently (docs/design.md §3.2), so a file of another block is named, not guessed at.
static const char *mismatch_hint(const char *name) {
    size_t n = strlen(name);
    int is_bias = n > 5 && !strcmp(name + n - 5, ".bias");
    if (is_bias && strstr(name, "norm"))
        return "does the checkpoint match the config? model.norm = rmsnorm has no norm biases";
    if (is_bias)
        return "does the checkpoint match the config? model.bias = false has no Linear biases";
    if (strstr(name, ".ffn."))
        return "does the checkpoint match the config? model.activation = swiglu has ffn.gate_proj, "
               "up_proj, down_proj where relu and gelu have ffn.fc1, fc2";
    return "does the checkpoint match the config?";
}

int checkpoint_load(const char *path, Model *m, AdamW *opt, TrainState *st, char *err, int errlen) {
    StFile *f = open_checked(path, err, errlen);
    if (!f) return -1;
    int rc = 0, matched = 0;
    for (int i = 0; i < m->ps.n && !rc; i++) {
        Param *p = m->ps.list[i];
        const StTensor *s = st_find(f, p->name);
        if (!s) {
            snprintf(err, errlen, "%s: tensor '%s' is missing (%s)", path, p->name,
                     mismatch_hint(p->name));
            rc = -1;
            break;
        }
        if (!shape_matches(s, &p->t)) {
            char have[96], want[96];
            long long w[4];
            for (int d = 0; d < p->t.ndim; d++) w[d] = p->t.shape[d];
            shape_text(have, sizeof have, s->ndim, s->shape);
            shape_text(want, sizeof want, p->t.ndim, w);
            snprintf(err, errlen, "%s: tensor '%s' has shape %s, the model needs %s", path, p->name,
                     have, want);
            rc = -1;
            break;
        }
        if (check_finite(path, p->name, s->data, s->numel, err, errlen)) { rc = -1; break; }
        memcpy(p->t.data, s->data, sizeof(float) * (size_t)p->t.size);
        matched++;
    }
    for (int i = 0; i < st_count(f) && !rc; i++) {   // nothing unexpected either
        const char *name = st_get(f, i)->name;
        if (!is_optimizer_tensor(name) && !params_find(&m->ps, name)) {
            snprintf(err, errlen, "%s: unexpected tensor '%s' (%s)", path, name,
                     mismatch_hint(name));
            rc = -1;
        }
    }
    uint64_t v;
    if (!rc && !meta_u64(f, path, "dropout_rng", UINT64_MAX, &v, err, errlen))
        m->dropout_rng.state = v;
    else rc = -1;
    if (!rc && st) {
        uint64_t step, seed, epoch, pos;
        rc = meta_u64(f, path, "step", LONG_MAX, &step, err, errlen) ||
             meta_u64(f, path, "sampler_seed", UINT64_MAX, &seed, err, errlen) ||
             meta_u64(f, path, "sampler_epoch", INT64_MAX, &epoch, err, errlen) ||
             meta_u64(f, path, "sampler_pos", INT64_MAX, &pos, err, errlen) ? -1 : 0;
        if (!rc) {
            st->step = (long)step;
            st->sampler.seed = seed;
            st->sampler.epoch = (int64_t)epoch;
            st->sampler.pos = (int64_t)pos;
            uint64_t tokens = 0;
            st->tokens_known = st_meta(f, "tokens") != NULL;
            if (st->tokens_known)
                rc = meta_u64(f, path, "tokens", UINT64_MAX, &tokens, err, errlen);
            st->tokens = (double)tokens;
        }
    }
    if (!rc && opt) {
        const StTensor *em = st_find(f, "optimizer.exp_avg"),
                       *ev = st_find(f, "optimizer.exp_avg_sq");
        uint64_t adam_step;
        if (!em || !ev || em->numel != opt->n || ev->numel != opt->n) {
            snprintf(err, errlen,
                     "%s: optimizer state missing or of the wrong size "
                     "(a weights-only checkpoint cannot be resumed)",
                     path);
            rc = -1;
        } else if (check_finite(path, em->name, em->data, em->numel, err, errlen) ||
                   check_finite(path, ev->name, ev->data, ev->numel, err, errlen)) {
            rc = -1;
        } else if (!(rc = meta_u64(f, path, "adam_step", LONG_MAX, &adam_step, err, errlen))) {
            memcpy(opt->m, em->data, sizeof(float) * (size_t)opt->n);
            memcpy(opt->v, ev->data, sizeof(float) * (size_t)opt->n);
            opt->step = (long)adam_step;
        }
    }
    st_free(f);
    return rc;
}
