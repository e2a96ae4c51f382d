//! Properties that hold for every scenario: conservation of jobs, busy within paid, time
//! running forward for every job, and the same seed giving the same rows.

use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use fleetsim::runner;

use crate::common::config;

/// A small random fleet: one workload mix, up to three pools, two strategies.
#[derive(Debug, Clone)]
struct Fleet {
    seed: u64,
    arrivals_per_day: f64,
    gang: u32,
    duration_mean_h: f64,
    checkpoint: bool,
    gpus_per_node: u32,
    on_prem_nodes: u32,
    failures: bool,
    spot_mean_h: f64,
    waves: f64,
    shortfall: f64,
    provisioning_h: f64,
    idle_timeout_h: f64,
    max_nodes: u32,
    burst_h: f64,
    queue: &'static str,
    placement: &'static str,
    /// `idle_cost = "proportional"` (else the default, `"unallocated"`).
    proportional: bool,
    /// A service's mean demand, GPUs (0: no service).
    service_gpus: f64,
    /// Service replicas may run on spot too.
    service_on_spot: bool,
    service_preempts: bool,
    /// Sites with storage and transfer prices, datasets and checkpoints sized, prices falling.
    money: bool,
}

fn fleet() -> impl Strategy<Value = Fleet> {
    (
        (
            any::<u64>(),
            1.0..200.0f64,
            prop_oneof![Just(2u32), Just(8), Just(12), Just(16)],
            0.05..20.0f64,
            any::<bool>(),
        ),
        (
            prop_oneof![Just(1u32), Just(4), Just(8)],
            0u32..6,
            any::<bool>(),
            0.5..100.0f64,
            0.0..4.0f64,
        ),
        (
            0.0..1.0f64,
            0.0..0.5f64,
            0.0..1.0f64,
            1u32..20,
            0.0..5.0f64,
            prop_oneof![
                Just("fifo"),
                Just("backfill"),
                Just("priority"),
                Just("first_fit")
            ],
        ),
        (
            prop_oneof![Just("node_local"), Just("spread")],
            any::<bool>(),
            prop_oneof![Just(0.0), 0.1..20.0f64],
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                a,
                b,
                c,
                (placement, proportional, service_gpus, service_on_spot, service_preempts, money),
            )| Fleet {
                seed: a.0,
                arrivals_per_day: a.1,
                gang: a.2,
                duration_mean_h: a.3,
                checkpoint: a.4,
                gpus_per_node: b.0,
                on_prem_nodes: b.1,
                failures: b.2,
                spot_mean_h: b.3,
                waves: b.4,
                shortfall: c.0,
                provisioning_h: c.1,
                idle_timeout_h: c.2,
                max_nodes: c.3,
                burst_h: c.4,
                queue: c.5,
                placement,
                proportional,
                service_gpus,
                service_on_spot,
                service_preempts,
                money,
            },
        )
}

