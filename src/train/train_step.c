#include "train/train_step.h"
#include <math.h>
#include "core/tape.h"
#include "models/loss.h"

int train_step(Model *m, const Batch *b, AdamW *opt, StepArgs args, StepResult *out) {
    arena_reset(tensor_arena());
    tape_reset();
    params_zero_grad(&m->ps);
    model_seed_positions(m, (uint64_t)args.step);   // randomized positions: this step's draw
    if (args.micro && args.micro->k > 1) {
        out->loss = micro_batches_backward(args.micro, m, b, args.label_smoothing, &out->correct);
    } else {
        Tensor *loss = batch_loss(m, b, args.label_smoothing, NULL, &out->correct);
        tape_backward(loss);
        out->loss = loss->data[0];
    }
    out->grad_norm = grad_norm(&m->ps);   // clipped inside the update below
    if (!isfinite(out->loss) || !isfinite(out->grad_norm)) return -1;
    adamw_step_scaled(opt, &m->ps, args.lr, clip_scale(out->grad_norm, args.clip));
    return 0;
}
