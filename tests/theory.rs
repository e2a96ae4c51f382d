//! The model against closed forms: queueing theory, checkpoint theory and exact cost formulas.
//!
//! Each statistical test uses a fixed seed and a tolerance taken from the run's own 99 %
//! confidence interval over replications, and first asserts that the interval is narrow
//! enough for the test to be able to fail.

use fleetsim::records::{ReplicationRow, RunOutput};
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

/// Hours of 2027 (365 days), the horizon of the 12-month scenarios from 2027-01-01.
const HOURS_2027: f64 = 365.0 * 24.0;

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
    // Shown with `--nocapture`: the figures of the closing notes come from here.
    eprintln!(
        "{what}: simulated {:.6} +- {:.6} (99 %), exact {exact:.6}",
        est.mean,
        est.half_width()
    );
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
    let busy = estimate_of(&rows, "mmc", |r| r.gpu_hours_busy / HOURS_2027);
    assert_close(&busy, load, 0.01, "busy servers");
}

/// The `p` quantile of the M/M/c waiting time, from the Erlang C waiting-time distribution
/// P(W > t) = C(c, a) e^(-(c mu - lambda) t): zero while p <= 1 - C, else
/// ln(C / (1 - p)) / (c mu - lambda), with c mu - lambda = (c - a) / service_h.
fn erlang_c_wait_quantile_h(servers: u32, load: f64, service_h: f64, p: f64) -> f64 {
    let waiting = erlang_c(servers, load);
    if 1.0 - p >= waiting {
        0.0
    } else {
        (waiting / (1.0 - p)).ln() * service_h / (f64::from(servers) - load)
    }
}

/// Wait percentiles of an M/M/c queue against Erlang C's waiting-time distribution, in its
/// tail: where p95 is many hours (they saturated near 2 h).
fn assert_wait_percentiles(
    servers: u32,
    gpus_per_node: u32,
    lambda_per_h: f64,
    months: u32,
    replications: u32,
) {
    let service_h = 1.0;
    let pool = format!(
        r#"
[[pool]]
name = "cluster"
type = "on_prem"
gpu = "H100"
gpus_per_node = {gpus_per_node}
nodes = {nodes}
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
"#,
        nodes = servers / gpus_per_node
    );
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = {months}
warmup_days = 30
replications = {replications}
seed = 21
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
    );
    let rows = rows(&config(&text));
    let load = lambda_per_h * service_h;
    for (p, metric) in [
        (
            0.5,
            (|r: &ReplicationRow| r.wait_p50_h) as fn(&ReplicationRow) -> f64,
        ),
        (0.9, |r| r.wait_p90_h),
        (0.95, |r| r.wait_p95_h),
        (0.99, |r| r.wait_p99_h),
    ] {
        let exact_h = erlang_c_wait_quantile_h(servers, load, service_h, p);
        let est = estimate_of(&rows, "mmc", metric);
        assert_close(
            &est,
            exact_h,
            0.05,
            &format!("M/M/{servers} wait p{}", p * 100.0),
        );
    }
}

#[test]
fn mm1_wait_percentiles_match_the_erlang_c_waiting_time_distribution() {
    // M/M/1 at utilisation 0.8, 1 h service: P(W > t) = 0.8 e^(-0.2 t); p50 2.350 h,
    // p90 10.397 h, p95 13.863 h, p99 21.910 h.
    assert!((erlang_c_wait_quantile_h(1, 0.8, 1.0, 0.95) - 13.862_944).abs() < 1e-5);
    assert_wait_percentiles(1, 1, 0.8, 24, 200);
}

#[test]
fn mmc_wait_percentiles_match_the_erlang_c_waiting_time_distribution() {
    // M/M/8 at utilisation 0.95 on one 8-GPU node (1-GPU jobs share it): p95 about 7 h.
    assert_wait_percentiles(8, 8, 7.6, 48, 160);
}

/// Runs a scenario and returns its units' pool rows and replication rows.
fn run_all(config: &Config) -> RunOutput {
    let stop = AtomicBool::new(false);
    runner::run(config, false, &|| {}, &stop).expect("runs")
}

fn pool_estimate(
    output: &RunOutput,
    pool: &str,
    metric: impl Fn(&fleetsim::records::PoolRow) -> f64,
) -> Estimate {
    let values: Vec<f64> = output
        .units
        .iter()
        .flat_map(|u| u.pools.iter())
        .filter(|p| p.pool == pool)
        .map(metric)
        .collect();
    estimate_at(&values, 0.99)
}

