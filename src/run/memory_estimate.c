// Memory estimate and check, see memory_estimate.h. The pass arithmetic mirrors the forward
// code (models/model.c, models/transformer.c, nn/layers.c) op by op; keep them in step.
#include "run/memory_estimate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/byte_size.h"
#include "core/kernels.h"
#include "core/ops.h"     // ATTN_ROW_BLOCK
#include "core/errors.h"
#include "data/dataset.h"
#include "pos/pos.h"
#include <omp.h>

// Measured: the resident memory of a tool before its first allocation of any size (code,
// libc, libgomp and its thread stacks, malloc arenas), with a margin.
#define PROGRAM_BYTES (4.0 * (1 << 20))
#define LM_VAL_TOKENS 200000.0        // run/task.c
#define LM_MAX_TRAIN_TOKENS 268435456.0

// ------------------------------------------------------------------------- the step arena

static double aligned(double bytes) { return arena_alloc_bytes(bytes); }
static double tensor(double n, int grad) { return tensor_arena_bytes(n, grad); }
static double floats(double n) { return aligned(4 * n); }
static double ints(double n) { return aligned(4 * n); }

typedef struct {
    const Config *c;
    int g, drop, threads;   // gradients, dropout on, OpenMP threads
    int d, H, D;
} Shapes;

// A norm: its output and, for backward, mean and rstd per row (LayerNorm) or rstd (RMSNorm).
static double norm(const Shapes *s, double rows) {
    double saved = s->c->norm == NORM_RMSNORM ? rows : 2 * rows;
    return tensor(rows * s->d, s->g) + (s->g ? floats(saved) : 0);
}
static double dropout(const Shapes *s, double n) {
    return s->drop ? tensor(n, s->g) + (s->g ? aligned(n) : 0) : 0;
}

// op_attention: output, saved probabilities, per-thread scratch, and in backward the
// per-thread scratch of attention_backward. Pads saved when the batch has padding.
static double attention(const Shapes *s, double B, double Tq, double Tk, int padded) {
    double Tp = ceil(Tk / 16) * 16;
    double R = ATTN_ROW_BLOCK;   // query rows per block, each with rows of scratch
    double bytes =
        tensor(B * Tq * s->d, s->g) + floats(s->threads * ((double)s->D * Tp + 2 * R * Tp));
    if (s->g)
        bytes += floats(B * s->H * Tq * Tk) + 64 + (padded ? ints(B * Tk) + ints(B * Tq) : 0) +
                 floats(s->threads * ((double)s->D * Tp + 2.0 * s->D * Tk + 3 * R * Tp + R * s->D));
    return bytes;
}

// pos_rotate on q or k: positions, the cos/sin table, the rotated copy (op_rope), unless the
// scheme says what its rotation takes.
static double rope(const Shapes *s, double B, double T) {
    double own = pos_rotate_arena_bytes(s->c, B, T, s->g);
    return own >= 0 ? own : floats(T) + floats(T * s->D) + tensor(B * T * s->d, s->g);
}

// One residual sub-layer around f: (pre-LN) norm, f, the sum x + Drop(f) (op_add_dropout:
// only the mask besides the sum); post-LN norms the sum.
static double residual(const Shapes *s, double rows, double f) {
    double mask = s->drop && s->g ? aligned(rows * s->d) : 0;
    return norm(s, rows) + f + mask + tensor(rows * s->d, s->g);
}

// A stack of layers over (B,T); cross attends to memory of length Tm.
static double stack(const Shapes *s, double B, double T, int layers, int causal, int cross,
                    double Tm) {
    const Config *c = s->c;
    double N = B * T, d = s->d, f = c->d_ff, bytes = 0;
    int rotates = pos_config_rotates(c), padded = !(causal && !cross);   // the LM has no pad mask
    bytes += pos_bias_arena_bytes(c, T, s->g);   // the score bias (ALiBi, T5, ...), once per stack
    double self = 3 * tensor(N * d, s->g) + (rotates ? 2 * rope(s, B, T) : 0) +
                  attention(s, B, T, T, padded) + tensor(N * d, s->g);
    double cross_attn = tensor(N * d, s->g) + 2 * tensor(B * Tm * d, s->g) +
                        attention(s, B, T, Tm, 1) + tensor(N * d, s->g);
    // fc1 and the activation; swiglu: gate, up and their product. Then the output projection.
    double ffn =
        (c->activation == ACTIVATION_SWIGLU ? 3 : 2) * tensor(N * f, s->g) + tensor(N * d, s->g);
    bytes += layers * (residual(s, N, self) + (cross ? residual(s, N, cross_attn) : 0) +
                       residual(s, N, ffn));
    return bytes + norm(s, N);
}

