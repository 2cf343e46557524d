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

int runtime_parse_stat(const char *text, const unsigned char *allowed, int n_allowed,
                       long ticks_per_s, double *idle, int *cores) {
    unsigned long long total = 0;
    int n = 0;
    for (const char *line = text; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        int cpu;
        unsigned long long v[5];   // user nice system idle iowait
        // "cpuN", not the "cpu " total
        if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]) ||
            sscanf(line + 3, "%d %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
                   &v[4]) != 6)
            continue;
        if (cpu < 0 || cpu >= n_allowed || !allowed[cpu]) continue;
        total += v[3] + v[4];
        n++;
    }
    *idle = (double)total / ticks_per_s;
    *cores = n;
    return n > 0 ? 0 : -1;
}

int runtime_free_threads(const LoadSample *before, const LoadSample *after) {
    double dt = after->wall - before->wall;
    if (dt <= 0 || after->cores < 1) return after->cores < 1 ? 1 : after->cores;
    double free_cores = (after->idle - before->idle + after->own - before->own) / dt;
    int n = (int)lround(free_cores);
    return n < 1 ? 1 : n > after->cores ? after->cores : n;
}

// Idle seconds (idle + iowait) of the cores in this process's affinity mask, from /proc/stat.
static int idle_seconds(double *idle, int *cores) {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask)) return -1;
    unsigned char allowed[CPU_SETSIZE];
    for (int c = 0; c < CPU_SETSIZE; c++) allowed[c] = CPU_ISSET(c, &mask) != 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    static char text[1 << 16];   // a few lines per core
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return runtime_parse_stat(text, allowed, CPU_SETSIZE, sysconf(_SC_CLK_TCK), idle, cores);
}

int runtime_sample_load(LoadSample *s) {
    s->wall = wall_seconds();
    s->own = cpu_seconds();
    return idle_seconds(&s->idle, &s->cores);
}

void runtime_adapt_threads(void) {
    static LoadSample last;
    static int have_last;
    if (!adapting) return;
    if (have_last && wall_seconds() - last.wall < 0.5) return;
    LoadSample now;
    if (runtime_sample_load(&now)) return;   // no /proc: keep the count
    if (have_last) omp_set_num_threads(runtime_free_threads(&last, &now));
    last = now, have_last = 1;
}

int runtime_usage(int argc, char **argv, const char *usage) {
    if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) return -1;
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
}
