// BPE: merges by hand on the classic example, determinism, round trips, merges files
// (including hostile ones), and the Unicode-aware tokeniser and detokeniser.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "data/bpe.h"
#include "data/tokenize.h"

#define M30K "../shared/data/multi30k"

static void side_from(PtSide *s, const char *const *lines, int n) {
    long replaced = 0;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) pt_add_line(s, lines[i], strlen(lines[i]), 1, &replaced);
}

static const char *merge_text(const Bpe *b, int r, char *buf, size_t n) {
    snprintf(buf, n, "%s %s", b->sym.str[b->left[r]], b->sym.str[b->right[r]]);
    return buf;
}

// Segments a word into "a@@ b c" (space-joined) for comparisons.
static const char *seg(const Bpe *b, const char *w, char *out, size_t n) {
    char *buf = malloc(bpe_buf_size(w));
    const char *toks[128];
    int k = bpe_segment_word(b, w, buf, toks);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        strncat(out, toks[i], n - strlen(out) - 1);
        if (i + 1 < k) strncat(out, " ", n - strlen(out) - 1);
    }
    free(buf);
    return out;
}

// low x5, lower x2, newest x6, widest x3 (Sennrich et al.): pair counts by hand
// (e,s) 9, (s,t</w>) 9, (w,e) 8, (l,o) 7, ... -> merges "e s" (tie with "s t</w>" broken by
// bytes), "es t</w>" (9), "l o" (7), then (n,e) (e,w) (w,est</w>) tie at 6 -> "e w".
static void test_hand_example(void) {
    const char *lines[] = {"low low low low low", "lower lower", "newest newest newest",
                           "newest newest newest", "widest widest widest"};
    PtSide s;
    side_from(&s, lines, 5);
    Bpe b;
    CHECK(bpe_learn(&s, 4, &b) == 0, "learn");
    CHECK(b.n_merges == 4, "%d merges", b.n_merges);
    const char *want[] = {"e s", "es t</w>", "l o", "e w"};
    char buf[128], out[256];
    for (int r = 0; r < 4 && r < b.n_merges; r++)
        CHECK(!strcmp(merge_text(&b, r, buf, sizeof buf), want[r]), "merge %d: '%s', want '%s'", r, buf, want[r]);
    CHECK(!strcmp(seg(&b, "newest", out, sizeof out), "n@@ ew@@ est"), "newest -> '%s'", out);
    CHECK(!strcmp(seg(&b, "lowest", out, sizeof out), "lo@@ w@@ est"), "lowest -> '%s'", out);
    CHECK(!strcmp(seg(&b, "zz", out, sizeof out), "z@@ z"), "zz -> '%s'", out);   // unknown characters
    CHECK(!strcmp(seg(&b, "es", out, sizeof out), "e@@ s"), "es -> '%s'", out);   // (e, s</w>) is not the merge (e, s)
    bpe_free(&b);
    // More merges than pairs occurring twice: learning stops early.
    CHECK(bpe_learn(&s, 1000, &b) == 0, "learn 1000");
    printf("# hand example: %d merges before no pair occurs twice\n", b.n_merges);
    CHECK(b.n_merges > 4 && b.n_merges < 20, "%d merges", b.n_merges);
    CHECK(!strcmp(seg(&b, "newest", out, sizeof out), "newest"), "newest -> '%s'", out);
    bpe_free(&b);
    pt_side_free(&s);
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    if (fread(t, 1, (size_t)n, f) != (size_t)n) n = 0;
    t[n] = '\0';
    fclose(f);
    return t;
}

// A German-like corpus made up on the spot, so the test needs no downloaded data: words of one
// to three syllables (some with umlauts and ß, so characters span several bytes) from a fixed
// lexicon of 1500, drawn with a skew towards the first ones (frequent and rare words, as in real
// text), 4-12 words a line. `seed` picks the lines; the lexicon is the same for every seed, so
// held-out lines share most words with the training lines, and a few are new.
#define LEXICON 1500
static unsigned next_rand(unsigned *state) { *state = *state * 1103515245u + 12345u; return *state >> 8; }

static void make_word(int id, char *out, size_t n) {
    static const char *syl[] = {"ge", "ber", "an", "der", "schaf", "mann", "hund", "in", "ung", "lich",
                                "ver", "ein", "st", "te", "ab", "zu", "klein", "haus", "fü", "ße",
                                "spiel", "en", "ra", "wä", "sch", "ort", "blu", "me", "kö", "nig"};
    unsigned r = (unsigned)id * 2654435761u + 1;
    int k = 1 + (int)(next_rand(&r) % 3);
    out[0] = '\0';
    for (int i = 0; i < k; i++) strncat(out, syl[next_rand(&r) % 30], n - strlen(out) - 1);
}

