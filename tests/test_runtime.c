// The thread count follows the load (runtime_adapt_threads, run.threads = 0): one thread
// while another process holds a core, every core again once it has gone.
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "core/runtime.h"

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Work on this thread as a trainer would, asking between "steps" (~1 ms) until the thread
// count is `want` or `seconds` have passed; returns the last count.
static int work_until(int want, double seconds) {
    volatile double x = 0;
    double t0 = wall();
    while (wall() - t0 < seconds) {
        for (int i = 0; i < 200000; i++) x = x + 1e-9 * i;
        runtime_adapt_threads();
        if (omp_get_max_threads() == want && wall() - t0 > 0.6) break;
    }
    return omp_get_max_threads();
}

static void test_explicit_counts_stay(void) {
    unsetenv("OMP_NUM_THREADS");
    runtime_set_threads(2);   // run.threads = 2
    work_until(-1, 0.7);
    CHECK(omp_get_max_threads() == 2, "run.threads = 2 became %d", omp_get_max_threads());
    setenv("OMP_NUM_THREADS", "3", 1);   // the user's count
    omp_set_num_threads(3);              // (libgomp read the variable at start-up)
    runtime_set_threads(0);
    work_until(-1, 0.7);
    CHECK(omp_get_max_threads() == 3, "OMP_NUM_THREADS=3 became %d", omp_get_max_threads());
    unsetenv("OMP_NUM_THREADS");
}

static void test_threads_follow_load(void) {
    int cores = omp_get_num_procs();
    runtime_set_threads(0);
    CHECK(omp_get_max_threads() == cores, "threads = 0 starts with %d threads, want %d cores", omp_get_max_threads(), cores);
    if (cores < 2) { printf("     (one core: nothing to adapt)\n"); return; }
    int before = work_until(cores, 3.0);
    if (before != cores) {   // another job already holds cores: the premise is missing
        printf("     (skipped: other processes keep %d of %d cores busy)\n", cores - before, cores);
        return;
    }
    pid_t competitor = fork();
    if (competitor == 0) for (volatile unsigned long i = 0;; i++) {}
    CHECK(competitor > 0, "fork failed");
    if (competitor <= 0) return;
    int busy = work_until(1, 3.0);
    kill(competitor, SIGKILL);
    waitpid(competitor, NULL, 0);
    CHECK(busy == 1, "with another process spinning: %d threads, want 1", busy);
    int idle = work_until(cores, 3.0);
    CHECK(idle == cores, "after it stopped: %d threads, want %d", idle, cores);
}

int main(void) {
    RUN(test_explicit_counts_stay);
    RUN(test_threads_follow_load);
    return check_summary();
}
