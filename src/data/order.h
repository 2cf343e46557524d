// The `order` task ("dog bites man", docs/design.md §5.3): a classifier must name the subject of
// `the N1 V the N2`. Every sentence's swapped twin `the N2 V the N1` (label N2) is in the same
// split, so a bag of words is at chance between the two nouns.
//
// Lexicon file (data/order_lexicon.txt): one entry a line, `noun WORD` or `verb WORD` (verbs in
// the 3rd person singular), '#' comments, blank lines ignored. Words are lower-cased letters
// (see text_is_word), unique across nouns and verbs, not "the". At least 2 nouns and 1 verb.
// Class k is the k-th noun in file order.
//
// Generation (deterministic for a seed):
//   - a *group* is an unordered noun pair {a, b} with a verb: the sentence `the a V the b`
//     and its twin `the b V the a`. All C(n_nouns, 2) * n_verbs groups are enumerated and
//     shuffled with the seed.
//   - Sizes count sentences and are rounded up to whole groups (an odd size gets one more).
//     Groups go to test first, then val, then train; when the requested sizes exceed what
//     exists, later splits are clipped (train gets what is left). Read split.n for the result.
//   - Every split stores a group as two adjacent examples 2k, 2k+1 with twin set both ways.
//   - The test split then ALSO holds the literal three-word forms `a V b` / `b V a` of each of
//     its groups (twins of each other), after all its five-word sentences. Examples record
//     their form in n_clauses: ORDER_FORM_FULL (5 words) or ORDER_FORM_SHORT (3 words).
//     So test.n = 2 * (five-word sentences). Train and val hold five-word sentences only.
//   - No (a, V, b) appears in two splits.
//
// Vocabulary (order_build_vocab): <pad> <unk> <bos> <eos> <cls>, "the", the nouns, the verbs,
// in file order: closed, so no example ever holds <unk>.
#ifndef ORDER_H
#define ORDER_H
#include <stdint.h>
#include "data/dataset.h"
#include "data/vocab.h"

enum { ORDER_FORM_SHORT = 3, ORDER_FORM_FULL = 5 };

typedef struct {
    char **nouns; int n_nouns;
    char **verbs; int n_verbs;
} OrderLexicon;

// Reads and checks a lexicon file; -1 with `file:line: message` on error (lex left empty).
int  order_load_lexicon(const char *path, OrderLexicon *lex, char *err, int errlen);
void order_lexicon_free(OrderLexicon *lex);

// Number of classes (= nouns) and the name of class `label` (NULL if out of range).
int  order_n_classes(const OrderLexicon *lex);
const char *order_class_name(const OrderLexicon *lex, int label);
// Number of sentence groups (pairs of twins) that exist: C(n_nouns, 2) * n_verbs.
int  order_n_groups(const OrderLexicon *lex);

// Vocabulary with <cls> at 4 (always, so one vocabulary serves mean and cls pooling).
int  order_build_vocab(const OrderLexicon *lex, Vocab *v);

// Generates the three splits (see above). Sizes must be >= 0. The vocabulary must come from
// order_build_vocab on the same lexicon. -1 with a message on bad arguments / out of memory.
int  order_generate(const OrderLexicon *lex, const Vocab *v, uint64_t seed,
                    int train_size, int val_size, int test_size,
                    Split *train, Split *val, Split *test, char *err, int errlen);
#endif