// Embedding lookup, sqrt(d) scale, input positions, dropout (model.c embed).
static double embed(const Shapes *s, double B, double T) {
    const Config *c = s->c;
    double N = B * T, d = s->d;
    // lookup, its (B,T,d) view, saved ids
    double bytes = tensor(N * d, s->g) + 64 + (s->g ? ints(N) : 0);
    if (c->embed_scale) bytes += tensor(N * d, s->g);
    if (!strcmp(c->pos, "sinusoidal")) bytes += tensor(T * d, 0) + tensor(N * d, s->g);
    if (!strcmp(c->pos, "learned"))
        bytes += ints(T) + tensor(T * d, s->g) + (s->g ? ints(T) : 0) + tensor(N * d, s->g);
    return bytes + dropout(s, N * d);
}

// Logits, cross-entropy (log-sum-exp and loss per row, saved targets).
static double head(const Shapes *s, double rows, double V) {
    return 64 + tensor(rows * V, s->g) + tensor(1, s->g) + 2 * floats(rows) +
           (s->g ? ints(rows) : 0);
}

// kernels.c gemm packs its B operand (rounded up to its register tile's columns,
// gemm_packed_b_floats) in the arena for the length of one product, and its A operand when A is
// a transposed view (rounded up to GEMM_MR rows, in chunks of at most GEMM_A_PACK_MAX floats;
// row-major A is read in place but for one edge panel of GEMM_MR rows): on top of the pass at
// its peak, the largest such pair. Training peaks in backward, where dW = dY^T X packs dY^T
// (out x rows) and X (rows x in) for the two FFN matrices and the head; a forward pass peaks at
// its end, the head's product, which packs the head's weights (V x d).
static double gemm_scratch(const Shapes *s, double rows, double V) {
    double d = s->d, f = s->c->d_ff;
    if (!s->g) return floats(gemm_packed_b_floats(d, V)) + floats(GEMM_MR * d);
    // dW of (d, d_ff)
    double w2 = floats(gemm_packed_a_floats(d, rows)) + floats(gemm_packed_b_floats(rows, f));
    // dW of (d_ff, d)
    double w1 = floats(gemm_packed_a_floats(f, rows)) + floats(gemm_packed_b_floats(rows, d));
    // dW of the head
    double hd = floats(gemm_packed_a_floats(V, rows)) + floats(gemm_packed_b_floats(rows, d));
    return fmax(w2, fmax(w1, hd));
}

double memory_pass_bytes(const Config *c, MemoryVocab v, const MemoryPass *p) {
    Shapes s = {c, p->train, p->train && c->dropout > 0, omp_get_num_procs(), c->d_model,
                c->n_heads, c->d_model / c->n_heads};
    double B = p->B, Ts = p->T_src, Tt = p->T_tgt;
    if (c->model == MODEL_LM)
        return embed(&s, B, Tt) + stack(&s, B, Tt, c->dec_layers, 1, 0, 0) +
               head(&s, B * Tt, v.src) + gemm_scratch(&s, B * Tt, v.src);
    double enc = embed(&s, B, Ts) + ints(B * Ts) + stack(&s, B, Ts, c->enc_layers, 0, 0, 0);
    if (c->model == MODEL_CLASSIFIER)
        return enc + ints(B * Ts) + tensor(B * s.d, s.g) + (s.g ? ints(B * Ts) : 0) +
               head(&s, B, v.classes) + gemm_scratch(&s, B * Ts, v.classes);
    double dec = embed(&s, B, Tt) + 2 * ints(B * Tt) + stack(&s, B, Tt, c->dec_layers, 1, 1, Ts);
    double bytes = enc + dec + head(&s, B * Tt, v.tgt) + gemm_scratch(&s, B * fmax(Ts, Tt), v.tgt);
    if (p->decode_len > 0) {   // evaluate.c decode_rows, after the forward pass is released: the
        Shapes f = s;          // encoder again, then at most every row's decoder at full length
        f.g = f.drop = 0;
        double steps = p->decode_len;
        bytes = fmax(bytes,
                     embed(&f, B, Ts) + ints(B * Ts) + stack(&f, B, Ts, c->enc_layers, 0, 0, 0) +
                         ints(B) + ints(B * (steps + 1)) + ints(B * Ts) + tensor(B * Ts * s.d, 0) +
                         embed(&f, B, steps) + 2 * ints(B * steps) +
                         stack(&f, B, steps, c->dec_layers, 1, 1, Ts) + head(&f, B * steps, v.tgt));
    }
    return bytes;
}

