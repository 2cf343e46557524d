// Error messages for untrusted input: functions write a human sentence into a caller's
// buffer (`file:line: what is wrong`) and return -1; only tools print and exit.
#ifndef ERRORS_H
#define ERRORS_H

// printf into err (if err and errlen > 0); always returns -1, so `return errorf(...)` reads well.
int errorf(char *err, int errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
