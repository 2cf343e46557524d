// Tests for the strict JSON parser and writer (src/io/json.c).
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "io/json.h"
#include "util/utf8.h"

// Parses a NUL-free document given as a C string (into an exactly sized, unterminated copy,
// so ASan catches any read past the end).
static JsonDoc *parse_exact(const char *text, size_t n, const JsonLimits *lim, char *err, int errlen) {
    char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    JsonDoc *doc = json_parse(copy, n, lim, err, errlen);
    free(copy);  // the tree must not point into the input
    return doc;
}

static JsonDoc *parse(const char *text, char *err, int errlen) {
    return parse_exact(text, strlen(text), NULL, err, errlen);
}

static void test_valid_documents(void) {
    static const char *valid[] = {
        "{}", "[]", "0", "-0", "1.5e10", "1E+2", "0.0e-0", "-12.75", "\"\"", "true", "false", "null",
        " \n\t\r null \n", "[1,[2,[3]]]", "{\"a\":{\"b\":[]}}", "\"\\u00e9\"", "-9223372036854775808",
        "[true,false,null,\"x\",{}]", "{\"\":0}", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
        "  {  \"a\"  :  [  1  ,  2  ]  }  ",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        char err[256];
        JsonDoc *doc = parse(valid[i], err, sizeof err);
        CHECK(doc != NULL, "rejected valid %s: %s", valid[i], err);
        json_free(doc);
    }
}

static void test_invalid_documents(void) {
    static const struct { const char *text, *msg; } cases[] = {
        {"", "byte 0: unexpected end of input, expected a value"},
        {"   ", "byte 3: unexpected end of input, expected a value"},
        {"[", "byte 1: unexpected end of input, expected a value"},
        {"[1", "byte 2: unexpected end of input in array"},
        {"{", "byte 1: unexpected end of input in object, expected a string key"},
        {"[1,]", "byte 3: expected a value, found ']'"},
        {"[1,2,]", "byte 5: expected a value, found ']'"},
        {"{\"a\":1,}", "byte 7: expected a string key in object, found '}'"},
        {"{a:1}", "byte 1: expected a string key in object, found 'a'"},
        {"{\"a\" 1}", "byte 5: expected ':' after object key \"a\""},
        {"{\"a\":1 \"b\":2}", "byte 7: expected ',' or '}' in object, found '\"'"},
        {"[1 2]", "byte 3: expected ',' or ']' in array, found '2'"},
        {"1 2", "byte 2: unexpected '2' after the end of the JSON value"},
        {"{} x", "byte 3: unexpected 'x' after the end"},
        {"01", "byte 0: leading zeros are not allowed"},
        {"-01", "byte 0: leading zeros are not allowed"},
        {"-", "byte 1: expected a digit after '-'"},
        {"-a", "byte 1: expected a digit after '-'"},
        {"1.", "byte 2: expected a digit after '.'"},
        {"1.e5", "byte 2: expected a digit after '.'"},
        {"1e", "byte 2: expected a digit in the exponent"},
        {"1e+", "byte 3: expected a digit in the exponent"},
        {"+1", "byte 0: expected a value, found '+'"},
        {".5", "byte 0: expected a value, found '.'"},
        {"NaN", "byte 0: expected a value, found 'N'"},
        {"Infinity", "byte 0: expected a value, found 'I'"},
        {"1e999", "byte 0: number out of range"},
        {"[-1e400]", "byte 1: number out of range"},
        {"tru", "byte 0: invalid literal"},
        {"nul", "byte 0: invalid literal"},
        {"True", "byte 0: expected a value, found 'T'"},
        {"truex", "byte 4: unexpected 'x' after the end"},
        {"\"abc", "byte 4: unterminated string (opened at byte 0)"},
        {"[\"a\tb\"]", "byte 3: raw control character 0x09 in string"},
        {"\"a\nb\"", "byte 2: raw control character 0x0a"},
        {"\"\\x\"", "byte 1: invalid escape '\\' followed by 'x'"},
        {"\"\\'\"", "byte 1: invalid escape '\\' followed by '''"},
        {"\"\\", "byte 1: unterminated escape sequence"},
        {"\"\\u12\"", "byte 1: incomplete \\u escape"},
        {"\"\\u12G4\"", "byte 5: invalid hex digit 'G' in \\u escape"},
        {"\"\\ud83d\"", "byte 1: lone high surrogate \\uD83D"},
        {"\"\\ud83dx\"", "byte 1: lone high surrogate \\uD83D"},
        {"\"\\ude00\"", "byte 1: lone low surrogate \\uDE00"},
        {"\"\\ud83d\\u0041\"", "byte 1: high surrogate \\uD83D followed by \\u0041, not a low surrogate"},
        {"\"\\ud83d\\ud83d\"", "not a low surrogate"},
        {"\xef\xbb\xbf{}", "byte 0: expected a value, found byte 0xef"},
        {"\"\xc0\xaf\"", "byte 1: invalid UTF-8 byte 0xc0"},          // overlong '/'
        {"\"\xe0\x80\xaf\"", "byte 1: invalid UTF-8 byte 0xe0"},      // overlong 3-byte
        {"\"\xed\xa0\x80\"", "byte 1: invalid UTF-8 byte 0xed"},      // encoded surrogate
        {"\"\xf4\x90\x80\x80\"", "byte 1: invalid UTF-8 byte 0xf4"},  // above U+10FFFF
        {"\"a\xe2\x82\"", "byte 2: invalid UTF-8 byte 0xe2"},         // truncated sequence
        {"\"\x80\"", "byte 1: invalid UTF-8 byte 0x80"},              // lone continuation
        {"\"\xff\"", "byte 1: invalid UTF-8 byte 0xff"},
        {"{\"a\":1,\"a\":2}", "byte 7: duplicate key \"a\" in object"},
        {"{\"b\":1,\"a\":2,\"c\":3,\"a\":4,\"b\":5}", "byte 19: duplicate key \"a\""},
        {"/* c */ 1", "byte 0: expected a value, found '/'"},
        {"[1,2]]", "byte 5: unexpected ']' after the end"},
        {"'a'", "byte 0: expected a value, found '''"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[256] = "";
        JsonDoc *doc = parse(cases[i].text, err, sizeof err);
        CHECK(doc == NULL, "accepted invalid document #%zu %s", i, cases[i].text);
        CHECK(strstr(err, cases[i].msg) != NULL, "document #%zu %s: error '%s', expected '%s'", i, cases[i].text, err,
              cases[i].msg);
        json_free(doc);
    }
}

static void test_nul_byte_outside_strings_is_rejected(void) {
    char err[256];
    JsonDoc *doc = parse_exact("[1,\0]", 5, NULL, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "byte 3: expected a value, found byte 0x00"), "err: %s", err);
    json_free(doc);
}