// ------------------------------------------------------------------------- parameters

double memory_param_count(const Config *c, MemoryVocab v) {
    double d = c->d_model, f = c->d_ff, bias = c->bias ? 1 : 0;
    double attn = 4 * (d * d + bias * d), norm = c->norm == NORM_RMSNORM ? d : 2 * d;
    double ffn = c->activation == ACTIVATION_SWIGLU ? 3 * d * f + bias * (2 * f + d)
                                                    : 2 * d * f + bias * (f + d);
    // The positional parameters of one stack (an encoder's and a decoder's may differ).
    double enc = c->enc_layers * (attn + 2 * norm + ffn) + norm + pos_param_count(c, 1);
    if (c->model == MODEL_CLASSIFIER) return v.src * d + enc + (d + bias) * v.classes;
    double dec_pos = pos_param_count(c, 0);
    double dec_self = c->dec_layers * (attn + 2 * norm + ffn) + norm + dec_pos;
    double dec_cross = c->dec_layers * (2 * attn + 3 * norm + ffn) + norm + dec_pos;
    if (c->model == MODEL_LM) return v.src * d + dec_self + (d + bias) * v.src;
    return (v.src + v.tgt) * d + enc + dec_cross + (d + bias) * v.tgt;
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
        double train = fmin((double)c->train_size * (c->window + 1), LM_MAX_TRAIN_TOKENS);
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

// Longest batch of a split as batch_from_split pads it (see data/batch.c).
static void split_lengths(const Config *c, const Task *t, const Split *s, int *Ts, int *Tt) {
    int cls = t && t->add_cls, max_src = 0, max_tgt = 0;
    if (t && s) split_max_lengths(s, &max_src, &max_tgt);
    // before loading: the bound
    else max_src = max_tgt = c->task == TASK_ORDER ? 6 : c->max_tokens;
    if (c->model == MODEL_CLASSIFIER) *Ts = (max_src > 0 ? max_src : 1) + cls, *Tt = 1;
    // <eos> input <bos> output (BATCH_PROMPT)
    else if (c->model == MODEL_LM) *Ts = 0, *Tt = max_src + max_tgt + 2;
    else *Ts = max_src + 1, *Tt = max_tgt + 1;
}

static void note_pass(MemoryEstimate *e, double bytes, const char *setting, const char *advice) {
    if (bytes <= e->activations) return;
    e->activations = bytes;
    snprintf(e->setting, sizeof e->setting, "%s", setting);
    snprintf(e->advice, sizeof e->advice, "%s", advice);
}

// The data and program terms, the total, and the setting to name when the parameters or
// the data weigh most (note_pass named it when activations do).
static void finish(MemoryEstimate *e, const Config *c, double data) {
    e->data = data;
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
static void note_split_eval(MemoryEstimate *e, const Config *c, MemoryVocab v, int n, int Ts,
                            int Tt, const char *what) {
    if (n <= 0) return;
    MemoryPass p = {n < c->batch_size ? n : c->batch_size, Ts, Tt, 0,
                    c->model == MODEL_TRANSLATOR ? Tt + 2 : 0};
    char setting[96];
    snprintf(setting, sizeof setting, "train.batch_size = %d (evaluating %s)", c->batch_size, what);
    note_pass(e, memory_pass_bytes(c, v, &p), setting, "Lower batch_size");
}

// evaluate_lm: windows of T tokens, about 64k tokens a batch.
static void note_lm_eval(MemoryEstimate *e, const Config *c, MemoryVocab v, int T) {
    int bs = 65536 / T > 0 ? (65536 / T < 64 ? 65536 / T : 64) : 1;
    int windows = (int)((LM_VAL_TOKENS - 1) / T) < 256 ? (int)((LM_VAL_TOKENS - 1) / T) : 256;
    MemoryPass p = {bs < windows ? bs : windows, 0, T, 0, 0};
    if (p.B < 1) return;   // longer than the text: evaluate_lm refuses it
    char setting[96];
    snprintf(setting, sizeof setting, "an evaluation length of %d tokens", T);
    note_pass(e, memory_pass_bytes(c, v, &p), setting, "Lower the evaluation lengths");
}

// Evaluation at each length: lm lengths are windows; toy_translate lengths are clauses, and
// the test set of k clauses is generated here (a few hundred sentences, fixed seed) to read
// its real lengths. Before the data is loaded there is no lexicon to generate from: skipped.
static void note_length_evals(MemoryEstimate *e, const Config *c, const Task *t, const int *lengths,
                              int n, int n_examples) {
    MemoryVocab v = vocab_of(t);
    for (int i = 0; i < n; i++) {
        if (c->task == TASK_LM) { note_lm_eval(e, c, v, lengths[i]); continue; }
        Split s = {0};
        if (!t || c->task != TASK_TOY_TRANSLATE ||
            task_length_split((Task *)t, lengths[i], n_examples, &s, NULL, 0))
            continue;
        int Ts, Tt;
        split_lengths(c, t, &s, &Ts, &Tt);
        split_free(&s);
        char what[48];
        snprintf(what, sizeof what, "%d clauses", lengths[i]);
        note_split_eval(e, c, v, n_examples, Ts, Tt, what);
    }
}

static void note_eval_splits(MemoryEstimate *e, const Config *c, const Task *t, int val, int test) {
    MemoryVocab v = vocab_of(t);
    if (c->task == TASK_LM) { note_lm_eval(e, c, v, c->window); return; }
    int Ts, Tt;
    const Split *splits[2] = {t ? &t->val : NULL, t ? &t->test : NULL};
    int sizes[2] = {val ? c->val_size : 0, test ? c->test_size : 0};
    for (int i = 0; i < 2; i++) {
        if (!sizes[i] || (t && splits[i]->n == 0)) continue;
        split_lengths(c, t, splits[i], &Ts, &Tt);
        note_split_eval(e, c, v, t ? splits[i]->n : sizes[i], Ts, Tt,
                        i ? "the test split" : "the validation split");
    }
}

void memory_estimate_train(const Config *c, const Task *t, MemoryEstimate *e) {
    memset(e, 0, sizeof *e);
    MemoryVocab v = vocab_of(t);
    // Weights, gradients, two AdamW moments; saving builds the whole file (weights and
    // moments) in one buffer; a resume reads the file and decodes it (twice that).
    double P = memory_param_count(c, v);
    e->params = 16 * P + (c->resume[0] ? 24 : 12) * P;
    e->params_label = "parameters and Adam";
    int Ts, Tt;
    split_lengths(c, t, t ? &t->train : NULL, &Ts, &Tt);
    MemoryPass step = {c->batch_size, Ts, c->task == TASK_LM ? c->window : Tt, 1, 0};
    char setting[96];
    snprintf(setting, sizeof setting, "train.batch_size = %d", c->batch_size);
    note_pass(e, memory_pass_bytes(c, v, &step), setting,
              c->task == TASK_LM ? "Lower batch_size or window" : "Lower batch_size");
    // The evaluations run on the same arena after the step is reset (trainer.c).
    note_eval_splits(e, c, t, 1, 0);
    int lengths[64],
        n = c->eval_lengths[0] ? parse_lengths(c->eval_lengths, lengths, 64, NULL, 0) : 0;
    note_length_evals(e, c, t, lengths, n > 0 ? n : 0, c->val_size);
    finish(e, c, memory_data_bytes(c));
}

void memory_estimate_eval(const Config *c, const Task *t, const int *lengths, int n_lengths,
                          MemoryEstimate *e) {
    memset(e, 0, sizeof *e);
    // Weights (gradients are allocated but never touched), and the checkpoint read whole
    // then decoded into floats (weights and moments: 3 floats a parameter, twice).
    e->params = (4 + 24) * memory_param_count(c, vocab_of(t));
    e->params_label = "parameters";
    note_eval_splits(e, c, t, strstr(c->splits, "val") != NULL, strstr(c->splits, "test") != NULL);
    note_length_evals(e, c, t, lengths, n_lengths, c->test_size);
    finish(e, c, memory_data_bytes(c));
}

void memory_estimate_step(const Config *c, MemoryVocab v, const MemoryPass *p, MemoryEstimate *e) {
    memset(e, 0, sizeof *e);
    e->params = 16 * memory_param_count(c, v);
    e->params_label = "parameters and Adam";
    char setting[96];
    snprintf(setting, sizeof setting, "a training step of B = %d, T = %d / %d", p->B, p->T_src,
             p->T_tgt);
    note_pass(e, memory_pass_bytes(c, v, p), setting, "Pick smaller shapes");
    finish(e, c, 0);
}

void memory_estimate_translate(const Config *c, MemoryVocab v, int batch, int beam, int T_src,
                               MemoryEstimate *e) {
    memset(e, 0, sizeof *e);
    e->params = (4 + 24) * memory_param_count(c, v);
    e->params_label = "parameters";
    // run/decode.c: the encoder once, memory keys and values per layer for every hypothesis,
    // self-attention caches of max_len = 2 T_src + 10 per layer, one step's decoder.
    double N = (double)batch * beam, d = c->d_model, L = c->dec_layers, max_len = 2.0 * T_src + 10;
    MemoryPass enc = {batch, T_src, 1, 0, 0};
    double bytes = memory_pass_bytes(c, v, &enc) +
                   4 * (2 * L * N * T_src * d + 2 * L * N * max_len * d + 4 * N * v.tgt);
    char setting[96];
    snprintf(setting, sizeof setting, "--batch %d --beam %d", batch, beam);
    note_pass(e, bytes, setting, "Lower --batch or --beam");
    finish(e, c, 0);   // the lines to translate are read, not a task's data
}

void memory_estimate_generate(const Config *c, MemoryVocab v, int positions, int chunk,
                              MemoryEstimate *e) {
    memset(e, 0, sizeof *e);
    e->params = (4 + 24) * memory_param_count(c, v);
    e->params_label = "parameters";
    // models/transformer.c kv_cache_init: keys and values of every layer for every position;
    // a pass of `chunk` tokens scores them against all cached positions, one row per head.
    double L = c->dec_layers, P = positions, T = chunk;
    MemoryPass pass = {1, 0, chunk, 0, 0};
    double bytes =
        4 * (2 * L * P * c->d_model + (double)c->n_heads * T * P) + memory_pass_bytes(c, v, &pass);
    char setting[96];
    snprintf(setting, sizeof setting, "a key/value cache of %d positions", positions);
    note_pass(e, bytes, setting, "Ask for fewer --tokens or a shorter text");
    finish(e, c, 0);
}

// ------------------------------------------------------------------------- what is available

// The first number after `key` in a file like /proc/meminfo ("MemAvailable:  123 kB").
static double read_number(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, k)) {
            char *end;
            v = strtod(line + k, &end);
            if (end == line + k) v = -1;
            break;
        }
    fclose(f);
    return v;
}

