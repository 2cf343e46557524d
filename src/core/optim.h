// AdamW, global-norm gradient clipping and learning-rate schedules.
#ifndef OPTIM_H
#define OPTIM_H
#include "core/params.h"

typedef struct AdamW {
    float beta1, beta2, eps, weight_decay;
    long step;            // completed updates (for bias correction)
    float *m, *v;         // first and second moments, one float per parameter element
    long n;
} AdamW;

void adamw_init(AdamW *o, const Params *ps, float beta1, float beta2, float eps,
                float weight_decay);
// One update with learning rate lr: decoupled weight decay on params with decay set,
// bias-corrected moments (as torch.optim.AdamW).
void adamw_step(AdamW *o, Params *ps, float lr);
// The same with every gradient multiplied by grad_scale as it is read (the gradients stay
// unscaled): clipping folded into the update, one sweep over the gradients instead of two.
// adamw_step_scaled(o, ps, lr, clip_scale(grad_norm(ps), max)) updates the parameters bit
// for bit as clip_grad_norm(ps, max) followed by adamw_step(o, ps, lr).
void adamw_step_scaled(AdamW *o, Params *ps, float lr, float grad_scale);
void adamw_free(AdamW *o);

// L2 norm of all gradients; if max_norm > 0 and the norm exceeds it, scale them down to it.
// Returns the norm before clipping. Summed in fixed chunks: independent of thread count.
float clip_grad_norm(Params *ps, float max_norm);
// Its two halves: the norm (same fixed chunks), and the factor it scales by (1 if no clipping).
float grad_norm(const Params *ps);
float clip_scale(float norm, float max_norm);

typedef enum { SCHED_CONSTANT, SCHED_COSINE, SCHED_NOAM } Schedule;
// Learning rate for update number `step` (0-based) of `total`:
//   constant: linear warmup to lr, then lr;
//   cosine:   linear warmup, then cosine decay from lr to lr * min_ratio at `total`;
//   noam:     lr * min(s^-0.5, s * warmup^-1.5) * sqrt(warmup), s = step + 1 (peak lr at warmup).
float lr_at(Schedule s, long step, long total, float lr, long warmup, float min_ratio);
#endif
