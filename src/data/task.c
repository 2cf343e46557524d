#include "data/task.h"
#include "core/errors.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/parallel_text.h"

// Fixed seeds for held-out data: the same sets for every run.
#define VAL_SEED  0x5eed0001u
#define TEST_SEED 0x5eed0002u
#define TEST_LENGTH_SEED(k) (0x5eed1000u + (unsigned)(k))
// algorithmic: the held-out seeds above 2^32, out of reach of run.seed (an int), so no run trains
// on the data it is scored on. (toy_translate and lm keep the plain seeds: their sets stay as they
// were.)
#define HELDOUT(seed) ((1ull << 32) | (uint64_t)(seed))

static const char *lexicon_path(const Config *c, const char *fallback) {
    return c->lexicon[0] ? c->lexicon : fallback;
}

static int load_order(Task *t, char *err, int errlen) {
    const Config *c = &t->cfg;
    if (order_load_lexicon(lexicon_path(c, "data/order_lexicon.txt"), &t->order, err, errlen))
        return -1;
    if (order_build_vocab(&t->order, &t->src_vocab)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t->n_classes = order_n_classes(&t->order);
    t->batch_kind = BATCH_CLASSIFY;
    t->add_cls = c->pool == POOL_CLS;
    // The split of sentence groups follows the run seed: each seed sees other held-out pairs.
    return order_generate(&t->order, &t->src_vocab, (uint64_t)c->seed, c->train_size, c->val_size,
                          c->test_size, &t->train, &t->val, &t->test, err, errlen);
}

static int load_toy(Task *t, char *err, int errlen) {
    const Config *c = &t->cfg;
    if (toy_load_lexicon(lexicon_path(c, "data/toy_lexicon.txt"), &t->toy, err, errlen)) return -1;
    if (toy_build_vocabs(&t->toy, &t->src_vocab, &t->tgt_vocab)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t->has_tgt_vocab = 1;
    t->batch_kind = BATCH_TRANSLATE;
    if (toy_generate(&t->toy, (uint64_t)c->seed, c->train_size, c->min_clauses, c->max_clauses,
                     &t->src_vocab, &t->tgt_vocab, &t->train) ||
        toy_generate(&t->toy, VAL_SEED, c->val_size, c->min_clauses, c->max_clauses,
                     &t->src_vocab, &t->tgt_vocab, &t->val) ||
        toy_generate(&t->toy, TEST_SEED, c->test_size, c->min_clauses, c->max_clauses,
                     &t->src_vocab, &t->tgt_vocab, &t->test)) {
        snprintf(err, errlen, "cannot generate toy_translate data (clauses %d..%d)", c->min_clauses,
                 c->max_clauses);
        return -1;
    }
    return 0;
}

// Source and target share the symbol vocabulary; held-out sets use the fixed seeds above.
static int load_algorithmic(Task *t, char *err, int errlen) {
    const Config *c = &t->cfg;
    // The decoder-only form reads <eos> input <bos> output as one sequence, in one vocabulary
    // (vocab.txt).
    int decoder_only = c->model == MODEL_LM;
    if (algo_build_vocab(c->alphabet, &t->src_vocab) ||
        (!decoder_only && algo_build_vocab(c->alphabet, &t->tgt_vocab))) {
        snprintf(err, errlen, "alphabet = %d: expected 1..%d symbols", c->alphabet,
                 ALGO_MAX_ALPHABET);
        return -1;
    }
    t->has_tgt_vocab = !decoder_only;
    t->batch_kind = t->has_tgt_vocab ? BATCH_TRANSLATE : BATCH_PROMPT;
    const uint64_t seeds[3] = {(uint64_t)c->seed, HELDOUT(VAL_SEED), HELDOUT(TEST_SEED)};
    const int sizes[3] = {c->train_size, c->val_size, c->test_size};
    Split *splits[3] = {&t->train, &t->val, &t->test};
    for (int i = 0; i < 3; i++)
        if (algo_generate(c->algorithm, c->alphabet, seeds[i], sizes[i], c->min_length,
                          c->max_length, splits[i])) {
            snprintf(err, errlen, "cannot generate %s data (lengths %d..%d)",
                     config_enum_name(c, &c->algorithm), c->min_length, c->max_length);
            return -1;
        }
    return 0;
}

static int load_lm(Task *t, char *err, int errlen) {
    const Config *c = &t->cfg;
    Vocab unused;
    if (toy_load_lexicon(lexicon_path(c, "data/toy_lexicon.txt"), &t->toy, err, errlen)) return -1;
    if (toy_build_vocabs(&t->toy, &unused, &t->src_vocab)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    vocab_free(&unused);
    t->batch_kind = BATCH_TRANSLATE;
    long train_tokens = (long)c->train_size * (c->window + 1);
    if (train_tokens > LM_MAX_TRAIN_TOKENS) train_tokens = LM_MAX_TRAIN_TOKENS;
    if (toy_lm_stream(&t->toy, (uint64_t)c->seed, (int)train_tokens, &t->src_vocab, &t->lm_train,
                      &t->n_lm_train) ||
        toy_lm_stream(&t->toy, VAL_SEED, LM_VAL_TOKENS, &t->src_vocab, &t->lm_val, &t->n_lm_val)) {
        snprintf(err, errlen, "cannot generate the language-model text");
        return -1;
    }
    return 0;
}

// Invalid UTF-8 is repaired (U+FFFD), not refused: say how much, so a wrong encoding shows.
static void warn_replaced(const ParallelText *pt, const char *src, const char *tgt) {
    if (pt->n_replaced)
        fprintf(stderr, "%s, %s: %ld invalid UTF-8 bytes replaced by U+FFFD (is the file UTF-8?)\n",
                src, tgt, pt->n_replaced);
}

// Held-out words missing from the training vocabulary become <unk>; say how many, since a
// file of nothing but <unk> (wrong language, wrong file) still "evaluates".
static void report_unknown(const Split *s, const char *src, const char *tgt) {
    long unk[2] = {0, 0}, total[2] = {0, 0};
    for (int i = 0; i < s->n; i++) {
        const Example *e = &s->ex[i];
        for (int j = 0; j < e->n_src; j++) unk[0] += e->src[j] == TOK_UNK;
        for (int j = 0; j < e->n_tgt; j++) unk[1] += e->tgt[j] == TOK_UNK;
        total[0] += e->n_src;
        total[1] += e->n_tgt;
    }
    const char *names[2] = {src, tgt};
    for (int k = 0; k < 2; k++)
        if (unk[k])
            fprintf(stderr,
                    "%s: %ld of %ld tokens (%.1f%%) are not in the training vocabulary "
                    "(read as <unk>)%s\n",
                    names[k], unk[k], total[k], 100.0 * unk[k] / total[k],
                    unk[k] == total[k] ? ": ALL of them" : "");
}

// BPE: replace both sides of pt by their subword segmentation.
static int segment_pair(const Task *t, ParallelText *pt) {
    PtSide src, tgt;
    if (bpe_segment_side(&t->src_bpe, &pt->src, &src)) return -1;
    if (bpe_segment_side(&t->tgt_bpe, &pt->tgt, &tgt)) { pt_side_free(&src); return -1; }
    pt_side_free(&pt->src);
    pt_side_free(&pt->tgt);
    pt->src = src;
    pt->tgt = tgt;
    return 0;
}

static int load_parallel(Task *t, char *err, int errlen) {
    const Config *c = &t->cfg;
    ParallelText pt;
    int dropped = 0;
    if (parallel_load(c->train_src, c->train_tgt, c->lowercase, &pt, err, errlen)) return -1;
    warn_replaced(&pt, c->train_src, c->train_tgt);
    if (c->bpe_merges > 0) {   // merges from the training split only, one set per language
        t->has_bpe = 1;
        if (bpe_learn(&pt.src, c->bpe_merges, &t->src_bpe) ||
            bpe_learn(&pt.tgt, c->bpe_merges, &t->tgt_bpe) || segment_pair(t, &pt)) {
            parallel_free(&pt);
            snprintf(err, errlen, "out of memory learning BPE merges");
            return -1;
        }
    }
    // The decoder-only form (model = lm) reads <eos> source <bos> target as one sequence, in one
    // vocabulary of both languages (vocab.txt); the ids of both sides then come from it.
    int decoder_only = c->model == MODEL_LM;
    const Vocab *tv = decoder_only ? &t->src_vocab : &t->tgt_vocab;
    int rc = (decoder_only ? parallel_build_joint_vocab(&pt, c->min_freq, &t->src_vocab)
                           : parallel_build_vocabs(&pt, c->min_freq, &t->src_vocab, &t->tgt_vocab)) ||
             parallel_to_split(&pt, &t->src_vocab, tv, c->max_tokens, &t->train, &dropped);
    parallel_free(&pt);
    // before any error return: task_free frees tgt_vocab only then
    t->has_tgt_vocab = !decoder_only;
    if (rc) { snprintf(err, errlen, "out of memory"); return -1; }
    if (dropped)
        fprintf(stderr, "%s: skipped %d pairs that are empty or longer than max_tokens = %d\n",
                c->train_src, dropped, c->max_tokens);
    if (t->train.n == 0) {
        snprintf(err, errlen, "%s: no usable sentence pairs", c->train_src);
        return -1;
    }
    // Every token below min_freq: the model would see nothing but <unk>.
    if (t->src_vocab.n <= TOK_EOS + 1 || tv->n <= TOK_EOS + 1) {
        snprintf(err, errlen,
                 "%s: no token occurs min_freq = %d times: the vocabulary would hold only <unk>",
                 t->src_vocab.n <= TOK_EOS + 1 ? c->train_src : c->train_tgt, c->min_freq);
        return -1;
    }
    t->batch_kind = decoder_only ? BATCH_PROMPT : BATCH_TRANSLATE;
    const char *pairs[2][2] = {{c->val_src, c->val_tgt}, {c->test_src, c->test_tgt}};
    Split *splits[2] = {&t->val, &t->test};
    for (int i = 0; i < 2; i++) {
        if (!pairs[i][0][0]) continue;
        if (parallel_load(pairs[i][0], pairs[i][1], c->lowercase, &pt, err, errlen)) return -1;
        if (t->has_bpe && segment_pair(t, &pt)) {
            parallel_free(&pt);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        warn_replaced(&pt, pairs[i][0], pairs[i][1]);
        // Held-out pairs are never dropped, not for length nor for an empty side: every line of
        // a test file is a test case.
        rc = parallel_to_split(&pt, &t->src_vocab, tv, 0, splits[i], &dropped);
        parallel_free(&pt);
        if (rc) { snprintf(err, errlen, "out of memory"); return -1; }
        report_unknown(splits[i], pairs[i][0], pairs[i][1]);
    }
    return 0;
}

int task_load(Task *t, const Config *c, char *err, int errlen) {
    memset(t, 0, sizeof *t);
    t->cfg = *c;
    t->cfg.text = NULL;
    int rc;
    switch (t->cfg.task) {
    case TASK_ORDER: rc = load_order(t, err, errlen); break;
    case TASK_TOY_TRANSLATE: rc = load_toy(t, err, errlen); break;
    case TASK_PARALLEL_TEXT: rc = load_parallel(t, err, errlen); break;
    case TASK_LM: rc = load_lm(t, err, errlen); break;
    case TASK_ALGORITHMIC: rc = load_algorithmic(t, err, errlen); break;
    // config parsing stops it first
    default: rc = errorf(err, errlen, "unknown task %d", (int)c->task);
    }
    // train.eos = false: the translator's targets have no end token (config validation allows
    // it for translators only).
    if (!rc && !c->eos && t->batch_kind == BATCH_TRANSLATE) t->batch_kind = BATCH_TRANSLATE_NO_EOS;
    if (rc) task_free(t);
    return rc;
}

void task_free(Task *t) {
    vocab_free(&t->src_vocab);
    if (t->has_tgt_vocab) vocab_free(&t->tgt_vocab);
    split_free(&t->train);
    split_free(&t->val);
    split_free(&t->test);
    free(t->lm_train);
    free(t->lm_val);
    toy_lexicon_free(&t->toy);
    order_lexicon_free(&t->order);
    if (t->has_bpe) { bpe_free(&t->src_bpe); bpe_free(&t->tgt_bpe); }
    memset(t, 0, sizeof *t);
}

int task_check_length(const Config *c, int k, char *err, int errlen) {
    TaskKind kind = c->task;
    if (kind == TASK_TOY_TRANSLATE) {
        if (k >= 1 && k <= TOY_MAX_CLAUSES) return 0;
        snprintf(err, errlen, "%d clauses asked for; toy_translate supports 1..%d", k,
                 TOY_MAX_CLAUSES);
    } else if (kind == TASK_ALGORITHMIC) {
        if (k >= 1 && k <= ALGO_MAX_LENGTH) return 0;
        snprintf(err, errlen, "input length %d asked for; algorithmic supports 1..%d", k,
                 ALGO_MAX_LENGTH);
    } else if (kind == TASK_LM) {
        return 0;   // any window length
    } else {
        snprintf(err, errlen,
                 "task = %s has no lengths to choose (toy_translate: clauses; algorithmic: input "
                 "length; lm: window sizes)",
                 config_enum_name(c, &c->task));
    }
    return -1;
}

int task_length_split(Task *t, int k, int n, Split *out, char *err, int errlen) {
    const Config *c = &t->cfg;
    if (t->cfg.task == TASK_LM) {
        snprintf(err, errlen, "lm: lengths are window sizes, not test sets");
        return -1;
    }
    if (task_check_length(c, k, err, errlen)) return -1;
    int rc =
        t->cfg.task == TASK_TOY_TRANSLATE
            ? toy_generate(&t->toy, TEST_LENGTH_SEED(k), n, k, k, &t->src_vocab, &t->tgt_vocab, out)
            : algo_generate(c->algorithm, c->alphabet, HELDOUT(TEST_LENGTH_SEED(k)), n, k, k, out);
    if (rc) {
        snprintf(err, errlen, "cannot generate %d examples of length %d", n, k);
        return -1;
    }
    return 0;
}

void task_target_clauses(const Task *t, const int *row, int T, int *clause) {
    int n = 0;
    while (n < T && row[n] != TOK_EOS && row[n] != TOK_PAD) n++;
    if (t->cfg.task == TASK_TOY_TRANSLATE)
        toy_target_clauses(&t->toy, &t->tgt_vocab, row, n, clause);
    else for (int i = 0; i < n; i++) clause[i] = 0;
    for (int i = n; i < T; i++) clause[i] = row[i] == TOK_EOS ? (n ? clause[n - 1] : 0) : -1;
}

int task_end_token(const Task *t) {
    return t->cfg.task == TASK_TOY_TRANSLATE ? vocab_id(&t->tgt_vocab, ".") : -1;
}

int task_train_length(const Task *t) {
    if (t->cfg.task == TASK_LM) return t->cfg.window;
    if (t->batch_kind == BATCH_PROMPT) {   // <eos> input <bos> output, as one sequence
        int max_both = 0;
        for (int i = 0; i < t->train.n; i++)
            if (t->train.ex[i].n_src + t->train.ex[i].n_tgt > max_both)
                max_both = t->train.ex[i].n_src + t->train.ex[i].n_tgt;
        return max_both + 2;
    }
    int max_src = 0, max_tgt = 0;
    split_max_lengths(&t->train, &max_src, &max_tgt);
    // the classifier's sentence (data/batch.c): no <eos>, a <cls> first with pool = cls
    if (t->batch_kind == BATCH_CLASSIFY) return max_src + t->add_cls;
    return (max_src > max_tgt ? max_src : max_tgt) + 1;
}

static void vocab_paths(const Task *t, const char *dir, char *a, char *b, size_t n) {
    snprintf(a, n, "%s/%s", dir, t->has_tgt_vocab ? "src_vocab.txt" : "vocab.txt");
    snprintf(b, n, "%s/tgt_vocab.txt", dir);
}

int task_save_vocabs(const Task *t, const char *dir, char *err, int errlen) {
    char a[600], b[600];
    vocab_paths(t, dir, a, b, sizeof a);
    if (vocab_save(&t->src_vocab, a, err, errlen)) return -1;
    if (t->has_bpe) {
        snprintf(a, sizeof a, "%s/src_bpe.txt", dir);
        snprintf(b, sizeof b, "%s/tgt_bpe.txt", dir);
        if (bpe_save(&t->src_bpe, a, err, errlen) || bpe_save(&t->tgt_bpe, b, err, errlen))
            return -1;
        vocab_paths(t, dir, a, b, sizeof a);
    }
    return t->has_tgt_vocab ? vocab_save(&t->tgt_vocab, b, err, errlen) : 0;
}

static int same_vocab(const Vocab *built, const char *path, char *err, int errlen) {
    Vocab saved;
    if (vocab_load(&saved, path, err, errlen)) return -1;
    int rc = 0;
    if (saved.n != built->n) {
        snprintf(err, errlen,
                 "%s: %d tokens, but the task's data gives %d (was the lexicon or data changed?)",
                 path, saved.n, built->n);
        rc = -1;
    }
    for (int i = 0; !rc && i < saved.n; i++)
        if (strcmp(saved.str[i], built->str[i])) {
            snprintf(err, errlen,
                     "%s:%d: token '%s', but the task's data gives '%s' "
                     "(was the lexicon or data changed?)",
                     path, i + 1, saved.str[i], built->str[i]);
            rc = -1;
        }
    vocab_free(&saved);
    return rc;
}

int task_check_vocabs(const Task *t, const char *dir, char *err, int errlen) {
    char a[600], b[600];
    vocab_paths(t, dir, a, b, sizeof a);
    if (same_vocab(&t->src_vocab, a, err, errlen)) return -1;
    return t->has_tgt_vocab ? same_vocab(&t->tgt_vocab, b, err, errlen) : 0;
}

int parse_lengths(const char *text, int *out, int cap, char *err, int errlen) {
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 1 || a > (1 << 24)) goto bad;
        p = end;
        if (p[0] == '.' && p[1] == '.') {
            b = strtol(p + 2, &end, 10);
            if (end == p + 2 || b < a || b > (1 << 24)) goto bad;
            p = end;
        }
        for (long v = a; v <= b; v = (b - a <= 64) ? v + 1 : v * 2) {
            if (n == cap) {
                snprintf(err, errlen, "lengths '%s': more than %d values", text, cap);
                return -1;
            }
            out[n++] = (int)v;
        }
        if (*p == ',') p++;
        else if (*p) goto bad;
    }
    return n;
bad:
    snprintf(err, errlen, "lengths '%s': expected numbers >= 1 like '3,12' or '1..12'", text);
    return -1;
}
