#include "verdict/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void format_value(char *buf, int len, double x, int percent) {
    snprintf(buf, len, percent ? "%.1f" : "%.3f", percent ? 100 * x : x);
}

void format_signed(char *buf, int len, double x, int percent) {
    char mag[64];
    format_value(mag, sizeof mag, fabs(x), percent);
    int zero = strspn(mag, "0.") == strlen(mag);
    snprintf(buf, len, "%s%s", zero ? "" : (x > 0 ? "+" : "-"), mag);
}
