// The thread count follows the load (runtime_adapt_threads, run.threads = 0). The arithmetic is
// checked on recorded /proc/stat samples, so its verdict does not depend on the machine; the
// live check (one thread while a child spins, every core again once it has gone) measures the
// other processes' load in each of its stages and skips, naming it, when they took the cores.
#include <math.h>
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
// count is `want` or `seconds` have passed; returns the last count. *others gets the cores that
// other processes kept busy meanwhile (busy time of our cores minus our own CPU time, over the
// wall time): the premise of a live check is measured in the same window as its result.
static int work_until(int want, double seconds, double *others) {
    volatile double x = 0;
    LoadSample a, b;
    int have = runtime_sample_load(&a) == 0;
    double t0 = wall();
    while (wall() - t0 < seconds) {
        for (int i = 0; i < 200000; i++) x = x + 1e-9 * i;
        runtime_adapt_threads();
        if (omp_get_max_threads() == want && wall() - t0 > 0.6) break;
    }
    if (others) {
        *others = -1;
        if (have && runtime_sample_load(&b) == 0 && b.wall > a.wall)
            *others = b.cores - (b.idle - a.idle + b.own - a.own) / (b.wall - a.wall);
    }
    return omp_get_max_threads();
}

// Two "cpuN" lines of /proc/stat (user nice system idle iowait irq softirq) into a sample.
static LoadSample sample(double wall, double own, long idle0, long iowait0, long idle1, long iowait1,
                         const unsigned char *allowed) {
    char text[512];
    snprintf(text, sizeof text,
             "cpu  9 0 9 %ld %ld 0 0 0 0 0\n"   // the total line: never counted
             "cpu0 5 0 3 %ld %ld 0 0 0 0 0\ncpu1 4 0 6 %ld %ld 0 0 0 0 0\nintr 123\n",
             idle0 + idle1, iowait0 + iowait1, idle0, iowait0, idle1, iowait1);
    LoadSample s = { wall, own, 0, 0 };
    CHECK(runtime_parse_stat(text, allowed, 2, 100, &s.idle, &s.cores) == 0, "parse: %s", text);
    return s;
}

// Recorded cases at 100 ticks/s on two cores, each 1 s of wall time apart.
static void test_free_threads_on_samples(void) {
    const unsigned char both[2] = {1, 1}, only0[2] = {1, 0};
    LoadSample a = sample(10, 5, 1000, 10, 2000, 20, both);
    CHECK(a.cores == 2 && fabs(a.idle - 30.3) < 1e-9, "cores %d, idle %g s (want 2, 30.3)", a.cores, a.idle);
    // Each case 1 s after `a`: our CPU seconds, cpu0 idle and iowait ticks, cpu1 idle and iowait.
    static const struct { double own; long idle0, iowait0, idle1, iowait1; int want; const char *what; } cases[] = {
        {5, 1100, 10, 2100, 20, 2, "idle machine, we used nothing"},
        {7, 1000, 10, 2000, 20, 2, "we ran 2 threads flat out, nobody else"},
        {6, 1000, 10, 2000, 20, 1, "another process held one core, we had the other"},
        {5, 1030, 10, 2000, 40, 1, "0.5 core free, iowait counted: rounds to 1"},
        {6, 1040, 10, 2000, 20, 1, "1.4 cores free: rounds to 1"},
        {6, 1040, 30, 2000, 20, 2, "1.6 cores free with iowait: rounds to 2"},
        {5, 1000, 10, 2000, 20, 1, "everything busy by others: at least 1"},
        {9, 1200, 10, 2200, 20, 2, "more free than cores (clock skew): at most 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        LoadSample b = sample(11, cases[i].own, cases[i].idle0, cases[i].iowait0, cases[i].idle1, cases[i].iowait1, both);
        int got = runtime_free_threads(&a, &b);
        CHECK(got == cases[i].want, "%s: %d threads, want %d", cases[i].what, got, cases[i].want);
    }
    // Only cpu0 in the affinity mask: cpu1's idle time is not ours to use.
    LoadSample c = sample(10, 5, 1000, 10, 2000, 20, only0), d = sample(11, 5, 1100, 10, 2100, 20, only0);
    CHECK(c.cores == 1 && fabs(c.idle - 10.1) < 1e-9, "mask: cores %d, idle %g", c.cores, c.idle);
    CHECK(runtime_free_threads(&c, &d) == 1, "mask: %d", runtime_free_threads(&c, &d));
    // No usable line: an error, not zero cores.
    double idle; int cores;
    CHECK(runtime_parse_stat("cpu  1 2 3 4 5\nintr 1\n", both, 2, 100, &idle, &cores) == -1, "no cpuN lines");
    CHECK(runtime_parse_stat("cpu7 1 2 3 4 5\n", both, 2, 100, &idle, &cores) == -1, "cpu7 outside the mask");
}

static void test_explicit_counts_stay(void) {
    unsetenv("OMP_NUM_THREADS");
    runtime_set_threads(2);   // run.threads = 2
    work_until(-1, 0.7, NULL);
    CHECK(omp_get_max_threads() == 2, "run.threads = 2 became %d", omp_get_max_threads());
    setenv("OMP_NUM_THREADS", "3", 1);   // the user's count
    omp_set_num_threads(3);              // (libgomp read the variable at start-up)
    runtime_set_threads(0);
    work_until(-1, 0.7, NULL);
    CHECK(omp_get_max_threads() == 3, "OMP_NUM_THREADS=3 became %d", omp_get_max_threads());
    unsetenv("OMP_NUM_THREADS");
}

static void test_threads_follow_load(void) {
    int cores = omp_get_num_procs();
    runtime_set_threads(0);
    CHECK(omp_get_max_threads() == cores, "threads = 0 starts with %d threads, want %d cores", omp_get_max_threads(), cores);
    if (cores < 2) SKIP("one core: nothing to adapt");
    double others;
    int before = work_until(cores, 3.0, &others);
    if (before != cores) SKIP("before the spinner, other processes kept %.1f of %d cores busy (%d threads)", others, cores, before);
    pid_t competitor = fork();
    if (competitor == 0) for (volatile unsigned long i = 0;; i++) {}
    CHECK(competitor > 0, "fork failed");
    if (competitor <= 0) return;
    int busy = work_until(1, 3.0, NULL);
    kill(competitor, SIGKILL);
    waitpid(competitor, NULL, 0);
    // The spinner holds a core whatever else runs: never more than cores - 1 threads.
    CHECK(busy <= cores - 1, "with another process spinning: %d threads, want at most %d", busy, cores - 1);
    int idle = work_until(cores, 3.0, &others);
    if (idle != cores && others >= 0.5)
        SKIP("after the spinner stopped, other processes kept %.1f of %d cores busy (%d threads)", others, cores, idle);
    CHECK(idle == cores, "after it stopped: %d threads, want %d (others' load %.2f cores)", idle, cores, others);
}

int main(void) {
    RUN(test_free_threads_on_samples);
    RUN(test_explicit_counts_stay);
    RUN(test_threads_follow_load);
    return check_summary();
}
