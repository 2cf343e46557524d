// Run configuration: one table describes every key (section, name, type, field, default,
// range); a single parser handles the file, the overrides and even the defaults, so a key
// is added by adding one table row.
#include "config/config.h"
#include "core/byte_size.h"
#include "core/errors.h"
#include "io/fileio.h"
#include <errno.h>

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_LINE 4096             // longest accepted line (and override)
#define MAX_FILE (16 << 20)       // a config is tiny; refuse anything absurd

// T_SCHEME: a name in src/pos/registry.c, asked through ConfigChecks (config.h); T_UNTIL: the
// text of train.until, kept as written and parsed into until_metric, until_compare, until_value
typedef enum { T_INT, T_FLOAT, T_BOOL, T_STR, T_ENUM, T_SCHEME, T_UNTIL } KeyType;
enum { LO_OPEN = 1, HI_OPEN = 2 }; // range bounds that are excluded

typedef struct {
    const char *section, *key;
    KeyType type;
    size_t offset;                // field in Config
    const char *def;              // default as text: parsed by the same code as the file
    double lo, hi;                // numbers: allowed range; strings: lo = minimum length
    int open;                     // LO_OPEN | HI_OPEN
    const char *const *words;     // enum: its words in the order of its constants, NULL-ended
    // Left out of config_to_ini while at its default: a key that says when to stop training,
    // not what the model is, so the config a run stores (config.ini, the checkpoint) is the
    // same byte for byte as before the key existed.
    int quiet_default;
} Key;

// A row: key k of section s, stored in the field of Config named k (the _AT forms: field f).
#define INT_AT(f, s, k, d, lo, hi)  {s, #k, T_INT, offsetof(Config, f), d, lo, hi, 0, NULL, 0}
#define FLT_AT(f, s, k, d, lo, hi, open) \
                                    {s, #k, T_FLOAT, offsetof(Config, f), d, lo, hi, open, NULL, 0}
#define BOOL_AT(f, s, k, d)         {s, #k, T_BOOL, offsetof(Config, f), d, 0, 0, 0, NULL, 0}
#define ENUM_AT(f, s, k, d, ...)    {s, #k, T_ENUM, offsetof(Config, f), d, 0, 0, 0, \
                                     (const char *const[]){__VA_ARGS__, NULL}, 0}
#define INT(s, k, ...)              INT_AT(k, s, k, __VA_ARGS__)
#define FLT(s, k, ...)              FLT_AT(k, s, k, __VA_ARGS__)
#define BOOL(s, k, d)               BOOL_AT(k, s, k, d)
#define STR(s, k, d, minlen)        {s, #k, T_STR, offsetof(Config, k), d, minlen, 0, 0, NULL, 0}
#define ENUM(s, k, ...)             ENUM_AT(k, s, k, __VA_ARGS__)
#define SCHEME(s, k, d)             {s, #k, T_SCHEME, offsetof(Config, k), d, 0, 0, 0, NULL, 0}
// A [model] key of the positional view: POS(INT, max_len, ...) is field pos_cfg.max_len.
#define POS(type, k, ...)           type##_AT(pos_cfg.k, "model", k, __VA_ARGS__)

static const char *SECTIONS[] = {"run", "task", "model", "train", "eval"};
#define N_SECTIONS (int)(sizeof SECTIONS / sizeof SECTIONS[0])

