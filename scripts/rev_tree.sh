# Sourced by the scripts that measure two revisions side by side (bench_ab.sh, walls_ab.sh,
# profile_ops.sh --rev): a built copy of a git revision beside the working tree, and the runs of
# the two sides alternated.
case ${0##*/} in
    rev_tree.sh) echo "usage: . scripts/rev_tree.sh   (from another script: not a command)"
                 case ${1:-} in -h|--help) exit 0 ;; *) exit 2 ;; esac ;;
esac

# rev_tree REV [TARGET...]: prints the folder ${TMPDIR:-/tmp}/revs/COMMIT that holds REV (git
# archive, extracted once and kept for the next call) after `make TARGET...` there (default:
# every tool); exits 2 if REV is not a git revision here, 1 if it does not build.
rev_tree() {
    _rev=$1 _commit=$(git rev-parse --verify -q "$1^{commit}") ||
        { echo "${0##*/}: '$1' is not a git revision here" >&2; exit 2; }
    shift
    _dir=${TMPDIR:-/tmp}/revs/$_commit
    if [ ! -f "$_dir/.extracted" ]; then
        rm -rf "$_dir" && mkdir -p "$_dir"
        git archive "$_commit" | tar -x -C "$_dir"
        touch "$_dir/.extracted"
    fi
    make -s -j"$(nproc)" -C "$_dir" "$@" >&2 ||
        { echo "${0##*/}: $_rev does not build in $_dir" >&2; exit 1; }
    echo "$_dir"
}

# alternate N RUN ARG_A ARG_B: N pairs of `RUN a ARG_A I` and `RUN b ARG_B I` (I the pair), A
# first in odd pairs and B first in even ones, so that a host whose speed drifts slows both alike.
alternate() {
    _pair=1
    while [ "$_pair" -le "$1" ]; do
        if [ $((_pair % 2)) = 1 ]; then "$2" a "$3" "$_pair"; "$2" b "$4" "$_pair"
        else "$2" b "$4" "$_pair"; "$2" a "$3" "$_pair"; fi
        _pair=$((_pair + 1))
    done
}

# cpu_line: "CPU: NAME, family F model M, N cores", the head of a file of measurements.
cpu_line() {
    awk -F': ' '/^model name/ && !n { n = $2 } /^cpu family/ && !f { f = $2 }
                /^model\t/ && !m { m = $2 } END { printf "CPU: %s, family %s model %s", n, f, m }' /proc/cpuinfo
    echo ", $(getconf _NPROCESSORS_ONLN) cores"
}
