// The memory probe, see memory_probe.h.
#include "memory/memory_probe.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/kernels.h"
#include "core/tape.h"
#include "data/vocab.h"
#include "models/decode.h"
#include "models/loss.h"

#define MAX_BASIS 12

// The probe shapes in units (s, t), and the rows in units of b: 1 and 2.
static const int TWO[6][2] = {{1, 1}, {2, 1}, {3, 1}, {2, 2}, {3, 2}, {3, 3}};
static const int ONE[3] = {1, 2, 3};

static int two_lengths(const MemoryProbe *p, ProbeKind k) {
    return p->two_lengths || (k == PROBE_DECODE && p->m.cfg.model == MODEL_LM);
}

// The monomials at (rows, s, t) in units: [1 s t s² st t²] (or [1 t t²]) times [1 rows].
static int basis(int two, double rows, double s, double t, double *phi) {
    double one[6] = {1, s, t, s * s, s * t, t * t}, only[3] = {1, t, t * t};
    const double *m = two ? one : only;
    int n = two ? 6 : 3;
    for (int i = 0; i < n; i++) {
        phi[i] = m[i];
        phi[n + i] = m[i] * rows;
    }
    return 2 * n;
}

// Inverts the n x n matrix a in place (Gauss-Jordan, partial pivoting). -1 if singular.
static int invert(double *a, int n) {
    double inv[MAX_BASIS * MAX_BASIS] = {0};
    for (int i = 0; i < n; i++) inv[i * n + i] = 1;
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
        if (fabs(a[piv * n + c]) < 1e-12) return -1;
        for (int j = 0; j < n; j++) {
            double t = a[c * n + j]; a[c * n + j] = a[piv * n + j]; a[piv * n + j] = t;
            t = inv[c * n + j]; inv[c * n + j] = inv[piv * n + j]; inv[piv * n + j] = t;
        }
        double d = a[c * n + c];
        for (int j = 0; j < n; j++) a[c * n + j] /= d, inv[c * n + j] /= d;
        for (int r = 0; r < n; r++) {
            if (r == c || a[r * n + c] == 0) continue;
            double f = a[r * n + c];
            for (int j = 0; j < n; j++) {
                a[r * n + j] -= f * a[c * n + j];
                inv[r * n + j] -= f * inv[c * n + j];
            }
        }
    }
    memcpy(a, inv, sizeof(double) * (size_t)n * n);
    return 0;
}

// ------------------------------------------------------------------------- one probe run

// Token ids of a probe batch: real tokens, whatever the vocabulary.
static void fill(int *ids, long n, int V) {
    int first = TOK_EOS + 1, kinds = V - first;
    for (long i = 0; i < n; i++) ids[i] = kinds > 0 ? first + (int)(i % kinds) : TOK_EOS;
}

// Runs one pass of kind k at (B, S, T) tokens with a recording into tr.
static void run_pass(MemoryProbe *p, ProbeKind k, int B, int S, int T, Arena *a, ArenaTrace *tr) {
    Model *m = &p->m;
    int model = m->cfg.model, lm = model == MODEL_LM;
    int *src = calloc((size_t)B * S + (size_t)B * T + 1, sizeof(int));
    int *tgt = calloc((size_t)B * T * 2 + 1, sizeof(int)), *labels = calloc((size_t)B, sizeof(int));
    if (!src || !tgt || !labels) { tr->failed = 1; goto done; }
    arena_reset(a);
    a->trace = tr;
    if (k == PROBE_DECODE) {
        DecodeState s;
        int steps = lm ? S - T : T - 1;   // untraced steps before the one that counts
        fill(src, (long)B * (S + T), m->tgt_vocab);
        if (decode_init(&s, m, lm ? NULL : src, B, lm ? 0 : S, lm ? S : T)) {
            tr->failed = 1;
            goto done;
        }
        a->trace = NULL;
        fill(tgt, (long)B * T, m->tgt_vocab);
        if (steps > 0) decode_feed(&s, lm ? src : tgt, steps);   // the positions before, at once
        a->trace = tr;
        decode_feed(&s, lm ? src : tgt, lm ? T : 1);
        a->trace = NULL;
        decode_free(&s);
    } else {
        Batch b = {B, 0, 0, NULL, NULL, NULL, NULL, 0};
        int train = k == PROBE_TRAIN;
        if (model == MODEL_CLASSIFIER) {
            b.T_src = T, b.src = src, b.labels = labels;
            fill(src, (long)B * T, m->src_vocab);
            b.n_tgt_tokens = B;
        } else {
            b.T_src = lm ? 0 : S, b.src = lm ? NULL : src;
            b.T_tgt = T, b.tgt_in = tgt, b.tgt_out = tgt + (long)B * T;
            fill(src, (long)B * S, m->src_vocab);
            fill(tgt, 2L * B * T, lm ? m->src_vocab : m->tgt_vocab);
            b.n_tgt_tokens = B * T;
        }
        // Batches of sequences are padded (a text stream's windows never are), as here with
        // one token: the stack's layers then run padded, and the loss's head on the token rows
        // (models/transformer.c); a batch with more padding packs its layers and takes less.
        if (m->cfg.task != TASK_LM) {
            if (b.T_src) src[(long)B * b.T_src - 1] = TOK_PAD;
            if (b.tgt_in) b.tgt_in[(long)B * T - 1] = b.tgt_out[(long)B * T - 1] = TOK_PAD;
        }
        model_set_training(m, train);
        tape_set_enabled(train);
        tape_reset();
        Tensor *loss = batch_loss(m, &b, train ? m->cfg.label_smoothing : 0, NULL, NULL);
        if (train) tape_backward(loss);
        tape_reset();
    }
    a->trace = NULL;
done:
    a->trace = NULL;
    free(src);
    free(tgt);
    free(labels);
}