static void test_escapes_decode_to_utf8(void) {
    char err[256];
    const char *text = "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u00E9\\u20ac\\ud83d\\ude00\\uDBFF\\uDFFF\\u0000x\"";
    static const char expect[] = "\"\\/\b\f\n\r\tA\xc3\xa9\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\0x";
    size_t expect_len = sizeof expect - 1;
    JsonDoc *doc = parse(text, err, sizeof err);
    CHECK(doc != NULL, "%s", err);
    const JsonValue *v = json_root(doc);
    CHECK(v && v->type == JSON_STRING, "not a string");
    if (v && v->type == JSON_STRING) {
        CHECK(v->len == expect_len, "len %zu, expected %zu", v->len, expect_len);
        CHECK(v->len == expect_len && memcmp(v->str, expect, expect_len) == 0, "decoded bytes differ");
        CHECK(v->str[v->len] == '\0', "not NUL-terminated");
        CHECK(json_len(v) == expect_len, "json_len %zu", json_len(v));
    }
    json_free(doc);

    // Raw UTF-8 passes through unchanged.
    doc = parse("\"h\xc3\xa9\xf0\x9f\x98\x80\"", err, sizeof err);
    CHECK(doc && strcmp(json_str(json_root(doc)), "h\xc3\xa9\xf0\x9f\x98\x80") == 0, "raw UTF-8 changed");
    json_free(doc);
}