// Room left in this process's cgroup: limit - usage, or -1 when there is no limit.
static double cgroup_room(char *source, size_t n) {
    char rel[512] = "", path[700];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        char line[600];
        while (fgets(line, sizeof line, f)) {
            char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;
            if (!q) continue;
            q[strcspn(q, "\n")] = '\0';
            if ((p[1] == ':' && !rel[0]) || strstr(p, "memory"))
                snprintf(rel, sizeof rel, "%s", q + 1);
        }
        fclose(f);
    }
    static const char *files[][3] = {
        {"/sys/fs/cgroup", "memory.max", "memory.current"},
        {"/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"}};
    double best = -1;
    for (int i = 0; i < 2; i++)
        for (int inner = 0; inner < 2; inner++) {   // the process's own cgroup, then the root seen
            snprintf(path, sizeof path, "%s%s/%s", files[i][0], inner ? "" : rel, files[i][1]);
            double limit = read_number(path, "");
            // "max" reads as no number; v1 uses a huge value
            if (limit <= 0 || limit >= 1e18) continue;
            snprintf(path, sizeof path, "%s%s/%s", files[i][0], inner ? "" : rel, files[i][2]);
            double used = read_number(path, "");
            double room = limit - (used > 0 ? used : 0);
            if (best < 0 || room < best) {
                best = room;
                snprintf(source, n, "cgroup %s", files[i][1]);
            }
        }
    return best;
}

