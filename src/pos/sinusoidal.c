// Sinusoidal positions (Vaswani et al., 2017), added to the input:
// P[pos, 2i] = sin(pos w_i), P[pos, 2i+1] = cos(pos w_i), w_i = exp(-2i ln(10000) / d).
// No parameters; defined for any position.
#include <math.h>
#include "core/errors.h"
#include "core/ops.h"
#include "pos/pos.h"

void sinusoidal_row(double pos, int d, float *out) {
    for (int i = 0; 2 * i < d; i++) {
        double w = exp(-2.0 * i * log(10000.0) / d);
        out[2 * i] = (float)sin(pos * w);
        if (2 * i + 1 < d) out[2 * i + 1] = (float)cos(pos * w);
    }
}

static Tensor *sinusoidal_add(const Positional *p, Tensor *x, PosSpan rows) {   // x (B,T,d)
    int T = rows.len, d = x->shape[2];
    Tensor *table = tensor_new2(T, d, 0);                         // (T,d), a constant
    for (int t = 0; t < T; t++) sinusoidal_row(pos_at(rows, t), d, table->data + (long)t * d);
    return op_add(x, table);                                      // broadcast over the batch
}

static int sinusoidal_check_config(const Config *c, const char **key, char *msg, int n) {
    if (c->d_model % 2 == 0) return 0;   // sin/cos pairs
    *key = "d_model";
    return errorf(msg, n, "pos = sinusoidal needs an even d_model, got %d", c->d_model);
}

const PosScheme pos_sinusoidal = {
    .name = "sinusoidal", .add_to_input = sinusoidal_add, .check_config = sinusoidal_check_config,
};