static void test_numbers_and_int64_exactness(void) {
    static const struct { const char *text; int is_int; long long i; double d; } cases[] = {
        {"0", 1, 0, 0.0},
        {"-0", 1, 0, -0.0},
        {"42", 1, 42, 42.0},
        {"-17", 1, -17, -17.0},
        {"9007199254740993", 1, 9007199254740993LL, 9007199254740992.0},  // 2^53+1: exact only as int64
        {"9223372036854775807", 1, INT64_MAX, 9223372036854775807.0},
        {"-9223372036854775808", 1, INT64_MIN, -9223372036854775808.0},
        {"9223372036854775808", 0, 0, 9223372036854775808.0},
        {"-9223372036854775809", 0, 0, -9223372036854775809.0},
        {"123456789012345678901234567890", 0, 0, 1.2345678901234568e29},
        {"1.0", 0, 0, 1.0},
        {"1e2", 0, 0, 100.0},
        {"0.1", 0, 0, 0.1},
        {"-2.5E-3", 0, 0, -0.0025},
        {"1e-400", 0, 0, 0.0},  // underflow to zero is fine
        {"1.00000000000000000000000000000000000000000000000000000000000000000000000001", 0, 0, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[256];
        JsonDoc *doc = parse(cases[i].text, err, sizeof err);
        CHECK(doc != NULL, "%s: %s", cases[i].text, err);
        if (!doc) continue;
        const JsonValue *v = json_root(doc);
        int64_t got = -1;
        double d = -1;
        CHECK(v->type == JSON_NUMBER, "%s: type %s", cases[i].text, json_type_name(v->type));
        CHECK((json_int64(v, &got) == 0) == cases[i].is_int, "%s: is_int %d", cases[i].text, v->is_int);
        if (cases[i].is_int) CHECK(got == cases[i].i, "%s: int64 %lld", cases[i].text, (long long)got);
        CHECK(json_double(v, &d) == 0 && d == cases[i].d, "%s: double %.17g", cases[i].text, d);
        json_free(doc);
    }
    // A literal longer than the small stack buffer takes the heap path.
    char big[200] = "1";
    for (int i = 1; i <= 100; i++) big[i] = '0';
    big[101] = '\0';
    char err[256];
    JsonDoc *doc = parse(big, err, sizeof err);
    CHECK(doc && json_root(doc)->number == 1e100 && !json_root(doc)->is_int, "1e100 literal");
    json_free(doc);
}

static void test_tree_walk(void) {
    char err[256];
    const char *text = "{\"name\":\"x\",\"shape\":[2,3],\"n\":null,\"t\":true,\"f\":false,\"o\":{\"k\":\"v\"}}";
    JsonDoc *doc = parse(text, err, sizeof err);
    CHECK(doc != NULL, "%s", err);
    const JsonValue *root = json_root(doc);
    CHECK(root->type == JSON_OBJECT && json_len(root) == 6, "root has %zu members", json_len(root));
    CHECK(strcmp(root->members[0].key, "name") == 0 && strcmp(root->members[5].key, "o") == 0, "member order");
    CHECK(root->members[1].key_offset == 12, "key_offset %zu", root->members[1].key_offset);
    CHECK(strcmp(json_str(json_get(root, "name")), "x") == 0, "name");
    const JsonValue *shape = json_get(root, "shape");
    int64_t a = 0, b = 0;
    CHECK(json_len(shape) == 2 && json_int64(json_at(shape, 0), &a) == 0 && json_int64(json_at(shape, 1), &b) == 0 &&
              a == 2 && b == 3, "shape [%lld,%lld]", (long long)a, (long long)b);
    CHECK(shape->offset == 20 && json_at(shape, 1)->offset == 23, "offsets %zu %zu", shape->offset, json_at(shape, 1)->offset);
    CHECK(json_at(shape, 2) == NULL, "index past the end");
    CHECK(json_get(root, "n")->type == JSON_NULL, "null");
    CHECK(json_get(root, "t")->boolean == 1 && json_get(root, "f")->boolean == 0, "booleans");
    CHECK(strcmp(json_str(json_get(json_get(root, "o"), "k")), "v") == 0, "nested lookup");
    CHECK(json_get(root, "missing") == NULL && json_get(shape, "x") == NULL, "missing keys");
    CHECK(json_get(json_get(root, "missing"), "x") == NULL && json_at(NULL, 0) == NULL, "NULL chains");
    CHECK(json_str(shape) == NULL && json_int64(json_get(root, "name"), &a) != 0, "wrong types");
    CHECK(json_len(json_get(root, "t")) == 0, "len of a boolean");
    json_free(doc);
}

static char *nested(int depth, char open, char close) {
    char *s = malloc((size_t)depth * 2 + 2);
    for (int i = 0; i < depth; i++) s[i] = open;
    s[depth] = '1';
    for (int i = 0; i < depth; i++) s[depth + 1 + i] = close;
    s[2 * depth + 1] = '\0';
    return s;
}

static void test_depth_limit(void) {
    char err[256];
    char *ok = nested(64, '[', ']'), *deep = nested(65, '[', ']');
    JsonDoc *doc = parse(ok, err, sizeof err);
    CHECK(doc != NULL, "64 levels rejected: %s", err);
    json_free(doc);
    doc = parse(deep, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "byte 64: nesting deeper than the limit of 64 levels"), "err: %s", err);
    json_free(doc);
    free(ok);
    free(deep);

    // A hostile depth stops at the limit instead of overflowing the C stack.
    char *hostile = malloc(1000001);
    memset(hostile, '[', 1000000);
    hostile[1000000] = '\0';
    doc = parse(hostile, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "nesting deeper"), "err: %s", err);
    free(hostile);

    // Objects count too, and a custom limit applies.
    JsonLimits lim = {.max_depth = 3};
    const char *three = "{\"a\":{\"b\":[1]}}", *four = "{\"a\":{\"b\":[[1]]}}";
    doc = parse_exact(three, strlen(three), &lim, err, sizeof err);
    CHECK(doc != NULL, "3 levels with limit 3: %s", err);
    json_free(doc);
    doc = parse_exact(four, strlen(four), &lim, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "byte 11: nesting deeper than the limit of 3 levels"), "err: %s", err);
}

