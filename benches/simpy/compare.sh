#!/usr/bin/env bash
# fleetsim against SimPy on the same M/M/c queue (benches/mmc.toml): same servers, arrival rate,
# service time, horizon and FIFO discipline. Checks that both mean waits agree with Erlang C
# within their 95 % intervals, then prints both throughputs (jobs per second, wall clock and
# CPU time, one core each) and their ratio.
#
#   benches/simpy/compare.sh                  # 12 months, about 790,000 jobs, ~4 minutes
#   MONTHS=3 RUNS=9 benches/simpy/compare.sh  # shorter, more repeats
#   WAIT_IDLE=1 benches/simpy/compare.sh      # each timed run waits for an idle core
#
# SimPy comes from PyPI into .venv-simpy (created on first use). fleetsim runs RUNS times and
# SimPy SIMPY_RUNS times (seeds 1, 2, ...): its mean wait is estimated over those runs, and one
# run of a year varies by about 8 % (sd), so 15 runs are needed for an interval as narrow as
# fleetsim's 20 replications. Timings: best and median of the runs (the machine is shared);
# fleetsim's include reading the scenario and writing the CSV files.
set -euo pipefail
cd "$(dirname "$0")/../.."
months=${MONTHS:-12}
runs=${RUNS:-5}
simpy_runs=${SIMPY_RUNS:-15}
servers=100
arrivals_per_h=90
service_h=1
venv=.venv-simpy
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# As in benches/measure.sh: with WAIT_IDLE set, wait (at most 300 tries) for a core that was
# idle over 2 s.
settle() {
    [ -n "${WAIT_IDLE:-}" ] || return 0
    local before after
    for _ in $(seq 300); do
        before=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
        sleep 2
        after=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
        if awk -v a="$before" -v b="$after" -v cores="$(nproc)" 'BEGIN {
                split(a, x); split(b, y); busy = y[1] - x[1]; all = busy + y[2] - x[2];
                exit !((all - busy) * cores >= 0.95 * all) }'; then
            return 0
        fi
    done
}

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet simpy
fi
cargo build --release --quiet
fleetsim=target/release/fleetsim
sets=(--set "horizon_months=$months" --set "pool.cluster.nodes=$servers"
      --set "workload.jobs.arrivals_per_day=$((arrivals_per_h * 24))")
# The horizon in hours, as fleetsim's calendar has it (start 2027-01-01).
horizon_h=$(python3 -c "
import datetime
start = datetime.date(2027, 1, 1)
y, m = divmod(start.month - 1 + $months, 12)
print((datetime.date(start.year + y, m + 1, 1) - start).days * 24)")

echo "SimPy: $simpy_runs run(s) of $horizon_h h" >&2
for i in $(seq "$simpy_runs"); do
    settle
    "$venv/bin/python" benches/simpy/mmc.py --servers $servers --arrivals-per-h $arrivals_per_h \
        --service-h $service_h --horizon-h "$horizon_h" --seed "$i" >> "$out/simpy.jsonl"
done

echo "fleetsim: $runs run(s) of 1 replication on 1 thread" >&2
for i in $(seq "$runs"); do
    settle
    /usr/bin/time -f "%e %U %S" -o "$out/time" "$fleetsim" run benches/mmc.toml "${sets[@]}" \
        --replications 1 --threads 1 --quiet --no-charts --force --out "$out/speed"
    jobs=$(awk -F, 'NR == 2 { print $5 }' "$out/speed/replications.csv")
    echo "$jobs $(cat "$out/time")" >> "$out/fleetsim.txt"
done

echo "fleetsim: 20 replications for the mean wait" >&2
"$fleetsim" run benches/mmc.toml "${sets[@]}" --replications 20 --quiet --no-charts --force --out "$out/wait"

python3 - "$out" "$months" "$horizon_h" "$($fleetsim --version)" <<'PY'
import csv, json, math, statistics, sys
out, months, horizon_h, version = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}
simpy = [json.loads(line) for line in open(f"{out}/simpy.jsonl")]
fleet = []
for line in open(f"{out}/fleetsim.txt"):
    jobs, wall, user, system = line.split()
    fleet.append((int(jobs), float(wall), float(user) + float(system)))
exact = simpy[0]["erlang_c_wait_h"]
row = next(r for r in csv.DictReader(open(f"{out}/wait/summary.csv"))
           if r["metric"] == "wait_mean_h")
f_mean, f_half = float(row["mean"]), (float(row["ci95_high"]) - float(row["ci95_low"])) / 2
means = [s["wait_mean_h"] for s in simpy]
s_mean = statistics.fmean(means)
if len(means) > 1:
    # Runs have their own seeds: a Student-t interval over runs.
    s_half = T95[min((k for k in T95 if k >= len(means) - 1), default=30)] \
        * statistics.stdev(means) / math.sqrt(len(means))
    s_what = f"{len(means)} runs"
else:
    s_half, s_what = simpy[0]["wait_ci95_half_h"], "1 run, batch means"
tool = simpy[0]["tool"]

def covers(mean, half):
    return "contains" if abs(mean - exact) <= half else "MISSES"

print(f"M/M/100, 90 arrivals per hour, service 1 h (utilisation 0.9), FIFO, {months} months "
      f"({horizon_h} h); exact mean wait (Erlang C) {exact:.5f} h")
print("mean wait, hours (95 % interval):")
print(f"  {tool + ', ' + s_what:33} {s_mean:.5f} ({s_mean - s_half:.5f} .. {s_mean + s_half:.5f})"
      f", {covers(s_mean, s_half)} Erlang C")
print(f"  {version + ', 20 replications':33} {f_mean:.5f} ({f_mean - f_half:.5f} .. "
      f"{f_mean + f_half:.5f}), {covers(f_mean, f_half)} Erlang C")
both = math.hypot(s_half, f_half)
print(f"  difference {abs(s_mean - f_mean):.5f} h; combined half-width {both:.5f} h: "
      f"{'the same within noise' if abs(s_mean - f_mean) <= both else 'DIFFERENT'}")
s_wall = [s["jobs_per_s"] for s in simpy]
s_cpu = [s["jobs_per_cpu_s"] for s in simpy]
f_wall = [j / w for j, w, _ in fleet]
f_cpu = [j / c for j, _, c in fleet if c > 0]
fmt = lambda values: " ".join(f"{v:,.0f}" for v in values)
print("throughput, jobs per second on one core (best; every run):")
print(f"  {tool:16} wall {max(s_wall):>11,.0f}  CPU {max(s_cpu):>11,.0f}   ({fmt(s_wall)})")
print(f"  {version:16} wall {max(f_wall):>11,.0f}  CPU {max(f_cpu):>11,.0f}   ({fmt(f_wall)})")
print(f"  fleetsim / SimPy: x{max(f_wall) / max(s_wall):,.0f} wall clock, "
      f"x{max(f_cpu) / max(s_cpu):,.0f} CPU time (best against best); "
      f"x{statistics.median(f_wall) / statistics.median(s_wall):,.0f} median against median")
PY