/// An on-demand pool of 1-GPU nodes, no quota, no delays, released as soon as idle.
fn instant_cloud(name: &str, kind: &str, price: f64, extra: &str) -> String {
    format!(
        r#"
[[pool]]
name = "{name}"
type = "{kind}"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = {price}
{extra}
"#
    )
}

#[test]
fn burst_share_from_a_full_on_prem_pool_matches_erlang_b() {
    // A loss system: jobs that find the 10 on-prem GPUs busy burst at once to unlimited
    // on-demand (burst_after_wait_h = 0). Log-normal service: Erlang B is insensitive to it.
    let (servers, lambda_per_h, price) = (10, 8.0, 4.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 40
seed = 11
[[workload]]
name = "jobs"
arrivals_per_day = {arrivals_per_day}
gpus = 1
duration_h = {{ dist = "lognormal", mu = -0.18, sigma = 0.6 }}
{on_prem}
{cloud}
[[strategy]]
name = "burst"
pools = ["dgx", "cloud"]
burst_after_wait_h = 0
"#,
        arrivals_per_day = lambda_per_h * 24.0,
        on_prem = free_on_prem("dgx", servers),
        cloud = instant_cloud("cloud", "on_demand", price, ""),
    );
    let config = config(&text);
    // Log-normal mean: exp(mu + sigma^2 / 2) = exp(-0.18 + 0.36 / 2) = e^0 = 1 h.
    let mean_service_h = 1.0;
    let load = lambda_per_h * mean_service_h;
    let blocking = erlang_b(servers, load);
    let rows = rows(&config);
    let share = estimate_of(&rows, "burst", |r| {
        r.burst_jobs as f64 / r.jobs_arrived as f64
    });
    assert_close(&share, blocking, 0.03, "share of jobs bursting");
    // The cloud is billed for the overflow's work: p a B T (per-second billing adds < 1e-3).
    let horizon_h = HOURS_2027;
    let cloud_cost = estimate_of(&rows, "burst", |r| r.cost_on_demand);
    assert_close(
        &cloud_cost,
        price * load * blocking * horizon_h,
        0.03,
        "cloud cost",
    );
    assert!(
        rows.iter().all(|r| r.wait_mean_h == 0.0),
        "nobody waits in a loss system with burst"
    );
}

#[test]
fn reserved_plus_on_demand_overflow_costs_k_p_1_minus_d_t_plus_p_a_b_t() {
    let (k, lambda_per_h, service_h, price, discount) = (6, 4.0, 1.0, 10.0, 0.4);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 120
seed = 12
[[workload]]
name = "jobs"
arrivals_per_day = {arrivals_per_day}
gpus = 1
duration_h = {{ dist = "exponential", mean = {service_h} }}
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
gpus_per_node = 1
nodes = {k}
price_per_gpu_h = {price}
discount = {discount}
term_months = 12
{cloud}
[[strategy]]
name = "reserved-burst"
pools = ["committed", "cloud"]
"#,
        arrivals_per_day = lambda_per_h * 24.0,
        cloud = instant_cloud("cloud", "on_demand", price, ""),
    );
    let config = config(&text);
    let horizon_h = HOURS_2027;
    let load = lambda_per_h * service_h;
    let rows = rows(&config);
    // The commitment is exact in every replication.
    for row in &rows {
        let committed = f64::from(k) * price * (1.0 - discount) * horizon_h;
        assert!(
            (row.cost_reserved - committed).abs() < 1e-6 * committed,
            "{} vs {committed}",
            row.cost_reserved
        );
    }
    // All the randomness is in the overflow, so that is where the interval must be narrow.
    let overflow = price * load * erlang_b(k, load) * horizon_h;
    let cloud = estimate_of(&rows, "reserved-burst", |r| r.cost_on_demand);
    assert_close(&cloud, overflow, 0.02, "overflow cost");
    let exact = f64::from(k) * price * (1.0 - discount) * horizon_h + overflow;
    let total = estimate_of(&rows, "reserved-burst", |r| r.total_cost);
    assert_close(&total, exact, 0.01, "reserved plus overflow cost");
}

