// UTF-8 and lower-casing helpers, see text.h.
#include "data/text.h"
#include <stdlib.h>
#include <string.h>

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
