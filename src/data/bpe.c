// Byte-pair encoding: learning, segmenting, merges files. See bpe.h.
#include "data/bpe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/lines.h"
#include "data/text.h"
#include "util/str_ids.h"
#include "io/fileio.h"

#define END "</w>"
#define END_LEN 4

// ---------------------------------------------------------------- merges and their ranks

void bpe_free(Bpe *b) {
    str_ids_free(&b->sym);
    free(b->left);
    free(b->right);
    free(b->result);
    free(b->pair_key);
    free(b->pair_rank);
    memset(b, 0, sizeof *b);
}

static uint64_t pair_of(int a, int c) { return ((uint64_t)(uint32_t)a << 32 | (uint32_t)c) + 1; }

static int rank_slot(const Bpe *b, uint64_t key) {
    int mask = b->n_pair_slots - 1, i = (int)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (b->pair_key[i] && b->pair_key[i] != key) i = (i + 1) & mask;
    return i;
}

// Rank of the merge (a, c), or -1.
static int pair_rank(const Bpe *b, int a, int c) {
    if (!b->n_pair_slots) return -1;
    int i = rank_slot(b, pair_of(a, c));
    return b->pair_key[i] ? b->pair_rank[i] : -1;
}

static int rank_table_grow(Bpe *b) {
    int n = b->n_pair_slots ? b->n_pair_slots * 2 : 1024;
    uint64_t *keys = calloc((size_t)n, sizeof *keys);
    int *ranks = malloc(sizeof(int) * (size_t)n);
    if (!keys || !ranks) { free(keys); free(ranks); return -1; }
    free(b->pair_key);
    free(b->pair_rank);
    b->pair_key = keys;
    b->pair_rank = ranks;
    b->n_pair_slots = n;
    for (int r = 0; r < b->n_merges; r++) {
        int i = rank_slot(b, pair_of(b->left[r], b->right[r]));
        b->pair_key[i] = pair_of(b->left[r], b->right[r]);
        b->pair_rank[i] = r;
    }
    return 0;
}

// Appends the merge (a, c) -> a+c. Returns its result id, -2 if the pair is already a merge,
// -1 if out of memory.
static int add_merge(Bpe *b, int a, int c) {
    if (pair_rank(b, a, c) >= 0) return -2;
    const char *sa = b->sym.str[a], *sc = b->sym.str[c];
    size_t na = strlen(sa), nc = strlen(sc);
    char *joined = malloc(na + nc + 1);
    if (!joined) return -1;
    memcpy(joined, sa, na);
    memcpy(joined + na, sc, nc + 1);
    int id = str_ids_add(&b->sym, joined, na + nc);
    free(joined);
    if (id < 0) return -1;
    if (b->n_merges == b->cap_merges) {
        int cap = b->cap_merges ? b->cap_merges * 2 : 1024;
        int *l = realloc(b->left, sizeof(int) * (size_t)cap);
        if (l) b->left = l;
        int *r = realloc(b->right, sizeof(int) * (size_t)cap);
        if (r) b->right = r;
        int *res = realloc(b->result, sizeof(int) * (size_t)cap);
        if (res) b->result = res;
        if (!l || !r || !res) return -1;
        b->cap_merges = cap;
    }
    if ((b->n_merges + 1) * 2 > b->n_pair_slots && rank_table_grow(b)) return -1;
    int r = b->n_merges++;
    b->left[r] = a;
    b->right[r] = c;
    b->result[r] = id;
    int i = rank_slot(b, pair_of(a, c));
    b->pair_key[i] = pair_of(a, c);
    b->pair_rank[i] = r;
    return id;
}

// ---------------------------------------------------------------- characters of a word

// Byte length of the character at s (an invalid byte counts as one character).
static int char_len(const char *s, size_t n) {
    int len = utf8_seq_len((const unsigned char *)s, n);
    return len ? len : 1;
}

static int count_chars(const char *w) {
    size_t n = strlen(w);
    int k = 0;
    for (size_t i = 0; i < n; i += (size_t)char_len(w + i, n - i)) k++;
    return k;
}

// Id of the symbol for the character span w[start, start+len), word-final when `last`;
// added to the table when `add`, else -1 when unknown.
static int char_symbol(StrIds *t, const char *w, size_t start, size_t len, int last, int add) {
    char tmp[4 + END_LEN + 1];
    memcpy(tmp, w + start, len);
    if (last) memcpy(tmp + len, END, END_LEN);
    size_t n = len + (last ? END_LEN : 0);
    return add ? str_ids_add(t, tmp, n) : str_ids_find(t, tmp, n);
}

