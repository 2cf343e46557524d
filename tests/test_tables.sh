# The tables the experiment scripts write into results.md, from their CSVs (./table, which
# tests/test_pivot.c checks rule by rule, and each script's tables through --tables):
#  * tiny hand-made CSVs against tables computed by hand (means, sample standard deviations with
#    n - 1, rounding, units, the order of rows and columns);
#  * every committed results/*/results.md (and decoder_only.md, memory.md) written again from its
#    committed CSVs by the command its Command line names, with --tables: byte-identical (its
#    lines up to the provenance line, the command, wall time and machine of the runs, are the
#    committed file's own, which --tables keeps; every line after it is written again; a file
#    older than the provenance line keeps its opening paragraph, which says what is known).
# No training: the scripts read CSVs and write Markdown (about a second each).
. tests/lib.sh
. scripts/lib.sh
export BIN_DIR

# same NAME GOT_FILE WANT_FILE: the files are equal, else the first lines that differ.
same() {
    if cmp -s "$2" "$3"; then ok "$1"
    else fail "$1" "$(diff "$3" "$2" | head -6 | tr '\n' ' ')"; fi
}
# has_lines NAME FILE: every line of standard input is a line of FILE.
has_lines() {
    _missing=$(while IFS= read -r _l; do grep -qxF -- "$_l" "$2" || echo "[$_l]"; done)
    if [ -z "$_missing" ]; then ok "$1"; else fail "$1" "not in $2: $(echo "$_missing" | head -3 | tr '\n' ' ')"; fi
}
# stub_md FILE: a results.md whose head (kept by --tables) is a provenance line alone.
stub_md() { printf '# head\nProduced by commit 0000000; tools: hand; CPU: hand.\n' >"$1"; }

# ---- ./table: means, the sample sd (n - 1), the scale, printf rounding, rows in first-seen
# order, columns in numeric order (2 before 10), the filter, a bare mean for one seed, an empty
# cell for none. rope at 2: 50, 70, 90 -> 70.0 ± 20.0 (with n it would be 16.3); at 10: 10, 20
# -> 15.0 ± 7.1 (sqrt(50); with n 5.0); none at 2: 25.0; at 10: no row (view b is filtered out).
cat >"$TMP/pivot.csv" <<'CSV'
view,scheme,seed,x,acc
a,rope,1,10,0.1
a,rope,1,2,0.5
a,rope,2,2,0.7
a,rope,2,10,0.2
a,rope,3,2,0.9
b,none,1,10,0.99
a,none,1,2,0.25
CSV
"$BIN_DIR/table" --rows scheme --cols x --value acc --scale 100 --filter view=a "$TMP/pivot.csv" >"$TMP/pivot.md"
cat >"$TMP/pivot.want" <<'MD'
| scheme | 2 | 10 |
| --- | ---: | ---: |
| rope | 70.0 ± 20.0 | 15.0 ± 7.1 |
| none | 25.0 | |
MD
same md_pivot_by_hand "$TMP/pivot.md" "$TMP/pivot.want"
# %.3f of a loss: 1.2345 and 1.2365 -> mean 1.2355, sd 0.001414 -> "1.236 ± 0.001"
printf 'scheme,seed,x,loss\nt5,1,3,1.2345\nt5,2,3,1.2365\n' >"$TMP/loss.csv"
got=$("$BIN_DIR/table" --rows scheme --cols x --value loss --format %.3f "$TMP/loss.csv" | tail -1)
if [ "$got" = "| t5 | 1.236 ± 0.001 |" ]; then ok md_pivot_format; else fail md_pivot_format "got [$got]"; fi

