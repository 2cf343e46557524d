// sacreBLEU-compatible corpus BLEU, see bleu.h.
#include "score/bleu.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "data/text.h"

// ---------------------------------------------------------------- characters

static unsigned decode(const unsigned char *s, size_t n, int *len) {
    *len = utf8_seq_len(s, n);
    if (*len <= 1) { *len = 1; return s[0]; }     // invalid bytes pass through one by one
    unsigned cp = s[0] & (0x7F >> *len);
    for (int i = 1; i < *len; i++) cp = (cp << 6) | (s[i] & 0x3F);
    return cp;
}

static int encode(unsigned cp, char *o) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

// Python's whitespace for str.split() / str.rstrip().
static int is_py_space(unsigned c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F) || c == 0x85 ||
           c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

static unsigned lower_cp(unsigned c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0xC0) return c;
    if (c <= 0xDE && c != 0xD7) return c + 32;
    // Ā ā ... Ķ ķ (İ handled apart)
    if (c >= 0x100 && c <= 0x137) return c | 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    if (c >= 0x14A && c <= 0x177) return c | 1;
    if (c == 0x178) return 0xFF;                                     // Ÿ
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;       // Greek
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    if (c >= 0x410 && c <= 0x42F) return c + 32;                     // Cyrillic
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}

char *bleu_lowercase(const char *s) {
    size_t n = strlen(s);
    char *out = malloc(2 * n + 1), *o = out;   // İ (2 bytes) becomes i + U+0307 (3 bytes)
    if (!out) return NULL;
    for (size_t i = 0; i < n;) {
        int len;
        unsigned c = decode((const unsigned char *)s + i, n - i, &len);
        if (len == 1 && c >= 0x80) *o++ = s[i];            // invalid byte: kept
        else if (c == 0x130) { *o++ = 'i'; o += encode(0x307, o); }
        else o += encode(lower_cp(c), o);
        i += (size_t)len;
    }
    *o = '\0';
    return out;
}

// ---------------------------------------------------------------- 13a tokenisation

