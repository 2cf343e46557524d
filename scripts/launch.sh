# Launcher steps that several experiment scripts repeat (POSIX sh; sourced after scripts/lib.sh,
# not run): gathering runs' logs and evaluations into one CSV, a metric's values per seed, the
# RoPE stretches of extend_context.sh and finetune_budget.sh, and the Multi30k data and scoring
# of multi30k.sh and multi30k_study.sh.
case ${0##*/} in
    launch.sh)   # run rather than sourced: say what it is
        echo "usage: . scripts/launch.sh   (after . scripts/lib.sh, from another script: not a command)"
        echo
        echo "Launcher steps the experiment scripts share: the curves and evaluation rows of their"
        echo "runs as one CSV, per-seed values for scripts/verdicts.sh, the RoPE stretches fine-tuned"
        echo "at 128 tokens, and the Multi30k data checks, overrides and cached scoring."
        case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac

# curves_csv OUT COLS: every training log listed on standard input ("PREFIX FILE" a line,
# PREFIX the values of the comma-separated COLS) as one CSV: COLS, then the logs' columns.
curves_csv() {
    _first=""
    while read -r _p _f; do
        [ -n "$_first" ] || _first=$_f
        prefix_csv "$_p" "$_f"
    done >"$1.body"
    { echo "$2,$(grep -v '^#' "$_first" | head -n 1)"; cat "$1.body"; } >"$1"
    rm -f "$1.body"
}

# eval_rows FILE SPLIT LENGTH PREFIX COLS [SUFFIX]: the rows of an ./eval CSV of SPLIT (and of
# LENGTH, unless it is empty) as PREFIX,COLS...SUFFIX (COLS: column names, space-separated).
eval_rows() {
    awk -F, -v s="$2" -v w="$3" -v p="$4" -v c="$5" -v q="${6:-}" "$CSV_COLUMNS"'row &&
        cell("split") == s && (w == "" || cell("length") + 0 == w + 0) { print p "," cells(c) q }' "$1"
}

# seed_values CSV METRIC SCALE COL=VALUE...: METRIC (times SCALE unless 1: then as written) of
# the rows that match every filter, one per seed in seed order, space-separated.
seed_values() {
    _csv=$1 _m=$2 _s=$3 _ifs=$IFS; shift 3
    IFS='	'; _filters="$*"; IFS=$_ifs
    awk -F, -v m="$_m" -v scale="$_s" -v filters="$_filters" "$CSV_COLUMNS"'
        row { for (i = 1; i <= nf; i++) if (cell(fk[i]) != fv[i]) next
              sd = cell("seed") + 0; v[sd] = scale == 1 ? cell(m) : scale * cell(m); if (sd > n) n = sd }
        BEGIN { nf = split(filters, f, "\t"); for (i = 1; i <= nf; i++) {
                e = index(f[i], "="); fk[i] = substr(f[i], 1, e - 1); fv[i] = substr(f[i], e + 1) } }
        END { for (i = 1; i <= n; i++) if (i in v) printf "%s%s", (i > 1 ? " " : ""), v[i] }' "$_csv"
}

# ---- RoPE stretched by s = 4 from a 32-token window, fine-tuned at 128 tokens (docs/design.md
# §2.3.5; extend_context.sh and finetune_budget.sh): the fine-tuned methods, plain RoPE the control.
factor=4; original=32; long=128
FT_METHODS="rope_ft rope_linear_ft rope_ntk_ft rope_yarn_ft"
# stretch_of METHOD: the overrides that stretch RoPE for METHOD (nothing for plain RoPE)
stretch_of() {
    case $1 in
        rope|rope_ft) rope_stretch none ;;
        rope_linear*) rope_stretch linear $factor $original ;;
        rope_ntk*) rope_stretch ntk $factor $original ;;
        rope_yarn*) rope_stretch yarn $factor $original ;;
        rope_dynamic) rope_stretch dynamic $factor $original ;;
        *) die "stretch_of: no method '$1'" ;;
    esac
}

# ---- Multi30k (multi30k.sh, multi30k_study.sh): the files scripts/get_data.sh leaves in DATA.
# m30k_data DATA: stops unless DATA holds them (not needed with --tables)
m30k_data() {
    for _f in train.de train.en val.de val.en test_2016_flickr.de test_2016_flickr.en; do
        [ $tables = 1 ] || [ -s "$1/$_f" ] || die "$1/$_f missing: run scripts/get_data.sh --from ../shared/data/multi30k"
    done
}
# m30k_overrides DATA: the overrides that point the configs (they name data/multi30k/*) at DATA
m30k_overrides() {
    [ "$1" = data/multi30k ] || echo "task.train_src=$1/train.de task.train_tgt=$1/train.en task.val_src=$1/val.de
               task.val_tgt=$1/val.en task.test_src=$1/test_2016_flickr.de task.test_tgt=$1/test_2016_flickr.en"
}
# scored_translation TXT HYP SRC REF RUN [OPTION...]: ./translate RUN OPTION... --ref REF of SRC
# into HYP, its BLEU and chrF lines into TXT; redone when TXT is missing or older than the
# checkpoint (atomic: an interrupted one is simply redone).
scored_translation() {
    _t=$1 _h=$2 _s=$3 _r=$4; shift 4
    [ -s "$_t" ] && ! [ "$1/model.safetensors" -nt "$_t" ] && return 0
    say "translate $*" >&2
    "$BIN_DIR/translate" "$@" --ref "$_r" <"$_s" >"$_h" 2>"$_t.tmp" ||
        { cat "$_t.tmp" >&2; die "./translate failed on $1"; }
    mv "$_t.tmp" "$_t"
}
# bleu_chrf TXT: "BLEU,chrF2" from the lines ./translate --ref wrote into TXT (stops without them)
bleu_chrf() {
    _b=$(sed -n 's/^BLEU = \([0-9.]*\) (cased).*/\1/p' "$1")
    _c=$(sed -n 's/^chrF2 = \([0-9.]*\) .*/\1/p' "$1")
    [ -n "$_b" ] && [ -n "$_c" ] || die "no BLEU or chrF in $1"
    echo "$_b,$_c"
}

# m30k_chosen_lr TUNING MODEL: MODEL's learning rate chosen in TUNING (multi30k_lr.sh's tuning.csv)
m30k_chosen_lr() {
    _lr=$(awk -F, -v m="$2" '$1 == m && $NF == "yes" { print $2 }' "$1" 2>/dev/null || :)
    [ -n "$_lr" ] || die "--lr-from $1: no learning rate chosen for the $2 (a tuning.csv of scripts/multi30k_lr.sh?)"
    echo "$_lr"
}

# md_table ARGS...: ./table (a Markdown table of a CSV file, src/stats/pivot.h), failing loudly.
md_table() { "$BIN_DIR/table" "$@" || die "./table failed: $*"; }
