#define _DEFAULT_SOURCE   // madvise
#include "core/arena.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

// Blocks of HUGE_BYTES or more are aligned to it and asked for as transparent huge pages: a
// block's first touch then faults once per 2 MiB instead of once per 4 KiB page. Evaluation
// grows its arena with each longer input, and those faults were a third of its time.
#define HUGE_BYTES ((size_t)2 << 20)

static ArenaBlock *block_new(Arena *a, size_t size) {
    ArenaBlock *b = malloc(sizeof *b);
    size_t align = size >= 2 * HUGE_BYTES ? HUGE_BYTES : 64;
    size_t bytes = (size + align - 1) / align * align;   // aligned_alloc wants a multiple
    if (b && !(b->mem = aligned_alloc(align, bytes))) { free(b); b = NULL; }
#ifdef MADV_HUGEPAGE
    // The first huge page and the last, when the block uses only part of it, stay in small
    // pages: a huge page counts 2 MiB of resident memory as soon as one byte of it is
    // touched, and a block may be used for a few KiB (a thread's arena) or end short of its
    // last page (a reserved peak).
    if (b && align == HUGE_BYTES) {
        size_t whole = size / HUGE_BYTES * HUGE_BYTES;
        madvise(b->mem, HUGE_BYTES, MADV_NOHUGEPAGE);
        madvise(b->mem + HUGE_BYTES, whole - HUGE_BYTES, MADV_HUGEPAGE);
        if (whole < bytes) madvise(b->mem + whole, bytes - whole, MADV_NOHUGEPAGE);
    }
#endif
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
    // use. One block instead, from whose start every step allocates: a step then touches only
    // what it uses. The block is half again the peak: batches of random lengths raise the peak
    // for many steps, and each new block's pages fault again when first touched, so growing
    // by a factor keeps that to a few times; the untouched half costs no memory.
    if (a->first && a->first->next) {
        size_t peak = (a->used_peak + 63) / 64 * 64, size = peak + peak / 2;
        arena_free_blocks(a);
        a->first = block_new(a, size > a->block_size ? size : a->block_size);
    }
    for (ArenaBlock *b = a->first; b; b = b->next) b->top = 0;
    a->current = a->first;
    a->used = 0;
    trace(a, -1);
}

void arena_reserve(Arena *a, size_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    if (bytes > a->block_size) a->block_size = bytes;
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
