#include "core/arena.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void arena_free_blocks(Arena *a);

static void trace(Arena *a, double event) {
    ArenaTrace *t = a->trace;
    if (!t || t->failed) return;
    if (t->n == t->cap) {
        long cap = t->cap ? 2 * t->cap : 1024;
        ArenaEvent *ev = realloc(t->ev, sizeof(ArenaEvent) * (size_t)cap);
        if (!ev) { t->failed = 1; return; }
        t->ev = ev;
        t->cap = cap;
    }
    t->ev[t->n++] = (ArenaEvent){.bytes = event};
}

void arena_trace_pack(Arena *a, long M, long N, long K) {
    ArenaTrace *t = a->trace;
    if (!t || t->failed || !t->n) return;
    long *pack = t->ev[t->n - 1].pack;
    pack[0] = M, pack[1] = N, pack[2] = K;
}

struct ArenaBlock {
    ArenaBlock *next;
    size_t size, top;
    char *mem;
};

static ArenaBlock *block_new(Arena *a, size_t size) {
    ArenaBlock *b = malloc(sizeof *b);
    if (b && !(b->mem = aligned_alloc(64, (size + 63) / 64 * 64))) { free(b); b = NULL; }
    if (!b) {
        if (a->on_failure) a->on_failure(size, a->failure_ctx);
        fprintf(stderr, "out of memory: cannot allocate %zu MiB for activations\n", size >> 20);
        exit(1);
    }
    b->next = NULL;
    b->size = size;
    b->top = 0;
    return b;
}

void arena_init(Arena *a, size_t block_size) {
    memset(a, 0, sizeof *a);
    a->block_size = block_size ? block_size : (size_t)64 << 20;
}

void arena_on_failure(Arena *a, ArenaFailure fn, void *ctx) {
    a->on_failure = fn;
    a->failure_ctx = ctx;
}

double arena_alloc_bytes(double bytes) { return bytes > 0 ? ceil(bytes / 64) * 64 : 64; }

void *arena_alloc(Arena *a, size_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    if (bytes == 0) bytes = 64;
    // Walk forward through blocks kept from earlier steps before adding a new one.
    while (a->current && a->current->top + bytes > a->current->size) {
        if (!a->current->next) break;
        a->current = a->current->next;
    }
    if (!a->current || a->current->top + bytes > a->current->size) {
        ArenaBlock *b = block_new(a, bytes > a->block_size ? bytes : a->block_size);
        if (!a->first) a->first = b;
        else a->current->next = b;
        a->current = b;
    }
    void *p = a->current->mem + a->current->top;
    a->current->top += bytes;
    a->used += bytes;
    if (a->used > a->used_peak) a->used_peak = a->used;
    trace(a, (double)bytes);
    return p;
}

void *arena_calloc(Arena *a, size_t bytes) {
    void *p = arena_alloc(a, bytes);
    memset(p, 0, bytes);
    return p;
}

void arena_reset(Arena *a) {
    // Blocks leave unused tails where an allocation did not fit. A later step allocating in
    // another order writes into those tails, so resident memory would grow past the peak in
    // use. One block of the peak size instead: every step then touches only what it uses.
    if (a->first && a->first->next) {
        size_t peak = (a->used_peak + 63) / 64 * 64;
        arena_free_blocks(a);
        a->first = block_new(a, peak > a->block_size ? peak : a->block_size);
    }
    for (ArenaBlock *b = a->first; b; b = b->next) b->top = 0;
    a->current = a->first;
    a->used = 0;
    trace(a, -1);
}

ArenaMark arena_mark(const Arena *a) {
    ArenaMark m = { a->current, a->current ? a->current->top : 0, a->used };
    return m;
}

void arena_release(Arena *a, ArenaMark m) {
    if (!m.block) { arena_reset(a); return; }
    for (ArenaBlock *b = m.block->next; b; b = b->next) b->top = 0;
    m.block->top = m.top;
    a->current = m.block;
    a->used = m.used;
    trace(a, -(double)m.used - 1);
}

static void arena_free_blocks(Arena *a) {
    for (ArenaBlock *b = a->first, *next; b; b = next) {
        next = b->next;
        free(b->mem);
        free(b);
    }
    a->first = a->current = NULL;
}

void arena_free(Arena *a) {
    arena_free_blocks(a);
    memset(a, 0, sizeof *a);
}
