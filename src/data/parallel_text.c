// Line-aligned parallel text: reading, tokenising, vocabularies, see parallel_text.h.
#include "data/parallel_text.h"
#include "data/lines.h"
#include "data/text.h"
#include "data/tokenize.h"
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- one side

void pt_side_free(PtSide *s) {
    free(s->chars);
    free(s->tok_off);
    free(s->line_start);
    memset(s, 0, sizeof *s);
}

static int reserve(void **buf, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *b = realloc(*buf, c * elem);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

static int push_token(PtSide *s, const char *t, size_t len) {
    size_t cap_tok = (size_t)s->cap_tok;
    if (reserve((void **)&s->chars, &s->cap_chars, s->n_chars + len + 1, 1) ||
        reserve((void **)&s->tok_off, &cap_tok, (size_t)s->n_tok + 1, sizeof(size_t)))
        return -1;
    s->cap_tok = (long)cap_tok;
    s->tok_off[s->n_tok++] = s->n_chars;
    memcpy(s->chars + s->n_chars, t, len);
    s->n_chars += len;
    s->chars[s->n_chars++] = '\0';
    return 0;
}

static int push_line_start(PtSide *s) {
    size_t cap = (size_t)s->cap_lines;
    if (reserve((void **)&s->line_start, &cap, (size_t)s->n_lines + 2, sizeof(long))) return -1;
    s->cap_lines = (int)cap;
    s->line_start[s->n_lines + 1] = s->n_tok;    // sentinel: end of the newest line
    return 0;
}


int pt_add_line(PtSide *s, const char *line, size_t len, int lowercase, long *n_replaced) {
    if (s->n_lines == 0 && push_line_start(s)) return -1;
    if (s->n_lines == 0) s->line_start[0] = 0;
    // NULs become spaces, then bad UTF-8 bytes become U+FFFD, then lower-case.
    char *clean;
    size_t n;
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    for (size_t i = 0; i < len; i++) copy[i] = line[i] ? line[i] : ' ';
    long replaced = utf8_repair(copy, len, &clean, &n);
    free(copy);
    if (replaced < 0) return -1;
    *n_replaced += replaced;
    if (lowercase) text_lower(clean);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        int space = tok_space_len(clean + i, n - i), punct = tok_punct_len(clean + i, n - i);
        if (space) { i += (size_t)space; continue; }
        size_t j = i + (punct ? (size_t)punct : 1);
        if (!punct)
            while (j < n && !tok_space_len(clean + j, n - j) && !tok_punct_len(clean + j, n - j))
                j++;
        rc = push_token(s, clean + i, j - i);
        i = j;
    }
    free(clean);
    if (rc == 0) rc = push_line_start(s);
    if (rc == 0) s->n_lines++;
    return rc;
}

int pt_add_tokens(PtSide *s, const char *const *tokens, int n) {
    if (s->n_lines == 0 && push_line_start(s)) return -1;
    if (s->n_lines == 0) s->line_start[0] = 0;
    for (int i = 0; i < n; i++)
        if (push_token(s, tokens[i], strlen(tokens[i]))) return -1;
    if (push_line_start(s)) return -1;
    s->n_lines++;
    return 0;
}

int pt_line_len(const PtSide *s, int line) {
    return (int)(s->line_start[line + 1] - s->line_start[line]);
}

const char *pt_token(const PtSide *s, int line, int i) {
    return s->chars + s->tok_off[s->line_start[line] + i];
}

// ---------------------------------------------------------------- reading a pair of files

static int read_side(const char *path, int lowercase, PtSide *s, long *n_replaced, char *err,
                     int errlen) {
    LineReader r;
    if (line_open(&r, path, err, errlen) != 0) return -1;
    char *line;
    long len;
    int rc = 0;
    while (rc == 0 && (len = line_next(&r, &line)) >= 0)
        if (pt_add_line(s, line, (size_t)len, lowercase, n_replaced) != 0)
            rc = errorf(err, errlen, "%s:%ld: out of memory", path, r.line_no);
    if (rc == 0) rc = line_failed(&r, err, errlen);
    if (rc == 0 && r.line_no == 0) rc = errorf(err, errlen, "%s: empty file", path);
    line_close(&r);
    return rc;
}

void parallel_free(ParallelText *pt) {
    pt_side_free(&pt->src);
    pt_side_free(&pt->tgt);
    memset(pt, 0, sizeof *pt);
}