// ---------------------------------------------------------------- learning

typedef struct { int *sym, n; long freq; } Word;

typedef struct {             // statistics of one adjacent pair
    uint64_t key;            // pair_of(a, c); 0 = empty slot
    long count;              // occurrences, weighted by word frequency
    int *words, n_words, cap_words;   // words that contained it at some point (may be stale)
    int touched;             // merge round that last changed count (for one heap push per round)
} PairStat;

typedef struct { long count; int a, c; } HeapItem;

typedef struct {
    const Bpe *b;
    PairStat *stats; int n_stats, n_slots;
    HeapItem *heap; long n_heap, cap_heap;
    int *touched; int n_touched, cap_touched;
} Learner;

static PairStat *stat_find(Learner *L, uint64_t key, int add) {
    if (add && (L->n_stats + 1) * 2 > L->n_slots) {
        int n = L->n_slots ? L->n_slots * 2 : 1 << 16;
        PairStat *s = calloc((size_t)n, sizeof *s);
        if (!s) return NULL;
        for (int i = 0; i < L->n_slots; i++) {
            if (!L->stats[i].key) continue;
            int j = (int)((L->stats[i].key * 0x9E3779B97F4A7C15ull) >> 40) & (n - 1);
            while (s[j].key) j = (j + 1) & (n - 1);
            s[j] = L->stats[i];
        }
        free(L->stats);
        L->stats = s;
        L->n_slots = n;
    }
    if (!L->n_slots) return NULL;
    int mask = L->n_slots - 1, i = (int)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (L->stats[i].key && L->stats[i].key != key) i = (i + 1) & mask;
    if (L->stats[i].key) return &L->stats[i];
    if (!add) return NULL;
    L->stats[i].key = key;
    L->stats[i].touched = -1;
    L->n_stats++;
    return &L->stats[i];
}

// Heap order: higher count first; ties by the symbols' bytes.
static int better(const Learner *L, const HeapItem *x, const HeapItem *y) {
    if (x->count != y->count) return x->count > y->count;
    int d = strcmp(L->b->sym.str[x->a], L->b->sym.str[y->a]);
    if (d) return d < 0;
    return strcmp(L->b->sym.str[x->c], L->b->sym.str[y->c]) < 0;
}

static int heap_push(Learner *L, HeapItem it) {
    if (L->n_heap == L->cap_heap) {
        long cap = L->cap_heap ? L->cap_heap * 2 : 1 << 16;
        HeapItem *h = realloc(L->heap, sizeof *h * (size_t)cap);
        if (!h) return -1;
        L->heap = h;
        L->cap_heap = cap;
    }
    long i = L->n_heap++;
    while (i > 0 && better(L, &it, &L->heap[(i - 1) / 2])) {
        L->heap[i] = L->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    L->heap[i] = it;
    return 0;
}

static HeapItem heap_pop(Learner *L) {
    HeapItem top = L->heap[0], last = L->heap[--L->n_heap];
    long i = 0, n = L->n_heap;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && better(L, &L->heap[c + 1], &L->heap[c])) c++;
        if (!better(L, &L->heap[c], &last)) break;
        L->heap[i] = L->heap[c];
        i = c;
    }
    if (n > 0) L->heap[i] = last;
    return top;
}

// Adds `delta` occurrences of the pair (a, c) in word w; remembers the pair for a heap push.
static int stat_add(Learner *L, int a, int c, long delta, int w, int round) {
    PairStat *s = stat_find(L, pair_of(a, c), 1);
    if (!s) return -1;
    s->count += delta;
    if (delta > 0 && (s->n_words == 0 || s->words[s->n_words - 1] != w)) {
        if (s->n_words == s->cap_words) {
            int cap = s->cap_words ? s->cap_words * 2 : 4;
            int *words = realloc(s->words, sizeof(int) * (size_t)cap);
            if (!words) return -1;
            s->words = words;
            s->cap_words = cap;
        }
        s->words[s->n_words++] = w;
    }
    if (s->touched != round) {
        s->touched = round;
        if (L->n_touched == L->cap_touched) {
            int cap = L->cap_touched ? L->cap_touched * 2 : 1024;
            int *t = realloc(L->touched, sizeof(int) * (size_t)cap);
            if (!t) return -1;
            L->touched = t;
            L->cap_touched = cap;
        }
        // Store the symbols, not the slot: slots move when the table grows.
        L->touched[L->n_touched++] = a;
        if (L->n_touched == L->cap_touched) {
            int cap = L->cap_touched * 2;
            int *t = realloc(L->touched, sizeof(int) * (size_t)cap);
            if (!t) return -1;
            L->touched = t;
            L->cap_touched = cap;
        }
        L->touched[L->n_touched++] = c;
    }
    return 0;
}

