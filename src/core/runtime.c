#include "core/runtime.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
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
