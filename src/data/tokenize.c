// Whitespace and punctuation classes, and detokenising, see tokenize.h.
#include "data/tokenize.h"
#include <stdlib.h>
#include <string.h>
#include "data/text.h"

// The code point at s and its byte length (0 when not valid UTF-8).
static unsigned code_point(const char *s, size_t n, int *len) {
    const unsigned char *u = (const unsigned char *)s;
    *len = utf8_seq_len(u, n);
    if (*len <= 1) return *len ? u[0] : 0;
    unsigned cp = u[0] & (0x7F >> *len);
    for (int i = 1; i < *len; i++) cp = (cp << 6) | (u[i] & 0x3F);
    return cp;
}

int tok_space_len(const char *s, size_t n) {
    int len;
    unsigned c = code_point(s, n, &len);
    if (len == 0) return 0;
    int space = c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 ||
                (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
                c == 0x205F || c == 0x3000 || c == 0xFEFF;
    return space ? len : 0;
}

int tok_punct_len(const char *s, size_t n) {
    int len;
    unsigned c = code_point(s, n, &len);
    if (len == 0 || c == 0) return 0;
    int punct = (c < 0x80 && strchr(",.!?;:\"'()", (int)c)) ||
                c == 0xA1 || c == 0xA7 || c == 0xAB || c == 0xB6 || c == 0xB7 ||
                c == 0xBB || c == 0xBF ||
                (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) ||
                (c >= 0x3001 && c <= 0x3003) || (c >= 0x300C && c <= 0x300F) ||
                c == 0xFF01 || c == 0xFF08 || c == 0xFF09 || c == 0xFF0C || c == 0xFF0E ||
                c == 0xFF1A || c == 0xFF1B || c == 0xFF1F;
    return punct ? len : 0;
}

static int one_of(const char *tok, const char *const *set) {
    for (; *set; set++)
        if (!strcmp(tok, *set)) return 1;
    return 0;
}

static const char *const NO_SPACE_BEFORE[] = {",", ".", "!", "?", ";", ":", ")",
    "\xE2\x80\x9D" /* ” */, "\xE2\x80\x99" /* ’ */, "\xE2\x80\xA6" /* … */,
    "\xC2\xBB" /* » */, "%", NULL};
static const char *const NO_SPACE_AFTER[] = {"(", "\xE2\x80\x9E" /* „ */,
    "\xE2\x80\x9A" /* ‚ */, "\xC2\xAB" /* « */, "\xC2\xBF" /* ¿ */, "\xC2\xA1" /* ¡ */, NULL};

// A token that holds a letter or digit (an apostrophe between two of them is inside a word).
static int is_wordlike(const char *t) {
    size_t n = strlen(t);
    return n > 0 && !tok_punct_len(t, n);
}

char *detokenize(const char *const *tok, int n) {
    size_t cap = 1;
    for (int i = 0; i < n; i++) cap += strlen(tok[i]) + 1;
    char *out = malloc(cap), *p = out;
    if (!out) return NULL;
    int quote_open = 0, glue_next = 1;   // glue_next: no space before the next token
    for (int i = 0; i < n; i++) {
        const char *t = tok[i];
        int glue = glue_next, after = 0;
        glue_next = 0;
        if (!strcmp(t, "\"")) {
            if (quote_open) glue = 1; else after = 1;
            quote_open = !quote_open;
        } else if (!strcmp(t, "'") && i > 0 && i + 1 < n && is_wordlike(tok[i - 1]) &&
                   is_wordlike(tok[i + 1])) {
            glue = after = 1;
        } else {
            glue |= one_of(t, NO_SPACE_BEFORE);
            after = one_of(t, NO_SPACE_AFTER);
        }
        if (!glue && p > out) *p++ = ' ';
        size_t len = strlen(t);
        memcpy(p, t, len);
        p += len;
        glue_next = after;
    }
    *p = '\0';
    return out;
}
