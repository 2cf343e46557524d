#!/bin/sh
# Multi30k De->En with every positional scheme: train configs/multi30k/<scheme>.ini (reusing
# finished runs), translate test_2016_flickr with beam search, score corpus BLEU against the
# references, and write the comparison table. Run from the top level after `make` and
# `scripts/get_data.sh --from ../shared/data/multi30k`.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/launch.sh

usage() {
    cat <<'EOF'
usage: scripts/multi30k.sh [--quick] [--schemes "LIST"] [--data DIR] [--out DIR]
                           [--jobs N | --slurm [--sbatch-args "ARGS"] [--no-wait]] [-- KEY=VALUE ...]

For every scheme in LIST (default: all, ./train --list-schemes) trains
configs/multi30k/<scheme>.ini into DIR/runs/<scheme> (a finished run is reused), translates
test_2016_flickr.de with ./translate and scores corpus BLEU against the .en references, and
translates six probe sentences. The setting and the reading: docs/multi30k.md; the files
written into DIR: docs/design.md (4.8).

  --quick          a smoke test: a tiny model (d 32, 1+1 layers, 200 BPE merges), 30 steps,
                   the first 40 test sentences, greedy decoding; DIR defaults to results/quick/multi30k
  --schemes LIST   the schemes to run, e.g. --schemes "rope alibi"
  --data DIR       the Multi30k files (default data/multi30k, as scripts/get_data.sh leaves them)
  --out DIR        output folder (default results/multi30k)
  -- KEY=VALUE...  extra config overrides for every run, e.g. -- run.threads=1 train.steps=850
EOF
    echo "$FIGURES_USAGE"; echo "$TABLES_USAGE"; echo "$RUN_USAGE"
    echo "Tools are taken from BIN_DIR (default: the top level). Each full run takes about 27 minutes"
    echo "with 2 threads on a quiet 2-core machine."
}

quick=0; schemes=$SCHEMES; out=""; data=data/multi30k
while [ $# -gt 0 ]; do
    case "$1" in
        --quick)   quick=1 ;;
        --figures) figures=1 ;;
        --tables)  tables=1 ;;
        --schemes) [ $# -ge 2 ] || die "--schemes needs a list"; schemes=$2; shift ;;
        --out)     [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift ;;
        --data)    [ $# -ge 2 ] || die "--data needs a folder"; data=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        --)        shift; break ;;
        *) run_option "$@" || { usage >&2; die "unknown argument '$1'"; }; shift $run_shift ;;
    esac
    shift
done
overrides="$*"
# draw_figures: the training loss against step, from curves.csv
draw_figures() {
    plot --x step --y loss --group scheme --filter split=train --logy \
        --title "Multi30k De-En: training loss (label-smoothed, per batch)" --ylabel "training loss" \
        -o "$out/train_loss.svg" "$out/curves.csv"
}
if [ $figures = 1 ]; then
    [ $quick = 1 ] && out=${out:-results/quick/multi30k}
    out=${out:-results/multi30k}; need_tools plot; draw_figures; exit 0
fi
for scheme in $schemes; do
    [ -f "configs/multi30k/$scheme.ini" ] || die "no configs/multi30k/$scheme.ini (schemes: $SCHEMES)"
done
m30k_data "$data"
need_tools train translate plot
[ "$data" = data/multi30k ] || overrides="$(m30k_overrides "$data") $overrides"
test_src=$data/test_2016_flickr.de; test_ref=$data/test_2016_flickr.en
if [ $quick = 1 ]; then
    out=${out:-results/quick/multi30k}
    if [ $tables = 0 ]; then
        mkdir -p "$out"
        head -n 40 "$test_src" >"$out/test.de"; head -n 40 "$test_ref" >"$out/test.en"
    fi
    test_src=$out/test.de; test_ref=$out/test.en
    overrides="model.d_model=32 model.n_heads=2 model.d_ff=64 model.enc_layers=1 model.dec_layers=1
               task.bpe_merges=200 train.warmup=5 train.ckpt_every=1000 eval.beam=1 $overrides"
