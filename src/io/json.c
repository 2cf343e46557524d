// Strict JSON parser and string writer; see json.h for the accepted grammar and the API.
//
// Shape: a recursive-descent parser. Children of an open array/object are collected on one
// shared scratch stack and copied into the document's arena when the container closes, so
// the tree is a few large allocations that json_free releases in one walk.
#include "io/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/utf8.h"

#define DEFAULT_MAX_DEPTH 64
#define HARD_MAX_DEPTH 10000               // recursion bound, whatever the caller asks
#define DEFAULT_MAX_BYTES ((size_t)64 << 20)
#define DEFAULT_MAX_STRING ((size_t)16 << 20)
#define ARENA_BLOCK ((size_t)64 << 10)

// ---------------------------------------------------------------------------------------
// Arena: the document owns a list of blocks; nothing inside is freed individually.

typedef struct Block {
    struct Block *next;
    size_t used, cap;
    max_align_t data[];
} Block;

struct JsonDoc {
    Block *blocks;
    JsonValue root;
};

static void *arena_alloc(JsonDoc *doc, size_t size) {
    size_t align = sizeof(max_align_t);
    size = (size + align - 1) / align * align;
    if (size == 0) size = align;
    Block *b = doc->blocks;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        Block *nb = malloc(sizeof(Block) + cap);
        if (!nb) return NULL;
        nb->used = 0;
        nb->cap = cap;
        // A dedicated big block goes behind the current one so the current keeps filling.
        if (b && size > ARENA_BLOCK) { nb->next = b->next; b->next = nb; }
        else { nb->next = b; doc->blocks = nb; }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
}

// ---------------------------------------------------------------------------------------
// Parser state and error reporting.

typedef struct {
    const unsigned char *s;
    size_t n, pos;
    JsonLimits lim;
    JsonDoc *doc;
    JsonMember *stack;          // children of every open container, innermost last
    size_t stack_len, stack_cap;
    StrBuf sbuf;                // the string being decoded
    char *err;
    int errlen;
    int failed;
} Parser;