static const Key KEYS[] = {
    STR("run", name, "run", 1),   // replaced by the config file's base name
    STR("run", out_dir, "runs", 1),
    INT("run", seed, "1", 0, INT_MAX),
    INT("run", threads, "0", 0, 4096),
    // "auto" or a size such as "8G" (checked in config_validate)
    STR("run", max_memory, "auto", 1),

    ENUM("task", task, "toy_translate",
         "order", "toy_translate", "parallel_text", "lm", "algorithmic"),
    STR("task", lexicon, "", 0),  // "" = the task's default file (chosen by the data code)
    INT("task", min_clauses, "1", 1, 64),
    INT("task", max_clauses, "3", 1, 64),
    INT("task", max_tokens, "32", 1, 1 << 20),
    INT("task", train_size, "20000", 1, 1e8),
    INT("task", val_size, "500", 1, 1e8),
    INT("task", test_size, "500", 1, 1e8),
    INT("task", window, "32", 1, 1 << 20),
    STR("task", train_src, "", 0),
    STR("task", train_tgt, "", 0),
    STR("task", val_src, "", 0),
    STR("task", val_tgt, "", 0),
    STR("task", test_src, "", 0),
    STR("task", test_tgt, "", 0),
    BOOL("task", lowercase, "true"),
    INT("task", min_freq, "1", 1, INT_MAX),
    // parallel_text: BPE merges per language (0 = words)
    INT("task", bpe_merges, "0", 0, 1 << 20),
    // algorithmic: the rule
    ENUM("task", algorithm, "copy", ALGORITHM_WORDS),
    // algorithmic: symbols "0".."alphabet-1" (ALGO_MAX_ALPHABET)
    INT("task", alphabet, "10", 1, 1000),
    // algorithmic: training input lengths (ALGO_MAX_LENGTH)
    INT("task", min_length, "1", 1, 4096),
    INT("task", max_length, "16", 1, 4096),
    STR("task", max_file_size, "1G", 1),        // a size such as "1G" (checked in config_validate)

    ENUM("model", model, "translator", "classifier", "translator", "lm", "lstm"),
    INT("model", d_model, "64", 1, 8192),
    INT("model", n_heads, "4", 1, 256),
    INT("model", d_ff, "256", 1, 65536),
    INT("model", enc_layers, "2", 1, 64),
    INT("model", dec_layers, "2", 0, 64),
    FLT("model", dropout, "0.1", 0, 1, HI_OPEN),
    ENUM("model", activation, "relu", "relu", "gelu", "swiglu"),
    ENUM("model", norm, "layernorm", "layernorm", "rmsnorm"),
    BOOL("model", bias, "true"),           // false: no bias in any Linear (attention, FFN, head)
    BOOL("model", norm_first, "true"),
    BOOL("model", embed_scale, "true"),
    ENUM("model", pool, "mean", "mean", "cls"),
    BOOL("model", bidirectional, "true"),      // lstm: the encoder runs both directions
    BOOL("model", tie_embeddings, "false"),    // lstm: decoder.out shares decoder.embedding
    ENUM("model", attention, "dot", "dot", "additive"),   // lstm: the attention scores
    SCHEME("model", pos, "sinusoidal"),
    POS(INT, max_len, "32", 1, 1 << 20),
    POS(BOOL, pos_wrap, "true"),
    POS(FLT, rope_base, "10000", 1, 1e9, LO_OPEN),
    // model.rope_scale = s: see old_rope_scale
    POS(ENUM, rope_scaling, "none", "none", "linear", "ntk", "yarn", "dynamic"),
    POS(FLT, rope_factor, "1", 0, 1e6, LO_OPEN),
    POS(INT, rope_original_len, "32", 1, 1 << 24),
    POS(FLT, yarn_alpha, "1", 0, 1e6, 0),
    POS(FLT, yarn_beta, "32", 0, 1e6, 0),
    // xPos decay length (docs/design.md §2.3.11)
    POS(FLT, xpos_gamma, "32", 0, 1e9, LO_OPEN),
    // FIRE learns c and L (docs/design.md §2.3.10)
    POS(BOOL, fire_learned, "false"),
    POS(INT, pos_offset, "0", 0, 1 << 24),
    // randomized positions from [0, pos_random); 0 = off
    POS(INT, pos_random, "0", 0, 1 << 20),
    // self-attention temperature past the training length (§2.4)
    ENUM("model", attn_logit_scale, "none", "none", "log"),
    // n_train of attn_logit_scale; 0 = not recorded yet (./train sets it)
    INT("model", attn_train_length, "0", 0, 1 << 24),

    INT("train", steps, "2000", 1, 1e9),
    INT("train", batch_size, "64", 1, 1 << 20),
    // split each batch into this many runs of rows, forwarded and backpropagated at once, one
    // a thread, their gradients summed (train/micro_batches.h); 1 = the whole batch, ops parallel
    INT("train", micro_batches, "1", 1, 256),
    FLT("train", lr, "1e-3", 0, 10, LO_OPEN),
    ENUM("train", schedule, "cosine", "constant", "cosine", "noam"),
    INT("train", warmup, "100", 0, 1e9),
    FLT("train", min_lr_ratio, "0.1", 0, 1, 0),
    FLT("train", weight_decay, "0.01", 0, 100, 0),
    FLT("train", beta1, "0.9", 0, 1, HI_OPEN),
    FLT("train", beta2, "0.98", 0, 1, HI_OPEN),
    FLT("train", eps, "1e-9", 0, 1, LO_OPEN),
    FLT("train", clip, "1.0", 0, 1e9, 0),
    FLT("train", label_smoothing, "0.0", 0, 1, HI_OPEN),
    INT("train", log_every, "50", 1, 1e9),
    INT("train", eval_every, "500", 1, 1e9),
    INT("train", ckpt_every, "500", 1, 1e9),
    STR("train", resume, "", 0),
    STR("train", init_from, "", 0),     // weights only: fresh optimizer, schedule and data order
    STR("train", eval_lengths, "", 0),  // lengths logged at each evaluation,
                                        // e.g. "3,12"; "" = the val split
    BOOL("train", bucket, "false"),     // batches of similar lengths (less padding)
    BOOL("train", eos, "true"),         // translator: targets end with <eos> (false:
                                        // no end token, docs/design.md §5.2)
    // stop at the evaluation where METRIC>=VALUE or METRIC<=VALUE holds; "" = at train.steps
    {"train", "until", T_UNTIL, offsetof(Config, until), "", 0, 0, 0, NULL, 1},
    // stop after this many evaluations without a better until metric (or val_loss); 0 = off
    {"train", "patience", T_INT, offsetof(Config, patience), "0", 0, 1e6, 0, NULL, 1},

    STR("eval", splits, "val,test", 1),  // ./eval: which splits to report
    STR("eval", lengths, "", 0),         // ./eval: lengths beyond training, "1..12" or "32,64,128"
    INT("eval", beam, "1", 1, 256),      // ./translate: beam size (1 = greedy)
    FLT("eval", length_penalty, "0.6", 0, 10, 0),  // ./translate: GNMT alpha
    // with model.pos_random: drawn or 0..n-1 at evaluation
    ENUM("eval", positions, "sampled", "sampled", "plain"),
    // exact match: stop at the model's <eos>, or at the reference length
    ENUM("eval", length, "model", "model", "oracle"),
    // ./eval, lm: at most this many windows a length (the first ones)
    INT("eval", lm_windows, "256", 1, 256),
};
#define N_KEYS (int)(sizeof KEYS / sizeof KEYS[0])
_Static_assert(N_KEYS <= CFG_MAX_KEYS, "raise CFG_MAX_KEYS in config.h");
// An enum key's field is read and written as an int (set_value, config_to_ini).
_Static_assert(sizeof(TaskKind) == sizeof(int) && sizeof(Algorithm) == sizeof(int) &&
               sizeof(ModelKind) == sizeof(int) && sizeof(Activation) == sizeof(int) &&
               sizeof(NormKind) == sizeof(int) && sizeof(PoolKind) == sizeof(int) &&
               sizeof(RopeScaling) == sizeof(int) && sizeof(LogitScale) == sizeof(int) &&
               sizeof(Schedule) == sizeof(int) && sizeof(EvalPositions) == sizeof(int) &&
               sizeof(EvalLength) == sizeof(int), "enum keys are stored as int");

