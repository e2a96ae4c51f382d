#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine, for tests and demos of sharded sweeps.
#
#   deploy/slurm/start-local-cluster.sh [--install] [--dir DIR] [--port PORT] [--cpus N] [--gpus N] [--accounting]
#   export SLURM_CONF=DIR/slurm.conf       # then sbatch, squeue, ... talk to it
#   deploy/slurm/stop-local-cluster.sh [--dir DIR]
#
# Needs Debian's `slurmctld slurmd slurm-client munge`: a missing one is an error that names
# it, unless --install, which installs what is missing (as root, with .ci/install-test-tools:
# no recommends, and nothing already installed is upgraded). Then it starts a private munged,
# slurmctld and slurmd by hand: they need no service manager, no cgroups and no configuration
# outside DIR (default /tmp/fleetsim-slurm). slurmctld listens on PORT (default 6817) and slurmd
# on PORT+1, so several clusters can run side by side. The node is called `localhost` whatever
# the host's name, and offers as many CPUs as `nproc` (--cpus: more, overcommitted). --gpus N
# gives it N GPUs as a `gpu` GRES whose devices are links to /dev/null: jobs ask for them with
# --gres=gpu:K and Slurm counts and accounts for them. --accounting also starts a private
# MariaDB (port PORT+3, data in DIR/mysql) and slurmdbd (PORT+2), so that sacct works; it needs
# Debian's `slurmdbd mariadb-server` too.
# Facts behind each setting: shared/notes/slurm-single-node.md of the project.
set -euo pipefail

dir=/tmp/fleetsim-slurm
port=6817
timeout_s=30
cpus=$(nproc)
gpus=0
accounting=false
install=false
while [[ $# -gt 0 ]]; do
    case $1 in
        --dir) dir=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        --gpus) gpus=$2; shift 2 ;;
        --accounting) accounting=true; shift ;;
        --install) install=true; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "start-local-cluster.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

log() { echo "start-local-cluster: $*" >&2; }
# The daemons live in /usr/sbin, which a non-login root shell may not have on its PATH.
export PATH=$PATH:/usr/sbin:/sbin

# 1. Packages: the tools of each, checked as .ci/install-test-tools checks them.
packages=(slurmctld slurmd slurm-client munge)
commands=(slurmctld slurmd sbatch sinfo squeue scancel munged)
group=slurm
if $accounting; then
    packages+=(slurmdbd mariadb-server)
    commands+=(sacctmgr slurmdbd mariadbd mariadb-install-db mariadb-admin mariadb)
    group=slurm-accounting
fi
missing=()
for command in "${commands[@]}"; do
    command -v "$command" >/dev/null || missing+=("$command")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    installer=$(dirname "$0")/../../.ci/install-test-tools
    if ! $install; then
        log "missing ${missing[*]}: install Debian's ${packages[*]} (as root: $0 --install ...," \
            "or apt-get install --no-install-recommends ${packages[*]})"
        exit 1
    fi
    if [[ ! -x $installer ]]; then
        log "--install needs .ci/install-test-tools of a fleetsim clone beside deploy/; install ${packages[*]} by hand"
        exit 1
    fi
    # Installing does not start any service here (no systemd; policy-rc.d refuses).
    "$installer" "$group"
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

# 3. slurm.conf: no cgroups (gVisor and containers cannot give Slurm what it needs), process
# groups to track jobs, no accounting database unless --accounting (job states come from
# scontrol and the jobcomp log), and the scheduler every second so dependent jobs start at once.
node_extra=''
gres_types=''
if ((gpus > 0)); then
    # GPUs that Slurm only counts out and back. Slurm 22.05 drops a `gpu` GRES without device
    # files ("Removing file-less GPU"), and wants character devices: each GPU is a link to
    # /dev/null.
    mkdir -p "$dir/dev"
    for ((i = 0; i < gpus; i++)); do ln -s /dev/null "$dir/dev/gpu$i"; done
    node_extra=" Gres=gpu:$gpus"
    gres_types='GresTypes=gpu'
    echo "NodeName=localhost Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" >"$dir/gres.conf"
fi
overrides=''
if ((cpus > $(nproc))); then
    overrides='SlurmdParameters=config_overrides'  # More CPUs than cores (gotcha 5).
fi
accounting_conf='AccountingStorageType=accounting_storage/none'
if $accounting; then
    # sacct and sacctmgr reach slurmdbd with munge at AccountingStoragePass (gotcha 3); GPUs
    # appear in AllocTRES only if gres/gpu is tracked.
    accounting_conf="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((port + 2))
AccountingStoragePass=$dir/munge/munge.socket
AccountingStorageTRES=gres/gpu"
fi
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
$accounting_conf
JobAcctGatherType=jobacct_gather/none
$gres_types
$overrides
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
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN$node_extra
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf

# 3b. With --accounting: a private MariaDB (its own data folder, socket and port), a database
# user for slurmdbd, slurmdbd itself, and the cluster registered before slurmctld starts
# (gotcha 10).
if $accounting; then
    db_port=$((port + 3))
    mkdir -p "$dir/mysql"
    mariadb-install-db --no-defaults --user=root --datadir="$dir/mysql/data" \
        --auth-root-authentication-method=normal --skip-test-db >"$dir/log/mariadb-install.log" 2>&1
    setsid mariadbd --no-defaults --user=root --datadir="$dir/mysql/data" \
        --socket="$dir/mysql/mysqld.sock" --port="$db_port" --bind-address=127.0.0.1 \
        --pid-file="$dir/mysql/mariadbd.pid" --log-error="$dir/log/mariadb.log" \
        </dev/null >/dev/null 2>&1 &
    deadline=$((SECONDS + timeout_s))
    until mariadb-admin --no-defaults --socket="$dir/mysql/mysqld.sock" -u root ping >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            log "MariaDB did not start within ${timeout_s} s"
            tail -n 30 "$dir/log/mariadb.log" >&2
            exit 1
        fi
        sleep 0.2
    done
    mariadb --no-defaults --socket="$dir/mysql/mysqld.sock" -u root -e "
        CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
    cat >"$dir/slurmdbd.conf" <<END_OF_CONF
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((port + 2))
SlurmUser=root
LogFile=$dir/log/slurmdbd.log
PidFile=$dir/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
END_OF_CONF
    chmod 0600 "$dir/slurmdbd.conf"
    slurmdbd  # Reads slurmdbd.conf beside $SLURM_CONF, daemonises, writes its pid file.
    deadline=$((SECONDS + timeout_s))
    until timeout 5 sacctmgr -n -i list cluster >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            log "slurmdbd did not answer within ${timeout_s} s"
            tail -n 30 "$dir/log/slurmdbd.log" >&2
            exit 1
        fi
        sleep 0.3
    done
    timeout 20 sacctmgr -i add cluster fleetsim-local >/dev/null
fi

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
log "cluster up: 1 node, $cpus CPUs, $gpus GPUs$($accounting && echo ', accounting' || true); export SLURM_CONF=$dir/slurm.conf"
echo "export SLURM_CONF=$dir/slurm.conf"
