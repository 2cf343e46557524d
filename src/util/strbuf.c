// Growable text buffer, see strbuf.h.
#include "util/strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Room for `extra` more bytes and the terminating NUL; 0, or -1 (and `failed`) without it.
static int reserve(StrBuf *b, size_t extra) {
    if (b->failed) return -1;
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) { b->failed = 1; return -1; }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) { b->failed = 1; return -1; }
    b->s = s, b->cap = cap;
    return 0;
}

void strbuf_append(StrBuf *b, const void *bytes, size_t n) {
    if (reserve(b, n)) return;
    if (n) memcpy(b->s + b->len, bytes, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void strbuf_puts(StrBuf *b, const char *text) { strbuf_append(b, text, strlen(text)); }

void strbuf_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);   // measure, then write in place
    va_end(ap);
    if (k < 0) { b->failed = 1; return; }
    if (reserve(b, (size_t)k)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

void strbuf_free(StrBuf *b) {
    free(b->s);
    memset(b, 0, sizeof *b);
}
