// compute.csv in a run folder: what each ./train invocation of the run cost, one row each,
// appended when it ends (reached its stop, or stopped by a signal):
//   first_step,last_step,stop,tokens,cpu_seconds,wall_seconds
// first_step..last_step the steps it trained; stop = converged | patience | ceiling | signal;
// tokens the tokens it trained on (source and target); cpu_seconds the process's user + system
// time over all its threads, setup and evaluations included. A run resumed after a crash
// repeats the steps since its checkpoint, and both invocations' rows count them: the sum of a
// column is what the run cost. Timing lives here and not in log.csv, which stays the same
// byte for byte for the same seed (train/train_log.h).
#ifndef TRAIN_COMPUTE_H
#define TRAIN_COMPUTE_H

#define TRAIN_COMPUTE_HEADER "first_step,last_step,stop,tokens,cpu_seconds,wall_seconds\n"

// User + system CPU seconds this process has used so far.
double process_cpu_seconds(void);
// Appends a row to DIR/compute.csv, writing the header first if the file is new. 0, or -1
// with a message.
int train_compute_append(const char *dir, long first_step, long last_step, const char *stop,
                         double tokens, double cpu_seconds, double wall_seconds, char *err,
                         int errlen);
#endif
