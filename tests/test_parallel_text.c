// parallel_text: reading line-aligned files, tokenising, vocabularies, the max_tokens filter.
// The Multi30k fixture is read from ../shared/data/multi30k (relative to the repository root,
// where the tests run); bad-file cases are written to /tmp.
#include "check.h"
#include "data/lines.h"
#include "data/parallel_text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define M30K "../shared/data/multi30k"
// Measured on the fixture with this tokeniser (lower-cased).
#define MULTI30K_DE_VOCAB 7861   // min_freq 2, specials included (Unicode punctuation split)
#define MULTI30K_EN_VOCAB 5924
#define MULTI30K_DROPPED_30 84   // pairs with a side over 30 tokens

static char paths[4][256];

// Writes `len` bytes to a per-process file in /tmp; slot picks one of four path buffers.
static const char *write_file(int slot, const char *name, const char *text, size_t len) {
    snprintf(paths[slot], sizeof paths[slot], "/tmp/test_pt_%d_%s", (int)getpid(), name);
    FILE *f = fopen(paths[slot], "wb");
    if (f) { fwrite(text, 1, len, f); fclose(f); }
    return paths[slot];
}
#define WRITE(slot, name, lit) write_file(slot, name, lit, sizeof(lit) - 1)

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

// Tokens of one line joined by single spaces.
static void line_text(const PtSide *s, int line, char *buf, size_t cap) {
    buf[0] = '\0';
    for (int i = 0; i < pt_line_len(s, line); i++) {
        if (i) strncat(buf, " ", cap - strlen(buf) - 1);
        strncat(buf, pt_token(s, line, i), cap - strlen(buf) - 1);
    }
}

static void test_tokenise(void) {
    const char *src = WRITE(0, "tok.de", "Hello, world! (It's) \"ÄRGER\"; a:b?\tÜber.\n\n  \nDas  Ende\n");
    const char *tgt = WRITE(1, "tok.en", "a\nb\nc\nd\n");
    ParallelText pt;
    char err[256] = "", buf[512];
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0, "%s", err);
    CHECK(pt.n_lines == 4, "%d lines", pt.n_lines);
    line_text(&pt.src, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "hello , world ! ( it ' s ) \" ärger \" ; a : b ? über .") == 0, "line 1: '%s'", buf);
    CHECK(pt_line_len(&pt.src, 1) == 0 && pt_line_len(&pt.src, 2) == 0, "blank lines have no tokens");
    line_text(&pt.src, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "das ende") == 0, "line 4: '%s'", buf);
    parallel_free(&pt);
    CHECK(parallel_load(src, tgt, 0, &pt, err, sizeof err) == 0, "%s", err);
    line_text(&pt.src, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "Das Ende") == 0, "no lower-casing: '%s'", buf);
    // Blank lines are dropped from a training split and counted; a held-out split (max_tokens 0)
    // keeps them, with no ids.
    Vocab sv, tv;
    Split s;
    int dropped = -1;
    CHECK(parallel_build_vocabs(&pt, 1, &sv, &tv) == 0, "vocabs");
    CHECK(parallel_to_split(&pt, &sv, &tv, 100, &s, &dropped) == 0 && s.n == 2 && dropped == 2, "n %d dropped %d", s.n, dropped);
    split_free(&s);
    CHECK(parallel_to_split(&pt, &sv, &tv, 0, &s, &dropped) == 0 && s.n == 4 && dropped == 0, "held out: n %d dropped %d", s.n, dropped);
    CHECK(s.n == 4 && s.ex[1].n_src == 0 && !s.ex[1].src && s.ex[1].n_tgt == 1 && s.ex[2].n_src == 0, "held-out blank lines");
    split_free(&s);
    vocab_free(&sv); vocab_free(&tv);
    parallel_free(&pt);
    remove(paths[0]); remove(paths[1]);
}