#[test]
fn on_prem_cost_follows_the_formula_exactly() {
    // 3 nodes of 8 GPUs bought in month 2 of 12, amortised over 6 months: capital ends in
    // month 7. Energy = (idle kW x nodes x hours + (full - idle) kW x busy GPU-h / 8) x PUE x price.
    let text = r#"
start = "2027-01-01"
horizon_months = 12
replications = 3
seed = 13
[[workload]]
name = "jobs"
arrivals_per_day = 30
gpus = { 1 = 0.5, 8 = 0.5 }
duration_h = { dist = "gamma", mean = 2.0, cv = 1.5 }
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 3
purchase_month = 2
capex_per_node = 300000
amortization_months = 6
residual_fraction = 0.2
power_kw_per_node = 10
idle_power_kw_per_node = 2.5
pue = 1.4
electricity_per_kwh = 0.25
opex_per_node_month = 1000
[[strategy]]
name = "owned"
pools = ["dgx"]
"#;
    let config = config(text);
    // Owned from 1 March to the end of 2027: 365 - 31 - 28 = 306 days.
    let owned_h = 306.0 * 24.0;
    let output = run_all(&config);
    for unit in &output.units {
        let row = &unit.row;
        let capital = 3.0 * 300_000.0 * 0.8;
        let energy = (2.5 * 3.0 * owned_h + 7.5 * row.gpu_hours_busy / 8.0) * 1.4 * 0.25;
        let operations = 3.0 * 1000.0 * 10.0;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(row.cost_capital, capital),
            "{} vs {capital}",
            row.cost_capital
        );
        assert!(close(row.cost_capital_cash, 3.0 * 300_000.0));
        assert!(
            close(row.cost_energy, energy),
            "{} vs {energy}",
            row.cost_energy
        );
        assert!(close(row.cost_operations, operations));
        assert!(close(row.total_cost, capital + energy + operations));
        assert!(close(row.total_cost_cash, 900_000.0 + energy + operations));
        assert!(close(row.gpu_hours_paid, 24.0 * owned_h));
        assert!(row.gpu_hours_busy > 0.0 && row.gpu_hours_busy <= row.gpu_hours_paid);
        // Capital falls in months 2..8 only; cash in month 2.
        for (m, month) in unit.months.iter().enumerate() {
            let expected = if (2..8).contains(&m) {
                capital / 6.0
            } else {
                0.0
            };
            assert!(
                close(month.cost_capital, expected),
                "month {m}: {}",
                month.cost_capital
            );
            assert_eq!(
                month.cost_capital_cash,
                if m == 2 { 900_000.0 } else { 0.0 }
            );
        }
        // Nothing runs before the purchase: jobs queue until month 2.
        assert_eq!(
            unit.months[0].gpu_hours_busy + unit.months[1].gpu_hours_busy,
            0.0
        );
    }
}

#[test]
fn checkpointed_jobs_on_spot_finish_as_dalys_formula_says() {
    // Fixed 10 h jobs checkpoint every 1 h (write 0.1 h), restore 0.2 h, on unlimited spot
    // 1-GPU nodes preempted every M = 5 h on average. Each segment of L hours takes
    // M e^(R/M) (e^(L/M) - 1) in expectation: 9 segments of 1.1 h, then the last hour.
    // "auto" must choose the Young/Daly interval sqrt(2 x 0.1 x 5) = 1 h: the same answer.
    // So must a 2-GPU gang on nodes lost every 10 h: the gang is hit every 5 h.
    let (work_h, every_h, write_h, restart_h, mtbf_h): (f64, f64, f64, f64, f64) =
        (10.0, 1.0, 0.1, 0.2, 5.0);
    assert!(((2.0 * write_h * mtbf_h).sqrt() - every_h).abs() < 1e-12);
    let segment_h =
        |length_h: f64| mtbf_h * (restart_h / mtbf_h).exp() * ((length_h / mtbf_h).exp() - 1.0);
    let exact_h = 9.0 * segment_h(every_h + write_h) + segment_h(work_h - 9.0 * every_h);
    for (every, gpus, node_mtbf_h) in [
        ("1.0", 1, mtbf_h),
        ("\"auto\"", 1, mtbf_h),
        ("\"auto\"", 2, 2.0 * mtbf_h),
    ] {
        let text = format!(
            r#"
start = "2027-01-01"
horizon_months = 12
replications = 20
seed = 21
[[workload]]
name = "training"
arrivals_per_day = 12
gpus = {gpus}
duration_h = {work_h}
checkpoint = {{ every_h = {every}, write_h = {write_h}, restart_h = {restart_h} }}
{spot}
[[strategy]]
name = "spot"
pools = ["spot"]
"#,
            spot = instant_cloud(
                "spot",
                "spot",
                1.0,
                &format!("preemption = {{ mean_h = {node_mtbf_h} }}")
            ),
        );
        let rows = rows(&config(&text));
        let turnaround = estimate_of(&rows, "spot", |r| r.turnaround_mean_h);
        assert_close(
            &turnaround,
            exact_h,
            0.01,
            &format!("completion time, every_h = {every}, {gpus} GPU(s)"),
        );
        assert!(
            rows.iter()
                .all(|r| r.preemptions > 0 && r.lost_gpu_hours > 0.0)
        );
    }
}

