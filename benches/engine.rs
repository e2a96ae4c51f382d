//! Engine benchmarks: how many jobs (and events) one core simulates per second, and how that
//! scales with the horizon, the pool size, the number of threads, and with spot capacity.
//!
//! ```text
//! cargo bench --bench engine                  # everything, about four minutes
//! cargo bench --bench engine -- mmc/          # one group (a regex over the benchmark ids)
//! cargo bench --bench engine -- --test        # each benchmark once, as a smoke test
//! ```
//!
//! Scenarios come from TOML text, as users write them: `benches/mmc.toml` (M/M/c, 1-GPU jobs,
//! utilisation 0.9) and `benches/spot.toml` (spot preemptions and waves, checkpointing, 8-GPU
//! nodes, gangs, a shortfall window, node failures). Every run is deterministic, so the job and
//! event counts used for throughput come from one run before measuring; they are printed too,
//! so that events/s follow from any jobs/s figure. Figures and machine: docs/performance.md.

use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use fleetsim::model::simulate;
use fleetsim::runner;
use fleetsim::scenario::{self, Config, Override};

const MMC: &str = include_str!("mmc.toml");
const SPOT: &str = include_str!("spot.toml");

/// Checks scenario text with `--set`-style overrides; panics on a bad scenario (a bench bug).
fn config(text: &str, sets: &[String]) -> Config {
    let overrides: Vec<Override> = sets
        .iter()
        .map(|set| Override::parse(set).expect("valid --set"))
        .collect();
    match scenario::load_text(text, Path::new("<bench>"), "bench", &overrides) {
        Ok(loaded) => loaded.config,
        Err(error) => panic!("invalid bench scenario: {error}"),
    }
}

/// The M/M/c bench scenario with `nodes` servers at utilisation 0.9 over `months`.
fn mmc(nodes: u32, months: u32) -> Config {
    let arrivals_per_day = 0.9 * f64::from(nodes) * 24.0;
    config(
        MMC,
        &[
            format!("pool.cluster.nodes={nodes}"),
            format!("workload.jobs.arrivals_per_day={arrivals_per_day}"),
            format!("horizon_months={months}"),
        ],
    )
}

/// Jobs and events of replication 0 of strategy 0 (runs are deterministic).
fn counts(config: &Config, label: &str) -> (u64, u64) {
    let unit = simulate(config, 0, 0, false).expect("runs");
    let jobs = unit.row.jobs_arrived;
    eprintln!(
        "{label}: {jobs} jobs, {} events per run ({:.2} events per job)",
        unit.events,
        unit.events as f64 / jobs as f64
    );
    (jobs, unit.events)
}

/// Long runs: a few flat samples and a short warm-up keep the whole bench to minutes.
fn long_group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group
}

fn run_unit(config: &Config) -> u64 {
    let unit = simulate(black_box(config), 0, 0, false).expect("runs");
    black_box(unit.row.jobs_completed)
}

/// The headline: one replication of M/M/100 over 24 months, about 1.6 million jobs.
fn mmc_headline(c: &mut Criterion) {
    let config = config(MMC, &[]);
    let (jobs, events) = counts(&config, "mmc 100 nodes 24 months");
    let mut group = long_group(c, "mmc");
    group.throughput(Throughput::Elements(jobs));
    group.bench_function("jobs", |b| b.iter(|| run_unit(&config)));
    group.throughput(Throughput::Elements(events));
    group.bench_function("events", |b| b.iter(|| run_unit(&config)));
    group.finish();
}

/// Scaling with the horizon: memory and per-job cost must not grow with it.
fn horizon_ladder(c: &mut Criterion) {
    let mut group = long_group(c, "horizon");
    for months in [1, 12, 120] {
        let config = mmc(100, months);
        let (jobs, _) = counts(&config, &format!("mmc 100 nodes {months} months"));
        group.throughput(Throughput::Elements(jobs));
        group.bench_with_input(
            BenchmarkId::new("100 nodes, months", months),
            &config,
            |b, config| b.iter(|| run_unit(config)),
        );
    }
    group.finish();
}

/// Scaling with the pool: the event queue and the node index grow with it.
fn pool_ladder(c: &mut Criterion) {
    let mut group = long_group(c, "pool");
    for nodes in [10, 100, 1_000, 10_000] {
        let config = mmc(nodes, 1);
        let (jobs, _) = counts(&config, &format!("mmc {nodes} nodes 1 month"));
        group.throughput(Throughput::Elements(jobs));
        group.bench_with_input(
            BenchmarkId::new("1 month, nodes", nodes),
            &config,
            |b, config| b.iter(|| run_unit(config)),
        );
    }
    group.finish();
}

/// Replications in parallel: the same 8 units in rayon pools of 1 and 2 threads.
fn threads(c: &mut Criterion) {
    let config = config(MMC, &["horizon_months=3".into(), "replications=8".into()]);
    let (jobs, _) = counts(&config, "mmc 100 nodes 3 months");
    let mut group = long_group(c, "threads");
    group.throughput(Throughput::Elements(jobs * 8));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("threads start");
        let stop = AtomicBool::new(false);
        group.bench_with_input(
            BenchmarkId::new("8 replications, threads", threads),
            &config,
            |b, config| {
                b.iter(|| {
                    pool.install(|| runner::run(black_box(config), false, &|| {}, &stop))
                        .expect("runs")
                        .events
                })
            },
        );
    }
    group.finish();
}

/// Spot: preemptions, waves, checkpoints, gangs of 8-GPU nodes, shortfalls, node failures.
fn spot(c: &mut Criterion) {
    let config = config(SPOT, &[]);
    let (jobs, events) = counts(&config, "spot 12 months");
    let mut group = long_group(c, "spot");
    group.throughput(Throughput::Elements(jobs));
    group.bench_function("jobs", |b| b.iter(|| run_unit(&config)));
    group.throughput(Throughput::Elements(events));
    group.bench_function("events", |b| b.iter(|| run_unit(&config)));
    group.finish();
}

criterion_group!(
    benches,
    mmc_headline,
    horizon_ladder,
    pool_ladder,
    threads,
    spot
);
criterion_main!(benches);