const char *const config_until_names[N_UNTIL_METRICS] = {
    [METRIC_VAL_LOSS] = "val_loss", [METRIC_VAL_TOKEN_ACC] = "val_token_acc",
    [METRIC_VAL_EXACT_MATCH] = "val_exact_match", [METRIC_VAL_LOSS_LAST] = "val_loss_last"};

// ---------------------------------------------------------------------------- helpers

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    *e = '\0';
    return s;
}

static int is_comment(char ch) { return ch == ';' || ch == '#'; }

static int find_section(const char *name) {
    for (int i = 0; i < N_SECTIONS; i++)
        if (!strcmp(SECTIONS[i], name)) return i;
    return -1;
}

static int find_key(const char *section, const char *key) {
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].section, section) && !strcmp(KEYS[i].key, key)) return i;
    return -1;
}

// Edit distance with adjacent transpositions ("d_modle" is one edit from "d_model").
static int edit_distance(const char *a, const char *b) {
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > 64 || m > 64) return 1000;
    int d[65][65];
    for (int i = 0; i <= n; i++) d[i][0] = i;
    for (int j = 0; j <= m; j++) d[0][j] = j;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

static int close_enough(const char *typed, int dist) {
    int limit = ((int)strlen(typed) + 2) / 3;
    return dist <= (limit < 1 ? 1 : limit);
}

// "; did you mean [model]?" or the list of sections.
static void section_hint(const char *name, char *out, size_t n) {
    int best = -1, best_d = 1000;
    for (int i = 0; i < N_SECTIONS; i++) {
        int d = edit_distance(name, SECTIONS[i]);
        if (d < best_d) best = i, best_d = d;
    }
    // best stays -1 when every distance is edit_distance's "too long" 1000, which a name of
    // 3000 characters would count as close
    if (best >= 0 && close_enough(name, best_d))
        snprintf(out, n, "; did you mean [%s]?", SECTIONS[best]);
    else snprintf(out, n, "; valid sections: [run] [task] [model] [train]");
}

// Hint for an unknown key: the same name in another section, else the closest key (in
// `section` first, then anywhere). `dotted` names keys as section.key (overrides).
static void key_hint(const char *section, const char *key, int dotted, char *out, size_t n) {
    out[0] = '\0';
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].key, key)) {
            if (dotted) snprintf(out, n, "; did you mean '%s.%s'?", KEYS[i].section, key);
            else snprintf(out, n, "; '%s' is a key of [%s]", key, KEYS[i].section);
            return;
        }
    int best = -1, best_d = 1000;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < N_KEYS; i++) {
            if (pass == 0 && (!section || strcmp(KEYS[i].section, section))) continue;
            int d = edit_distance(key, KEYS[i].key);
            // ties: "heads" -> n_heads, not threads
            int score = 2 * d - (strstr(KEYS[i].key, key) != NULL);
            if (close_enough(key, d) && score < best_d) best = i, best_d = score;
        }
    if (best < 0) return;
    const Key *k = &KEYS[best];
    if (dotted) snprintf(out, n, "; did you mean '%s.%s'?", k->section, k->key);
    else if (section && !strcmp(section, k->section))
        snprintf(out, n, "; did you mean '%s'?", k->key);
    else snprintf(out, n, "; did you mean '%s' in [%s]?", k->key, k->section);
}

// ---------------------------------------------------------------------------- values

static int in_range(const Key *k, double x) {
    return ((k->open & LO_OPEN) ? x > k->lo : x >= k->lo) &&
           ((k->open & HI_OPEN) ? x < k->hi : x <= k->hi);
}

static int range_error(const Key *k, const char *text, char *msg, int n) {
    char lo = (k->open & LO_OPEN) ? '(' : '[', hi = (k->open & HI_OPEN) ? ')' : ']';
    if (k->type == T_INT)
        return errorf(msg, n, "%s = %s is out of range %c%.0f, %.0f%c", k->key, text, lo, k->lo,
                      k->hi, hi);
    return errorf(msg, n, "%s = %s is out of range %c%g, %g%c", k->key, text, lo, k->lo, k->hi, hi);
}

// Index of `word` among an enum key's words, or -1.
static int word_index(const char *word, const char *const *words) {
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], word)) return i;
    return -1;
}

// "norm: unknown value 'Layernorm'; did you mean 'layernorm'? expected layernorm|rmsnorm":
// one message for every key that takes a word, whether its words are an enum's or the
// registry's scheme names.
static int unknown_word(const Key *k, const char *text, const char *const *words, int count,
                        char *msg, int n) {
    char expected[512] = "", hint[128] = "";
    int best_d = 1000;
    for (int i = 0; i < count; i++) {
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%s%s", i ? "|" : "", words[i]);
        int d = edit_distance(text, words[i]);
        if (close_enough(text, d) && d < best_d)
            best_d = d, snprintf(hint, sizeof hint, "; did you mean '%s'?", words[i]);
    }
    return errorf(msg, n, "%s: unknown value '%.80s'%s expected %s", k->key, text,
                  hint[0] ? hint : ";", expected);
}

