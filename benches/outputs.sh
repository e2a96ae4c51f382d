#!/usr/bin/env bash
# Writes the CSV outputs of the reference runs to DIR, for byte-for-byte comparison before and
# after a performance change (run.json is left out: it holds the wall time).
#
#   FLEETSIM=/tmp/fleetsim-before benches/outputs.sh /tmp/before
#   benches/outputs.sh /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# The runs: every shipped scenario and claim scenario (3 replications, with jobs.csv and the
# FOCUS export), the bench scenarios, the default scenario scaled 16 times (so that queues are
# long and classes many) under each queue discipline and placement, and M/M/c variants with
# backfill on 8-GPU nodes. QUICK=1 leaves out the claims and the larger runs.
set -euo pipefail
out=${1:?usage: benches/outputs.sh DIR}
bin=${FLEETSIM:-target/release/fleetsim}
quick=${QUICK:-0}
mkdir -p "$out"
run() {
    local name=$1
    shift
    "$bin" run "$@" --out "$out/$name.tmp" --force --quiet --no-charts 2>"$out/$name.stderr"
    mkdir -p "$out/$name"
    for file in "$out/$name.tmp"/*.csv; do
        mv "$file" "$out/$name/"
    done
    rm -rf "$out/$name.tmp"
}
# The default scenario at k times its arrivals and fleet, for `months` months.
scaled() {
    local k=$1 months=$2
    echo --set horizon_months="$months" \
        --set workload.experiments.arrivals_per_day=$((40 * k)) \
        --set workload.fine-tuning.arrivals_per_day=$((20 * k)) \
        --set workload.large-training.arrivals_per_day="$(awk -v k="$k" 'BEGIN { print 0.5 * k }')" \
        --set pool.dgx.nodes=$((4 * k)) \
        --set pool.aws-p5-reserved-y1.nodes=$((4 * k)) \
        --set pool.aws-p5-reserved-y2.nodes=$((4 * k)) \
        --set pool.aws-p5-spot.max_nodes=$((16 * k))
}
strategies="reserved-burst hybrid-dgx-on-demand hybrid-dgx-spot"

run hybrid --threads 2 --trace --focus
run mmc benches/mmc.toml --replications 3 --threads 2 --trace
run mmc-backfill benches/mmc.toml --replications 2 --set horizon_months=6 \
    --set strategy.fifo.queue=backfill --set pool.cluster.gpus_per_node=8 --set pool.cluster.nodes=12
run spot benches/spot.toml --replications 4 --threads 2 --trace
for scenario in scenarios/*.toml; do
    run "$(basename "$scenario" .toml)" "$scenario" --replications 3 --threads 2 --trace --focus
done
[ "$quick" = 1 ] && exit 0
run mmc-priority benches/mmc.toml --replications 2 --set horizon_months=3 \
    --set strategy.fifo.queue=priority --set pool.cluster.gpus_per_node=8 --set pool.cluster.nodes=12
for scenario in scenarios/claims/*.toml; do
    run "claim-$(basename "$scenario" .toml)" "$scenario" --replications 3 --threads 2 --trace --focus
done
# shellcheck disable=SC2046
run x16-backfill --replications 2 --threads 2 --trace $(scaled 16 1)
for queue in fifo priority; do
    sets=()
    for s in $strategies; do sets+=(--set "strategy.$s.queue=$queue"); done
    # shellcheck disable=SC2046
    run "x16-$queue" --replications 2 --threads 2 $(scaled 16 1) "${sets[@]}"
done
sets=()
for s in $strategies; do sets+=(--set "strategy.$s.placement=spread"); done
# shellcheck disable=SC2046
run x16-spread --replications 2 --threads 2 $(scaled 16 1) "${sets[@]}"
# shellcheck disable=SC2046
run x64 --replications 1 --threads 2 $(scaled 64 1)