#[test]
fn without_checkpoints_a_preempted_job_starts_over() {
    // Restart from zero: a job of W hours on nodes lost every M hours takes M (e^(W/M) - 1).
    let (work_h, mtbf_h): (f64, f64) = (3.0, 4.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 20
seed = 22
[[workload]]
name = "jobs"
arrivals_per_day = 24
gpus = 1
duration_h = {work_h}
{spot}
[[strategy]]
name = "spot"
pools = ["spot"]
"#,
        spot = instant_cloud(
            "spot",
            "spot",
            1.0,
            &format!("preemption = {{ mean_h = {mtbf_h} }}")
        ),
    );
    let exact_h = mtbf_h * ((work_h / mtbf_h).exp() - 1.0);
    let rows = rows(&config(&text));
    assert_close(
        &estimate_of(&rows, "spot", |r| r.turnaround_mean_h),
        exact_h,
        0.01,
        "restart from zero",
    );
    // Busy time = useful work + lost work (nothing is checkpointed). Useful work is W per
    // completed job plus what the runs still going at the horizon have done so far: less than
    // W each, and only unfinished jobs have such a run.
    for row in &rows {
        assert_eq!(row.checkpoint_gpu_hours, 0.0, "{row:?}");
        let completed_h = work_h * row.jobs_completed as f64;
        let in_progress_h = row.gpu_hours_busy - row.lost_gpu_hours - completed_h;
        let rounding_h = 1e-9 * row.gpu_hours_busy;
        assert!(
            in_progress_h >= -rounding_h
                && in_progress_h <= work_h * row.jobs_unfinished as f64 + rounding_h,
            "busy {} h = lost {} h + completed {completed_h} h + {in_progress_h} h in progress, \
             with {} jobs unfinished",
            row.gpu_hours_busy,
            row.lost_gpu_hours,
            row.jobs_unfinished
        );
        assert!(row.lost_gpu_hours > 0.0, "{row:?}");
    }
}

/// Hours of the weekday window 09:00-18:00 in 2027, which starts on a Friday: 261 weekdays
/// of 9 hours.
fn weekday_window_hours_2027() -> f64 {
    let weekdays = (0..365).filter(|day| (4 + day) % 7 < 5).count();
    assert_eq!(
        weekdays, 261,
        "52 weeks of 5 weekdays, and Friday 31 December"
    );
    weekdays as f64 * 9.0
}

#[test]
fn calendar_shortfall_sends_the_expected_share_of_jobs_elsewhere() {
    // During weekday office hours each request to the specialist fails with probability 0.6
    // and the job goes to the hyperscaler at once. Share served by the specialist:
    // 1 - 0.6 x (window hours / all hours), for Poisson arrivals.
    let shortfall = 0.6;
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 20
seed = 23
[[workload]]
name = "jobs"
arrivals_per_day = 200
gpus = 1
duration_h = {{ dist = "exponential", mean = 0.5 }}
{specialist}
{hyperscaler}
[[strategy]]
name = "specialist-first"
pools = ["specialist", "hyperscaler"]
"#,
        specialist = instant_cloud(
            "specialist",
            "on_demand",
            2.0,
            &format!(
                r#"availability = {{ shortfall = {shortfall}, window = "weekdays 09:00-18:00", retry_h = 0.25 }}"#
            )
        ),
        hyperscaler = instant_cloud("hyperscaler", "on_demand", 4.0, ""),
    );
    let config = config(&text);
    let window_share = weekday_window_hours_2027() / HOURS_2027;
    let output = run_all(&config);
    let arrivals: Vec<f64> = output
        .units
        .iter()
        .map(|u| u.row.jobs_arrived as f64)
        .collect();
    let served: Vec<f64> = output
        .units
        .iter()
        .map(|u| {
            u.pools
                .iter()
                .find(|p| p.pool == "specialist")
                .unwrap()
                .jobs_started as f64
        })
        .collect();
    let share: Vec<f64> = served.iter().zip(&arrivals).map(|(s, a)| s / a).collect();
    let est = estimate_at(&share, 0.99);
    assert_close(
        &est,
        1.0 - shortfall * window_share,
        0.005,
        "share served by the specialist",
    );
    // Every refused request is counted, and refused jobs are the ones the hyperscaler got.
    let failed = pool_estimate(&output, "specialist", |p| p.failed_requests as f64);
    let hyperscaler = pool_estimate(&output, "hyperscaler", |p| p.jobs_started as f64);
    assert_eq!(failed.mean, hyperscaler.mean);
}