// train.until = METRIC>=VALUE or METRIC<=VALUE (spaces allowed around the parts); "" = off.
// Accuracies (token_acc, exact_match) lie in [0, 1], losses in [0, inf).
static int parse_until(Config *c, const char *key, const char *text, char *msg, int n) {
    c->until_compare = UNTIL_OFF;
    if (!*text) return 0;
    const char *ge = strstr(text, ">="), *le = strstr(text, "<="), *op = ge ? ge : le;
    char metric[64];
    if (!op || (ge && le)) {
        const char *bad = strpbrk(text, "<>=");
        return errorf(msg, n, "%s: '%.80s': %s; write METRIC>=VALUE or METRIC<=VALUE", key, text,
                      bad ? "the comparison must be >= or <=" : "no comparison");
    }
    size_t len = (size_t)(op - text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t')) len--;
    if (len >= sizeof metric) len = sizeof metric - 1;
    memcpy(metric, text, len);
    metric[len] = '\0';
    int m = 0;
    while (m < N_UNTIL_METRICS && strcmp(metric, config_until_names[m])) m++;
    if (m == N_UNTIL_METRICS) {
        char list[160] = "";
        for (int i = 0; i < N_UNTIL_METRICS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     config_until_names[i]);
        return errorf(msg, n, "%s: unknown metric '%.40s' in '%.80s'; expected one of %s", key,
                      metric, text, list);
    }
    const char *number = op + 2;
    while (*number == ' ' || *number == '\t') number++;
    char *end;
    double v = strtod(number, &end);
    if (end == number || !isfinite(v))
        return errorf(msg, n, "%s: '%.80s': '%.40s' is not a finite number", key, text, number);
    if (*end) return errorf(msg, n, "%s: trailing garbage '%.40s' in '%.80s'", key, end, text);
    int accuracy = m == METRIC_VAL_TOKEN_ACC || m == METRIC_VAL_EXACT_MATCH;
    if (v < 0 || (accuracy && v > 1))
        return errorf(msg, n, "%s: %s = %g is out of range; it lies in %s", key,
                      config_until_names[m], v, accuracy ? "[0, 1]" : "[0, inf)");
    c->until_metric = (UntilMetric)m;
    c->until_compare = op == ge ? UNTIL_AT_LEAST : UNTIL_AT_MOST;
    c->until_value = v;
    return 0;
}

// Parse `text` as the value of key `k` and store it in c. On error writes a message
// without location (the caller adds `file:line: ` or `override '...': `).
static int set_value(Config *c, const ConfigChecks *checks, const Key *k, const char *text,
                     char *msg, int n) {
    char *field = (char *)c + k->offset;
    if (!*text && !(k->type == T_STR && k->lo == 0) && k->type != T_UNTIL)
        return errorf(msg, n, "%s: empty value", k->key);
    switch (k->type) {
    case T_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (end == text || (*text != '-' && *text != '+' && (*text < '0' || *text > '9')))
            return errorf(msg, n, "%s: '%.80s' is not an integer", k->key, text);
        if (*end)
            return errorf(msg, n, "%s: trailing garbage '%.40s' after the number in '%.80s'",
                          k->key, end, text);
        if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
            return errorf(msg, n, "%s: '%.80s' does not fit in an int", k->key, text);
        if (!in_range(k, (double)v)) return range_error(k, text, msg, n);
        *(int *)field = (int)v;
        return 0;
    }
    case T_FLOAT: {
        char *end;
        double v = strtod(text, &end);
        if (end == text) return errorf(msg, n, "%s: '%.80s' is not a number", k->key, text);
        if (*end)
            return errorf(msg, n, "%s: trailing garbage '%.40s' after the number in '%.80s'",
                          k->key, end, text);
        if (!isfinite(v)) return errorf(msg, n, "%s: '%.80s' is not a finite number", k->key, text);
        // Check the value as stored too: 0.99999999999 rounds to 1.0f, 1e-50 to 0.
        if (!in_range(k, v) || !in_range(k, (double)(float)v)) return range_error(k, text, msg, n);
        *(float *)field = (float)v;
        return 0;
    }
    case T_BOOL: {
        static const char *yes[] = {"true", "1", "yes", "on"}, *no[] = {"false", "0", "no", "off"};
        for (int i = 0; i < 4; i++) {
            if (!strcasecmp(text, yes[i])) { *(int *)field = 1; return 0; }
            if (!strcasecmp(text, no[i])) { *(int *)field = 0; return 0; }
        }
        return errorf(msg, n, "%s: '%.80s' is not a boolean (true|false|1|0|yes|no|on|off)", k->key,
                      text);
    }
    case T_ENUM: {
        int i = word_index(text, k->words);
        if (i < 0) {
            int count = 0;
            while (k->words[count]) count++;
            return unknown_word(k, text, k->words, count, msg, n);
        }
        *(int *)field = i;
        return 0;
    }
    case T_SCHEME:
        if (checks) {
            const char *names[64];
            int count = checks->scheme_count() < 64 ? checks->scheme_count() : 64, known = 0;
            for (int i = 0; i < count; i++)
                known |= !strcmp(names[i] = checks->scheme_name(i), text);
            if (!known) return unknown_word(k, text, names, count, msg, n);
        }
        break;
    case T_UNTIL:
        if (parse_until(c, k->key, text, msg, n)) return -1;
        break;
    case T_STR:
        for (const char *p = text; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                return errorf(msg, n, "%s: control character in value", k->key);
        break;
    }
    size_t len = strlen(text);
    if (len >= CFG_STR)
        return errorf(msg, n, "%s: value is %zu characters, longer than %d", k->key, len,
                      CFG_STR - 1);
    memset(field, 0, CFG_STR); // zero the tail so two equal configs are equal byte for byte
    memcpy(field, text, len);
    return 0;
}

// model.rope_scale = s, the spelling before model.rope_scaling existed (old configs and the
// config stored in old checkpoints): s != 1 means rope_scaling = linear, rope_factor = s;
// s = 1 changes nothing. It is read, never written: config_to_ini writes the new keys.
static const Key OLD_ROPE_SCALE =
    FLT_AT(pos_cfg.rope_factor, "model", rope_scale, "1", 0, 1e6, LO_OPEN);

static int is_old_rope_scale(const char *section, const char *key) {
    return !strcmp(section, "model") && !strcmp(key, "rope_scale");
}

static int set_old_rope_scale(Config *c, const char *text, int line, char *msg, int n) {
    PosConfig *pc = &c->pos_cfg;
    float before = pc->rope_factor;
    if (set_value(c, NULL, &OLD_ROPE_SCALE, text, msg, n)) return -1;
    if (pc->rope_factor == 1.0f) { pc->rope_factor = before; return 0; }
    pc->rope_scaling = ROPE_SCALING_LINEAR;
    c->key_line[find_key("model", "rope_scaling")] =
        c->key_line[find_key("model", "rope_factor")] = line;
    return 0;
}

// Extract the value from the text after '=' (modified in place): strip an inline comment
// (';' or '#' after whitespace) when `comments`, then optional "double quotes". Quotes
// inside a value are refused, which keeps config_to_ini's quoting trivially reversible.
static int read_value(char *s, int comments, char **value, char *msg, int n) {
    s = trim(s);
    if (*s == '"') {
        char *close = strchr(s + 1, '"');
        if (!close) return errorf(msg, n, "unterminated quote in value");
        char *rest = close + 1;
        while (*rest == ' ' || *rest == '\t') rest++;
        if (*rest && !(comments && is_comment(*rest)))
            return errorf(msg, n, "unexpected text '%.40s' after the closing quote", rest);
        *close = '\0';
        *value = s + 1;
        return 0;
    }
    if (comments)
        for (char *p = s; *p; p++)
            if (is_comment(*p) && (p == s || p[-1] == ' ' || p[-1] == '\t')) { *p = '\0'; break; }
    s = trim(s);
    if (strchr(s, '"')) return errorf(msg, n, "a quote '\"' inside a value is not allowed");
    *value = s;
    return 0;
}

// ---------------------------------------------------------------------------- file

// One line of a file (NUL-terminated, no newline). *section: current section or -1.
static int parse_line(Config *c, const ConfigChecks *checks, const char *file, int ln, char *line,
                      int *section, int *n_set, char *err, int errlen) {
    char msg[512], hint[128];
    char *s = trim(line);
    if (!*s || is_comment(*s)) return 0;
    if (*s == '[') {
        char *close = strchr(s, ']');
        if (!close) return errorf(err, errlen, "%s:%d: missing ']' in section header", file, ln);
        char *rest = close + 1;
        while (*rest == ' ' || *rest == '\t') rest++;
        if (*rest && !is_comment(*rest))
            return errorf(err, errlen, "%s:%d: unexpected text '%.40s' after section header", file,
                          ln, rest);
        *close = '\0';
        char *name = trim(s + 1);
        if ((*section = find_section(name)) < 0) {
            section_hint(name, hint, sizeof hint);
            return errorf(err, errlen, "%s:%d: unknown section [%.80s]%s", file, ln, name, hint);
        }
        return 0;
    }
    char *eq = strchr(s, '=');
    if (!eq)
        return errorf(err, errlen, "%s:%d: expected 'key = value' or '[section]', got '%.60s'",
                      file, ln, s);
    *eq = '\0';
    char *key = trim(s);
    if (!*key) return errorf(err, errlen, "%s:%d: missing key before '='", file, ln);
    if (*section < 0) {
        key_hint(NULL, key, 0, hint, sizeof hint);
        return errorf(err, errlen, "%s:%d: key '%.80s' before any [section] header%s", file, ln,
                      key, hint);
    }
    int k = find_key(SECTIONS[*section], key);
    char *value;
    if (k < 0 && is_old_rope_scale(SECTIONS[*section], key)) {
        if (read_value(eq + 1, 1, &value, msg, sizeof msg) ||
            set_old_rope_scale(c, value, ln, msg, sizeof msg))
            return errorf(err, errlen, "%s:%d: %s", file, ln, msg);
        (*n_set)++;
        return 0;
    }
    if (k < 0) {
        key_hint(SECTIONS[*section], key, 0, hint, sizeof hint);
        return errorf(err, errlen, "%s:%d: unknown key '%.80s' in [%s]%s", file, ln, key,
                      SECTIONS[*section], hint);
    }
    if (c->key_line[k] > 0)
        return errorf(err, errlen, "%s:%d: duplicate key '%s' in [%s] (first set on line %d)", file,
                      ln, key, SECTIONS[*section], c->key_line[k]);
    if (read_value(eq + 1, 1, &value, msg, sizeof msg) ||
        set_value(c, checks, &KEYS[k], value, msg, sizeof msg))
        return errorf(err, errlen, "%s:%d: %s", file, ln, msg);
    c->key_line[k] = ln;
    (*n_set)++;
    return 0;
}

static int parse_text(Config *c, const ConfigChecks *checks, const char *file, const char *buf,
                      size_t len, char *err, int errlen) {
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        int ln = 1;
        for (const char *p = buf; p < nul; p++) ln += *p == '\n';
        return errorf(err, errlen, "%s:%d: NUL byte in file", file, ln);
    }
    const char *p = buf, *end = buf + len;
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) p += 3; // UTF-8 byte order mark
    char line[MAX_LINE + 1];
    int ln = 0, section = -1, n_set = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        ln++;
        if (n > 0 && p[n - 1] == '\r') n--;
        if (n > MAX_LINE)
            return errorf(err, errlen, "%s:%d: line is %zu characters, longer than %d", file, ln, n,
                          MAX_LINE);
        memcpy(line, p, n);
        line[n] = '\0';
        if (parse_line(c, checks, file, ln, line, &section, &n_set, err, errlen)) return -1;
        p = nl ? nl + 1 : end;
    }
    if (n_set == 0) return errorf(err, errlen, "%s:1: empty config", file);
    return 0;
}