static int word_pairs(Learner *L, const Word *w, int wi, long sign, int round) {
    for (int i = 0; i + 1 < w->n; i++)
        if (stat_add(L, w->sym[i], w->sym[i + 1], sign * w->freq, wi, round)) return -1;
    return 0;
}

// Push the current count of every pair changed this round (one heap entry each).
static int push_touched(Learner *L) {
    for (int i = 0; i < L->n_touched; i += 2) {
        PairStat *s = stat_find(L, pair_of(L->touched[i], L->touched[i + 1]), 0);
        if (s && s->count >= 2 &&
            heap_push(L, (HeapItem){s->count, L->touched[i], L->touched[i + 1]}))
            return -1;
    }
    L->n_touched = 0;
    return 0;
}

// Merge every (a, c) in w into m, left to right.
static void merge_in_word(Word *w, int a, int c, int m) {
    int out = 0;
    for (int i = 0; i < w->n; i++) {
        if (i + 1 < w->n && w->sym[i] == a && w->sym[i + 1] == c) {
            w->sym[out++] = m;
            i++;
        } else {
            w->sym[out++] = w->sym[i];
        }
    }
    w->n = out;
}

// Distinct words of the text (at most BPE_MAX_WORD characters) with their counts.
static int collect_words(const PtSide *text, Bpe *b, Word **out, int *n_out) {
    StrIds seen = {0};
    long *freq = NULL;
    int cap = 0, rc = -1;
    for (long t = 0; t < text->n_tok; t++) {
        const char *w = text->chars + text->tok_off[t];
        if (count_chars(w) > BPE_MAX_WORD) continue;
        int id = str_ids_add(&seen, w, strlen(w));
        if (id < 0) goto done;
        if (id >= cap) {
            int nc = cap ? cap * 2 : 1024;
            long *f = realloc(freq, sizeof(long) * (size_t)nc);
            if (!f) goto done;
            memset(f + cap, 0, sizeof(long) * (size_t)(nc - cap));
            freq = f;
            cap = nc;
        }
        freq[id]++;
    }
    Word *words = calloc((size_t)(seen.n ? seen.n : 1), sizeof(Word));
    if (!words) goto done;
    *out = words;
    *n_out = seen.n;
    for (int i = 0; i < seen.n; i++) {
        const char *w = seen.str[i];
        size_t n = strlen(w);
        words[i].freq = freq[i];
        words[i].sym = malloc(sizeof(int) * (size_t)(count_chars(w) + 1));
        if (!words[i].sym) goto done;
        for (size_t k = 0; k < n;) {
            int len = char_len(w + k, n - k);
            int id = char_symbol(&b->sym, w, k, (size_t)len, k + (size_t)len == n, 1);
            if (id < 0) goto done;
            words[i].sym[words[i].n++] = id;
            k += (size_t)len;
        }
    }
    rc = 0;
done:
    free(freq);
    str_ids_free(&seen);
    return rc;
}

