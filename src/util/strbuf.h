// A growable text buffer: the one behind the JSON writer, the SVG plots and heat maps, and the
// CSV and JSON readers' field buffers. Appending never fails loudly: when memory runs out
// `failed` is set and later appends do nothing, so check it once at the end. Zero-initialise
// it (StrBuf b = {0}); `s` stays NUL-terminated once anything was appended.
#ifndef UTIL_STRBUF_H
#define UTIL_STRBUF_H
#include <stddef.h>

typedef struct StrBuf {
    char *s;
    size_t len, cap;
    int failed;
} StrBuf;

void strbuf_append(StrBuf *b, const void *bytes, size_t n);
void strbuf_puts(StrBuf *b, const char *text);
void strbuf_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_free(StrBuf *b);
#endif