#[test]
fn random_shortfall_episodes_cover_one_minus_e_to_the_minus_load() {
    // Episodes start as a Poisson process (4 a month), last 36 h on average and may overlap:
    // the pool is constrained while at least one runs, a share 1 - exp(-rate x mean length)
    // of the time (M/G/inf). With shortfall 1, that share of jobs goes elsewhere.
    let (per_month, mean_h) = (4.0, 36.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 24
replications = 120
seed = 24
[[workload]]
name = "jobs"
arrivals_per_day = 50
gpus = 1
duration_h = 0.25
{specialist}
{hyperscaler}
[[strategy]]
name = "specialist-first"
pools = ["specialist", "hyperscaler"]
"#,
        specialist = instant_cloud(
            "specialist",
            "on_demand",
            2.0,
            &format!(
                "availability = {{ shortfall = 1.0, episodes_per_month = {per_month}, episode_mean_h = {mean_h} }}"
            )
        ),
        hyperscaler = instant_cloud("hyperscaler", "on_demand", 4.0, ""),
    );
    let config = config(&text);
    // Episodes per month are per mean month of the horizon: 2027 and 2028 (a leap year) have
    // 365 + 366 = 731 days, 24 months of 731 h on average.
    let rate_per_h: f64 = per_month / 731.0;
    let constrained = 1.0 - (-rate_per_h * mean_h).exp();
    let output = run_all(&config);
    let share: Vec<f64> = output
        .units
        .iter()
        .map(|u| {
            u.pools
                .iter()
                .find(|p| p.pool == "hyperscaler")
                .unwrap()
                .jobs_started as f64
                / u.row.jobs_arrived as f64
        })
        .collect();
    assert_close(
        &estimate_at(&share, 0.99),
        constrained,
        0.05,
        "share of jobs in an episode",
    );
}

#[test]
fn spot_preemptions_and_waves_take_the_expected_nodes() {
    // 50 spot nodes stay busy all year (a quota of 50 and a queue of endless jobs refilling
    // every lost node at once). Individual preemptions: 50 x T / mean_h. Waves: 2 a month,
    // each taking 30 % of the nodes: 0.3 x 50 x 2 x 12 in expectation.
    let (nodes, mean_h, waves_per_month, fraction) = (50, 500.0, 2.0, 0.3);
    let spot = |waves: f64| {
        format!(
            r#"
start = "2027-01-01"
horizon_months = 12
replications = 40
seed = 25
[[workload]]
name = "endless"
arrivals_per_day = 200
gpus = 1
duration_h = 100000
{spot}
[[strategy]]
name = "spot"
pools = ["spot"]
"#,
            spot = instant_cloud(
                "spot",
                "spot",
                1.0,
                &format!(
                    "max_nodes = {nodes}\npreemption = {{ mean_h = {mean_h}, waves_per_month = {waves}, wave_fraction = {fraction} }}"
                )
            ),
        )
    };
    let config_individual = config(&spot(0.0));
    let horizon_h = HOURS_2027;
    let individual = run_all(&config_individual);
    let preempted = pool_estimate(&individual, "spot", |p| p.nodes_preempted as f64);
    assert_close(
        &preempted,
        f64::from(nodes) * horizon_h / mean_h,
        0.05,
        "individual preemptions",
    );

    let with_waves = run_all(&config(&spot(waves_per_month)));
    let preempted = pool_estimate(&with_waves, "spot", |p| p.nodes_preempted as f64);
    let expected = f64::from(nodes) * horizon_h / mean_h
        + fraction * f64::from(nodes) * waves_per_month * 12.0;
    assert_close(&preempted, expected, 0.05, "preemptions with waves");
    // Each preempted node interrupted exactly one job (one job per 1-GPU node).
    for unit in &with_waves.units {
        assert_eq!(unit.pools[0].preemptions, unit.pools[0].nodes_preempted);
    }
}

#[test]
fn failing_nodes_are_down_repair_over_mtbf_plus_repair_of_the_time() {
    let (nodes, mtbf_h, repair_h) = (200, 300.0, 20.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 24
replications = 10
seed = 26
[[workload]]
name = "jobs"
arrivals_per_day = 1
gpus = 1
duration_h = 1
{pool}failures = {{ mtbf_h = {mtbf_h}, repair_h = {repair_h} }}
[[strategy]]
name = "owned"
pools = ["dgx"]
"#,
        pool = free_on_prem("dgx", nodes),
    );
    let config = config(&text);
    // 2027 and 2028 (a leap year): 731 days.
    let capacity_h = f64::from(nodes) * 731.0 * 24.0;
    let output = run_all(&config);
    let down = pool_estimate(&output, "dgx", |p| p.gpu_hours_down / capacity_h);
    assert_close(
        &down,
        repair_h / (mtbf_h + repair_h),
        0.02,
        "share of node-hours under repair",
    );
    let failures = pool_estimate(&output, "dgx", |p| p.node_failures as f64);
    assert_close(
        &failures,
        capacity_h / (mtbf_h + repair_h),
        0.02,
        "failures",
    );
}

