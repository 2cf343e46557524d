// Tests for whole-file I/O (src/io/fileio.c): atomic writes, bounded reads, mkdir -p.
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fs_helpers.h"
#include "io/fileio.h"

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_write_then_read(void) {
    char p[256], err[512];
    path_in_tmp(p, sizeof p, "a.bin");
    const char data[] = "hello\0world";
    CHECK(write_file_atomic(p, data, sizeof data, err, sizeof err) == 0, "%s", err);
    size_t n = 0;
    char *got = read_file(p, &n, 1000, err, sizeof err);
    CHECK(got && n == sizeof data && memcmp(got, data, n) == 0 && got[n] == '\0', "read back differs (n=%zu)", n);
    free(got);
    // Overwrite with something shorter: the file is replaced, not patched.
    CHECK(write_file_atomic(p, "xy", 2, err, sizeof err) == 0, "%s", err);
    got = read_file(p, &n, 1000, err, sizeof err);
    CHECK(got && n == 2 && strcmp(got, "xy") == 0, "overwrite: n=%zu", n);
    free(got);
    // An empty file, with NULL data.
    CHECK(write_file_atomic(p, NULL, 0, err, sizeof err) == 0, "%s", err);
    got = read_file(p, &n, 1000, err, sizeof err);
    CHECK(got && n == 0 && got[0] == '\0', "empty file: n=%zu", n);
    free(got);
    CHECK(count_temporaries(tmpdir) == 0, "temporary files left behind");
}

static void test_read_limits_and_errors(void) {
    char p[256], err[512];
    path_in_tmp(p, sizeof p, "hundred.bin");
    char data[100];
    memset(data, 'z', sizeof data);
    CHECK(write_file_atomic(p, data, sizeof data, err, sizeof err) == 0, "%s", err);
    size_t n = 7;
    char *got = read_file(p, &n, 100, err, sizeof err);
    CHECK(got && n == 100, "exactly at the limit: %s", err);
    free(got);
    got = read_file(p, &n, 99, err, sizeof err);
    CHECK(!got && strstr(err, "hundred.bin: file is larger than the limit of 99 bytes"), "err: %s", err);
    CHECK(n == 0, "n not reset on error");
    got = read_file(p, &n, 0, err, sizeof err);
    CHECK(!got && strstr(err, "larger than the limit of 0 bytes"), "err: %s", err);

    path_in_tmp(p, sizeof p, "missing.bin");
    got = read_file(p, &n, 100, err, sizeof err);
    CHECK(!got && strstr(err, "missing.bin: cannot open: No such file or directory"), "err: %s", err);
    got = read_file(tmpdir, &n, 100, err, sizeof err);
    CHECK(!got && strstr(err, ": cannot read: Is a directory"), "err: %s", err);
}

static void test_write_errors_leave_nothing_behind(void) {
    char p[320], err[512];
    // Missing directory.
    path_in_tmp(p, sizeof p, "no/such/dir/f.bin");
    CHECK(write_file_atomic(p, "x", 1, err, sizeof err) == -1, "write into a missing directory succeeded");
    CHECK(strstr(err, "no/such/dir/f.bin: cannot create temporary file: No such file or directory"), "err: %s", err);
    // A parent that is a regular file.
    char file[256];
    path_in_tmp(file, sizeof file, "plain");
    CHECK(write_file_atomic(file, "x", 1, err, sizeof err) == 0, "%s", err);
    snprintf(p, sizeof p, "%s/child", file);
    CHECK(write_file_atomic(p, "x", 1, err, sizeof err) == -1 && strstr(err, "Not a directory"), "err: %s", err);
    // Target is a directory: rename fails, the temporary file is removed.
    path_in_tmp(p, sizeof p, "adir");
    CHECK(mkdir(p, 0777) == 0, "mkdir");
    CHECK(write_file_atomic(p, "x", 1, err, sizeof err) == -1, "rename over a directory succeeded");
    CHECK(strstr(err, "adir: rename failed: Is a directory"), "err: %s", err);
    CHECK(is_dir(p), "directory was replaced");
    CHECK(count_temporaries(tmpdir) == 0, "temporary files left behind");
    rmdir(p);
    CHECK(write_file_atomic("", "x", 1, err, sizeof err) == -1 && strstr(err, "empty path"), "err: %s", err);
}

