#include "run/stop.h"
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

// Async-signal-safe: one store, or for a second signal the default action (death by signal).
static void on_signal(int signo) {
    if (received) {
        signal(signo, SIG_DFL);
        raise(signo);
        return;
    }
    received = signo;
}

void stop_signals_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    // a write interrupted by the signal carries on: the checkpoint stays whole
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

int stop_signal_received(void) { return received; }
