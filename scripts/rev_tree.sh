# Sourced by the scripts that measure two revisions side by side (bench_ab.sh, walls_ab.sh,
# profile_ops.sh --rev): a built copy of a git revision beside the working tree.
case ${0##*/} in
    rev_tree.sh) echo "usage: . scripts/rev_tree.sh   (from another script: not a command)"
                 case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac

# rev_tree REV [TARGET...]: prints the folder ${TMPDIR:-/tmp}/bench_ab/COMMIT that holds REV
# (git archive, extracted once and kept for the next call) after `make TARGET...` there
# (default: every tool); exits 2 if REV is not a git revision here.
rev_tree() {
    _commit=$(git rev-parse --verify -q "$1^{commit}") ||
        { echo "${0##*/}: '$1' is not a git revision here" >&2; exit 2; }
    shift
    _dir=${TMPDIR:-/tmp}/bench_ab/$_commit
    if [ ! -f "$_dir/.extracted" ]; then
        rm -rf "$_dir" && mkdir -p "$_dir"
        git archive "$_commit" | tar -x -C "$_dir"
        touch "$_dir/.extracted"
    fi
    make -s -j"$(nproc)" -C "$_dir" "$@" >&2
    echo "$_dir"
}
