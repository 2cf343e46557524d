#!/bin/sh
# One training of an experiment script's plan (a file of task lines that scripts/lib.sh's
# train_run wrote), as a Slurm array task runs it: `--slurm` submits
# `scripts/run_task.sh PLAN` with --array=1-N. Run from the top level.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
    cat <<'EOT'
usage: scripts/run_task.sh PLAN [N]

Trains task N (default: $SLURM_ARRAY_TASK_ID) of PLAN, a task file written by an experiment
script's --slurm, with run.threads = $SLURM_CPUS_PER_TASK (default 1). A run folder with a
checkpoint resumes from it. SIGTERM and SIGINT are left to the trainer (it saves a checkpoint
and stops); SIGUSR1 (sbatch --signal=B:USR1@T, the warning before the time limit) is passed on
to it as SIGTERM. Exits non-zero if the run did not finish.
EOT
}
case "${1:-}" in -h|--help) usage; exit 0 ;; '') usage >&2; exit 2 ;; esac
plan=$1; task=${2:-${SLURM_ARRAY_TASK_ID:-}}
[ -f "$plan" ] || die "no task file '$plan'"
case "$task" in ''|*[!0-9]*) die "which task? give N, or run as a Slurm array task" ;; esac
RUN_THREADS="run.threads=${SLURM_CPUS_PER_TASK:-1}"
trap '' TERM INT
trap '[ -n "$TRAIN_PID" ] && kill -TERM "$TRAIN_PID"' USR1
task_run "$plan" "$task"
