//! Scheduling against the contract: EASY backfill never starves a wide gang, and a
//! gang that finds nobody waiting ahead of it starts no later than the last job running at its
//! arrival ends; `first_fit` shows the starvation that the reservation prevents.

use std::sync::atomic::AtomicBool;

use fleetsim::records::JobRow;
use fleetsim::runner;

use crate::common::config;

/// A fleet of wide gangs among small jobs: 4 DGX nodes (32 GPUs), 240 1-GPU jobs a day
/// (exponential, mean 2 h) and one 32-GPU, 6 h gang a day, for 3 months.
const WIDE_GANGS: &str = r#"
start = "2027-01-01"
horizon_months = 3
replications = 1
seed = 3
[[workload]]
name = "small"
arrivals_per_day = 240
gpus = 1
duration_h = { dist = "exponential", mean = 2.0 }
[[workload]]
name = "gang"
arrivals_per_day = 1
gpus = 32
duration_h = 6
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 4
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[strategy]]
name = "backfill"
pools = ["dgx"]
queue = "backfill"
[[strategy]]
name = "first_fit"
pools = ["dgx"]
queue = "first_fit"
"#;

fn jobs_of<'a>(jobs: &'a [JobRow], workload: &str) -> Vec<&'a JobRow> {
    jobs.iter().filter(|j| j.workload == workload).collect()
}

#[test]
fn backfill_starts_every_wide_gang_and_bounds_its_wait() {
    let config = config(WIDE_GANGS);
    let output = runner::run(&config, true, &|| {}, &AtomicBool::new(false)).unwrap();
    let (backfill, first_fit) = (&output.units[0], &output.units[1]);
    let horizon_h = config.horizon_h;
    let gangs = jobs_of(&backfill.jobs, "gang");
    assert!(gangs.len() > 60, "{} gangs", gangs.len());
    let mut bounded = 0;
    for gang in &gangs {
        // Every gang that arrived two days before the end has started.
        if gang.arrival_h < horizon_h - 48.0 {
            assert!(!gang.start_h.is_nan(), "a gang never started: {gang:?}");
        }
        // Nobody waiting ahead of it: it is the first job that cannot start, so it holds the
        // reservation; what runs at its arrival ends by some time, and it starts by then.
        let ahead_waiting = backfill.jobs.iter().any(|j| {
            j.arrival_h < gang.arrival_h && (j.start_h.is_nan() || j.start_h > gang.arrival_h)
        });
        if ahead_waiting || gang.start_h.is_nan() {
            continue;
        }
        let last_end_h = backfill
            .jobs
            .iter()
            .filter(|j| {
                j.start_h <= gang.arrival_h && (j.end_h.is_nan() || j.end_h > gang.arrival_h)
            })
            .map(|j| j.end_h)
            .fold(gang.arrival_h, f64::max);
        assert!(
            gang.start_h <= last_end_h + 1e-9,
            "gang waited past the last end of what ran at its arrival ({last_end_h} h): {gang:?}"
        );
        bounded += 1;
    }
    assert!(
        bounded >= 10,
        "too few gangs found the queue empty to test the bound: {bounded}"
    );
    // Without the reservation, 1-GPU jobs keep every node busy: the gangs starve, and the
    // summary says so (they count with their waits so far).
    let starved = jobs_of(&first_fit.jobs, "gang");
    let started = starved.iter().filter(|g| !g.start_h.is_nan()).count();
    assert!(
        started * 10 < starved.len(),
        "{started} of {} gangs started",
        starved.len()
    );
    let gang = &first_fit.workloads[1];
    assert!(
        gang.wait_p95_h > 1000.0 && gang.wait_p95_lower_bound == 1.0,
        "{gang:?}"
    );
    assert!(
        backfill.workloads[1].wait_max_h < 24.0 * 7.0,
        "{:?}",
        backfill.workloads[1]
    );
}

