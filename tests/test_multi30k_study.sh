#!/bin/sh
# scripts/multi30k_study.sh --quick on a slice of Multi30k (../shared/data/multi30k; 400
# training pairs, 40 test sentences): the headline pair with two seeds and a longer budget, the
# decoder-only models against cross-attention, the beam table and the attention maps. The
# parameter counts read from the checkpoints equal the trainer's, and the quick sizes agree
# within 5%; a second call reuses every run; bad options are refused; the plateau part and the
# learning rate sweep (scripts/multi30k_lr.sh) below.
. tests/lib.sh
M30K=../shared/data/multi30k
expect_error study_unknown_part "unknown part 'depht'" scripts/multi30k_study.sh --quick --parts depht
expect_error lr_sweep_bad_rate "--lrs: 'fast' is not a positive number" scripts/multi30k_lr.sh --quick --lrs "1e-3 fast"
if scripts/multi30k_study.sh --help | grep -q -- "--parts LIST"; then ok study_help; else fail study_help "no --parts in --help"; fi
if [ ! -f "$M30K/train.de" ]; then
    for name in study_quick study_params_from_checkpoint study_train_loss_from_log study_same_budget study_headline_interval study_longer_budget study_cross_attention_rows study_beam_table \
            study_attention_side_by_side study_reuses_runs chrf_matches_sacrebleu study_plateau \
            study_plateau_steps_at_stop lr_sweep_chooses_on_val_bleu lr_sweep_reuses_runs \
            study_lr_from_sweep study_lr_from_no_choice; do
        skip $name "no Multi30k at $M30K (scripts/get_data.sh fetches it)"
    done
    exit 0
fi
mkdir -p "$TMP/d"
for l in de en; do
    head -n 400 "$M30K/train.$l" >"$TMP/d/train.$l"
    head -n 60 "$M30K/val.$l" >"$TMP/d/val.$l"
    head -n 40 "$M30K/test_2016_flickr.$l" >"$TMP/d/test_2016_flickr.$l"
