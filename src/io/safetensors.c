// safetensors writer and validating reader; see safetensors.h for the format.
#include "io/safetensors.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "io/json.h"
#include "util/utf8.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c stores float32 in host order and assumes a little-endian host"
#endif

#define HEADER_MAX_DEPTH 16  // a valid header nests 3 deep; more is garbage

// ---------------------------------------------------------------------------------------
// Shared helpers.

typedef struct {
    const char *file;  // prefix of every message
    char *err;
    int errlen;
} Ctx;

static int st_error(const Ctx *c, const char *fmt, ...) {
    if (!c->err || c->errlen <= 0) return -1;
    int k = snprintf(c->err, (size_t)c->errlen, "%s: ", c->file);
    if (k >= 0 && k < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + k, (size_t)(c->errlen - k), fmt, ap);
        va_end(ap);
    }
    return -1;
}

// A name made safe to print: control characters become '?', long names are cut (at a UTF-8
// character boundary) and end with "...".
static const char *show(const char *s, char buf[96]) {
    size_t max = 64, n = strlen(s), k = n < max ? n : max;
    if (n > max)
        while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (n > k) { memcpy(buf + k, "...", 3); k += 3; }
    buf[k] = '\0';
    return buf;
}

// numel of a shape, or -1 if it overflows what 4-byte elements can address in int64.
static long long shape_numel(const long long *shape, int ndim) {
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return 0;  // an empty tensor, however large its other dims
    long long numel = 1, limit = INT64_MAX / 4;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || shape[i] > limit / numel) return -1;
        numel *= shape[i];
    }
    return numel;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

// The first name (in sorted order) that occurs twice in names[0..n), or NULL. O(n log n).
static const char *find_duplicate(const char *const *names, size_t n, int *oom) {
    *oom = 0;
    if (n < 2) return NULL;
    const char **sorted = malloc(n * sizeof *sorted);
    if (!sorted) { *oom = 1; return NULL; }
    memcpy(sorted, names, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_strings);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
    free(sorted);
    return dup;
}

