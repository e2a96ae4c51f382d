#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine, for tests and demos of sharded sweeps.
#
#   deploy/slurm/start-local-cluster.sh [--dir DIR] [--port PORT]
#   export SLURM_CONF=DIR/slurm.conf       # then sbatch, squeue, ... talk to it
#   deploy/slurm/stop-local-cluster.sh [--dir DIR]
#
# Installs Debian's Slurm and munge packages if they are missing (needs root and apt-get), then
# starts a private munged, slurmctld and slurmd by hand: they need no service manager, no
# cgroups and no configuration outside DIR (default /tmp/fleetsim-slurm). slurmctld listens on
# PORT (default 6817) and slurmd on PORT+1, so several clusters can run side by side. The node
# is called `localhost` whatever the host's name, and offers as many CPUs as `nproc`.
# Facts behind each setting: shared/notes/slurm-single-node.md of the project.
set -euo pipefail

dir=/tmp/fleetsim-slurm
port=6817
timeout_s=30
while [[ $# -gt 0 ]]; do
    case $1 in
        --dir) dir=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "start-local-cluster.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

log() { echo "start-local-cluster: $*" >&2; }
# The daemons live in /usr/sbin, which a non-login root shell may not have on its PATH.
export PATH=$PATH:/usr/sbin:/sbin

# 1. Packages. Installing does not start any service here (no systemd; policy-rc.d refuses).
packages=(slurmctld slurmd slurm-client munge)
missing=()
for command in slurmctld slurmd sbatch munged; do
    command -v "$command" >/dev/null || missing+=("$command")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
        log "missing ${missing[*]}; install the Debian packages ${packages[*]} (as root: apt-get install ${packages[*]})"
        exit 1
    fi
    log "installing ${packages[*]} (missing: ${missing[*]})"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1; then
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
    fi
fi

if [[ -f $dir/slurmctld.pid ]] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    log "a cluster already runs from $dir; stop it first: deploy/slurm/stop-local-cluster.sh --dir $dir"
    exit 1
fi

# 2. A fresh folder: state, spool, logs, and munge's key and socket. munged refuses a socket
# folder that is not searchable by everyone, and a key readable by others.
rm -rf "$dir"
mkdir -p "$dir"/{state,spool,log,munge}
chmod 0755 "$dir"
chmod 0711 "$dir/munge"
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 0400 "$dir/munge/munge.key"

munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed"

cpus=$(nproc)
# 3. slurm.conf: no cgroups (gVisor and containers cannot give Slurm what it needs), process
# groups to track jobs, no accounting database (job states come from scontrol and the jobcomp
# log), and the scheduler every second so dependent jobs start at once.
cat >"$dir/slurm.conf" <<EOF
ClusterName=fleetsim-local
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/pgid
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf

# 4. The daemons daemonise themselves and write their pid files.
slurmctld -i
slurmd -N localhost

# 5. Ready when the node is idle.
deadline=$((SECONDS + timeout_s))
until [[ $(sinfo -h -o %T 2>/dev/null) == idle ]]; do
    if ((SECONDS >= deadline)); then
        log "the node did not become idle within ${timeout_s} s; sinfo says: $(sinfo -h 2>&1 || true)"
        for file in "$dir"/log/*.log; do
            echo "--- $file" >&2
            tail -n 30 "$file" >&2 || true
        done
        exit 1
    fi
    sleep 0.2
done
log "cluster up: 1 node, $cpus CPUs; export SLURM_CONF=$dir/slurm.conf"
echo "export SLURM_CONF=$dir/slurm.conf"
