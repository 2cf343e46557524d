# scripts/random_copy_equal.sh --quick on the decoder-only models and on the translator: the
# arms each task gets, the depth every run trains at, the learning rate the finals take from
# the tuning (each arm's best validation score, the first of equal ones), the folders and
# columns; misused options are one line.
. tests/lib.sh
export BIN_DIR
Q=$TMP/lm
if scripts/random_copy_equal.sh --quick --seeds 1 --model lm --tasks 'copy reverse' --schemes 'none rope' \
        --layers 1 --range 64 --out "$Q" >"$TMP/lm.out" 2>&1; then ok rce_lm_quick_runs
else fail rce_lm_quick_runs "exit status $?: $(tail -5 "$TMP/lm.out")"; fi

# 2 tasks x (none, rope, rope + random; none has no positions to randomize) x 2 rates
report() { if [ -z "$2" ]; then ok "$1"; else fail "$1" "$2"; fi; }
report rce_tuning_rows "$(awk -F, 'NR == 1 && $0 != "task,arm,lr,seed,val_exact_match,chosen" { print "header " $0 }
    NR > 1 { n++; k = $1 "," $2; if ($6 == "yes") yes[k]++; else if ($6 != "no") print "row " NR ": " $0
             if (!(k in best) || $5 > best[k]) { best[k] = $5; first[k] = $3 } if ($6 == "yes") got[k] = $3 }
    END { if (n != 12) print n " rows, want 12"
          for (k in best) if (yes[k] != 1 || got[k] != first[k]) print k ": chose " got[k] ", want " first[k] }' "$Q/tuning.csv")"
report rce_arms "$(awk -F, 'NR > 1 { a[$1 "|" $2]++; n++ } END {
    want = "copy|none copy|rope copy|rope + random reverse|none reverse|rope reverse|rope + random"
    k = split(want, w, " ")
    # the split broke "rope + random" into three words: put them back together
    m = 0; for (i = 1; i <= k; i++) { if (w[i] == "+" ) { arm[m] = arm[m] " + " w[i + 1]; i++ } else arm[++m] = w[i] }
    for (i = 1; i <= m; i++) if (a[arm[i]] != 2) print arm[i] ": " a[arm[i]] + 0 " rows, want 2 (lengths 16, 20)"
    if (n != 2 * m) print n " rows, want " 2 * m }' "$Q/results.csv")"
report rce_lr_is_chosen "$(awk -F, 'NR == FNR { if ($6 == "yes") lr[$1 "," $2] = $3; next }
    FNR > 1 && $10 != lr[$1 "," $2] { print $1 "," $2 ": trained at " $10 ", tuning chose " lr[$1 "," $2] }' "$Q/tuning.csv" "$Q/results.csv")"
bad=""
for c in "$Q"/runs/lm-*/config.ini "$Q"/runs/tune/lm-*/config.ini; do
    grep -qx 'dec_layers = 1' "$c" || bad="$bad ${c#"$Q"/runs/}"
    case "$c" in *-random-*) grep -qx 'pos_random = 64' "$c" || bad="$bad ${c#"$Q"/runs/}(range)" ;; esac
done
n=$(ls -d "$Q"/runs/lm-*/ "$Q"/runs/tune/lm-*/ | wc -l)
report rce_depth "${bad:+not at depth 1 or range 64:$bad}$([ "$n" = 18 ] || echo " $n runs, want 6 + 12")"
grep -qF -- "--model lm --tasks 'copy reverse' --layers 1 --range 64\`" "$Q/results.md" && ok rce_command ||
    fail rce_command "$(grep -m1 Command: "$Q/results.md")"
# The reciprocal ranks over two tasks are means of 1, 1/2, 1/3 (ties share): one row an arm.
report rce_mrr "$(awk '/^## Mean reciprocal rank/ { on = 1; next } on && /^\| (none|rope|rope \+ random) \| [0-9.]+ \| 2 \|$/ { n++ }
    END { if (n != 3) print n " MRR rows, want 3" }' "$Q/results.md")"

# The translator: no task column, its folders as before, 2 + 2 layers by default; with noeos
# (the end-of-sequence decision) a - eos arm too.
T=$TMP/tr
if scripts/random_copy_equal.sh --quick --seeds 1 --schemes rope --variants 'plain noeos' --out "$T" >"$TMP/tr.out" 2>&1 \
        && [ "$(head -1 "$T/tuning.csv")" = "arm,lr,seed,val_exact_match,chosen" ] \
        && grep -qx 'enc_layers = 2' "$T/runs/copy-rope-s1/config.ini" && grep -qx 'dec_layers = 2' "$T/runs/copy-rope-s1/config.ini" \
        && [ "$(ls "$T/runs/tune" | tr '\n' ' ')" = "copy-rope-lr1e-3 copy-rope-lr3e-3 copy-rope-noeos-lr1e-3 copy-rope-noeos-lr3e-3 " ]
