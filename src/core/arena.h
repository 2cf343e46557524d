// Arena: a bump allocator for everything that lives for one training step (activations,
// their gradients, tape nodes). arena_reset() makes all of it reusable at once, so a step
// does no malloc/free after the first one has sized the arena.
#ifndef ARENA_H
#define ARENA_H
#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
// Called when a new block cannot be allocated, with its size; it must not return (ops use
// what arena_alloc gives without checking). The default prints the size and exits with 1.
typedef void (*ArenaFailure)(size_t bytes, void *ctx);
typedef struct Arena {
    ArenaBlock *first, *current;
    size_t block_size;   // default size of a new block
    size_t used_peak;    // most bytes in use at once, for reports
    size_t used;
    ArenaFailure on_failure;
    void *failure_ctx;
} Arena;

void  arena_init(Arena *a, size_t block_size);
// A caller that can say more (the training loop: which step, which checkpoint is good)
// installs its own handler.
void  arena_on_failure(Arena *a, ArenaFailure fn, void *ctx);
void *arena_alloc(Arena *a, size_t bytes);          // 64-byte aligned, uninitialised
double arena_alloc_bytes(double bytes);             // what arena_alloc(bytes)
                                                    // takes: whole 64-byte blocks
void *arena_calloc(Arena *a, size_t bytes);         // zeroed
void  arena_reset(Arena *a);                        // keep the blocks, forget their contents
// Free everything allocated after a mark (e.g. the per-token work of greedy decoding, while
// the encoder output allocated before the mark stays).
typedef struct { ArenaBlock *block; size_t top, used; } ArenaMark;
ArenaMark arena_mark(const Arena *a);
void  arena_release(Arena *a, ArenaMark m);
void  arena_free(Arena *a);
#endif