// ---------------------------------------------------------------------------- overrides

static int apply_override(Config *c, const ConfigChecks *checks, const char *assignment, char *msg,
                          int n) {
    char buf[MAX_LINE + 1], hint[128];
    size_t len = strlen(assignment);
    if (len > MAX_LINE) return errorf(msg, n, "longer than %d characters", MAX_LINE);
    memcpy(buf, assignment, len + 1);
    char *eq = strchr(buf, '=');
    if (!eq) return errorf(msg, n, "expected section.key=value or key=value");
    *eq = '\0';
    char *lhs = trim(buf), *dot = strchr(lhs, '.');
    int k = -1;
    char *value;
    if (dot) {
        *dot = '\0';
        const char *section = lhs, *key = dot + 1;
        if (find_section(section) < 0) {
            section_hint(section, hint, sizeof hint);
            return errorf(msg, n, "unknown section [%.80s]%s", section, hint);
        }
        if (is_old_rope_scale(section, key))
            return read_value(eq + 1, 0, &value, msg, n) ||
                   set_old_rope_scale(c, value, -1, msg, n) ? -1 : 0;
        if ((k = find_key(section, key)) < 0) {
            key_hint(section, key, 1, hint, sizeof hint);
            return errorf(msg, n, "unknown key '%.80s' in [%s]%s", key, section, hint);
        }
    } else {
        int matches = 0;
        char where[128] = "";
        for (int i = 0; i < N_KEYS; i++)
            if (!strcmp(KEYS[i].key, lhs)) {
                k = i;
                size_t w = strlen(where);
                snprintf(where + w, sizeof where - w, "%s[%s]", matches++ ? " and " : "",
                         KEYS[i].section);
            }
        if (matches > 1)
            return errorf(msg, n, "ambiguous key '%s': it exists in %s; write section.key", lhs,
                          where);
        if (!matches && is_old_rope_scale("model", lhs))
            return read_value(eq + 1, 0, &value, msg, n) ||
                   set_old_rope_scale(c, value, -1, msg, n) ? -1 : 0;
        if (k < 0) {
            key_hint(NULL, lhs, 1, hint, sizeof hint);
            return errorf(msg, n, "unknown key '%.80s'%s", lhs, hint);
        }
    }
    if (read_value(eq + 1, 0, &value, msg, n) || set_value(c, checks, &KEYS[k], value, msg, n))
        return -1;
    c->key_line[k] = -1;
    return 0;
}

