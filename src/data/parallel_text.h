// The `parallel_text` task (docs/design.md §5.5): line-aligned source/target files such as
// Multi30k (train.de / train.en), tokenised by the project's own rules.
//
// Reading (untrusted files): both files are read whole; a missing or empty file, or different
// line counts ("train.de has 29000 lines but train.en has 28999") are errors. Line ends may be
// LF or CRLF. A final line without '\n' counts as a line. Invalid UTF-8 is NOT an error: each
// bad byte is replaced by U+FFFD and counted in ParallelText.n_replaced, so one stray Latin-1
// byte does not cost a whole corpus; tools can warn when it is non-zero. NUL bytes count as
// spaces. Lines of any length are fine (a 1 MB line is one long pair, later dropped by
// max_tokens).
//
// Tokenising a line: optional lower-casing (ASCII and Latin-1 letters, see text_lower), split
// on whitespace, and each punctuation character is a token of its own: , . ! ? ; : " ' ( )
// and the Unicode ones listed in tokenize.h (“ „ – …)
// ("Hello, world!" -> hello , world !; "don't" -> don ' t; "„Ja“" -> „ ja “).
//
// Vocabularies come from the training split only: tokens seen >= min_freq times, most
// frequent first (ties in byte order), after the specials (no <cls>); one per side, or one
// joint vocabulary of both sides for the decoder-only model. Tokens longer than
// VOCAB_MAX_TOKEN bytes never enter a vocabulary. Unknown tokens (and literal "<pad>" etc. in
// the text) map to <unk>.
#ifndef PARALLEL_TEXT_H
#define PARALLEL_TEXT_H
#include <stddef.h>
#include "data/dataset.h"
#include "data/vocab.h"

// One side of a corpus: all tokens NUL-separated in one buffer.
typedef struct {
    char *chars; size_t n_chars, cap_chars;
    size_t *tok_off; long n_tok, cap_tok;      // start of token t in chars
    long *line_start; int n_lines, cap_lines;  // tokens of line i: line_start[i]
                                               // .. line_start[i+1]-1
} PtSide;

typedef struct {
    PtSide src, tgt;
    int n_lines;
    long n_replaced;       // invalid UTF-8 bytes replaced by U+FFFD, both files together
} ParallelText;

// Reads a file pair; -1 with a message (nothing to free) on error.
int  parallel_load(const char *src_path, const char *tgt_path, int lowercase,
                   ParallelText *pt, char *err, int errlen);
void parallel_free(ParallelText *pt);

// Appends one tokenised line to a side (used by parallel_load; also for tokenising user input).
// Adds the number of bytes replaced as invalid UTF-8 to *n_replaced. -1 if out of memory.
int  pt_add_line(PtSide *side, const char *line, size_t len, int lowercase, long *n_replaced);
// Appends one line made of the given tokens as they are (used for BPE-segmented text).
int  pt_add_tokens(PtSide *side, const char *const *tokens, int n);
void pt_side_free(PtSide *side);
int  pt_line_len(const PtSide *side, int line);                 // tokens in a line
const char *pt_token(const PtSide *side, int line, int i);      // i-th token of a line

// Vocabularies from a training corpus (min_freq <= 1 keeps every token). -1 if out of memory.
int  parallel_build_vocabs(const ParallelText *train, int min_freq, Vocab *src_vocab,
                           Vocab *tgt_vocab);
// One vocabulary of both sides (the decoder-only form reads source and target as one
// sequence): a token's count is its count on both sides together ("a" in a German and an
// English line is one token seen twice). -1 if out of memory.
int  parallel_build_joint_vocab(const ParallelText *train, int min_freq, Vocab *vocab);

// Maps every pair to ids (Example.src/tgt, label = twin = -1, n_clauses = 0). A training split
// (max_tokens > 0) leaves out the pairs where either side is empty or longer than max_tokens
// tokens (without specials), counted in *n_dropped. A held-out split (max_tokens <= 0) keeps
// every pair, an empty side too (its ids NULL): each line of a test file is scored. -1 if out
// of memory.
int  parallel_to_split(const ParallelText *pt, const Vocab *src_vocab, const Vocab *tgt_vocab,
                       int max_tokens, Split *out, int *n_dropped);
#endif
