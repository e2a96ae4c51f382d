#!/usr/bin/env bash
# Stops the cluster start-local-cluster.sh started from DIR (default /tmp/fleetsim-slurm):
# cancels its jobs (job steps outlive slurmd), then stops slurmd, slurmctld, slurmdbd and MariaDB
# (if started with --accounting) and munged by their pid files, waiting at most TIMEOUT seconds (default 20) for each before killing it.
#
#   deploy/slurm/stop-local-cluster.sh [--dir DIR] [--timeout S] [--remove]
#
# --remove deletes DIR afterwards (its logs included).
set -uo pipefail

dir=/tmp/fleetsim-slurm
timeout_s=20
remove=false
while [[ $# -gt 0 ]]; do
    case $1 in
        --dir) dir=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --remove) remove=true; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "stop-local-cluster.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
export PATH=$PATH:/usr/sbin:/sbin
export SLURM_CONF=$dir/slurm.conf

alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

# Waits for the processes to exit, then kills those still there.
stop_pids() {
    local pid deadline=$((SECONDS + timeout_s))
    for pid in "$@"; do alive "$pid" && kill -TERM "$pid" 2>/dev/null; done
    for pid in "$@"; do
        while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
        if alive "$pid"; then
            echo "stop-local-cluster: $pid did not exit within ${timeout_s} s; killing it" >&2
            kill -KILL "$pid" 2>/dev/null
        fi
    done
}

pid_of() { [[ -f $1 ]] && cat "$1"; }

if [[ -f $SLURM_CONF ]] && alive "$(pid_of "$dir/slurmctld.pid")"; then
    jobs=$(timeout 10 squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
    if [[ -n ${jobs// /} ]]; then
        # shellcheck disable=SC2086
        timeout 10 scancel $jobs 2>/dev/null
        deadline=$((SECONDS + timeout_s))
        while [[ -n $(timeout 10 squeue -h -o %A 2>/dev/null) ]] && ((SECONDS < deadline)); do
            sleep 0.2
        done
    fi
fi
stop_pids "$(pid_of "$dir/slurmd.pid")" "$(pid_of "$dir/slurmctld.pid")"
# With accounting: slurmdbd, then its MariaDB.
stop_pids "$(pid_of "$dir/slurmdbd.pid")"
stop_pids "$(pid_of "$dir/mysql/mariadbd.pid")"
stop_pids "$(pid_of "$dir/munge/munged.pid")"
if $remove; then
    rm -rf "$dir"
fi
exit 0