// ---------------------------------------------------------------------------- validation

// `path:line: message` with the line of key1, or of key2 when key1 kept its default; no
// line when the deciding key came from an override.
static int invalid(const Config *c, const char *key1, const char *key2, char *err, int errlen,
                   const char *fmt, ...) {
    int line = 0;
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].key, key1)) line = c->key_line[i];
    for (int i = 0; i < N_KEYS && !line && key2; i++)
        if (!strcmp(KEYS[i].key, key2)) line = c->key_line[i];
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = c->path[0] ? c->path : "config";
    if (line > 0) return errorf(err, errlen, "%s:%d: %s", file, line, msg);
    return errorf(err, errlen, "%s: %s", file, msg);
}

// The task and the model go together, and each split names both of its files.
static int check_task_model(const Config *c, char *err, int errlen) {
    const char *task = config_enum_name(c, &c->task), *model = config_enum_name(c, &c->model);
    static const ModelKind model_for[] = {[TASK_ORDER] = MODEL_CLASSIFIER,
                                          [TASK_TOY_TRANSLATE] = MODEL_TRANSLATOR,
                                          [TASK_PARALLEL_TEXT] = MODEL_TRANSLATOR,
                                          [TASK_LM] = MODEL_LM};
    // The LSTM translator takes the translator's tasks (docs/design.md §2.8).
    ModelKind kind = c->model == MODEL_LSTM ? MODEL_TRANSLATOR : c->model;
    // algorithmic and parallel_text: a translator (source -> target), or the decoder-only form
    // reading the source as a prefix (model = lm, §5.5, §5.8).
    int prefix_form = c->task == TASK_ALGORITHMIC || c->task == TASK_PARALLEL_TEXT;
    if (!prefix_form && kind != model_for[c->task])
        return invalid(c, "model", "task", err, errlen, "task = %s needs model = %s, not %s", task,
                       KEYS[find_key("model", "model")].words[model_for[c->task]], model);
    if (prefix_form && c->model == MODEL_CLASSIFIER)
        return invalid(c, "model", "task", err, errlen,
                       "task = %s needs model = translator, lstm or lm, not %s", task, model);
    if (c->task == TASK_PARALLEL_TEXT && (!c->train_src[0] || !c->train_tgt[0]))
        return invalid(c, "task", NULL, err, errlen,
                       "task = parallel_text needs train_src and train_tgt");
    if (!c->val_src[0] != !c->val_tgt[0])
        return invalid(c, c->val_src[0] ? "val_src" : "val_tgt", NULL, err, errlen,
                       "val_src and val_tgt must be set together");
    if (!c->test_src[0] != !c->test_tgt[0])
        return invalid(c, c->test_src[0] ? "test_src" : "test_tgt", NULL, err, errlen,
                       "test_src and test_tgt must be set together");
    return 0;
}

