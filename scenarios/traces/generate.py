#!/usr/bin/env python3
"""Writes scenarios/traces/slurm-llm-sample.txt: a synthetic `sacct` export of an LLM cluster.

    python3 scenarios/traces/generate.py            # rewrites the file (same bytes every time)

The file is what

    sacct --allocations --parsable2 \
          --format=JobID,Submit,Start,End,Elapsed,AllocTRES,State,Account,Partition

prints on a Slurm cluster of H100 nodes in Europe/Berlin (times are local, without a zone)
over one quarter (September to November 2026, plus the partial days around it), growing about
5 % a month. No real job is in it: every job is drawn here, with Python's standard library
only, from a fixed seed.

Its shape follows the public summaries of real GPU clusters (figures are for GPU jobs):

- Shanghai AI Lab Acme (Hu et al., "Characterization of Large Language Model Development in
  the Datacenter", NSDI '24; CC BY 4.0), `data/cluster_summary.csv` of InternLM/AcmeTrace:
  Seren's median job runs 122 s, the mean is 1,414 s, the median job asks for 1 GPU, the mean
  5.7 GPUs (Kalos: 26.8), the largest 1,024; 49.7 % of jobs complete, 42.9 % fail, 7.5 % are
  cancelled, yet cancelled jobs hold 66 % of the GPU time (long pre-training runs stopped by
  hand).
- SenseTime Helios (Hu et al., SC '21; CC BY 4.0), HeliosArtifact's
  `helios_cluster_summary.csv`: median run time 206 s, mean 6,652 s, 3.7 GPUs per job on
  average.

So: most jobs are short 1-GPU debugging and evaluation runs, a fifth are fine-tuning runs of
8-32 GPUs lasting hours, and 2 % are pre-training runs of 64-256 GPUs lasting half a day to two
weeks, which hold most of the GPU-hours. Arrivals follow office hours (local time) with quiet
weekends. About 2 % of jobs are cancelled before they start, a few are still pending or running
at the export, and 5 % are CPU-only preprocessing: fleetsim leaves all of these out (and says
how many). Queueing delays (Start - Submit) are in the file as a real export has them; fleetsim
ignores them (they are the old scheduler's, not an input).
"""

import math
import random
from datetime import datetime, timedelta
from pathlib import Path

SEED = 12
FIRST_DAY = datetime(2026, 9, 1)  # Local midnight; the trace starts the afternoon before.
DAYS = 91  # September to November.
JOBS_PER_DAY = 30.0  # On a September weekday, before growth.
GROWTH_PER_MONTH = 0.05
EXPORT_AT = datetime(2026, 12, 1, 10, 0, 0)  # sacct ran then: later jobs are pending/running.

# Multipliers of the arrival rate by local hour (mean 1) and weekday (Monday first).
DAILY = [0.2, 0.15, 0.1, 0.1, 0.1, 0.15, 0.3, 0.7, 1.4, 1.9, 2.0, 1.9,
         1.5, 1.8, 2.0, 1.9, 1.7, 1.4, 1.0, 0.8, 0.7, 0.6, 0.4, 0.3]
WEEKLY = [1.15, 1.15, 1.15, 1.15, 1.05, 0.35, 0.3]

# Job kinds: share of jobs, GPU counts, log-normal duration (median hours, sigma), account,
# final states, mean queueing delay (hours).
KINDS = [
    ("debug", 0.44, {1: 0.85, 2: 0.15}, (0.02, 1.3), "llm-dev",
     {"FAILED": 0.6, "COMPLETED": 0.34, "CANCELLED": 0.06}, 0.01),
    ("eval", 0.24, {1: 0.5, 2: 0.2, 4: 0.2, 8: 0.1}, (0.15, 1.0), "llm-eval",
     {"COMPLETED": 0.6, "FAILED": 0.3, "CANCELLED": 0.1}, 0.05),
    ("sft", 0.25, {8: 0.6, 16: 0.3, 32: 0.1}, (1.5, 1.0), "llm-sft",
     {"COMPLETED": 0.55, "FAILED": 0.3, "CANCELLED": 0.1, "TIMEOUT": 0.05}, 0.3),
    ("pretrain", 0.02, {64: 0.4, 128: 0.4, 256: 0.2}, (10.0, 1.1), "llm-pretrain",
     {"COMPLETED": 0.3, "CANCELLED": 0.5, "FAILED": 0.2}, 2.0),
    ("cpu", 0.05, {0: 1.0}, (0.2, 1.0), "data-prep",
     {"COMPLETED": 0.9, "FAILED": 0.1}, 0.01),
]
MAX_DURATION_H = 14 * 24.0
NEVER_STARTED = 0.02


