# What a training step's time is spent on, shared by scripts/profile_step.sh (callgrind) and
# scripts/profile_perf.sh (perf), which put this text in front of their awk programs; a library,
# not a command. POSIX awk (mawk, gawk).
# step_category(fn, obj): the category of function fn (object obj) in a profile of the step.
function step_category(fn, obj) {
    if (obj ~ /libgomp/ || fn ~ /^GOMP_|^omp_/) return "OpenMP runtime (fork/join and waiting)"
    if (fn ~ /^__mem(set|move|cpy)|^mem(set|move|cpy)/) return "memset/memcpy"
    if (fn ~ /gemm|micro_|pack_[ab]|pack_unit|tile_body|column_sums/) return "matrix products"
    if (fn ~ /attention|row_times_rows|add_outer_rows|weighted_rows|transpose_head|rope|attn_/ ||
        fn ~ /^(forward|backward)_head/) return "attention (with RoPE)"
    if (fn ~ /cross_entropy|softmax/) return "loss (softmax and cross-entropy)"
    if (fn ~ /adamw|grad_norm|kernel_zero|clip/) return "optimizer (AdamW and gradient norm)"
    if (fn ~ /^tape_|arena_|tensor_|grad_zeroed|grad_accumulates|shape_size|node/)
        return "tape and arena"
    if (fn ~ /layernorm|dx_row|rmsnorm|relu|gelu|swiglu|dropout|add|scale|embedding|hash|rng/)
        return "elementwise and norms"
    return "other"
}