int parallel_load(const char *src_path, const char *tgt_path, int lowercase,
                  ParallelText *pt, char *err, int errlen) {
    memset(pt, 0, sizeof *pt);
    int rc = read_side(src_path, lowercase, &pt->src, &pt->n_replaced, err, errlen);
    if (rc == 0) rc = read_side(tgt_path, lowercase, &pt->tgt, &pt->n_replaced, err, errlen);
    if (rc == 0 && pt->src.n_lines != pt->tgt.n_lines)
        rc = errorf(err, errlen, "%s has %d lines but %s has %d", src_path, pt->src.n_lines,
                      tgt_path, pt->tgt.n_lines);
    if (rc != 0) { parallel_free(pt); return -1; }
    pt->n_lines = pt->src.n_lines;
    return 0;
}

// ---------------------------------------------------------------- vocabularies

typedef struct { const char *tok; long count; } Counted;

static int by_count_then_bytes(const void *a, const void *b) {
    const Counted *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->tok, y->tok);
}

// The tokens of n_sides sides counted together (one side, or both for the joint vocabulary).
static int build_vocab(const PtSide *const *sides, int n_sides, int min_freq, Vocab *out) {
    Vocab seen;                          // token -> index into count (specials 0..3 unused)
    long *count = NULL;
    size_t cap = 0;
    Counted *kept = NULL;
    int rc = -1;
    if (vocab_init(&seen, 0) != 0) return -1;
    for (int k = 0; k < n_sides; k++) {
        const PtSide *s = sides[k];
        for (long t = 0; t < s->n_tok; t++) {
            int id = vocab_add(&seen, s->chars + s->tok_off[t]);
            if (id < 0) continue;            // too long for a vocabulary: stays <unk>
            size_t old = cap;
            if (reserve((void **)&count, &cap, (size_t)id + 1, sizeof(long))) goto done;
            if (cap > old) memset(count + old, 0, (cap - old) * sizeof(long));
            count[id]++;
        }
    }
    int n_kept = 0;
    kept = malloc(sizeof(Counted) * (size_t)(seen.n + 1));
    if (!kept) goto done;
    for (int id = 4; id < seen.n; id++)
        if (count[id] >= min_freq) kept[n_kept++] = (Counted){ seen.str[id], count[id] };
    qsort(kept, (size_t)n_kept, sizeof(Counted), by_count_then_bytes);
    if (vocab_init(out, 0) != 0) goto done;
    for (int i = 0; i < n_kept; i++)
        if (vocab_add(out, kept[i].tok) < 0) { vocab_free(out); goto done; }
    rc = 0;
done:
    free(kept);
    free(count);
    vocab_free(&seen);
    return rc;
}

int parallel_build_vocabs(const ParallelText *train, int min_freq, Vocab *sv, Vocab *tv) {
    const PtSide *src = &train->src, *tgt = &train->tgt;
    if (build_vocab(&src, 1, min_freq, sv) != 0) return -1;
    if (build_vocab(&tgt, 1, min_freq, tv) != 0) { vocab_free(sv); return -1; }
    return 0;
}

int parallel_build_joint_vocab(const ParallelText *train, int min_freq, Vocab *v) {
    const PtSide *both[2] = {&train->src, &train->tgt};
    return build_vocab(both, 2, min_freq, v);
}

// ---------------------------------------------------------------- ids

// NULL for an empty line (as ids_dup), or when out of memory.
static int *line_ids(const PtSide *s, int line, const Vocab *v) {
    int n = pt_line_len(s, line);
    int *ids = n ? malloc(sizeof(int) * (size_t)n) : NULL;
    if (ids) for (int i = 0; i < n; i++) ids[i] = vocab_word_id(v, pt_token(s, line, i));
    return ids;
}

int parallel_to_split(const ParallelText *pt, const Vocab *sv, const Vocab *tv,
                      int max_tokens, Split *out, int *n_dropped) {
    memset(out, 0, sizeof *out);
    *n_dropped = 0;
    out->ex = calloc((size_t)(pt->n_lines ? pt->n_lines : 1), sizeof(Example));
    if (!out->ex) return -1;
    int held_out = max_tokens <= 0;   // every pair is a test case, an empty side too
    for (int i = 0; i < pt->n_lines; i++) {
        int ns = pt_line_len(&pt->src, i), nt = pt_line_len(&pt->tgt, i);
        if (!held_out && (ns == 0 || nt == 0 || ns > max_tokens || nt > max_tokens)) {
            (*n_dropped)++;
            continue;
        }
        Example *e = &out->ex[out->n++];
        e->n_src = ns;
        e->n_tgt = nt;
        e->label = e->twin = -1;
        e->src = line_ids(&pt->src, i, sv);
        e->tgt = line_ids(&pt->tgt, i, tv);
        if ((ns && !e->src) || (nt && !e->tgt)) { split_free(out); return -1; }
    }
    return 0;
}