// The stop rules, micro-batches, schedule and the sizes of the run's budgets.
static int check_training(const Config *c, char *err, int errlen) {
    const char *task = config_enum_name(c, &c->task);
    // train.until: a number the task's validation row has (train/train_eval.h)
    if (c->until_compare != UNTIL_OFF && c->task == TASK_LM &&
        c->until_metric == METRIC_VAL_EXACT_MATCH)
        return invalid(c, "until", NULL, err, errlen,
                       "until: a language model on text (task = lm) has no val_exact_match; "
                       "use val_loss, val_token_acc or val_loss_last");
    if (c->until_compare != UNTIL_OFF && c->task != TASK_LM &&
        c->until_metric == METRIC_VAL_LOSS_LAST)
        return invalid(c, "until", NULL, err, errlen,
                       "until: val_loss_last is the language model's on text (task = lm), "
                       "not task = %s's", task);
    if ((c->until_compare != UNTIL_OFF || c->patience > 0) && c->task == TASK_PARALLEL_TEXT &&
        !c->val_src[0])
        return invalid(c, c->until_compare != UNTIL_OFF ? "until" : "patience", NULL, err, errlen,
                       "%s needs a validation split (task.val_src, task.val_tgt)",
                       c->until_compare != UNTIL_OFF ? "until" : "patience");
    if (c->micro_batches > c->batch_size)
        return invalid(c, "micro_batches", "batch_size", err, errlen,
                       "micro_batches (%d) must be at most batch_size (%d): each needs a row",
                       c->micro_batches, c->batch_size);
    if (c->schedule == SCHED_NOAM && c->warmup < 1)
        return invalid(c, "warmup", "schedule", err, errlen, "schedule = noam needs warmup >= 1");
    double bytes;
    if (strcmp(c->max_memory, "auto") && byte_size_parse(c->max_memory, &bytes))
        return invalid(c, "max_memory", NULL, err, errlen,
                       "max_memory: '%s' is not 'auto' or a size like 8G or 512M", c->max_memory);
    if (byte_size_parse(c->max_file_size, &bytes))
        return invalid(c, "max_file_size", NULL, err, errlen,
                       "max_file_size: '%s' is not a size like 1G or 200M", c->max_file_size);
    return 0;
}

int config_validate(const Config *c, const ConfigChecks *checks, char *err, int errlen) {
    if (strchr(c->name, '/') || !strcmp(c->name, ".") || !strcmp(c->name, ".."))
        return invalid(c, "name", NULL, err, errlen,
                       "name '%s' must be a plain folder name (no '/')", c->name);
    if (c->min_clauses > c->max_clauses)
        return invalid(c, "max_clauses", "min_clauses", err, errlen,
                       "max_clauses (%d) must be >= min_clauses (%d)", c->max_clauses,
                       c->min_clauses);
    if (c->min_length > c->max_length)
        return invalid(c, "max_length", "min_length", err, errlen,
                       "max_length (%d) must be >= min_length (%d)", c->max_length, c->min_length);
    int rc = check_task_model(c, err, errlen);
    if (rc) return rc;
    if (c->model == MODEL_LSTM && strcmp(c->pos, "none"))
        return invalid(c, "pos", "model", err, errlen,
                       "model = lstm has no positional scheme: pos must be none, not %s", c->pos);
    if (c->attention != ATTENTION_DOT && c->model != MODEL_LSTM)
        return invalid(c, "attention", "model", err, errlen,
                       "attention = %s needs model = lstm (a Transformer's attention is "
                       "scaled dot-product)", config_enum_name(c, &c->attention));
    if (c->model == MODEL_LSTM && c->enc_layers != c->dec_layers)
        return invalid(c, "dec_layers", "enc_layers", err, errlen,
                       "model = lstm starts decoder layer i from encoder layer i's final state: "
                       "dec_layers (%d) must equal enc_layers (%d)", c->dec_layers, c->enc_layers);
    if (c->d_model % c->n_heads)
        return invalid(c, "n_heads", "d_model", err, errlen,
                       "d_model (%d) must be divisible by n_heads (%d)", c->d_model, c->n_heads);
    const char *key;
    char msg[256];
    if (checks && checks->check(c, &key, msg, sizeof msg))
        return invalid(c, key, strcmp(key, "pos") ? "pos" : "d_model", err, errlen, "%s", msg);
    if (!c->eos && !model_is_seq2seq(c->model))
        return invalid(c, "eos", "model", err, errlen,
                       "eos = false needs model = translator or lstm "
                       "(only a translator's targets end with <eos>)");
    const PosConfig *pc = &c->pos_cfg;
    if (pc->yarn_alpha >= pc->yarn_beta)
        return invalid(c, "yarn_beta", "yarn_alpha", err, errlen,
                       "yarn_beta (%g) must be > yarn_alpha (%g)", pc->yarn_beta, pc->yarn_alpha);
    return check_training(c, err, errlen);
}

