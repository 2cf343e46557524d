#include "core/runtime.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void runtime_init(int argc, char **argv) {
    (void)argc;
    if (getenv("OMP_WAIT_POLICY")) return;
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
    // If re-executing is impossible, carry on: only the waiting policy differs.
}

void runtime_set_threads(int threads) {
    if (threads > 0) omp_set_num_threads(threads);
}

int runtime_usage(int argc, char **argv, const char *usage) {
    if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) return -1;
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
}
