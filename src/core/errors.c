#include "core/errors.h"
#include <stdarg.h>
#include <stdio.h>

int errorf(char *err, int errlen, const char *fmt, ...) {
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, (size_t)errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
