// Whole-file I/O with clear error messages: atomic writes, bounded reads, mkdir -p.
//
// Every function reports failure by returning -1 (or NULL) and writing a message that starts
// with the path into err, e.g. `runs/x/model.safetensors: write failed: No space left on device`.
#ifndef FILEIO_H
#define FILEIO_H
#include <stddef.h>

// Writes data[0..n) to `path` so that a crash or error never leaves a torn file: the bytes go
// to `path.tmp.<pid>` in the same directory (so rename stays within one file system), are
// fwrite'n, fflush'ed and fsync'ed, the file is closed, then renamed over `path`. On any error
// the temporary file is removed and an existing file at `path` is left untouched. After the
// rename the directory is fsync'ed too (best effort), so the new name itself is durable.
// Temporaries of `path` left by writers that were killed (their pid no longer runs on this
// machine) are removed first.
int write_file_atomic(const char *path, const void *data, size_t n, char *err, int errlen);

// 1 if a file name has the form write_file_atomic gives its temporaries (NAME.tmp.<digits>):
// what a run killed mid-write leaves beside the intact file.
int is_atomic_temp(const char *name);

// Reads the whole file into a malloc'ed buffer (free it) with a '\0' appended after the n
// bytes, so text can be used as a C string. A file longer than max_bytes is an error.
char *read_file(const char *path, size_t *n, size_t max_bytes, char *err, int errlen);

// mkdir -p: creates `path` and any missing parents (mode 0777 before umask). Existing
// directories are fine; a component that exists but is not a directory is an error.
int make_dirs(const char *path, char *err, int errlen);

#endif