# ---- ./table with a converged column: a row whose seeds stopped at the ceiling says so, each
# seed counted once however many rows (lengths) it has.
cat >"$TMP/conv.csv" <<'CSV'
scheme,seed,length,exact_match,converged
rope,1,16,1,150
rope,1,32,0.5,150
rope,2,16,0.5,not in 300 steps
rope,2,32,0.25,not in 300 steps
alibi,1,16,0,not in 300 steps
alibi,2,16,0.5,not in 300 steps
CSV
"$BIN_DIR/table" --rows scheme --cols length --value exact_match --scale 100 "$TMP/conv.csv" >"$TMP/conv.md"
cat >"$TMP/conv.want" <<'MD'
| scheme | 16 | 32 |
| --- | ---: | ---: |
| rope (1 of 2 seeds not in 300 steps) | 75.0 ± 35.4 | 37.5 ± 17.7 |
| alibi (not in 300 steps) | 25.0 ± 35.4 | |
MD
same md_pivot_converged_by_hand "$TMP/conv.md" "$TMP/conv.want"

# ---- ./table --steps: per cell the steps of each seed ("-": not converged), then the mean CPU
# seconds of the runs, each run once (rope copy seed 1 has two rows): (10.0 + 20.6) / 2 = 15.3.
cat >"$TMP/steps.csv" <<'CSV'
scheme,task,seed,length,converged,cpu_seconds
rope,copy,1,16,150,10.0
rope,copy,1,32,150,10.0
rope,copy,2,16,not in 300 steps,20.6
rope,reverse,1,16,200,3
none,reverse,1,16,250,1.04
CSV
"$BIN_DIR/table" --steps --rows scheme --cols task "$TMP/steps.csv" >"$TMP/steps.md"
cat >"$TMP/steps.want" <<'MD'
| scheme | copy: steps | copy: CPU s | reverse: steps | reverse: CPU s |
| --- | ---: | ---: | ---: | ---: |
| rope | 150 / - | 15.3 | 200 | 3.0 |
| none | | | 250 | 1.0 |

"-": did not converge (not in 300 steps).
MD
same converge_table_by_hand "$TMP/steps.md" "$TMP/steps.want"

# ---- ./table on bad input: `table: FILE:LINE: what is wrong`, exit status 1, nothing on stdout
printf 'scheme,x,acc\nrope,2,0.5\nrope,2\nrope,3,high\n' >"$TMP/bad.csv"
"$BIN_DIR/table" --rows scheme --cols x --value acc "$TMP/bad.csv" >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$TMP/bad.out" ] && grep -q "^table: $TMP/bad.csv:3: " "$TMP/bad.err"; then ok table_ragged_row
else fail table_ragged_row "exit $rc, stderr [$(cat "$TMP/bad.err")]"; fi
sed -i 3d "$TMP/bad.csv"
"$BIN_DIR/table" --rows scheme --cols x --value acc "$TMP/bad.csv" >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$TMP/bad.out" ] && grep -qF "bad.csv:3: column \"acc\": \"high\" is not a number" "$TMP/bad.err"
then ok table_not_a_number; else fail table_not_a_number "exit $rc, stderr [$(cat "$TMP/bad.err")]"; fi

# ---- each script's own table code, through --tables on a folder of hand-made CSVs
# tables NAME DIR SCRIPT ARGS...: SCRIPT ARGS --tables --out DIR (stub results.md) finishes.
tables() {
    _n=$1 _d=$2; shift 2
    [ -f "$_d/results.md" ] || stub_md "$_d/results.md"
    if "$@" --tables --out "$_d" >"$_d.out" 2>&1; then return 0; fi
    fail "$_n" "exit status: $(tail -3 "$_d.out" | tr '\n' ' ')"; return 1
}

