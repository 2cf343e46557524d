// Memory estimate, see memory_estimate.h. What a pass takes is not described here:
// memory/memory_probe.c runs the code that allocates and reads the arena's record.
#include "memory/memory_estimate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "data/dataset.h"
#include "data/vocab.h"
#include "memory/memory_limit.h"
#include "memory/memory_probe.h"

// Measured: the resident memory of a tool before its first allocation of any size (code,
// libc, libgomp and its thread stacks, malloc arenas), with a margin.
#define PROGRAM_BYTES (4.0 * (1 << 20))

// ------------------------------------------------------------------------- passes

static int tgt_vocab(const Config *c, MemoryVocab v) {
    return c->model == MODEL_LM ? v.src : v.tgt;
}

static int probe_open(MemoryProbe *p, const Config *c, MemoryVocab v) {
    return memory_probe_init(p, c, v.src, tgt_vocab(c, v), v.classes);
}

// A pass's step-arena peak, and with decoding the larger of that and the decoder's arena
// and key/value cache (the forward pass is released before decoding starts).
static double pass_bytes(MemoryProbe *p, const MemoryPass *s) {
    int one = !model_is_seq2seq(p->m.cfg.model);
    double T = p->m.cfg.model == MODEL_CLASSIFIER ? s->T_src : s->T_tgt;
    double bytes = memory_probe_arena(p, s->train ? PROBE_TRAIN : PROBE_EVAL, s->B,
                                      one ? 0 : s->T_src, T);
    if (s->decode_len > 0 && !one)
        bytes = fmax(bytes, memory_probe_arena(p, PROBE_DECODE, s->B, s->T_src, s->decode_len) +
                                kv_cache_bytes(&p->m.decoder, s->B, s->decode_len));
    // the decoder-only form: the prompt fed at once, then one token a step
    int cap = s->T_src + s->decode_len;
    if (s->T_src > 0 && s->decode_len > 0 && p->m.cfg.model == MODEL_LM)
        bytes = fmax(bytes, fmax(memory_probe_arena(p, PROBE_DECODE, s->B, s->T_src, s->T_src),
                                 memory_probe_arena(p, PROBE_DECODE, s->B, cap, 1)) +
                                kv_cache_bytes(&p->m.decoder, s->B, cap));
    return bytes;
}

double memory_pass_bytes(const Config *c, MemoryVocab v, const MemoryPass *s) {
    MemoryProbe p;
    if (probe_open(&p, c, v)) return 0;
    double bytes = pass_bytes(&p, s);
    memory_probe_free(&p);
    return bytes;
}

// ------------------------------------------------------------------------- parameters

double memory_param_count(const Config *c, MemoryVocab v) {
    Model m;
    model_declare(&m, c, v.src, tgt_vocab(c, v), v.classes);
    double n = (double)m.ps.total;
    model_free(&m);
    return n;
}

// ------------------------------------------------------------------------- data

static double file_size(const char *path) {
    struct stat st;
    return path[0] && stat(path, &st) == 0 ? (double)st.st_size : 0;
}

// Measured on Multi30k (3.9 MB of train + val text, 6000 BPE merges, a tiny model): a peak of
// 37.5 MiB, 21 MiB of it the data (token offsets, pieces, merge tables, vocabularies,
// splits): about 6 bytes per byte of text (without BPE less).
#define PARALLEL_BYTES_PER_FILE_BYTE 6.0
// An example of the generated tasks: struct, two token arrays and malloc's overhead.
#define EXAMPLE_BYTES(tokens) (96.0 + 8.0 * (tokens))

double memory_data_bytes(const Config *c) {
    if (c->task == TASK_LM) {
        double train = fmin((double)c->train_size * (c->window + 1), (double)LM_MAX_TRAIN_TOKENS);
        return 4 * (train + LM_VAL_TOKENS);
    }
    if (c->task == TASK_PARALLEL_TEXT) {
        const char *files[] = {c->train_src, c->train_tgt, c->val_src, c->val_tgt, c->test_src,
                               c->test_tgt};
        double bytes = 0;
        for (int i = 0; i < 6; i++) bytes += file_size(files[i]);
        return PARALLEL_BYTES_PER_FILE_BYTE * bytes;
    }
    double examples = (double)c->train_size + c->val_size + c->test_size;
    double tokens = c->task == TASK_ORDER ? 6 : fmin(c->max_tokens, 8.0 * c->max_clauses);
    return examples * EXAMPLE_BYTES(tokens);
}

