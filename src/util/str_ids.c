// String table, see str_ids.h.
#include "util/str_ids.h"
#include <stdlib.h>
#include <string.h>
#include "util/hash.h"

// Slot holding s (n bytes) or the empty slot where it would go; n_slots > 0.
static int slot_of(const StrIds *t, const char *s, size_t n) {
    int mask = t->n_slots - 1, i = (int)(fnv1a(s, n) & (uint32_t)mask);
    while (t->slots[i] >= 0) {
        const char *o = t->str[t->slots[i]];
        if (strlen(o) == n && !memcmp(o, s, n)) return i;
        i = (i + 1) & mask;
    }
    return i;
}

int str_ids_find(const StrIds *t, const char *s, size_t n) {
    return t->n_slots ? t->slots[slot_of(t, s, n)] : -1;
}

static int grow(StrIds *t) {
    int n_slots = t->n_slots ? t->n_slots * 2 : 64;
    int *slots = malloc(sizeof(int) * (size_t)n_slots);
    if (!slots) return -1;
    memset(slots, 0xff, sizeof(int) * (size_t)n_slots);   // every slot -1
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    for (int id = 0; id < t->n; id++) t->slots[slot_of(t, t->str[id], strlen(t->str[id]))] = id;
    return 0;
}

int str_ids_add(StrIds *t, const char *s, size_t n) {
    int id = str_ids_find(t, s, n);
    if (id >= 0) return id;
    if ((t->n + 1) * 2 > t->n_slots && grow(t)) return -1;
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        char **str = realloc(t->str, sizeof(char *) * (size_t)cap);
        if (!str) return -1;
        t->str = str;
        t->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy) return -1;
    memcpy(copy, s, n);
    copy[n] = '\0';
    t->str[t->n] = copy;
    t->slots[slot_of(t, s, n)] = t->n;
    return t->n++;
}

void str_ids_free(StrIds *t) {
    for (int i = 0; i < t->n; i++) free(t->str[i]);
    free(t->str);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
