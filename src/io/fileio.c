// Whole-file I/O; see fileio.h.
#include "io/fileio.h"
#include "core/crash_point.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void set_err(char *err, int errlen, const char *path, const char *what, int errnum) {
    if (err && errlen > 0)
        snprintf(err, (size_t)errlen, "%s: %s: %s", path, what, strerror(errnum));
}

// The directory part of path ("." if there is none), for fsync after rename.
static void dir_of(const char *path, char *out, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) { snprintf(out, cap, "."); return; }
    size_t k = slash == path ? 1 : (size_t)(slash - path);  // "/x" -> "/"
    if (k >= cap) k = cap - 1;
    memcpy(out, path, k);
    out[k] = '\0';
}

// Best effort: some file systems refuse fsync on a directory, and by now the rename is done.
static void sync_dir(const char *path) {
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

// The temporaries of path that a writer killed mid-write left (path.tmp.<pid> with no live
// process <pid> on this machine): each write of path removes them, so a later write leaves
// nothing behind however many were killed before it. A live writer's temporary is its own.
static void remove_dead_temps(const char *path) {
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t k = strlen(base);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (strncmp(name, base, k) || strncmp(name + k, ".tmp.", 5) || !is_atomic_temp(name))
            continue;
        long pid = strtol(name + k + 5, NULL, 10);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char stale[8192];
        snprintf(stale, sizeof stale, "%s/%s", dir, name);
        unlink(stale);
    }
    closedir(d);
}

int write_file_atomic(const char *path, const void *data, size_t n, char *err, int errlen) {
    if (err && errlen > 0) err[0] = '\0';
    if (!path || !*path) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "write_file_atomic: empty path");
        return -1;
    }
    remove_dead_temps(path);
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) { set_err(err, errlen, path, "write failed", ENOMEM); return -1; }
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());

    FILE *f = fopen(tmp, "wb");
    if (!f) {
        set_err(err, errlen, path, "cannot create temporary file", errno);
        free(tmp);
        return -1;
    }
    // fwrite/fflush may fail without setting errno on some libcs; EIO is the honest fallback.
    const char *what = "write failed";
    errno = 0;
    // In two halves, with a crash point between them: tests kill the process there (TF_CRASH_AT)
    // to leave a torn temporary file, as a crash in the middle of the write would.
    // (n = 0 may come with data = NULL, which fwrite must not see.)
    size_t half = n / 2;
    int ok = half == 0 || fwrite(data, 1, half, f) == half;
    if (ok && fflush(f) == 0) crash_point(path);
    ok = ok && (n == half || fwrite((const char *)data + half, 1, n - half, f) == n - half);
    if (ok) ok = fflush(f) == 0;
    if (ok) { what = "fsync failed"; ok = fsync(fileno(f)) == 0; }
    int saved = errno ? errno : EIO;
    if (fclose(f) != 0 && ok) { what = "close failed"; ok = 0; saved = errno ? errno : EIO; }
    if (ok && rename(tmp, path) != 0) { what = "rename failed"; ok = 0; saved = errno; }
    if (!ok) {
        unlink(tmp);  // the old file at path, if any, was never touched
        set_err(err, errlen, path, what, saved);
        free(tmp);
        return -1;
    }
    free(tmp);
    sync_dir(path);
    return 0;
}

int is_atomic_temp(const char *name) {
    const char *tmp = strstr(name, ".tmp.");
    if (!tmp || tmp == name) return 0;
    const char *digits = tmp + 5;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits)) return 0;
    return strstr(digits, ".tmp.") == NULL;
}

char *read_file(const char *path, size_t *n, size_t max_bytes, char *err, int errlen) {
    if (err && errlen > 0) err[0] = '\0';
    if (n) *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) { set_err(err, errlen, path, "cannot open", errno); return NULL; }
    // The size from fstat is only a first guess: read until EOF and grow if needed.
    struct stat st;
    size_t cap = 4096;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (unsigned long long)st.st_size < max_bytes)
        cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap + 1);
    size_t len = 0;
    if (!buf) { fclose(f); set_err(err, errlen, path, "cannot read", ENOMEM); return NULL; }
    for (;;) {
        if (len == cap) {
            if (cap > max_bytes) break;  // already read more than allowed; reported below
            size_t ncap = cap * 2 > cap ? cap * 2 : (size_t)-2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                set_err(err, errlen, path, "cannot read", ENOMEM);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (len > max_bytes) break;
        if (k == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                fclose(f);
                set_err(err, errlen, path, "cannot read", e);
                return NULL;
            }
            break;  // EOF
        }
    }
    fclose(f);
    if (len > max_bytes) {
        free(buf);
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "%s: file is larger than the limit of %zu bytes", path,
                     max_bytes);
        return NULL;
    }
    buf[len] = '\0';
    if (n) *n = len;
    return buf;
}

int make_dirs(const char *path, char *err, int errlen) {
    if (err && errlen > 0) err[0] = '\0';
    if (!path || !*path) {
        if (err && errlen > 0) snprintf(err, (size_t)errlen, "make_dirs: empty path");
        return -1;
    }
    char *buf = strdup(path);
    if (!buf) { set_err(err, errlen, path, "cannot create directory", ENOMEM); return -1; }
    // Create each prefix ending before a '/', then the whole path.
    size_t len = strlen(buf);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        if (buf[i - 1] == '/') continue;  // "a//b" or a trailing slash
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0) {
            int e = errno;
            struct stat st;
            if (e != EEXIST || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                if (e == EEXIST) e = ENOTDIR;
                if (err && errlen > 0)
                    snprintf(err, (size_t)errlen, "%s: cannot create directory '%s': %s", path, buf,
                             strerror(e));
                free(buf);
                return -1;
            }
        }
        buf[i] = saved;
    }
    free(buf);
    return 0;
}
