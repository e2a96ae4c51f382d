#!/usr/bin/env bash
# Sweep throughput against one run of the same number of replications (issue 5, item 9).
#
#   benches/sweep_throughput.sh [ROUNDS] [FLEETSIM] [POINTS]
#
# POINTS (default 100) sets the size of `same` and `run` below (3 x POINTS replications); the
# `sweep` case runs only at 100. The order of the cases alternates from round to round, so
# that a burst of other work on the machine does not always hit the same case.
#
# Each round runs, one after the other:
#   sweep   a 100-point sweep of the default scenario, 3 replications per point:
#           10 DGX sizes x 10 burst thresholds x 4 strategies x 3 = 1,200 (strategy,
#           replication) units, written as 100 point folders plus sweep.csv;
#   same    a 100-point sweep whose points all do the default scenario's work: it varies only
#           the on-demand price (1 to 100 EUR), which changes costs but no event, so its units
#           cost what the run's do and the difference is the sweep's own overhead;
#   run     one `fleetsim run` of the default scenario with 300 replications: the same 1,200
#           units in one run.
# `sweep` and `run` do different work per unit (0 to 18 DGX nodes, and jobs queueing up to 24 h
# at high burst thresholds, against 4 nodes and 1 h), so `same` against `run` is the measure of
# the sweep machinery. Wall time runs from process start to exit, output files included; CPU
# time (user + system of the process) is less disturbed by other work on the machine.
set -euo pipefail
rounds=${1:-3}
fleetsim=${2:-target/release/fleetsim}
points=${3:-100}
scenario=scenarios/hybrid-vs-cloud.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$rounds" "$fleetsim" "$scenario" "$work" "$points" <<'PY'
import json, os, resource, subprocess, sys, time
rounds, fleetsim, scenario, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
points = int(sys.argv[5])
units = 3 * 4 * points
cases = {
    "same": ["sweep", scenario, "--vary", f"pool.aws-p5-on-demand.price_per_gpu_h=1..{points}:1",
             "--replications", "3"],
    "run": ["run", scenario, "--replications", str(3 * points)],
}
if points == 100:
    cases["sweep"] = ["sweep", scenario, "--vary", "pool.dgx.nodes=0..18:2",
                      "--vary", "strategy.hybrid-dgx-spot.burst_after_wait_h=0,0.5,1,2,4,8,12,16,20,24",
                      "--replications", "3"]
print(f"{'round':<6}{'what':<6}{'wall_s':>8}{'cpu_s':>8}{'repl/s':>9}{'repl/cpu_s':>12}{'events/cpu_s':>14}")
for r in range(1, rounds + 1):
    order = list(cases.items())
    for name, args in (order if r % 2 else order[::-1]):
        out = os.path.join(work, f"{name}-{r}")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        subprocess.run([fleetsim, *args, "--threads", "2", "-q", "--out", out],
                       check=True, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        info = json.load(open(os.path.join(out, "run.json" if name == "run" else "invocation.json")))
        events = info["events_simulated"]
        print(f"{r:<6}{name:<6}{wall:>8.1f}{cpu:>8.1f}{units / wall:>9.1f}{units / cpu:>12.2f}{events / cpu:>14.0f}", flush=True)
PY
