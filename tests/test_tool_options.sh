# Options whose effect users see, on tiny toy_translate runs (d_model 16, 400 steps and 1 step):
#   - ./translate takes its beam and length penalty from the run's eval.beam and
#     eval.length_penalty (here 4 and 10) unless --beam and --alpha are given, and --alpha 0
#     is a penalty of 0, not "unset": it translates as --alpha 1e-6 does and unlike the
#     run's 10 (a penalty of 10 favours long outputs);
#   - ./generate --top-k 0 samples from every token: the text of the default (top-k 0), not
#     refused, and not greedy's (--top-k 1);
#   - ./eval writes an exact match of 0 as 0, not as an empty cell (a run of one step gets
#     no validation sentence right);
#   - ./train records model.attn_train_length (the longest training sequence) unless the
#     config gives it: a given 7 stays 7. (tests/test_run_accounting.c computes the derived
#     value for every task form.)
. tests/lib.sh
tiny_config "$TMP/tiny.ini" steps=400 eval_every=400 ckpt_every=400 log_every=100
printf '[eval]\nbeam = 4\nlength_penalty = 10\n' >>"$TMP/tiny.ini"
if ! "$TRAIN" "$TMP/tiny.ini" >"$TMP/train.log" 2>&1 ||
   ! "$TRAIN" "$TMP/tiny.ini" run.name=given model.attn_train_length=7 train.steps=1 >"$TMP/given.log" 2>&1; then
    fail tool_options_train "$(tail -3 "$TMP/train.log" "$TMP/given.log")"; exit 0
fi
RUN=$RUNS/tiny

# ---------------------------------------------------------------- ./translate --beam, --alpha
cat >"$TMP/lines.de" <<'EOT'
der hund sieht den mann .
die katze beißt die maus .
der mann sieht die frau , und die frau sieht den hund .
der vogel sieht die schlange .
die kuh sieht den fisch , weil der fisch die ente sieht .
der könig sieht die königin .
der junge sieht den löwen .
die ziege beißt den wolf , und der tiger sieht den bären .
EOT
translate() { out=$1; shift; "$BIN_DIR/translate" "$RUN" "$@" <"$TMP/lines.de" >"$TMP/$out" 2>"$TMP/$out.err" ||
    fail "translate_$out" "$(head -c 300 "$TMP/$out.err")"; }
translate default
translate beam4_alpha10 --beam 4 --alpha 10
translate beam1_alpha10 --beam 1 --alpha 10
translate beam4_alpha0 --beam 4 --alpha 0
translate beam4_alpha_tiny --beam 4 --alpha 0.000001
if ! cmp -s "$TMP/default" "$TMP/beam4_alpha10"; then
    fail translate_defaults_from_config "without --beam and --alpha: $(head -2 "$TMP/default"); with --beam 4 --alpha 10: $(head -2 "$TMP/beam4_alpha10")"
elif cmp -s "$TMP/beam4_alpha10" "$TMP/beam1_alpha10"; then
    fail translate_defaults_from_config "beam 4 and beam 1 give the same lines: the check shows nothing about eval.beam"
else ok translate_defaults_from_config; fi
if cmp -s "$TMP/beam4_alpha0" "$TMP/beam4_alpha10"; then
    fail translate_alpha_zero "--alpha 0 translates as the run's length_penalty 10: $(head -2 "$TMP/beam4_alpha0")"
elif ! cmp -s "$TMP/beam4_alpha0" "$TMP/beam4_alpha_tiny"; then
    fail translate_alpha_zero "--alpha 0 and --alpha 1e-6 differ: $(diff "$TMP/beam4_alpha0" "$TMP/beam4_alpha_tiny" | head -4)"
else ok translate_alpha_zero; fi

# ---------------------------------------------------------------- ./generate --top-k 0
printf '[run]\nout_dir = %s\nseed = 3\nthreads = 1\n[task]\ntask = lm\nwindow = 16\ntrain_size = 300\n' "$RUNS" >"$TMP/lm.ini"
printf '[model]\nmodel = lm\nd_model = 16\nn_heads = 2\nd_ff = 32\ndec_layers = 1\npos = rope\n' >>"$TMP/lm.ini"
printf '[train]\nsteps = 30\nbatch_size = 8\nlog_every = 10\neval_every = 30\nckpt_every = 30\n' >>"$TMP/lm.ini"
if "$TRAIN" "$TMP/lm.ini" >"$TMP/lm.log" 2>&1 &&
   "$BIN_DIR/generate" "$RUNS/lm" --tokens 30 --seed 5 >"$TMP/g_default" 2>"$TMP/g.err" &&
   "$BIN_DIR/generate" "$RUNS/lm" --tokens 30 --seed 5 --top-k 0 >"$TMP/g_all" 2>>"$TMP/g.err" &&
   "$BIN_DIR/generate" "$RUNS/lm" --tokens 30 --seed 5 --top-k 1 >"$TMP/g_one" 2>>"$TMP/g.err"; then
    if cmp -s "$TMP/g_default" "$TMP/g_all" && ! cmp -s "$TMP/g_all" "$TMP/g_one"; then ok generate_top_k_zero
    else fail generate_top_k_zero "default: $(cat "$TMP/g_default"); --top-k 0: $(cat "$TMP/g_all"); --top-k 1: $(cat "$TMP/g_one")"; fi
else fail generate_top_k_zero "$(tail -2 "$TMP/lm.log") $(grep -v '^memory' "$TMP/g.err" | head -c 300)"; fi

# ---------------------------------------------------------------- ./eval: a 0 is written
if "$EVAL" "$RUNS/given" splits=val >"$TMP/eval_given" 2>"$TMP/eval.err"; then
    em=$(field "$TMP/eval_given" val,0 6)
    if [ "$em" = 0 ]; then ok eval_writes_zero_exact_match
    else fail eval_writes_zero_exact_match "exact_match cell '$em' of a one-step run: $(cat "$TMP/eval_given")"; fi
else fail eval_writes_zero_exact_match "$(head -c 300 "$TMP/eval.err")"; fi

# ---------------------------------------------------------------- ./train model.attn_train_length
derived=$(sed -n 's/^attn_train_length = //p' "$RUN/config.ini")
given=$(sed -n 's/^attn_train_length = //p' "$RUNS/given/config.ini")
if [ "$given" = 7 ] && [ -n "$derived" ] && [ "$derived" -gt 7 ]; then ok train_keeps_attn_train_length
else fail train_keeps_attn_train_length "config.ini: '$given' where 7 was given ('$derived' derived)"; fi
