// Vocabulary: token strings <-> integer ids.
//
// Every vocabulary starts with the specials <pad>=0 <unk>=1 <bos>=2 <eos>=3, and <cls>=4 for a
// classifier that pools a prepended <cls> token (docs/design.md §5.1). Lookup is a hash table, so
// mapping a large corpus is linear. Tokens are non-empty, at most VOCAB_MAX_TOKEN bytes and contain
// no whitespace or NUL, so that the file format (one token a line, id = line number - 1) always
// round-trips.
#ifndef VOCAB_H
#define VOCAB_H
#include "util/str_ids.h"

enum { TOK_PAD = 0, TOK_UNK = 1, TOK_BOS = 2, TOK_EOS = 3, TOK_CLS = 4 };

#define VOCAB_MAX_TOKEN 256

// A vocabulary is a string table whose strings are tokens: str[id] for id < n.
typedef StrIds Vocab;

// Empty vocabulary holding the specials (<cls> at 4 when with_cls). 0, or -1 if out of memory.
int  vocab_init(Vocab *v, int with_cls);
void vocab_free(Vocab *v);

// Adds tok if absent. Returns its id (existing or new), or -1 if tok is not a valid token
// (empty, too long, whitespace inside) or memory ran out.
int  vocab_add(Vocab *v, const char *tok);
// Id of tok, TOK_UNK if absent.
int  vocab_id(const Vocab *v, const char *tok);
// Id of tok, -1 if absent.
int  vocab_find(const Vocab *v, const char *tok);
// For mapping text: like vocab_id, but a literal "<pad>", "<eos>", ... in the input text is an
// unknown word, never the special token (which would corrupt padding or end-of-sequence).
int  vocab_word_id(const Vocab *v, const char *tok);
// Token string of id, or NULL if id is out of range.
const char *vocab_token(const Vocab *v, int id);
// 1 if id is one of the specials this vocabulary holds (0..3, and 4 when it has <cls>).
int  vocab_is_special(const Vocab *v, int id);
int  vocab_has_cls(const Vocab *v);

// One token a line, written atomically (io/fileio.h write_file_atomic).
int  vocab_save(const Vocab *v, const char *path, char *err, int errlen);
// Loads a file written by vocab_save (or by hand). The file is untrusted: lines 1-4 must be
// <pad> <unk> <bos> <eos>; <cls> may only appear on line 5; tokens must be valid (see above)
// and unique. A trailing '\r' (CRLF file) is ignored. On error returns -1 with
// `file:line: message` in err and *v left empty (nothing to free).
int  vocab_load(Vocab *v, const char *path, char *err, int errlen);
#endif