then ok rce_translator_layout
else fail rce_translator_layout "$(tail -3 "$TMP/tr.out"; head -2 "$T/tuning.csv" 2>/dev/null)"; fi
# Every run of the - eos arm, tuning included, trains without <eos>; the plain ones with it.
bad=""
for r in "$T"/runs/copy-rope-noeos-s1 "$T"/runs/tune/copy-rope-noeos-lr*; do
    grep -qx 'eos = false' "$r/config.ini" || bad="$bad ${r#"$T"/runs/}"; done
for r in "$T"/runs/copy-rope-s1 "$T"/runs/tune/copy-rope-lr*; do
    grep -qx 'eos = true' "$r/config.ini" || bad="$bad ${r#"$T"/runs/}(+eos)"; done
report rce_noeos "${bad:+eos wrong in:$bad}"
# The plain arm is scored twice (rope, rope + oracle: ./eval length=oracle into eval_oracle.csv),
# the - eos arm once (without <eos> ./eval always decodes to the reference length).
rows=$(tail -n +2 "$T/results.csv" | cut -d, -f2 | uniq -c | tr -s ' ' | tr '\n' ';')
oracle=$(cd "$T/runs" && ls -d */eval_oracle.csv 2>/dev/null | tr '\n' ' ')
"$BIN_DIR/eval" "$T/runs/copy-rope-s1" splits=none lengths=16,20 test_size=10 length=oracle >"$TMP/oracle.csv" 2>/dev/null
report rce_oracle_rows "$([ "$rows" = " 2 rope; 2 rope + oracle; 2 rope - eos;" ] || echo "arms of results.csv: $rows")$(
    [ "$oracle" = "copy-rope-s1/eval_oracle.csv " ] || echo " eval_oracle.csv in: $oracle")$(
    cmp -s "$TMP/oracle.csv" "$T/runs/copy-rope-s1/eval_oracle.csv" || echo " eval_oracle.csv is not ./eval length=oracle")"

expect_error rce_bad_model "--model wants translator or lm, not 'encoder'" scripts/random_copy_equal.sh --model encoder --out "$TMP/x"
expect_error rce_bad_variant "--variants: unknown variant 'shuffled' \\(plain, random, noeos\\)" scripts/random_copy_equal.sh --variants shuffled --out "$TMP/x"
expect_error rce_translator_task "--tasks: no configs/algorithmic/duplicate.ini for task 'duplicate'" scripts/random_copy_equal.sh --tasks duplicate --out "$TMP/x"
expect_error rce_bad_layers "--layers wants a positive number, not '0'" scripts/random_copy_equal.sh --layers 0 --out "$TMP/x"

# scripts/lm_equal_pilot.sh on finished runs (a checkpoint of step 6000, its val row, a fresh
# eval.csv: nothing trains or evaluates): each pilot's last val row and its test rows, in %.
P=$TMP/pilot
h='{"__metadata__":{"step":"6000"}}'
for name in copy-rope-random819-L2 copy-rope-random256-L2 reverse-none-L4 duplicate-none-L4; do
    r=$P/runs/$name; mkdir -p "$r"
    { printf "\\$(printf %o ${#h})\\0\\0\\0\\0\\0\\0\\0"; printf '%s' "$h"; } >"$r/model.safetensors"
    printf 'step,split,length,loss,token_acc,exact_match\n500,val,0,0.2,0.9,0.39\n6000,val,0,0.02,0.99,0.835\n6000,train,0,0.01,0.99,\n' >"$r/log.csv"
    printf 'split,length,examples,loss,token_acc,exact_match\ntest,16,100,0.07,0.97,0.95\ntest,20,100,0.2,0.9,0.62\n' >"$r/eval.csv"
    touch -d '+1 min' "$r/eval.csv"
done
if scripts/lm_equal_pilot.sh --out "$P" >"$TMP/pilot.out" 2>&1 && ! grep -q "train  \|eval   " "$TMP/pilot.out" \
        && [ "$(sed -n 2p "$P/val.csv")" = "copy-rope-random819-L2,6000,0.835" ] && [ "$(wc -l <"$P/val.csv")" = 5 ] \
        && [ "$(sed -n 2,3p "$P/pilot.csv")" = "$(printf 'copy-rope-random819-L2,16,0.95\ncopy-rope-random819-L2,20,0.62')" ] \
        && grep -qx '| duplicate-none-L4 | 6000 | 83.5 |' "$P/results.md" && grep -qx '| reverse-none-L4 | 95.0 | 62.0 |' "$P/results.md"
then ok pilot_collects
else fail pilot_collects "$(tail -3 "$TMP/pilot.out"; cat "$P/val.csv" "$P/pilot.csv" 2>/dev/null)"; fi
