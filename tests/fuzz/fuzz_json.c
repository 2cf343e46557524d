// libFuzzer target for the JSON parser (src/io/json.c), which reads safetensors headers.
// Any bytes must give a tree or a message, never a crash, leak or undefined behaviour.
// Properties checked:
//   - every failure writes a message;
//   - a tree that parses, written back with the JSON writer (jb_string, jb_int, %.17g),
//     parses to the same tree: types, decoded strings and keys byte for byte, numbers exactly.
// Built and run by `make fuzz`.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_value(StrBuf *b, const JsonValue *v) {
    switch (v->type) {
    case JSON_NULL: strbuf_puts(b, "null"); break;
    case JSON_BOOL: strbuf_puts(b, v->boolean ? "true" : "false"); break;
    case JSON_NUMBER:
        if (v->is_int) jb_int(b, (long long)v->int64);
        else strbuf_printf(b, "%.17g", v->number);
        break;
    case JSON_STRING: jb_string(b, v->str, v->len); break;
    case JSON_ARRAY:
        strbuf_puts(b, "[");
        for (size_t i = 0; i < v->len; i++) {
            if (i) strbuf_puts(b, ",");
            write_value(b, &v->items[i]);
        }
        strbuf_puts(b, "]");
        break;
    case JSON_OBJECT:
        strbuf_puts(b, "{");
        for (size_t i = 0; i < v->len; i++) {
            if (i) strbuf_puts(b, ",");
            jb_string(b, v->members[i].key, v->members[i].key_len);
            strbuf_puts(b, ":");
            write_value(b, &v->members[i].value);
        }
        strbuf_puts(b, "}");
        break;
    }
}

static int same(const JsonValue *a, const JsonValue *b) {
    if (a->type != b->type) return 0;
    switch (a->type) {
    case JSON_NULL: return 1;
    case JSON_BOOL: return a->boolean == b->boolean;
    case JSON_NUMBER:
        return a->number == b->number && (!a->is_int || (b->is_int && a->int64 == b->int64));
    case JSON_STRING: return a->len == b->len && !memcmp(a->str, b->str, a->len);
    case JSON_ARRAY:
        if (a->len != b->len) return 0;
        for (size_t i = 0; i < a->len; i++)
            if (!same(&a->items[i], &b->items[i])) return 0;
        return 1;
    case JSON_OBJECT:
        if (a->len != b->len) return 0;
        for (size_t i = 0; i < a->len; i++) {
            const JsonMember *x = &a->members[i], *y = &b->members[i];
            if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) ||
                !same(&x->value, &y->value) || json_get(a, x->key) == NULL)
                return 0;
        }
        return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512] = "";
    JsonDoc *doc = json_parse((const char *)data, size, NULL, err, sizeof err);
    if (!doc) {
        if (!err[0]) abort();   // every failure must say why
        return 0;
    }
    StrBuf b = {0};
    write_value(&b, json_root(doc));
    if (b.failed) abort();
    char err2[512] = "";
    JsonDoc *back = json_parse(b.s, b.len, NULL, err2, sizeof err2);
    if (!back) {
        fprintf(stderr, "written tree does not parse: %s\n%.*s\n", err2, (int)b.len, b.s);
        abort();
    }
    if (!same(json_root(doc), json_root(back))) {
        fprintf(stderr, "round trip changed the tree:\n%.*s\n", (int)b.len, b.s);
        abort();
    }
    json_free(back);
    strbuf_free(&b);
    json_free(doc);
    return 0;
}