else
    out=${out:-results/multi30k}
fi
[ $tables = 1 ] || mkdir -p "$out/runs"
start=$(now)
command="scripts/multi30k.sh"
[ $quick = 1 ] && command="$command --quick"
command="$command --schemes \"$schemes\""
[ -n "$*" ] && command="$command -- $*"

# ---- train every scheme (here, --jobs N at once, or on Slurm); load: the 1-minute load
# average when the trainings started and ended
steps_of() { if [ $quick = 1 ]; then echo 30; else config_value train steps "configs/multi30k/$1.ini"; fi; }
trainings() {
    for scheme in $schemes; do
        # shellcheck disable=SC2086 # overrides are separate KEY=VALUE words
        train_run "$out/runs/$scheme" "$(steps_of "$scheme")" "configs/multi30k/$scheme.ini" $overrides
    done
}
load_start=$(cut -d' ' -f1 /proc/loadavg)
run_trainings trainings "$out"
[ $tables = 1 ] || for scheme in $schemes; do
    [ -f "$out/runs/$scheme/load" ] || echo "$load_start $(cut -d' ' -f1 /proc/loadavg)" >"$out/runs/$scheme/load"
done

# (with --tables: bleu.csv and curves.csv as they are)
if [ $tables = 0 ]; then
    # ---- translate and score every scheme
    echo "scheme,steps,threads,train_s,tokens_per_s,load_start,load_end,val_loss,bleu_cased,bleu_lower" >"$out/bleu.csv.tmp"
    for scheme in $schemes; do
        steps=$(steps_of "$scheme")
        run=$out/runs/$scheme
        scored_translation "$run/bleu.txt" "$run/test.hyp" "$test_src" "$test_ref" "$run"
        # train.out: "done: ... in 1592.4 s (3389 tokens/s)"; bleu.txt: "BLEU = 39.05 (cased), 39.27 (lower-cased) | ..."
        train_s=$(sed -n 's/^done: .* in \([0-9.]*\) s (\([0-9]*\) tokens\/s).*/\1/p' "$run/train.out")
        tok_s=$(sed -n 's/^done: .* in \([0-9.]*\) s (\([0-9]*\) tokens\/s).*/\2/p' "$run/train.out")
        val_loss=$("$BIN_DIR/table" --plain --filter "step>=$steps" --filter "step<=$steps" \
            --filter split=val --value loss:text "$run/log.csv")
        bleu=$(sed -n 's/^BLEU = \([0-9.]*\) (cased), \([0-9.]*\) (lower-cased).*/\1,\2/p' "$run/bleu.txt")
        [ -n "$train_s" ] && [ -n "$bleu" ] || die "could not read the results of $run (train.out, bleu.txt)"
        threads=$(config_value run threads "$run/config.ini"); [ "${threads:-0}" = 0 ] && threads=$(nproc)
        echo "$scheme,$steps,$threads,$train_s,$tok_s,$(tr ' ' , <"$run/load"),$val_loss,$bleu" >>"$out/bleu.csv.tmp"
        say "$scheme: BLEU $bleu (cased, lower-cased), trained in $train_s s"
    done
    mv "$out/bleu.csv.tmp" "$out/bleu.csv"
    for scheme in $schemes; do echo "$scheme $out/runs/$scheme/log.csv"; done | curves_csv "$out/curves.csv" scheme
fi

[ "$tables" = 1 ] || draw_figures

# ---- word order: twin sentences made of the same words (without positions the encoder
# sees the same bag of tokens, so the translations cannot differ) and a pair whose articles
# carry the roles (German case: "einen Mann" is the object wherever it stands)
# (with --tables: probes.tsv as it is)
if [ $tables = 0 ]; then
    cat >"$out/probes.de" <<'EOF'