static void test_vocab_and_ids(void) {
    const char *src = WRITE(0, "v.de", "b a c a\nb a <pad>\na d\n");
    const char *tgt = WRITE(1, "v.en", "x\ny y\nx y z\n");
    ParallelText pt;
    Vocab sv, tv;
    char err[256] = "";
    CHECK(parallel_load(src, tgt, 0, &pt, err, sizeof err) == 0, "%s", err);
    CHECK(parallel_build_vocabs(&pt, 2, &sv, &tv) == 0, "vocabs");
    // a: 4, b: 2 kept (most frequent first); c, d, "<pad>" (once each, or special) are not.
    CHECK(sv.n == 6 && vocab_find(&sv, "a") == 4 && vocab_find(&sv, "b") == 5 && vocab_find(&sv, "c") == -1,
          "src vocab size %d", sv.n);
    CHECK(tv.n == 6 && vocab_find(&tv, "y") == 4 && vocab_find(&tv, "x") == 5, "tgt vocab size %d", tv.n);
    Split s;
    int dropped;
    CHECK(parallel_to_split(&pt, &sv, &tv, 3, &s, &dropped) == 0, "split");
    // Line 1 has 4 source tokens > 3: dropped. Line 2: b a <pad> -> 5 4 <unk> (text "<pad>" is not padding).
    CHECK(dropped == 1 && s.n == 2, "dropped %d, kept %d", dropped, s.n);
    CHECK(s.n == 2 && s.ex[0].n_src == 3 && s.ex[0].src[0] == 5 && s.ex[0].src[1] == 4 && s.ex[0].src[2] == TOK_UNK,
          "ids of line 2");
    CHECK(s.n == 2 && s.ex[1].n_tgt == 3 && s.ex[1].tgt[2] == TOK_UNK && s.ex[1].n_clauses == 0 && s.ex[1].twin == -1,
          "line 3 target");
    split_free(&s);
    vocab_free(&sv); vocab_free(&tv);
    // min_freq 1 keeps everything (except the literal "<pad>", already a special).
    CHECK(parallel_build_vocabs(&pt, 1, &sv, &tv) == 0 && sv.n == 8 && tv.n == 7, "min_freq 1: %d %d", sv.n, tv.n);
    vocab_free(&sv); vocab_free(&tv);
    parallel_free(&pt);
    remove(paths[0]); remove(paths[1]);
}

// The decoder-only form's vocabulary counts a token on both sides together.
static void test_joint_vocab(void) {
    const char *src = WRITE(0, "j.de", "a b a\nc x\n");
    const char *tgt = WRITE(1, "j.en", "x y\ny x a\n");
    ParallelText pt;
    Vocab v, sv, tv;
    char err[256] = "";
    CHECK(parallel_load(src, tgt, 0, &pt, err, sizeof err) == 0, "%s", err);
    // a: 2 + 1, x: 1 + 2, y: 0 + 2 kept at min_freq 2 (ties in byte order); b, c once.
    CHECK(parallel_build_joint_vocab(&pt, 2, &v) == 0, "joint vocab");
    CHECK(v.n == 7 && vocab_find(&v, "a") == 4 && vocab_find(&v, "x") == 5 && vocab_find(&v, "y") == 6 &&
          vocab_find(&v, "b") == -1, "joint vocab: %d tokens, a %d x %d y %d", v.n, vocab_find(&v, "a"),
          vocab_find(&v, "x"), vocab_find(&v, "y"));
    // One side at a time, a (source) and x (target) fall below min_freq = 3; together they stay.
    CHECK(parallel_build_vocabs(&pt, 3, &sv, &tv) == 0 && sv.n == 4 && tv.n == 4, "separate %d %d", sv.n, tv.n);
    vocab_free(&sv); vocab_free(&tv);
    Split s;
    int dropped;
    CHECK(parallel_to_split(&pt, &v, &v, 0, &s, &dropped) == 0 && s.n == 2, "split");
    CHECK(s.n == 2 && s.ex[0].src[0] == 4 && s.ex[0].src[1] == TOK_UNK && s.ex[0].tgt[0] == 5 && s.ex[0].tgt[1] == 6 &&
          s.ex[1].src[1] == 5 && s.ex[1].tgt[2] == 4, "ids in the joint vocabulary");
    split_free(&s);
    vocab_free(&v);
    Vocab v3;
    CHECK(parallel_build_joint_vocab(&pt, 3, &v3) == 0 && v3.n == 6, "joint min_freq 3: %d", v3.n);
    vocab_free(&v3);
    parallel_free(&pt);
    remove(paths[0]); remove(paths[1]);
}

// parallel_load must fail with `want` in the message.
static void expect_load_error(const char *src, const char *tgt, const char *want) {
    ParallelText pt;
    char err[512] = "";
    int rc = parallel_load(src, tgt, 1, &pt, err, sizeof err);
    CHECK(rc == -1 && contains(err, want), "rc %d, error '%s' lacks '%s'", rc, err, want);
    CHECK(pt.src.chars == NULL && pt.n_lines == 0, "corpus left empty");
}

