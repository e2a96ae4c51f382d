#!/usr/bin/env bash
# The cost of a job against the size of the fleet: the built-in scenario scaled k times
# (arrivals, DGX and reserved nodes, spot quota all times k), one replication, one thread, no
# charts. For each k: jobs, instructions per job (valgrind's callgrind: the same count on any
# load) and jobs/s per core (best of RUNS wall times, the machine may be shared).
#
#   benches/scale.sh                   # k = 1 4 16 64 312, 2 months
#   SCALES="4 64" MONTHS=1 benches/scale.sh
#   FLEETSIM=/path/to/other/build benches/scale.sh
#   CALLGRIND=0 benches/scale.sh       # wall times only (callgrind takes ~50x the run)
#   STRATEGY=hybrid-dgx-spot benches/scale.sh   # one strategy of the scenario alone
set -euo pipefail
cd "$(dirname "$0")/.."
scales=${SCALES:-1 4 16 64 312}
months=${MONTHS:-2}
runs=${RUNS:-3}
bin=${FLEETSIM:-target/release/fleetsim}
callgrind=${CALLGRIND:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -n "${FLEETSIM:-}" ] || cargo build --release --quiet

# With STRATEGY, a copy of the built-in scenario (as `fleetsim init` writes it) that keeps that
# strategy alone, as the baseline: where the cost of a job goes, strategy by strategy.
scenario=()
if [ -n "${STRATEGY:-}" ]; then
    "$bin" init "$out/default.toml" >/dev/null 2>"$out/init.err" || { cat "$out/init.err" >&2; exit 1; }
    awk -v keep="$STRATEGY" '
        function flush() {
            if (in_strategy) { names = names " " name }
            if (in_strategy && name == keep) { printf "%s", block; found = 1 }
            block = ""; name = ""
        }
        /^[ \t]*\[/ { flush(); in_strategy = ($0 ~ /^[ \t]*\[\[[ \t]*strategy[ \t]*\]\]/) }
        in_strategy {
            block = block $0 "\n"
            if ($0 ~ /^[ \t]*name[ \t]*=/) {
                name = $0
                sub(/^[^=]*=[ \t]*/, "", name)
                sub(/[ \t]*(#.*)?$/, "", name)
                gsub(/^["\047]|["\047]$/, "", name)
            }
            next
        }
        /^[ \t]*baseline[ \t]*=/ { $0 = "baseline = \"" keep "\"" }
        { print }
        END {
            flush()
            if (!found) {
                print "scale.sh: the scenario has no strategy " keep "; it has:" names > "/dev/stderr"
                exit 1
            }
        }
    ' "$out/default.toml" > "$out/one.toml"
    scenario=("$out/one.toml")
fi

# The --set options of the scenario at k times.
scaled() {
    local k=$1
    echo --set horizon_months="$months" \
        --set workload.experiments.arrivals_per_day=$((40 * k)) \
        --set workload.fine-tuning.arrivals_per_day=$((20 * k)) \
        --set workload.large-training.arrivals_per_day="$(awk -v k="$k" 'BEGIN { print 0.5 * k }')" \
        --set pool.dgx.nodes=$((4 * k)) \
        --set pool.aws-p5-reserved-y1.nodes=$((4 * k)) \
        --set pool.aws-p5-reserved-y2.nodes=$((4 * k)) \
        --set pool.aws-p5-spot.max_nodes=$((16 * k))
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
    "$("$bin" --version), commit $(git rev-parse --short HEAD); $months months, 1 replication, 1 thread${STRATEGY:+, strategy $STRATEGY alone}"
printf '%6s %8s %12s %14s %14s %12s\n' scale GPUs jobs instr/job "jobs/s (best)" "max RSS KB"
for k in $scales; do
    # shellcheck disable=SC2046
    cmd=("$bin" run ${scenario[@]+"${scenario[@]}"} --replications 1 --threads 1 --no-charts --quiet --force --out "$out/x$k" $(scaled "$k"))
    best=""
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$out/time" "${cmd[@]}" 2>/dev/null
        read -r wall rss < "$out/time"
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$wall best_rss=$rss
        fi
    done
    jobs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "jobs_arrived") c = i; next }
                    { s += $c } END { print s }' "$out/x$k/replications.csv")
    per_job=-
    if [ "$callgrind" = 1 ]; then
        collected=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "${cmd[@]}" 2>&1 \
            | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        per_job=$(awk -v i="$collected" -v j="$jobs" 'BEGIN { printf "%.0f", i / j }')
    fi
    rate=$(awk -v j="$jobs" -v t="$best" 'BEGIN { printf "%.0f", (t > 0 ? j / t : 0) }')
    printf '%6s %8s %12s %14s %14s %12s\n' "x$k" $((4 * k * 8)) "$jobs" "$per_job" "$rate" "$best_rss"
done