/// The same fleet under `priority`: with the 1-GPU jobs a level above the gangs, strict priority
/// lets them pass every gang forever; aging (by default one level per 24 h waited) puts a gang
/// ahead of the 1-GPU jobs that arrive more than a day after it, so every gang starts.
#[test]
fn priority_with_aging_starts_every_wide_gang() {
    let text = WIDE_GANGS
        .replace(
            "duration_h = { dist = \"exponential\", mean = 2.0 }",
            "duration_h = { dist = \"exponential\", mean = 2.0 }\npriority = 1",
        )
        .replace("name = \"backfill\"", "name = \"aging\"")
        .replace("queue = \"backfill\"", "queue = \"priority\"")
        .replace("name = \"first_fit\"", "name = \"strict\"")
        .replace(
            "queue = \"first_fit\"",
            "queue = \"priority\"\npriority_aging_h = \"never\"",
        );
    let config = config(&text);
    assert_eq!(config.strategies[0].priority_aging_h, Some(24.0));
    let output = runner::run(&config, true, &|| {}, &AtomicBool::new(false)).unwrap();
    let (aging, strict) = (&output.units[0], &output.units[1]);
    let gangs = jobs_of(&aging.jobs, "gang");
    assert!(gangs.len() > 60, "{} gangs", gangs.len());
    for gang in &gangs {
        if gang.arrival_h < config.horizon_h - 48.0 {
            assert!(!gang.start_h.is_nan(), "a gang never started: {gang:?}");
        }
    }
    assert!(
        aging.workloads[1].wait_max_h < 24.0 * 7.0,
        "{:?}",
        aging.workloads[1]
    );
    let starved = jobs_of(&strict.jobs, "gang");
    let started = starved.iter().filter(|g| !g.start_h.is_nan()).count();
    assert!(
        started * 10 < starved.len(),
        "strict priority: {started} of {} gangs started",
        starved.len()
    );
}

/// Two 8-GPU nodes; jobs listed as (arrival h, GPUs, duration h).
fn two_nodes(queue: &str, jobs: &[(f64, u32, f64)]) -> String {
    let mut text =
        String::from("start = \"2027-01-01\"\nhorizon_months = 1\nreplications = 1\nseed = 1\n");
    for (i, (arrival_h, gpus, duration_h)) in jobs.iter().enumerate() {
        text += &format!(
            "[[workload]]\nname = \"j{i}\"\narrival_times_h = [{arrival_h}]\ngpus = {gpus}\n\
             duration_h = {duration_h}\n"
        );
    }
    text += "[[pool]]\nname = \"dgx\"\ntype = \"on_prem\"\ngpu = \"H100\"\ngpus_per_node = 8\n\
             nodes = 2\ncapex_per_node = 0\namortization_months = 1\npower_kw_per_node = 0\n\
             pue = 1\nelectricity_per_kwh = 0\nopex_per_node_month = 0\n";
    text += &format!("[[strategy]]\nname = \"s\"\npools = [\"dgx\"]\nqueue = \"{queue}\"\n");
    text
}

fn start_times_h(text: &str) -> Vec<f64> {
    let config = config(text);
    let output = runner::run(&config, true, &|| {}, &AtomicBool::new(false)).unwrap();
    let mut jobs = output.units[0].jobs.clone();
    jobs.sort_by(|a, b| a.arrival_h.total_cmp(&b.arrival_h));
    jobs.iter()
        .map(|j| (j.start_h * 1e6).round() / 1e6)
        .collect()
}

/// Found by the peer model (tests/peer): a gang arriving to an empty queue that cannot start
/// got no reservation, so a later 20-h job took its node and the gang waited until 20.3 h.
/// By hand: the 8-GPU job runs 0.1-10.1 on one node; the 16-GPU gang needs both nodes, its
/// shadow time is 10.1, so the 1-GPU job (ends 20.3 > 10.1) must wait for the gang's end.
#[test]
fn a_blocked_newcomer_to_an_empty_queue_gets_the_reservation() {
    let jobs = [(0.1, 8, 10.0), (0.2, 16, 5.0), (0.3, 1, 20.0)];
    assert_eq!(
        start_times_h(&two_nodes("backfill", &jobs)),
        vec![0.1, 10.1, 15.1]
    );
    // Without a reservation the small job starts at once and the gang waits for it.
    assert_eq!(
        start_times_h(&two_nodes("first_fit", &jobs)),
        vec![0.1, 20.3, 0.3]
    );
}

/// Ties between equally free nodes go to the lowest-numbered node (docs/scenario.md). By hand:
/// a (4 GPUs, until 10 h) and f (4, until 0.55 h) fill node 0; b (4, until 5.1 h) and g (4,
/// until 0.7 h) fill node 1. At 1 h both nodes have 4 free (node 1 the more recently); job x
/// (4 GPUs, 20 h) takes node 0, the lowest-numbered, so the 8-GPU job y gets node 1 when b ends
/// at 5.1 h (on node 1, x would have kept y waiting until node 0 empties at 10 h).
#[test]
fn equally_free_nodes_go_lowest_numbered_first() {
    let jobs = [
        (0.0, 4, 10.0),
        (0.05, 4, 0.5),
        (0.1, 4, 5.0),
        (0.2, 4, 0.5),
        (1.0, 4, 20.0),
        (2.0, 8, 1.0),
    ];
    assert_eq!(
        start_times_h(&two_nodes("fifo", &jobs)),
        vec![0.0, 0.05, 0.1, 0.2, 1.0, 5.1]
    );
}
