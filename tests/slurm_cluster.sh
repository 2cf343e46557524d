# A single-node Slurm cluster for the tests (tests/test_slurm.sh, tests/storm.sh --slurm):
# munged, slurmctld and slurmd, started here as root with their files in one folder, on ports
# of their own, and stopped by pid. Source it, then:
#   slurm_missing   prints why Slurm cannot run here and returns 0; returns 1 if it can
#   slurm_start DIR starts the cluster with its files in DIR, exports SLURM_CONF, sets
#                   slurm_port (the controller's; slurmd has the next), and returns once the
#                   node is idle; else prints the daemons' last lines and returns 1. Call it
#                   in this shell, not in $(...), which would lose the daemons' pids.
#   slurm_stop      stops the daemons slurm_start started
slurm_pids=""

slurm_missing() {
    for _tool in munged slurmctld slurmd sbatch squeue sinfo scancel; do
        if ! command -v $_tool >/dev/null 2>&1; then
            echo "$_tool not installed (Debian: apt-get install slurm-wlm munge)"; return 0
        fi
    done
    if [ "$(id -u)" -ne 0 ]; then echo "slurmd must run as root to start jobs as any user"; return 0; fi
    return 1
}

slurm_start() {
    _S=$1; mkdir -p "$_S/state" "$_S/spool"
    head -c 1024 /dev/urandom >"$_S/munge.key"; chmod 400 "$_S/munge.key"
    munged -F -f --key-file="$_S/munge.key" --socket="$_S/munge.sock" --pid-file="$_S/munged.pid" \
        --log-file="$_S/munged.log" --seed-file="$_S/munged.seed" >"$_S/munged.out" 2>&1 &
    slurm_pids="$slurm_pids $!"
    slurm_port=$((20000 + $$ % 10000 * 2))   # two ports of our own, so that test runs never share one
    _host=$(hostname -s)
    cat >"$_S/slurm.conf" <<EOT
ClusterName=tftest
SlurmctldHost=$_host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$slurm_port
SlurmdPort=$((slurm_port + 1))
AuthType=auth/munge
AuthInfo=socket=$_S/munge.sock
CredType=cred/munge
StateSaveLocation=$_S/state
SlurmdSpoolDir=$_S/spool
SlurmctldPidFile=$_S/slurmctld.pid
SlurmdPidFile=$_S/slurmd.pid
SlurmctldLogFile=$_S/slurmctld.log
SlurmdLogFile=$_S/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=5
NodeName=$_host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOT
    SLURM_CONF=$_S/slurm.conf; export SLURM_CONF
    until [ -S "$_S/munge.sock" ]; do kill -0 $slurm_pids 2>/dev/null || break; sleep 0.1; done
    slurmctld -D -i -f "$SLURM_CONF" >"$_S/slurmctld.out" 2>&1 &
    slurm_pids="$slurm_pids $!"
    slurmd -D -f "$SLURM_CONF" >"$_S/slurmd.out" 2>&1 &
    slurm_pids="$slurm_pids $!"
    # Up when the node reports idle; two minutes is far more than the few seconds it takes.
    _tries=0
    until [ "$(sinfo -h -n "$_host" -o %t 2>/dev/null)" = idle ]; do
        _tries=$((_tries + 1))
        if [ $_tries -gt 240 ]; then
            echo "node not idle after 2 min: $(tail -n 3 "$_S"/*.log "$_S"/*.out | tr '\n' ' ' | head -c 600)"
            return 1
        fi
        sleep 0.5
    done
}

slurm_stop() {
    for _p in $slurm_pids; do kill "$_p" 2>/dev/null; done
    for _p in $slurm_pids; do wait "$_p" 2>/dev/null; done
    slurm_pids=""
}
