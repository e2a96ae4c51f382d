#!/usr/bin/env bash
# The figures of docs/performance.md: jobs per second on one core (M/M/c and spot), 1 against
# 2 threads, and peak memory against the horizon. Each timing is repeated RUNS times and
# reported as best, median and worst, since the machine may be shared.
#
#   benches/measure.sh                    # RUNS=5
#   WAIT_IDLE=1 benches/measure.sh        # each run waits (up to 10 min) for idle cores
#   FLEETSIM=/path/to/fleetsim benches/measure.sh   # another build (e.g. an older commit)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
bin=${FLEETSIM:-target/release/fleetsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -n "${FLEETSIM:-}" ] || cargo build --release --quiet

build="commit $(git rev-parse --short HEAD)"
[ -z "${FLEETSIM:-}" ] || build=$bin
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
    "$(rustc --version); $("$bin" --version), $build"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# With WAIT_IDLE set: waits until $1 cores (all by default) were idle over 2 s (at most 300
# tries), so that other processes on a shared machine do not time-share the cores measured.
settle() {
    [ -n "${WAIT_IDLE:-}" ] || return 0
    local need=${1:-$(nproc)} before after
    for _ in $(seq 300); do
        before=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
        sleep 2
        after=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
        # Idle share of all cores at least (need - 0.05) / cores.
        if awk -v a="$before" -v b="$after" -v need="$need" -v cores="$(nproc)" 'BEGIN {
                split(a, x); split(b, y); busy = y[1] - x[1]; all = busy + y[2] - x[2];
                exit !((all - busy) * cores >= (need - 0.05) * all) }'; then
            return 0
        fi
    done
    echo "  (the cores never went idle)" >&2
}

# Runs "$@" RUNS times; prints wall and user seconds of each, one run per line.
timed() {
    for _ in $(seq "$runs"); do
        settle 1
        /usr/bin/time -f "%e %U %M" -o "$out/time" "$@" > /dev/null
        cat "$out/time"
    done
}

# Prints best / median / worst of `count / seconds` over the lines on stdin (column $2).
rate() {
    local count=$1 column=$2
    sort -k"$column" -g | awk -v n="$count" -v c="$column" '
        { t[NR] = $c }
        END { printf "%.2fM best, %.2fM median, %.2fM worst", n / t[1] / 1e6,
              n / t[int((NR + 1) / 2)] / 1e6, n / t[NR] / 1e6 }'
}

jobs_of() { awk -F, 'NR == 2 { print $5 }' "$1/replications.csv"; }
events_of() { grep -o '"events_simulated": [0-9]*' "$1/run.json" | grep -o '[0-9]*$'; }

for scenario in mmc spot; do
    cmd=("$bin" run "benches/$scenario.toml" --replications 1 --threads 1 --quiet --no-charts --force
         --out "$out/$scenario")
    echo
    echo "\$ ${cmd[*]/#$out/\$TMP}"
    timed "${cmd[@]}" > "$out/$scenario.times"
    jobs=$(jobs_of "$out/$scenario")
    events=$(events_of "$out/$scenario")
    echo "$scenario: $jobs jobs, $events events per run"
    echo "  jobs/s wall:   $(rate "$jobs" 1 < "$out/$scenario.times")"
    echo "  jobs/s CPU:    $(rate "$jobs" 2 < "$out/$scenario.times")"
    echo "  events/s wall: $(rate "$events" 1 < "$out/$scenario.times")"
done

echo
cmd1=("$bin" run benches/mmc.toml --set horizon_months=12 --replications 8 --quiet --no-charts --force
      --out "$out/threads")
echo "\$ ${cmd1[*]/#$out/\$TMP} --threads 1   (and --threads 2; interleaved)"
for _ in $(seq "$runs"); do
    settle
    for threads in 1 2; do
        /usr/bin/time -f "%e %U" -o "$out/time" "${cmd1[@]}" --threads "$threads" > /dev/null
        echo "$(cat "$out/time")" >> "$out/threads$threads.times"
    done
done
jobs=$(awk -F, 'NR > 1 { n += $5 } END { print n }' "$out/threads/replications.csv")
for threads in 1 2; do
    echo "  $threads thread(s): $(rate "$jobs" 1 < "$out/threads$threads.times") jobs/s wall;" \
        "user s: $(awk '{ printf "%s ", $2 }' "$out/threads$threads.times")"
done
best1=$(sort -g "$out/threads1.times" | head -1 | cut -d' ' -f1)
best2=$(sort -g "$out/threads2.times" | head -1 | cut -d' ' -f1)
echo "  speed-up, best against best: $(awk -v a="$best1" -v b="$best2" 'BEGIN { printf "%.2f", a / b }')x"

echo
for months in 12 120; do
    cmd=("$bin" run benches/mmc.toml --set "horizon_months=$months" --replications 1 --threads 1
         --quiet --no-charts --force --out "$out/rss")
    /usr/bin/time -f "%M" -o "$out/time" "${cmd[@]}" > /dev/null
    echo "\$ /usr/bin/time -v ${cmd[*]/#$out/\$TMP}"
    echo "  $months months: $(jobs_of "$out/rss") jobs, max RSS $(cat "$out/time") KB"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