// Replays events at shape phi: the peak of the bytes in use.
static double replay(const ProbeFit *f, int nb, const double *phi) {
    double *level = malloc(sizeof(double) * (size_t)(f->n + 1)), peak = 0;
    if (!level) return -1;
    long depth = 0;
    level[0] = 0;
    for (long e = 0; e < f->n; e++) {
        const double *c = f->coef + e * (nb + 1);
        if (c[0] < 0) {   // a release to depth -c[0] - 1
            depth = (long)(-c[0] - 1);
            continue;
        }
        double bytes = 0;
        for (int i = 0; i < nb; i++) bytes += c[1 + i] * phi[i];
        const long *mn = f->pack + 2 * e;
        if (mn[0])   // a packed A: bytes holds its K
            bytes = sizeof(float) * (double)gemm_a_pack_floats(mn[0], mn[1], lround(bytes), 1);
        bytes = arena_alloc_bytes(round(bytes));
        level[depth + 1] = level[depth] + bytes;
        depth++;
        if (level[depth] > peak) peak = level[depth];
    }
    free(level);
    return peak;
}

// A recording as events: +bytes for an allocation, -(depth + 1) for a release, where depth
// is the number of allocations still held after it.
static long to_depths(ArenaTrace *tr) {
    double *raw = malloc(sizeof(double) * (size_t)(tr->n + 1));
    if (!raw) return -1;
    long depth = 0;
    raw[0] = 0;
    for (long e = 0; e < tr->n; e++) {
        double v = tr->ev[e].bytes;
        if (v > 0) {
            raw[depth + 1] = raw[depth] + v;
            depth++;
            continue;
        }
        double to = -v - 1;
        while (depth > 0 && raw[depth] > to) depth--;
        tr->ev[e].bytes = -(double)depth - 1;
    }
    free(raw);
    return 0;
}