#[test]
fn late_and_infeasible_jobs_split_where_the_fastest_pool_says() {
    // Exponential work of mean 1 h on an H100, deadline 1.5 h, unlimited instant clouds (no
    // job waits). On H100s alone a job is past its deadline exactly when its work exceeds
    // 1.5 h, and nothing could have saved it: P = e^-1.5, all infeasible, none late. With a
    // B200 pool (speed 2) listed after the H100 pool, jobs run on the H100s (the first pool)
    // but work up to 3 h would have fitted on a B200: late = e^-1.5 - e^-3, infeasible = e^-3.
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 20
seed = 5
[gpu_speed]
H100 = 1.0
B200 = 2.0
[[workload]]
name = "jobs"
arrivals_per_day = 24
gpus = 1
duration_h = {{ dist = "exponential", mean = 1.0 }}
accepts = ["H100", "B200"]
deadline_h = 1.5
{h100}
[[pool]]
name = "b200"
type = "on_demand"
gpu = "B200"
gpus_per_node = 1
price_per_gpu_h = 9
[[strategy]]
name = "h100-only"
pools = ["h100"]
[[strategy]]
name = "h100-then-b200"
pools = ["h100", "b200"]
"#,
        h100 = instant_cloud("h100", "on_demand", 4.0, ""),
    );
    let config = config(&text);
    let rows = rows(&config);
    let share = |strategy: &str, count: fn(&ReplicationRow) -> u64| {
        estimate_of(&rows, strategy, |r| count(r) as f64 / r.jobs_arrived as f64)
    };
    let (e15, e3) = ((-1.5f64).exp(), (-3.0f64).exp());
    let infeasible = share("h100-only", |r| r.deadline_infeasible);
    assert_close(&infeasible, e15, 0.05, "infeasible share, H100 only");
    assert!(
        rows.iter()
            .filter(|r| r.strategy == "h100-only")
            .all(|r| r.deadline_misses == 0)
    );
    let late = share("h100-then-b200", |r| r.deadline_misses);
    assert_close(&late, e15 - e3, 0.05, "late share, B200 listed second");
    let infeasible = share("h100-then-b200", |r| r.deadline_infeasible);
    assert_close(
        &infeasible,
        e3,
        0.08,
        "infeasible share, B200 listed second",
    );
}

