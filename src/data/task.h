// A task: the data a config asks for (vocabularies, splits, language-model streams), built
// the same way by ./train and ./eval so that a checkpoint's run can be re-created.
//   order          classifier data: train/val/test of "the N1 V the N2" + twins
//                  (test also "N1 V N2")
//   toy_translate  German -> English pairs, 1..3 clauses; test sets of k clauses on demand
//   parallel_text  line-aligned files (e.g. Multi30k); a translator, or with model = lm the
//                  source as a prefix: <eos> source <bos> target in one joint vocabulary
//   lm             English text from the toy generator, cut into windows
//   algorithmic    symbol sequences -> copy / reverse / duplicate / sort; test sets of input
//                  length k; a translator, or with model = lm one sequence
//                  <eos> input <bos> output (BATCH_PROMPT)
// Seeds: training data follows run.seed; validation and test data use fixed seeds of their
// own, disjoint from training, so every run (any scheme, any seed) is scored on the same sets.
#ifndef TASK_H
#define TASK_H
#include "data/algorithmic.h"
#include "data/batch.h"
#include "data/bpe.h"
#include "data/order.h"
#include "data/toy_translate.h"
#include "data/vocab.h"
#include "config/config.h"

// lm: the tokens of the validation stream, and the most training tokens a run generates
// (task.train_size windows of task.window + 1 tokens, capped); the memory estimate counts them.
#define LM_VAL_TOKENS 200000
#define LM_MAX_TRAIN_TOKENS (1L << 28)

typedef struct Task {
    Config cfg;                  // copy (text not owned)
    Vocab src_vocab, tgt_vocab;  // classifier and lm use src_vocab only
    int has_tgt_vocab;
    Split train, val, test;      // lm: empty (it uses the streams)
    int *lm_train, n_lm_train;   // lm token streams
    int *lm_val, n_lm_val;
    int n_classes;
    BatchKind batch_kind;
    int add_cls;                 // classifier with pool = cls
    ToyLexicon toy;              // kept to generate test sets of other lengths
    OrderLexicon order;
    Bpe src_bpe, tgt_bpe;        // parallel_text with bpe_merges > 0: merges learned on train
    int has_bpe;
} Task;

int  task_load(Task *t, const Config *c, char *err, int errlen);
void task_free(Task *t);
// Whether a held-out set of length k exists for c's task (toy_translate: k clauses; algorithmic:
// input length k; lm: a window of k tokens, any k): 0, or -1 with a message.
int  task_check_length(const Config *c, int k, char *err, int errlen);
// toy_translate: a held-out set of n sentences with exactly k clauses; algorithmic: n inputs of
// exactly k symbols. Fixed seed per k (the same set for every run), prefix-stable in n.
int  task_length_split(Task *t, int k, int n, Split *out, char *err, int errlen);
// Clause index of each position of a target row (a batch's tgt_out row of T entries: tokens,
// then <eos> unless train.eos = false, then <pad>): toy_translate counts its clauses
// (toy_target_clauses), and <eos> belongs to the last clause; every other task has one
// clause, 0. <pad> positions get -1.
void task_target_clauses(const Task *t, const int *row, int T, int *clause);
// The target token that ends a sentence besides <eos>: "." in toy_translate (every English
// sentence ends with it), -1 for the other tasks.
int  task_end_token(const Task *t);
// The longest sequence the model's self-attention saw in training (the keys of the last query):
// lm: task.window; the decoder-only algorithmic and parallel_text forms (BATCH_PROMPT): <eos> + input + <bos> +
// output; a translator's longest source or target with its <eos> or <bos>; the classifier's
// longest sentence (it has no <eos>), with <cls> when it pools one. It is n_train of
// model.attn_logit_scale (docs/design.md §2.4), and what a learned table must cover.
int  task_train_length(const Task *t);
// Vocabulary files beside a checkpoint: "vocab.txt" (classifier, lm) or
// "src_vocab.txt" + "tgt_vocab.txt" (translator), and with BPE the merges "src_bpe.txt" +
// "tgt_bpe.txt" (see data/bpe.h).
int  task_save_vocabs(const Task *t, const char *dir, char *err, int errlen);
// The saved vocabularies must equal the ones this task built (same data, same lexicon).
int  task_check_vocabs(const Task *t, const char *dir, char *err, int errlen);

// Parse "3,12" or "1..12" or "32,64..256" (a..b steps by 1 for b - a <= 64, else doubles).
// Returns the count (<= cap) or -1 with a message.
int  parse_lengths(const char *text, int *out, int cap, char *err, int errlen);
#endif
