// Run configuration: a strict INI file, plus `section.key=value` overrides.
//
// Every key has a type, a default and a range in one table (config.c). Unknown sections or
// keys, duplicate keys, bad values and cross-field errors (d_model % n_heads, odd d_k with
// RoPE, ...) are reported as `file:line: message` before any work starts.
#ifndef CONFIG_H
#define CONFIG_H

#include "core/optim.h"          // Schedule

// The values of the enum keys. config.c's table lists each key's words in the order of its
// constants (test_config checks every word); parsing stores the constant, config_to_ini
// writes the word back, config_enum_name gives it for messages.
typedef enum {
    TASK_ORDER,
    TASK_TOY_TRANSLATE,
    TASK_PARALLEL_TEXT,
    TASK_LM,
    TASK_ALGORITHMIC
} TaskKind;
// task.algorithm, the rule of the algorithmic task (data/algorithmic.h applies it), and its
// words in the order of the constants: the one list, read by config.c's key table and by
// algo_parse.
typedef enum { ALGO_COPY, ALGO_REVERSE, ALGO_DUPLICATE, ALGO_SORT } Algorithm;
#define ALGORITHM_WORDS "copy", "reverse", "duplicate", "sort"
// MODEL_LSTM: the recurrent translator (docs/design.md §2.8), on the translator's tasks.
typedef enum { MODEL_CLASSIFIER, MODEL_TRANSLATOR, MODEL_LM, MODEL_LSTM } ModelKind;
// Does the model translate (an encoder, then a decoder attending to it)?
static inline int model_is_seq2seq(ModelKind k) { return k == MODEL_TRANSLATOR || k == MODEL_LSTM; }
typedef enum { ACTIVATION_RELU, ACTIVATION_GELU, ACTIVATION_SWIGLU } Activation;
// model.attention, the LSTM translator's scores: Luong's dot product or Bahdanau's additive form.
typedef enum { ATTENTION_DOT, ATTENTION_ADDITIVE } AttentionScore;
typedef enum { NORM_LAYERNORM, NORM_RMSNORM } NormKind;
typedef enum { POOL_MEAN, POOL_CLS } PoolKind;
typedef enum {
    ROPE_SCALING_NONE,
    ROPE_SCALING_LINEAR,
    ROPE_SCALING_NTK,
    ROPE_SCALING_YARN,
    ROPE_SCALING_DYNAMIC
} RopeScaling;
typedef enum { LOGIT_SCALE_NONE, LOGIT_SCALE_LOG } LogitScale;   // model.attn_logit_scale
// eval.positions: with model.pos_random > 0, evaluate on drawn positions or on 0..n-1 (§2.3.8).
typedef enum { EVAL_POSITIONS_SAMPLED, EVAL_POSITIONS_PLAIN } EvalPositions;
typedef enum { EVAL_LENGTH_MODEL, EVAL_LENGTH_ORACLE } EvalLength;   // eval.length
// train.until = METRIC>=VALUE | METRIC<=VALUE: a number of the validation row that log.csv
// writes at each evaluation (its column, "val_" in front). config_until_names lists the words.
typedef enum {
    METRIC_VAL_LOSS,
    METRIC_VAL_TOKEN_ACC,
    METRIC_VAL_EXACT_MATCH,
    METRIC_VAL_LOSS_LAST,
    N_UNTIL_METRICS
} UntilMetric;
typedef enum { UNTIL_OFF, UNTIL_AT_LEAST, UNTIL_AT_MOST } UntilCompare;   // unset, >=, <=
extern const char *const config_until_names[N_UNTIL_METRICS];

#define CFG_STR 256       // every string field holds up to CFG_STR-1 bytes
#define CFG_MAX_KEYS 96   // capacity of key_line (config.c asserts the table fits)

