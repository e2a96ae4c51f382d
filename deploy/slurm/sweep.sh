#!/usr/bin/env bash
# Runs a fleetsim sweep (or, with --run, a run's replications) on Slurm: an array job with one
# task per shard, then a merge job that depends on all of them. Results: OUT/merged (the files
# the unsharded sweep or run writes), the shards in OUT/shard-K, Slurm's output in OUT/logs.
#
#   deploy/slurm/sweep.sh --shards N --out OUT [options] -- SCENARIO.toml [sweep options...]
#   deploy/slurm/sweep.sh --run --shards N --out OUT [options] -- SCENARIO.toml [run options...]
#
#   --run             shard a run's replications (`fleetsim run --shard K/N`), not a sweep's points
#   --shards N        shards (array tasks), default 4
#   --out OUT         results folder (absolute, or relative to the current folder)
#   --fleetsim PATH   the fleetsim binary every node can run (default: `fleetsim` on PATH)
#   --cpus N          CPUs per shard (--cpus-per-task, and fleetsim --threads), default 1
#   --wait            wait for the merge and exit 0 only if it succeeded
#   --timeout S       with --wait: give up (and cancel the jobs) after S seconds, default 3600
#   --sbatch "ARGS"   more sbatch options for both jobs (e.g. "--partition=cpu --time=2:00:00")
#
# Example:
#   deploy/slurm/sweep.sh --shards 8 --out /shared/sweeps/dgx --wait -- \
#       scenarios/hybrid-vs-cloud.toml --vary pool.dgx.nodes=0..18:2 --vary strategy.hybrid-dgx-spot.burst_after_wait_h=0,1,4
#   deploy/slurm/sweep.sh --run --shards 10 --out /shared/runs/big --wait -- big-fleet.toml --replications 30
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
shards=4 out='' fleetsim=fleetsim cpus=1 wait=false timeout_s=3600 extra='' command=sweep
while [[ $# -gt 0 ]]; do
    case $1 in
        --run) command=run; shift ;;
        --shards) shards=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --fleetsim) fleetsim=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        --wait) wait=true; shift ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --sbatch) extra=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "sweep.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [[ -z $out || $# -eq 0 ]]; then
    echo "sweep.sh: give --out OUT and, after --, the scenario and its $command options (see --help)" >&2
    exit 2
fi
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
    echo "sweep.sh: --shards must be a whole number of at least 1, got $shards" >&2
    exit 2
fi
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
fleetsim=$(command -v "$fleetsim" || echo "$fleetsim")

# Shards and merge run in the current folder (relative scenario paths keep working) and log to
# OUT/logs rather than to slurm-*.out files here. --parsable prints the job id.
# shellcheck disable=SC2086
array=$(sbatch --parsable $extra --array="1-$shards" --cpus-per-task="$cpus" \
    --chdir="$PWD" --output="$out/logs/shard-%a.out" \
    "$here/shard.sbatch" "$fleetsim" "$out" "$shards" "$command" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable $extra --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --chdir="$PWD" --output="$out/logs/merge.out" \
    "$here/merge.sbatch" "$fleetsim" "$out" "$shards")
merge=${merge%%;*}
echo "submitted shards as array job $array (tasks 1-$shards) and the merge as job $merge" >&2
echo "$array $merge"
$wait || exit 0

# sbatch --wait polls slowly (2 s, then 8 s, ...): poll squeue instead.
deadline=$((SECONDS + timeout_s))
while [[ -n $(squeue -h -j "$array,$merge" -o %i 2>/dev/null) ]]; do
    if ((SECONDS >= deadline)); then
        echo "sweep.sh: jobs $array and $merge still running after ${timeout_s} s; cancelling them" >&2
        scancel "$array" "$merge" 2>/dev/null || true
        exit 1
    fi
    sleep 0.5
done
state=$(scontrol -o show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
done_file=sweep.csv
[[ $command == run ]] && done_file=summary.csv
if [[ $state == COMPLETED || ( -z $state && -f $out/merged/$done_file ) ]]; then
    echo "$command done: $out/merged" >&2
    exit 0
fi
echo "sweep.sh: the merge job $merge ended ${state:-in an unknown state}; shard states:" >&2
scontrol -o show job "$array" 2>/dev/null | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobState=[A-Z_]*\|ExitCode=[0-9:]*' | paste -sd' ' >&2 || true
for log in "$out"/logs/*.out; do
    [[ -f $log ]] || continue
    echo "--- $log" >&2
    tail -n 20 "$log" >&2
done
exit 1