// n_lines lines of the corpus as a side, optionally added in reverse order.
static void fixture_side(int n_lines, unsigned seed, int reverse, PtSide *s) {
    char (*lines)[256] = malloc(sizeof *lines * (size_t)n_lines);
    unsigned r = seed;
    for (int l = 0; l < n_lines; l++) {
        int words = 4 + (int)(next_rand(&r) % 9);
        lines[l][0] = '\0';
        for (int w = 0; w < words; w++) {
            unsigned u = next_rand(&r) % LEXICON;
            char word[64];
            make_word((int)(u * u / LEXICON), word, sizeof word);   // skewed to low ids
            if (w) strcat(lines[l], " ");
            strcat(lines[l], word);
        }
    }
    long replaced = 0;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n_lines; i++) {
        const char *l = lines[reverse ? n_lines - 1 - i : i];
        pt_add_line(s, l, strlen(l), 1, &replaced);
    }
    free(lines);
}

static void test_determinism_and_round_trip(void) {
    PtSide fwd, rev, val, seg_val;
    fixture_side(3000, 1, 0, &fwd);
    fixture_side(3000, 1, 1, &rev);
    Bpe a, b;
    CHECK(bpe_learn(&fwd, 600, &a) == 0 && bpe_learn(&rev, 600, &b) == 0, "learn");
    CHECK(a.n_merges == 600 && b.n_merges == 600, "%d %d merges", a.n_merges, b.n_merges);
    int same = 1;
    char x[256], y[256];
    for (int r = 0; r < a.n_merges && r < b.n_merges; r++)
        same &= !strcmp(merge_text(&a, r, x, sizeof x), merge_text(&b, r, y, sizeof y));
    CHECK(same, "merges depend on the order of the lines");
    // Save, load: the same merges, the same segmentation.
    char path[] = "/tmp/test_bpe_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[512];
    CHECK(bpe_save(&a, path, err, sizeof err) == 0, "%s", err);
    char *saved = read_all(path);
    CHECK(saved && !strncmp(saved, "#version: 0.2\n", 14), "header");
    Bpe c;
    CHECK(bpe_load(&c, path, err, sizeof err) == 0, "%s", err);
    CHECK(c.n_merges == a.n_merges, "%d merges loaded", c.n_merges);
    // Round trip on held-out lines: segmenting then joining gives the words back.
    fixture_side(1000, 2, 0, &val);
    CHECK(bpe_segment_side(&a, &val, &seg_val) == 0, "segment");
    int lines_ok = 0, same_seg = 1;
    long subwords = seg_val.n_tok, words = val.n_tok;
    for (int l = 0; l < val.n_lines; l++) {
        int n = pt_line_len(&seg_val, l);
        const char **toks = malloc(sizeof(char *) * (size_t)(n + 1)), **ws = malloc(sizeof(char *) * (size_t)(n + 1));
        size_t cap = 1;
        for (int i = 0; i < n; i++) { toks[i] = pt_token(&seg_val, l, i); cap += strlen(toks[i]) + 1; }
        char *buf = malloc(cap);
        int nw = bpe_join(toks, n, buf, ws);
        int ok = nw == pt_line_len(&val, l);
        for (int i = 0; ok && i < nw; i++) ok = !strcmp(ws[i], pt_token(&val, l, i));
        lines_ok += ok;
        for (int i = 0; i < pt_line_len(&val, l); i++) {   // the loaded merges segment alike
            char s1[512], s2[512];
            same_seg &= !strcmp(seg(&a, pt_token(&val, l, i), s1, sizeof s1), seg(&c, pt_token(&val, l, i), s2, sizeof s2));
        }
        free(buf); free(toks); free(ws);
    }
    printf("# held-out lines: %ld words -> %ld subwords with 600 merges from 3000 lines\n", words, subwords);
    CHECK(val.n_lines == 1000 && lines_ok == 1000, "%d of %d lines round-trip", lines_ok, val.n_lines);
    CHECK(same_seg, "loaded merges segment differently");
    // Most held-out words are whole merged words; a few are split (rare or unseen ones).
    CHECK(subwords > words && subwords < 2 * words, "%ld subwords for %ld words", subwords, words);
    free(saved);
    unlink(path);
    bpe_free(&a); bpe_free(&b); bpe_free(&c);
    pt_side_free(&fwd); pt_side_free(&rev); pt_side_free(&val); pt_side_free(&seg_val);
}