# dog_bites_man.sh: accuracy and pair accuracy per form in % (form 5 = the five-word sentences),
# the twin difference per form (%.3g), the permutation rows column for column. none: accuracy
# 50, 60 (five words) -> 55.0 ± 7.1; 25, 75 (three) -> 50.0 ± 35.4; pairs 0, 10 -> 5.0 ± 7.1 and
# 0, 50 -> 25.0 ± 35.4; twin differences 1e-5, 1.2e-5 -> 1.1e-05 ± 1.41e-06, 2e-5, 3e-5 ->
# 2.5e-05 ± 7.07e-06.
D=$TMP/dbm; mkdir -p "$D"
cat >"$D/runs.csv" <<'CSV'
scheme,seed,form,examples,loss,accuracy,pair_acc,max_twin_diff
none,1,5,10,1.0,0.5,0,0.00001
none,1,3,4,1.0,0.25,0,0.00002
none,2,5,10,1.0,0.6,0.1,0.000012
none,2,3,4,1.0,0.75,0.5,0.00003
CSV
printf 'pos,mask,permutation,sentence,permuted,max_diff,logit_diff\nnone,causal,swap,a b,b a,0.25,0.5\n' >"$D/permute.csv"
if tables dbm_tables "$D" scripts/dog_bites_man.sh --seeds 2; then
    has_lines dbm_tables_by_hand "$D/results.md" <<'MD'
| scheme | accuracy % (the dog bites the man) | pair accuracy % (the dog bites the man) | accuracy % (dog bites man) | pair accuracy % (dog bites man) |
| none | 55.0 ± 7.1 | 5.0 ± 7.1 | 50.0 ± 35.4 | 25.0 ± 35.4 |
| scheme | the dog bites the man | dog bites man |
| none | 1.1e-05 ± 1.41e-06 | 2.5e-05 ± 7.07e-06 |
| none | causal | swap | a b | b a | 0.25 | 0.5 |
MD
fi

# extrapolate.sh: view 1's tables from results.csv's length rows only, the token accuracy by
# clause from positions.csv's rows of 3 and 4 clauses by clause (not by position). rope at 3
# clauses: clause 0 90, 70 -> 80.0 ± 14.1, clause 1 80, 60 -> 70.0 ± 14.1; exact match at 3
# clauses 50, 100 -> 75.0 ± 35.4; the loss 1.5, 2.5 -> 2.000 ± 0.707.
D=$TMP/ex; mkdir -p "$D"
cat >"$D/results.csv" <<'CSV'
view,scheme,seed,x,examples,loss,token_acc,exact_match,loss_last
length,rope,1,3,10,1.5,0.9,0.5,
length,rope,2,3,10,2.5,0.7,1,
offset,rope,1,3,10,9,0,0,
CSV
cat >"$D/positions.csv" <<'CSV'
scheme,seed,split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end
rope,1,none,3,clause,0,10,0.9,10,0,0,0,0
rope,1,none,3,clause,1,10,0.8,10,0,0,0,0
rope,2,none,3,clause,0,10,0.7,10,0,0,0,0
rope,2,none,3,clause,1,10,0.6,10,0,0,0,0
rope,1,none,3,position,0,10,0.1,10,0,0,0,0
rope,1,none,4,clause,0,10,0.5,10,0,0,0,0
CSV
if tables ex_tables "$D" scripts/extrapolate.sh --quick --seeds 2 --views 1 --schemes rope; then
    has_lines ex_tables_by_hand "$D/results.md" <<'MD'
| scheme | 3 |
| rope | 75.0 ± 35.4 |
| rope | 2.000 ± 0.707 |
| scheme | 0 | 1 |
| rope | 80.0 ± 14.1 | 70.0 ± 14.1 |
| rope | 50.0 |
MD
fi

# eos_decision.sh: per variant and length of rope's test rows by clause, the wrong outputs, the
# early <eos> and the early ends summed over the clauses (3 + 2, 1 + 2, 2 + 2); the token
# accuracy by clause in %; alibi's rows and rope's rows by position are not counted.
D=$TMP/eos; mkdir -p "$D"
cat >"$D/results.csv" <<'CSV'
variant,scheme,seed,length,examples,loss,token_acc,exact_match
eos,rope,1,4,20,1,0.5,0.25
CSV
cat >"$D/positions.csv" <<'CSV'
variant,scheme,seed,split,length,by,index,tokens,token_acc,reached,departures,departure_rate,early_eos,early_end
eos,rope,1,test,4,clause,0,10,0.5,20,3,0.15,1,2
eos,rope,1,test,4,clause,1,10,0.25,17,2,0.1,2,2
eos,rope,1,test,4,position,0,10,0.9,20,7,0.35,7,7
eos,alibi,1,test,4,clause,0,10,0.5,20,9,0.45,9,9
CSV
if tables eos_tables "$D" scripts/eos_decision.sh --quick --seeds 1; then
    has_lines eos_tables_by_hand "$D/results.md" <<'MD'