double memory_available(char *source, size_t n) {
    double kb = read_number("/proc/meminfo", "MemAvailable:");
    double avail = kb >= 0 ? kb * 1024 : -1;
    snprintf(source, n, "MemAvailable");
    char cg[64];
    double room = cgroup_room(cg, sizeof cg);
    if (room >= 0 && (avail < 0 || room < avail)) {
        avail = room;
        snprintf(source, n, "%s", cg);
    }
    return avail;
}

static void breakdown(const MemoryEstimate *e, char *out, size_t n) {
    char p[32], a[32], d[32], g[32];
    byte_size_format(e->params, p, sizeof p);
    byte_size_format(e->activations, a, sizeof a);
    byte_size_format(e->data, d, sizeof d);
    byte_size_format(e->program, g, sizeof g);
    snprintf(out, n, "activations %s, %s %s, data %s, program %s", a, e->params_label, p, d, g);
}

// The limit a run is held to: run.max_memory, or what is available (-1: unknown).
static double limit_of(const Config *c, char *source, size_t n) {
    double limit;
    if (!strcmp(c->max_memory, "auto")) return memory_available(source, n);
    byte_size_parse(c->max_memory, &limit);   // config_validate has checked it
    snprintf(source, n, "run.max_memory = %s", c->max_memory);
    return limit;
}