static void test_bad_files(void) {
    char want[600];
    const char *tgt = WRITE(1, "ok.en", "a\nb\nc\n");
    expect_load_error("/nonexistent/train.de", tgt, "/nonexistent/train.de: cannot open: No such file");
    const char *src = WRITE(0, "empty.de", "");
    snprintf(want, sizeof want, "%s: empty file", src);
    expect_load_error(src, tgt, want);
    src = WRITE(0, "short.de", "a\nb\n");
    snprintf(want, sizeof want, "%s has 2 lines but %s has 3", src, tgt);
    expect_load_error(src, tgt, want);
    src = WRITE(0, "nonl.de", "a\nb\nc");            // last line without '\n' still counts
    ParallelText pt;
    char err[256] = "";
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0 && pt.n_lines == 3, "no final newline: %s", err);
    parallel_free(&pt);

    // CRLF: no '\r' in tokens, same line count.
    src = WRITE(0, "crlf.de", "Der Hund\r\nDie Katze.\r\n\r\n");
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0 && pt.n_lines == 3, "crlf: %s", err);
    int cr = 0;
    for (size_t i = 0; i < pt.src.n_chars; i++) cr += pt.src.chars[i] == '\r';
    CHECK(cr == 0 && pt_line_len(&pt.src, 1) == 3 && strcmp(pt_token(&pt.src, 1, 1), "katze") == 0, "crlf tokens");
    parallel_free(&pt);

    // Invalid UTF-8 is replaced by U+FFFD and counted (documented choice).
    src = write_file(0, "bad.de", "gr\xfc\xdf" "e ok\n\xc3\n" "a b\n", 15);
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0, "invalid utf-8: %s", err);
    CHECK(pt.n_replaced == 3, "replaced %ld bytes", pt.n_replaced);
    CHECK(strcmp(pt_token(&pt.src, 0, 0), "gr\xef\xbf\xbd\xef\xbf\xbd" "e") == 0 && strcmp(pt_token(&pt.src, 0, 1), "ok") == 0,
          "repaired token '%s'", pt_token(&pt.src, 0, 0));
    CHECK(strcmp(pt_token(&pt.src, 1, 0), "\xef\xbf\xbd") == 0, "truncated sequence");
    parallel_free(&pt);
    // A NUL byte is refused with its line, the moment it is read (a text file has none).
    src = write_file(0, "nul.de", "a b\nc\n" "d\0e\n", 9);
    snprintf(want, sizeof want, "%s:3: NUL byte in a text file (is it a binary file?)", src);
    expect_load_error(src, tgt, want);
    // A line over LINE_MAX_BYTES is refused before the reader holds more than that.
    size_t over = LINE_MAX_BYTES + 1;
    char *endless = malloc(over);
    memset(endless, 'y', over);
    src = write_file(0, "endless.de", endless, over);
    free(endless);
    snprintf(want, sizeof want, "%s:1: line is longer than 4 MiB (LINE_MAX_BYTES); is this a text file with one sentence per line?", src);
    expect_load_error(src, tgt, want);
    // Not a regular file: a device, a folder.
    expect_load_error("/dev/zero", tgt, "/dev/zero: a device or socket, not a regular file");
    expect_load_error("/tmp", tgt, "/tmp: a folder, not a regular file");

    // A 1 MB line (one huge token plus words): no crash, dropped by max_tokens, no vocab entry.
    size_t n = 1 << 20;
    char *big = malloc(n + 64);
    memset(big, 'x', n);
    memcpy(big + n, " und so weiter\nkurz\nzwei worte\n", 31);
    src = write_file(0, "big.de", big, n + 31);
    free(big);
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0 && pt.n_lines == 3, "1 MB line: %s", err);
    CHECK(pt_line_len(&pt.src, 0) == 4 && strlen(pt_token(&pt.src, 0, 0)) == n, "huge token kept whole");
    Vocab sv, tv;
    Split s;
    int dropped;
    parallel_build_vocabs(&pt, 1, &sv, &tv);
    CHECK(sv.n == 4 + 6, "the 1 MB token is not in the vocabulary (size %d)", sv.n);
    CHECK(parallel_to_split(&pt, &sv, &tv, 3, &s, &dropped) == 0 && dropped == 1 && s.n == 2, "dropped %d", dropped);
    split_free(&s);
    CHECK(parallel_to_split(&pt, &sv, &tv, 0, &s, &dropped) == 0 && dropped == 0 && s.ex[0].src[0] == TOK_UNK,
          "no limit: the huge token is <unk>");
    split_free(&s);
    vocab_free(&sv); vocab_free(&tv);
    parallel_free(&pt);

    // Every token unknown: all ids <unk>, nothing crashes.
    ParallelText other;
    src = WRITE(0, "known.de", "eins zwei\ndrei\nvier\n");
    CHECK(parallel_load(src, tgt, 1, &pt, err, sizeof err) == 0, "%s", err);
    src = WRITE(2, "unknown.de", "alpha beta\ngamma\ndelta epsilon\n");
    const char *tgt2 = WRITE(3, "unknown.en", "q r\ns\nt u v\n");
    CHECK(parallel_load(src, tgt2, 1, &other, err, sizeof err) == 0, "%s", err);
    parallel_build_vocabs(&pt, 1, &sv, &tv);
    CHECK(parallel_to_split(&other, &sv, &tv, 0, &s, &dropped) == 0 && s.n == 3, "unknown split");
    int not_unk = 0;
    for (int i = 0; i < s.n; i++) {
        for (int k = 0; k < s.ex[i].n_src; k++) not_unk += s.ex[i].src[k] != TOK_UNK;
        for (int k = 0; k < s.ex[i].n_tgt; k++) not_unk += s.ex[i].tgt[k] != TOK_UNK;
    }
    CHECK(not_unk == 0, "%d known ids in an all-unknown file", not_unk);
    split_free(&s);
    vocab_free(&sv); vocab_free(&tv);
    parallel_free(&pt);
    parallel_free(&other);
    for (int i = 0; i < 4; i++) remove(paths[i]);
    const char *names[] = { "empty.de", "short.de", "nonl.de", "crlf.de", "bad.de", "big.de", "known.de" };
    for (int i = 0; i < 7; i++) { char p[256]; snprintf(p, sizeof p, "/tmp/test_pt_%d_%s", (int)getpid(), names[i]); remove(p); }
}

