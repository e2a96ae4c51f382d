//! Inference services against values worked out by hand: what an autoscaler that
//! follows demand exactly must pay, overflow above an owned base, the demand lost while new
//! replicas load, the batch work a service preemption destroys, and the waiting job that GPUs
//! a services reserve gives back start at once.

use std::sync::atomic::AtomicBool;

use fleetsim::records::{JobRow, UnitResult};
use fleetsim::runner;

use crate::common::config;

/// January 2027: 31 days.
const JANUARY_H: f64 = 31.0 * 24.0;

const HEADER: &str = r#"
start = "2027-01-01"
horizon_months = 1
replications = 1
seed = 1
"#;

/// An on-demand pool that provisions at once, releases at once and bills by the second.
fn exact_cloud(name: &str, gpu: &str, gpus_per_node: u32) -> String {
    format!(
        r#"
[[pool]]
name = "{name}"
type = "on_demand"
gpu = "{gpu}"
gpus_per_node = {gpus_per_node}
price_per_gpu_h = 1.0
provisioning_h = 0
idle_timeout_h = 0
billing_increment_s = 1
billing_minimum_s = 0
"#
    )
}

fn free_dgx(name: &str, nodes: u32) -> String {
    format!(
        r#"
[[pool]]
name = "{name}"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
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

fn run(text: &str) -> Vec<UnitResult> {
    let config = config(&format!("{HEADER}{text}"));
    runner::run(&config, true, &|| {}, &AtomicBool::new(false))
        .unwrap()
        .units
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A daily profile written as 24 numbers.
fn profile(hours: impl Fn(usize) -> f64) -> String {
    let values: Vec<String> = (0..24).map(|h| format!("{}", hours(h))).collect();
    format!("[{}]", values.join(", "))
}

#[test]
fn constant_demand_on_exact_on_demand_pays_demand_times_hours() {
    // 8 GPUs of demand, 4-GPU nodes: two nodes the whole month, nothing unserved.
    let units = run(&format!(
        r#"
[[service]]
name = "chat"
gpu = "H100"
gpus = 8
{}
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#,
        exact_cloud("cloud", "H100", 4)
    ));
    let unit = &units[0];
    assert!(
        close(unit.row.gpu_hours_paid, 8.0 * JANUARY_H),
        "{:?}",
        unit.row
    );
    assert!(close(unit.row.total_cost, 8.0 * JANUARY_H));
    let service = &unit.services[0];
    assert!(close(service.gpu_hours_demanded, 8.0 * JANUARY_H));
    assert_eq!(service.gpu_hours_unserved, 0.0);
    assert_eq!(service.met_share, 1.0);
    assert!(close(service.gpu_hours_allocated, 8.0 * JANUARY_H));
    assert!(close(service.cost, unit.row.total_cost));
    assert_eq!(service.scale_ups, 8);
}

#[test]
fn headroom_keeps_capacity_above_demand() {
    // Demand 4 with 50 % headroom: the autoscaler aims at 6 GPUs, all month.
    let units = run(&format!(
        r#"
[[service]]
name = "chat"
gpu = "H100"
gpus = 4
headroom = 0.5
{}
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#,
        exact_cloud("cloud", "H100", 1)
    ));
    let unit = &units[0];
    assert!(
        close(unit.row.gpu_hours_paid, 6.0 * JANUARY_H),
        "{:?}",
        unit.row
    );
    assert!(close(unit.services[0].gpu_hours_served, 4.0 * JANUARY_H));
}

#[test]
fn a_faster_gpu_serves_more_of_the_demand_per_replica() {
    // 16 GPUs of L4 demand on H100 replicas with 8x the speed: 2 H100s.
    let units = run(&format!(
        r#"
[gpu_speed]
H100 = 1.0
L4 = 0.125
[[service]]
name = "chat"
gpu = "L4"
accepts = ["L4", "H100"]
gpus = 16
{}
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#,
        exact_cloud("cloud", "H100", 1)
    ));
    let unit = &units[0];
    assert!(
        close(unit.row.gpu_hours_paid, 2.0 * JANUARY_H),
        "{:?}",
        unit.row
    );
    assert_eq!(unit.services[0].gpu_hours_unserved, 0.0);
}

#[test]
fn overflow_above_an_owned_base_is_the_integral_of_demand_above_it() {
    // Demand 5 GPUs at night (00-11) and 15 by day (12-23), mean 10: with one 8-GPU DGX the
    // cloud takes max(0, d - 8): 7 GPUs for 12 h a day, nothing at night.
    let shape = |h: usize| if h < 12 { 0.5 } else { 1.5 };
    let units = run(&format!(
        r#"
[[service]]
name = "chat"
gpu = "H100"
gpus = 10
daily_profile = {}
scale_up_h = 0
scale_down_after_h = 0
{}{}
[[strategy]]
name = "hybrid"
pools = ["dgx", "cloud"]
"#,
        profile(shape),
        free_dgx("dgx", 1),
        exact_cloud("cloud", "H100", 1)
    ));
    let unit = &units[0];
    let overflow_h: f64 = (0..24)
        .map(|h| (10.0 * shape(h) - 8.0_f64).max(0.0))
        .sum::<f64>()
        * 31.0;
    assert_eq!(overflow_h, 7.0 * 12.0 * 31.0);
    let cloud = unit.pools.iter().find(|p| p.pool == "cloud").unwrap();
    assert!(close(cloud.gpu_hours_paid, overflow_h), "{cloud:?}");
    assert!(close(cloud.gpu_hours_busy, overflow_h), "{cloud:?}");
    let dgx = unit.pools.iter().find(|p| p.pool == "dgx").unwrap();
    // The DGX serves 5 GPUs at night and 8 by day.
    assert!(
        close(dgx.gpu_hours_busy, (5.0 + 8.0) * 12.0 * 31.0),
        "{dgx:?}"
    );
    assert_eq!(unit.services[0].gpu_hours_unserved, 0.0);
}

#[test]
fn a_step_up_in_demand_goes_unserved_while_new_replicas_load() {
    // Demand 4 GPUs, 12 from 09:00 to 17:00: each morning 8 new replicas take 0.5 h to serve,
    // so 8 x 0.5 = 4 GPU-hours go unserved per day, 124 in January; the step down costs none.
    let shape = |h: usize| if (9..17).contains(&h) { 3.0 } else { 1.0 };
    let mean: f64 = (0..24).map(shape).sum::<f64>() / 24.0;
    let units = run(&format!(
        r#"
[[service]]
name = "chat"
gpu = "H100"
gpus = {}
daily_profile = {}
scale_up_h = 0.5
scale_down_after_h = 0
{}
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#,
        4.0 * mean,
        profile(shape),
        exact_cloud("cloud", "H100", 1)
    ));
    let service = &units[0].services[0];
    assert!(
        close(service.gpu_hours_unserved, 8.0 * 0.5 * 31.0),
        "{service:?}"
    );
    // Met except for half an hour each morning.
    assert!(
        close(service.met_share, 1.0 - 0.5 * 31.0 / JANUARY_H),
        "{service:?}"
    );
    assert_eq!(service.scale_ups, 4 + 8 * 31);
}

fn job(unit: &UnitResult, workload: &str) -> JobRow {
    unit.jobs
        .iter()
        .find(|j| j.workload == workload)
        .unwrap()
        .clone()
}

#[test]
fn a_service_preempting_batch_work_costs_what_the_checkpoint_formula_says() {
    // One 8-GPU node runs an 8-GPU job from 0 h (20 h of work, a checkpoint every hour of
    // work taking 0.1 h, 0.2 h to restore). A service needs 1 GPU from 05:00 to 06:00 on
    // Monday only (the daily profile is scaled to mean 1, so gpus = 1/24 gives 1 at 05:00):
    // at 5 h the job has written 4 checkpoints (4 x 1.1 = 4.4 h) and loses the 0.6 h since,
    // 8 x 0.6 = 4.8 GPU-hours. At 6 h the replica goes and the job restarts: 0.2 h restore,
    // 16 h of work and 15 checkpoints, done at 6 + 0.2 + 16 + 1.5 = 23.7 h.
    let shape = |h: usize| if h == 5 { 24.0 } else { 0.0 };
    let text = format!(
        r#"
[[workload]]
name = "train"
arrival_times_h = [0.0]
gpus = 8
duration_h = 20
checkpoint = {{ every_h = 1, write_h = 0.1, restart_h = 0.2 }}
[[service]]
name = "chat"
gpu = "H100"
gpus = {}
daily_profile = {}
weekly_profile = [1, 0, 0, 0, 0, 0, 0]
scale_up_h = 0
scale_down_after_h = 0
{}
[[strategy]]
name = "dgx"
pools = ["dgx"]
"#,
        1.0 / 24.0,
        profile(shape),
        free_dgx("dgx", 1)
    );
    // 2027-01-01 is a Friday: the service's only day is Monday the 4th, so shift the job too.
    let text = text.replace("arrival_times_h = [0.0]", "arrival_times_h = [72.0]");
    let units = run(&text);
    let unit = &units[0];
    let train = job(unit, "train");
    assert!(close(train.lost_gpu_hours, 8.0 * 0.6), "{train:?}");
    assert!(close(train.end_h, 72.0 + 23.7), "{train:?}");
    assert_eq!(unit.services[0].batch_jobs_preempted, 1);
    assert!(close(unit.workloads[0].lost_gpu_hours, 4.8));
    // The service itself was met at once: it had priority.
    assert_eq!(unit.services[0].gpu_hours_unserved, 0.0);
    // Without preemption the service waits for the job to end and goes unserved that hour.
    let polite = run(&text.replace(
        "pools = [\"dgx\"]",
        "pools = [\"dgx\"]\nservice_preempts = false",
    ));
    assert_eq!(polite[0].services[0].batch_jobs_preempted, 0);
    assert!(
        close(polite[0].services[0].gpu_hours_unserved, 1.0),
        "{:?}",
        polite[0].services[0]
    );
    assert_eq!(job(&polite[0], "train").lost_gpu_hours, 0.0);
}

#[test]
fn a_reserve_keeps_batch_work_off_the_services_gpus() {
    // Two 8-GPU nodes, 8 GPUs held for the service (demand 2): an 8-GPU batch job always finds
    // the other node, a second one waits for the first, never for the reserve.
    let units = run(&format!(
        r#"
[[workload]]
name = "train"
arrival_times_h = [1.0, 2.0]
gpus = 8
duration_h = 10
[[service]]
name = "chat"
gpu = "H100"
gpus = 2
{}
[[strategy]]
name = "dgx"
pools = ["dgx"]
service_preempts = false
reserve_gpus = {{ dgx = 8 }}
"#,
        free_dgx("dgx", 2)
    ));
    let unit = &units[0];
    let starts: Vec<f64> = unit.jobs.iter().map(|j| j.start_h).collect();
    assert_eq!(starts, vec![1.0, 11.0]);
    assert_eq!(unit.services[0].gpu_hours_unserved, 0.0);
    // Busy: the service's 2 GPUs all month and the jobs' 160 GPU-hours; the 6 held but idle
    // GPUs are paid and not busy.
    assert!(
        close(unit.row.gpu_hours_busy, 2.0 * JANUARY_H + 160.0),
        "{:?}",
        unit.row
    );
}

#[test]
fn replicas_on_spot_are_lost_and_replaced_and_each_loss_goes_unserved_while_it_loads() {
    // 4 replicas on 1-GPU spot nodes that live 10 h on average (exponential, no waves): a
    // lost replica is replaced at once on a new node and serves 0.1 h later. Losses are a
    // Poisson process of rate 4 / 10 per hour: 4 x 744 / 10 = 297.6 expected in January
    // (standard deviation 17.3), and each leaves 1 GPU unserved for 0.1 h.
    let units = run(r#"
[[service]]
name = "chat"
gpu = "H100"
gpus = 4
scale_up_h = 0.1
[[pool]]
name = "spot"
type = "spot"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 1.0
provisioning_h = 0
idle_timeout_h = 0
billing_increment_s = 1
billing_minimum_s = 0
preemption = { mean_h = 10 }
[[strategy]]
name = "spot"
pools = ["spot"]
service_pools = ["spot"]
"#);
    let service = &units[0].services[0];
    let lost = service.replicas_preempted as f64;
    let expected = 4.0 * JANUARY_H / 10.0;
    assert!(
        (lost - expected).abs() < 2.58 * expected.sqrt(),
        "{lost} replicas lost, {expected} expected"
    );
    // Each loss costs 0.1 GPU-hours unserved, except one in the last 0.1 h before the horizon
    // (0.04 such losses expected), which costs only the time left.
    let short = lost * 0.1 - service.gpu_hours_unserved;
    assert!((-1e-9..=0.2).contains(&short), "{short}: {service:?}");
    assert_eq!(service.scale_ups, 4 + service.replicas_preempted);
}

#[test]
fn a_reserve_given_back_when_a_replica_lands_elsewhere_starts_the_waiting_job_at_once() {
    // Three 8-GPU nodes A, B, C; the services reserve is 8 GPUs; a replica is 8 GPUs. The
    // profile (2 for 00-05 and 12-17, 0 otherwise: mean 1) times gpus = 4 gives 8 GPUs of
    // demand then, on Fridays only, and 2027-01-01 is a Friday. At 0 h the replica goes on A.
    // At 1 h a 4-GPU job takes B until 9 h. At 3 h a 16-GPU job arrives: it needs two empty
    // nodes and C is the only one. At 6 h the replica goes and the reserve takes 8 GPUs, the
    // fullest node first, then the lowest-numbered: 4 on B, 4 on A. At 9 h B has 4 free and 4
    // held: C is still the only empty node. At 12 h the new replica finds no node holding 8
    // and takes C; the reserve then needs nothing and gives back its GPUs on A and B, which
    // empties both. No job ends or arrives at 12 h and demand next changes at 18 h, so only
    // the GPUs given back can start the waiting job at 12 h.
    const START_H: f64 = 12.0;
    const WAIT_H: f64 = START_H - 3.0;
    let busy = |h: usize| h < 6 || (12..18).contains(&h);
    let shape = |h: usize| if busy(h) { 2.0 } else { 0.0 };
    let units = run(&format!(
        r#"
[[workload]]
name = "small"
arrival_times_h = [1.0]
gpus = 4
duration_h = 8
[[workload]]
name = "wide"
arrival_times_h = [3.0]
gpus = 16
duration_h = 10
[[service]]
name = "chat"
gpu = "H100"
gpus = 4
gpus_per_replica = 8
daily_profile = {}
weekly_profile = [0, 0, 0, 0, 1, 0, 0]
scale_up_h = 0
scale_down_after_h = 0
{}
[[strategy]]
name = "dgx"
pools = ["dgx"]
service_preempts = false
reserve_gpus = {{ dgx = 8 }}
"#,
        profile(shape),
        free_dgx("dgx", 3)
    ));
    let small = job(&units[0], "small");
    assert!(small.start_h == 1.0 && small.end_h == 9.0, "{small:?}");
    let wide = job(&units[0], "wide");
    assert_eq!((wide.start_h, wide.wait_h), (START_H, WAIT_H), "{wide:?}");
    assert_eq!(units[0].services[0].gpu_hours_unserved, 0.0);
}