int memory_check(const MemoryEstimate *e, const Config *c, char *err, int errlen) {
    char total[32], limit_text[32], parts[200], source[64];
    double limit = limit_of(c, source, sizeof source);
    if (limit < 0 || e->total <= limit) return 0;
    byte_size_format(e->total, total, sizeof total);
    byte_size_format(limit, limit_text, sizeof limit_text);
    breakdown(e, parts, sizeof parts);
    if (strcmp(c->max_memory, "auto"))
        return errorf(err, errlen,
                      "%s needs about %s (%s); %s allows %s. %s or raise run.max_memory.",
                      e->setting, total, parts, source, limit_text, e->advice);
    return errorf(err, errlen,
                  "%s needs about %s (%s); %s are available (%s). %s or set run.max_memory.",
                  e->setting, total, parts, limit_text, source, e->advice);
}

void memory_report(const MemoryEstimate *e, const Config *c, FILE *out) {
    char total[32], limit_text[32], parts[200], source[64];
    double limit = limit_of(c, source, sizeof source);
    byte_size_format(e->total, total, sizeof total);
    breakdown(e, parts, sizeof parts);
    if (limit < 0) {
        fprintf(out, "memory: about %s (%s); what is available is unknown\n", total, parts);
    } else {
        byte_size_format(limit, limit_text, sizeof limit_text);
        fprintf(out, "memory: about %s (%s); %s %s\n", total, parts, limit_text,
                strcmp(c->max_memory, "auto") ? "allowed by run.max_memory" : "available");
    }
    fflush(out);
}

int memory_check_train(const Config *c, const Task *t, MemoryEstimate *e, char *err, int errlen) {
    memory_estimate_train(c, t, e);
    return memory_check(e, c, err, errlen);
}
