//! The cost of a job does not grow with the fleet: the built-in scenario at 4 and at 32 times
//! its size (arrivals, DGX and reserved nodes, spot quota), one month, one thread, counted in
//! instructions by valgrind's callgrind (the same count on any load, unlike a clock).
//!
//! A scheduling pass that walks the nodes or the running jobs of a pool, as EASY backfill's
//! reservation once did, makes a job 4 to 5 times as costly at 32 times the fleet; a pass that
//! keeps what it needs up to date costs it about a quarter more (7,720 instructions per job at
//! 4 times, 9,655 at 32 times: more jobs wait at once in a larger fleet, so a pass turns more
//! of them away for the reservation, and the event heap is deeper). The bound between them
//! fails the first.
//! The same holds for an inference service's autoscaler as its demand grows.

use std::path::Path;
use std::process::Command;

use crate::common::{skip_or_fail, temp_dir};

/// Instructions per job at 32 times the fleet, over those at 4 times, at most.
const RATIO_MAX: f64 = 1.4;

/// The built-in scenario's arrivals and fleet times `k`, for one month.
fn scaled(k: u32) -> Vec<String> {
    let sets = [
        ("horizon_months", "1".to_string()),
        (
            "workload.experiments.arrivals_per_day",
            (40 * k).to_string(),
        ),
        (
            "workload.fine-tuning.arrivals_per_day",
            (20 * k).to_string(),
        ),
        (
            "workload.large-training.arrivals_per_day",
            format!("{}", 0.5 * f64::from(k)),
        ),
        ("pool.dgx.nodes", (4 * k).to_string()),
        ("pool.aws-p5-reserved-y1.nodes", (4 * k).to_string()),
        ("pool.aws-p5-reserved-y2.nodes", (4 * k).to_string()),
        ("pool.aws-p5-spot.max_nodes", (16 * k).to_string()),
    ];
    sets.iter()
        .flat_map(|(path, value)| ["--set".to_string(), format!("{path}={value}")])
        .collect()
}

/// Jobs arrived over every strategy of the run in `dir`.
fn jobs(dir: &Path) -> f64 {
    let text = std::fs::read_to_string(dir.join("replications.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "jobs_arrived").unwrap();
    lines
        .map(|line| line.split(',').nth(column).unwrap().parse::<f64>().unwrap())
        .sum()
}

/// Instructions callgrind counted for `fleetsim run` of the scenario at `k` times.
fn instructions_per_job(k: u32, dir: &Path) -> f64 {
    let out = dir.join(format!("x{k}"));
    instructions(&scaled(k), &out) / jobs(&out)
}

/// Instructions callgrind counted for `fleetsim run ARGS --out OUT` (one replication, one
/// thread, no charts).
fn instructions(args: &[String], out: &Path) -> f64 {
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(env!("CARGO_BIN_EXE_fleetsim"))
        .args([
            "run",
            "--replications",
            "1",
            "--threads",
            "1",
            "--no-charts",
            "-q",
        ])
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .expect("valgrind runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "valgrind failed: {stderr}");
    let collected = stderr
        .lines()
        .find_map(|line| line.split("Collected :").nth(1))
        .unwrap_or_else(|| panic!("no instruction count in valgrind's output: {stderr}"));
    collected.trim().parse().unwrap()
}

/// Whether valgrind is here to count with; says SKIPPED (or fails under CI) when it is not.
fn have_valgrind() -> bool {
    let found = Command::new("valgrind").arg("--version").output();
    if !found.is_ok_and(|out| out.status.success()) {
        skip_or_fail(
            "no valgrind to count instructions (as root: .ci/install-test-tools valgrind)",
        );
        return false;
    }
    true
}

#[test]
fn the_instructions_per_job_do_not_grow_with_the_fleet() {
    if !have_valgrind() {
        return;
    }
    let dir = temp_dir("scale");
    let small = instructions_per_job(4, &dir);
    let large = instructions_per_job(32, &dir);
    let ratio = large / small;
    assert!(
        ratio <= RATIO_MAX,
        "{large:.0} instructions per job at 32 times the fleet against {small:.0} at 4 times: {ratio:.2} times, more than {RATIO_MAX}; has the scheduling pass become a walk over the fleet?"
    );
    // The bound must be able to fail: the work per job is not constant either way.
    assert!(
        ratio > 0.8,
        "{ratio:.2}: the runs are not what this test thinks"
    );
}

/// One inference service alone on an on-demand pool, `gpus` of mean demand with office hours
/// and hourly variation, so the autoscaler adds and removes replicas all day.
const SERVICE: &str = r#"
name = "service-scale"
start = "2027-01-01"
horizon_months = 1
replications = 1
seed = 3
[[workload]]
name = "batch"
arrivals_per_day = 1
gpus = 1
duration_h = 1
[[service]]
name = "chat"
gpu = "H100"
gpus = 400
daily_profile = "office-hours"
noise_cv = 0.2
scale_down_after_h = 0.5
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 4.0
provisioning_h = 0.1
idle_timeout_h = 0.25
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#;

/// A service's cost per GPU of demand does not grow with its size: at ten times the demand
/// (4,000 one-GPU replicas at the peak against 400) a month costs about ten times the
/// instructions. Removing a replica once searched its service's list, which made a service
/// near the demand cap about quadratically slower (3.7 times the instructions per GPU at ten
/// times the demand) and a SIGTERM wait for the autoscaler's step.
#[test]
fn the_instructions_per_service_gpu_do_not_grow_with_the_demand() {
    if !have_valgrind() {
        return;
    }
    let dir = temp_dir("service-scale");
    let scenario = dir.join("service.toml");
    std::fs::write(&scenario, SERVICE).unwrap();
    let run = |gpus: u32| {
        let args = [
            scenario.to_string_lossy().into_owned(),
            "--set".to_string(),
            format!("service.chat.gpus={gpus}"),
        ];
        instructions(&args, &dir.join(format!("gpus-{gpus}"))) / f64::from(gpus)
    };
    let (small, large) = (run(400), run(4000));
    let ratio = large / small;
    assert!(
        ratio <= RATIO_MAX,
        "{large:.0} instructions per GPU of demand at 4,000 GPUs against {small:.0} at 400: {ratio:.2} times, more than {RATIO_MAX}; does the autoscaler walk its replicas per replica?"
    );
    assert!(
        ratio > 0.5,
        "{ratio:.2}: the runs are not what this test thinks"
    );
}