static void put_u64_le(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64_le(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// ---------------------------------------------------------------------------------------
// Writer.

static int check_inputs(const Ctx *c, const StTensorIn *t, int n, const char *const *mk,
                        const char *const *mv, int n_meta, long long *numels) {
    char b[96];
    if (n < 0 || n_meta < 0 || (n > 0 && !t) || (n_meta > 0 && (!mk || !mv)))
        return st_error(c, "invalid arguments to st_save");
    for (int i = 0; i < n; i++) {
        const char *name = t[i].name;
        if (!name || !*name) return st_error(c, "tensor %d has an empty name", i);
        if (!utf8_valid(name, strlen(name)))
            return st_error(c, "tensor %d: name is not valid UTF-8", i);
        if (strcmp(name, "__metadata__") == 0)
            return st_error(c, "'__metadata__' is reserved and cannot name a tensor");
        if (t[i].ndim < 0 || t[i].ndim > ST_MAX_DIMS)
            return st_error(c, "tensor '%s' has %d dimensions; 0 to %d are supported",
                            show(name, b), t[i].ndim, ST_MAX_DIMS);
        for (int d = 0; d < t[i].ndim; d++)
            if (t[i].shape[d] < 0)
                return st_error(c, "tensor '%s': shape[%d] is negative", show(name, b), d);
        numels[i] = shape_numel(t[i].shape, t[i].ndim);
        if (numels[i] < 0)
            return st_error(c, "tensor '%s': number of elements overflows", show(name, b));
        if (numels[i] > 0 && !t[i].data)
            return st_error(c, "tensor '%s' has no data", show(name, b));
    }
    for (int i = 0; i < n_meta; i++) {
        if (!mk[i] || !mv[i]) return st_error(c, "metadata entry %d is NULL", i);
        if (!utf8_valid(mk[i], strlen(mk[i])) || !utf8_valid(mv[i], strlen(mv[i])))
            return st_error(c, "metadata entry '%s' is not valid UTF-8", show(mk[i], b));
    }
    const char **names = malloc(((size_t)(n > n_meta ? n : n_meta) + 1) * sizeof *names);
    if (!names) return st_error(c, "out of memory");
    int oom;
    for (int i = 0; i < n; i++) names[i] = t[i].name;
    const char *dup = find_duplicate(names, (size_t)n, &oom);
    if (dup || oom) {
        free(names);
        return st_error(c, oom ? "out of memory" : "duplicate tensor name '%s'",
                        show(dup ? dup : "", b));
    }
    for (int i = 0; i < n_meta; i++) names[i] = mk[i];
    dup = find_duplicate(names, (size_t)n_meta, &oom);
    free(names);
    if (dup || oom)
        return st_error(c, oom ? "out of memory" : "duplicate metadata key '%s'",
                        show(dup ? dup : "", b));
    return 0;
}

// The JSON header, padded with spaces to a multiple of 8 bytes.
static void build_header(StrBuf *h, const StTensorIn *t, int n, const long long *numels,
                         const char *const *mk, const char *const *mv, int n_meta) {
    strbuf_puts(h, "{");
    if (n_meta > 0) {
        strbuf_puts(h, "\"__metadata__\":{");
        for (int i = 0; i < n_meta; i++) {
            if (i) strbuf_puts(h, ",");
            jb_string(h, mk[i], strlen(mk[i]));
            strbuf_puts(h, ":");
            jb_string(h, mv[i], strlen(mv[i]));
        }
        strbuf_puts(h, "}");
    }
    long long offset = 0;
    for (int i = 0; i < n; i++) {
        if (i || n_meta > 0) strbuf_puts(h, ",");
        jb_string(h, t[i].name, strlen(t[i].name));
        strbuf_puts(h, ":{\"dtype\":\"F32\",\"shape\":[");
        for (int d = 0; d < t[i].ndim; d++) {
            if (d) strbuf_puts(h, ",");
            jb_int(h, t[i].shape[d]);
        }
        strbuf_puts(h, "],\"data_offsets\":[");
        jb_int(h, offset);
        strbuf_puts(h, ",");
        offset += numels[i] * 4;
        jb_int(h, offset);
        strbuf_puts(h, "]}");
    }
    strbuf_puts(h, "}");
    while (!h->failed && h->len % 8 != 0) strbuf_puts(h, " ");
}

int st_save(const char *path, const StTensorIn *t, int n, const char *const *meta_keys,
            const char *const *meta_vals, int n_meta, char *err, int errlen) {
    Ctx c = {path ? path : "(null)", err, errlen};
    long long *numels = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *numels);
    if (!numels) return st_error(&c, "out of memory");
    if (check_inputs(&c, t, n, meta_keys, meta_vals, n_meta, numels)) { free(numels); return -1; }

    // Offsets must fit the reader's int64 and the buffer size_t. Real arrays always do; the
    // check guards against shapes that do not match the data.
    unsigned long long data_bytes = 0, limit = INT64_MAX < SIZE_MAX / 2 ? INT64_MAX : SIZE_MAX / 2;
    for (int i = 0; i < n; i++) {
        if ((unsigned long long)numels[i] > (limit - data_bytes) / 4) {
            free(numels);
            return st_error(&c, "tensors too large to save");
        }
        data_bytes += (unsigned long long)numels[i] * 4;
    }
    StrBuf h = {0};
    build_header(&h, t, n, numels, meta_keys, meta_vals, n_meta);
    unsigned char *buf = h.failed ? NULL : malloc(8 + h.len + (size_t)data_bytes);
    if (!buf) {
        strbuf_free(&h);
        free(numels);
        return st_error(&c, "out of memory");
    }
    put_u64_le(buf, h.len);
    memcpy(buf + 8, h.s, h.len);
    size_t at = 8 + h.len;
    for (int i = 0; i < n; i++) {
        size_t k = (size_t)numels[i] * 4;
        if (k) memcpy(buf + at, t[i].data, k);  // little-endian host: memory order is file order
        at += k;
    }
    int rc = write_file_atomic(path, buf, at, err, errlen);
    free(buf);
    strbuf_free(&h);
    free(numels);
    return rc;
}

// ---------------------------------------------------------------------------------------
// Reader.

struct StFile {
    JsonDoc *doc;            // owns every name and metadata string
    StTensor *tensors;
    int n;
    float *data;             // the whole data region, aligned
    const char **meta_keys, **meta_vals;
    int n_meta;
};

// Byte range of a tensor in the data region (kept beside StTensor while validating).
typedef struct { long long begin, end; int index; } Span;

static int parse_metadata(const Ctx *c, StFile *f, const JsonValue *v) {
    char b[96];
    if (v->type != JSON_OBJECT)
        return st_error(c, "__metadata__ must be an object of strings, found %s",
                        json_type_name(v->type));
    f->meta_keys = malloc((v->len + 1) * sizeof *f->meta_keys);
    f->meta_vals = malloc((v->len + 1) * sizeof *f->meta_vals);
    if (!f->meta_keys || !f->meta_vals) return st_error(c, "out of memory");
    for (size_t i = 0; i < v->len; i++) {
        const JsonMember *m = &v->members[i];
        if (strlen(m->key) != m->key_len)
            return st_error(c, "__metadata__ key contains a NUL character");
        if (m->value.type != JSON_STRING)
            return st_error(c, "__metadata__ value of '%s' must be a string, found %s",
                            show(m->key, b), json_type_name(m->value.type));
        if (strlen(m->value.str) != m->value.len)
            return st_error(c, "__metadata__ value of '%s' contains a NUL character",
                            show(m->key, b));
        f->meta_keys[i] = m->key;
        f->meta_vals[i] = m->value.str;
    }
    f->n_meta = (int)v->len;
    int oom;
    const char *dup = find_duplicate(f->meta_keys, v->len, &oom);
    if (oom) return st_error(c, "out of memory");
    if (dup) return st_error(c, "duplicate __metadata__ key '%s'", show(dup, b));
    return 0;
}

static int parse_shape(const Ctx *c, const char *name, const JsonValue *shape, StTensor *t) {
    char b[96];
    if (!shape) return st_error(c, "tensor '%s' has no shape", show(name, b));
    if (shape->type != JSON_ARRAY)
        return st_error(c, "tensor '%s': shape must be an array of non-negative integers, found %s",
                        show(name, b), json_type_name(shape->type));
    if (shape->len > ST_MAX_DIMS)
        return st_error(c, "tensor '%s' has %zu dimensions; at most %d are supported",
                        show(name, b), shape->len, ST_MAX_DIMS);
    t->ndim = (int)shape->len;
    for (int d = 0; d < t->ndim; d++) {
        const JsonValue *e = json_at(shape, (size_t)d);
        int64_t v;
        if (e->type != JSON_NUMBER)
            return st_error(c, "tensor '%s': shape[%d] must be a non-negative integer, found %s",
                            show(name, b), d, json_type_name(e->type));
        if (json_int64(e, &v) != 0 || v < 0)
            return st_error(c, "tensor '%s': shape[%d] must be a non-negative integer, found %.17g",
                            show(name, b), d, e->number);
        t->shape[d] = v;
    }
    t->numel = shape_numel(t->shape, t->ndim);
    if (t->numel < 0)
        return st_error(c, "tensor '%s': number of elements overflows", show(name, b));
    return 0;
}

static int parse_offsets(const Ctx *c, const char *name, const JsonValue *offs, const StTensor *t,
                         size_t data_len, Span *span) {
    char b[96];
    if (!offs) return st_error(c, "tensor '%s' has no data_offsets", show(name, b));
    int64_t v[2];
    if (offs->type != JSON_ARRAY || offs->len != 2 || json_int64(json_at(offs, 0), &v[0]) ||
        json_int64(json_at(offs, 1), &v[1]) || v[0] < 0 || v[1] < 0)
        return st_error(c,
                        "tensor '%s': data_offsets must be two non-negative integers [begin, end]",
                        show(name, b));
    if (v[0] > v[1])
        return st_error(c, "tensor '%s': data_offsets begin %lld is after end %lld", show(name, b),
                        (long long)v[0], (long long)v[1]);
    if ((uint64_t)v[1] > data_len)
        return st_error(c,
                        "tensor '%s': data_offsets end %lld is beyond the data region (%zu bytes)",
                        show(name, b), (long long)v[1], data_len);
    if (v[1] - v[0] != t->numel * 4)
        return st_error(c,
                        "tensor '%s': data_offsets [%lld, %lld] span %lld bytes but its shape "
                        "needs %lld (%lld F32 values)",
                        show(name, b), (long long)v[0], (long long)v[1], (long long)(v[1] - v[0]),
                        t->numel * 4, t->numel);
    span->begin = v[0];
    span->end = v[1];
    return 0;
}

static int parse_tensor(const Ctx *c, const JsonMember *m, StTensor *t, size_t data_len,
                        Span *span) {
    char b[96], b2[96];
    const char *name = m->key;
    if (m->key_len == 0) return st_error(c, "a tensor has an empty name");
    const JsonValue *v = &m->value;
    if (v->type != JSON_OBJECT)
        return st_error(c, "tensor '%s': entry must be an object, found %s", show(name, b),
                        json_type_name(v->type));
    for (size_t i = 0; i < v->len; i++) {
        const char *k = v->members[i].key;
        if (strcmp(k, "dtype") && strcmp(k, "shape") && strcmp(k, "data_offsets"))
            return st_error(c, "tensor '%s' has unknown field '%s'", show(name, b), show(k, b2));
    }
    const JsonValue *dtype = json_get(v, "dtype");
    if (!dtype) return st_error(c, "tensor '%s' has no dtype", show(name, b));
    if (dtype->type != JSON_STRING)
        return st_error(c, "tensor '%s': dtype must be a string, found %s", show(name, b),
                        json_type_name(dtype->type));
    if (strlen(dtype->str) != dtype->len)
        return st_error(c, "tensor '%s': dtype contains a NUL character", show(name, b));
    if (strcmp(dtype->str, "F32") != 0)
        return st_error(c, "tensor '%s' has dtype %s; only F32 is supported", show(name, b),
                        show(dtype->str, b2));
    t->name = name;
    if (parse_shape(c, name, json_get(v, "shape"), t)) return -1;
    return parse_offsets(c, name, json_get(v, "data_offsets"), t, data_len, span);
}

static int compare_spans(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

// The data region must be covered exactly: sorted by offset, each tensor starts where the
// previous one ended and the last one ends at the end of the file.
static int check_coverage(const Ctx *c, const StFile *f, Span *spans, size_t data_len) {
    char b[96], b2[96];
    qsort(spans, (size_t)f->n, sizeof *spans, compare_spans);
    long long cursor = 0;
    int last = -1;  // the tensor that ends at cursor
    for (int i = 0; i < f->n; i++) {
        const Span *s = &spans[i];
        if (s->begin < cursor)
            return st_error(c,
                            "tensors '%s' and '%s' overlap in the data region "
                            "([%lld, %lld) and [%lld, %lld))",
                            show(f->tensors[last].name, b), show(f->tensors[s->index].name, b2),
                            spans[i - 1].begin, cursor, s->begin, s->end);
        if (s->begin > cursor)
            return st_error(c, "hole in the data region: bytes [%lld, %lld) belong to no tensor",
                            cursor, s->begin);
        cursor = s->end;
        last = s->index;
    }
    if ((unsigned long long)cursor != data_len)
        return st_error(c,
                        "hole in the data region: bytes [%lld, %zu) after the last tensor "
                        "belong to no tensor",
                        cursor, data_len);
    return 0;
}

// Everything after the 8-byte length: JSON header, then tensors. Fills f or returns -1.
static int parse_body(const Ctx *c, StFile *f, const unsigned char *bytes, size_t n) {
    char jerr[256], b[96];
    if (n < 8) return st_error(c, "file is %zu bytes, too short for the 8-byte header length", n);
    uint64_t hlen = get_u64_le(bytes);
    if (hlen > ST_MAX_HEADER)
        return st_error(c, "header length %llu exceeds the limit of %zu bytes",
                        (unsigned long long)hlen, ST_MAX_HEADER);
    if (hlen > n - 8)
        return st_error(c, "header length %llu is larger than the rest of the file (%zu bytes)",
                        (unsigned long long)hlen, n - 8);
    size_t data_len = n - 8 - (size_t)hlen;

    JsonLimits lim = {.max_depth = HEADER_MAX_DEPTH,
                      .max_bytes = ST_MAX_HEADER,
                      .max_string_bytes = (size_t)hlen + 1,
                      .allow_duplicate_keys = 1,
                      .offset_base = 8};
    f->doc = json_parse((const char *)bytes + 8, (size_t)hlen, &lim, jerr, sizeof jerr);
    if (!f->doc) return st_error(c, "header is not valid JSON: %s", jerr);
    const JsonValue *root = json_root(f->doc);
    if (root->type != JSON_OBJECT)
        return st_error(c, "header must be a JSON object, found %s", json_type_name(root->type));

    // Duplicate names first: with a repeated key every later message could be ambiguous.
    const char **names = malloc((root->len + 1) * sizeof *names);
    if (!names) return st_error(c, "out of memory");
    for (size_t i = 0; i < root->len; i++) {
        names[i] = root->members[i].key;
        if (strlen(names[i]) != root->members[i].key_len) {
            free(names);
            return st_error(c, "tensor name '%s' contains a NUL character",
                            show(root->members[i].key, b));
        }
    }
    int oom;
    const char *dup = find_duplicate(names, root->len, &oom);
    free(names);
    if (oom) return st_error(c, "out of memory");
    if (dup && strcmp(dup, "__metadata__") == 0)
        return st_error(c, "__metadata__ appears more than once");
    if (dup) return st_error(c, "duplicate tensor name '%s'", show(dup, b));

    f->tensors = calloc(root->len + 1, sizeof *f->tensors);
    Span *spans = calloc(root->len + 1, sizeof *spans);
    if (!f->tensors || !spans) { free(spans); return st_error(c, "out of memory"); }
    int rc = 0;
    for (size_t i = 0; i < root->len && !rc; i++) {
        const JsonMember *m = &root->members[i];
        if (strcmp(m->key, "__metadata__") == 0 && m->key_len == 12) {
            rc = parse_metadata(c, f, &m->value);
        } else {
            rc = parse_tensor(c, m, &f->tensors[f->n], data_len, &spans[f->n]);
            spans[f->n].index = f->n;
            f->n++;
        }
    }
    if (!rc) rc = check_coverage(c, f, spans, data_len);
    // Coverage from 0 in steps of 4*numel makes every begin and data_len a multiple of 4,
    // so one aligned copy serves every tensor (no unaligned float access into the file).
    size_t n_floats = data_len / 4;
    if (!rc && !(f->data = malloc((n_floats ? n_floats : 1) * sizeof(float))))
        rc = st_error(c, "out of memory (%zu bytes of tensor data)", data_len);
    if (!rc) {
        if (data_len) memcpy(f->data, bytes + 8 + hlen, data_len);
        for (int i = 0; i < f->n; i++)
            f->tensors[spans[i].index].data = f->data + spans[i].begin / 4;
    }
    free(spans);
    return rc;
}

StFile *st_parse(const void *bytes, size_t n, const char *name_for_errors, char *err, int errlen) {
    Ctx c = {name_for_errors ? name_for_errors : "(memory)", err, errlen};
    if (err && errlen > 0) err[0] = '\0';
    if (!bytes && n) { st_error(&c, "no data"); return NULL; }
    StFile *f = calloc(1, sizeof *f);
    if (!f) { st_error(&c, "out of memory"); return NULL; }
    if (parse_body(&c, f, bytes, n)) {
        st_free(f);
        return NULL;
    }
    return f;
}

StFile *st_load(const char *path, char *err, int errlen) {
    size_t n;
    char *bytes = read_file(path, &n, (size_t)-1 / 2, err, errlen);
    if (!bytes) return NULL;
    StFile *f = st_parse(bytes, n, path, err, errlen);
    free(bytes);
    return f;
}

int st_count(const StFile *f) { return f ? f->n : 0; }

const StTensor *st_get(const StFile *f, int i) {
    return f && i >= 0 && i < f->n ? &f->tensors[i] : NULL;
}

const StTensor *st_find(const StFile *f, const char *name) {
    if (!f || !name) return NULL;
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

const char *st_meta(const StFile *f, const char *key) {
    if (!f || !key) return NULL;
    for (int i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta_keys[i], key) == 0) return f->meta_vals[i];
    return NULL;
}

int st_meta_count(const StFile *f) { return f ? f->n_meta : 0; }
const char *st_meta_key(const StFile *f, int i) {
    return f && i >= 0 && i < f->n_meta ? f->meta_keys[i] : NULL;
}
const char *st_meta_value(const StFile *f, int i) {
    return f && i >= 0 && i < f->n_meta ? f->meta_vals[i] : NULL;
}

void st_free(StFile *f) {
    if (!f) return;
    json_free(f->doc);
    free(f->tensors);
    free(f->data);
    free(f->meta_keys);
    free(f->meta_vals);
    free(f);
}