def pick(rng, weights):
    u, total = rng.random(), 0.0
    for value, weight in weights.items():
        total += weight
        if u < total:
            return value
    return value


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def elapsed(seconds):
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    clock = f"{h:02d}:{m:02d}:{s:02d}"
    return f"{days}-{clock}" if days else clock


def arrivals(rng):
    """Non-homogeneous Poisson arrivals by thinning, hour by hour (local time)."""
    start = FIRST_DAY - timedelta(hours=10)  # 14:00 the day before: a partial first day.
    t = start
    peak = JOBS_PER_DAY / 24 * max(DAILY) * max(WEEKLY) * (1 + GROWTH_PER_MONTH) ** 4
    while True:
        t += timedelta(hours=rng.expovariate(peak))
        if t >= EXPORT_AT:
            return
        months = max(0.0, (t - FIRST_DAY).days / 30.4375)
        rate = (JOBS_PER_DAY / 24 * DAILY[t.hour] * WEEKLY[t.weekday()]
                * (1 + GROWTH_PER_MONTH) ** months)
        if rng.random() < rate / peak:
            yield t.replace(microsecond=0)


def main():
    rng = random.Random(SEED)
    rows = ["JobID|Submit|Start|End|Elapsed|AllocTRES|State|Account|Partition"]
    job_id = 40000
    for submit in arrivals(rng):
        job_id += 1
        kind = pick(rng, {k[0]: k[1] for k in KINDS})
        _, _, gpu_mix, (median_h, sigma), account, states, queue_h = next(
            k for k in KINDS if k[0] == kind)
        gpus = pick(rng, gpu_mix)
        # Eval jobs often come as array tasks.
        ident = f"{job_id}_{rng.randrange(8)}" if kind == "eval" and rng.random() < 0.3 else str(job_id)
        partition = "cpu" if gpus == 0 else "gpu"
        if rng.random() < NEVER_STARTED:
            rows.append(f"{ident}|{stamp(submit)}|None|{stamp(submit + timedelta(minutes=rng.randrange(1, 120)))}"
                        f"|00:00:00||CANCELLED by {rng.randrange(1000, 1100)}|{account}|{partition}")
            continue
        start = submit + timedelta(hours=rng.expovariate(1 / queue_h) if queue_h else 0)
        start = start.replace(microsecond=0)
        if start >= EXPORT_AT:
            rows.append(f"{ident}|{stamp(submit)}|Unknown|Unknown|00:00:00||PENDING|{account}|{partition}")
            continue
        hours = min(MAX_DURATION_H, median_h * math.exp(sigma * rng.gauss(0, 1)))
        seconds = max(1, int(round(hours * 3600)))
        end = start + timedelta(seconds=seconds)
        nodes = max(1, math.ceil(gpus / 8))
        cpus = max(4, gpus * 12)
        tres = f"billing={cpus},cpu={cpus}"
        if gpus:
            tres += f",gres/gpu:h100={gpus},gres/gpu={gpus}"
        tres += f",mem={cpus * 8}G,node={nodes}"
        if end > EXPORT_AT:
            rows.append(f"{ident}|{stamp(submit)}|{stamp(start)}|Unknown|{elapsed((EXPORT_AT - start).total_seconds())}"
                        f"|{tres}|RUNNING|{account}|{partition}")
            continue
        state = pick(rng, states)
        if state == "CANCELLED":
            state = f"CANCELLED by {rng.randrange(1000, 1100)}"
        rows.append(f"{ident}|{stamp(submit)}|{stamp(start)}|{stamp(end)}|{elapsed(seconds)}"
                    f"|{tres}|{state}|{account}|{partition}")
    out = Path(__file__).with_name("slurm-llm-sample.txt")
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {len(rows) - 1} jobs to {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
