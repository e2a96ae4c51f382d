//! Worked examples: tiny scenarios with listed arrival times, whose comments derive every
//! time and cost by hand, asserted exactly (up to float rounding).

use std::sync::atomic::AtomicBool;

use fleetsim::records::{JobRow, UnitResult};
use fleetsim::runner;

use crate::common::config;

const HEADER: &str = r#"
start = "2027-01-01"
horizon_months = 2
replications = 1
seed = 1
"#;

fn run(text: &str) -> Vec<UnitResult> {
    let config = config(&format!("{HEADER}{text}"));
    runner::run(&config, true, &|| {}, &AtomicBool::new(false))
        .unwrap()
        .units
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn job(unit: &UnitResult, id: u64) -> &JobRow {
    unit.jobs.iter().find(|j| j.job == id).unwrap()
}

#[test]
fn elastic_nodes_are_shared_billed_in_increments_and_released_when_idle() {
    // 8-GPU on-demand nodes at 3 per GPU-hour, 0.1 h to provision, released 0.25 h after
    // their last job, billed per started minute with a 10-minute minimum.
    //   A (t=1, 2 GPUs, 2 h) requests node 1 (ready 1.1): runs 1.1-3.1.
    //   B (t=1.5, 4 GPUs, 1 h) fits on node 1 (6 free): runs 1.5-2.5.
    //   C (t=2, 4 GPUs, 1 h): node 1 has 2 free, so node 2 is requested (ready 2.1): 2.1-3.1.
    // Both nodes are idle from 3.1 and released at 3.35:
    //   node 1 lives 1.0-3.35 = 2.35 h (8,460 s, whole minutes), node 2 lives 2.0-3.35 = 1.35 h.
    //   Paid: 8 x (2.35 + 1.35) = 29.6 GPU-h, cost 88.8. Busy: 2x2 + 4x1 + 4x1 = 12 GPU-h.
    let units = run(r#"
[[workload]]
name = "a"
arrival_times_h = [1.0]
gpus = 2
duration_h = 2
[[workload]]
name = "b"
arrival_times_h = [1.5]
gpus = 4
duration_h = 1
[[workload]]
name = "c"
arrival_times_h = [2.0]
gpus = 4
duration_h = 1
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 3
provisioning_h = 0.1
idle_timeout_h = 0.25
billing_increment_s = 60
billing_minimum_s = 600
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#);
    let unit = &units[0];
    let row = &unit.row;
    assert_eq!((row.jobs_arrived, row.jobs_completed), (3, 3));
    assert!(close(row.gpu_hours_busy, 12.0), "{row:?}");
    assert!(close(row.gpu_hours_paid, 29.6), "{}", row.gpu_hours_paid);
    assert!(close(row.total_cost, 88.8), "{}", row.total_cost);
    assert_eq!(unit.pools[0].nodes_requested, 2);
    let (a, b, c) = (job(unit, 0), job(unit, 1), job(unit, 2));
    assert!(close(a.start_h, 1.1) && close(a.end_h, 3.1), "{a:?}");
    assert!(close(b.start_h, 1.5) && close(b.end_h, 2.5), "{b:?}");
    assert!(close(c.start_h, 2.1) && close(c.end_h, 3.1), "{c:?}");
    assert!(close(c.wait_h, 0.1) && b.wait_h == 0.0);
    // The busy and paid hours fall in January: the monthly split agrees with the totals.
    assert!(close(unit.months[0].gpu_hours_paid, 29.6) && unit.months[1].gpu_hours_paid == 0.0);
}

#[test]
fn a_reservation_ending_interrupts_a_checkpointed_job_which_resumes_on_demand() {
    // One reserved 1-GPU node for January (744 h), on-demand behind it. A 100-h job arrives at
    // t=700 and checkpoints every 10 h of work (write 0.5 h, restore 1 h).
    // On the reservation it runs 700-744: 44 h = 4 cycles of 10.5 h (40 h saved, 2 h writing)
    // plus 2 h of work that is lost when the term ends.
    // On demand it restores (1 h), does the remaining 60 h with 5 checkpoints (2.5 h): 63.5 h,
    // ending at 807.5 h. Lost 2 GPU-h; checkpoint GPU-h 2 + 1 + 2.5 = 5.5.
    // Cost: 744 h x 10 x (1 - 0.4) = 4,464 reserved; 63.5 h x 10 = 635 on demand.
    let units = run(r#"
[[workload]]
name = "training"
arrival_times_h = [700.0]
gpus = 1
duration_h = 100
checkpoint = { every_h = 10, write_h = 0.5, restart_h = 1 }
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
gpus_per_node = 1
nodes = 1
price_per_gpu_h = 10
discount = 0.4
term_months = 1
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 10
[[strategy]]
name = "reserved-first"
pools = ["committed", "cloud"]
"#);
    let unit = &units[0];
    let row = &unit.row;
    let training = job(unit, 0);
    assert!(close(training.end_h, 807.5), "{training:?}");
    assert_eq!(training.pool, "cloud");
    assert!(close(row.lost_gpu_hours, 2.0), "{row:?}");
    assert!(close(row.checkpoint_gpu_hours, 5.5), "{row:?}");
    assert!(
        close(row.cost_reserved, 4464.0) && close(row.cost_on_demand, 635.0),
        "{row:?}"
    );
    assert!(close(row.turnaround_mean_h, 107.5));
    assert_eq!(
        row.preemptions, 0,
        "the end of a term is not a spot preemption"
    );
    assert_eq!(
        (unit.pools[0].jobs_started, unit.pools[1].jobs_started),
        (1, 1)
    );
    assert!(close(row.gpu_hours_busy, 44.0 + 63.5));
}

#[test]
fn fifo_blocks_backfill_fills_and_priority_jumps_the_queue() {
    // One 8-GPU on-prem node. A (t=1, 6 GPUs, 10 h) runs 1-11. B (t=2, 4 GPUs, 1 h) must wait
    // for A. C (t=3, 2 GPUs, 1 h) fits beside A; D (t=4, 4 GPUs, 1 h, priority 5) waits too.
    //   fifo:     C waits behind B; at 11 B and C start (4 + 2 GPUs), D at 12.
    //   backfill: C starts at 3; at 11 B then D start (4 + 4 GPUs).
    //   priority: C starts at 3; at 11 D (priority 5) starts first, then B beside it.
    let units = run(r#"
[[workload]]
name = "a"
arrival_times_h = [1.0]
gpus = 6
duration_h = 10
[[workload]]
name = "b"
arrival_times_h = [2.0]
gpus = 4
duration_h = 1
[[workload]]
name = "c"
arrival_times_h = [3.0]
gpus = 2
duration_h = 1
[[workload]]
name = "d"
arrival_times_h = [4.0]
gpus = 4
duration_h = 1
priority = 5
[[pool]]
name = "node"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[strategy]]
name = "fifo"
pools = ["node"]
queue = "fifo"
[[strategy]]
name = "backfill"
pools = ["node"]
queue = "backfill"
[[strategy]]
name = "priority"
pools = ["node"]
queue = "priority"
"#);
    let starts = |s: usize| -> Vec<f64> { (0..4).map(|id| job(&units[s], id).start_h).collect() };
    assert_eq!(starts(0), vec![1.0, 11.0, 11.0, 12.0], "fifo");
    assert_eq!(starts(1), vec![1.0, 11.0, 3.0, 11.0], "backfill");
    assert_eq!(starts(2), vec![1.0, 11.0, 3.0, 11.0], "priority");
    // Under priority D is placed before B at 11: both fit, so only the order differs; with
    // room for one of them, D would win. Shrink the node's room: see the next test.
}

#[test]
fn priority_picks_the_urgent_job_when_only_one_fits() {
    // As above with B and D needing 6 GPUs each: at 11 only one fits. fifo and backfill start
    // B (earlier arrival) and D at 12; priority starts D at 11 and B at 12.
    let text = |queue: &str| {
        format!(
            r#"
[[workload]]
name = "a"
arrival_times_h = [1.0]
gpus = 6
duration_h = 10
[[workload]]
name = "b"
arrival_times_h = [2.0]
gpus = 6
duration_h = 1
[[workload]]
name = "d"
arrival_times_h = [4.0]
gpus = 6
duration_h = 1
priority = 5
[[pool]]
name = "node"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[strategy]]
name = "s"
pools = ["node"]
queue = "{queue}"
"#
        )
    };
    for (queue, b_start, d_start) in [
        ("fifo", 11.0, 12.0),
        ("backfill", 11.0, 12.0),
        ("priority", 12.0, 11.0),
    ] {
        let units = run(&text(queue));
        assert_eq!(
            (job(&units[0], 1).start_h, job(&units[0], 2).start_h),
            (b_start, d_start),
            "{queue}"
        );
    }
}

#[test]
fn priority_aging_lets_a_low_priority_gang_start() {
    // One 8-GPU node. A (t=0, 8 GPUs, 1 h, priority 1) runs 0-1. G (t=0.1, 8 GPUs, 1 h,
    // priority 0) waits. H jobs (1 GPU, 0.9 h, priority 1) arrive every 0.5 h from 0.57 to
    // 9.57, so one or two of them always run: the node never empties while they come.
    //   strict priority ("never"): every H is ahead of G, so G starts when the last H ends,
    //     9.57 + 0.9 = 10.47.
    //   priority_aging_h = 2: H at t is ahead of G iff t - 2 < 0.1, i.e. those at 0.57, 1.07,
    //     1.57, 2.07. They start at once (ahead of the reservation): H 0.57 at 1, the others on
    //     arrival; the last of them ends at 2.97. H 2.57 is behind G and would run past G's
    //     shadow time 2.97, so it waits: G starts at 2.97 and runs to 3.97.
    //   backfill (arrival order): G is ahead of every H and starts when A ends, at 1.
    let h_times: Vec<String> = (0..19)
        .map(|k| format!("{:.2}", 0.57 + 0.5 * f64::from(k)))
        .collect();
    let text = |queue: &str, aging: &str| {
        format!(
            r#"
[[workload]]
name = "a"
arrival_times_h = [0.0]
gpus = 8
duration_h = 1
priority = 1
[[workload]]
name = "g"
arrival_times_h = [0.1]
gpus = 8
duration_h = 1
[[workload]]
name = "h"
arrival_times_h = [{}]
gpus = 1
duration_h = 0.9
priority = 1
[[pool]]
name = "node"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[strategy]]
name = "s"
pools = ["node"]
queue = "{queue}"
{aging}
"#,
            h_times.join(", ")
        )
    };
    for (queue, aging, g_start_h) in [
        ("priority", "priority_aging_h = \"never\"", 10.47),
        ("priority", "priority_aging_h = 2", 2.97),
        ("backfill", "", 1.0),
    ] {
        let units = run(&text(queue, aging));
        let g = job(&units[0], 1);
        assert!(close(g.start_h, g_start_h), "{queue} {aging}: {g:?}");
    }
}

#[test]
fn jobs_burst_to_the_cloud_after_waiting_the_threshold() {
    // One on-prem GPU busy with A (t=1, 10 h). B (t=2, 1 h) waits; after 3 h (t=5) it may use
    // the cloud, whose node takes 0.5 h: B runs 5.5-6.5 (wait 3.5 h) and is a burst job.
    // With "never", B waits for A: starts at 11.
    let text = |burst: &str| {
        format!(
            r#"
[[workload]]
name = "a"
arrival_times_h = [1.0]
gpus = 1
duration_h = 10
[[workload]]
name = "b"
arrival_times_h = [2.0]
gpus = 1
duration_h = 1
[[pool]]
name = "node"
type = "on_prem"
gpu = "H100"
gpus_per_node = 1
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 4
provisioning_h = 0.5
[[strategy]]
name = "s"
pools = ["node", "cloud"]
burst_after_wait_h = {burst}
"#
        )
    };
    let units = run(&text("3"));
    let b = job(&units[0], 1);
    assert!(
        close(b.start_h, 5.5) && close(b.wait_h, 3.5) && b.pool == "cloud",
        "{b:?}"
    );
    assert_eq!(units[0].row.burst_jobs, 1);
    // Billed from the request at 5.0 to the release at 6.5.
    assert!(
        close(units[0].row.cost_on_demand, 1.5 * 4.0),
        "{:?}",
        units[0].row
    );
    let units = run(&text("\"never\""));
    assert_eq!(job(&units[0], 1).start_h, 11.0);
    assert_eq!(units[0].row.burst_jobs, 0);
}

#[test]
fn a_job_interrupted_before_its_retry_time_asks_the_refusing_pool_again_then() {
    // Spot refuses every request from 19:00 to 22:00 UTC (shortfall 1) and is asked again
    // 10 h after a refusal; a reserved 1-GPU node for January (744 h) stands behind it. The
    // job (1 GPU, 20 h, no checkpoints) arrives at 740 h, 20:00 on 31 January: spot refuses
    // it (asked again from 750), the reservation takes it, and the end of the term at 744
    // interrupts it (4 GPU-h lost). It waits, spot barred, to 750 (06:00, outside the
    // window): the retry time outlives the run during which it was set. Spot's node is
    // ready at 750.1 and the job runs again from zero to 770.1; spot bills 750-770.1, 20.1
    // GPU-h at 3.
    let units = run(r#"
[[workload]]
name = "training"
arrival_times_h = [740.0]
gpus = 1
duration_h = 20
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
gpus_per_node = 1
nodes = 1
price_per_gpu_h = 10
discount = 0.4
term_months = 1
[[pool]]
name = "spot"
type = "spot"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 3
provisioning_h = 0.1
preemption = { mean_h = 1e12 }
availability = { shortfall = 1.0, window = "daily 19:00-22:00", retry_h = 10 }
[[strategy]]
name = "spot-first"
pools = ["spot", "committed"]
"#);
    let unit = &units[0];
    let training = job(unit, 0);
    assert!(
        close(training.end_h, 770.1) && training.pool == "spot",
        "{training:?}"
    );
    let row = &unit.row;
    assert_eq!(row.jobs_unfinished, 0, "{row:?}");
    assert!(close(row.lost_gpu_hours, 4.0), "{row:?}");
    assert!(close(row.cost_spot, 20.1 * 3.0), "{row:?}");
    let (spot, committed) = (&unit.pools[0], &unit.pools[1]);
    assert_eq!((spot.jobs_started, spot.failed_requests), (1, 1));
    assert_eq!(committed.jobs_started, 1);
}

#[test]
fn a_strategy_without_checkpointing_equals_workloads_without_checkpoints() {
    let text = |checkpoint: &str, checkpointing: &str| {
        format!(
            r#"
[[workload]]
name = "training"
arrivals_per_day = 20
gpus = 1
duration_h = {{ dist = "exponential", mean = 6.0 }}
{checkpoint}
[[pool]]
name = "spot"
type = "spot"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 2
preemption = {{ mean_h = 8 }}
[[strategy]]
name = "s"
pools = ["spot"]
checkpointing = {checkpointing}
"#
        )
    };
    let with = "checkpoint = { every_h = 1, write_h = 0.1, restart_h = 0.2 }";
    let off = run(&text(with, "false"));
    let none = run(&text("", "true"));
    let on = run(&text(with, "true"));
    assert_eq!(format!("{:?}", off[0].row), format!("{:?}", none[0].row));
    assert!(on[0].row.checkpoint_gpu_hours > 0.0 && off[0].row.checkpoint_gpu_hours == 0.0);
    assert!(on[0].row.lost_gpu_hours < off[0].row.lost_gpu_hours);
}

/// One on-prem node of `gpus_per_node` GPUs that costs nothing.
fn free_node(gpus_per_node: u32, nodes: u32) -> String {
    format!(
        r#"
[[pool]]
name = "node"
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
"#
    )
}

#[test]
fn waits_of_three_hours_are_three_hours() {
    // A 20-GPU job holds the only (20-GPU) node from 0 to 3 h; nineteen 1-GPU jobs arrive at
    // 0.001 h and start at 3 h: waits 0 and nineteen times 2.999 h. Nearest rank: p50 is the
    // 10th of 20 waits, p95 the 19th: both 2.999 h (they were reported as 0.002 h before).
    let units = run(&format!(
        r#"
[[workload]]
name = "big"
arrival_times_h = [0.0]
gpus = 20
duration_h = 3
[[workload]]
name = "small"
arrival_times_h = [{}]
gpus = 1
duration_h = 1
{}
[[strategy]]
name = "s"
pools = ["node"]
"#,
        vec!["0.001"; 19].join(", "),
        free_node(20, 1)
    ));
    let row = &units[0].row;
    for (what, value) in [("p50", row.wait_p50_h), ("p95", row.wait_p95_h)] {
        assert!((value - 2.999).abs() <= 2.999 * 5e-4, "{what} {value}");
    }
    assert!(close(row.wait_max_h, 2.999));
    assert!(close(row.wait_mean_h, 19.0 * 2.999 / 20.0));
    assert_eq!(row.jobs_unstarted, 0);
    assert_eq!(row.wait_p95_lower_bound, 0.0);
}

#[test]
fn easy_backfill_lets_short_jobs_pass_and_keeps_the_reserved_gpus() {
    // One 8-GPU node. A (t=0, 6 GPUs, 10 h) runs 0-10. B (t=1, 8 GPUs, 5 h) cannot start: it
    // gets the reservation, the whole node at 10 h. C (t=2, 2 GPUs, 3 h) ends at 5 <= 10, so
    // it backfills: 2-5. D (t=6, 2 GPUs, 5 h) would end at 11 > 10 and only the reserved GPUs
    // are free: it waits; B runs 10-15, then D 15-20.
    //   backfill: starts 0, 10, 2, 15 (waits 0, 9, 0, 9).
    //   first_fit: D takes the free GPUs at 6 (6-11) and delays B to 11.
    //   fifo: C and D wait behind B: B 10-15, then C and D at 15.
    let text = format!(
        r#"
[[workload]]
name = "a"
arrival_times_h = [0.0]
gpus = 6
duration_h = 10
[[workload]]
name = "b"
arrival_times_h = [1.0]
gpus = 8
duration_h = 5
[[workload]]
name = "c"
arrival_times_h = [2.0]
gpus = 2
duration_h = 3
[[workload]]
name = "d"
arrival_times_h = [6.0]
gpus = 2
duration_h = 5
{}
[[strategy]]
name = "backfill"
pools = ["node"]
queue = "backfill"
[[strategy]]
name = "first_fit"
pools = ["node"]
queue = "first_fit"
[[strategy]]
name = "fifo"
pools = ["node"]
queue = "fifo"
"#,
        free_node(8, 1)
    );
    let units = run(&text);
    let starts = |s: usize| -> Vec<f64> { (0..4).map(|id| job(&units[s], id).start_h).collect() };
    assert_eq!(starts(0), vec![0.0, 10.0, 2.0, 15.0], "backfill");
    assert_eq!(starts(1), vec![0.0, 11.0, 2.0, 6.0], "first_fit");
    assert_eq!(starts(2), vec![0.0, 10.0, 15.0, 15.0], "fifo");
    // Two nodes, and E (t=0, 6 GPUs, 20 h) on the second: B's reservation holds only A's
    // node (empty at 10 h, before E's at 20 h), so D may take the 2 GPUs free beside E at 6.
    let two = text.replace(&free_node(8, 1), &free_node(8, 2)).replacen(
        "[[workload]]\nname = \"b\"",
        "[[workload]]\nname = \"e\"\narrival_times_h = [0.0]\ngpus = 6\nduration_h = 20\n[[workload]]\nname = \"b\"",
        1,
    );
    let units = run(&two);
    // Jobs in arrival order: A, E (both at 0, in workload order), B, C, D.
    assert_eq!(
        starts_of(&units[0]),
        vec![0.0, 0.0, 10.0, 2.0, 6.0],
        "backfill, two nodes"
    );
}

fn starts_of(unit: &UnitResult) -> Vec<f64> {
    let mut jobs: Vec<&JobRow> = unit.jobs.iter().collect();
    jobs.sort_by_key(|j| j.job);
    jobs.iter().map(|j| j.start_h).collect()
}

#[test]
fn node_local_keeps_a_job_on_one_node_where_spread_splits_it() {
    // Two 4-GPU nodes. A and B (t=0, 3 GPUs each, 10 h) take a node each (best fit puts B on
    // the empty node, the only one with 3 free), leaving 1 GPU free on each. C (t=1, 2 GPUs,
    // 1 h): node_local has no node with 2 free, so C waits until 10; spread takes 1 + 1 at 1.
    let text = |placement: &str| {
        format!(
            r#"
[[workload]]
name = "ab"
arrival_times_h = [0.0, 0.0]
gpus = 3
duration_h = 10
[[workload]]
name = "c"
arrival_times_h = [1.0]
gpus = 2
duration_h = 1
{}
placement = "{placement}"
[[strategy]]
name = "s"
pools = ["node"]
queue = "backfill"
"#,
            free_node(4, 2)
        )
    };
    let units = run(&text("node_local"));
    assert_eq!(starts_of(&units[0]), vec![0.0, 0.0, 10.0]);
    let units = run(&text("spread"));
    assert_eq!(starts_of(&units[0]), vec![0.0, 0.0, 1.0]);
    // A strategy's placement overrides its pools'.
    let units = run(&text("spread").replace(
        "queue = \"backfill\"",
        "queue = \"backfill\"\nplacement = \"node_local\"",
    ));
    assert_eq!(starts_of(&units[0]), vec![0.0, 0.0, 10.0]);
}

#[test]
fn workloads_and_teams_share_the_cost_of_what_they_used() {
    // One on-demand 8-GPU node at 2 per GPU-hour, ready at once, released when idle, billed
    // per second. X (team x, t=0, 4 GPUs, 2 h) and Y (team y, t=0, 2 GPUs, 1 h) share the node,
    // which lives 0-2 h: 16 paid GPU-hours, 32. Busy: X 8, Y 2 GPU-hours.
    //   unallocated (default): 2 per paid GPU-hour: X 16, Y 4, idle 12.
    //   proportional: 32 / 10 per busy GPU-hour: X 25.6, Y 6.4, idle 0.
    let text = |idle_cost: &str| {
        format!(
            r#"
idle_cost = "{idle_cost}"
[[workload]]
name = "x"
arrival_times_h = [0.0]
gpus = 4
duration_h = 2
team = "tx"
[[workload]]
name = "y"
arrival_times_h = [0.0]
gpus = 2
duration_h = 1
team = "ty"
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 2
provisioning_h = 0
idle_timeout_h = 0
billing_increment_s = 1
billing_minimum_s = 1
[[strategy]]
name = "s"
pools = ["cloud"]
"#
        )
    };
    for (idle_cost, x, y, idle) in [
        ("unallocated", 16.0, 4.0, 12.0),
        ("proportional", 25.6, 6.4, 0.0),
    ] {
        let units = run(&text(idle_cost));
        let unit = &units[0];
        assert!(close(unit.row.total_cost, 32.0), "{}", unit.row.total_cost);
        let costs: Vec<f64> = unit.workloads.iter().map(|w| w.cost).collect();
        assert!(
            close(costs[0], x) && close(costs[1], y),
            "{idle_cost}: {costs:?}"
        );
        let teams: Vec<f64> = unit.teams.iter().map(|t| t.cost).collect();
        assert!(
            close(teams[0], x) && close(teams[1], y),
            "{idle_cost}: {teams:?}"
        );
        assert!(
            close(unit.unallocated.cost, idle),
            "{idle_cost}: {:?}",
            unit.unallocated
        );
        assert!(close(unit.unallocated.gpu_hours_idle, 6.0));
        assert!(close(unit.workloads[0].gpu_hours_busy, 8.0));
    }
}

/// One free on-prem node of `gpus_per_node` GPUs of type `gpu`, named `name`.
fn free_node_of(name: &str, gpu: &str, gpus_per_node: u32) -> String {
    format!(
        r#"
[[pool]]
name = "{name}"
type = "on_prem"
gpu = "{gpu}"
gpus_per_node = {gpus_per_node}
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
"#
    )
}

#[test]
fn each_workload_runs_at_its_own_speed_on_each_gpu_type() {
    // One 1-GPU H100 node, tried first, and one 1-GPU A100 node. The scenario's [gpu_speed] says
    // an H100 is twice an A100; each workload replaces it with its own, in opposite ways:
    //   llm: 10 h on an A100, 2.5 times faster on an H100 (4 h there);
    //   cnn: 10 h on an A100, half as fast on an H100 (20 h there).
    // llm#0 (t=0) takes the H100: 0-4. cnn#0 (t=0.5) finds it busy and takes the A100:
    // 0.5-10.5. cnn#1 (t=1) waits for the H100, free at 4: 4-24 (wait 3 h). llm#1 (t=12) finds
    // the H100 busy and the A100 free since 10.5: 12-22. Busy 4 + 10 + 20 + 10 = 44 GPU-h.
    // Deadlines: llm 4.5 h, met on the H100 (4 h; the scenario's speeds would make it 5 h and
    // every llm job infeasible); cnn 12 h, met on the A100 (10 h). llm#1 (ends 22 > 16.5) and
    // cnn#1 (24 > 13) are late, none infeasible.
    let units = run(&format!(
        r#"
[gpu_speed]
A100 = 1.0
H100 = 2.0
[[workload]]
name = "llm"
arrival_times_h = [0.0, 12.0]
gpus = 1
duration_h = 10
gpu = "A100"
accepts = ["H100", "A100"]
gpu_speed = {{ A100 = 1.0, H100 = 2.5 }}
deadline_h = 4.5
[[workload]]
name = "cnn"
arrival_times_h = [0.5, 1.0]
gpus = 1
duration_h = 10
gpu = "A100"
accepts = ["H100", "A100"]
gpu_speed = {{ A100 = 1.0, H100 = 0.5 }}
deadline_h = 12
{}{}
[[strategy]]
name = "s"
pools = ["h100", "a100"]
"#,
        free_node_of("h100", "H100", 1),
        free_node_of("a100", "A100", 1)
    ));
    let unit = &units[0];
    let find = |workload: &str, arrival_h: f64| {
        (unit.jobs.iter())
            .find(|j| j.workload == workload && j.arrival_h == arrival_h)
            .unwrap()
    };
    for (workload, arrival_h, pool, start_h, end_h) in [
        ("llm", 0.0, "h100", 0.0, 4.0),
        ("cnn", 0.5, "a100", 0.5, 10.5),
        ("cnn", 1.0, "h100", 4.0, 24.0),
        ("llm", 12.0, "a100", 12.0, 22.0),
    ] {
        let j = find(workload, arrival_h);
        assert_eq!(j.pool, pool, "{j:?}");
        assert!(close(j.start_h, start_h) && close(j.end_h, end_h), "{j:?}");
    }
    let row = &unit.row;
    assert!(close(row.gpu_hours_busy, 44.0), "{row:?}");
    assert_eq!(
        (row.deadline_misses, row.deadline_infeasible),
        (2, 0),
        "{row:?}"
    );
}

/// One 8-GPU on-demand node at most (2 per GPU-hour, ready at once, released when idle), a
/// 4-GPU job holding half of it over 0-10, and an 8-GPU job at t=1 that may shrink: the
/// strategy's `elastic` as given.
fn half_busy_node(scaling: &str, elastic: bool) -> Vec<UnitResult> {
    run(&format!(
        r#"
[[workload]]
name = "small"
arrival_times_h = [0.0]
gpus = 4
duration_h = 10
[[workload]]
name = "train"
arrival_times_h = [1.0]
gpus = 8
duration_h = 6
{scaling}
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 2
max_nodes = 1
provisioning_h = 0
idle_timeout_h = 0
[[strategy]]
name = "s"
pools = ["cloud"]
elastic = {elastic}
"#
    ))
}

#[test]
fn an_elastic_gang_starts_at_once_on_the_gpus_free_and_runs_longer_by_its_scaling() {
    // Efficiency 0.9: each doubling of the count multiplies throughput by 2 x 0.9 = 1.8, so on
    // half its 8 GPUs the job takes 1.8 times as long. Counts it may take: 8, 4, 2 (min_gpus).
    // At t=1 the node has 4 GPUs free and may not grow (max_nodes = 1): 8 does not fit, 4 does.
    // It runs 1 to 1 + 6 x 1.8 = 11.8 on 4 GPUs (wait 0): 43.2 GPU-h, cost 43.2 x 2 = 86.4.
    // small: 0-10 on 4 GPUs, 40 GPU-h, cost 80. Busy 40 + 43.2 = 83.2 GPU-h.
    // The node lives 0 to 11.8 (42,480 s, whole seconds): paid 8 x 11.8 = 94.4 GPU-h, 188.8.
    let units = half_busy_node("scaling_efficiency = 0.9\nmin_gpus = 2", true);
    let unit = &units[0];
    let train = job(unit, 1);
    assert!(
        close(train.start_h, 1.0) && close(train.end_h, 11.8),
        "{train:?}"
    );
    assert_eq!(
        (train.gpus, train.wait_h),
        (8, 0.0),
        "jobs.csv keeps the asked count"
    );
    assert!(close(train.cost, 86.4), "{train:?}");
    assert!(close(job(unit, 0).cost, 80.0));
    let row = &unit.row;
    assert!(close(row.gpu_hours_busy, 83.2), "{row:?}");
    assert!(close(row.gpu_hours_paid, 94.4), "{row:?}");
    assert!(close(row.total_cost, 188.8), "{row:?}");
}

#[test]
fn without_elastic_the_same_gang_waits_for_its_asked_count() {
    // The same files with elastic = false: train waits for small to end at 10 and runs 10-16 on
    // its 8 GPUs (wait 9): 48 GPU-h, cost 96. Busy 40 + 48 = 88; the node lives 0-16: paid 128
    // GPU-h, 256.
    let units = half_busy_node("scaling_efficiency = 0.9\nmin_gpus = 2", false);
    let unit = &units[0];
    let train = job(unit, 1);
    assert!(
        close(train.start_h, 10.0) && close(train.end_h, 16.0),
        "{train:?}"
    );
    assert!(
        close(train.wait_h, 9.0) && close(train.cost, 96.0),
        "{train:?}"
    );
    let row = &unit.row;
    assert!(
        close(row.gpu_hours_busy, 88.0) && close(row.gpu_hours_paid, 128.0),
        "{row:?}"
    );
    assert!(close(row.total_cost, 256.0), "{row:?}");
}

#[test]
fn an_elastic_gang_takes_only_counts_its_scaling_table_lists() {
    // A table of speed-ups { 1 = 1, 4 = 3.2, 8 = 5.6 } and min_gpus = 1: counts 8, 4 and 1.
    // With small on 4 GPUs, 4 are free: 8 does not fit, 4 does (5, 6 and 7 are not listed).
    // On 4 instead of 8 it runs 5.6 / 3.2 = 1.75 times as long: 1 to 1 + 6 x 1.75 = 11.5,
    // 4 x 10.5 = 42 GPU-h, cost 84.
    let units = half_busy_node(
        "scaling = { 1 = 1.0, 4 = 3.2, 8 = 5.6 }\nmin_gpus = 1",
        true,
    );
    let unit = &units[0];
    let train = job(unit, 1);
    assert!(
        close(train.start_h, 1.0) && close(train.end_h, 11.5),
        "{train:?}"
    );
    assert!(close(train.cost, 84.0), "{train:?}");
    assert!(
        close(unit.row.gpu_hours_busy, 40.0 + 42.0),
        "{:?}",
        unit.row
    );
}

#[test]
fn an_interrupted_elastic_gang_keeps_its_saved_work_and_restarts_on_what_fits_then() {
    // A reserved 4-GPU node for January (744 h), 8-GPU on-demand nodes behind it. An 8-GPU job
    // of 100 h (hours on 8 GPUs) arrives at t=700, efficiency 0.9, min_gpus = 4, checkpoint
    // every 10 h of work (write 0.5 h, restore 1 h). The reservation comes first in the
    // strategy: 8 GPUs do not fit its node, 4 do. On 4 its work is 100 x 1.8 = 180 h.
    // 700-744: 44 h = 4 cycles of 10.5 h (40 h of work saved, 2 h writing) and 2 h lost when
    // the term ends. Saved: 40 h on 4 GPUs = 40 / 1.8 = 22.2222 h on 8; left 77.7778 h.
    // It restarts with the count that fits then: 8 on a new on-demand node. Restore 1 h, the
    // 77.7778 h with 7 checkpoints (at 10, ..., 70 h: 3.5 h), 82.2778 h: ends at 826.2778.
    // Lost 4 x 2 = 8 GPU-h. Checkpoint GPU-h 4 x 2 + 8 x (1 + 3.5) = 44.
    // Cost: 744 x 4 x 10 x 0.6 = 17,856 reserved; on demand 8 x 82.2778 x 10 = 6,582.22 (the
    // node lives 296,200 s, whole seconds).
    let units = run(r#"
[[workload]]
name = "training"
arrival_times_h = [700.0]
gpus = 8
duration_h = 100
scaling_efficiency = 0.9
min_gpus = 4
checkpoint = { every_h = 10, write_h = 0.5, restart_h = 1 }
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
gpus_per_node = 4
nodes = 1
price_per_gpu_h = 10
discount = 0.4
term_months = 1
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 10
provisioning_h = 0
idle_timeout_h = 0
[[strategy]]
name = "reserved-first"
pools = ["committed", "cloud"]
elastic = true
"#);
    let unit = &units[0];
    let row = &unit.row;
    let training = job(unit, 0);
    let left_h = 100.0 - 40.0 / 1.8;
    let end_h = 744.0 + 1.0 + left_h + 7.0 * 0.5;
    assert!(close(end_h, 826.277_777_777_777_8));
    assert!(close(training.end_h, end_h), "{training:?}");
    assert_eq!(training.pool, "cloud");
    assert!(close(row.lost_gpu_hours, 8.0), "{row:?}");
    assert!(close(row.checkpoint_gpu_hours, 44.0), "{row:?}");
    assert!(close(row.cost_reserved, 17_856.0), "{row:?}");
    assert!(
        close(row.cost_on_demand, 8.0 * 10.0 * (end_h - 744.0)),
        "{row:?}"
    );
    assert!(
        close(row.gpu_hours_busy, 4.0 * 44.0 + 8.0 * (end_h - 744.0)),
        "{row:?}"
    );
}

#[test]
fn a_job_takes_free_gpus_of_any_size_that_holds_it_before_it_rents_the_smallest() {
    // One on-demand pool selling two sizes: 1xH100 at 4 and p5.48xlarge (8 GPUs) at 3 per
    // GPU-hour, billed per second, idle nodes kept 5 h.
    //   A (t=0, 8 GPUs, 1 h): only the 8-GPU size holds it; a p5 node is rented: 0-1.
    //   B (t=2, 1 GPU, 1 h): no 1-GPU node is up, the idle p5 node holds it: 2-3 there.
    //   C (t=2.5, 2 GPUs, 1 h): the 1-GPU size cannot hold it; the p5 node has 7 free: 2.5-3.5.
    //   The p5 node is idle from 3.5 and released at 8.5: it lived 8.5 h, 8 x 8.5 x 3 = 204.
    //   D (t=10, 1 GPU, 0.5 h): no node is up; the smallest size that holds it is rented:
    //   10-10.5, released at 15.5: 5.5 h x 1 x 4 = 22.
    // Total 226; paid 68 + 5.5 = 73.5 GPU-h; busy 8 + 1 + 2 + 0.5 = 11.5 GPU-h.
    let units = run(r#"
[[workload]]
name = "a"
arrival_times_h = [0.0]
gpus = 8
duration_h = 1
[[workload]]
name = "b"
arrival_times_h = [2.0]
gpus = 1
duration_h = 1
[[workload]]
name = "c"
arrival_times_h = [2.5]
gpus = 2
duration_h = 1
[[workload]]
name = "d"
arrival_times_h = [10.0]
gpus = 1
duration_h = 0.5
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
instances = [{ gpus = 1, price_per_gpu_h = 4 }, { name = "p5.48xlarge", gpus = 8, price_per_gpu_h = 3 }]
idle_timeout_h = 5
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#);
    let unit = &units[0];
    let row = &unit.row;
    assert_eq!((row.jobs_arrived, row.jobs_completed), (4, 4));
    assert!(close(row.total_cost, 226.0), "{}", row.total_cost);
    assert!(close(row.gpu_hours_paid, 73.5), "{}", row.gpu_hours_paid);
    assert!(close(row.gpu_hours_busy, 11.5), "{}", row.gpu_hours_busy);
    let pools: Vec<(&str, u64)> = unit
        .pools
        .iter()
        .map(|p| (p.pool.as_str(), p.nodes_requested))
        .collect();
    assert_eq!(pools, [("cloud (1xH100)", 1), ("cloud (p5.48xlarge)", 1)]);
    let on = |id: u64| job(unit, id).pool.as_str();
    assert_eq!(
        [on(0), on(1), on(2), on(3)],
        [
            "cloud (p5.48xlarge)",
            "cloud (p5.48xlarge)",
            "cloud (p5.48xlarge)",
            "cloud (1xH100)"
        ]
    );
    assert!(close(job(unit, 1).start_h, 2.0) && close(job(unit, 2).end_h, 3.5));
}

#[test]
fn a_reservation_of_several_sizes_pays_each_and_fills_the_smallest_first() {
    // Reserved for 12 months at half the list price: two 1-GPU instances listed at 4 and one
    // 8-GPU instance listed at 3 per GPU-hour, paid every hour of January and February 2027
    // (1,416 h): (2 x 1 x 4 + 1 x 8 x 3) x 0.5 x 1,416 = 16 x 1,416 = 22,656.
    // Three 1-GPU jobs at t=0 for 1 h: two fill the 1-GPU instances, the third the 8-GPU one.
    let units = run(r#"
[[workload]]
name = "w"
arrival_times_h = [0.0, 0.0, 0.0]
gpus = 1
duration_h = 1
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
instances = [{ gpus = 8, nodes = 1, price_per_gpu_h = 3 }, { gpus = 1, nodes = 2, price_per_gpu_h = 4 }]
discount = 0.5
term_months = 12
[[strategy]]
name = "reserved"
pools = ["committed"]
"#);
    let unit = &units[0];
    assert!(
        close(unit.row.total_cost, 22_656.0),
        "{}",
        unit.row.total_cost
    );
    assert!(
        close(unit.row.gpu_hours_paid, 10.0 * 1416.0),
        "{}",
        unit.row.gpu_hours_paid
    );
    let on = |id: u64| job(unit, id).pool.as_str();
    assert_eq!(
        [on(0), on(1), on(2)],
        [
            "committed (1xH100)",
            "committed (1xH100)",
            "committed (8xH100)"
        ]
    );
    assert!((0..3).all(|id| job(unit, id).wait_h == 0.0));
}

#[test]
fn an_elastic_gang_tries_a_pools_sizes_from_its_largest_count_down() {
    // An on-demand pool selling 1-GPU instances at 4 and 8-GPU instances at 3 per GPU-hour.
    // B asks 8 GPUs for 1 h, may run on 1 to 8 (efficiency 0.9: on n GPUs it takes
    // (8/n)^log2(1.8) as long, 1.8^3 = 5.832 times as long on 1 GPU).
    let scenario = |quota: &str| {
        format!(
            r#"
[[workload]]
name = "a"
arrival_times_h = [0.0]
gpus = 8
duration_h = 10
[[workload]]
name = "b"
arrival_times_h = [0.5]
gpus = 8
duration_h = 1
scaling_efficiency = 0.9
min_gpus = 1
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
instances = [{{ gpus = 1, price_per_gpu_h = 4 }}, {{ gpus = 8, price_per_gpu_h = 3{quota} }}]
[[strategy]]
name = "elastic"
pools = ["cloud"]
elastic = true
"#
        )
    };
    // No quota: B rents its own 8-GPU instance at 0.5 and ends at 1.5. Cost 8 x 10 x 3 for A
    // and 8 x 1 x 3 for B: 264.
    let units = run(&scenario(""));
    let b = job(&units[0], 1);
    assert!(close(b.start_h, 0.5) && close(b.end_h, 1.5), "{b:?}");
    assert_eq!(b.pool, "cloud (8xH100)");
    assert!(
        close(units[0].row.total_cost, 264.0),
        "{}",
        units[0].row.total_cost
    );
    // One 8-GPU instance at most, A's: B shrinks to one GPU on a 1-GPU instance at 0.5 and
    // ends at 0.5 + 5.832 = 6.332. Its instance lived 20,995.2 s, billed per started second:
    // 20,996 s x 4 / 3,600 = 23.3289 for B, 240 for A.
    let units = run(&scenario(", max_nodes = 1"));
    let b = job(&units[0], 1);
    assert!(close(b.start_h, 0.5) && close(b.end_h, 6.332), "{b:?}");
    assert_eq!(b.pool, "cloud (1xH100)");
    let cost = 240.0 + 20_996.0 * 4.0 / 3600.0;
    assert!(
        close(units[0].row.total_cost, cost),
        "{}",
        units[0].row.total_cost
    );
}
