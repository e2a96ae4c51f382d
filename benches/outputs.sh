#!/usr/bin/env bash
# Writes the CSV outputs of the reference runs to DIR, for byte-for-byte comparison before and
# after a performance change (run.json is left out: it holds the wall time).
#
#   benches/outputs.sh /tmp/before          # on the old commit
#   benches/outputs.sh /tmp/after           # on the new one
#   diff -r /tmp/before /tmp/after && echo identical
set -euo pipefail
out=${1:?usage: benches/outputs.sh DIR}
bin=${FLEETSIM:-target/release/fleetsim}
mkdir -p "$out"
run() {
    local name=$1
    shift
    "$bin" run "$@" --out "$out/$name.tmp" --force --quiet --no-charts
    mkdir -p "$out/$name"
    for file in "$out/$name.tmp"/*.csv; do
        mv "$file" "$out/$name/"
    done
    rm -rf "$out/$name.tmp"
}
run hybrid --threads 2 --trace
run mmc benches/mmc.toml --replications 3 --threads 2 --trace
run mmc-backfill benches/mmc.toml --replications 2 --set horizon_months=6 \
    --set strategy.fifo.queue=backfill --set pool.cluster.gpus_per_node=8 --set pool.cluster.nodes=12
run spot benches/spot.toml --replications 4 --threads 2 --trace
for scenario in spot-checkpointing specialist-cloud-shortfall dgx-payback reserved-vs-on-demand; do
    run "$scenario" "scenarios/$scenario.toml" --replications 4 --threads 2
done