static void test_byte_limits_and_offset_base(void) {
    char err[256];
    JsonLimits lim = {.max_bytes = 10};
    JsonDoc *doc = parse_exact("[1,2,3,45]", 10, &lim, err, sizeof err);
    CHECK(doc != NULL, "10 bytes with limit 10: %s", err);
    json_free(doc);
    doc = parse_exact("[1,2,3,456]", 11, &lim, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "byte 10: input is 11 bytes, more than the limit of 10"), "err: %s", err);

    JsonLimits slim = {.max_string_bytes = 4};
    doc = parse_exact("[\"abcd\",\"\\u00e9\\u00e9\"]", 23, &slim, err, sizeof err);
    CHECK(doc != NULL, "4-byte strings with limit 4: %s", err);
    json_free(doc);
    doc = parse_exact("[\"abcde\"]", 9, &slim, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "string longer than the limit of 4 bytes"), "err: %s", err);
    doc = parse_exact("{\"abcde\":1}", 11, &slim, err, sizeof err);
    CHECK(doc == NULL && strstr(err, "string longer than the limit of 4 bytes"), "key limit: %s", err);

    JsonLimits based = {.offset_base = 100};
    doc = parse_exact("[1,]", 4, &based, err, sizeof err);
    CHECK(doc == NULL && strncmp(err, "byte 103: ", 10) == 0, "err: %s", err);
    doc = parse_exact("[7]", 3, &based, err, sizeof err);
    CHECK(doc && json_at(json_root(doc), 0)->offset == 101, "offset with base");
    json_free(doc);
}

static void test_duplicate_keys_option(void) {
    char err[256];
    JsonLimits lim = {.allow_duplicate_keys = 1};
    JsonDoc *doc = parse_exact("{\"a\":1,\"a\":2}", 13, &lim, err, sizeof err);
    CHECK(doc != NULL, "%s", err);
    int64_t v = 0;
    CHECK(doc && json_len(json_root(doc)) == 2 && json_int64(json_get(json_root(doc), "a"), &v) == 0 && v == 1,
          "json_get returns the first of duplicates (got %lld)", (long long)v);
    json_free(doc);
    // Keys that differ only after an embedded NUL are different keys.
    doc = parse("{\"a\\u0000b\":1,\"a\\u0000c\":2}", err, sizeof err);
    CHECK(doc != NULL, "%s", err);
    json_free(doc);
}

