// Test hooks for crash safety and signal handling. With TF_CRASH_AT=NAME:N in the environment
// the process kills itself with SIGKILL (as `kill -9` would, no clean-up) the N-th time it
// passes a crash point whose name ends with NAME; with TF_PAUSE_AT=NAME:N it stops itself with
// SIGSTOP there instead (as `kill -STOP` would), so that a test can look at what is on disk,
// send a signal and let it go on with SIGCONT. Tests use them to interrupt a run at a chosen
// point (the start of a step, the middle of writing a file) instead of at a random moment, so
// their verdict does not depend on timing or on the load. Without the variables a crash point
// costs two getenv calls, on its first call.
#ifndef CRASH_POINT_H
#define CRASH_POINT_H
void crash_point(const char *name);
#endif
