// The step arena: allocations from one block are contiguous, a reserved size is one block, a
// reset after growth leaves one block half again the peak, and a run whose peak grows step by
// step faults its pages a bounded number of times (not once per new peak).
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "check.h"
#include "core/arena.h"

#define MiB ((size_t)1 << 20)

// n allocations of `each` bytes; 1 if every one follows the previous in memory (one block).
static int contiguous(Arena *a, int n, size_t each) {
    char *prev = arena_alloc(a, each);
    for (int i = 1; i < n; i++) {
        char *p = arena_alloc(a, each);
        if (p != prev + each) return 0;
        prev = p;
    }
    return 1;
}

static void test_reserve_is_one_block(void) {
    Arena a;
    arena_init(&a, MiB);
    arena_reserve(&a, 40 * MiB);
    CHECK(contiguous(&a, 40, MiB), "40 MiB in 1 MiB pieces after reserving 40 MiB: not one block");
    arena_free(&a);
    // Without the reserve the same pieces span 1 MiB blocks.
    arena_init(&a, MiB);
    CHECK(!contiguous(&a, 40, MiB), "1 MiB blocks held 40 MiB in one");
    arena_free(&a);
}

static void test_reset_keeps_half_again_the_peak(void) {
    Arena a;
    arena_init(&a, MiB);
    for (int i = 0; i < 10; i++) arena_alloc(&a, MiB);   // peak 10 MiB in ten blocks
    arena_reset(&a);
    // One block of 15 MiB: 15 pieces of 1 MiB side by side, the 16th starts a new block.
    CHECK(contiguous(&a, 15, MiB), "after a 10 MiB peak, 15 MiB do not fit one block");
    arena_reset(&a);
    CHECK(!contiguous(&a, 16, MiB), "after a 10 MiB peak, 16 MiB fit one block (more than 1.5x)");
    arena_free(&a);
}

static void test_large_blocks_on_huge_page_boundaries(void) {
    Arena a;
    arena_init(&a, 8 * MiB);
    uintptr_t p = (uintptr_t)arena_alloc(&a, 64);
    CHECK(p % (2 * MiB) == 0, "an 8 MiB block starts at %#lx, not on a 2 MiB boundary",
          (unsigned long)p);
    arena_free(&a);
}

static long minor_faults(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// 1 if the kernel gives transparent huge pages to a region that asks (madvise or always).
static int huge_pages_on(void) {
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        fclose(f);
    }
    return strstr(line, "[always]") || strstr(line, "[madvise]");
}

#if defined(__SANITIZE_ADDRESS__)
enum { UNDER_ASAN = 1 };
#else
enum { UNDER_ASAN = 0 };
#endif

// Steps whose peak grows 10% at a time from 16 to 160 MiB, each writing all it allocated,
// as a training's first steps do while longer batches come. Re-allocating a block of exactly
// the new peak each time faulted every 4 KiB page of every block, 1.8 GiB in all, eleven
// times the last peak; blocks grown by half on huge pages fault less than the last peak's
// 4 KiB pages once.
static void test_growing_peak_faults_bounded(void) {
    if (UNDER_ASAN) SKIP("ASan's allocator keeps and poisons freed blocks; page faults are not the arena's");
    if (!huge_pages_on()) SKIP("transparent huge pages are off on this kernel");
    Arena a;
    arena_init(&a, MiB);
    long before = minor_faults();
    size_t last = 0;
    for (double size = 16.0 * MiB; size <= 160.0 * MiB; size *= 1.1) {
        size_t bytes = (size_t)size / 64 * 64;
        char *p = arena_alloc(&a, bytes);
        memset(p, 1, bytes);
        arena_reset(&a);
        last = bytes;
    }
    long faults = minor_faults() - before, bound = (long)(last / 4096);
    CHECK(faults < bound, "%ld page faults while the peak grew to %zu MiB (bound %ld)", faults,
          last / MiB, bound);
    arena_free(&a);
}

// Resident memory of this process in KiB (/proc/self/statm), or -1.
static long resident_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, pages = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) != 2) pages = -1;
        fclose(f);
    }
    return pages < 0 ? -1 : pages * (sysconf(_SC_PAGESIZE) / 1024);
}

// A huge page is resident whole once one byte of it is touched. A block's first and last
// huge pages are small pages, so a block used for 64 KiB (a thread's arena) costs about
// that, and a 9 MiB block (10 MiB aligned) used to its end costs 9 MiB, not 10.
static void test_partly_used_blocks_stay_small(void) {
    if (UNDER_ASAN) SKIP("ASan's allocator places and poisons blocks itself");
    if (!huge_pages_on()) SKIP("transparent huge pages are off on this kernel");
    long r0 = resident_kib();
    if (r0 < 0) SKIP("no /proc/self/statm");
    Arena a;
    arena_init(&a, 64 * MiB);
    char *p = arena_alloc(&a, 64 * 1024);
    memset(p, 1, 64 * 1024);
    long grew = resident_kib() - r0;
    CHECK(grew < 1024, "64 KiB used of a 64 MiB block: resident memory grew %ld KiB", grew);
    arena_free(&a);
    arena_init(&a, 9 * MiB);
    long r1 = resident_kib();
    p = arena_alloc(&a, 9 * MiB - 64);
    memset(p, 1, 9 * MiB - 64);
    grew = resident_kib() - r1;
    CHECK(grew < 9 * 1024 + 512, "9 MiB used of a 9 MiB block: resident memory grew %ld KiB",
          grew);
    arena_free(&a);
}

int main(void) {
    RUN(test_reserve_is_one_block);
    RUN(test_partly_used_blocks_stay_small);
    RUN(test_reset_keeps_half_again_the_peak);
    RUN(test_large_blocks_on_huge_page_boundaries);
    RUN(test_growing_peak_faults_bounded);
    return check_summary();
}
