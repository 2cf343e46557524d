# ./generate on tiny trained language models: the text follows the seed (the same seed and
# thread count give the same bytes, another seed another text), runs past the training window,
# --score prints one row per position (from --prompt, standard input or the task's held-out
# text); bad input gets one line on stderr, nothing on stdout and a non-zero exit. The math
# (greedy = argmax of the full forward, scores = its cross-entropies) is tests/test_generate.c.
. tests/lib.sh
GEN=$BIN_DIR/generate

# lm_config FILE POS [KEY = VALUE lines...]: a language model that trains in a fraction of a second.
lm_config() {
    f=$1; pos=$2; shift 2
    printf '[run]\nout_dir = %s\nseed = 3\nthreads = 1\n[task]\ntask = lm\nwindow = 16\ntrain_size = 300\n' "$RUNS" >"$f"
    printf '[model]\nmodel = lm\nd_model = 16\nn_heads = 2\nd_ff = 32\ndec_layers = 1\npos = %s\n' "$pos" >>"$f"
    for kv in "$@"; do echo "$kv" >>"$f"; done
    printf '[train]\nsteps = 30\nbatch_size = 8\nlog_every = 10\neval_every = 30\nckpt_every = 30\n' >>"$f"
}
lm_config "$TMP/lm_rope.ini" rope
lm_config "$TMP/lm_fixed.ini" learned "max_len = 16" "pos_wrap = false"
tiny_config "$TMP/mt.ini"
for c in lm_rope lm_fixed mt; do
    "$TRAIN" "$TMP/$c.ini" >"$TMP/train_$c.log" 2>&1 || { fail "train_$c" "$(tail -2 "$TMP/train_$c.log")"; exit 0; }
done
LM=$RUNS/lm_rope

# one_error NAME PATTERN CMD...: exit non-zero, one line on stderr matching PATTERN, no stdout.
# The memory report that every tool prints once it has opened a run ("memory: about ...",
# run/run_dir.h) is not an error line and is left out.
one_error() {
    name=$1; pat=$2; shift 2
    if "$@" >"$TMP/out" 2>"$TMP/err_all"; then fail "$name" "exited 0"; return; fi
    grep -v '^memory: about ' "$TMP/err_all" >"$TMP/err"
    if false; then :
    elif [ "$(wc -l <"$TMP/err")" -ne 1 ]; then fail "$name" "$(wc -l <"$TMP/err") lines on stderr: $(head -c 300 "$TMP/err")"
    elif ! grep -Eq -- "$pat" "$TMP/err"; then fail "$name" "stderr did not match '$pat': $(head -c 300 "$TMP/err")"
    elif [ -s "$TMP/out" ]; then fail "$name" "printed to stdout: $(head -c 200 "$TMP/out")"
    else ok "$name"; fi
}

# ---------------------------------------------------------------- sampling
"$GEN" "$LM" --prompt "the dog" --tokens 60 --seed 7 >"$TMP/a" 2>"$TMP/a.err" &&
"$GEN" "$LM" --prompt "the dog" --tokens 60 --seed 7 >"$TMP/b" 2>"$TMP/b.err" &&
"$GEN" "$LM" --prompt "the dog" --tokens 60 --seed 8 >"$TMP/c" 2>"$TMP/c.err" &&
"$GEN" "$LM" --prompt "the dog" --tokens 60 --seed 7 threads=2 >"$TMP/d" 2>"$TMP/d.err" &&
"$GEN" "$LM" --prompt "the dog" --tokens 60 --seed 7 threads=2 >"$TMP/e" 2>"$TMP/e.err"
if [ $? -ne 0 ]; then fail generate_runs "$(cat "$TMP/a.err")"
elif ! cmp -s "$TMP/a" "$TMP/b"; then fail generate_same_seed "two runs with seed 7 differ"
elif cmp -s "$TMP/a" "$TMP/c"; then fail generate_other_seed "seeds 7 and 8 gave the same text"
elif ! cmp -s "$TMP/d" "$TMP/e"; then fail generate_same_seed_threads "two runs with seed 7 and 2 threads differ"
elif [ "$(wc -l <"$TMP/a")" -ne 1 ] || grep -qv "^memory: about " "$TMP/a.err"; then fail generate_output "not one line of text: $(head -c 200 "$TMP/a")"
elif [ "$(wc -w <"$TMP/a")" -lt 50 ]; then fail generate_output "fewer than 50 words for 2 + 60 tokens: $(cat "$TMP/a")"
else ok generate_seeded; fi
# 100 tokens at temperature 0 (six training windows), twice the same.
"$GEN" "$LM" --tokens 100 --temperature 0 >"$TMP/g1" 2>"$TMP/g.err" && "$GEN" "$LM" --tokens 100 --temperature 0 --seed 9 >"$TMP/g2" 2>>"$TMP/g.err" &&
    cmp -s "$TMP/g1" "$TMP/g2" && grep -q '^the ' "$TMP/g1" && ok generate_greedy_ignores_seed ||
    fail generate_greedy_ignores_seed "$(head -c 300 "$TMP/g1")"