#[test]
fn a_workload_kept_to_its_own_pools_queues_as_their_own_m_m_c() {
    // One strategy, two workloads. `owned` may use only the 8 free on-prem GPUs: it is an
    // M/M/8 at load 6 whatever the other does, so its mean wait is Erlang C's. `urgent` may use
    // only the cloud and bursts at once (its own burst_after_wait_h = 0) though the strategy
    // never bursts: it never waits, and the cloud bills exactly its GPU-hours. With a shared
    // queue `first_fit` lets each job start on its own pools when they have room.
    let (servers, lambda_per_h, service_h, price) = (8, 6.0, 1.0, 4.0);
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
warmup_days = 7
replications = 60
seed = 17
[[workload]]
name = "owned"
arrivals_per_day = {arrivals_per_day}
gpus = 1
duration_h = {{ dist = "exponential", mean = {service_h} }}
pools = ["cluster"]
[[workload]]
name = "urgent"
arrivals_per_day = 48
gpus = 1
duration_h = {{ dist = "exponential", mean = 3.0 }}
pools = ["cloud"]
burst_after_wait_h = 0
{on_prem}
{cloud}
[[strategy]]
name = "split"
pools = ["cluster", "cloud"]
burst_after_wait_h = "never"
queue = "first_fit"
"#,
        arrivals_per_day = lambda_per_h * 24.0,
        on_prem = free_on_prem("cluster", servers),
        cloud = instant_cloud("cloud", "on_demand", price, ""),
    );
    let config = config(&text);
    let stop = AtomicBool::new(false);
    let units = runner::run(&config, false, &|| {}, &stop)
        .expect("runs")
        .units;
    let per_workload = |w: usize, metric: fn(&fleetsim::records::GroupRow) -> f64| {
        let values: Vec<f64> = units.iter().map(|u| metric(&u.workloads[w])).collect();
        estimate_at(&values, 0.99)
    };
    let load = lambda_per_h * service_h;
    let exact_h = erlang_c(servers, load) * service_h / (f64::from(servers) - load);
    let wait = per_workload(0, |g| g.wait_mean_h);
    assert_close(
        &wait,
        exact_h,
        0.06,
        "M/M/8 mean wait of the owned-only workload",
    );
    // Its tail too: the Erlang C waiting-time distribution's 95th percentile.
    let p95 = per_workload(0, |g| g.wait_p95_h);
    let exact_p95_h = erlang_c_wait_quantile_h(servers, load, service_h, 0.95);
    assert_close(
        &p95,
        exact_p95_h,
        0.06,
        "M/M/8 p95 wait of the owned-only workload",
    );
    for unit in &units {
        let (owned, urgent) = (&unit.workloads[0], &unit.workloads[1]);
        assert_eq!(owned.burst_jobs, 0, "owned jobs stay on the cluster");
        assert_eq!(
            urgent.burst_jobs,
            urgent.jobs_completed + urgent.jobs_unfinished - urgent.jobs_unstarted
        );
        assert_eq!(urgent.wait_max_h, 0.0, "urgent jobs never wait");
        // Per-second billing of 1-GPU instant nodes: the bill is the price of the busy hours,
        // to the second a node is rounded up to.
        let billed_h = unit.row.cost_on_demand / price;
        let busy_h = unit.row.gpu_hours_busy - owned.gpu_hours_busy;
        assert!(
            (billed_h - busy_h).abs() < 1e-3 * busy_h,
            "{billed_h} vs {busy_h}"
        );
    }
}

#[test]
fn a_job_is_infeasible_only_against_the_pools_it_can_reach() {
    // 15 h of work on A100s is 7.5 h on H100s (speed 2); the deadline is 10 h. Every job is
    // past its deadline unless it runs on an H100 (fixed durations: no tail).
    /// Jobs arrived, late and infeasible under `strategy`, over the replications.
    fn counts(rows: &[ReplicationRow], strategy: &str) -> (u64, u64, u64) {
        let of = |metric: fn(&ReplicationRow) -> u64| -> u64 {
            rows.iter()
                .filter(|r| r.strategy == strategy)
                .map(metric)
                .sum()
        };
        (
            of(|r| r.jobs_arrived),
            of(|r| r.deadline_misses),
            of(|r| r.deadline_infeasible),
        )
    }
    let load = |file: &str| rows(&config(&std::fs::read_to_string(file).unwrap()));
    let reach_rows = load("tests/data/deadline_reach.toml");
    let reach = |strategy: &str| counts(&reach_rows, strategy);
    // H100 spot kept off for deadline jobs, or H100 on-demand never burst to: only the A100s.
    for strategy in ["offspot", "neverburst"] {
        let (arrived, late, infeasible) = reach(strategy);
        assert_eq!((late, infeasible), (0, arrived), "{strategy}");
    }
    // H100s within reach, but the strategy keeps the jobs on its A100s first: late.
    let (arrived, late, infeasible) = reach("wl-never");
    assert_eq!(infeasible, 0);
    assert!(late + 1 >= arrived, "{late} of {arrived}");
    // 64-GPU gangs and a 32-GPU H100 pool: they fit only the A100 cloud.
    let (arrived, late, infeasible) = counts(&load("tests/data/deadline_reach_gangs.toml"), "s");
    assert_eq!((late, infeasible), (0, arrived));
}

