// Vocabulary: the token rules and file format over a string table, see vocab.h.
#include "data/vocab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "data/lines.h"
#include "io/fileio.h"

static const char *SPECIALS[] = { "<pad>", "<unk>", "<bos>", "<eos>", "<cls>" };

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Why a token is invalid, or NULL if it is fine.
static const char *token_problem(const char *tok, size_t len) {
    if (len == 0) return "empty token";
    if (len > VOCAB_MAX_TOKEN) return "token longer than 256 bytes";
    if (strlen(tok) != len) return "token contains a NUL byte";
    for (size_t i = 0; i < len; i++)
        if (is_space(tok[i])) return "token contains whitespace";
    return NULL;
}

int vocab_init(Vocab *v, int with_cls) {
    memset(v, 0, sizeof *v);
    int n_specials = with_cls ? 5 : 4;
    for (int i = 0; i < n_specials; i++)
        if (vocab_add(v, SPECIALS[i]) != i) { vocab_free(v); return -1; }
    return 0;
}

void vocab_free(Vocab *v) { str_ids_free(v); }

int vocab_find(const Vocab *v, const char *tok) { return str_ids_find(v, tok, strlen(tok)); }

int vocab_id(const Vocab *v, const char *tok) {
    int id = vocab_find(v, tok);
    return id < 0 ? TOK_UNK : id;
}

int vocab_is_special(const Vocab *v, int id) {
    return id >= 0 && id < 4 + vocab_has_cls(v);
}

int vocab_has_cls(const Vocab *v) {
    return v->n > TOK_CLS && strcmp(v->str[TOK_CLS], "<cls>") == 0;
}

int vocab_word_id(const Vocab *v, const char *tok) {
    int id = vocab_find(v, tok);
    return (id < 0 || vocab_is_special(v, id)) ? TOK_UNK : id;
}

const char *vocab_token(const Vocab *v, int id) {
    return (id >= 0 && id < v->n) ? v->str[id] : NULL;
}

int vocab_add(Vocab *v, const char *tok) {
    size_t len = strlen(tok);
    return token_problem(tok, len) ? -1 : str_ids_add(v, tok, len);
}

int vocab_save(const Vocab *v, const char *path, char *err, int errlen) {
    size_t size = 0;
    for (int i = 0; i < v->n; i++) size += strlen(v->str[i]) + 1;
    char *text = malloc(size + 1), *o = text;
    if (!text) return errorf(err, errlen, "%s: out of memory", path);
    for (int i = 0; i < v->n; i++) o += sprintf(o, "%s\n", v->str[i]);
    int rc = write_file_atomic(path, text, size, err, errlen);
    free(text);
    return rc;
}

// Checks one loaded line against the format; NULL if fine, else the message.
static const char *line_problem(const Vocab *v, const char *line, long len, char *buf, int buflen) {
    int id = v->n;
    if (id < 4 && strcmp(line, SPECIALS[id]) != 0) {
        snprintf(buf, (size_t)buflen, "expected special token %s on line %d, found '%.40s' "
                 "(lines 1-4 must be <pad> <unk> <bos> <eos>)", SPECIALS[id], id + 1, line);
        return buf;
    }
    if (id != TOK_CLS && strcmp(line, "<cls>") == 0)
        return "<cls> may only appear on line 5 (id 4)";
    const char *p = token_problem(line, (size_t)len);
    if (p) return p;
    int prev = vocab_find(v, line);
    if (prev >= 0) {
        snprintf(buf, (size_t)buflen, "duplicate token '%.40s' (first on line %d)", line, prev + 1);
        return buf;
    }
    return NULL;
}

int vocab_load(Vocab *v, const char *path, char *err, int errlen) {
    memset(v, 0, sizeof *v);
    LineReader r;
    if (line_open(&r, path, err, errlen) != 0) return -1;
    char *line, msg[160];
    long len;
    int rc = 0;
    while ((len = line_next(&r, &line)) >= 0) {
        const char *p = line_problem(v, line, len, msg, sizeof msg);
        if (!p && vocab_add(v, line) < 0) p = "out of memory";
        if (p) { rc = errorf(err, errlen, "%s:%ld: %s", path, r.line_no, p); break; }
    }
    if (rc == 0) rc = line_failed(&r, err, errlen);
    if (rc == 0 && v->n == 0)
        rc = errorf(err, errlen, "%s: empty vocabulary file (expected <pad> <unk> <bos> <eos> "
                      "on lines 1-4)", path);
    else if (rc == 0 && v->n < 4)
        rc = errorf(err, errlen, "%s:%d: missing special token %s (file ends after %d lines)",
                      path, v->n + 1, SPECIALS[v->n], v->n);
    line_close(&r);
    if (rc != 0) vocab_free(v);
    return rc;
}
