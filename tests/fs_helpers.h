// File helpers of the tests that write files: one scratch folder per test program, paths in
// it, and a count of the temporaries an atomic write may leave behind.
//
//   int main(void) { if (tmpdir_create("test_x")) return 1; RUN(...); tmpdir_remove(); return check_summary(); }
#ifndef FS_HELPERS_H
#define FS_HELPERS_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[64];   // this program's scratch folder, made by tmpdir_create

// mkdtemp /tmp/NAME.XXXXXX into tmpdir: 0, or -1 after perror.
static inline int tmpdir_create(const char *name) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return -1; }
    return 0;
}

// rm -rf the scratch folder (a warning, not a failure, if that does not work).
static inline void tmpdir_remove(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) printf("warning: could not remove %s\n", tmpdir);
}

static inline void path_in_tmp(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", tmpdir, name); }

// Number of entries of dir whose name contains ".tmp." (write_file_atomic's temporaries,
// "<name>.tmp.<pid>"), or -1 if dir cannot be read.
static inline int count_temporaries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}
#endif