static int fail(Parser *p, size_t offset, const char *fmt, ...) {
    if (p->failed) return -1;  // keep the first, most precise message
    p->failed = 1;
    if (p->err && p->errlen > 0) {
        int k = snprintf(p->err, (size_t)p->errlen, "byte %zu: ", p->lim.offset_base + offset);
        if (k >= 0 && k < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + k, (size_t)(p->errlen - k), fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static int out_of_memory(Parser *p) { return fail(p, p->pos, "out of memory"); }

// "'x'" for a printable ASCII character, "byte 0xNN" otherwise (for messages).
static const char *describe_char(unsigned char c, char buf[16]) {
    if (c >= 0x20 && c < 0x7f) snprintf(buf, 16, "'%c'", c);
    else snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static void skip_ws(Parser *p) {
    while (p->pos < p->n) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

// ---------------------------------------------------------------------------------------
// Strings.

static int sbuf_put(Parser *p, const void *bytes, size_t k) {
    if (p->sbuf.len + k > p->lim.max_string_bytes)
        return fail(p, p->pos, "string longer than the limit of %zu bytes",
                    p->lim.max_string_bytes);
    strbuf_append(&p->sbuf, bytes, k);
    return p->sbuf.failed ? out_of_memory(p) : 0;
}

static int put_codepoint(Parser *p, unsigned cp) {
    unsigned char u[4];
    size_t k;
    if (cp < 0x80) { u[0] = (unsigned char)cp; k = 1; }
    else if (cp < 0x800) {
        u[0] = (unsigned char)(0xc0 | cp >> 6); u[1] = (unsigned char)(0x80 | (cp & 0x3f)); k = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xe0 | cp >> 12); u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (cp & 0x3f)); k = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | cp >> 18); u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (cp & 0x3f)); k = 4;
    }
    return sbuf_put(p, u, k);
}

// Reads the 4 hex digits of \uXXXX; p->pos is at the 'u'.
static int read_hex4(Parser *p, unsigned *out) {
    size_t start = p->pos - 1;  // the backslash
    if (p->n - p->pos < 5) return fail(p, start, "incomplete \\u escape");
    unsigned v = 0;
    for (int i = 1; i <= 4; i++) {
        unsigned char c = p->s[p->pos + (size_t)i];
        unsigned d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else {
            char b[16];
            return fail(p, p->pos + (size_t)i, "invalid hex digit %s in \\u escape",
                        describe_char(c, b));
        }
        v = v * 16 + d;
    }
    p->pos += 5;
    *out = v;
    return 0;
}

// \uXXXX at p->pos (the 'u'), with surrogate pairs joined into one code point.
static int parse_unicode_escape(Parser *p) {
    size_t start = p->pos - 1;
    unsigned cp;
    if (read_hex4(p, &cp)) return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(p, start, "lone low surrogate \\u%04X (not preceded by a high surrogate)", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->n - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail(p, start,
                        "lone high surrogate \\u%04X "
                        "(expected a low surrogate \\uDC00-\\uDFFF after it)",
                        cp);
        p->pos += 1;  // at the 'u'
        unsigned lo;
        if (read_hex4(p, &lo)) return -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail(p, start, "high surrogate \\u%04X followed by \\u%04X, not a low surrogate",
                        cp, lo);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    return put_codepoint(p, cp);
}

static int parse_escape(Parser *p) {
    size_t start = p->pos;  // the backslash
    if (++p->pos >= p->n) return fail(p, start, "unterminated escape sequence");
    unsigned char c = p->s[p->pos];
    char out;
    switch (c) {
    case '"': out = '"'; break;
    case '\\': out = '\\'; break;
    case '/': out = '/'; break;
    case 'b': out = '\b'; break;
    case 'f': out = '\f'; break;
    case 'n': out = '\n'; break;
    case 'r': out = '\r'; break;
    case 't': out = '\t'; break;
    case 'u': return parse_unicode_escape(p);
    default: {
        char b[16];
        return fail(p, start, "invalid escape '\\' followed by %s", describe_char(c, b));
    }
    }
    p->pos++;
    return sbuf_put(p, &out, 1);
}

// Decodes the string at p->pos (the opening quote) into arena memory.
static int parse_string(Parser *p, const char **out, size_t *out_len) {
    size_t start = p->pos++;
    p->sbuf.len = 0;
    for (;;) {
        if (p->pos >= p->n)
            return fail(p, p->n, "unterminated string (opened at byte %zu)",
                        p->lim.offset_base + start);
        unsigned char c = p->s[p->pos];
        if (c == '"') break;
        if (c == '\\') {
            if (parse_escape(p)) return -1;
        } else if (c < 0x20) {
            return fail(p, p->pos, "raw control character 0x%02x in string (must be escaped)", c);
        } else {
            size_t k = (size_t)utf8_seq_len(p->s + p->pos, p->n - p->pos);
            if (!k) return fail(p, p->pos, "invalid UTF-8 byte 0x%02x in string", c);
            if (sbuf_put(p, p->s + p->pos, k)) return -1;
            p->pos += k;
        }
    }
    p->pos++;  // closing quote
    char *s = arena_alloc(p->doc, p->sbuf.len + 1);
    if (!s) return out_of_memory(p);
    if (p->sbuf.len) memcpy(s, p->sbuf.s, p->sbuf.len);
    s[p->sbuf.len] = '\0';
    *out = s;
    *out_len = p->sbuf.len;
    return 0;
}

// ---------------------------------------------------------------------------------------
// Numbers and literals.

static int is_digit(Parser *p) {
    return p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9';
}

static int parse_number(Parser *p, JsonValue *v) {
    size_t start = p->pos;
    int neg = 0, integral = 1;
    if (p->s[p->pos] == '-') { neg = 1; p->pos++; }
    if (!is_digit(p)) return fail(p, p->pos, "expected a digit after '-'");
    if (p->s[p->pos] == '0') {
        p->pos++;
        if (is_digit(p)) return fail(p, start, "leading zeros are not allowed in numbers");
    } else {
        while (is_digit(p)) p->pos++;
    }
    size_t int_end = p->pos;
    if (p->pos < p->n && p->s[p->pos] == '.') {
        integral = 0;
        p->pos++;
        if (!is_digit(p)) return fail(p, p->pos, "expected a digit after '.'");
        while (is_digit(p)) p->pos++;
    }
    if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        integral = 0;
        p->pos++;
        if (p->pos < p->n && (p->s[p->pos] == '+' || p->s[p->pos] == '-')) p->pos++;
        if (!is_digit(p)) return fail(p, p->pos, "expected a digit in the exponent");
        while (is_digit(p)) p->pos++;
    }

    // Exact int64 for integer literals: accumulate the magnitude, watching for overflow.
    v->is_int = 0;
    if (integral) {
        uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        int fits = 1;
        for (size_t i = start + (size_t)neg; i < int_end && fits; i++) {
            unsigned d = p->s[i] - '0';
            if (mag > (limit - d) / 10) fits = 0;
            else mag = mag * 10 + d;
        }
        if (fits) {
            v->is_int = 1;
            // Negating INT64_MIN's magnitude in unsigned arithmetic, then converting, is exact.
            v->int64 =
                neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
        }
    }

    // strtod needs a NUL-terminated copy: the input need not be terminated.
    size_t len = p->pos - start;
    char small[64], *buf = small;
    if (len >= sizeof small && !(buf = malloc(len + 1))) return out_of_memory(p);
    memcpy(buf, p->s + start, len);
    buf[len] = '\0';
    v->number = strtod(buf, NULL);
    if (buf != small) free(buf);
    if (!isfinite(v->number)) return fail(p, start, "number out of range");
    v->type = JSON_NUMBER;
    return 0;
}

static int parse_literal(Parser *p, JsonValue *v) {
    static const struct { const char *word; JsonType type; int boolean; } lits[] = {
        {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}, {"null", JSON_NULL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(lits[i].word);
        if (p->n - p->pos >= k && memcmp(p->s + p->pos, lits[i].word, k) == 0) {
            v->type = lits[i].type;
            v->boolean = lits[i].boolean;
            p->pos += k;
            return 0;
        }
    }
    return fail(p, p->pos, "invalid literal (expected true, false or null)");
}

// ---------------------------------------------------------------------------------------
// Containers.

static int parse_value(Parser *p, JsonValue *v, int depth);

static int stack_push(Parser *p, const JsonMember *m) {
    if (p->stack_len == p->stack_cap) {
        size_t cap = p->stack_cap ? p->stack_cap * 2 : 64;
        JsonMember *ns = realloc(p->stack, cap * sizeof *ns);
        if (!ns) return out_of_memory(p);
        p->stack = ns;
        p->stack_cap = cap;
    }
    p->stack[p->stack_len++] = *m;
    return 0;
}

static int compare_members(const void *a, const void *b) {
    const JsonMember *x = *(const JsonMember *const *)a, *y = *(const JsonMember *const *)b;
    size_t k = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, k);
    if (c) return c;
    if (x->key_len != y->key_len) return x->key_len < y->key_len ? -1 : 1;
    return x->key_offset < y->key_offset ? -1 : x->key_offset > y->key_offset;
}

// Sorting (key, offset) puts duplicates side by side: O(n log n) even for huge objects.
// Reports the earliest repeated occurrence in document order.
// The object's members are p->stack[base .. base + n): the stack is NULL before the first push,
// so the pointer is formed only once there are members to compare.
static int check_duplicate_keys(Parser *p, size_t base, size_t n) {
    if (n < 2) return 0;
    const JsonMember *m = p->stack + base;
    const JsonMember **idx = malloc(n * sizeof *idx);
    if (!idx) return out_of_memory(p);
    for (size_t i = 0; i < n; i++) idx[i] = &m[i];
    qsort(idx, n, sizeof *idx, compare_members);
    const JsonMember *dup = NULL;
    for (size_t i = 1; i < n; i++) {
        if (idx[i]->key_len == idx[i - 1]->key_len &&
            memcmp(idx[i]->key, idx[i - 1]->key, idx[i]->key_len) == 0)
            if (!dup || idx[i]->key_offset < dup->key_offset) dup = idx[i];
    }
    int rc = 0;
    if (dup)
        rc = fail(p, dup->key_offset - p->lim.offset_base, "duplicate key \"%.80s\" in object",
                  dup->key);
    free(idx);
    return rc;
}

static int parse_array(Parser *p, JsonValue *v, int depth) {
    size_t base = p->stack_len;
    p->pos++;  // '['
    skip_ws(p);
    if (p->pos < p->n && p->s[p->pos] == ']') p->pos++;
    else {
        for (;;) {
            JsonMember m = {0};
            if (parse_value(p, &m.value, depth + 1) || stack_push(p, &m)) return -1;
            skip_ws(p);
            if (p->pos >= p->n)
                return fail(p, p->n, "unexpected end of input in array, expected ',' or ']'");
            unsigned char c = p->s[p->pos++];
            if (c == ']') break;
            if (c != ',') {
                char b[16];
                return fail(p, p->pos - 1, "expected ',' or ']' in array, found %s",
                            describe_char(c, b));
            }
        }
    }
    size_t n = p->stack_len - base;
    v->type = JSON_ARRAY;
    v->len = n;
    if (n) {
        if (!(v->items = arena_alloc(p->doc, n * sizeof *v->items))) return out_of_memory(p);
        for (size_t i = 0; i < n; i++) v->items[i] = p->stack[base + i].value;
    }
    p->stack_len = base;
    return 0;
}

static int parse_object(Parser *p, JsonValue *v, int depth) {
    size_t base = p->stack_len;
    p->pos++;  // '{'
    skip_ws(p);
    if (p->pos < p->n && p->s[p->pos] == '}') p->pos++;
    else {
        for (;;) {
            JsonMember m = {0};
            skip_ws(p);
            if (p->pos >= p->n)
                return fail(p, p->n, "unexpected end of input in object, expected a string key");
            if (p->s[p->pos] != '"') {
                char b[16];
                return fail(p, p->pos, "expected a string key in object, found %s",
                            describe_char(p->s[p->pos], b));
            }
            m.key_offset = p->lim.offset_base + p->pos;
            if (parse_string(p, &m.key, &m.key_len)) return -1;
            skip_ws(p);
            if (p->pos >= p->n || p->s[p->pos] != ':')
                return fail(p, p->pos, "expected ':' after object key \"%.80s\"", m.key);
            p->pos++;
            if (parse_value(p, &m.value, depth + 1) || stack_push(p, &m)) return -1;
            skip_ws(p);
            if (p->pos >= p->n)
                return fail(p, p->n, "unexpected end of input in object, expected ',' or '}'");
            unsigned char c = p->s[p->pos++];
            if (c == '}') break;
            if (c != ',') {
                char b[16];
                return fail(p, p->pos - 1, "expected ',' or '}' in object, found %s",
                            describe_char(c, b));
            }
        }
    }
    size_t n = p->stack_len - base;
    if (!p->lim.allow_duplicate_keys && check_duplicate_keys(p, base, n)) return -1;
    v->type = JSON_OBJECT;
    v->len = n;
    if (n) {
        if (!(v->members = arena_alloc(p->doc, n * sizeof *v->members))) return out_of_memory(p);
        memcpy(v->members, p->stack + base, n * sizeof *v->members);
    }
    p->stack_len = base;
    return 0;
}

static int parse_value(Parser *p, JsonValue *v, int depth) {
    memset(v, 0, sizeof *v);
    skip_ws(p);
    if (p->pos >= p->n) return fail(p, p->n, "unexpected end of input, expected a value");
    v->offset = p->lim.offset_base + p->pos;
    unsigned char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        if (depth >= p->lim.max_depth)
            return fail(p, p->pos, "nesting deeper than the limit of %d levels", p->lim.max_depth);
        return c == '{' ? parse_object(p, v, depth) : parse_array(p, v, depth);
    }
    if (c == '"') {
        v->type = JSON_STRING;
        return parse_string(p, &v->str, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p, v);
    if (c == 't' || c == 'f' || c == 'n') return parse_literal(p, v);
    char b[16];
    return fail(p, p->pos, "expected a value, found %s", describe_char(c, b));
}

// ---------------------------------------------------------------------------------------
// Public entry points.

JsonDoc *json_parse(const char *text, size_t n, const JsonLimits *limits, char *err, int errlen) {
    Parser p = {0};
    p.s = (const unsigned char *)text;
    p.n = n;
    p.err = err;
    p.errlen = errlen;
    if (limits) p.lim = *limits;
    if (p.lim.max_depth <= 0) p.lim.max_depth = DEFAULT_MAX_DEPTH;
    if (p.lim.max_depth > HARD_MAX_DEPTH) p.lim.max_depth = HARD_MAX_DEPTH;
    if (!p.lim.max_bytes) p.lim.max_bytes = DEFAULT_MAX_BYTES;
    if (!p.lim.max_string_bytes) p.lim.max_string_bytes = DEFAULT_MAX_STRING;
    if (err && errlen > 0) err[0] = '\0';

    if (n > p.lim.max_bytes) {
        fail(&p, p.lim.max_bytes, "input is %zu bytes, more than the limit of %zu", n,
             p.lim.max_bytes);
        return NULL;
    }
    if (!text && n) { fail(&p, 0, "no input"); return NULL; }
    p.doc = calloc(1, sizeof *p.doc);
    if (!p.doc) { out_of_memory(&p); return NULL; }

    int rc = parse_value(&p, &p.doc->root, 0);
    if (!rc) {
        skip_ws(&p);
        if (p.pos < p.n) {
            char b[16];
            rc = fail(&p, p.pos, "unexpected %s after the end of the JSON value",
                      describe_char(p.s[p.pos], b));
        }
    }
    free(p.stack);
    strbuf_free(&p.sbuf);
    if (rc) {
        json_free(p.doc);
        return NULL;
    }
    return p.doc;
}

const JsonValue *json_root(const JsonDoc *doc) { return doc ? &doc->root : NULL; }

void json_free(JsonDoc *doc) {
    if (!doc) return;
    Block *b = doc->blocks;
    while (b) {
        Block *next = b->next;
        free(b);
        b = next;
    }
    free(doc);
}

const JsonValue *json_get(const JsonValue *obj, const char *key) {
    if (!obj || obj->type != JSON_OBJECT || !key) return NULL;
    size_t k = strlen(key);
    for (size_t i = 0; i < obj->len; i++)
        if (obj->members[i].key_len == k && memcmp(obj->members[i].key, key, k) == 0)
            return &obj->members[i].value;
    return NULL;
}

const JsonValue *json_at(const JsonValue *arr, size_t i) {
    if (!arr || arr->type != JSON_ARRAY || i >= arr->len) return NULL;
    return &arr->items[i];
}

size_t json_len(const JsonValue *v) {
    if (!v) return 0;
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT || v->type == JSON_STRING) return v->len;
    return 0;
}

