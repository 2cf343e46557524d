// What a run may use, see memory_limit.h.
#include "memory/memory_limit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/byte_size.h"

// The first number after `key` in a file like /proc/meminfo ("MemAvailable:  123 kB").
static double read_number(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, k)) {
            char *end;
            v = strtod(line + k, &end);
            if (end == line + k) v = -1;
            break;
        }
    fclose(f);
    return v;
}

// Room left in this process's cgroup: limit - usage, or -1 when there is no limit.
static double cgroup_room(char *source, size_t n) {
    char rel[512] = "", path[700];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        char line[600];
        while (fgets(line, sizeof line, f)) {
            char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;
            if (!q) continue;
            q[strcspn(q, "\n")] = '\0';
            if ((p[1] == ':' && !rel[0]) || strstr(p, "memory"))
                snprintf(rel, sizeof rel, "%s", q + 1);
        }
        fclose(f);
    }
    static const char *files[][3] = {
        {"/sys/fs/cgroup", "memory.max", "memory.current"},
        {"/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"}};
    double best = -1;
    for (int i = 0; i < 2; i++)
        for (int inner = 0; inner < 2; inner++) {   // the process's own cgroup, then the root seen
            snprintf(path, sizeof path, "%s%s/%s", files[i][0], inner ? "" : rel, files[i][1]);
            double limit = read_number(path, "");
            // "max" reads as no number; v1 uses a huge value
            if (limit <= 0 || limit >= 1e18) continue;
            snprintf(path, sizeof path, "%s%s/%s", files[i][0], inner ? "" : rel, files[i][2]);
            double used = read_number(path, "");
            double room = limit - (used > 0 ? used : 0);
            if (best < 0 || room < best) {
                best = room;
                snprintf(source, n, "cgroup %s", files[i][1]);
            }
        }
    return best;
}

double memory_available(char *source, size_t n) {
    double kb = read_number("/proc/meminfo", "MemAvailable:");
    double avail = kb >= 0 ? kb * 1024 : -1;
    snprintf(source, n, "MemAvailable");
    char cg[64];
    double room = cgroup_room(cg, sizeof cg);
    if (room >= 0 && (avail < 0 || room < avail)) {
        avail = room;
        snprintf(source, n, "%s", cg);
    }
    return avail;
}

double memory_limit(const Config *c, char *source, size_t n) {
    double limit;
    if (!strcmp(c->max_memory, "auto")) return memory_available(source, n);
    byte_size_parse(c->max_memory, &limit);   // config_validate has checked it
    snprintf(source, n, "run.max_memory = %s", c->max_memory);
    return limit;
}
