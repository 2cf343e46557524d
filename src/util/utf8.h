// UTF-8 validation (RFC 3629), strict: overlong forms, UTF-16 surrogates, code points above
// U+10FFFF and truncated sequences are all invalid. The one definition behind the tokenisers,
// the BPE files, the JSON/safetensors reader and the SVG writer's escaping.
#ifndef UTIL_UTF8_H
#define UTIL_UTF8_H
#include <stddef.h>

// Length (1..4) of the well-formed UTF-8 sequence starting at s (n bytes available), or 0 if
// the bytes there are not valid UTF-8.
int utf8_seq_len(const unsigned char *s, size_t n);

// 1 if all n bytes at s are valid UTF-8, else 0.
int utf8_valid(const char *s, size_t n);
#endif
