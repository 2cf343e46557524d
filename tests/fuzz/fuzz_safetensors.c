// libFuzzer target for the safetensors reader: any bytes must give a valid StFile or an
// error message, never a crash, leak or undefined behaviour. Build and run (not in make):
//
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_safetensors.c \
//       src/io/safetensors.c src/io/json.c src/io/fileio.c -o /tmp/fz -lm
//   /tmp/fz -max_total_time=60 tests/fuzz/corpus_safetensors
//
// Running it with a scratch directory first keeps new inputs out of the seed corpus:
//   mkdir -p /tmp/fzc && /tmp/fz -max_total_time=60 /tmp/fzc tests/fuzz/corpus_safetensors
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    StFile *f = st_parse(data, size, "fuzz", err, sizeof err);
    if (f) {
        // Touch everything a caller would: names, metadata and every value.
        volatile float sink = 0;
        for (int i = 0; i < st_count(f); i++) {
            const StTensor *t = st_get(f, i);
            if (st_find(f, t->name) == NULL) abort();
            for (long long j = 0; j < t->numel; j++) sink += t->data[j];
        }
        for (int i = 0; i < st_meta_count(f); i++)
            if (st_meta(f, st_meta_key(f, i)) == NULL) abort();
        (void)sink;
    } else if (err[0] == '\0') {
        abort();  // every failure must say why
    }
    st_free(f);
    return 0;
}