// A merges file with the given text must fail with a message containing `want`.
static void expect_bad(const char *text, size_t len, const char *want) {
    char path[] = "/tmp/test_bpe_bad_XXXXXX";
    int fd = mkstemp(path);
    if (write(fd, text, len) != (ssize_t)len) CHECK(0, "write");
    close(fd);
    Bpe b;
    char err[512] = "";
    int rc = bpe_load(&b, path, err, sizeof err);
    CHECK(rc == -1, "accepted: %.40s", text);
    CHECK(strstr(err, want) && strstr(err, path), "'%s' lacks '%s'", err, want);
    CHECK(b.n_merges == 0 && b.sym.n == 0, "not left empty");
    unlink(path);
}

static void test_hostile_files(void) {
    expect_bad("", 0, ":1: empty file");
    expect_bad("e s\n", 4, ":1: expected the header");
    expect_bad("#version: 0.2\ne s\ne s\n", 22, ":3: duplicate merge");
    expect_bad("#version: 0.2\nes t\n", 19, ":2: symbol is neither one character");
    expect_bad("#version: 0.2\ne</w> s\n", 22, ":2: '</w>' may only end");
    expect_bad("#version: 0.2\ne s</w>x\n", 24, ":2: '</w>' may only end");
    expect_bad("#version: 0.2\ne  s\n", 19, ":2: expected 'LEFT RIGHT'");
    expect_bad("#version: 0.2\ne\n", 16, ":2: expected 'LEFT RIGHT'");
    expect_bad("#version: 0.2\ne\ts x\n", 20, ":2: expected 'LEFT RIGHT'");
    expect_bad("#version: 0.2\n\xff s\n", 18, ":2: invalid UTF-8");
    expect_bad("#version: 0.2\ne\x01 s\n", 19, ":2:");
    expect_bad("#version: 0.2\ne s\na\0 b\n", 23, ":3: NUL byte");
    expect_bad("#version: 0.2\n</w> s\n", 21, ":2:");
    char *longline = malloc(BPE_MAX_LINE + 64);
    strcpy(longline, "#version: 0.2\na ");
    memset(longline + 16, 'b', BPE_MAX_LINE);
    longline[16 + BPE_MAX_LINE] = '\n';
    expect_bad(longline, 17 + BPE_MAX_LINE, ":2: line too long");
    free(longline);
    Bpe b;
    char err[256];
    CHECK(bpe_load(&b, "/nonexistent/merges.txt", err, sizeof err) == -1 && strstr(err, "cannot open"), "%s", err);
    // Good files: CRLF line ends and a final line without '\n'; multi-byte characters.
    char path[] = "/tmp/test_bpe_ok_XXXXXX";
    int fd = mkstemp(path);
    const char *ok = "#version: 0.2\r\n\xc3\xa4 s\r\n\xc3\xa4s t</w>";
    if (write(fd, ok, strlen(ok)) < 0) CHECK(0, "write");
    close(fd);
    CHECK(bpe_load(&b, path, err, sizeof err) == 0, "%s", err);
    char out[64];
    CHECK(b.n_merges == 2 && !strcmp(seg(&b, "mäst", out, sizeof out), "m@@ äst"), "%d merges, '%s'", b.n_merges, out);
    bpe_free(&b);
    unlink(path);
}

