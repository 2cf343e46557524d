// Stopping a training on request: SIGTERM (Slurm at the time limit, a preemption, `kill`) and
// SIGINT (Ctrl-C). The first signal only records itself, so the trainer can finish the step in
// hand and save a checkpoint before exiting; a second one ends the process at once, for a user
// who does not want to wait for that step.
#ifndef STOP_H
#define STOP_H

// Install the handlers for SIGTERM and SIGINT. Call once in main(), before training.
void stop_signals_install(void);

// The number of the first signal received, or 0 if none.
int stop_signal_received(void);
#endif