| eos | 4 | 5 | 3 | 4 |
| set | 0 | 1 |
| eos at 4 | 50.0 | 25.0 |
| eos at 4 | 3 | 2 |
| rope eos | 25.0 |
MD
fi

# lengthgen.sh: randomized against plain beyond the training lengths, per task and seed the
# mean over the schemes but none and the lengths over 16, then mean ± sample sd over seeds.
# plain: exact (20 + 40) / 2 = 30 and (40 + 80) / 2 = 60 -> 45.0 ± 21.2, tokens 70, 80 -> 75.0 ±
# 7.1; random: 60, 50 -> 55.0 ± 7.1 and 80, 60 -> 70.0 ± 14.1; on 0..n-1: 10, 10 -> 10.0 ± 0.0
# and 20, 40 -> 30.0 ± 14.1. none, and length 16, are left out.
D=$TMP/lg; mkdir -p "$D"
cat >"$D/results.csv" <<'CSV'
task,scheme,seed,length,examples,loss,token_acc,exact_match
copy,rope,1,32,10,1,0.5,0.2
copy,rope,1,16,10,1,1,1
copy,alibi,1,32,10,1,0.9,0.4
copy,none,1,32,10,1,1,1
copy,rope + random,1,32,10,1,0.8,0.6
copy,rope + random (plain),1,32,10,1,0.2,0.1
copy,rope,2,32,10,1,0.7,0.4
copy,alibi,2,32,10,1,0.9,0.8
copy,none,2,32,10,1,1,1
copy,rope + random,2,32,10,1,0.6,0.5
copy,rope + random (plain),2,32,10,1,0.4,0.1
CSV
if tables lg_tables "$D" scripts/lengthgen.sh --seeds 2 --variants 'plain random' --tasks copy --part translator; then
    has_lines lg_tables_by_hand "$D/results.md" <<'MD'
| copy | plain | 45.0 ± 21.2 | 75.0 ± 7.1 |
| copy | random | 55.0 ± 7.1 | 70.0 ± 14.1 |
| copy | random, on 0..n-1 | 10.0 ± 0.0 | 30.0 ± 14.1 |
| rope | 100.0 | 30.0 ± 14.1 |
MD
fi

# lm_score.sh: per band of positions the mean loss over its positions: each window of loss.csv
# weighted by its tokens. rope: (2 x 100 + 4 x 300) / 400 = 3.5, (1 x 10 + 3 x 30) / 40 = 2.5
# (unweighted: 3.0 and 2.0).
D=$TMP/ls; mkdir -p "$D"
cat >"$D/loss.csv" <<'CSV'
scheme,position,from,to,loss,tokens
rope,7.5,0,15,2.0,100
rope,23.5,16,31,4.0,300
rope,39.5,32,47,1.0,10
rope,55.5,48,63,3.0,30
alibi,7.5,0,15,1.0,1
alibi,39.5,32,47,2.0,5
CSV
if tables ls_tables "$D" scripts/lm_score.sh --length 64 --texts 1 --bin 16; then
    has_lines ls_tables_by_hand "$D/results.md" <<'MD'
| scheme | 0–31 | 32–63 |
| rope | 3.500 | 2.500 |
| alibi | 1.000 | 2.000 |
MD
fi