// Merges apply lowest rank first: with "a b" learned before "b c</w>", "abc" is ab + c, never
// a + bc, though both pairs are present from the start (subword-nmt does the same).
static void test_merge_order(void) {
    char path[] = "/tmp/test_bpe_order_XXXXXX";
    int fd = mkstemp(path);
    const char *merges = "#version: 0.2\na b\nb c</w>\n";
    if (write(fd, merges, strlen(merges)) < 0) CHECK(0, "write");
    close(fd);
    Bpe b;
    char err[256], out[64];
    CHECK(bpe_load(&b, path, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(seg(&b, "abc", out, sizeof out), "ab@@ c"), "abc -> '%s', want 'ab@@ c'", out);
    CHECK(!strcmp(seg(&b, "bc", out, sizeof out), "bc"), "bc -> '%s'", out);
    bpe_free(&b);
    unlink(path);
}

static void test_hostile_words(void) {
    const char *lines[] = {"aaaa aaaa bbbb", "aaaa"};
    PtSide s;
    side_from(&s, lines, 2);
    Bpe b;
    CHECK(bpe_learn(&s, 10, &b) == 0, "learn");
    // A very long word is split into characters (no quadratic merging), and joins back.
    size_t n = 100000;
    char *w = malloc(n + 1);
    memset(w, 'a', n);
    w[n] = '\0';
    char *buf = malloc(bpe_buf_size(w));
    const char **toks = malloc(sizeof(char *) * n), **words = malloc(sizeof(char *) * n);
    int k = bpe_segment_word(&b, w, buf, toks);
    CHECK(k == (int)n, "%d pieces", k);
    char *joined = malloc(bpe_buf_size(w));
    CHECK(bpe_join(toks, k, joined, words) == 1 && !strcmp(words[0], w), "long word join");
    // An invalid byte counts as one character.
    char out[64];
    CHECK(!strcmp(seg(&b, "a\xff" "a", out, sizeof out), "a@@ \xff@@ a"), "'%s'", out);
    free(w); free(buf); free(toks); free(words); free(joined);
    bpe_free(&b);
    pt_side_free(&s);
}

static void tokens_of(const char *line, char *out, size_t n) {
    PtSide s = {0};
    long rep = 0;
    pt_add_line(&s, line, strlen(line), 0, &rep);
    out[0] = '\0';
    for (int i = 0; i < pt_line_len(&s, 0); i++) {
        if (i) strncat(out, "|", n - strlen(out) - 1);
        strncat(out, pt_token(&s, 0, i), n - strlen(out) - 1);
    }
    pt_side_free(&s);
}

static void test_tokenizer(void) {
    char out[512];
    tokens_of("\xe2\x80\x9eHallo\xe2\x80\x9c, sagte er\xe2\x80\xa6", out, sizeof out);
    CHECK(!strcmp(out, "\xe2\x80\x9e|Hallo|\xe2\x80\x9c|,|sagte|er|\xe2\x80\xa6"), "'%s'", out);
    tokens_of("a\xc2\xa0" "b \xe2\x80\x93 t-shirt 3.5", out, sizeof out);   // no-break space, en dash
    CHECK(!strcmp(out, "a|b|\xe2\x80\x93|t-shirt|3|.|5"), "'%s'", out);
    tokens_of("rot,blau.gr\xc3\xbcn!(x)", out, sizeof out);   // ASCII punctuation inside a word splits it
    CHECK(!strcmp(out, "rot|,|blau|.|gr\xc3\xbcn|!|(|x|)"), "'%s'", out);
    tokens_of("\xc2\xbf" "Qu\xc3\xa9?\xe3\x80\x82", out, sizeof out);
    CHECK(!strcmp(out, "\xc2\xbf|Qu\xc3\xa9|?|\xe3\x80\x82"), "'%s'", out);
    const char *t1[] = {"a", "man", "'", "s", "hat", "(", "red", ")", ",", "\"", "hi", "\"", "she", "said", "."};
    char *d = detokenize(t1, 15);
    CHECK(!strcmp(d, "a man's hat (red), \"hi\" she said."), "'%s'", d);
    free(d);
    const char *t2[] = {"'", "twas", "\xe2\x80\x9e", "ja", "\xe2\x80\x9d", "!"};
    d = detokenize(t2, 6);
    CHECK(!strcmp(d, "' twas \xe2\x80\x9eja\xe2\x80\x9d!"), "'%s'", d);
    free(d);
    d = detokenize(NULL, 0);
    CHECK(d && !strcmp(d, ""), "empty");
    free(d);
}

// Multi30k English: tokenise then detokenise gives the line back for nearly every line.
static void test_tokenizer_multi30k(void) {
    char *text = read_all(M30K "/val.en");
    if (!text) SKIP("%s/val.en not found (run from the repository root with shared/ beside it)", M30K);
    int lines = 0, same = 0;
    for (char *p = text ? strtok(text, "\n") : NULL; p; p = strtok(NULL, "\n")) {
        PtSide s = {0};
        long rep = 0;
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\r')) p[--len] = '\0';
        pt_add_line(&s, p, len, 0, &rep);
        const char *toks[256];
        int n = pt_line_len(&s, 0);
        for (int i = 0; i < n && i < 256; i++) toks[i] = pt_token(&s, 0, i);
        char *back = detokenize(toks, n < 256 ? n : 256);
        lines++;
        same += !strcmp(back, p);
        free(back);
        pt_side_free(&s);
    }
    printf("# val.en: %d of %d lines survive tokenise + detokenise unchanged\n", same, lines);
    CHECK(lines == 1014 && same >= 990, "%d of %d", same, lines);
    free(text);
}

int main(void) {
    RUN(test_hand_example);
    RUN(test_determinism_and_round_trip);
    RUN(test_hostile_files);
    RUN(test_merge_order);
    RUN(test_hostile_words);
    RUN(test_tokenizer);
    RUN(test_tokenizer_multi30k);
    return check_summary();
}
