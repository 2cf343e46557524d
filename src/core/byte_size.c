// Byte sizes as text, see byte_size.h.
#include "core/byte_size.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int byte_size_parse(const char *text, double *bytes) {
    char *end;
    while (isspace((unsigned char)*text)) text++;
    if (!isdigit((unsigned char)*text) && *text != '.') return -1;   // no sign, no "inf"
    double v = strtod(text, &end);
    if (end == text || !isfinite(v)) return -1;
    static const char units[] = "KMGT";
    double scale = 1;
    if (*end) {
        int k = 0;
        while (units[k] && toupper((unsigned char)*end) != units[k]) k++;
        if (!units[k] && toupper((unsigned char)*end) != 'B') return -1;
        if (units[k]) {
            scale = ldexp(1, 10 * (k + 1));
            end++;
            if (!strcasecmp(end, "iB") || !strcasecmp(end, "B")) end += strlen(end);
        } else {
            end++;   // a bare "B"
        }
    }
    if (*end || v * scale > ldexp(1, 62)) return -1;
    *bytes = v * scale;
    return 0;
}

void byte_size_format(double bytes, char *out, size_t n) {
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (bytes >= 1024 && k < 6) bytes /= 1024, k++;
    if (k == 0 || bytes >= 100) snprintf(out, n, "%.0f %s", bytes, names[k]);
    else if (bytes >= 10) snprintf(out, n, "%.1f %s", bytes, names[k]);
    else snprintf(out, n, "%.2f %s", bytes, names[k]);
}