# finetune_budget.sh: A - B paired per seed (seed order, whatever the row order) and its 95%
# interval: differences -0.2, -0.1, +0.1 -> mean -0.067, sd 0.1528, t(2) = 4.303 x 0.1528 / sqrt 3
# = 0.3795 -> [-0.446, +0.313]; cells of loss_last (not loss) at 128 tokens.
D=$TMP/fb; mkdir -p "$D"
cat >"$D/results.csv" <<'CSV'
method,budget,seed,window,examples,loss,token_acc,loss_last,cpu_seconds
rope_ft,4,1,128,5,9,0.1,2.2,1
rope_linear_ft,4,3,128,5,9,0.1,2.3,1
rope_ft,4,2,128,5,9,0.1,2.2,1
rope_linear_ft,4,1,128,5,9,0.1,2.0,1
rope_ft,4,3,128,5,9,0.1,2.2,1
rope_linear_ft,4,2,128,5,9,0.1,2.1,1
CSV
if tables fb_tables "$D" scripts/finetune_budget.sh --quick --seeds 3 --budgets 4; then
    has_lines fb_tables_by_hand "$D/results.md" <<'MD'
| rope_linear_ft | rope_ft | 4 | 128 | -0.067 | [-0.446, +0.313] |
| rope_linear_ft | 2.133 ± 0.153 |
MD
fi

# extend_context.sh: the windows a scheme refused, one item per method and window with its seed
# count and ./eval's message (commas and all), per block.
D=$TMP/ec; mkdir -p "$D"
cat >"$D/results.csv" <<'CSV'
block,method,kind,seed,window,examples,loss,token_acc,loss_last
default,rope,scheme,1,32,5,2.5,0.1,2.25
default,rope,scheme,2,32,5,3.5,0.1,2.75
CSV
cat >"$D/refused.csv" <<'CSV'
block,method,window,seed,message
default,xpos,128,1,error: too long, by far
default,xpos,128,2,error: too long, by far
llama,xpos,128,1,error: other block
CSV
if tables ec_tables "$D" scripts/extend_context.sh --quick --seeds 2; then
    has_lines ec_tables_by_hand "$D/results.md" <<'MD'
- `xpos` at 128 (2 seeds): error: too long, by far
| rope | 2.500 ± 0.354 |
| rope | 3.000 ± 0.707 |
MD
    if grep -q 'other block' "$D/results.md"; then fail ec_tables_one_block "another block's refusal listed"
    else ok ec_tables_one_block; fi
fi

# multi30k.sh: minutes of training (1590 s = 26.5 min), the load, BLEU lower-cased in bold then
# cased; pairs of probe sentences translated alike.
D=$TMP/m30k; mkdir -p "$D"
cat >"$D/bleu.csv" <<'CSV'
scheme,steps,threads,train_s,tokens_per_s,load_start,load_end,val_loss,bleu_cased,bleu_lower
rope,2800,2,1590,3389,1.50,2.00,1.82188,39.05,39.27
CSV
printf 'German\tnone\trope\nA b.\tx\tx\nB a.\tx\ty\nC d.\tz\tw\nD c.\tz\tw\n' >"$D/probes.tsv"
if tables m30k_tables "$D" scripts/multi30k.sh --schemes "none rope"; then
    has_lines m30k_tables_by_hand "$D/results.md" <<'MD'
| rope | 2800 | 2 | 26.5 min | 3389 | 1.50 → 2.00 | 1.82188 | **39.27** | 39.05 |
articles mark who sees whom. Pairs translated alike: none 2 of 2, rope 1 of 2.
MD
fi

