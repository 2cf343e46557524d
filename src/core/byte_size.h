// Sizes in bytes as people write them: "8G", "512M", "1.5G", "100K", "4096" (binary units,
// K = 1024), and back again for messages ("310 GiB", "3.2 MiB"). Used by the memory settings
// (run.max_memory, task.max_file_size) and by the memory estimate's messages.
#ifndef BYTE_SIZE_H
#define BYTE_SIZE_H
#include <stddef.h>

// 0 and *bytes set, or -1 when text is not a size (empty, negative, unknown suffix, trailing
// text, beyond 2^62 bytes). A suffix may be K, M, G or T, with an optional "iB" or "B".
int  byte_size_parse(const char *text, double *bytes);
// "0 B", "812 KiB", "3.25 MiB", "1.50 GiB", "310 GiB": three significant digits.
void byte_size_format(double bytes, char *out, size_t n);
#endif