// ------------------------------------------------------------------------- whole runs

static MemoryVocab vocab_of(const Task *t) {
    MemoryVocab v = {TOK_EOS + 1, TOK_EOS + 1, 2};   // before loading: the specials
    if (t) {
        v.src = t->src_vocab.n;
        v.tgt = t->has_tgt_vocab ? t->tgt_vocab.n : t->src_vocab.n;
        v.classes = t->n_classes;
    }
    return v;
}

// Longest batch of a split as batch_from_split pads it (see data/batch.c), and what its
// greedy decoding takes (score/evaluate.c): a translator's max_len, or the decoder-only
// form's prompt (<eos> input) and continuation.
static MemoryPass split_lengths(const Config *c, const Task *t, const Split *s) {
    int cls = t && t->add_cls, max_src = 0, max_tgt = 0;
    MemoryPass p = {0};
    if (t && s) split_max_lengths(s, &max_src, &max_tgt);
    // before loading: the bound
    else max_src = max_tgt = c->task == TASK_ORDER ? 6 : c->max_tokens;
    if (c->model == MODEL_CLASSIFIER) {
        p.T_src = (max_src > 0 ? max_src : 1) + cls, p.T_tgt = 1;
    } else if (c->model == MODEL_LM) {   // <eos> input <bos> output (BATCH_PROMPT)
        p.T_tgt = max_src + max_tgt + 2;
        p.T_src = max_src + 1, p.decode_len = max_tgt + 3;   // the prompt: <eos> input
    } else {
        p.T_src = max_src + 1, p.T_tgt = max_tgt + 1;
        p.decode_len = p.T_tgt + 2;
    }
    return p;
}

// One estimate in the making: the probe is built at the first pass it needs, unless the
// parameters alone are more than the limit (the probe would hold their weights and gradients).
typedef struct {
    MemoryEstimate *e;
    const Config *c;
    MemoryVocab v;
    MemoryProbe probe;
    int state;   // 0: not built yet, 1: built, -1: not built (activations not counted)
} Est;

static MemoryProbe *probe_of(Est *x) {
    if (!x->state) {
        char source[64];
        double limit = memory_limit(x->c, source, sizeof source);
        int room = limit < 0 || x->e->params + x->e->data + PROGRAM_BYTES <= limit;
        x->state = room && !probe_open(&x->probe, x->c, x->v) ? 1 : -1;
        x->e->partial = x->state < 0;
    }
    return x->state > 0 ? &x->probe : NULL;
}

static void note_bytes(Est *x, double bytes, const char *setting, const char *advice) {
    MemoryEstimate *e = x->e;
    if (bytes <= e->activations) return;
    e->activations = bytes;
    snprintf(e->setting, sizeof e->setting, "%s", setting);
    snprintf(e->advice, sizeof e->advice, "%s", advice);
}

static void note_pass(Est *x, const MemoryPass *p, const char *setting, const char *advice) {
    MemoryProbe *probe = probe_of(x);
    if (probe) note_bytes(x, pass_bytes(probe, p), setting, advice);
}

// Starts an estimate: the parameter term (bytes a parameter) and the data term.
static void start(Est *x, MemoryEstimate *e, const Config *c, MemoryVocab v, double per_param,
                  const char *label, double data) {
    memset(x, 0, sizeof *x);
    memset(e, 0, sizeof *e);
    x->e = e;
    x->c = c;
    x->v = v;
    e->params = per_param * memory_param_count(c, v);
    e->params_label = label;
    e->data = data;
}

