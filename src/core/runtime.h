// Process start-up shared by every tool and test.
#ifndef RUNTIME_H
#define RUNTIME_H
// OpenMP threads that spin while waiting collapse when another process holds a core, so
// every program runs with OMP_WAIT_POLICY=passive unless the user chose otherwise. libgomp
// reads the variable when the program loads, so runtime_init re-executes the program once
// with it set. Call first thing in main(). threads > 0 sets the OpenMP thread count.
void runtime_init(int argc, char **argv);
void runtime_set_threads(int threads);
// Shared `--help` handling of the tools: with no argument, usage on stderr and 2; with
// --help or -h, usage on stdout and 0; otherwise -1 (carry on).
int  runtime_usage(int argc, char **argv, const char *usage);
#endif
