//! The model against closed forms: queueing theory, checkpoint theory and exact cost formulas.
//!
//! Each statistical test uses a fixed seed and a tolerance taken from the run's own 99 %
//! confidence interval over replications, and first asserts that the interval is narrow
//! enough for the test to be able to fail.

use fleetsim::records::ReplicationRow;
use fleetsim::runner;
use fleetsim::scenario::Config;
use fleetsim::stats::{Estimate, estimate_at};
use std::sync::atomic::AtomicBool;

use crate::common::config;

fn rows(config: &Config) -> Vec<ReplicationRow> {
    let stop = AtomicBool::new(false);
    runner::run(config, false, &|| {}, &stop)
        .expect("runs")
        .aggregates
        .replications
}

/// The 99 % interval of `metric` over the replications of `strategy`.
fn estimate_of(
    rows: &[ReplicationRow],
    strategy: &str,
    metric: impl Fn(&ReplicationRow) -> f64,
) -> Estimate {
    let values: Vec<f64> = rows
        .iter()
        .filter(|r| r.strategy == strategy)
        .map(metric)
        .collect();
    estimate_at(&values, 0.99)
}

/// Erlang B: probability that all `servers` are busy in M/G/c/c with offered load `load`.
fn erlang_b(servers: u32, load: f64) -> f64 {
    (1..=servers).fold(1.0, |b, k| load * b / (f64::from(k) + load * b))
}

/// Erlang C: probability of waiting in M/M/c with offered load `load` < `servers`.
fn erlang_c(servers: u32, load: f64) -> f64 {
    let b = erlang_b(servers, load);
    let c = f64::from(servers);
    c * b / (c - load * (1.0 - b))
}

/// An on-prem pool of `nodes` 1-GPU nodes that costs nothing.
fn free_on_prem(name: &str, nodes: u32) -> String {
    format!(
        r#"
[[pool]]
name = "{name}"
type = "on_prem"
gpu = "H100"
gpus_per_node = 1
nodes = {nodes}
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
"#
    )
}

fn assert_close(est: &Estimate, exact: f64, relative_width: f64, what: &str) {
    assert!(
        est.half_width() < relative_width * exact.abs(),
        "{what}: too few samples for this test to fail: {est:?} vs exact {exact}"
    );
    assert!(
        (est.mean - exact).abs() <= est.half_width(),
        "{what}: {est:?} vs exact {exact}"
    );
}

#[test]
fn mmc_mean_wait_matches_erlang_c() {
    // M/M/8 at load 6 (utilisation 0.75): exponential arrivals 6 per hour, service mean 1 h.
    let (servers, lambda_per_h, service_h) = (8, 6.0, 1.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
warmup_days = 7
replications = 80
seed = 7
[[workload]]
name = "jobs"
arrivals_per_day = {arrivals_per_day}
gpus = 1
duration_h = {{ dist = "exponential", mean = {service_h} }}
{pool}
[[strategy]]
name = "mmc"
pools = ["cluster"]
"#,
        arrivals_per_day = lambda_per_h * 24.0,
        pool = free_on_prem("cluster", servers),
    );
    let rows = rows(&config(&text));
    let load = lambda_per_h * service_h;
    let exact_h = erlang_c(servers, load) * service_h / (f64::from(servers) - load);
    let wait = estimate_of(&rows, "mmc", |r| r.wait_mean_h);
    assert_close(&wait, exact_h, 0.05, "M/M/8 mean wait");
    // Little's law on the servers: busy GPU-hours per hour = load.
    let busy = estimate_of(&rows, "mmc", |r| r.gpu_hours_busy / (365.0 * 24.0));
    assert_close(&busy, load, 0.01, "busy servers");
}
