#include "score/chrf.h"
#include <stdlib.h>
#include <string.h>
#include "util/utf8.h"

// The characters Python's str.split() separates on (str.isspace()).
static int is_space(unsigned cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// The code points of s without whitespace, malloc'd into *out; their count, or -1.
static long code_points(const char *s, unsigned **out) {
    size_t n = strlen(s);
    unsigned *cp = malloc((n + 1) * sizeof *cp);
    if (!cp) return -1;
    long k = 0;
    for (size_t i = 0; i < n;) {
        const unsigned char *p = (const unsigned char *)s + i;
        int len = utf8_seq_len(p, n - i);
        unsigned c = p[0];
        if (len == 0) len = 1;   // an invalid byte: one character of its own
        else if (len == 2) c = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
        else if (len == 3) c = (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
        else if (len == 4)
            c = (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
        if (!is_space(c)) cp[k++] = c;
        i += (size_t)len;
    }
    *out = cp;
    return k;
}

// Clipped matches of the n-grams of h (nh characters) in r (nr): each hypothesis n-gram takes
// one unused equal reference n-gram, so a distinct n-gram matches min(count in h, count in r).
static long matches(const unsigned *h, long nh, const unsigned *r, long nr, int n, char *used) {
    long m = 0;
    if (nr >= n) memset(used, 0, (size_t)(nr - n + 1));
    for (long i = 0; i + n <= nh; i++)
        for (long j = 0; j + n <= nr; j++)
            if (!used[j] && !memcmp(h + i, r + j, (size_t)n * sizeof *h)) {
                used[j] = 1;
                m++;
                break;
            }
    return m;
}

int chrf_add(ChrfStats *st, const char *hyp, const char *ref) {
    unsigned *h = NULL, *r = NULL;
    long nh = code_points(hyp, &h), nr = nh < 0 ? -1 : code_points(ref, &r);
    char *used = nr < 0 ? NULL : malloc((size_t)nr + 1);
    if (!used) { free(h); free(r); return -1; }
    for (int n = 1; n <= CHRF_ORDER; n++) {
        st->hyp[n - 1] += nh >= n ? nh - n + 1 : 0;
        st->ref[n - 1] += nr >= n ? nr - n + 1 : 0;
        st->match[n - 1] += matches(h, nh, r, nr, n, used);
    }
    free(used); free(h); free(r);
    return 0;
}

double chrf_score(const ChrfStats *st) {
    const double eps = 1e-16, b2 = 2.0 * 2.0;
    double p = 0, r = 0;
    int effective = 0;
    for (int n = 0; n < CHRF_ORDER; n++) {
        p += st->hyp[n] > 0 ? (double)st->match[n] / (double)st->hyp[n] : eps;
        r += st->ref[n] > 0 ? (double)st->match[n] / (double)st->ref[n] : eps;
        effective += st->hyp[n] > 0 && st->ref[n] > 0;
    }
    if (effective == 0) return 0.0;
    p /= effective;
    r /= effective;
    return p + r > 0 ? 100.0 * (1 + b2) * p * r / (b2 * p + r) : 0.0;
}