static void probe_kind(MemoryProbe *p, ProbeKind k) {
    ProbeFit *f = &p->fit[k];
    int two = two_lengths(p, k), npts = two ? 12 : 6, u = p->unit;
    double A[MAX_BASIS * MAX_BASIS], peaks[MAX_BASIS];
    ArenaTrace tr[MAX_BASIS];
    memset(tr, 0, sizeof tr);
    Arena arena, *prev = tensor_arena();
    arena_init(&arena, 0);
    tensor_set_arena(&arena);
    int was_training = p->m.training, was_recording = tape_enabled();
    for (int i = 0; i < npts; i++) {
        int r = i < npts / 2 ? 1 : 2, j = i % (npts / 2);
        double s = two ? TWO[j][0] : 0, t = two ? TWO[j][1] : ONE[j];
        basis(two, r, s, t, A + i * npts);
        arena.used_peak = 0;
        run_pass(p, k, r * p->rows, (int)s * u, (int)t * u, &arena, &tr[i]);
        peaks[i] = (double)arena.used_peak;
        if (!tr[i].failed) to_depths(&tr[i]);
    }
    model_set_training(&p->m, was_training);
    tape_set_enabled(was_recording);
    tensor_set_arena(prev);
    arena_free(&arena);
    f->ready = 1;
    if (invert(A, npts)) { f->exact = 0; memset(f->peak_coef, 0, sizeof f->peak_coef); goto done; }
    // Every shape allocated alike: the same events, the same releases.
    f->exact = 1;
    for (int i = 0; i < npts && f->exact; i++) {
        f->exact = !tr[i].failed && tr[i].n == tr[0].n;
        for (long e = 0; f->exact && e < tr[0].n; e++) {
            const ArenaEvent *a = &tr[i].ev[e], *b = &tr[0].ev[e];
            f->exact = (a->bytes > 0) == (b->bytes > 0) && (b->bytes > 0 || a->bytes == b->bytes) &&
                       a->pack[0] == b->pack[0] && a->pack[1] == b->pack[1];
        }
    }
    for (int b = 0; b < npts; b++) {
        f->peak_coef[b] = 0;
        for (int i = 0; i < npts; i++) f->peak_coef[b] += A[b * npts + i] * peaks[i];
    }
    if (!f->exact) goto done;
    f->n = tr[0].n;
    f->coef = malloc(sizeof(double) * (size_t)(f->n + 1) * (npts + 1));
    f->pack = calloc((size_t)(f->n + 1) * 2, sizeof(long));
    if (!f->coef || !f->pack) { f->exact = 0; goto done; }
    for (long e = 0; e < f->n; e++) {
        double *c = f->coef + e * (npts + 1);
        const ArenaEvent *ev0 = &tr[0].ev[e];
        c[0] = ev0->bytes > 0 ? 1 : ev0->bytes;
        f->pack[2 * e] = ev0->pack[0], f->pack[2 * e + 1] = ev0->pack[1];
        for (int b = 0; b < npts; b++) {
            c[1 + b] = 0;
            if (ev0->bytes <= 0) continue;
            for (int i = 0; i < npts; i++) {   // a packed A: its K (the rows of the product)
                const ArenaEvent *ev = &tr[i].ev[e];
                c[1 + b] += A[b * npts + i] * (ev->pack[0] ? (double)ev->pack[2] : ev->bytes);
            }
        }
    }
done:
    for (int i = 0; i < npts; i++) free(tr[i].ev);
}

// ------------------------------------------------------------------------- the interface

int memory_probe_init(MemoryProbe *p, const Config *c, int src_vocab, int tgt_vocab,
                      int n_classes) {
    memset(p, 0, sizeof *p);
    model_build(&p->m, c, src_vocab, tgt_vocab, n_classes);
    p->two_lengths = model_is_seq2seq(c->model);
    char err[256];
    for (int u = 16; u >= 1; u /= 2) {
        int ok = 1;
        for (int train = 0; train < 2 && ok; train++) {
            model_set_training(&p->m, train);
            ok = !model_check_length(&p->m, 3 * u, err, sizeof err);
        }
        model_set_training(&p->m, 1);
        if (ok) {
            p->unit = u;
            p->rows = 16 / u;
            return 0;
        }
    }
    memory_probe_free(p);
    return -1;
}

double memory_probe_arena(MemoryProbe *p, ProbeKind kind, double B, double S, double T) {
    ProbeFit *f = &p->fit[kind];
    if (!f->ready) probe_kind(p, kind);
    double phi[MAX_BASIS];
    int two = two_lengths(p, kind);
    int nb = basis(two, B / p->rows, S / p->unit, T / p->unit, phi);
    double peak = -1;
    if (f->exact) peak = replay(f, nb, phi);
    if (peak < 0) {   // the shapes allocated differently: the peaks themselves, fitted
        peak = 0;
        for (int i = 0; i < nb; i++) peak += f->peak_coef[i] * phi[i];
    }
    return peak;
}

void memory_probe_free(MemoryProbe *p) {
    for (int k = 0; k < PROBE_KINDS; k++) {
        free(p->fit[k].coef);
        free(p->fit[k].pack);
    }
    model_free(&p->m);
    memset(p, 0, sizeof *p);
}