static void test_multi30k(void) {
    if (access(M30K "/train.de", R_OK) != 0) {
        SKIP("%s not found (run from the repository root with shared/ beside it)", M30K);
    }
    ParallelText train, val;
    char err[256] = "";
    CHECK(parallel_load(M30K "/train.de", M30K "/train.en", 1, &train, err, sizeof err) == 0, "%s", err);
    CHECK(train.n_lines == 29000, "train has %d lines", train.n_lines);
    CHECK(train.n_replaced == 0, "%ld invalid UTF-8 bytes", train.n_replaced);
    char buf[1024];
    line_text(&train.src, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "zwei junge weiße männer sind im freien in der nähe vieler büsche .") == 0, "line 1: '%s'", buf);
    line_text(&train.tgt, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "two young , white males are outside near many bushes .") == 0, "line 1: '%s'", buf);
    Vocab sv, tv;
    CHECK(parallel_build_vocabs(&train, 2, &sv, &tv) == 0, "vocabs");
    printf("# multi30k train: %d pairs, %ld / %ld tokens; vocab (min_freq 2): de %d, en %d\n",
           train.n_lines, train.src.n_tok, train.tgt.n_tok, sv.n, tv.n);
    CHECK(sv.n == MULTI30K_DE_VOCAB && tv.n == MULTI30K_EN_VOCAB, "vocab sizes %d %d", sv.n, tv.n);
    CHECK(strcmp(vocab_token(&sv, 4), ".") == 0 && strcmp(vocab_token(&tv, 4), "a") == 0,
          "most frequent tokens '%s' '%s'", vocab_token(&sv, 4), vocab_token(&tv, 4));
    Split s;
    int dropped;
    CHECK(parallel_to_split(&train, &sv, &tv, 30, &s, &dropped) == 0, "split");
    int max_src, max_tgt;
    split_max_lengths(&s, &max_src, &max_tgt);
    printf("# max_tokens 30: kept %d, dropped %d (longest kept %d / %d)\n", s.n, dropped, max_src, max_tgt);
    CHECK(s.n + dropped == 29000 && dropped == MULTI30K_DROPPED_30, "dropped %d", dropped);
    CHECK(max_src <= 30 && max_tgt <= 30, "longest %d %d", max_src, max_tgt);
    split_free(&s);

    CHECK(parallel_load(M30K "/val.de", M30K "/val.en", 1, &val, err, sizeof err) == 0, "%s", err);
    CHECK(parallel_to_split(&val, &sv, &tv, 0, &s, &dropped) == 0 && s.n == 1014 && dropped == 0, "val %d", s.n);
    long unk = 0, total = 0;
    for (int i = 0; i < s.n; i++)
        for (int k = 0; k < s.ex[i].n_src; k++) { unk += s.ex[i].src[k] == TOK_UNK; total++; }
    printf("# val German <unk> rate %.2f%%\n", 100.0 * unk / total);
    CHECK(unk * 100 > total * 3 && unk * 100 < total * 6, "val unk %ld of %ld", unk, total);
    split_free(&s);
    parallel_free(&val);
    vocab_free(&sv); vocab_free(&tv);
    parallel_free(&train);
}

int main(void) {
    RUN(test_tokenise);
    RUN(test_vocab_and_ids);
    RUN(test_joint_vocab);
    RUN(test_bad_files);
    RUN(test_multi30k);
    return check_summary();
}
