// Tests for the safetensors writer and validating reader (src/io/safetensors.c).
#include <float.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "check.h"
#include "fs_helpers.h"
#include "io/fileio.h"
#include "io/json.h"
#include "io/safetensors.h"

static uint64_t read_u64_le(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// ---------------------------------------------------------------------------------------
// A fixed set of tensors and metadata with awkward values.

static float embed[12], bias[4], scalar[1], cube[30];

static const char *meta_keys[] = {"format_version", "config", "quotes \"and\" \\backslashes\\", "unicode \xc3\xa9",
                                  "empty"};
static const char *meta_vals[] = {
    "1",
    "[model]\nd_model = 64\nname = \"x\\y\"\ttab\n",
    "\x01\x1f control, \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e and \xf0\x9f\x98\x80",
    "\xc3\xbc",
    "",
};
#define N_META 5

static int make_tensors(StTensorIn *t) {
    // Values whose bits must survive: signed zero, subnormals, infinities, a NaN payload.
    uint32_t nan_bits = 0x7fc12345u;
    float nan_payload;
    memcpy(&nan_payload, &nan_bits, 4);
    float special[12] = {0.0f, -0.0f, 1.0f, -1.5f, FLT_MIN, FLT_MIN / 4, FLT_MAX, -FLT_MAX, 1.0f / 0.0f, -1.0f / 0.0f,
                         nan_payload, 3.14159265f};
    memcpy(embed, special, sizeof embed);
    for (int i = 0; i < 4; i++) bias[i] = 0.25f * (float)i - 0.3f;
    scalar[0] = 42.5f;
    for (int i = 0; i < 30; i++) cube[i] = (float)i * 1e-3f - 7.0f;
    t[0] = (StTensorIn){"embed.weight", 2, {3, 4}, embed};
    t[1] = (StTensorIn){"encoder.layers.0.norm1.bias", 1, {4}, bias};
    t[2] = (StTensorIn){"scalar", 0, {0}, scalar};
    t[3] = (StTensorIn){"empty", 2, {0, 5}, NULL};
    t[4] = (StTensorIn){"cube \xc3\xa9", 3, {2, 3, 5}, cube};
    return 5;
}

static long long numel_of(const StTensorIn *t) {
    long long n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
    return n;
}

static void test_round_trip(void) {
    char p[256], err[512];
    StTensorIn in[8];
    int n = make_tensors(in);
    path_in_tmp(p, sizeof p, "rt.safetensors");
    CHECK(st_save(p, in, n, meta_keys, meta_vals, N_META, err, sizeof err) == 0, "%s", err);
    StFile *f = st_load(p, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (!f) return;
    CHECK(st_count(f) == n, "count %d", st_count(f));
    for (int i = 0; i < n && i < st_count(f); i++) {
        const StTensor *t = st_get(f, i);
        CHECK(strcmp(t->name, in[i].name) == 0, "tensor %d name '%s'", i, t->name);
        CHECK(t->ndim == in[i].ndim, "%s ndim %d", t->name, t->ndim);
        for (int d = 0; d < t->ndim; d++) CHECK(t->shape[d] == in[i].shape[d], "%s shape[%d]", t->name, d);
        CHECK(t->numel == numel_of(&in[i]), "%s numel %lld", t->name, t->numel);
        CHECK(t->data != NULL && (uintptr_t)t->data % _Alignof(float) == 0, "%s data misaligned", t->name);
        if (t->numel) CHECK(memcmp(t->data, in[i].data, (size_t)t->numel * 4) == 0, "%s values not bit-identical", t->name);
        CHECK(st_find(f, in[i].name) == t, "st_find('%s')", in[i].name);
    }
    CHECK(st_find(f, "nope") == NULL && st_get(f, -1) == NULL && st_get(f, n) == NULL, "lookups out of range");
    CHECK(st_meta_count(f) == N_META, "meta count %d", st_meta_count(f));
    for (int i = 0; i < N_META; i++) {
        const char *v = st_meta(f, meta_keys[i]);
        CHECK(v && strcmp(v, meta_vals[i]) == 0, "metadata '%s' = '%s'", meta_keys[i], v ? v : "(null)");
        CHECK(strcmp(st_meta_key(f, i), meta_keys[i]) == 0 && st_meta_value(f, i) == st_meta(f, meta_keys[i]),
              "metadata order");
    }
    CHECK(st_meta(f, "missing") == NULL && st_meta_key(f, N_META) == NULL, "missing metadata");
    st_free(f);

    // No tensors and no metadata is a valid (if useless) file.
    CHECK(st_save(p, NULL, 0, NULL, NULL, 0, err, sizeof err) == 0, "%s", err);
    f = st_load(p, err, sizeof err);
    CHECK(f && st_count(f) == 0 && st_meta_count(f) == 0, "empty file: %s", err);
    st_free(f);
}

// The header must be JSON any reader understands, laid out as the reference writer does.
static void test_header_is_valid_json(void) {
    char p[256], err[512];
    StTensorIn in[8];
    int n = make_tensors(in);
    path_in_tmp(p, sizeof p, "hdr.safetensors");
    CHECK(st_save(p, in, n, meta_keys, meta_vals, N_META, err, sizeof err) == 0, "%s", err);
    size_t size = 0;
    unsigned char *bytes = (unsigned char *)read_file(p, &size, 1 << 20, err, sizeof err);
    CHECK(bytes && size >= 8, "%s", err);
    if (!bytes || size < 8) { free(bytes); return; }
    uint64_t hlen = read_u64_le(bytes);
    CHECK(hlen % 8 == 0, "header length %llu is not a multiple of 8", (unsigned long long)hlen);
    CHECK(8 + hlen <= size, "header length %llu beyond file of %zu", (unsigned long long)hlen, size);
    const char *h = (const char *)bytes + 8;
    CHECK(h[0] == '{', "header does not start with '{'");
    size_t last = hlen;
    while (last > 0 && h[last - 1] == ' ') last--;
    CHECK(last > 0 && h[last - 1] == '}' && hlen - last < 8, "padding is not < 8 trailing spaces after '}'");

    JsonDoc *doc = json_parse(h, hlen, NULL, err, sizeof err);  // strict: also no duplicate keys
    CHECK(doc != NULL, "header: %s", err);
    const JsonValue *root = json_root(doc);
    CHECK(root && root->type == JSON_OBJECT && json_len(root) == (size_t)n + 1, "root has %zu members", json_len(root));
    const JsonValue *meta = json_get(root, "__metadata__");
    CHECK(json_len(meta) == N_META, "__metadata__ has %zu entries", json_len(meta));
    for (int i = 0; i < N_META; i++) CHECK(json_str(json_get(meta, meta_keys[i])) && strcmp(json_str(json_get(meta, meta_keys[i])), meta_vals[i]) == 0, "meta %d", i);
    int64_t expect_begin = 0;
    for (int i = 0; i < n; i++) {
        const JsonValue *t = json_get(root, in[i].name);
        CHECK(t && json_len(t) == 3, "tensor '%s' entry", in[i].name);
        CHECK(json_str(json_get(t, "dtype")) && strcmp(json_str(json_get(t, "dtype")), "F32") == 0, "dtype");
        const JsonValue *shape = json_get(t, "shape");
        CHECK(json_len(shape) == (size_t)in[i].ndim, "'%s' shape rank %zu", in[i].name, json_len(shape));
        for (int d = 0; d < in[i].ndim; d++) {
            int64_t v = -1;
            CHECK(json_int64(json_at(shape, (size_t)d), &v) == 0 && v == in[i].shape[d], "'%s' shape[%d] = %lld", in[i].name, d, (long long)v);
        }
        const JsonValue *offs = json_get(t, "data_offsets");
        int64_t b = -1, e = -1;
        CHECK(json_len(offs) == 2 && json_int64(json_at(offs, 0), &b) == 0 && json_int64(json_at(offs, 1), &e) == 0,
              "'%s' data_offsets", in[i].name);
        CHECK(b == expect_begin && e - b == numel_of(&in[i]) * 4, "'%s' offsets [%lld, %lld], expected begin %lld",
              in[i].name, (long long)b, (long long)e, (long long)expect_begin);
        if (e >= 0) {
            expect_begin = e;
            if (e - b == numel_of(&in[i]) * 4 && in[i].data && 8 + hlen + (uint64_t)e <= size)
                CHECK(memcmp(bytes + 8 + hlen + b, in[i].data, (size_t)(e - b)) == 0, "'%s' raw bytes", in[i].name);
        }
    }
    CHECK((uint64_t)expect_begin == size - 8 - hlen, "data region %zu bytes, tensors cover %lld",
          (size_t)(size - 8 - hlen), (long long)expect_begin);
    json_free(doc);
    free(bytes);
}

// Byte-exact output for a tiny case, so the layout is pinned down (what Python reads).
static void test_exact_bytes(void) {
    char p[256], err[512];
    float a[2] = {1.0f, -2.0f};
    StTensorIn t = {"a", 1, {2}, a};
    const char *k = "k", *v = "v";
    path_in_tmp(p, sizeof p, "tiny.safetensors");
    CHECK(st_save(p, &t, 1, &k, &v, 1, err, sizeof err) == 0, "%s", err);
    const char *json = "{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    size_t jl = strlen(json), hl = (jl + 7) / 8 * 8;
    unsigned char expect[256] = {(unsigned char)hl};
    memcpy(expect + 8, json, jl);
    memset(expect + 8 + jl, ' ', hl - jl);
    static const unsigned char data[8] = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0};  // 1.0f, -2.0f LE
    memcpy(expect + 8 + hl, data, 8);
    size_t n = 0;
    char *got = read_file(p, &n, 1 << 20, err, sizeof err);
    CHECK(got && n == 16 + hl && memcmp(got, expect, n) == 0, "bytes differ (n=%zu, expected %zu)", n, 16 + hl);
    free(got);
}

// ---------------------------------------------------------------------------------------
// Hostile input: every prefix and every corrupted header byte.

static unsigned char *small_file(size_t *n, uint64_t *hlen) {
    char p[256], err[512];
    float a[3] = {1, 2, 3}, b[2] = {4, 5};
    StTensorIn t[2] = {{"a", 1, {3}, a}, {"bb", 2, {1, 2}, b}};
    const char *k = "format_version", *v = "1";
    path_in_tmp(p, sizeof p, "small.safetensors");
    if (st_save(p, t, 2, &k, &v, 1, err, sizeof err) != 0) return NULL;
    unsigned char *bytes = (unsigned char *)read_file(p, n, 1 << 20, err, sizeof err);
    if (bytes) *hlen = read_u64_le(bytes);
    return bytes;
}

static void test_truncation_at_every_offset(void) {
    size_t n = 0;
    uint64_t hlen = 0;
    unsigned char *bytes = small_file(&n, &hlen);
    CHECK(bytes != NULL, "could not write the small file");
    if (!bytes) return;
    char err[512];
    for (size_t len = 0; len < n; len++) {
        unsigned char *prefix = malloc(len ? len : 1);  // exact size: ASan sees any overread
        memcpy(prefix, bytes, len);
        err[0] = '\0';
        StFile *f = st_parse(prefix, len, "small", err, sizeof err);
        CHECK(f == NULL, "prefix of %zu/%zu bytes loaded", len, n);
        const char *want = len < 8 ? "too short for the 8-byte header length"
                         : len < 8 + hlen ? "is larger than the rest of the file"
                         : len == 8 + hlen ? "is beyond the data region (0 bytes)"
                         : "is beyond the data region";
        CHECK(strncmp(err, "small: ", 7) == 0 && strstr(err, want), "prefix %zu: '%s', expected '%s'", len, err, want);
        st_free(f);
        free(prefix);
    }
    StFile *f = st_parse(bytes, n, "small", err, sizeof err);
    CHECK(f && st_count(f) == 2, "the full file: %s", err);
    st_free(f);
    free(bytes);
}

// A loaded file must be self-consistent however it was corrupted.
static int consistent(const StFile *f, size_t data_len) {
    long long total = 0;
    for (int i = 0; i < st_count(f); i++) {
        const StTensor *t = st_get(f, i);
        long long numel = 1;
        for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
        if (!t->name || numel != t->numel || !t->data || t->ndim < 0 || t->ndim > ST_MAX_DIMS) return 0;
        for (long long j = 0; j < t->numel; j++) total += t->data[j] == t->data[j] || 1;  // touch every value
        if (st_find(f, t->name) == NULL) return 0;
    }
    return (size_t)total * 4 == data_len;
}

static void test_header_byte_sweep(void) {
    size_t n = 0;
    uint64_t hlen = 0;
    unsigned char *bytes = small_file(&n, &hlen);
    CHECK(bytes != NULL, "could not write the small file");
    if (!bytes) return;
    static const unsigned char values[] = {0x00, 0xff, '"', '{', '}', '[', ']', ',', ':', '0', '9', '-', ' ', '\\', 'e', 0x80, 0xc3};
    int loaded = 0, rejected = 0;
    unsigned char *copy = malloc(n);
    for (size_t pos = 0; pos < 8 + hlen; pos++) {
        for (size_t v = 0; v <= sizeof values; v++) {
            memcpy(copy, bytes, n);
            copy[pos] = v < sizeof values ? values[v] : (unsigned char)~bytes[pos];  // the last pass flips every bit
            if (copy[pos] == bytes[pos]) continue;
            char err[512] = "";
            StFile *f = st_parse(copy, n, "sweep", err, sizeof err);
            if (f) {
                loaded++;
                CHECK(consistent(f, n - 8 - (size_t)read_u64_le(copy)), "byte %zu = 0x%02x loaded inconsistently", pos, copy[pos]);
            } else {
                rejected++;
                CHECK(strncmp(err, "sweep: ", 7) == 0 && strlen(err) > 8, "byte %zu = 0x%02x: bad message '%s'", pos, copy[pos], err);
            }
            st_free(f);
        }
    }
    // Both outcomes occur (renamed tensors load; broken syntax does not), so the sweep tests something.
    CHECK(loaded > 10 && rejected > 100, "loaded %d, rejected %d", loaded, rejected);

    // A flipped data byte always loads and changes exactly one value.
    int changed_ok = 1;
    for (size_t pos = 8 + hlen; pos < n; pos++) {
        memcpy(copy, bytes, n);
        copy[pos] ^= 0x5a;
        StFile *f = st_parse(copy, n, "sweep", NULL, 0);
        if (!f) { changed_ok = 0; continue; }
        int diffs = 0;
        StFile *orig = st_parse(bytes, n, "orig", NULL, 0);
        for (int i = 0; i < st_count(f); i++)
            for (long long j = 0; j < st_get(f, i)->numel; j++)
                diffs += memcmp(&st_get(f, i)->data[j], &st_get(orig, i)->data[j], 4) != 0;
        changed_ok &= diffs == 1;
        st_free(orig);
        st_free(f);
    }
    CHECK(changed_ok, "a data byte flip did not change exactly one value");
    free(copy);
    free(bytes);
}

// ---------------------------------------------------------------------------------------
// Each malformed case and its message.

// 8-byte length + header + data_len zero bytes (hlen_override replaces the length if nonzero).
static unsigned char *make_file(const char *header, size_t header_len, size_t data_len, uint64_t hlen_override,
                                size_t *n) {
    *n = 8 + header_len + data_len;
    unsigned char *b = calloc(*n, 1);
    uint64_t h = hlen_override ? hlen_override : header_len;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(h >> (8 * i));
    memcpy(b + 8, header, header_len);
    return b;
}

#define T(name, body) "\"" name "\":{" body "}"
#define OK_X(shape, offs) T("x", "\"dtype\":\"F32\",\"shape\":" shape ",\"data_offsets\":" offs)

static void test_malformed_cases(void) {
    static const struct { const char *header; size_t data; const char *msg; } cases[] = {
        {"{\"a\":", 0, "header is not valid JSON: byte 13: unexpected end of input, expected a value"},
        {"{\"a\":1,}", 0, "header is not valid JSON: byte 15: expected a string key in object, found '}'"},
        {"[1,2]", 0, "header must be a JSON object, found array"},
        {"\"x\"", 0, "header must be a JSON object, found string"},
        {"{" T("x", "\"shape\":[1],\"data_offsets\":[0,4]") "}", 4, "tensor 'x' has no dtype"},
        {"{" T("x", "\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]") "}", 2, "tensor 'x' has dtype F16; only F32 is supported"},
        {"{" T("x", "\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[0,2]") "}", 2, "tensor 'x' has dtype BF16; only F32 is supported"},
        {"{" T("x", "\"dtype\":\"F32\\u0000\",\"shape\":[1],\"data_offsets\":[0,4]") "}", 4, "tensor 'x': dtype contains a NUL character"},
        {"{" T("x", "\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]") "}", 4, "tensor 'x': dtype must be a string, found number"},
        {"{" T("a\\nb", "\"dtype\":\"I8\",\"shape\":[1],\"data_offsets\":[0,1]") "}", 1, "tensor 'a?b' has dtype I8"},
        {"{" T("x", "\"dtype\":\"F32\",\"data_offsets\":[0,4]") "}", 4, "tensor 'x' has no shape"},
        {"{" OK_X("\"3\"", "[0,12]") "}", 12, "tensor 'x': shape must be an array of non-negative integers, found string"},
        {"{" OK_X("[1,-1]", "[0,0]") "}", 0, "tensor 'x': shape[1] must be a non-negative integer, found -1"},
        {"{" OK_X("[1.5]", "[0,4]") "}", 4, "tensor 'x': shape[0] must be a non-negative integer, found 1.5"},
        {"{" OK_X("[2e0]", "[0,8]") "}", 8, "tensor 'x': shape[0] must be a non-negative integer, found 2"},
        {"{" OK_X("[null]", "[0,4]") "}", 4, "tensor 'x': shape[0] must be a non-negative integer, found null"},
        {"{" OK_X("[99999999999999999999]", "[0,4]") "}", 4, "shape[0] must be a non-negative integer, found 1e+20"},
        {"{" OK_X("[1,1,1,1,1,1,1,1,1]", "[0,4]") "}", 4, "tensor 'x' has 9 dimensions; at most 8 are supported"},
        {"{" OK_X("[4294967296,4294967296]", "[0,4]") "}", 4, "tensor 'x': number of elements overflows"},
        {"{" OK_X("[2305843009213693952]", "[0,4]") "}", 4, "tensor 'x': number of elements overflows"},
        {"{" T("x", "\"dtype\":\"F32\",\"shape\":[1]") "}", 4, "tensor 'x' has no data_offsets"},
        {"{" OK_X("[1]", "[0]") "}", 4, "tensor 'x': data_offsets must be two non-negative integers [begin, end]"},
        {"{" OK_X("[1]", "[0,4,8]") "}", 8, "tensor 'x': data_offsets must be two non-negative integers"},
        {"{" OK_X("[1]", "[0,\"4\"]") "}", 4, "tensor 'x': data_offsets must be two non-negative integers"},
        {"{" OK_X("[1]", "[-4,0]") "}", 4, "tensor 'x': data_offsets must be two non-negative integers"},
        {"{" OK_X("[1]", "[0,4.0]") "}", 4, "tensor 'x': data_offsets must be two non-negative integers"},
        {"{" OK_X("[1]", "{}") "}", 4, "tensor 'x': data_offsets must be two non-negative integers"},
        {"{" OK_X("[0]", "[8,4]") "}", 8, "tensor 'x': data_offsets begin 8 is after end 4"},
        {"{" OK_X("[2]", "[0,8]") "}", 4, "tensor 'x': data_offsets end 8 is beyond the data region (4 bytes)"},
        {"{" OK_X("[2]", "[0,9223372036854775807]") "}", 8, "end 9223372036854775807 is beyond the data region (8 bytes)"},
        {"{" OK_X("[2]", "[0,4]") "}", 4, "tensor 'x': data_offsets [0, 4] span 4 bytes but its shape needs 8 (2 F32 values)"},
        {"{" OK_X("[1]", "[0,3]") "}", 3, "span 3 bytes but its shape needs 4 (1 F32 values)"},
        {"{" T("a", "\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]") ","
             T("b", "\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]") "}", 12,
         "tensors 'a' and 'b' overlap in the data region ([0, 8) and [4, 12))"},
        {"{" T("a", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]") ","
             T("b", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]") "}", 4, "tensors 'a' and 'b' overlap"},
        {"{" T("a", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]") ","
             T("b", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]") "}", 12,
         "hole in the data region: bytes [4, 8) belong to no tensor"},
        {"{" OK_X("[1]", "[4,8]") "}", 8, "hole in the data region: bytes [0, 4) belong to no tensor"},
        {"{" OK_X("[1]", "[0,4]") "}", 8, "hole in the data region: bytes [4, 8) after the last tensor belong to no tensor"},
        {"{}", 4, "hole in the data region: bytes [0, 4) after the last tensor"},
        {"{\"__metadata__\":[]}", 0, "__metadata__ must be an object of strings, found array"},
        {"{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ value of 'k' must be a string, found number"},
        {"{\"__metadata__\":{\"k\":\"a\",\"k\":\"b\"}}", 0, "duplicate __metadata__ key 'k'"},
        {"{\"__metadata__\":{\"k\\u0000\":\"a\"}}", 0, "__metadata__ key contains a NUL character"},
        {"{\"__metadata__\":{\"k\":\"a\\u0000\"}}", 0, "__metadata__ value of 'k' contains a NUL character"},
        {"{\"__metadata__\":{},\"__metadata__\":{}}", 0, "__metadata__ appears more than once"},
        {"{" OK_X("[1]", "[0,4]") "," OK_X("[1]", "[4,8]") "}", 8, "duplicate tensor name 'x'"},
        {"{" T("x", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"foo\":1") "}", 4, "tensor 'x' has unknown field 'foo'"},
        {"{\"x\":7}", 0, "tensor 'x': entry must be an object, found number"},
        {"{\"x\\u0000y\":{}}", 0, "tensor name 'x' contains a NUL character"},
        {"{\"x\\u0000y\":{},\"x\\u0000z\":{}}", 0, "tensor name 'x' contains a NUL character"},
        {"{\"\":{}}", 0, "a tensor has an empty name"},
        {"{\"x\":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}", 0, "header is not valid JSON: byte 28: nesting deeper than the limit of 16 levels"},
        {"{\"x\":\"\xff\"}", 0, "header is not valid JSON: byte 14: invalid UTF-8 byte 0xff in string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n;
        unsigned char *b = make_file(cases[i].header, strlen(cases[i].header), cases[i].data, 0, &n);
        char err[512] = "";
        StFile *f = st_parse(b, n, "m.st", err, sizeof err);
        CHECK(f == NULL, "case %zu (%s) loaded", i, cases[i].header);
        CHECK(strncmp(err, "m.st: ", 6) == 0 && strstr(err, cases[i].msg), "case %zu (%s):\n       got      '%s'\n       expected '%s'",
              i, cases[i].header, err, cases[i].msg);
        st_free(f);
        free(b);
    }
}

static void test_length_field_cases(void) {
    char err[512];
    StFile *f = st_parse("abc", 3, "m.st", err, sizeof err);
    CHECK(!f && strcmp(err, "m.st: file is 3 bytes, too short for the 8-byte header length") == 0, "err: %s", err);
    f = st_parse(NULL, 0, "m.st", err, sizeof err);
    CHECK(!f && strstr(err, "file is 0 bytes"), "err: %s", err);
    size_t n;
    unsigned char *b = make_file("{}", 2, 0, 200000000, &n);
    f = st_parse(b, n, "m.st", err, sizeof err);
    CHECK(!f && strstr(err, "m.st: header length 200000000 exceeds the limit of 100000000 bytes"), "err: %s", err);
    free(b);
    b = make_file("{}      ", 8, 4, 100, &n);
    f = st_parse(b, n, "m.st", err, sizeof err);
    CHECK(!f && strstr(err, "m.st: header length 100 is larger than the rest of the file (12 bytes)"), "err: %s", err);
    free(b);
    b = make_file("{}", 2, 0, UINT64_MAX, &n);
    f = st_parse(b, n, "m.st", err, sizeof err);
    CHECK(!f && strstr(err, "header length 18446744073709551615 exceeds the limit"), "err: %s", err);
    free(b);
    // Valid oddities: zero-length tensors anywhere, unpadded header, keys in any order.
    const char *h = "{" T("z", "\"data_offsets\":[4,4],\"shape\":[0,3],\"dtype\":\"F32\"") ","
                    OK_X("[1]", "[0,4]") "," T("e", "\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]") "}";
    b = make_file(h, strlen(h), 4, 0, &n);
    float one = 1.0f;
    memcpy(b + n - 4, &one, 4);
    f = st_parse(b, n, "m.st", err, sizeof err);
    CHECK(f && st_count(f) == 3, "valid oddities: %s", err);
    if (f) {
        CHECK(st_find(f, "z")->numel == 0 && st_find(f, "e")->numel == 0 && st_find(f, "x")->data[0] == 1.0f, "values");
        CHECK(strcmp(st_get(f, 0)->name, "z") == 0, "header order kept");
    }
    st_free(f);
    free(b);
}

// A file path appears in every message, and st_load reports I/O errors too.
static void test_load_errors_name_the_file(void) {
    char p[256], err[512];
    path_in_tmp(p, sizeof p, "missing.safetensors");
    StFile *f = st_load(p, err, sizeof err);
    CHECK(!f && strstr(err, "missing.safetensors: cannot open: No such file or directory"), "err: %s", err);
    path_in_tmp(p, sizeof p, "f16.safetensors");
    const char *h = "{" T("w", "\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]") "}";
    size_t n;
    unsigned char *b = make_file(h, strlen(h), 4, 0, &n);
    CHECK(write_file_atomic(p, b, n, err, sizeof err) == 0, "%s", err);
    free(b);
    f = st_load(p, err, sizeof err);
    char want[400];
    snprintf(want, sizeof want, "%s: tensor 'w' has dtype F16; only F32 is supported", p);
    CHECK(!f && strcmp(err, want) == 0, "err: %s", err);
}

static void test_save_rejects_bad_input(void) {
    char p[256], err[512];
    float x[4] = {0};
    path_in_tmp(p, sizeof p, "bad.safetensors");
    struct { StTensorIn t; const char *msg; } cases[] = {
        {{"__metadata__", 1, {1}, x}, "'__metadata__' is reserved"},
        {{"", 1, {1}, x}, "tensor 0 has an empty name"},
        {{NULL, 1, {1}, x}, "tensor 0 has an empty name"},
        {{"bad\xff", 1, {1}, x}, "tensor 0: name is not valid UTF-8"},
        {{"a", 9, {1}, x}, "tensor 'a' has 9 dimensions"},
        {{"a", -1, {1}, x}, "tensor 'a' has -1 dimensions"},
        {{"a", 2, {1, -1}, x}, "tensor 'a': shape[1] is negative"},
        {{"a", 2, {1LL << 40, 1LL << 40}, x}, "tensor 'a': number of elements overflows"},
        {{"a", 1, {4}, NULL}, "tensor 'a' has no data"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        err[0] = '\0';
        CHECK(st_save(p, &cases[i].t, 1, NULL, NULL, 0, err, sizeof err) == -1, "case %zu saved", i);
        CHECK(strstr(err, "bad.safetensors: ") && strstr(err, cases[i].msg), "case %zu: '%s'", i, err);
    }
    StTensorIn huge[5] = {{"h0", 1, {1LL << 60}, x}, {"h1", 1, {1LL << 60}, x}, {"h2", 1, {1LL << 60}, x},
                          {"h3", 1, {1LL << 60}, x}, {"h4", 1, {1LL << 60}, x}};
    CHECK(st_save(p, huge, 5, NULL, NULL, 0, err, sizeof err) == -1 && strstr(err, "tensors too large"), "err: %s", err);
    StTensorIn two[2] = {{"a", 1, {1}, x}, {"a", 1, {1}, x}};
    CHECK(st_save(p, two, 2, NULL, NULL, 0, err, sizeof err) == -1 && strstr(err, "duplicate tensor name 'a'"), "err: %s", err);
    StTensorIn ok = {"a", 1, {1}, x};
    const char *k2[] = {"k", "k"}, *v2[] = {"1", "2"}, *kbad[] = {"\xc3"}, *v1[] = {"1"};
    CHECK(st_save(p, &ok, 1, k2, v2, 2, err, sizeof err) == -1 && strstr(err, "duplicate metadata key 'k'"), "err: %s", err);
    CHECK(st_save(p, &ok, 1, kbad, v1, 1, err, sizeof err) == -1 && strstr(err, "is not valid UTF-8"), "err: %s", err);
    struct stat st;
    CHECK(stat(p, &st) != 0, "a rejected save created the file");
}

// ---------------------------------------------------------------------------------------
// Atomic writes: a failed write leaves the previous checkpoint intact and no temporary file.

static void test_save_into_missing_directory(void) {
    char p[256], err[512];
    path_in_tmp(p, sizeof p, "runs/x/model.safetensors");
    float a[1] = {1};
    StTensorIn t = {"a", 1, {1}, a};
    CHECK(st_save(p, &t, 1, NULL, NULL, 0, err, sizeof err) == -1, "saved into a missing directory");
    CHECK(strstr(err, "runs/x/model.safetensors: cannot create temporary file: No such file or directory"), "err: %s", err);
    char dir[256];
    path_in_tmp(dir, sizeof dir, "runs/x");
    CHECK(make_dirs(dir, err, sizeof err) == 0, "%s", err);
    CHECK(st_save(p, &t, 1, NULL, NULL, 0, err, sizeof err) == 0, "after make_dirs: %s", err);
}

// A real write error: RLIMIT_FSIZE makes write() fail with EFBIG part-way through the data
// (this works as root, where a read-only directory would not stop us).
static void test_failed_write_keeps_old_file(void) {
    char p[256], err[512];
    path_in_tmp(p, sizeof p, "keep.safetensors");
    float small[4] = {1, 2, 3, 4};
    StTensorIn t = {"w", 1, {4}, small};
    const char *k = "format_version", *v = "1";
    CHECK(st_save(p, &t, 1, &k, &v, 1, err, sizeof err) == 0, "%s", err);
    size_t n_before = 0, n_after = 0;
    char *before = read_file(p, &n_before, 1 << 20, err, sizeof err);

    enum { BIG = 200000 };  // 800 KB, well past the limit below
    float *big = calloc(BIG, sizeof *big);
    StTensorIn tb = {"w", 1, {BIG}, big};
    struct rlimit old;
    int have_limit = getrlimit(RLIMIT_FSIZE, &old) == 0 && (old.rlim_max == RLIM_INFINITY || old.rlim_max > 65536);
    CHECK(have_limit, "cannot lower RLIMIT_FSIZE");
    if (have_limit) {
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of being killed
        struct rlimit lim = {65536, old.rlim_max};
        CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
        int rc = st_save(p, &tb, 1, &k, &v, 1, err, sizeof err);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, prev);
        CHECK(rc == -1, "a write past RLIMIT_FSIZE succeeded");
        CHECK(strstr(err, "keep.safetensors: write failed: File too large"), "err: %s", err);
    }
    char *after = read_file(p, &n_after, 1 << 20, err, sizeof err);
    CHECK(before && after && n_before == n_after && memcmp(before, after, n_before) == 0, "the old file changed");
    CHECK(count_temporaries(tmpdir) == 0, "temporary file left behind");
    StFile *f = st_load(p, err, sizeof err);
    CHECK(f && st_find(f, "w") && st_find(f, "w")->numel == 4 && st_find(f, "w")->data[3] == 4.0f, "old file: %s", err);
    st_free(f);
    // With the limit lifted the same save succeeds and replaces the file.
    CHECK(st_save(p, &tb, 1, &k, &v, 1, err, sizeof err) == 0, "%s", err);
    f = st_load(p, err, sizeof err);
    CHECK(f && st_find(f, "w") && st_find(f, "w")->numel == BIG, "new file: %s", err);
    st_free(f);
    free(big);
    free(before);
    free(after);
}

int main(void) {
    if (tmpdir_create("test_safetensors")) return 1;
    RUN(test_round_trip);
    RUN(test_header_is_valid_json);
    RUN(test_exact_bytes);
    RUN(test_truncation_at_every_offset);
    RUN(test_header_byte_sweep);
    RUN(test_malformed_cases);
    RUN(test_length_field_cases);
    RUN(test_load_errors_name_the_file);
    RUN(test_save_rejects_bad_input);
    RUN(test_save_into_missing_directory);
    RUN(test_failed_write_keeps_old_file);
    tmpdir_remove();
    return check_summary();
}