done
OUT=$TMP/study
if scripts/multi30k_study.sh --quick --seeds 2 --parts "headline budget cross beam attention" --data "$TMP/d" \
        --out "$OUT" >"$TMP/study.out" 2>&1; then
    rows=$(awk -F, 'NR > 1 && $1 == "headline" && NF == 16 && $13 >= 0 && $13 <= 100 && $14 > 0 && $14 <= 100' "$OUT/runs.csv" | wc -l)
    if [ "$rows" = 4 ] && grep -q '^| Transformer | tf_s2 | 28 | 1 | sinusoidal |' "$OUT/results.md"; then ok study_quick
    else fail study_quick "$rows well-formed headline rows of 4: $(cat "$OUT/runs.csv")"; fi
    # parameters: the trainer's count (runs.csv) = the checkpoint's tensor shapes summed from its
    # safetensors header, the optimizer's moments left out
    bad=""
    for run in lstm_s1 tf_s1 lstm_s2; do
        f=$OUT/runs/$run/model.safetensors; len=$(od -An -t u8 -N 8 "$f" | tr -d ' ')
        want=$(head -c $((8 + len)) "$f" | tail -c "$len" |
            grep -o '"[^"]*":{"dtype":"[A-Z0-9]*","shape":\[[0-9,]*\]' | grep -v '^"optimizer\.' |
            sed 's/.*"shape":\[//; s/\]$//' | awk -F, '{ p = 1; for (i = 1; i <= NF; i++) p *= $i; s += p } END { printf "%d", s }')
        got=$(awk -F, -v r="$run" '$1 == "headline" && $3 == r { print $10 }' "$OUT/runs.csv")
        [ -n "$want" ] && [ "$got" = "$want" ] || bad="$bad $run: $got (checkpoint: $want)"
    done
    if [ -z "$bad" ]; then ok study_params_from_checkpoint; else fail study_params_from_checkpoint "$bad"; fi
    # the training loss of the second and the last quarter of the 30 steps: the means of the
    # log's own rows (steps 8-15 and 23-30)
    want=$(awk -F, '$2 == "train" && $1 > 7.5 && $1 <= 15 { a += $4; na++ } $2 == "train" && $1 > 22.5 { b += $4; nb++ }
        END { printf "%.4f,%.4f", a / na, b / nb }' "$OUT/runs/tf_s2/log.csv")
    got=$(awk -F, '$1 == "headline" && $3 == "tf_s2" { print $15 "," $16 }' "$OUT/runs.csv")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then ok study_train_loss_from_log
    else fail study_train_loss_from_log "runs.csv '$got', log.csv '$want'"; fi
    # 54019 (LSTM) and 54823 (Transformer) parameters on these 400 pairs: 1.0149
    if grep -q "^Transformer / LSTM parameters: 1.0149 (within 5%)" "$OUT/results.md"; then ok study_same_budget
    else fail study_same_budget "$(grep 'LSTM parameters' "$OUT/results.md")"; fi
    # the longer budget: the seed-1 pair again with 3 x 30 steps, each row with its own steps
    budget=$(awk -F, 'NR > 1 && $1 == "budget" && NF == 16 { printf "%s:%s ", $3, $9 }' "$OUT/runs.csv")
    if [ "$budget" = "lstm_s1:30 lstm_long:90 tf_s1:30 tf_long:90 " ] && tail -n 1 "$OUT/runs/tf_long/log.csv" | grep -q '^90,' &&
       grep -q '^| Transformer (90 steps) | tf_long | 28 | 1 | sinusoidal |' "$OUT/results.md"
    then ok study_longer_budget
    else fail study_longer_budget "rows '$budget': $(tail -n 1 "$OUT/runs/tf_long/log.csv")"; fi
    # what cross-attention adds: the seed-1 Transformer and the two decoder-only models, scored
    cross=$(awk -F, 'NR > 1 && $1 == "cross" && NF == 16 && $13 >= 0 && $13 <= 100 && $14 > 0 { print $3 ":" $5 }' "$OUT/runs.csv" | tr '\n' ' ')
    if [ "$cross" = "tf_s1:translator prefix_same:lm prefix_deep:lm " ] &&
       grep -q '^| decoder-only (same width and depth) | prefix_deep | 28 | 2 | sinusoidal |' "$OUT/results.md" &&
       grep -q '^Decoder-only (same parameters) / Transformer parameters: [0-9.]*\.$' "$OUT/results.md"
    then ok study_cross_attention_rows
    else fail study_cross_attention_rows "rows '$cross': $(grep -A8 'cross-attention adds' "$OUT/results.md")"; fi
    # the headline difference with its interval: verdicts.sh --welch on the two seeds' BLEU
    want=$(scripts/verdicts.sh --welch "$(awk -F, '$1 == "headline" && $2 == "Transformer" { printf "%s ", $13 }' "$OUT/runs.csv")" \
        "$(awk -F, '$1 == "headline" && $2 == "LSTM" { printf "%s ", $13 }' "$OUT/runs.csv")" | awk '{ printf "%+.2f [%+.2f, %+.2f]", $1, $2, $3 }')
    if grep -qF "Transformer − LSTM, BLEU: $want (95% interval, Welch, 2 seeds each)." "$OUT/results.md"; then ok study_headline_interval
    else fail study_headline_interval "want '$want': $(grep 'Transformer − LSTM' "$OUT/results.md")"; fi
    beam_rows=$(awk -F, 'NR > 1 && NF == 5 && $4 != "" && $5 != ""' "$OUT/beam.csv" | wc -l)
    if [ "$beam_rows" = 16 ] && grep -q '^| LSTM | 1 |' "$OUT/results.md"; then ok study_beam_table
    else fail study_beam_table "$beam_rows rows of 16: $(cat "$OUT/beam.csv")"; fi
    if grep -q "<rect" "$OUT/attention/lstm/line2_decoder_cross_layer1.svg" 2>/dev/null &&
       grep -q "<rect" "$OUT/attention/tf/line2_decoder_cross_layer1.svg" 2>/dev/null &&
       grep -q '^| !\[LSTM\](attention/lstm/line1_decoder_cross_layer1.svg) | !\[Transformer\]' "$OUT/results.md"
    then ok study_attention_side_by_side
    else fail study_attention_side_by_side "$(ls -R "$OUT/attention" | head -c 300)"; fi
    # chrF2 of ./translate against sacreBLEU's own, when python3 has it
    hyp=$OUT/runs/tf_s1/test_b4_a1.hyp
    c_chrf=$(sed -n 's/^chrF2 = \([0-9.]*\) .*/\1/p' "$OUT/runs/tf_s1/score_b4_a1.txt")
    if python3 -c 'import sacrebleu' 2>/dev/null; then
        py=$(python3 -c 'import sys, sacrebleu
h = open(sys.argv[1], encoding="utf-8").read().splitlines()
r = open(sys.argv[2], encoding="utf-8").read().splitlines()
print("%.2f" % sacrebleu.corpus_chrf(h, [r]).score)' "$hyp" "$OUT/test.en")
        if [ "$c_chrf" = "$py" ]; then ok "chrf_matches_sacrebleu ($c_chrf)"
        else fail chrf_matches_sacrebleu "C $c_chrf, sacreBLEU $py"; fi
    else skip chrf_matches_sacrebleu "python3 has no sacrebleu (pip install sacrebleu); C chrF2 $c_chrf; test_chrf holds sacreBLEU's documented values"; fi
    cp "$OUT/runs.csv" "$TMP/runs.first"
    if scripts/multi30k_study.sh --quick --seeds 2 --parts "headline budget cross beam attention" --data "$TMP/d" \
            --out "$OUT" >"$TMP/again.out" 2>&1 && [ "$(grep -c '^\[.*\] reuse ' "$TMP/again.out")" = 8 ] &&
       ! grep -q '^\[.*\] train ' "$TMP/again.out" && cmp -s "$OUT/runs.csv" "$TMP/runs.first"
    then ok study_reuses_runs
    else fail study_reuses_runs "$(tail -3 "$TMP/again.out")"; fi
else
    fail study_quick "exit status $?: $(tail -3 "$TMP/study.out")"
fi
# The plateau part: the pair at a constant rate until 4 evaluations in a row bring no lower
# validation loss (the quick runs reach their ceiling of 15 x 30 steps), two seeds, Welch's
# interval, the validation loss of every evaluation (45 a run) in curves.csv and its figure; a
# row's steps are those the run trained: one stopped at step 70 reports 70.
P=$TMP/plateau
if scripts/multi30k_study.sh --quick --seeds 2 --parts plateau --data "$TMP/d" --out "$P" >"$TMP/plateau.out" 2>&1; then
    cfg=$P/runs/tf_plateau_s2/config.ini
    if [ "$(awk -F, '$1 == "plateau" && $9 == 450' "$P/runs.csv" | wc -l)" = 4 ] &&
       grep -q '^schedule = constant$' "$cfg" && grep -q '^patience = 4$' "$cfg" && grep -q '^eval_every = 10$' "$cfg" &&
       grep -q '^Steps trained up to the stop, seed by seed: LSTM 450, 450; Transformer 450, 450\.$' "$P/results.md" &&
       grep -q '^Transformer − LSTM, chrF2: .* (95% interval, Welch, 2 seeds each)\.$' "$P/results.md" &&
       [ "$(grep -c '^LSTM,2,' "$P/curves.csv")" = 45 ] && grep -q '^Transformer,1,450,' "$P/curves.csv" &&
       grep -q '<svg' "$P/plateau_val_loss.svg"
    then ok study_plateau
    else fail study_plateau "$(cat "$P/runs.csv") $(grep -i 'steps\|LSTM,' "$P/results.md" | head -4)"; fi
    R=$P/runs/lstm_plateau_s1
    { awk -F, 'NR == 1 || $1 <= 70' "$R/log.csv"; echo "70,patience,0,,,,,,,124753"; } >"$TMP/log.cut"
    mv "$TMP/log.cut" "$R/log.csv"
    steps=$(out=$P sh scripts/multi30k_report.sh row plateau LSTM lstm_plateau_s1 1 1.00,2.00 | cut -d, -f9)
    if [ "$steps" = 70 ]; then ok study_plateau_steps_at_stop
    else fail study_plateau_steps_at_stop "steps $steps of a run stopped at 70 (ceiling 450)"; fi
else
    fail study_plateau "exit status $?: $(tail -3 "$TMP/plateau.out")"
fi
# The learning rate sweep (scripts/multi30k_lr.sh): each architecture at 1e-5 and 1e-2 for 30
# steps. These tiny models' validation BLEU and chrF2 rank the rates oppositely (measured:
# BLEU higher at 1e-2, chrF2 at 1e-5), so a choice by chrF2, by the lowest BLEU or by the last
# row each picks another rate; one row a model is chosen, the highest BLEU. The translations
# are of the validation sentences (the first 40), and a second call trains and translates nothing.
L=$TMP/lr
if scripts/multi30k_lr.sh --quick --lrs "1e-5 1e-2" --data "$TMP/d" --out "$L" >"$TMP/lr.out" 2>&1; then
    chosen=$(awk -F, '$NF == "yes" { printf "%s:%s ", $1, $2 }' "$L/tuning.csv")
    best=$(awk -F, 'NR > 1 && (!($1 in b) || $7 > b[$1]) { b[$1] = $7; l[$1] = $2 }
        END { printf "LSTM:%s Transformer:%s ", l["LSTM"], l["Transformer"] }' "$L/tuning.csv")
    head -n 40 "$TMP/d/val.de" | "$BIN_DIR/translate" "$L/runs/tf_lr1e-2" --beam 1 --threads 1 >"$TMP/val.hyp" 2>/dev/null
    if [ "$chosen" = "$best" ] && [ "$(awk -F, 'NR > 1 && $6 == 40 && $4 == 30' "$L/tuning.csv" | wc -l)" = 4 ] &&
       cmp -s "$TMP/val.hyp" "$L/runs/tf_lr1e-2/val.hyp" && grep -q '^| Transformer | 1e-2 | .* | yes |$' "$L/results.md"
    then ok "lr_sweep_chooses_on_val_bleu ($chosen)"
    else fail lr_sweep_chooses_on_val_bleu "chosen [$chosen], highest BLEU [$best]: $(cat "$L/tuning.csv")"; fi
    scripts/multi30k_lr.sh --quick --lrs "1e-5 1e-2" --data "$TMP/d" --out "$L" >"$TMP/lr2.out" 2>&1
    if ! grep -q 'translate\|trainings' "$TMP/lr2.out" && grep -q 'done in' "$TMP/lr2.out"; then ok lr_sweep_reuses_runs
    else fail lr_sweep_reuses_runs "$(cat "$TMP/lr2.out" | head -5)"; fi
    # the study trains the pair at the chosen rates: 1e-2 written into both runs' config.ini
    if scripts/multi30k_study.sh --quick --seeds 1 --parts headline --lr-from "$L/tuning.csv" --data "$TMP/d" \
            --out "$TMP/tuned" >"$TMP/tuned.out" 2>&1 &&
       grep -q '^lr = 0.01$' "$TMP/tuned/runs/lstm_s1/config.ini" && grep -q '^lr = 0.01$' "$TMP/tuned/runs/tf_s1/config.ini" &&
       grep -q -- '--lr-from .*tuning.csv`' "$TMP/tuned/results.md"
    then ok study_lr_from_sweep
    else fail study_lr_from_sweep "$(tail -2 "$TMP/tuned.out"; grep -h '^lr' "$TMP"/tuned/runs/*/config.ini)"; fi
else
    fail lr_sweep_chooses_on_val_bleu "exit status $?: $(tail -3 "$TMP/lr.out")"
fi
expect_error study_lr_from_no_choice "--lr-from .*: no learning rate chosen for the LSTM" \
    scripts/multi30k_study.sh --quick --parts headline --lr-from "$TMP/d/val.en" --data "$TMP/d" --out "$TMP/nochoice"
