// A small strict JSON parser (RFC 8259) that builds a walkable tree, plus a tiny writer.
//
// Strict means: one top-level value surrounded only by whitespace (space, tab, CR, LF);
// no comments, no trailing commas, no NaN/Infinity, no leading zeros or '+', no byte order
// mark; strings must be valid UTF-8 with no raw control characters; escapes are \" \\ \/
// \b \f \n \r \t and \uXXXX, where a surrogate pair becomes one UTF-8 character and a lone
// surrogate is an error. Numbers whose magnitude overflows a double are an error.
//
// Errors never crash: json_parse returns NULL and writes `byte N: what is wrong` into err,
// N being the 0-based byte offset of the offending character (plus limits->offset_base).
//
//   JsonDoc *doc = json_parse(text, n, NULL, err, sizeof err);
//   const JsonValue *root = json_root(doc);
//   const JsonValue *shape = json_get(root, "shape");          // NULL if missing / not an object
//   for (size_t i = 0; i < json_len(shape); i++) {
//       int64_t d;
//       if (json_int64(json_at(shape, i), &d) != 0) ...        // not an exact integer
//   }
//   json_free(doc);
//
// The whole tree (nodes and decoded strings) lives in memory owned by the JsonDoc.
// Numbers are converted with strtod, which assumes the "C" locale (the default in C programs).
#ifndef JSON_H
#define JSON_H
#include "util/strbuf.h"
#include <stddef.h>
#include <stdint.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonType;

typedef struct JsonValue JsonValue;
typedef struct JsonMember JsonMember;

struct JsonValue {
    JsonType type;
    size_t offset;          // byte offset of the value's first character (plus offset_base)
    int boolean;            // JSON_BOOL: 0 or 1
    double number;          // JSON_NUMBER: nearest double
    int is_int;             // JSON_NUMBER: literal has no fraction/exponent and fits in int64
    int64_t int64;          // JSON_NUMBER: exact value when is_int
    const char *str;        // JSON_STRING: decoded UTF-8, NUL-terminated (may contain \u0000)
    size_t len;             // JSON_STRING: bytes (without the NUL); ARRAY/OBJECT: element count
    JsonValue *items;       // JSON_ARRAY: len items
    JsonMember *members;    // JSON_OBJECT: len members in document order
};

struct JsonMember {
    const char *key;        // decoded UTF-8, NUL-terminated
    size_t key_len;
    size_t key_offset;      // byte offset of the key's opening quote (plus offset_base)
    JsonValue value;
};

typedef struct {
    int max_depth;              // deepest nesting of arrays/objects (default 64; at most 10000)
    size_t max_bytes;           // longest accepted input (default 64 MiB)
    size_t max_string_bytes;    // longest decoded string or key (default 16 MiB)
    int allow_duplicate_keys;   // default 0: a repeated key in one object is an error
    size_t offset_base;         // added to every reported offset (JSON embedded in a file)
} JsonLimits;

typedef struct JsonDoc JsonDoc;

// Parses text[0..n) (need not be NUL-terminated). limits may be NULL for the defaults; a
// zero field of limits also means its default. Returns NULL with a message on any error.
JsonDoc *json_parse(const char *text, size_t n, const JsonLimits *limits, char *err, int errlen);
const JsonValue *json_root(const JsonDoc *doc);
void json_free(JsonDoc *doc);   // NULL is fine

// Walking the tree. All accept NULL and wrong types (returning NULL / 0 / -1), so lookups chain.
const JsonValue *json_get(const JsonValue *obj, const char *key);  // first member named key
const JsonValue *json_at(const JsonValue *arr, size_t i);          // NULL if out of range
size_t json_len(const JsonValue *v);        // items, members or string bytes; 0 otherwise
const char *json_str(const JsonValue *v);   // string contents, NULL if not a string
int json_int64(const JsonValue *v, int64_t *out);  // 0 iff an exact integer literal (is_int)
int json_double(const JsonValue *v, double *out);  // 0 iff a number
const char *json_type_name(JsonType t);     // "null", "boolean", "number", ...

// Writer: JSON values appended to a util/strbuf.h buffer (plain text goes in with strbuf_puts).
void jb_int(StrBuf *b, long long v);
// Appends s[0..n) as a quoted JSON string: `"` `\` and control characters are escaped
// (\n \t ... or \u00XX); other bytes, including UTF-8, are copied as they are.
void jb_string(StrBuf *b, const char *s, size_t n);

#endif