static void test_errors_fit_small_buffers(void) {
    char err[8];
    JsonDoc *doc = parse("[1,]", err, sizeof err);
    CHECK(doc == NULL && strlen(err) == 7 && strncmp(err, "byte 3:", 7) == 0, "truncated err '%s'", err);
    doc = parse("[1,]", NULL, 0);
    CHECK(doc == NULL, "NULL err buffer");
}

static void test_utf8_validator(void) {
    static const struct { const char *s; int ok; } cases[] = {
        {"", 1}, {"abc", 1}, {"\xc3\xa9", 1}, {"\xe2\x82\xac", 1}, {"\xf0\x9f\x98\x80", 1}, {"\xf4\x8f\xbf\xbf", 1},
        {"\xed\x9f\xbf", 1}, {"\xee\x80\x80", 1},
        {"\xc3", 0}, {"\xc0\x80", 0}, {"\xc1\xbf", 0}, {"\xe0\x9f\xbf", 0}, {"\xed\xa0\x80", 0}, {"\xed\xb0\x80", 0}, {"\xed\xbf\xbf", 0}, {"\xf0\x8f\xbf\xbf", 0},
        {"\xf4\x90\x80\x80", 0}, {"\xf5\x80\x80\x80", 0}, {"\x80", 0}, {"\xfe", 0}, {"a\xe2\x82", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(utf8_valid(cases[i].s, strlen(cases[i].s)) == cases[i].ok, "case %zu", i);
}

static void test_writer_escapes_and_round_trips(void) {
    StrBuf b = {0};
    const char *s = "a\"b\\c\n\t\x01\x1f\x7f \xc3\xa9/";
    jb_string(&b, s, strlen(s));
    const char *expect = "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\x7f \xc3\xa9/\"";
    CHECK(!b.failed && strcmp(b.s, expect) == 0, "got %s", b.s);
    strbuf_free(&b);

    // Every ASCII byte including NUL, plus multi-byte UTF-8, survives escape + parse.
    char all[140];
    size_t n = 0;
    for (int c = 0; c < 128; c++) all[n++] = (char)c;
    memcpy(all + n, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
    n += 9;
    jb_string(&b, all, n);
    char err[256];
    JsonDoc *doc = json_parse(b.s, b.len, NULL, err, sizeof err);
    CHECK(doc != NULL, "%s", err);
    const JsonValue *v = json_root(doc);
    CHECK(v && v->type == JSON_STRING && v->len == n && memcmp(v->str, all, n) == 0, "round trip differs");
    json_free(doc);
    strbuf_free(&b);

    strbuf_puts(&b, "[");
    jb_int(&b, -9223372036854775807LL - 1);
    strbuf_puts(&b, ",");
    jb_int(&b, 0);
    strbuf_puts(&b, "]");
    jb_string(&b, NULL, 0);
    CHECK(strcmp(b.s, "[-9223372036854775808,0]\"\"") == 0, "got %s", b.s);
    strbuf_free(&b);
}

// Found by tests/fuzz/fuzz_json.c (clang's UBSan): an empty object parsed before any array or
// object had members formed NULL + 0 (the scratch stack, not yet allocated) for the
// duplicate-key check, undefined behaviour. gcc's UBSan does not flag it; this is the input.
static void test_fuzz_empty_object_first(void) {
    char err[256] = "";
    const char in[] = "{}{\377\377}{jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj2 ";
    JsonDoc *d = json_parse(in, sizeof in - 1, NULL, err, sizeof err);
    CHECK(d == NULL && strstr(err, "byte 2: unexpected '{' after the end"), "error '%s'", err);
    d = json_parse("{}", 2, NULL, err, sizeof err);
    CHECK(d && json_root(d)->type == JSON_OBJECT && json_len(json_root(d)) == 0, "{}: %s", err);
    json_free(d);
}

int main(void) {
    RUN(test_valid_documents);
    RUN(test_invalid_documents);
    RUN(test_nul_byte_outside_strings_is_rejected);
    RUN(test_escapes_decode_to_utf8);
    RUN(test_numbers_and_int64_exactness);
    RUN(test_tree_walk);
    RUN(test_depth_limit);
    RUN(test_byte_limits_and_offset_base);
    RUN(test_duplicate_keys_option);
    RUN(test_errors_fit_small_buffers);
    RUN(test_utf8_validator);
    RUN(test_writer_escapes_and_round_trips);
    RUN(test_fuzz_empty_object_first);
    return check_summary();
}