int bpe_learn(const PtSide *text, int n_merges, Bpe *b) {
    memset(b, 0, sizeof *b);
    Learner L = { .b = b };
    Word *words = NULL;
    int n_words = 0, rc = -1;
    if (collect_words(text, b, &words, &n_words)) goto done;
    for (int w = 0; w < n_words; w++)
        if (word_pairs(&L, &words[w], w, 1, 0)) goto done;
    if (push_touched(&L)) goto done;
    int *list = NULL, cap_list = 0, oom = 0;
    for (int round = 1; b->n_merges < n_merges && L.n_heap > 0 && !oom;) {
        HeapItem best = heap_pop(&L);
        PairStat *s = stat_find(&L, pair_of(best.a, best.c), 0);
        if (!s || s->count != best.count || best.count < 2) continue;   // stale entry
        int m = add_merge(b, best.a, best.c);
        if (m < 0) { oom = 1; break; }
        // Copy the word list: updating counts may append to it or move the table.
        int n_list = s->n_words;
        if (n_list > cap_list) {
            int *l = realloc(list, sizeof(int) * (size_t)n_list);
            if (!l) { oom = 1; break; }
            list = l;
            cap_list = n_list;
        }
        memcpy(list, s->words, sizeof(int) * (size_t)n_list);
        for (int i = 0; i < n_list && !oom; i++) {
            Word *w = &words[list[i]];
            int has = 0;   // the list may hold stale or repeated words
            for (int k = 0; k + 1 < w->n && !has; k++)
                has = w->sym[k] == best.a && w->sym[k + 1] == best.c;
            if (!has) continue;
            oom = word_pairs(&L, w, list[i], -1, round);
            merge_in_word(w, best.a, best.c, m);
            if (!oom) oom = word_pairs(&L, w, list[i], 1, round);
        }
        if (!oom) oom = push_touched(&L);
        round++;
    }
    free(list);
    rc = oom ? -1 : 0;
done:
    for (int w = 0; w < n_words; w++) free(words[w].sym);
    free(words);
    for (int i = 0; i < L.n_slots; i++) free(L.stats[i].words);
    free(L.stats);
    free(L.heap);
    free(L.touched);
    if (rc) bpe_free(b);
    return rc;
}

// ---------------------------------------------------------------- segmenting

size_t bpe_buf_size(const char *word) { return strlen(word) + 3 * (size_t)count_chars(word) + 1; }

typedef struct { int start, len, id; } Piece;

int bpe_segment_word(const Bpe *b, const char *w, char *buf, const char **toks) {
    size_t n = strlen(w);
    int n_chars = count_chars(w);
    Piece *p = malloc(sizeof(Piece) * (size_t)(n_chars ? n_chars : 1));
    if (!p) return -1;
    int np = 0;
    for (size_t k = 0; k < n;) {
        int len = char_len(w + k, n - k);
        int id = n_chars <= BPE_MAX_WORD
                     ? char_symbol((StrIds *)&b->sym, w, k, (size_t)len, k + (size_t)len == n, 0)
                     : -1;
        p[np++] = (Piece){(int)k, len, id};
        k += (size_t)len;
    }
    for (;;) {   // apply the best-ranked merge present, every occurrence, until none applies
        int best = -1;
        for (int i = 0; i + 1 < np; i++) {
            if (p[i].id < 0 || p[i + 1].id < 0) continue;
            int r = pair_rank(b, p[i].id, p[i + 1].id);
            if (r >= 0 && (best < 0 || r < best)) best = r;
        }
        if (best < 0) break;
        int out = 0;
        for (int i = 0; i < np; i++) {
            if (i + 1 < np && p[i].id == b->left[best] && p[i + 1].id == b->right[best]) {
                p[out++] = (Piece){p[i].start, p[i].len + p[i + 1].len, b->result[best]};
                i++;
            } else {
                p[out++] = p[i];
            }
        }
        np = out;
    }
    char *o = buf;
    for (int i = 0; i < np; i++) {
        toks[i] = o;
        memcpy(o, w + p[i].start, (size_t)p[i].len);
        o += p[i].len;
        if (i + 1 < np) { memcpy(o, "@@", 2); o += 2; }
        *o++ = '\0';
    }
    free(p);
    return np;
}

int bpe_segment_side(const Bpe *b, const PtSide *in, PtSide *out) {
    memset(out, 0, sizeof *out);
    int cap_toks = 0, rc = 0;
    const char **toks = NULL;
    char *buf = NULL;
    size_t cap_buf = 0;
    for (int line = 0; line < in->n_lines && !rc; line++) {
        int len = pt_line_len(in, line), n = 0;
        size_t need = 1;
        int need_toks = 1;
        for (int i = 0; i < len; i++) {
            need += bpe_buf_size(pt_token(in, line, i));
            need_toks += count_chars(pt_token(in, line, i));
        }
        if (need > cap_buf) {
            char *nb = realloc(buf, need);
            if (!nb) { rc = -1; break; }
            buf = nb;
            cap_buf = need;
        }
        if (need_toks > cap_toks) {
            const char **nt = realloc(toks, sizeof(char *) * (size_t)need_toks);
            if (!nt) { rc = -1; break; }
            toks = nt;
            cap_toks = need_toks;
        }
        char *o = buf;
        for (int i = 0; i < len && !rc; i++) {
            const char *w = pt_token(in, line, i);
            int k = bpe_segment_word(b, w, o, toks + n);
            if (k < 0) { rc = -1; break; }
            o += bpe_buf_size(w);
            n += k;
        }
        if (!rc) rc = pt_add_tokens(out, toks, n);
    }
    free(toks);
    free(buf);
    if (rc) pt_side_free(out);
    return rc;
}