// Replaces every `from` by `to` (to no longer than from), in place.
static void replace_all(char *s, const char *from, const char *to) {
    size_t nf = strlen(from), nt = strlen(to);
    char *r = s, *w = s;
    while (*r) {
        if (!strncmp(r, from, nf)) { memcpy(w, to, nt); w += nt; r += nf; }
        else *w++ = *r++;
    }
    *w = '\0';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

// The character class of the first 13a rule: [{-~[-` -&(-+:-@/]
static int split_symbol(char c) {
    unsigned char u = (unsigned char)c;
    return (u >= '{' && u <= '~') || (u >= '[' && u <= '`') || (u >= ' ' && u <= '&') ||
           (u >= '(' && u <= '+') || (u >= ':' && u <= '@') || u == '/';
}

// The tokens of text (split on Python's whitespace) joined with one space, in a new string.
static char *join_tokens(const char *text) {
    size_t m = strlen(text);
    char *out = malloc(m + 1), *o = out;
    if (!out) return NULL;
    int in_token = 0;
    for (size_t i = 0; i < m;) {
        int len;
        unsigned cp = decode((const unsigned char *)text + i, m - i, &len);
        if (is_py_space(cp)) { in_token = 0; i += (size_t)len; continue; }
        if (!in_token && o > out) *o++ = ' ';
        in_token = 1;
        memcpy(o, text + i, (size_t)len);
        o += len;
        i += (size_t)len;
    }
    *o = '\0';
    return out;
}

char *bleu_tokenize_13a(const char *line) {
    size_t n = strlen(line);
    // Rule 1 at most triples the text (two spaces added), rules 2-4 at most double it (two
    // characters become four), and b and c take turns: the last one needs 3 * 2^3 times n + 2.
    size_t cap = 24 * (n + 3) + 1;
    char *a = malloc(n + 3), *b = malloc(cap), *c = malloc(cap);
    if (!a || !b || !c) { free(a); free(b); free(c); return NULL; }
    a[0] = ' ';
    memcpy(a + 1, line, n + 1);
    replace_all(a + 1, "<skipped>", "");
    replace_all(a + 1, "-\n", "");
    for (char *p = a; *p; p++) if (*p == '\n') *p = ' ';
    replace_all(a + 1, "&quot;", "\"");
    replace_all(a + 1, "&amp;", "&");
    replace_all(a + 1, "&lt;", "<");
    replace_all(a + 1, "&gt;", ">");
    strcat(a, " ");
    // Rule 1: split off symbols.
    char *o = b;
    for (char *p = a; *p; p++) {
        if (split_symbol(*p)) { *o++ = ' '; *o++ = *p; *o++ = ' '; }
        else *o++ = *p;
    }
    *o = '\0';
    // Rule 2: ([^0-9])([.,]) -> "\1 \2 " (left to right, matches do not overlap).
    o = c;
    for (char *p = b; *p;) {
        if (!is_digit(p[0]) && (p[1] == '.' || p[1] == ',')) {
            *o++ = p[0];
            *o++ = ' ';
            *o++ = p[1];
            *o++ = ' ';
            p += 2;
        } else *o++ = *p++;
    }
    *o = '\0';
    // Rule 3: ([.,])([^0-9]) -> " \1 \2".
    o = b;
    for (char *p = c; *p;) {
        if ((p[0] == '.' || p[0] == ',') && p[1] && !is_digit(p[1])) {
            *o++ = ' ';
            *o++ = p[0];
            *o++ = ' ';
            *o++ = p[1];
            p += 2;
        } else *o++ = *p++;
    }
    *o = '\0';
    // Rule 4: ([0-9])(-) -> "\1 \2 ".
    o = c;
    for (char *p = b; *p;) {
        if (is_digit(p[0]) && p[1] == '-') {
            *o++ = p[0];
            *o++ = ' ';
            *o++ = '-';
            *o++ = ' ';
            p += 2;
        } else *o++ = *p++;
    }
    *o = '\0';
    free(a);
    char *out = join_tokens(c);
    free(b);
    free(c);
    return out;
}

// ---------------------------------------------------------------- n-gram statistics

// Splits a tokenised line (single spaces) in place; returns the count.
static int split_tokens(char *s, char ***out) {
    int n = 0, cap = 16;
    char **t = malloc(sizeof(char *) * (size_t)cap);
    if (!t) return -1;
    for (char *p = *s ? s : NULL; p;) {
        if (n == cap) {
            char **nt = realloc(t, sizeof(char *) * (size_t)(cap *= 2));
            if (!nt) { free(t); return -1; }
            t = nt;
        }
        t[n++] = p;
        p = strchr(p, ' ');
        if (p) *p++ = '\0';
    }
    *out = t;
    return n;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The n-grams of tokens as strings "a b c" (sorted); NULL when out of memory.
static char **ngrams(char **tok, int len, int n, char **buf) {
    int k = len - n + 1;
    if (k <= 0) { *buf = NULL; return malloc(1); }
    size_t size = 0;
    for (int i = 0; i < len; i++) size += strlen(tok[i]) + 1;
    *buf = malloc(size * (size_t)n + 1);
    char **g = malloc(sizeof(char *) * (size_t)k);
    if (!*buf || !g) { free(*buf); free(g); return NULL; }
    char *o = *buf;
    for (int i = 0; i < k; i++) {
        g[i] = o;
        for (int j = 0; j < n; j++) {
            size_t l = strlen(tok[i + j]);
            memcpy(o, tok[i + j], l);
            o += l;
            *o++ = j + 1 < n ? ' ' : '\0';
        }
    }
    qsort(g, (size_t)k, sizeof(char *), cmp_str);
    return g;
}

// Clipped matches between two sorted n-gram lists: sum over n-grams of min(count_h, count_r).
static long clipped_matches(char **h, int nh, char **r, int nr) {
    long m = 0;
    for (int i = 0, j = 0; i < nh && j < nr;) {
        int d = strcmp(h[i], r[j]);
        if (d < 0) i++;
        else if (d > 0) j++;
        else { m++; i++; j++; }   // sorted: pairing equal entries one to one is the clipped count
    }
    return m;
}

static char *prepare(const char *line, int lowercase) {
    char *copy = lowercase ? bleu_lowercase(line) : strdup(line);
    if (!copy) return NULL;
    size_t n = strlen(copy);     // rstrip (Python whitespace)
    while (n > 0) {
        size_t start = n - 1;
        while (start > 0 && ((unsigned char)copy[start] & 0xC0) == 0x80) start--;
        int len;
        unsigned cp = decode((const unsigned char *)copy + start, n - start, &len);
        if ((size_t)len != n - start || !is_py_space(cp)) break;
        n = start;
    }
    copy[n] = '\0';
    char *tok = bleu_tokenize_13a(copy);
    free(copy);
    return tok;
}

int bleu_add(BleuStats *st, const char *hyp, const char *ref, int lowercase) {
    char *h = prepare(hyp, lowercase), *r = prepare(ref, lowercase);
    char **ht = NULL, **rt = NULL;
    int nh = h ? split_tokens(h, &ht) : -1, nr = r ? split_tokens(r, &rt) : -1, rc = -1;
    if (nh < 0 || nr < 0) goto done;
    long correct[BLEU_N], total[BLEU_N];
    for (int n = 1; n <= BLEU_N; n++) {
        char *hb, *rb;
        char **hg = ngrams(ht, nh, n, &hb), **rg = ngrams(rt, nr, n, &rb);
        int kh = nh - n + 1 > 0 ? nh - n + 1 : 0, kr = nr - n + 1 > 0 ? nr - n + 1 : 0;
        if (hg && rg) {
            correct[n - 1] = clipped_matches(hg, kh, rg, kr);
            total[n - 1] = kh;
        }
        int ok = hg && rg;
        free(hg); free(rg); free(hb); free(rb);
        if (!ok) goto done;
    }
    for (int n = 0; n < BLEU_N; n++) { st->correct[n] += correct[n]; st->total[n] += total[n]; }
    st->sys_len += nh;
    st->ref_len += nr;
    rc = 0;
done:
    free(ht); free(rt); free(h); free(r);
    return rc;
}

BleuScore bleu_score(const BleuStats *st) {
    BleuScore s;
    memset(&s, 0, sizeof s);
    s.stats = *st;
    s.ratio = st->ref_len ? (double)st->sys_len / st->ref_len : 0;
    s.bp = st->sys_len < st->ref_len
               ? (st->sys_len > 0 ? exp(1.0 - (double)st->ref_len / st->sys_len) : 0.0)
               : 1.0;
    long any = 0;
    for (int n = 0; n < BLEU_N; n++) any += st->correct[n];
    if (!any) return s;                               // no match at all: 0
    double smooth = 1, log_sum = 0;
    for (int n = 0; n < BLEU_N; n++) {
        if (st->total[n] == 0) break;                 // precision stays 0 (log -> -1e10)
        if (st->correct[n] == 0) {
            smooth *= 2;
            s.precision[n] = 100.0 / (smooth * st->total[n]);
        } else {
            s.precision[n] = 100.0 * st->correct[n] / st->total[n];
        }
    }
    for (int n = 0; n < BLEU_N; n++)
        log_sum += s.precision[n] > 0 ? log(s.precision[n]) : -9999999999.0;
    s.score = s.bp * exp(log_sum / BLEU_N);
    return s;
}
