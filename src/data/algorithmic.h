// The `algorithmic` task (docs/design.md §5.8): seeded symbol sequences and a fixed rule that
// turns an input sequence into its output, for a translator (source -> target).
//
// Contract:
//   - Symbols are 0 .. alphabet-1 (alphabet >= 1). Symbol s has the token name "s" in decimal
//     ("0", "1", ... "9", "10", ...) and the id ALGO_SYMBOL_ID(s) in the vocabulary that
//     algo_build_vocab makes: the four specials <pad> <unk> <bos> <eos> come first (no <cls>;
//     data/vocab.h), then the symbols in order, so "0" has id 4. Source and target share it.
//   - Rules (the output for input x_1 .. x_n):
//       copy       x_1 .. x_n                    (n symbols)
//       reverse    x_n .. x_1                    (n)
//       duplicate  x_1 .. x_n x_1 .. x_n         (2n)
//       sort       x sorted ascending by symbol  (n)
//   - algo_generate draws n examples: each length uniform in [min_len, max_len], each symbol
//     uniform in the alphabet, from one stream seeded by `seed` alone, so the same seed gives the
//     same split, and the examples of a larger n begin with those of a smaller one. Examples hold
//     ids without specials; n_clauses holds the input length (the length knob, as clauses are
//     for toy_translate), label = twin = -1.
//   - Lengths are 1 .. ALGO_MAX_LENGTH; anything else, an unknown algorithm or alphabet < 1 is
//     refused (-1), and so is running out of memory.
#ifndef ALGORITHMIC_H
#define ALGORITHMIC_H
#include <stdint.h>
#include "config/config.h"   // Algorithm: the rules, named as task.algorithm spells them
#include "data/dataset.h"
#include "data/vocab.h"

#define ALGO_MAX_LENGTH 4096     // longest input sequence (training or test)
#define ALGO_MAX_ALPHABET 1000
#define ALGO_SYMBOL_ID(s) (TOK_EOS + 1 + (s))

// The algorithm named `name` (a word of ALGORITHM_WORDS, config/config.h), or -1.
int  algo_parse(const char *name);
// Output length for an input of n symbols (-1 for an unknown algorithm).
int  algo_output_length(int algo, int n);
// Applies the rule to in[0..n) (symbols or ids: the rule only compares and moves them) and
// writes algo_output_length(algo, n) values to out. -1 for an unknown algorithm.
int  algo_apply(int algo, const int *in, int n, int *out);
// Specials, then the tokens "0" .. "alphabet-1". -1 on a bad alphabet or out of memory.
int  algo_build_vocab(int alphabet, Vocab *v);
int  algo_generate(int algo, int alphabet, uint64_t seed, int n, int min_len, int max_len,
                   Split *out);
#endif