int bpe_join(const char *const *tokens, int n, char *buf, const char **words) {
    int nw = 0, open = 0;   // open: the current word continues
    char *o = buf;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(tokens[i]);
        int cont = len > 2 && !strcmp(tokens[i] + len - 2, "@@");
        if (!open) words[nw++] = o;
        memcpy(o, tokens[i], cont ? len - 2 : len);
        o += cont ? len - 2 : len;
        open = cont;
        if (!open) *o++ = '\0';
    }
    if (open) *o++ = '\0';   // a dangling "@@" at the end still ends the word
    return nw;
}

// ---------------------------------------------------------------- merges files

int bpe_save(const Bpe *b, const char *path, char *err, int errlen) {
    size_t cap = 32;
    for (int r = 0; r < b->n_merges; r++)
        cap += strlen(b->sym.str[b->left[r]]) + strlen(b->sym.str[b->right[r]]) + 2;
    char *text = malloc(cap), *o = text;
    if (!text) return errorf(err, errlen, "%s: out of memory", path);
    o += sprintf(o, "#version: 0.2\n");
    for (int r = 0; r < b->n_merges; r++)
        o += sprintf(o, "%s %s\n", b->sym.str[b->left[r]], b->sym.str[b->right[r]]);
    int rc = write_file_atomic(path, text, (size_t)(o - text), err, errlen);
    free(text);
    return rc;
}

// A symbol as written in a merges file: the id it must already have (or a single character,
// added now). NULL message when fine.
static const char *file_symbol(Bpe *b, const char *s, int right, int *id) {
    size_t n = strlen(s);
    const char *end = strstr(s, END);
    if (end && (!right || end != s + n - END_LEN))
        return "'</w>' may only end the right-hand symbol";
    size_t body = end ? n - END_LEN : n;
    if (body == 0) return "empty symbol";
    for (size_t i = 0; i < body;) {
        int len = utf8_seq_len((const unsigned char *)s + i, body - i);
        if (len == 0) return "invalid UTF-8";
        if (len == 1 && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)) return "control character";
        i += (size_t)len;
    }
    *id = str_ids_find(&b->sym, s, n);
    if (*id >= 0) return NULL;
    if ((size_t)utf8_seq_len((const unsigned char *)s, body) == body) {   // one character
        *id = str_ids_add(&b->sym, s, n);
        return *id < 0 ? "out of memory" : NULL;
    }
    return "symbol is neither one character nor the result of an earlier merge";
}

int bpe_load(Bpe *b, const char *path, char *err, int errlen) {
    memset(b, 0, sizeof *b);
    LineReader r;
    if (line_open(&r, path, err, errlen)) return -1;
    char *line;
    long len;
    int rc = 0;
    while (rc == 0 && (len = line_next(&r, &line)) >= 0) {
        const char *problem = NULL;
        if (r.line_no == 1) {
            if (strcmp(line, "#version: 0.2")) problem = "expected the header '#version: 0.2'";
        } else if (len > BPE_MAX_LINE) {
            problem = "line too long";
        } else if (b->n_merges >= BPE_MAX_MERGES) {
            problem = "too many merges";
        } else {
            char *space = strchr(line, ' ');
            int a, c;
            if (!space || space == line || !space[1] || strchr(space + 1, ' ') ||
                strchr(line, '\t'))
                problem = "expected 'LEFT RIGHT' (two symbols, one space)";
            else {
                *space = '\0';
                problem = file_symbol(b, line, 0, &a);
                if (!problem) problem = file_symbol(b, space + 1, 1, &c);
                if (!problem) {
                    int m = add_merge(b, a, c);
                    if (m == -2) problem = "duplicate merge";
                    else if (m < 0) problem = "out of memory";
                }
            }
        }
        if (problem) rc = errorf(err, errlen, "%s:%ld: %s", path, r.line_no, problem);
    }
    if (rc == 0) rc = line_failed(&r, err, errlen);
    if (rc == 0 && r.line_no == 0)
        rc = errorf(err, errlen, "%s:1: empty file (expected '#version: 0.2')", path);
    line_close(&r);
    if (rc) bpe_free(b);
    return rc;
}
