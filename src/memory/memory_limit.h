// What memory a run may use, for the check before it (memory/memory_check.h).
//
// What is available: MemAvailable (/proc/meminfo), lowered to the cgroup's room (v2
// memory.max - memory.current, v1 memory.limit_in_bytes - memory.usage_in_bytes) where a
// limit is set. run.max_memory = auto compares with that; run.max_memory = 8G compares with
// 8 GiB instead, less or more than is available: a tighter budget, or going ahead on purpose.
// It is a check before the run, not a limit on the process (use ulimit or a cgroup for that).
#ifndef MEMORY_LIMIT_H
#define MEMORY_LIMIT_H
#include <stddef.h>
#include "config/config.h"

// Bytes available to this process and where the figure comes from ("MemAvailable",
// "cgroup memory.max"); a negative value when neither can be read.
double memory_available(char *source, size_t n);

// The limit a run is held to: run.max_memory, or what is available (-1: unknown); source
// receives where the figure comes from.
double memory_limit(const Config *c, char *source, size_t n);
#endif
