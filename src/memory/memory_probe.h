// What a pass takes in the step arena, found by running it: the probe builds the model as
// configured (every width, vocabulary and scheme as the run has them) and runs the real code
// (a training step, an evaluation batch, a cached decoding step) at a few tiny shapes, with
// the arena recording every allocation and release (core/arena.h ArenaTrace). The passes
// allocate in the same order at every shape; each allocation's size is a polynomial in the
// shape of degree at most 2 in the lengths and 1 in the rows (B·H·T² attention
// probabilities, H·T² score biases, B·T·d activations, per-thread rows of T keys, ...), so
// the sizes at the probe shapes fix it exactly, and replaying the record at the asked shape
// (releases included) gives the arena's peak there. Nothing here knows an op or a scheme:
// a new one is counted as soon as it allocates.
//
// The probe shapes: lengths u, 2u, 3u (u = 16, or less when a learned table without
// wrap-around or drawn positions cannot encode 3u) and b, 2b rows (b·u = 16), so every size
// is a whole number of the arena's 64-byte units and no rounding blurs the fit. Rounding up
// to 16 keys (attention's rows) and the matrix product's cap on a packed operand (4 MiB)
// are the estimate's only approximations; the cap makes it an over-estimate.
//
// The probe itself takes the model's weights and gradients (8 bytes a parameter, less than
// the parameter term the caller checks first) and a few MiB of arena; each kind of pass
// costs 6 (one length) or 12 tiny runs. It leaves the tape empty and restores the tensor
// arena, the tape's recording flag and nothing else: it draws from the probe model's own
// generators only, so a run's results do not depend on it.
#ifndef MEMORY_PROBE_H
#define MEMORY_PROBE_H
#include "models/model.h"

typedef enum {
    PROBE_TRAIN,    // forward and backward of one batch (B rows, S source, T target tokens)
    PROBE_EVAL,     // a forward pass without tape
    PROBE_DECODE,   // translator: decode_init on B sources of S tokens for T steps, the
                    // last step; lm: a cache of S positions, the last T of them fed at once
    PROBE_KINDS
} ProbeKind;

typedef struct ProbeFit {
    int ready, exact;   // exact: every shape allocated alike (else the peaks are fitted)
    long n;             // events
    double *coef;       // n x (1 + basis): a release's depth code, or 1 and an allocation's
                        // polynomial (of its bytes; of K for a packed A)
    long *pack;         // n x 2: a packed A's M and N, else 0
    double peak_coef[12];
} ProbeFit;

typedef struct MemoryProbe {
    Model m;
    int two_lengths;    // translator: S and T; the others have one length (T)
    int unit, rows;     // u and b above
    ProbeFit fit[PROBE_KINDS];
} MemoryProbe;

// Builds the model (weights allocated and initialised). 0, or -1 when a length of 3 cannot
// be encoded at all.
int    memory_probe_init(MemoryProbe *p, const Config *c, int src_vocab, int tgt_vocab,
                         int n_classes);
// Peak step-arena bytes of a pass of that kind at B rows, S and T tokens (S unused by a
// model with one length: the classifier's and the lm's length is T). The first call of a
// kind runs its probes.
double memory_probe_arena(MemoryProbe *p, ProbeKind kind, double B, double S, double T);
void   memory_probe_free(MemoryProbe *p);
#endif