// The data and program terms, the total, and the setting to name when the parameters or
// the data weigh most (note_pass named it when activations do).
static void finish(Est *x) {
    MemoryEstimate *e = x->e;
    const Config *c = x->c;
    if (x->state > 0) memory_probe_free(&x->probe);
    e->program = PROGRAM_BYTES;
    e->total = e->params + e->activations + e->data + e->program;
    if (e->params >= e->activations && e->params >= e->data) {
        snprintf(e->setting, sizeof e->setting, "model.d_model = %d, d_ff = %d, %d + %d layers",
                 c->d_model, c->d_ff, c->enc_layers, c->dec_layers);
        snprintf(e->advice, sizeof e->advice, "Make the model smaller (d_model, d_ff, layers)");
    } else if (e->data > e->activations && c->task == TASK_PARALLEL_TEXT) {
        snprintf(e->setting, sizeof e->setting, "task.train_src = %s", c->train_src);
        snprintf(e->advice, sizeof e->advice, "Use smaller data files");
    } else if (e->data > e->activations) {
        if (c->task == TASK_LM) {
            snprintf(e->setting, sizeof e->setting, "task.train_size = %d (window %d)",
                     c->train_size, c->window);
        } else {   // the largest of the generated splits (the first of equal ones)
            const char *key = "train_size";
            int size = c->train_size;
            if (c->val_size > size) key = "val_size", size = c->val_size;
            if (c->test_size > size) key = "test_size", size = c->test_size;
            snprintf(e->setting, sizeof e->setting, "task.%s = %d", key, size);
        }
        snprintf(e->advice, sizeof e->advice, "Lower it");
    }
}

// The evaluation passes of a split in batches of batch_size (evaluate_split), decoding too
// for a translator.
static void note_split_eval(Est *x, int n, MemoryPass p, const char *what) {
    const Config *c = x->c;
    if (n <= 0) return;
    p.B = n < c->batch_size ? n : c->batch_size;
    char setting[96];
    snprintf(setting, sizeof setting, "train.batch_size = %d (evaluating %s)", c->batch_size, what);
    note_pass(x, &p, setting, "Lower batch_size");
}

// evaluate_lm: windows of T tokens, about 64k tokens a batch, run through the stack about 4k
// tokens at a time (model_eval_chunk, as score/evaluate.c; drawn positions: the whole batch
// at once) beside the batch's logits and the loss's two floats a row.
static void note_lm_eval(Est *x, int T) {
    int bs = 65536 / T > 0 ? (65536 / T < 64 ? 65536 / T : 64) : 1;
    int windows = (LM_VAL_TOKENS - 1) / T < 256 ? (LM_VAL_TOKENS - 1) / T : 256;
    int B = bs < windows ? bs : windows;
    if (B < 1) return;   // longer than the text: evaluate_lm refuses it
    int chunk = x->c->pos_cfg.pos_random > 0 ? B : model_eval_chunk(T, B);
    MemoryPass p = {chunk, 0, T, 0, 0};
    MemoryProbe *probe = probe_of(x);
    if (!probe) return;
    double bytes = pass_bytes(probe, &p);
    if (chunk < B) bytes += sizeof(float) * (double)B * T * (tgt_vocab(x->c, x->v) + 2);
    char setting[96];
    snprintf(setting, sizeof setting, "an evaluation length of %d tokens", T);
    note_bytes(x, bytes, setting, "Lower the evaluation lengths");
}

// Evaluation at each length: lm lengths are windows; toy_translate lengths are clauses and
// algorithmic ones input lengths, and the test set of length k is generated here (a few
// hundred examples, fixed seed) to read its real lengths. Before the data is loaded there is
// no task to generate from: skipped.
static void note_length_evals(Est *x, const Task *t, const int *lengths, int n, int n_examples) {
    const Config *c = x->c;
    for (int i = 0; i < n; i++) {
        if (c->task == TASK_LM) { note_lm_eval(x, lengths[i]); continue; }
        Split s = {0};
        if (!t || (c->task != TASK_TOY_TRANSLATE && c->task != TASK_ALGORITHMIC) ||
            task_length_split((Task *)t, lengths[i], n_examples, &s, NULL, 0))
            continue;
        MemoryPass shape = split_lengths(c, t, &s);
        split_free(&s);
        char what[48];
        snprintf(what, sizeof what, c->task == TASK_TOY_TRANSLATE ? "%d clauses" : "length %d",
                 lengths[i]);
        note_split_eval(x, n_examples, shape, what);
    }
}

static void note_eval_splits(Est *x, const Task *t, int val, int test) {
    const Config *c = x->c;
    if (c->task == TASK_LM) { note_lm_eval(x, c->window); return; }
    const Split *splits[2] = {t ? &t->val : NULL, t ? &t->test : NULL};
    int sizes[2] = {val ? c->val_size : 0, test ? c->test_size : 0};
    for (int i = 0; i < 2; i++) {
        if (!sizes[i] || (t && splits[i]->n == 0)) continue;
        note_split_eval(x, t ? splits[i]->n : sizes[i], split_lengths(c, t, splits[i]),
                        i ? "the test split" : "the validation split");
    }
}

