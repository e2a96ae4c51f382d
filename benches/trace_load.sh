#!/usr/bin/env bash
# Loading a 1-million-job trace (issue 12): time and peak memory of `fleetsim validate` on a
# generated fleetsim CSV and on the same jobs as sacct output, then of a short run whose
# replications all share the one copy (peak memory with 2 and 16 replications on 2 threads).
# The generated files (about 60 and 130 MB) live in a temporary folder and are removed.
#
#   benches/trace_load.sh              # JOBS=1000000
#   JOBS=200000 benches/trace_load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-1000000}
bin=${FLEETSIM:-target/release/fleetsim}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ -n "${FLEETSIM:-}" ] || cargo build --release --quiet
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
    "$(rustc --version); $("$bin" --version), commit $(git rev-parse --short HEAD)"

# $jobs jobs over a year from 2025-01-01, 1-64 GPUs, 1 minute to a day: both formats.
python3 - "$dir" "$jobs" <<'EOF'
import random, sys
from datetime import datetime, timedelta
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
start = datetime(2025, 1, 1)
step = 365 * 86400 / n
with open(f"{out}/jobs.csv", "w") as csv, open(f"{out}/jobs.sacct", "w") as sacct:
    csv.write("submit_time,duration_s,gpus,team\n")
    sacct.write("JobID|Submit|Start|End|Elapsed|AllocTRES|State|Account|Partition\n")
    t = 0.0
    for i in range(n):
        t += rng.expovariate(1 / step)
        submit = start + timedelta(seconds=int(t))
        seconds = rng.randrange(60, 86400)
        gpus = rng.choice((1, 1, 1, 2, 4, 8, 8, 16, 64))
        team = f"team-{rng.randrange(40)}"
        stamp = submit.strftime("%Y-%m-%dT%H:%M:%S")
        csv.write(f"{stamp}Z,{seconds},{gpus},{team}\n")
        end = (submit + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
        h, rest = divmod(seconds, 3600)
        sacct.write(f"{100000 + i}|{stamp}|{stamp}|{end}|{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
                    f"|billing={gpus},cpu={gpus},gres/gpu={gpus},node=1|COMPLETED|{team}|gpu\n")
EOF
ls -l "$dir"/jobs.csv "$dir"/jobs.sacct | awk '{ printf "%s: %.0f MB\n", $NF, $5 / 1e6 }'

scenario() { # $1 trace file, $2 format, $3 replications
    cat <<EOF
start = "2027-01-01"
horizon_months = 1
replications = $3

[[workload]]
name = "history"
trace = "$1"
trace_format = "$2"

[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1.0

[[strategy]]
name = "cloud"
pools = ["cloud"]
EOF
}

measure() { # label, command...
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err"; exit 1; }
    read -r wall rss <"$dir/time"
    printf "%-44s %6.2f s  %7.1f MB peak RSS\n" "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
}

scenario "$dir/jobs.csv" csv 2 >"$dir/csv.toml"
scenario "$dir/jobs.sacct" slurm 2 >"$dir/sacct.toml"
scenario "$dir/jobs.csv" csv 16 >"$dir/csv16.toml"
for i in 1 2 3; do
    measure "validate, fleetsim CSV, $jobs jobs (run $i)" "$bin" validate "$dir/csv.toml"
done
for i in 1 2 3; do
    measure "validate, sacct, $jobs jobs (run $i)" "$bin" validate "$dir/sacct.toml"
done
measure "run: 1 month, 2 replications, 2 threads" "$bin" run "$dir/csv.toml" --out "$dir/out2" --no-charts --quiet --threads 2
measure "run: 1 month, 16 replications, 2 threads" "$bin" run "$dir/csv16.toml" --out "$dir/out16" --no-charts --quiet --threads 2