// The [model] keys the positional schemes read, as one struct that Config holds (pos_cfg) and
// pos/pos.h's Positional copies whole, so a new scheme setting is a field here and a row of
// config.c's key table, and reaches every scheme without a line copying it.
typedef struct PosConfig {
    int   max_len;             // learned table rows (default 32)
    int   pos_wrap;            // learned: row pos % max_len (default true)
    float rope_base;           // b, before any stretch (default 10000)
    RopeScaling rope_scaling;  // none | linear | ntk | yarn | dynamic (docs/design.md §2.3.5)
    float rope_factor;         // s: the stretch (linear, ntk, yarn; default 1)
    int   rope_original_len;   // L: the window the model was trained at (yarn, dynamic; default 32)
    // yarn: pairs turning < alpha times in L are interpolated, > beta kept
    float yarn_alpha, yarn_beta;
    float xpos_gamma;          // xPos: q.k of pair i decays as
                               // zeta_i^((m-n)/xpos_gamma) (default 32)
    int   fire_learned;        // FIRE: learn its scale c and threshold L (Li et al.) instead of
                               // fixing c = 1, L = 32 (default false; docs/design.md §2.3.10)
    int   pos_offset;          // add k to every position index (evaluation probe; default 0)
    int   pos_random;          // L > 0: positions drawn from [0, L) per
                               // forward pass (Ruoss et al.); 0 = off
} PosConfig;

typedef struct Config {
    // [run]
    char  name[CFG_STR];       // run folder name; default: config file's base name
    char  out_dir[CFG_STR];    // runs are written to out_dir/name (default "runs")
    int   seed;                // one seed; init, data and dropout each get their own stream
    int   threads;             // OpenMP threads; 0 = as many as there are
                               // free cores, re-checked between steps
    char  max_memory[CFG_STR]; // "auto": refuse a run whose memory estimate
                               // exceeds what is available; "8G": the limit
                               // is 8 GiB instead (memory/memory_estimate.h)

    // [task]
    TaskKind task;             // order | toy_translate | parallel_text | lm | algorithmic
    char  lexicon[CFG_STR];    // lexicon file for the built-in tasks (default per task in data/)
    int   min_clauses, max_clauses;  // toy_translate: clauses per training sentence (1..3)
    // toy_translate / parallel_text: drop pairs longer than this (either side)
    int   max_tokens;
    int   train_size, val_size, test_size;  // generated examples per split
    int   window;              // lm: tokens per training window
    char  train_src[CFG_STR], train_tgt[CFG_STR];  // parallel_text files
    char  val_src[CFG_STR], val_tgt[CFG_STR];
    char  test_src[CFG_STR], test_tgt[CFG_STR];
    int   lowercase;           // parallel_text: lower-case before tokenising
    int   min_freq;            // parallel_text: vocabulary cut-off
    int   bpe_merges;          // parallel_text: BPE merges learned per language (0 = whole words)
    Algorithm algorithm;       // algorithmic: the rule (ALGORITHM_WORDS)
    int   alphabet;            // algorithmic: number of symbols (2 = binary, 10 = digits)
    // algorithmic: input lengths of the training (and val, test) examples
    int   min_length, max_length;
    // largest data file (lexicon, train/val/test files) read, e.g. "1G"
    char  max_file_size[CFG_STR];

    // [model]
    ModelKind model;           // classifier | translator | lm | lstm
    int   d_model, n_heads, d_ff;
    int   enc_layers, dec_layers;
    float dropout;
    Activation activation;     // relu | gelu | swiglu (gated FFN: gate, up and down projections)
    NormKind norm;             // layernorm | rmsnorm
    int   bias;                // false: no bias in any Linear (Llama style); norms are not Linears
    int   norm_first;          // true: pre-LN (default); false: post-LN
    int   embed_scale;         // multiply embeddings by sqrt(d_model)
    PoolKind pool;             // classifier: mean | cls
    int   bidirectional;       // lstm: the encoder runs both directions, summed (default true)
    int   tie_embeddings;      // lstm: the output layer is the decoder's embedding (default false)
    AttentionScore attention;  // lstm: dot (default) | additive
    char  pos[CFG_STR];        // a scheme name of src/pos/registry.c (./train --list-schemes)
    PosConfig pos_cfg;         // max_len .. pos_random: the schemes' settings (above)
    // none | log: self-attention scores times log(n)/log(n_train) past n_train
    LogitScale attn_logit_scale;
    // n_train: the longest training sequence (./train records it; 0 = unknown)
    int   attn_train_length;

    // [train]
    int   steps;
    int   batch_size;
    int   micro_batches;       // the batch in this many parts, run at once (train/micro_batches.h)
    float lr;
    Schedule schedule;         // constant | cosine | noam
    int   warmup;
    float min_lr_ratio;        // cosine: final lr = lr * min_lr_ratio
    float weight_decay;
    float beta1, beta2, eps;
    float clip;                // global-norm clip; 0 = off
    float label_smoothing;
    int   log_every, eval_every, ckpt_every;
    char  resume[CFG_STR];     // run folder or checkpoint to resume from ("" = fresh)
    char  init_from[CFG_STR];  // run folder or checkpoint whose
                               // weights start a fresh run ("" = none)
    char  eval_lengths[CFG_STR]; // lengths evaluated during training ("3,12"; "" = val split only)
    int   bucket;              // sample batches of similar length (parallel_text, toy_translate)
    int   eos;                 // translator: targets end with <eos> (default); false: no end token
                               // (Newman et al. 2020, "-EOS"), decoded to the reference length
    char  until[CFG_STR];      // stop once a validation number reaches a value ("" = off)
    int   patience;            // stop after this many evaluations without improvement (0 = off)
    // train.until parsed by config_validate: the metric, >= or <= (UNTIL_OFF = unset), value
    UntilMetric until_metric;
    UntilCompare until_compare;
    double until_value;

    // [eval] (used by ./eval; stored with the run so a checkpoint knows its defaults)
    char  splits[CFG_STR];     // "val,test"
    char  lengths[CFG_STR];    // "1..12", "32,64,128"; "" = the splits as trained
    int   beam;                // ./translate: beam size (1 = greedy)
    float length_penalty;      // ./translate: GNMT length penalty alpha
    EvalPositions positions;   // with pos_random: evaluate on drawn
                               // positions (sampled) or on 0..n-1 (plain)
    EvalLength length;         // exact match: model (stop at <eos>) | oracle (the reference length)
    int   lm_windows;          // lm: at most this many windows per window length (the first ones)

    // Source of the settings, for the run folder and the checkpoint metadata.
    char  path[CFG_STR];
    char *text;                // the resolved config as INI text (owned; config_free)
    // Per key, in table order: the file line that set it, 0 for a default, -1 for an
    // override. Lets cross-field errors point at a line. Not part of the settings themselves.
    int   key_line[CFG_MAX_KEYS];
} Config;

