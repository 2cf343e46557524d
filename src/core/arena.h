// Arena: a bump allocator for everything that lives for one training step (activations,
// their gradients, tape nodes). arena_reset() makes all of it reusable at once, so a step
// does no malloc/free after the first one has sized the arena.
#ifndef ARENA_H
#define ARENA_H
#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
// An optional record of what an arena does, for the memory estimate (memory/memory_probe.h):
// each allocation's bytes (as arena_alloc takes them, > 0) and each release or reset as the
// bytes in use after it, stored negated minus one (so a release to 0 is -1). An allocation
// whose size is not a polynomial of the shapes says how it is sized (arena_trace_pack).
typedef struct ArenaEvent {
    double bytes;
    long pack[3];   // gemm's packed transposed A: M, N, K (kernels.h gemm_a_pack_floats); or 0
} ArenaEvent;
typedef struct ArenaTrace { ArenaEvent *ev; long n, cap; int failed; } ArenaTrace;
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
    ArenaTrace *trace;   // NULL: nothing recorded
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
// New blocks of at least `bytes`: a run that knows its peak (memory/memory_estimate.h) takes it
// in one block, whose pages fault once, instead of growing block by block and faulting again
// in each larger block. Untouched pages of a block cost no memory.
void  arena_reserve(Arena *a, size_t bytes);
// Free everything allocated after a mark (e.g. the per-token work of greedy decoding, while
// the encoder output allocated before the mark stays).
typedef struct { ArenaBlock *block; size_t top, used; } ArenaMark;
ArenaMark arena_mark(const Arena *a);
void  arena_release(Arena *a, ArenaMark m);
void  arena_free(Arena *a);
// Marks the last allocation, while recording, as gemm's packed transposed A of M x K for N
// columns.
void  arena_trace_pack(Arena *a, long M, long N, long K);
#endif