fn scenario(f: &Fleet) -> String {
    let checkpoint = if f.checkpoint {
        "checkpoint = { every_h = \"auto\", write_h = 0.05, restart_h = 0.1 }"
    } else {
        ""
    };
    let failures = if f.failures {
        "failures = { mtbf_h = 200, repair_h = 12 }"
    } else {
        ""
    };
    let service = if f.service_gpus > 0.0 {
        format!(
            "[[service]]\nname = \"chat\"\ngpu = \"H100\"\ngpus = {}\ndaily_profile = \"office-hours\"\n\
             noise_cv = 0.3\nscale_up_h = 0.2\nmin_gpus = 1\nteam = \"product\"\n",
            f.service_gpus
        )
    } else {
        String::new()
    };
    let service_pools = if f.service_on_spot {
        "[\"dgx\", \"spot\", \"cloud\"]"
    } else {
        "[\"dgx\", \"cloud\"]"
    };
    let (money, on_prem_money, workload_money) = if f.money {
        (
            "site = \"aws\"\nstorage_per_gb_month = 0.03\nkeep_checkpoints_h = 12\ningress_per_gb = 0.01\negress_per_gb = 0.09\nprice_change_per_year = -0.3\ngrid_kg_co2_per_kwh = 0.4\npower_kw_per_gpu = 1.2",
            "site = \"dc\"\negress_per_gb = 0.05\nstorage_per_gb_month = 0.02\nelectricity_change_per_year = 0.1\ngrid_kg_co2_per_kwh = 0.3",
            "dataset_gb = 200\ncheckpoint_gb = 50",
        )
    } else {
        ("", "", "")
    };
    // Gangs larger than the spot quota can still use on-demand (unlimited).
    format!(
        r#"
start = "2027-03-01"
horizon_months = 1
replications = 1
seed = {seed}
idle_cost = "{idle_cost}"
[[workload]]
name = "mix"
arrivals_per_day = {arrivals}
daily_profile = "office-hours"
gpus = {{ 1 = 0.4, 3 = 0.2, {gang} = 0.4 }}
duration_h = {{ dist = "gamma", mean = {duration}, cv = 1.3 }}
{checkpoint}
{workload_money}
[[workload]]
name = "urgent"
arrivals_per_day = 5
gpus = 1
duration_h = {{ dist = "exponential", mean = 1.0 }}
deadline_h = 4
priority = 2
team = "product"
{service}
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = {gpn}
nodes = {nodes}
capex_per_node = 100000
amortization_months = 36
power_kw_per_node = 5
idle_power_kw_per_node = 1
pue = 1.2
electricity_per_kwh = 0.2
opex_per_node_month = 500
{failures}
{on_prem_money}
[[pool]]
name = "spot"
type = "spot"
gpu = "H100"
gpus_per_node = {gpn}
price_per_gpu_h = 2
max_nodes = {max_nodes}
provisioning_h = {provisioning}
idle_timeout_h = {idle}
billing_minimum_s = 60
preemption = {{ mean_h = {spot_mean}, waves_per_month = {waves}, wave_fraction = 0.5 }}
availability = {{ shortfall = {shortfall}, window = "weekdays 09:00-18:00", retry_h = 0.5 }}
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = {gpn}
price_per_gpu_h = 6
provisioning_h = {provisioning}
idle_timeout_h = {idle}
billing_increment_s = 60
{money}
[[strategy]]
name = "hybrid"
pools = ["dgx", "spot", "cloud"]
burst_after_wait_h = {burst}
queue = "{queue}"
placement = "{placement}"
spot_fallback_after = 2
service_pools = {service_pools}
service_preempts = {service_preempts}
[[strategy]]
name = "cloud"
pools = ["cloud"]
queue = "{queue}"
"#,
        seed = f.seed % (1 << 62),
        arrivals = f.arrivals_per_day,
        gang = f.gang,
        duration = f.duration_mean_h,
        gpn = f.gpus_per_node,
        nodes = f.on_prem_nodes,
        max_nodes = f.max_nodes,
        provisioning = f.provisioning_h,
        idle = f.idle_timeout_h,
        spot_mean = f.spot_mean_h,
        waves = f.waves,
        shortfall = f.shortfall,
        burst = f.burst_h,
        queue = f.queue,
        placement = f.placement,
        service_preempts = f.service_preempts,
        idle_cost = if f.proportional {
            "proportional"
        } else {
            "unallocated"
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/proptest-regressions/properties.txt"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn jobs_are_conserved_and_time_runs_forward(f in fleet()) {
        let config = config(&scenario(&f));
        let stop = AtomicBool::new(false);
        let output = runner::run(&config, true, &|| {}, &stop).unwrap();
        for unit in &output.units {
            let row = &unit.row;
            prop_assert_eq!(row.jobs_arrived, row.jobs_completed + row.jobs_unfinished);
            prop_assert!(row.gpu_hours_busy <= row.gpu_hours_paid * (1.0 + 1e-9) + 1e-9, "{:?}", row);
            prop_assert!(row.lost_gpu_hours + row.checkpoint_gpu_hours <= row.gpu_hours_busy * (1.0 + 1e-9) + 1e-9);
            prop_assert!(row.total_cost >= 0.0 && row.total_cost_cash >= 0.0);
            for pool in &unit.pools {
                prop_assert!(pool.gpu_hours_busy <= pool.gpu_hours_paid * (1.0 + 1e-9) + 1e-9, "{:?}", pool);
            }
            let month_busy: f64 = unit.months.iter().map(|m| m.gpu_hours_busy).sum();
            prop_assert!((month_busy - row.gpu_hours_busy).abs() <= 1e-6 * row.gpu_hours_busy.max(1.0));
            for job in &unit.jobs {
                prop_assert!(job.start_h.is_nan() || job.start_h >= job.arrival_h, "{:?}", job);
                prop_assert!(job.end_h.is_nan() || job.end_h >= job.start_h, "{:?}", job);
                // Without checkpoints a preempted run loses all it did, which is more than
                // nothing once it has begun; a gang whose node is lost while it still waits for
                // another being provisioned was not preempted.
                prop_assert!(f.checkpoint || job.preemptions == 0 || job.lost_gpu_hours > 0.0, "{:?}", job);
            }
            // The trace (every job of replication 0) and the statistics agree on the waits:
            // every job counted once, from its first start, or with its wait so far when it
            // had not started by the horizon; percentiles are nearest-rank within 0.05 %.
            if unit.replication == 0 {
                let mut waits: Vec<f64> = unit.jobs.iter().map(|j| j.wait_h).collect();
                let unstarted = unit.jobs.iter().filter(|j| j.start_h.is_nan()).count() as u64;
                prop_assert_eq!(unstarted, row.jobs_unstarted);
                waits.sort_by(f64::total_cmp);
                if !waits.is_empty() {
                    let mean = waits.iter().sum::<f64>() / waits.len() as f64;
                    prop_assert!((mean - row.wait_mean_h).abs() <= 1e-9 * mean.max(1.0), "trace {} vs row {}", mean, row.wait_mean_h);
                    for (per_mille, reported) in [(500, row.wait_p50_h), (900, row.wait_p90_h), (950, row.wait_p95_h), (990, row.wait_p99_h), (1000, row.wait_max_h)] {
                        let rank = (per_mille * waits.len()).div_ceil(1000).max(1);
                        let exact = waits[rank - 1];
                        prop_assert!((reported - exact).abs() <= 5e-4 * exact + 1e-8, "p{} trace {} vs row {}", per_mille, exact, reported);
                    }
                }
            }
            // Workloads (with the services) and teams (which include them) add up to the
            // strategy; their costs and the idle rest to its cost.
            let sum = |rows: &[fleetsim::records::GroupRow], f: fn(&fleetsim::records::GroupRow) -> f64| rows.iter().map(f).sum::<f64>();
            let services_busy: f64 = unit.services.iter().map(|s| s.gpu_hours_allocated).sum();
            let services_cost: f64 = unit.services.iter().map(|s| s.cost).sum();
            for (groups, with_services) in [(&unit.workloads, true), (&unit.teams, false)] {
                let (busy_extra, cost_extra) = if with_services { (services_busy, services_cost) } else { (0.0, 0.0) };
                prop_assert_eq!(sum(groups, |g| g.jobs_arrived as f64), row.jobs_arrived as f64);
                prop_assert_eq!(sum(groups, |g| g.jobs_unstarted as f64), row.jobs_unstarted as f64);
                let busy = sum(groups, |g| g.gpu_hours_busy) + busy_extra;
                prop_assert!((busy - row.gpu_hours_busy).abs() <= 1e-9 * row.gpu_hours_busy.max(1.0), "{} vs {}", busy, row.gpu_hours_busy);
                let cost = sum(groups, |g| g.cost) + cost_extra + unit.unallocated.cost;
                prop_assert!((cost - row.total_cost).abs() <= 1e-9 * row.total_cost.max(1.0), "{} vs {}", cost, row.total_cost);
                prop_assert!(unit.unallocated.cost >= -1e-9 * row.total_cost.max(1.0));
            }
            // A service serves at most its demand, and the rest is unserved.
            for s in &unit.services {
                prop_assert!(s.gpu_hours_served <= s.gpu_hours_demanded * (1.0 + 1e-12), "{:?}", s);
                prop_assert!((s.gpu_hours_served + s.gpu_hours_unserved - s.gpu_hours_demanded).abs() <= 1e-9 * s.gpu_hours_demanded.max(1.0), "{:?}", s);
                prop_assert!((0.0..=1.0).contains(&s.met_share), "{:?}", s);
                prop_assert!(f.service_preempts || s.batch_jobs_preempted == 0, "{:?}", s);
            }
        }
        // The same seed gives the same rows.
        let again = runner::run(&config, false, &|| {}, &stop).unwrap();
        for (a, b) in output.units.iter().zip(&again.units) {
            prop_assert_eq!(format!("{:?}", a.row), format!("{:?}", b.row));
        }
    }
}