// The checks config makes through the positional schemes, a layer above it that it does not
// include: pos/pos.h defines them (pos_config_checks) and every caller passes them in. A
// hooks struct rather than a check the caller runs after loading keeps each message where the
// parser makes it: an unknown scheme is `file:line: pos: unknown value ...` (or `override
// 'pos=x': ...`) with the same did-you-mean as every other word, and a scheme's own check
// points at its key's line. NULL: the scheme name and the scheme's checks are not checked.
typedef struct ConfigChecks {
    int         (*scheme_count)(void);     // the words model.pos takes: count, then each
    const char *(*scheme_name)(int i);
    // Settings the scheme of c->pos cannot work with: 0, or -1 with a message and *key set to
    // the key whose line the message points at.
    int         (*check)(const Config *c, const char **key, char *msg, int n);
} ConfigChecks;

// Parse `path`, then apply overrides ("section.key=value", or "key=value" when the key is
// unique across sections). On error: writes `file:line: message` (or `override 'x': message`)
// into err and returns -1.
int  config_load(Config *c, const ConfigChecks *checks, const char *path, int n_overrides,
                 char **overrides, char *err, int errlen);
// Defaults only (for tests and for tools that build a model without a file).
// Overwrites *c entirely: call config_free first if it holds text.
void config_defaults(Config *c);
// Apply one "key=value" / "section.key=value" after loading; same per-value checks as the
// file. Does not run config_validate (a series of overrides may pass through invalid
// states): call it once after the last one. Refreshes c->text if c holds text.
int  config_set(Config *c, const ConfigChecks *checks, const char *assignment, char *err,
                int errlen);
// Cross-field checks (d_model % n_heads, rope needs even d_k, ...). 0 or -1 with err.
int  config_validate(const Config *c, const ConfigChecks *checks, char *err, int errlen);
// Every file the config names (lexicon, train/val/test files) is a regular file (not a
// device, FIFO or folder) no larger than max_file_size, and can be opened; else
// `file:line: key 'path': reason`.
int  config_check_files(const Config *c, char *err, int errlen);
// Render the full resolved config (every key, defaults included) as INI text.
// Returned string is malloc'ed; also stored in c->text.
char *config_to_ini(Config *c);
// Parse config text (as stored in checkpoint metadata); `name` is used in error messages.
int  config_load_text(Config *c, const ConfigChecks *checks, const char *name, const char *text,
                      char *err, int errlen);
void config_free(Config *c);
// The word of an enum field of c (field = &c->model, ...) as the config file spells it.
const char *config_enum_name(const Config *c, const void *field);
#endif