int config_check_files(const Config *c, char *err, int errlen) {
    static const char *keys[] = {"lexicon", "train_src", "train_tgt", "val_src", "val_tgt",
                                 "test_src", "test_tgt"};
    const char *paths[] = {c->lexicon, c->train_src, c->train_tgt, c->val_src, c->val_tgt,
                           c->test_src, c->test_tgt};
    double limit = 0;
    byte_size_parse(c->max_file_size, &limit);   // config_validate has checked it
    for (int i = 0; i < 7; i++) {
        if (!paths[i][0]) continue;
        // stat before fopen: opening a FIFO would wait for a writer.
        struct stat st;
        if (stat(paths[i], &st) == 0 && !S_ISREG(st.st_mode))
            return invalid(c, keys[i], NULL, err, errlen, "%s '%s' is %s, not a regular file",
                           keys[i], paths[i],
                           S_ISDIR(st.st_mode) ? "a folder"
                           : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
        if (stat(paths[i], &st) == 0 && (double)st.st_size > limit) {
            char size[32];
            byte_size_format((double)st.st_size, size, sizeof size);
            return invalid(c, keys[i], NULL, err, errlen,
                           "%s '%s' is %s, larger than task.max_file_size = %s "
                           "(raise it to read this file)",
                           keys[i], paths[i], size, c->max_file_size);
        }
        FILE *f = fopen(paths[i], "rb");
        if (!f)
            return invalid(c, keys[i], NULL, err, errlen, "%s '%s': %s", keys[i], paths[i],
                           strerror(errno));
        fclose(f);
    }
    return 0;
}

// ---------------------------------------------------------------------------- public API

void config_defaults(Config *c) {
    memset(c, 0, sizeof *c);
    char msg[256];
    for (int i = 0; i < N_KEYS; i++)
        if (set_value(c, NULL, &KEYS[i], KEYS[i].def, msg, sizeof msg)) { // a bug in the table
            fprintf(stderr, "config.c: bad default: %s\n", msg);
            abort();
        }
}

// Parse, apply overrides, validate, render c->text. c holds defaults and its path.
static int load(Config *c, const ConfigChecks *checks, const char *buf, size_t len, int n_over,
                char **over, char *err, int errlen) {
    if (parse_text(c, checks, c->path, buf, len, err, errlen)) return -1;
    for (int i = 0; i < n_over; i++) {
        char msg[512];
        if (apply_override(c, checks, over[i], msg, sizeof msg))
            return errorf(err, errlen, "override '%.200s': %s", over[i], msg);
    }
    if (config_validate(c, checks, err, errlen)) return -1;
    if (!config_to_ini(c)) return errorf(err, errlen, "%s: out of memory", c->path);
    return 0;
}

static int set_path(Config *c, const char *path, char *err, int errlen) {
    if (strlen(path) >= CFG_STR)
        return errorf(err, errlen, "%.80s...: path longer than %d characters", path, CFG_STR - 1);
    strcpy(c->path, path);
    return 0;
}

int config_load(Config *c, const ConfigChecks *checks, const char *path, int n_overrides,
                char **overrides, char *err, int errlen) {
    config_defaults(c);
    if (set_path(c, path, err, errlen)) return -1;
    // Default run name: the file's base name without ".ini".
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ini")) n -= 4;
    if (n > 0) {
        memset(c->name, 0, CFG_STR);
        memcpy(c->name, base, n);
    }
    size_t len;
    char *buf = read_file(path, &len, MAX_FILE, err, errlen);
    if (!buf) return -1;
    int rc = load(c, checks, buf, len, n_overrides, overrides, err, errlen);
    free(buf);
    return rc;
}

int config_load_text(Config *c, const ConfigChecks *checks, const char *name, const char *text,
                     char *err, int errlen) {
    config_defaults(c);
    if (set_path(c, name, err, errlen)) return -1;
    return load(c, checks, text, strlen(text), 0, NULL, err, errlen);
}

int config_set(Config *c, const ConfigChecks *checks, const char *assignment, char *err,
               int errlen) {
    char msg[512];
    if (apply_override(c, checks, assignment, msg, sizeof msg))
        return errorf(err, errlen, "override '%.200s': %s", assignment, msg);
    if (c->text && !config_to_ini(c))
        return errorf(err, errlen, "override '%.200s': out of memory", assignment);
    return 0;
}

// Shortest "%.Ng" (N <= 9) that reads back to the same float: exact, and 0.1 stays "0.1".
static void format_float(char *out, size_t n, float v) {
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(out, n, "%.*g", prec, (double)v);
        if ((float)strtod(out, NULL) == v) return;
    }
}

char *config_to_ini(Config *c) {
    size_t cap = (size_t)N_KEYS * (CFG_STR + 64) + 256, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (int s = 0; s < N_SECTIONS; s++) {
        len += (size_t)snprintf(out + len, cap - len, "%s[%s]\n", s ? "\n" : "", SECTIONS[s]);
        for (int i = 0; i < N_KEYS; i++) {
            const Key *k = &KEYS[i];
            if (strcmp(k->section, SECTIONS[s])) continue;
            const char *field = (const char *)c + k->offset;
            char value[CFG_STR + 8];
            switch (k->type) {
            case T_INT: snprintf(value, sizeof value, "%d", *(const int *)field); break;
            case T_FLOAT: format_float(value, sizeof value, *(const float *)field); break;
            case T_BOOL:
                snprintf(value, sizeof value, "%s", *(const int *)field ? "true" : "false");
                break;
            case T_ENUM: snprintf(value, sizeof value, "%s", k->words[*(const int *)field]); break;
            case T_SCHEME: snprintf(value, sizeof value, "%s", field); break;
            case T_UNTIL:
            case T_STR: {
                size_t n = strlen(field);
                int quote = n == 0 || field[0] == ' ' || field[0] == '\t' || field[n - 1] == ' ' ||
                            field[n - 1] == '\t' || strpbrk(field, ";#");
                snprintf(value, sizeof value, quote ? "\"%s\"" : "%s", field);
            }
            }
            if (k->quiet_default && !strcmp(value, k->def[0] ? k->def : "\"\"")) continue;
            len += (size_t)snprintf(out + len, cap - len, "%s = %s\n", k->key, value);
        }
    }
    free(c->text);
    c->text = out;
    return out;
}

void config_free(Config *c) {
    free(c->text);
    c->text = NULL;
}

const char *config_enum_name(const Config *c, const void *field) {
    size_t offset = (size_t)((const char *)field - (const char *)c);
    for (int i = 0; i < N_KEYS; i++)
        if (KEYS[i].type == T_ENUM && KEYS[i].offset == offset)
            return KEYS[i].words[*(const int *)field];
    return "?";   // not an enum field of c: a caller's mistake, kept printable
}
