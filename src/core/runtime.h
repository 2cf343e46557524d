// Process start-up and thread count, shared by every tool and test.
#ifndef RUNTIME_H
#define RUNTIME_H
// OpenMP threads that spin while waiting collapse when another process holds a core, and
// threads that go to sleep at once pay a wake-up (~90 us on an idle virtual machine) at
// every parallel region. So unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, every
// program waits passively after a short spin: RUNTIME_SPINCOUNT pause instructions
// (~40 us here), less than one wake-up, at most that much CPU lost per wait. libgomp reads
// the variables when the program loads, so runtime_init re-executes the program once with
// them set. Call first thing in main().
#define RUNTIME_SPINCOUNT "3000"
void runtime_init(int argc, char **argv);

// threads > 0: exactly that many OpenMP threads. threads = 0: OMP_NUM_THREADS if set, else
// every core, and from then on runtime_adapt_threads follows the load.
void runtime_set_threads(int threads);
// With threads = 0, call between steps: at most every half second it sets the thread count
// to the cores other processes left free since the last look (idle time of the cores this
// process may run on, in /proc/stat, plus this process's own CPU time), at least 1. Two
// threads on a machine where another process holds one of two cores are slower than one
// (they wait for each other at every region). Results do not depend on the thread count.
void runtime_adapt_threads(void);

// Clocks for timings: seconds since an arbitrary start (monotonic: differences only), and
// the CPU time (user + system) of every thread of this process.
double wall_seconds(void);
double cpu_seconds(void);

// The pieces of runtime_adapt_threads, apart so that tests can feed them recorded samples.
// A sample: wall-clock and this process's CPU seconds, and the idle seconds (idle + iowait)
// summed over the `cores` cores this process may run on.
typedef struct { double wall, own, idle; int cores; } LoadSample;
int runtime_sample_load(LoadSample *s);   // now, from /proc/stat; -1 if it cannot be read
// Idle seconds and core count from the text of /proc/stat, counting the "cpuN" lines whose
// N < n_allowed has allowed[N] set. -1 if no line counts.
int runtime_parse_stat(const char *text, const unsigned char *allowed, int n_allowed,
                       long ticks_per_s, double *idle, int *cores);
// Threads for the cores other processes left free between two samples: (idle time + own CPU
// time) / wall time, rounded, clamped to 1..cores. Our own threads count as free: they are
// the ones that would run.
int runtime_free_threads(const LoadSample *before, const LoadSample *after);

// Shared `--help` handling of the tools: with no argument, usage on stderr and 2; with
// --help or -h, usage on stdout and 0; otherwise -1 (carry on).
int  runtime_usage(int argc, char **argv, const char *usage);
#endif
