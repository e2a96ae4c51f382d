//! Same inputs, same bytes: on any number of threads, whatever other strategies a file holds,
//! and with every strategy seeing the same job stream (common random numbers).

use std::sync::atomic::AtomicBool;

use fleetsim::runner;
use fleetsim::scenario::{DEFAULT_SCENARIO, Loaded};

use crate::common::{fleetsim, temp_dir};

fn load(text: &str) -> Loaded {
    fleetsim::scenario::load_text(text, std::path::Path::new("<test>"), "test", &[]).unwrap()
}

#[test]
fn output_files_are_byte_identical_on_one_and_two_threads() {
    let dir = temp_dir("threads");
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(threads);
        let run = fleetsim(&[
            "run",
            "--replications",
            "4",
            "--threads",
            threads,
            "--trace",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        outputs.push(out);
    }
    for file in [
        "summary.csv",
        "replications.csv",
        "pools.csv",
        "monthly.csv",
        "pools_monthly.csv",
        "jobs.csv",
    ] {
        let one = std::fs::read(outputs[0].join(file)).unwrap();
        let two = std::fs::read(outputs[1].join(file)).unwrap();
        assert!(one == two, "{file} differs between 1 and 2 threads");
        assert!(one.len() > 100, "{file} is suspiciously small");
    }
}

/// Services and every other feature: the same bytes on one and two threads.
#[test]
fn a_scenario_with_every_feature_gives_the_same_bytes_on_one_and_two_threads() {
    let dir = temp_dir("threads-features");
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(threads);
        let run = fleetsim(&[
            "run",
            "tests/data/features.toml",
            "--threads",
            threads,
            "--trace",
            "--quiet",
            "--no-charts",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        outputs.push(out);
    }
    for file in [
        "summary.csv",
        "pools.csv",
        "teams.csv",
        "services.csv",
        "services_monthly.csv",
        "services_hourly.csv",
        "jobs.csv",
    ] {
        let one = std::fs::read(outputs[0].join(file)).unwrap();
        let two = std::fs::read(outputs[1].join(file)).unwrap();
        assert!(one == two, "{file} differs between 1 and 2 threads");
        assert!(one.len() > 100, "{file} is suspiciously small");
    }
}

#[test]
fn adding_a_strategy_leaves_the_other_strategies_rows_unchanged() {
    let base = load(&DEFAULT_SCENARIO.replace("replications = 30", "replications = 3"));
    let extra = format!(
        "{}\n[[strategy]]\nname = \"spot-only\"\npools = [\"aws-p5-spot\", \"aws-p5-on-demand\"]\n",
        DEFAULT_SCENARIO.replace("replications = 30", "replications = 3")
    );
    let extended = load(&extra);
    let stop = AtomicBool::new(false);
    let run = |loaded: &Loaded| runner::run(&loaded.config, true, &|| {}, &stop).unwrap();
    let (a, b) = (run(&base), run(&extended));
    assert_eq!(b.units.len(), a.units.len() + 3);
    for unit in &a.units {
        let twin = b
            .units
            .iter()
            .find(|u| u.strategy == unit.strategy && u.replication == unit.replication)
            .unwrap();
        // Debug text compares NaN fields (no break-even) as equal, and floats exactly.
        assert_eq!(format!("{:?}", unit.row), format!("{:?}", twin.row));
        assert_eq!(format!("{:?}", unit.pools), format!("{:?}", twin.pools));
        assert_eq!(format!("{:?}", unit.jobs), format!("{:?}", twin.jobs));
    }
}

#[test]
fn every_strategy_sees_the_same_job_stream() {
    let loaded = load(&DEFAULT_SCENARIO.replace("replications = 30", "replications = 1"));
    let stop = AtomicBool::new(false);
    let output = runner::run(&loaded.config, true, &|| {}, &stop).unwrap();
    let stream = |s: usize| -> Vec<(u64, String, u32, u64)> {
        output.units[s]
            .jobs
            .iter()
            .map(|j| (j.job, j.workload.clone(), j.gpus, j.arrival_h.to_bits()))
            .collect()
    };
    let first = stream(0);
    assert!(first.len() > 10_000);
    for s in 1..output.units.len() {
        assert_eq!(stream(s), first, "strategy {s} saw another job stream");
    }
}