#[test]
fn workloads_with_opposite_speed_ratios_queue_as_m_m_c_at_their_own_speeds() {
    // Two workloads, each kept to one pool of four free 1-GPU nodes, each with its own
    // gpu_speed, in opposite ways; the scenario's [gpu_speed] (H100 = 1, A100 = 0.45) would give
    // other service times (llm 1.125 h, cnn 1.11 h: cnn's queue would grow without bound).
    //   llm: exponential, mean 2.5 h on an A100, 2.5 times faster on an H100: 1 h on `h100`;
    //        3 arrivals per hour: M/M/4 at load 3.
    //   cnn: exponential, mean 0.5 h on an H100, twice as fast on an A100: 0.25 h on `a100`;
    //        12 arrivals per hour: M/M/4 at load 3.
    // Mean waits from Erlang C: C(4, 3) x service / (4 - 3); mean run times = service.
    let servers = 4;
    let text = format!(
        r#"
start = "2027-01-01"
horizon_months = 12
warmup_days = 7
replications = 40
seed = 23
[gpu_speed]
H100 = 1.0
A100 = 0.45
[[workload]]
name = "llm"
arrivals_per_day = 72
gpus = 1
duration_h = {{ dist = "exponential", mean = 2.5 }}
gpu = "A100"
accepts = ["A100", "H100"]
gpu_speed = {{ A100 = 1.0, H100 = 2.5 }}
pools = ["h100"]
[[workload]]
name = "cnn"
arrivals_per_day = 288
gpus = 1
duration_h = {{ dist = "exponential", mean = 0.5 }}
gpu = "H100"
accepts = ["A100", "H100"]
gpu_speed = {{ H100 = 1.0, A100 = 2.0 }}
pools = ["a100"]
{h100}
{a100}
[[strategy]]
name = "split"
pools = ["h100", "a100"]
queue = "first_fit"
"#,
        h100 = free_on_prem("h100", servers),
        a100 = free_on_prem("a100", servers).replace("\"H100\"", "\"A100\""),
    );
    let config = config(&text);
    let stop = AtomicBool::new(false);
    let units = runner::run(&config, false, &|| {}, &stop)
        .expect("runs")
        .units;
    let per_workload = |w: usize, metric: &dyn Fn(&fleetsim::records::GroupRow) -> f64| {
        let values: Vec<f64> = units.iter().map(|u| metric(&u.workloads[w])).collect();
        estimate_at(&values, 0.99)
    };
    for (w, name, service_h) in [(0, "llm", 1.0), (1, "cnn", 0.25)] {
        let load = 3.0;
        let exact_h = erlang_c(servers, load) * service_h / (f64::from(servers) - load);
        let wait = per_workload(w, &|g| g.wait_mean_h);
        assert_close(&wait, exact_h, 0.08, &format!("M/M/4 mean wait of {name}"));
        // Mean time in system minus mean wait: the mean run time at the pool's speed.
        let run_h = per_workload(w, &|g| g.turnaround_mean_h - g.wait_mean_h);
        assert_close(&run_h, service_h, 0.02, &format!("{name} mean run time"));
    }
}

#[test]
fn instance_sizes_bill_each_job_on_the_smallest_size_that_holds_it() {
    // One on-demand pool selling 1-GPU instances at 4 and 8-GPU instances at 3 per GPU-hour,
    // released as soon as idle, beside Poisson arrivals of 1-GPU jobs (20 an hour, exponential
    // of mean 1 h) and 8-GPU jobs (1 an hour, mean 2 h). An 8-GPU node holds one 8-GPU job and
    // is never partly free, so every 1-GPU job rents a 1-GPU instance: each size bills exactly
    // its jobs' GPU-hours. Over [0, T] a class of rate l, g GPUs and mean m is busy
    // l g m (T - m (1 - e^(-T/m))) GPU-hours in expectation (each job counts until the horizon).
    // January and February 2027: 59 days.
    let (hours, small, large) = (59.0 * 24.0, (20.0, 1.0, 1.0), (1.0, 8.0, 2.0));
    let text = r#"
start = "2027-01-01"
horizon_months = 2
replications = 40
seed = 29
[[workload]]
name = "small"
arrivals_per_day = 480
gpus = 1
duration_h = { dist = "exponential", mean = 1.0 }
[[workload]]
name = "large"
arrivals_per_day = 24
gpus = 8
duration_h = { dist = "exponential", mean = 2.0 }
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
instances = [{ gpus = 1, price_per_gpu_h = 4 }, { gpus = 8, price_per_gpu_h = 3 }]
[[strategy]]
name = "sizes"
pools = ["cloud"]
"#;
    let busy = |(rate, gpus, mean): (f64, f64, f64)| {
        rate * gpus * mean * (hours - mean * (1.0 - (-hours / mean).exp()))
    };
    let output = run_all(&config(text));
    for unit in &output.units {
        let started: Vec<u64> = unit.pools.iter().map(|p| p.jobs_started).collect();
        let arrived: Vec<u64> = unit.workloads.iter().map(|w| w.jobs_arrived).collect();
        assert_eq!(
            started, arrived,
            "each job on its own size, replication {}",
            unit.replication
        );
    }
    let one = pool_estimate(&output, "cloud (1xH100)", |p| p.cost);
    assert_close(&one, 4.0 * busy(small), 0.02, "cost of the 1-GPU size");
    let eight = pool_estimate(&output, "cloud (8xH100)", |p| p.cost);
    assert_close(&eight, 3.0 * busy(large), 0.02, "cost of the 8-GPU size");
}
