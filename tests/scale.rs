//! The cost of a job does not grow with the fleet: the built-in scenario at 4 and at 32 times
//! its size (arrivals, DGX and reserved nodes, spot quota), one month, one thread, counted in
//! instructions by valgrind's callgrind (the same count on any load, unlike a clock).
//!
//! A scheduling pass that walks the nodes or the running jobs of a pool, as EASY backfill's
//! reservation once did, makes a job 4 to 5 times as costly at 32 times the fleet; a pass that
//! keeps what it needs up to date costs it about a third more (more kinds of jobs wait at once
//! in a larger fleet, and the event heap is deeper). The bound between them fails the first.

use std::path::Path;
use std::process::Command;

use crate::common::{skip_or_fail, temp_dir};

/// Instructions per job at 32 times the fleet, over those at 4 times, at most.
const RATIO_MAX: f64 = 1.6;

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
        .arg(&out)
        .args(scaled(k))
        .output()
        .expect("valgrind runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "valgrind failed: {stderr}");
    let collected = stderr
        .lines()
        .find_map(|line| line.split("Collected :").nth(1))
        .unwrap_or_else(|| panic!("no instruction count in valgrind's output: {stderr}"));
    let instructions: f64 = collected.trim().parse().unwrap();
    instructions / jobs(&out)
}

#[test]
fn the_instructions_per_job_do_not_grow_with_the_fleet() {
    let found = Command::new("valgrind").arg("--version").output();
    if !found.is_ok_and(|out| out.status.success()) {
        skip_or_fail(
            "no valgrind to count instructions (as root: .ci/install-test-tools valgrind)",
        );
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
    let _ = std::fs::remove_dir_all(&dir);
}