Der Hund beißt den Mann.
Der Mann beißt den Hund.
Ein Hund beißt einen Mann.
Ein Mann beißt einen Hund.
Eine Frau sieht einen Mann.
Ein Mann sieht eine Frau.
EOF
    for scheme in $schemes; do
        "$BIN_DIR/translate" "$out/runs/$scheme" <"$out/probes.de" >"$out/runs/$scheme/probes.hyp" 2>"$out/probes.err" \
            || { cat "$out/probes.err" >&2; die "./translate failed on the probes ($scheme)"; }
    done
    rm -f "$out/probes.err"
    # probes.tsv: the German sentence, then one translation per scheme (tabs: translations hold commas)
    files=""
    for scheme in $schemes; do files="$files $out/runs/$scheme/probes.hyp"; done
    {
        printf 'German'; for scheme in $schemes; do printf '\t%s' "$scheme"; done; echo
        # shellcheck disable=SC2086 # one file per scheme
        paste "$out/probes.de" $files
    } >"$out/probes.tsv"
fi

# "none 2 of 3, rope 0 of 3": pairs whose two sentences got the same translation. probes.tsv
# as CSV rows scheme,line,translation (lines 2 and 3 are pair 1, line//2); a pair's distinct
# translations are counted once each (--first-of), so 2 - distinct is 1 for a pair alike.
awk -F'\t' 'NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; print "scheme,line,translation"; next }
    { for (i = 2; i <= NF; i++) { t = $i; gsub(/"/, "\"\"", t); print name[i] "," NR ",\"" t "\"" } }' \
    "$out/probes.tsv" >"$out/probes.csv.tmp"
"$BIN_DIR/table" --csv --rows scheme --rows 'pair={line//2}' --value distinct=line:count:%d \
    --first-of '{scheme} {line//2} {translation}' "$out/probes.csv.tmp" >"$out/pairs.csv.tmp"
same_pairs=$("$BIN_DIR/table" --plain --rows scheme --value 2-distinct:sum:%d \
    --value distinct:count:%d "$out/pairs.csv.tmp" | sed 's/,/ /; s/,/ of /' | paste -sd, - |
    sed 's/,/, /g')
rm -f "$out/probes.csv.tmp" "$out/pairs.csv.tmp"

wall=$(( $(now) - start ))
{
    echo "## Multi30k De→En: BLEU on test_2016_flickr per positional scheme"
    echo
    echo "Command: \`$command\`; wall time ${wall} s on this machine (finished runs are reused)."
    provenance
    echo "Configs: configs/multi30k/<scheme>.ini$([ $quick = 1 ] && echo ' shrunk by --quick')$([ -n "$overrides" ] && echo "; overrides: \`$(echo $overrides)\`")."
    echo "BLEU: sacreBLEU-compatible corpus BLEU (13a, BLEU-4) of \`./translate --ref\`; training time is"
    echo "the trainer's own wall time; load is the 1-minute load average when the trainings started and ended"
    echo "(2 cores: a load above 2 means the runs shared the machine)."
    echo
    echo "| scheme | steps | threads | training time | tokens/s | load start → end | val loss | BLEU lower-cased | BLEU cased |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    "$BIN_DIR/table" --plain --rows scheme --value steps:sum:%d --value threads:sum:%d \
        --value 'train_s/60:sum:%.1f min' --value tokens_per_s:sum:%d --value load_start:text \
        --value load_end:text --value val_loss:text --value 'bleu_lower:sum:**%.2f**' \
        --value bleu_cased:sum:%.2f "$out/bleu.csv" |
        sed 's/^\(\([^,]*,\)\{5\}[^,]*\),/\1 → /; s/,/ | /g; s/^/| /; s/$/ |/'
    echo
    echo "![training loss](train_loss.svg)"
    echo
    echo "Word order (\`./translate\`, each config's beam search): sentences 1-2 and 3-4 are the same"
    echo "words in another order, so a model without positions must translate both alike; in 5-6 the"
    echo "articles mark who sees whom. Pairs translated alike: $same_pairs."
    echo
    awk -F'\t' '{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line
                  if (NR == 1) { line = "|"; for (i = 1; i <= NF; i++) line = line " --- |"; print line } }' "$out/probes.tsv"
} >"$out/results.md.new"
write_md "$out/results.md"
cat "$out/results.md"
say "done in ${wall} s: $out/results.md"
