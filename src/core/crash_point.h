// A test hook for crash safety: with TF_CRASH_AT=NAME:N in the environment, the process kills
// itself with SIGKILL (as `kill -9` would, no clean-up) the N-th time it passes a crash point
// whose name ends with NAME. Tests use it to interrupt a run at a chosen point (the start of a
// step, the middle of writing a file) instead of at a random moment, so their verdict does not
// depend on timing. Without the variable a crash point costs one getenv, on its first call.
#ifndef CRASH_POINT_H
#define CRASH_POINT_H
void crash_point(const char *name);
#endif