# multi30k_study.sh: per model the last run's name, CPU and wall minutes per run (seconds / 60,
# averaged), the training loss quarters averaged, BLEU and chrF2 mean ± sample sd: LSTM BLEU
# 30, 32, 34 -> 32.00 ± 2.00; Transformer 40, 41, 45 -> 42.00 ± 2.65 (with n: 2.16), chrF2 60,
# 60, 63 -> 61.00 ± 1.73; parameters 1010 / 1000.
D=$TMP/m30s; mkdir -p "$D"
cat >"$D/runs.csv" <<'CSV'
group,variant,run,seed,model,d_model,layers,pos,steps,params,cpu_s,wall_s,bleu,chrf,train_loss_q2,train_loss_q4
headline,LSTM,lstm_s1,1,lstm,256,1,none,100,1000,60,120,30.00,50.00,2.0,1.5
headline,Transformer,tf_s1,1,transformer,176,2,sinusoidal,100,1010,30,60,40.00,60.00,1.0,0.5
headline,LSTM,lstm_s2,2,lstm,256,1,none,100,1000,120,240,32.00,52.00,2.2,1.7
headline,Transformer,tf_s2,2,transformer,176,2,sinusoidal,100,1010,30,60,41.00,60.00,1.0,0.5
headline,LSTM,lstm_s3,3,lstm,256,1,none,100,1000,180,360,34.00,54.00,2.4,1.9
headline,Transformer,tf_s3,3,transformer,176,2,sinusoidal,100,1010,30,60,45.00,63.00,1.0,0.5
CSV
stub_md "$D/results.md"
echo 'Command: `x`; wall time 5 s for this call (3 s training, 2 s' >>"$D/results.md"
if tables m30s_tables "$D" scripts/multi30k_study.sh --seeds 3 --parts headline; then
    has_lines m30s_tables_by_hand "$D/results.md" <<'MD'
| LSTM | lstm_s3 | 256 | 1 | none | 1000 | 3 | 2.0 | 4.0 | 2.200 → 1.700 | 32.00 ± 2.00 | 52.00 ± 2.00 |
| Transformer | tf_s3 | 176 | 2 | sinusoidal | 1010 | 3 | 0.5 | 1.0 | 1.000 → 0.500 | 42.00 ± 2.65 | 61.00 ± 1.73 |
Transformer / LSTM parameters: 1.0100 (within 5%).
Command: `scripts/multi30k_study.sh --seeds 3 --parts "headline"`; wall time 5 s for this call (3 s training, 2 s
MD
fi

# ---- every committed results.md (and decoder_only.md, memory.md) from its committed CSVs
# regenerate MD COMMAND...: a copy of MD's folder (no SVG, no training curves: the plots are
# not drawn), COMMAND --tables --out COPY; the Markdown and every CSV of the copy must equal the
# committed ones byte for byte (the derived ones, acc.csv, offsets.csv, lm_mrr.csv, ... included).
regenerate() {
    _md=$1; shift
    _from=results/${_md%/*} _name=regen_$(echo "$_md" | tr '/.' '__')
    _to=$TMP/$_name; mkdir -p "$_to"
    (cd "$_from" && find . -type f ! -name '*.svg' ! -name '*curves.csv') | while read -r _f; do
        mkdir -p "$_to/${_f%/*}"; cp "$_from/$_f" "$_to/$_f"
    done
    if ! "$@" --tables --out "$_to" >"$_to.out" 2>&1; then
        fail "$_name" "$* --tables: $(tail -2 "$_to.out" | tr '\n' ' ')"; return
    fi
    _bad=""
    for _f in "$_md" $(cd results && find "${_md%/*}" -maxdepth 1 -name '*.csv' ! -name '*curves.csv'); do
        cmp -s "results/$_f" "$_to/${_f#*/}" || _bad="$_bad ${_f#*/}"
    done
    if [ -z "$_bad" ]; then ok "$_name"
    else fail "$_name" "differ from the committed:$_bad ($(diff "results/$_md" "$_to/${_md#*/}" | head -4 | tr '\n' ' '))"; fi
}
n_md=0
for md in results/*/results.md results/*/decoder_only.md; do
    [ -f "$md" ] || continue
    n_md=$((n_md + 1))
    cmd=$(sed -n 's/^Command: `\([^`]*\)`.*/\1/p' "$md" | head -n 1)
    if [ -z "$cmd" ]; then fail "regen_$md" "no Command line"; continue; fi
    eval "set -- $cmd"
    regenerate "${md#results/}" "$@"
done
regenerate robustness/memory.md sh scripts/memory_table.sh
if [ "$n_md" -ge 18 ]; then ok "regen_all_found ($n_md)"; else fail regen_all_found "only $n_md results.md and decoder_only.md"; fi
