// UTF-8 and lower-casing helpers, see text.h.
#include "data/text.h"
#include <stdlib.h>
#include <string.h>

int utf8_seq_len(const unsigned char *s, size_t n) {
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int len;
    unsigned min_cp, cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min_cp = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min_cp = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min_cp = 0x10000; }
    else return 0;                                  // stray continuation byte or 0xF8..0xFF
    if ((size_t)len > n) return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

long utf8_repair(const char *s, size_t n, char **out, size_t *out_len) {
    // Worst case every byte becomes 3 bytes.
    char *o = malloc(3 * n + 1);
    if (!o) return -1;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, j = 0;
    long replaced = 0;
    while (i < n) {
        int len = utf8_seq_len(u + i, n - i);
        if (len == 0) {
            o[j++] = (char)0xEF; o[j++] = (char)0xBF; o[j++] = (char)0xBD;
            i++; replaced++;
        } else {
            memcpy(o + j, s + i, (size_t)len);
            i += (size_t)len; j += (size_t)len;
        }
    }
    o[j] = '\0';
    *out = o;
    *out_len = j;
    return replaced;
}

void text_lower(char *s) {
    unsigned char *u = (unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        if (u[i] >= 'A' && u[i] <= 'Z') u[i] = (unsigned char)(u[i] + 32);
        else if (u[i] == 0xC3 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9E && u[i + 1] != 0x97) {
            u[i + 1] = (unsigned char)(u[i + 1] + 0x20);   // U+00C0..U+00DE -> U+00E0..U+00FE
            i++;
        }
    }
}

int text_is_word(const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    if (n == 0) return 0;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c >= 0x80) {
            int len = utf8_seq_len(u + i, n - i);
            if (len == 0) return 0;
            i += (size_t)len;
            continue;
        }
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '\'';
        if (!ok) return 0;
        i++;
    }
    return 1;
}