static void test_make_dirs(void) {
    char p[256], q[256], err[512];
    path_in_tmp(p, sizeof p, "m/n//o/");
    CHECK(make_dirs(p, err, sizeof err) == 0, "%s", err);
    path_in_tmp(q, sizeof q, "m/n/o");
    CHECK(is_dir(q), "m/n/o not created");
    CHECK(make_dirs(p, err, sizeof err) == 0, "second call (already exists): %s", err);
    CHECK(make_dirs(q, err, sizeof err) == 0, "no trailing slash: %s", err);
    // A component that is a file.
    path_in_tmp(q, sizeof q, "m/file");
    CHECK(write_file_atomic(q, "x", 1, err, sizeof err) == 0, "%s", err);
    path_in_tmp(p, sizeof p, "m/file/sub");
    CHECK(make_dirs(p, err, sizeof err) == -1, "made a directory under a file");
    CHECK(strstr(err, "m/file/sub: cannot create directory") && strstr(err, "m/file': Not a directory"), "err: %s", err);
    CHECK(make_dirs(q, err, sizeof err) == -1 && strstr(err, "Not a directory"), "file as the target: %s", err);
    CHECK(make_dirs("", err, sizeof err) == -1, "empty path");
    CHECK(make_dirs("/", err, sizeof err) == 0, "/: %s", err);
    // Relative paths work from the current directory.
    char cwd[1024];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK(chdir(tmpdir) == 0, "chdir");
    CHECK(make_dirs("rel/a", err, sizeof err) == 0 && is_dir("rel/a"), "relative: %s", err);
    CHECK(chdir(cwd) == 0, "chdir back");
}

// The trainer removes leftovers by this test, so it must match every temporary name
// write_file_atomic makes (vocabularies and BPE merges too) and nothing else.
static void test_atomic_temp_names(void) {
    const char *temps[] = {"model.safetensors.tmp.123", "src_bpe.txt.tmp.4", "vocab.txt.tmp.99999", "x.tmp.0"};
    const char *others[] = {"model.safetensors", "vocab.txt.tmp", "a.tmp.", "a.tmp.12x", ".tmp.5", "notes.tmp.txt", "log.csv"};
    for (int i = 0; i < 4; i++) CHECK(is_atomic_temp(temps[i]), "%s not recognised", temps[i]);
    for (int i = 0; i < 7; i++) CHECK(!is_atomic_temp(others[i]), "%s taken for a temporary", others[i]);
}

// A writer killed mid-write leaves path.tmp.<its pid>; the next write of path removes it, and
// leaves alone a temporary of a live process, of another file, or one that only looks alike.
static void test_dead_writers_temps_removed(void) {
    char p[256], dead[300], live[300], other[300], odd[300], err[512];
    path_in_tmp(p, sizeof p, "eval.csv");
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);   // a pid that no longer runs (reaped)
    snprintf(dead, sizeof dead, "%s.tmp.%ld", p, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld", p, (long)getppid());
    path_in_tmp(other, sizeof other, "log.csv");
    snprintf(other + strlen(other), sizeof other - strlen(other), ".tmp.%ld", (long)child);
    snprintf(odd, sizeof odd, "%s.tmp.%ldx", p, (long)child);
    const char *all[] = {dead, live, other, odd};
    for (int i = 0; i < 4; i++) {
        FILE *f = fopen(all[i], "w");
        CHECK(f != NULL, "cannot create %s", all[i]);
        if (f) fclose(f);
    }
    CHECK(write_file_atomic(p, "x", 1, err, sizeof err) == 0, "%s", err);
    CHECK(access(dead, F_OK) != 0, "the dead writer's temporary %s is still there", dead);
    CHECK(access(live, F_OK) == 0, "a live process's temporary was removed");
    CHECK(access(other, F_OK) == 0, "another file's temporary was removed");
    CHECK(access(odd, F_OK) == 0, "a name that is not a temporary was removed");
    for (int i = 1; i < 4; i++) unlink(all[i]);
}

int main(void) {
    if (tmpdir_create("test_fileio")) return 1;
    RUN(test_write_then_read);
    RUN(test_read_limits_and_errors);
    RUN(test_write_errors_leave_nothing_behind);
    RUN(test_make_dirs);
    RUN(test_atomic_temp_names);
    RUN(test_dead_writers_temps_removed);
    tmpdir_remove();
    return check_summary();
}
