#include "train/train_compute.h"
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

double process_cpu_seconds(void) {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u)) return 0;
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

int train_compute_append(const char *dir, long first_step, long last_step, const char *stop,
                         double tokens, double cpu_seconds, double wall_seconds, char *err,
                         int errlen) {
    char path[700];
    snprintf(path, sizeof path, "%s/compute.csv", dir);
    struct stat s;
    int fresh = stat(path, &s) != 0 || s.st_size == 0;
    FILE *f = fopen(path, "a");
    if (!f) { snprintf(err, errlen, "%s: cannot append", path); return -1; }
    if (fresh) fputs(TRAIN_COMPUTE_HEADER, f);
    fprintf(f, "%ld,%ld,%s,%.0f,%.2f,%.2f\n", first_step, last_step, stop, tokens, cpu_seconds,
            wall_seconds);
    if (fclose(f)) { snprintf(err, errlen, "%s: write failed", path); return -1; }
    return 0;
}
