#define _GNU_SOURCE   // sched_getaffinity: which cores this process may use
#include "core/runtime.h"
#include <ctype.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void runtime_init(int argc, char **argv) {
    (void)argc;
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;   // the user's choice
    setenv("OMP_WAIT_POLICY", "passive", 1);
    setenv("GOMP_SPINCOUNT", RUNTIME_SPINCOUNT, 1);   // libgomp: spin this long, then sleep
    execv("/proc/self/exe", argv);
    // If re-executing is impossible, carry on: only the waiting policy differs.
}

static int adapting;   // run.threads = 0

void runtime_set_threads(int threads) {
    adapting = threads <= 0 && !getenv("OMP_NUM_THREADS");   // the user's count stays
    if (threads > 0) omp_set_num_threads(threads);
    else if (adapting) omp_set_num_threads(omp_get_num_procs());
}

static double seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double wall_seconds(void) { return seconds(CLOCK_MONOTONIC); }

double cpu_seconds(void) { return seconds(CLOCK_PROCESS_CPUTIME_ID); }

// Idle seconds (idle + iowait) summed over the cores in this process's affinity mask.
static int idle_seconds(double *idle, int *cores) {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask)) return -1;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    char line[512];
    unsigned long long total = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        int cpu;
        unsigned long long v[5];   // user nice system idle iowait
        if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]) ||   // "cpuN", not the "cpu " total
            sscanf(line + 3, "%d %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4]) != 6) continue;
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)) continue;
        total += v[3] + v[4];
        n++;
    }
    fclose(f);
    *idle = (double)total / sysconf(_SC_CLK_TCK);
    *cores = n;
    return n > 0 ? 0 : -1;
}

void runtime_adapt_threads(void) {
    static double last_wall, last_own, last_idle;
    static int have_last;
    if (!adapting) return;
    double wall = wall_seconds(), idle;
    int cores;
    if (have_last && wall - last_wall < 0.5) return;
    if (idle_seconds(&idle, &cores)) return;   // no /proc: keep the count
    double own = cpu_seconds();
    if (have_last) {
        double free_cores = (idle - last_idle + own - last_own) / (wall - last_wall);
        int n = (int)lround(free_cores);
        omp_set_num_threads(n < 1 ? 1 : n > cores ? cores : n);
    }
    last_wall = wall, last_own = own, last_idle = idle, have_last = 1;
}

int runtime_usage(int argc, char **argv, const char *usage) {
    if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) return -1;
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
}
