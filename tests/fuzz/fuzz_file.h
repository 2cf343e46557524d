// For fuzz targets whose reader takes a path: the input's bytes go to a file of the process's
// own in /dev/shm (memory, so an execution costs no disk), rewritten at every call.
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_paths[4][256];

static void fuzz_remove_files(void) {
    for (int i = 0; i < 4; i++)
        if (fuzz_paths[i][0]) unlink(fuzz_paths[i]);
}

// Writes data[0..n) to the file called `name` and returns its path (static storage, one per
// name; removed at exit). Aborts if the file cannot be written: the target would test nothing.
static const char *fuzz_file(const char *name, const void *data, size_t n) {
    static const char *names[4];
    char (*paths)[256] = fuzz_paths;
    int i = 0;
    while (i < 4 && names[i] && names[i] != name) i++;
    if (i == 4) abort();
    if (!names[i]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(paths[i], sizeof paths[i], "%s/tf-fuzz-%d-%s", dir, (int)getpid(), name);
        names[i] = name;
        if (i == 0) atexit(fuzz_remove_files);
    }
    FILE *f = fopen(paths[i], "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f)) abort();
    return paths[i];
}

// Splits data at the first occurrence of the 4 bytes "\n%%\n": *a_n bytes before it, and
// *b / *b_n after it (b_n = 0 and b = NULL when there is no separator).
static void fuzz_split(const void *data, size_t n, size_t *a_n, const void **b, size_t *b_n) {
    const unsigned char *d = data;
    for (size_t i = 0; i + 4 <= n; i++)
        if (d[i] == '\n' && d[i + 1] == '%' && d[i + 2] == '%' && d[i + 3] == '\n') {
            *a_n = i;
            *b = d + i + 4;
            *b_n = n - i - 4;
            return;
        }
    *a_n = n;
    *b = NULL;
    *b_n = 0;
}
#endif
