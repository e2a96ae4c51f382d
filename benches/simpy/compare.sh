#!/usr/bin/env bash
# fleetsim against SimPy on the same M/M/c queue (benches/mmc.toml): same servers, arrival rate,
# service time, horizon and FIFO discipline. Checks that both mean waits agree with Erlang C
# within their 95 % intervals, then prints both throughputs (jobs per second, wall clock and
# CPU time, one core each) and their ratio.
#
#   benches/simpy/compare.sh                  # 12 months, about 790,000 jobs
#   MONTHS=3 RUNS=5 benches/simpy/compare.sh  # shorter, more repeats
#
# SimPy comes from PyPI into .venv-simpy (created on first use). Timings are the best of RUNS
# runs each (the machine is shared); fleetsim's include reading the scenario and writing CSVs.
set -euo pipefail
cd "$(dirname "$0")/../.."
months=${MONTHS:-12}
runs=${RUNS:-3}
servers=100
arrivals_per_h=90
service_h=1
venv=.venv-simpy
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

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

echo "SimPy: $runs run(s) of $horizon_h h" >&2
for i in $(seq "$runs"); do
    "$venv/bin/python" benches/simpy/mmc.py --servers $servers --arrivals-per-h $arrivals_per_h \
        --service-h $service_h --horizon-h "$horizon_h" --seed "$i" >> "$out/simpy.jsonl"
done

echo "fleetsim: $runs run(s) of 1 replication on 1 thread" >&2
for i in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$out/time" "$fleetsim" run benches/mmc.toml "${sets[@]}" \
        --replications 1 --threads 1 --quiet --no-charts --force --out "$out/speed"
    jobs=$(awk -F, 'NR == 2 { print $5 }' "$out/speed/replications.csv")
    echo "$jobs $(cat "$out/time")" >> "$out/fleetsim.txt"
done

echo "fleetsim: 20 replications for the mean wait" >&2
"$fleetsim" run benches/mmc.toml "${sets[@]}" --replications 20 --quiet --no-charts --force --out "$out/wait"

python3 - "$out" "$months" "$horizon_h" "$($fleetsim --version)" <<'PY'
import csv, json, sys
out, months, horizon_h, version = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
simpy = [json.loads(line) for line in open(f"{out}/simpy.jsonl")]
fleet = []
for line in open(f"{out}/fleetsim.txt"):
    jobs, wall, user, system = line.split()
    fleet.append((int(jobs), float(wall), float(user) + float(system)))
exact = simpy[0]["erlang_c_wait_h"]
row = next(r for r in csv.DictReader(open(f"{out}/wait/summary.csv"))
           if r["metric"] == "wait_mean_h")
f_mean, f_low, f_high = float(row["mean"]), float(row["ci95_low"]), float(row["ci95_high"])
s_best_wall = max(s["jobs_per_s"] for s in simpy)
s_best_cpu = max(s["jobs_per_cpu_s"] for s in simpy)
f_best_wall = max(j / w for j, w, _ in fleet)
f_best_cpu = max(j / c for j, _, c in fleet if c > 0)
print(f"M/M/100, 90 arrivals per hour, service 1 h (utilisation 0.9), FIFO, {months} months "
      f"({horizon_h} h)")
print(f"exact mean wait (Erlang C): {exact:.5f} h")
print(f"{'':18}{'jobs':>10}{'jobs/s wall':>14}{'jobs/s CPU':>14}   mean wait h (95 % CI)")
for s in simpy:
    low, high = s["wait_mean_h"] - s["wait_ci95_half_h"], s["wait_mean_h"] + s["wait_ci95_half_h"]
    print(f"{s['tool']:18}{s['jobs']:>10,}{s['jobs_per_s']:>14,.0f}{s['jobs_per_cpu_s']:>14,.0f}"
          f"   {s['wait_mean_h']:.5f} ({low:.5f} .. {high:.5f}){'' if low <= exact <= high else '  exact outside'}")
for jobs, wall, cpu in fleet:
    print(f"{version:18}{jobs:>10,}{jobs / wall:>14,.0f}{jobs / cpu if cpu > 0 else float('nan'):>14,.0f}")
print(f"{version + ', 20 reps':28}{'':28}   {f_mean:.5f} ({f_low:.5f} .. {f_high:.5f})"
      f"{'' if f_low <= exact <= f_high else '  exact outside'}")
print(f"best of each: fleetsim {f_best_wall:,.0f} vs SimPy {s_best_wall:,.0f} jobs/s wall "
      f"(x{f_best_wall / s_best_wall:,.0f}); {f_best_cpu:,.0f} vs {s_best_cpu:,.0f} jobs per CPU "
      f"second (x{f_best_cpu / s_best_cpu:,.0f})")
PY