const char *json_str(const JsonValue *v) { return v && v->type == JSON_STRING ? v->str : NULL; }

int json_int64(const JsonValue *v, int64_t *out) {
    if (!v || v->type != JSON_NUMBER || !v->is_int) return -1;
    if (out) *out = v->int64;
    return 0;
}

int json_double(const JsonValue *v, double *out) {
    if (!v || v->type != JSON_NUMBER) return -1;
    if (out) *out = v->number;
    return 0;
}

const char *json_type_name(JsonType t) {
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "boolean";
    case JSON_NUMBER: return "number";
    case JSON_STRING: return "string";
    case JSON_ARRAY: return "array";
    case JSON_OBJECT: return "object";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------
// Writer.

void jb_int(StrBuf *b, long long v) {
    char tmp[32];
    int k = snprintf(tmp, sizeof tmp, "%lld", v);
    strbuf_append(b, tmp, (size_t)k);
}

void jb_string(StrBuf *b, const char *s, size_t n) {
    strbuf_append(b, "\"", 1);
    size_t run = 0;  // copy unescaped stretches in one go
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char hex[8];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
            if (c < 0x20) { snprintf(hex, sizeof hex, "\\u%04x", c); esc = hex; }
        }
        if (esc) {
            if (run) strbuf_append(b, s + i - run, run);
            run = 0;
            strbuf_puts(b, esc);
        } else run++;
    }
    if (run) strbuf_append(b, s + n - run, run);
    strbuf_append(b, "\"", 1);
}
