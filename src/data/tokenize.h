// Word-level tokenising rules for real text (parallel_text) and their inverse.
//
// Splitting: whitespace separates tokens (ASCII whitespace and the Unicode spaces U+0085,
// U+00A0, U+1680, U+2000..U+200B, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF); every
// punctuation character is a token of its own:
//   ASCII         , . ! ? ; : " ' ( )
//   Latin-1       ¡ § « ¶ · » ¿
//   General       U+2010..U+2027 (dashes ‐ – —, quotes ‘ ’ ‚ “ ” „,
//                 † • … ·)
//                 U+2030..U+205E (‰ ′ ″ ‹ › ‼ ⁇ ...)
//   CJK/fullwidth 、 。 「 」 『 』 ！ （ ） ， ． ： ； ？
// So "„Hallo“, sagte er…" -> „ Hallo “ , sagte er … . ASCII '-' stays inside words
// ("t-shirt"), as do digits.
//
// Detokenising joins tokens with single spaces, except: no space before , . ! ? ; : ) ” ’ …
// » and no space after ( „ ‚ « ¿ ¡; a straight quote " opens and closes alternately; an
// apostrophe between two word tokens joins them ("man ' s" -> "man's", "don ' t" -> "don't").
#ifndef DATA_TOKENIZE_H
#define DATA_TOKENIZE_H
#include <stddef.h>

// Byte length of the whitespace / punctuation character at s (n bytes available), or 0 if
// the character there is not one. s must be valid UTF-8 (see utf8_repair).
int tok_space_len(const char *s, size_t n);
int tok_punct_len(const char *s, size_t n);

// Joins n tokens into a sentence by the rules above. Returns a malloc'd string (caller
// frees), NULL when out of memory.
char *detokenize(const char *const *tokens, int n);
#endif
