// Strings <-> dense ids 0..n-1 in insertion order: an open-addressing hash table (FNV-1a,
// linear probing, load factor <= 1/2) over an array of owned copies. The one string table of
// the project: vocabularies (data/vocab.h) and BPE symbols (data/bpe.h) are both made of it.
#ifndef UTIL_STR_IDS_H
#define UTIL_STR_IDS_H
#include <stddef.h>

typedef struct StrIds {
    char **str;         // str[id], NUL-terminated copies, owned
    int n, cap;
    int *slots;         // ids, -1 = empty; n_slots is 0 or a power of two
    int n_slots;
} StrIds;

// Id of the n bytes at s, or -1 when absent (an all-zero StrIds is a valid empty table).
int  str_ids_find(const StrIds *t, const char *s, size_t n);
// Id of s, added (copied) when absent; -1 when out of memory.
int  str_ids_add(StrIds *t, const char *s, size_t n);
void str_ids_free(StrIds *t);
#endif