void memory_estimate_train(const Config *c, const Task *t, MemoryEstimate *e) {
    Est x;
    // Weights, gradients, two AdamW moments, the gradients of each micro-batch past the first;
    // saving builds the whole file (weights and moments) in one buffer; a resume reads the file
    // and decodes it (twice that). The micro-batches' arenas together hold about what the
    // whole batch's would.
    start(&x, e, c, vocab_of(t), 16 + 4 * (c->micro_batches - 1) + (c->resume[0] ? 24 : 12),
          "parameters and Adam", memory_data_bytes(c));
    MemoryPass shape = split_lengths(c, t, t ? &t->train : NULL);
    MemoryPass step = {c->batch_size, c->model == MODEL_LM ? 0 : shape.T_src,
                       c->task == TASK_LM ? c->window : shape.T_tgt, 1, 0};
    char setting[96];
    snprintf(setting, sizeof setting, "train.batch_size = %d", c->batch_size);
    note_pass(&x, &step, setting,
              c->task == TASK_LM ? "Lower batch_size or window" : "Lower batch_size");
    // The evaluations run on the same arena after the step is reset (trainer.c).
    note_eval_splits(&x, t, 1, 0);
    int lengths[64],
        n = c->eval_lengths[0] ? parse_lengths(c->eval_lengths, lengths, 64, NULL, 0) : 0;
    note_length_evals(&x, t, lengths, n > 0 ? n : 0, c->val_size);
    finish(&x);
}

void memory_estimate_eval(const Config *c, const Task *t, const int *lengths, int n_lengths,
                          MemoryEstimate *e) {
    Est x;
    // Weights (gradients are allocated but never touched), and the checkpoint read whole
    // then decoded into floats (weights and moments: 3 floats a parameter, twice).
    start(&x, e, c, vocab_of(t), 4 + 24, "parameters", memory_data_bytes(c));
    note_eval_splits(&x, t, strstr(c->splits, "val") != NULL, strstr(c->splits, "test") != NULL);
    note_length_evals(&x, t, lengths, n_lengths, c->test_size);
    finish(&x);
}

void memory_estimate_step(const Config *c, MemoryVocab v, const MemoryPass *p, MemoryEstimate *e) {
    Est x;
    start(&x, e, c, v, 16, "parameters and Adam", 0);
    char setting[96];
    snprintf(setting, sizeof setting, "a training step of B = %d, T = %d / %d", p->B, p->T_src,
             p->T_tgt);
    note_pass(&x, p, setting, "Pick smaller shapes");
    finish(&x);
}

// A decoder with a key/value cache (models/decode.c): its arena at the last step, and the cache.
static double decoding(MemoryProbe *p, int N, int S, int T, int capacity) {
    return memory_probe_arena(p, PROBE_DECODE, N, S, T) +
           kv_cache_bytes(&p->m.decoder, N, capacity);
}

void memory_estimate_translate(const Config *c, MemoryVocab v, int batch, int beam, int T_src,
                               MemoryEstimate *e) {
    Est x;
    // the lines to translate are read, not a task's data
    start(&x, e, c, v, 4 + 24, "parameters", 0);
    // models/decode.c: every hypothesis a row, caches of max_len = 2 T_src + 10 (translate.c)
    int N = batch * beam, max_len = 2 * T_src + 10;
    MemoryProbe *p = probe_of(&x);
    char setting[96];
    snprintf(setting, sizeof setting, "--batch %d --beam %d", batch, beam);
    if (p)
        note_bytes(&x, decoding(p, N, T_src, max_len, max_len), setting,
                   "Lower --batch or --beam");
    finish(&x);
}

void memory_estimate_generate(const Config *c, MemoryVocab v, int positions, int chunk,
                              MemoryEstimate *e) {
    Est x;
    start(&x, e, c, v, 4 + 24, "parameters", 0);
    // the cache of every position, allocated whole; passes of `chunk` tokens against it
    MemoryProbe *p = probe_of(&x);
    char setting[96];
    snprintf(setting, sizeof setting, "a key/value cache of %d positions", positions);
    if (p)
        note_bytes(&x, decoding(p, 1, positions, chunk, positions), setting,
                   "Ask for fewer --tokens or a shorter text");
    finish(&x);
}
