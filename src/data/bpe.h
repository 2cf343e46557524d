// Byte-pair encoding (Sennrich et al., 2016) over the words of a tokenised corpus.
//
// Learning: every word (a token of a PtSide) starts as its characters (UTF-8 code points),
// the last one marked as word-final ("r</w>"); the most frequent adjacent pair of symbols,
// counted over the corpus, is merged into a new symbol, again and again, n_merges times or
// until no pair occurs twice. Ties go to the pair whose symbols come first in byte order,
// so the merges are a pure function of the text (no hash order, no threads); subword-nmt's
// learn_bpe.py counts alike but gives ties to the last pair, so on ties the merges differ.
// Words longer than BPE_MAX_WORD characters are not learned from.
//
// Segmenting a word applies the merges in the order learned (lowest rank first, every
// occurrence left to right). Subwords that do not end the word carry "@@" (the subword-nmt
// convention): "hundehütte" -> "hunde@@" "hütte". bpe_join undoes it. Words longer than
// BPE_MAX_WORD characters are split into characters without merges (bounded work on hostile
// input). A word that itself ends in "@@" is ambiguous after segmentation; real text does not
// have such words.
//
// Merges file (saved beside a checkpoint): first line "#version: 0.2", then one merge a line,
// "LEFT RIGHT" with one space, in the order learned (the format of subword-nmt). Loading is
// strict: each symbol must be a single character or the result of an earlier merge, "</w>"
// may only end the right symbol, no duplicate merges, valid UTF-8, no control characters.
#ifndef DATA_BPE_H
#define DATA_BPE_H
#include <stdint.h>
#include "data/parallel_text.h"
#include "util/str_ids.h"

#define BPE_MAX_WORD 64          // characters
#define BPE_MAX_LINE 1024        // bytes per line in a merges file
#define BPE_MAX_MERGES (1 << 20)

typedef struct Bpe {
    StrIds sym;                  // every symbol: single characters and merge results
    int *left, *right, *result;  // merge r joins left[r] right[r] into result[r]
    int n_merges, cap_merges;
    uint64_t *pair_key;          // (left << 32 | right) + 1; 0 = empty slot
    int *pair_rank, n_pair_slots;
} Bpe;

// Learn up to n_merges merges from the words of `text`. 0, or -1 if out of memory.
int  bpe_learn(const PtSide *text, int n_merges, Bpe *b);
void bpe_free(Bpe *b);
// Atomic write (temporary file, fsync, rename).
int  bpe_save(const Bpe *b, const char *path, char *err, int errlen);
// -1 with `path:line: message` on a bad file (b left empty, nothing to free).
int  bpe_load(Bpe *b, const char *path, char *err, int errlen);

// Segment one word: returns the number of subword tokens, written NUL-separated into buf
// (needs strlen(word) + 3 * (number of characters) + 1 bytes; bpe_buf_size gives it) with
// pointers in toks[] (room for one per character). -1 if out of memory.
size_t bpe_buf_size(const char *word);
int  bpe_segment_word(const Bpe *b, const char *word, char *buf, const char **toks);
// Segment every line of `in` into a new side `out`. -1 if out of memory (out freed).
int  bpe_segment_side(const Bpe *b, const PtSide *in, PtSide *out);
// Undo the segmentation: "hun@@" "de" -> "hunde". Words are written NUL-separated into buf
// (at least as large as the tokens with their NULs) and pointed to from words[] (room for
// n). Returns the number of words.
int  bpe_join(const char *const *tokens, int n, char *buf, const char **words);
#endif
