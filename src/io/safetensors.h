// Checkpoints in the safetensors format (F32 tensors only).
//
// Layout of a file:
//   8 bytes   N, the header length, unsigned 64-bit little-endian
//   N bytes   JSON object: each tensor name -> {"dtype":"F32","shape":[...],"data_offsets":[b,e]}
//             plus an optional "__metadata__": {string: string}; offsets are relative to the
//             data region. The writer pads the header with spaces to a multiple of 8 bytes.
//   the rest  the data region: raw little-endian float32, tensors packed in header order
//             with no holes, so tensor i occupies bytes [b_i, e_i) with e_i - b_i = 4 * numel.
// Files written here load with Python's `safetensors` and with plain json + struct/numpy.
//
// Byte order: the code assumes a little-endian host (x86-64, ARM64) and refuses to compile
// on a big-endian one rather than silently writing wrong files.
//
// The reader treats a file as untrusted: every field is validated, errors name the file and
// the tensor (`ckpt.safetensors: tensor 'x' has dtype F16; only F32 is supported`), and the
// data is copied into an aligned float buffer, never accessed through a cast file pointer.
#ifndef SAFETENSORS_H
#define SAFETENSORS_H
#include <stddef.h>

#define ST_MAX_DIMS 8
#define ST_MAX_HEADER ((size_t)100000000)  // 100 MB, as the reference implementation

typedef struct {
    const char *name;           // non-empty UTF-8, not "__metadata__", unique within the file
    int ndim;                   // 0..ST_MAX_DIMS (0 = scalar, one element)
    long long shape[ST_MAX_DIMS];
    const float *data;          // numel floats (may be NULL when numel is 0)
} StTensorIn;

// Writes tensors t[0..n) and the metadata pairs (UTF-8 strings) atomically to path (see
// write_file_atomic). Returns 0, or -1 with a message in err.
int st_save(const char *path, const StTensorIn *t, int n, const char *const *meta_keys,
            const char *const *meta_vals, int n_meta, char *err, int errlen);

typedef struct StFile StFile;

typedef struct {
    const char *name;
    int ndim;
    long long shape[ST_MAX_DIMS];
    long long numel;
    const float *data;          // numel floats, aligned, owned by the StFile
} StTensor;

// Reads and validates a whole file. NULL with a message in err on any problem.
StFile *st_load(const char *path, char *err, int errlen);
// Same, from bytes in memory (a fuzzer's entry point); name_for_errors prefixes messages.
StFile *st_parse(const void *bytes, size_t n, const char *name_for_errors, char *err, int errlen);

int st_count(const StFile *f);                             // tensors, in header order
const StTensor *st_get(const StFile *f, int i);            // NULL if out of range
const StTensor *st_find(const StFile *f, const char *name);  // NULL if absent
const char *st_meta(const StFile *f, const char *key);      // NULL if absent
int st_meta_count(const StFile *f);
const char *st_meta_key(const StFile *f, int i);
const char *st_meta_value(const StFile *f, int i);
void st_free(StFile *f);                                    // NULL is fine

#endif
