// Byte-level text helpers shared by the tokenisers and lexicon readers: UTF-8 repair (the
// validation itself is util/utf8.h), lower-casing, and what counts as a lexicon word.
#ifndef DATA_TEXT_H
#define DATA_TEXT_H
#include <stddef.h>
#include "util/utf8.h"

// Replaces every byte that does not start a valid UTF-8 sequence with U+FFFD (EF BF BD), in a
// new NUL-terminated string (*out, caller frees; *out_len its length). Returns the number of
// bytes replaced, or -1 on allocation failure.
long utf8_repair(const char *s, size_t n, char **out, size_t *out_len);

// Lower-cases in place: ASCII A-Z and the Latin-1 letters U+00C0..U+00DE (except U+00D7 ×)
// written in UTF-8 (Ä Ö Ü É ... -> ä ö ü é ...). Byte lengths do not change.
void text_lower(char *s);

// A lexicon word: non-empty valid UTF-8 made of ASCII letters, '-', '\'' and non-ASCII
// characters (umlauts, ß, ...); no digits, other punctuation, spaces or control bytes.
int  text_is_word(const char *s);
#endif