# ---------------------------------------------------------------- --score
"$GEN" "$LM" --score --text-from-task 200 --offset 17 >"$TMP/s" 2>"$TMP/s.err"
rows=$(awk -F, 'NR > 1 && $1 == NR - 2 && $3 + 0 > 0 { n++ } END { print n + 0 }' "$TMP/s")
if [ "$(head -1 "$TMP/s")" = "position,token,loss" ] && [ "$rows" -eq 199 ] && [ "$(wc -l <"$TMP/s")" -eq 200 ]; then ok score_task_text
else fail score_task_text "expected 199 rows position 0..198 with a positive loss, got $rows: $(head -c 300 "$TMP/s.err")"; fi
"$GEN" "$LM" --score --prompt "The dog bites the man. And the cat sees the bird." >"$TMP/p" 2>"$TMP/p.err"
printf 'the dog bites the man .\nand the cat sees the bird .\n' | "$GEN" "$LM" --score >"$TMP/q" 2>"$TMP/q.err"
if cmp -s "$TMP/p" "$TMP/q" && [ "$(wc -l <"$TMP/p")" -eq 13 ] && grep -q '^4,\.,' "$TMP/p"; then ok score_prompt_and_stdin
else fail score_prompt_and_stdin "$(head -c 300 "$TMP/p") / $(head -c 300 "$TMP/q")"; fi
# rope_scale applies: other losses.
"$GEN" "$LM" --score --text-from-task 200 --offset 17 rope_scale=4 >"$TMP/s4" 2>"$TMP/s4.err"
[ "$(wc -l <"$TMP/s4")" -eq 200 ] && ! cmp -s "$TMP/s" "$TMP/s4" && ok score_rope_scale_applies ||
    fail score_rope_scale_applies "rope_scale=4 left the scores as they were: $(head -c 200 "$TMP/s4")"

# ---------------------------------------------------------------- bad input
one_error err_unknown_token "^error: unknown token 'zebrax' in the text" "$GEN" "$LM" --prompt "the zebrax"
one_error err_tokens_zero "^generate: --tokens must be in 1\.\." "$GEN" "$LM" --tokens 0
one_error err_tokens_text "^generate: --tokens: 'many' is not an integer$" "$GEN" "$LM" --tokens many
one_error err_bad_option "^generate: unknown option '--bogus'" "$GEN" "$LM" --bogus 3
one_error err_missing_value "^generate: --seed needs a value$" "$GEN" "$LM" --seed
one_error err_negative_temperature "^generate: --temperature must be in 0\.\." "$GEN" "$LM" --temperature -1
one_error err_not_lm "^error: .* is a translator \(model = translator\); \./generate needs a language model" "$GEN" "$RUNS/mt"
one_error err_empty_prompt "^error: the text is empty$" "$GEN" "$LM" --prompt "  "
one_error err_score_one_token "^error: a text to score needs at least two tokens$" "$GEN" "$LM" --score --prompt "the"
one_error err_task_text_too_long "^error: --text-from-task: the held-out text has [0-9]+ tokens" "$GEN" "$LM" --score --text-from-task 999999
one_error err_task_text_without_score "^generate: --text-from-task goes with --score$" "$GEN" "$LM" --text-from-task 10
one_error err_bad_override "unknown key 'rope_scal'" "$GEN" "$LM" rope_scal=2
# A learned table of 16 rows without wrap-around: 2 + 15 tokens = 16 positions fit, one more does not.
"$GEN" "$RUNS/lm_fixed" --prompt "the dog" --tokens 15 >"$TMP/out" 2>&1 && ok learned_fits_its_table ||
    fail learned_fits_its_table "$(head -c 300 "$TMP/out")"
one_error err_learned_too_long "longer than the learned table" "$GEN" "$RUNS/lm_fixed" --prompt "the dog" --tokens 16
one_error err_learned_score_too_long "longer than the learned table" "$GEN" "$RUNS/lm_fixed" --score --text-from-task 18
# The key/value cache is allocated whole, so it is checked before the first token. For d_model
# 16, 1 layer, 1 + 1048575 positions the keys and values alone are 2*1*1048576*16 floats (128
# MiB); the last token's pass against every position adds attention's per-thread rows of keys
# (tests/test_memory_estimate.c checks that part against the arena).
one_error err_cache_too_big \
    "^error: a key/value cache of 1048576 positions needs about [0-9]+ MiB \(activations (1[3-9][0-9]|[2-9][0-9][0-9]) MiB, .*\); run.max_memory = 100M allows 100 MiB\. Ask for fewer --tokens" \
    "$GEN" "$LM" --tokens 1048576 run.max_memory=100M
