"""The M/M/c queue of benches/mmc.toml, written the usual SimPy way, for benches/simpy/compare.sh.

c servers (a simpy.Resource, FIFO), Poisson arrivals, exponential service; each job records
its wait from arrival to start. Prints one JSON line: jobs, wall and CPU seconds of the run and
jobs per second of each, the mean wait with a 95 % batch-means interval (30 batches of jobs in
start order), and the exact mean wait from Erlang C.

    python benches/simpy/mmc.py --servers 100 --arrivals-per-h 90 --service-h 1 --horizon-h 8760
"""

import argparse
import json
import math
import random
import time

import simpy


def erlang_c_wait_h(servers, arrivals_per_h, service_h):
    """Exact mean wait of M/M/c (Erlang C), hours."""
    load = arrivals_per_h * service_h
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    c = servers
    p_wait = c * b / (c - load * (1.0 - b))
    return p_wait * service_h / (servers - load)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--arrivals-per-h", type=float, default=90.0)
    parser.add_argument("--service-h", type=float, default=1.0)
    parser.add_argument("--horizon-h", type=float, default=8760.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    env = simpy.Environment()
    servers = simpy.Resource(env, capacity=args.servers)
    waits = []  # In start order; kept only to form batch means after the run.
    arrived = 0

    def job(arrival_h):
        with servers.request() as request:
            yield request
            waits.append(env.now - arrival_h)
            yield env.timeout(rng.expovariate(1.0 / args.service_h))

    def source():
        nonlocal arrived
        while True:
            yield env.timeout(rng.expovariate(args.arrivals_per_h))
            arrived += 1
            env.process(job(env.now))

    env.process(source())
    started, started_cpu = time.perf_counter(), time.process_time()
    env.run(until=args.horizon_h)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - started_cpu

    n = len(waits)
    mean = sum(waits) / n
    batches = 30
    size = n // batches
    means = [sum(waits[i * size:(i + 1) * size]) / size for i in range(batches)]
    grand = sum(means) / batches
    sd = math.sqrt(sum((m - grand) ** 2 for m in means) / (batches - 1))
    half_width = 2.045 * sd / math.sqrt(batches)  # Student t, 29 degrees of freedom, 95 %.
    print(json.dumps({
        "tool": "simpy " + simpy.__version__,
        "jobs": arrived,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "jobs_per_s": arrived / seconds,
        "jobs_per_cpu_s": arrived / cpu_seconds,
        "wait_mean_h": mean,
        "wait_ci95_half_h": half_width,
        "erlang_c_wait_h": erlang_c_wait_h(args.servers, args.arrivals_per_h, args.service_h),
    }))


if __name__ == "__main__":
    main()
