// Vocabulary with an open-addressing hash table, see vocab.h.
#include "data/vocab.h"
#include "data/lines.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SPECIALS[] = { "<pad>", "<unk>", "<bos>", "<eos>", "<cls>" };

static uint32_t hash_str(const char *s) {   // FNV-1a
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

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

// Slot where tok is, or the empty slot where it would go.
static int find_slot(const Vocab *v, const char *tok) {
    int mask = v->n_slots - 1;
    int i = (int)(hash_str(tok) & (uint32_t)mask);
    while (v->slots[i] >= 0 && strcmp(v->tokens[v->slots[i]], tok) != 0) i = (i + 1) & mask;
    return i;
}

static int grow_table(Vocab *v) {
    int n_slots = v->n_slots ? v->n_slots * 2 : 64;
    int *slots = malloc(sizeof(int) * (size_t)n_slots);
    if (!slots) return -1;
    for (int i = 0; i < n_slots; i++) slots[i] = -1;
    free(v->slots);
    v->slots = slots;
    v->n_slots = n_slots;
    for (int id = 0; id < v->n; id++) v->slots[find_slot(v, v->tokens[id])] = id;
    return 0;
}

int vocab_init(Vocab *v, int with_cls) {
    memset(v, 0, sizeof *v);
    if (grow_table(v) != 0) return -1;
    int n_specials = with_cls ? 5 : 4;
    for (int i = 0; i < n_specials; i++)
        if (vocab_add(v, SPECIALS[i]) != i) { vocab_free(v); return -1; }
    return 0;
}

void vocab_free(Vocab *v) {
    for (int i = 0; i < v->n; i++) free(v->tokens[i]);
    free(v->tokens);
    free(v->slots);
    memset(v, 0, sizeof *v);
}

int vocab_find(const Vocab *v, const char *tok) {
    if (!v->slots) return -1;
    return v->slots[find_slot(v, tok)];
}

int vocab_id(const Vocab *v, const char *tok) {
    int id = vocab_find(v, tok);
    return id < 0 ? TOK_UNK : id;
}

int vocab_is_special(const Vocab *v, int id) {
    return id >= 0 && id < 4 + vocab_has_cls(v);
}

int vocab_has_cls(const Vocab *v) {
    return v->n > TOK_CLS && strcmp(v->tokens[TOK_CLS], "<cls>") == 0;
}

int vocab_word_id(const Vocab *v, const char *tok) {
    int id = vocab_find(v, tok);
    return (id < 0 || vocab_is_special(v, id)) ? TOK_UNK : id;
}

const char *vocab_token(const Vocab *v, int id) {
    return (id >= 0 && id < v->n) ? v->tokens[id] : NULL;
}

int vocab_add(Vocab *v, const char *tok) {
    if (token_problem(tok, strlen(tok))) return -1;
    int id = vocab_find(v, tok);
    if (id >= 0) return id;
    if ((v->n + 1) * 2 > v->n_slots && grow_table(v) != 0) return -1;   // load factor <= 1/2
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 64;
        char **t = realloc(v->tokens, sizeof(char *) * (size_t)cap);
        if (!t) return -1;
        v->tokens = t;
        v->cap = cap;
    }
    char *copy = strdup(tok);
    if (!copy) return -1;
    v->tokens[v->n] = copy;
    v->slots[find_slot(v, tok)] = v->n;
    return v->n++;
}

int vocab_save(const Vocab *v, const char *path, char *err, int errlen) {
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) return errorf(err, errlen, "%s: out of memory", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        errorf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int ok = 1;
    for (int i = 0; i < v->n && ok; i++) ok = fprintf(f, "%s\n", v->tokens[i]) > 0;
    ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        errorf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
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
    if (grow_table(v) != 0) { line_close(&r); return errorf(err, errlen, "%s: out of memory", path); }
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
