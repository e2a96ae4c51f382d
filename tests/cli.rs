//! The binary end to end: the default run, every shipped scenario, `validate`, and the shape of
//! the files planners load into pandas.

use crate::common::{fleetsim, temp_dir};

#[test]
fn the_default_run_prints_a_comparison_and_writes_every_file() {
    let dir = temp_dir("default");
    let out = dir.join("out");
    let run = fleetsim(&["run", "--replications", "3", "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    for strategy in [
        "cloud-on-demand",
        "reserved-burst",
        "hybrid-dgx-on-demand",
        "hybrid-dgx-spot",
    ] {
        assert!(stdout.contains(strategy), "{stdout}");
    }
    assert!(
        stdout.contains("baseline") && stdout.contains("break-even"),
        "{stdout}"
    );
    assert!(
        stdout.contains("try --replications 30"),
        "few replications earn a hint: {stdout}"
    );
    for file in [
        "summary.csv",
        "replications.csv",
        "pools.csv",
        "monthly.csv",
        "pools_monthly.csv",
        "run.json",
    ] {
        assert!(out.join(file).is_file(), "{file} missing; {stderr}");
    }
    assert!(!out.join("jobs.csv").exists(), "jobs.csv only with --trace");
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");

    // The columns DESIGN.md promises, in its order.
    let header = |file: &str| {
        std::fs::read_to_string(out.join(file))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    assert!(
        header("summary.csv")
            .starts_with("strategy,metric,mean,std,ci95_low,ci95_high,p5,p50,p95,n")
    );
    assert!(header("replications.csv").starts_with(
        "strategy,replication,total_cost,total_cost_cash,jobs_arrived,jobs_completed,jobs_unfinished,\
         wait_mean_h,wait_p95_h,turnaround_mean_h,gpu_hours_busy,gpu_hours_paid,utilization,preemptions,\
         lost_gpu_hours,checkpoint_gpu_hours,burst_jobs,failed_requests,deadline_misses"
    ));
    assert!(header("pools.csv").starts_with(
        "strategy,replication,pool,type,gpu_hours_busy,gpu_hours_paid,cost,cost_cash,utilization,jobs_started,preemptions,failed_requests"
    ));
    let monthly = header("monthly.csv");
    for column in [
        "strategy",
        "month",
        "cost",
        "cost_cash",
        "cumulative_cost",
        "cumulative_cost_cash",
        "gpu_hours_busy",
        "gpu_hours_paid",
        "utilization",
        "jobs_completed",
        "wait_mean_h",
    ] {
        assert!(
            monthly.split(',').any(|c| c == column),
            "monthly.csv lacks {column}: {monthly}"
        );
    }
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(summary.contains("hybrid-dgx-spot,total_cost_vs_baseline,"));
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["scenario_name"], "hybrid-vs-cloud");
    assert_eq!(run_json["replications"], 3);
    assert_eq!(run_json["seed"], 42);
    assert!(run_json["events_simulated"].as_u64().unwrap() > 0);
    assert_eq!(
        run_json["scenario"]["pool"][0]["idle_power_kw_per_node"], 3.0,
        "resolved scenario"
    );
}

#[test]
fn every_shipped_scenario_validates_and_runs() {
    let dir = temp_dir("scenarios");
    let mut seen = 0;
    // The claims' scenarios are shipped too.
    let claims = std::fs::read_dir("scenarios/claims").unwrap();
    for entry in std::fs::read_dir("scenarios").unwrap().chain(claims) {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        seen += 1;
        let path = path.to_str().unwrap();
        let validate = fleetsim(&["validate", path]);
        assert_eq!(
            validate.status.code(),
            Some(0),
            "{path}: {}",
            String::from_utf8_lossy(&validate.stderr)
        );
        // A trace workload says how many jobs of its trace it leaves out: that is
        // information, not a problem with the scenario.
        let warnings = String::from_utf8_lossy(&validate.stderr);
        assert!(
            warnings
                .lines()
                .all(|line| line.contains("are not replayed: ")),
            "{path} warns: {warnings}"
        );
        let out = dir.join(seen.to_string());
        // With the FOCUS export, checked against the run's own totals.
        let run = fleetsim(&[
            "run",
            path,
            "--replications",
            "2",
            "--focus-period",
            "month",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{path}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        crate::finops::check_focus_folder(&out);
    }
    assert!(seen >= 19, "the nine shipped scenarios and the ten claims'");
}

#[test]
fn the_built_in_default_is_the_shipped_file() {
    let file = std::fs::read_to_string("scenarios/hybrid-vs-cloud.toml").unwrap();
    assert_eq!(file, fleetsim::scenario::DEFAULT_SCENARIO);
}

#[test]
fn a_bad_scenario_names_the_file_line_and_field() {
    let dir = temp_dir("bad");
    let path = dir.join("bad.toml");
    let text = fleetsim::scenario::DEFAULT_SCENARIO.replace(
        "nodes = 4\ncapex_per_node",
        "nodes = 4\ncapex_per_node = -5\n#",
    );
    std::fs::write(&path, text).unwrap();
    let out = fleetsim(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.toml") && stderr.contains("`pool.dgx.capex_per_node`"),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("line 73: `pool.dgx.capex_per_node` must be a number of at least 0, got -5"),
        "{stderr}"
    );
    assert!(
        !dir.join("out").exists(),
        "no output for a refused scenario"
    );
}

#[test]
fn an_overloaded_backfill_queue_does_not_slow_the_engine_to_a_crawl() {
    // 300 jobs a day on 64 owned GPUs for a year: the queue grows to thousands of 8-GPU jobs
    // that cannot start. Walking them all at every event took over two minutes; classes of
    // interchangeable jobs make it well under a second. The bound leaves room for a busy CI.
    let dir = temp_dir("overload");
    let scenario = dir.join("overload.toml");
    std::fs::write(
        &scenario,
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 2
[[workload]]
name = "jobs"
arrivals_per_day = 300
gpus = { 1 = 0.7, 8 = 0.3 }
duration_h = { dist = "exponential", mean = 2.0 }
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 8
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
gpus_per_node = 8
price_per_gpu_h = 5
[[strategy]]
name = "owned-backfill"
pools = ["dgx"]
queue = "backfill"
[[strategy]]
name = "burst-late"
pools = ["dgx", "cloud"]
queue = "backfill"
burst_after_wait_h = 24
"#,
    )
    .unwrap();
    let started = std::time::Instant::now();
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        started.elapsed().as_secs_f64() < 20.0,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_rerun_leaves_no_file_of_the_earlier_run() {
    let dir = temp_dir("rerun");
    let out = dir.join("out");
    let out_arg = out.to_str().unwrap();
    let short = [
        "--replications",
        "2",
        "--set",
        "horizon_months=1",
        "--quiet",
    ];
    let first = fleetsim(&[&["run", "--trace", "--out", out_arg][..], &short].concat());
    assert_eq!(first.status.code(), Some(0));
    assert!(out.join("jobs.csv").is_file() && out.join("cumulative_cost.png").is_file());
    std::fs::write(out.join("notes.txt"), "mine").unwrap();

    // Without --trace and charts, the trace and charts of the first run would describe other
    // results than summary.csv: they go.
    let second = fleetsim(&[&["run", "--no-charts", "--out", out_arg][..], &short].concat());
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(out.join("summary.csv").is_file());
    assert!(!out.join("jobs.csv").exists(), "stale jobs.csv kept");
    let charts: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".png") || name.ends_with(".svg"))
        .collect();
    assert!(charts.is_empty(), "stale charts kept: {charts:?}");
    // Files that are not fleetsim's stay.
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn the_design_documents_example_scenario_validates_and_runs() {
    let dir = temp_dir("design-example");
    let out = dir.join("out");
    let file = "tests/data/design-example.toml";
    let validate = fleetsim(&["validate", file]);
    let stderr = String::from_utf8_lossy(&validate.stderr);
    assert_eq!(validate.status.code(), Some(0), "{stderr}");
    // Its only warning: the reserved pool is in no strategy of the example.
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("aws-p5-reserved"), "{stderr}");
    let run = fleetsim(&[
        "run",
        file,
        "--replications",
        "2",
        "--set",
        "horizon_months=2",
        "--no-charts",
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
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(summary.contains("hybrid-dgx-spot,total_cost,"), "{summary}");
}

/// The terminal summary must not hide jobs that never start. One DGX node's worth of
/// 1-GPU jobs keeps 4 nodes busy; under `first_fit` the daily 32-GPU gangs never start, a few
/// jobs among thousands, so the overall p95 is small: the table counts them ("never started"),
/// marks the gangs' p95 as a lower bound, and a note names the starving workload.
#[test]
fn the_summary_names_jobs_that_never_start() {
    let dir = temp_dir("starving");
    let scenario = dir.join("starving.toml");
    std::fs::write(
        &scenario,
        r#"
name = "starving"
start = "2027-01-01"
horizon_months = 1
replications = 2
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
name = "first_fit"
pools = ["dgx"]
queue = "first_fit"
[[strategy]]
name = "backfill"
pools = ["dgx"]
queue = "backfill"
"#,
    )
    .unwrap();
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    let line = |strategy: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(strategy))
            .unwrap_or_else(|| panic!("no row for {strategy}: {stdout}"))
            .to_string()
    };
    assert!(stdout.contains("never started"), "{stdout}");
    assert!(line("first_fit").contains("gang >="), "{stdout}");
    assert!(
        stdout.contains("note: under `first_fit`")
            && stdout.contains("most of them in workload `gang`"),
        "{stdout}"
    );
    assert!(!stdout.contains("note: under `backfill`"), "{stdout}");
}

/// A queue that drains reports its p95 plainly. In M/M/1 (rho 0.8) a few jobs that
/// arrived just before the horizon have not started; they cannot move the p95 by 1 %, so the
/// table prints no `>=` and no note about unfinished work (it printed `>=14 h` before).
#[test]
fn a_draining_queue_is_not_marked_as_a_lower_bound() {
    let dir = temp_dir("mm1-bound");
    let scenario = dir.join("mm1.toml");
    std::fs::write(
        &scenario,
        r#"
name = "mm1"
start = "2027-01-01"
horizon_months = 24
warmup_days = 30
replications = 40
seed = 5
[[workload]]
name = "jobs"
arrivals_per_day = 19.2
gpus = 1
duration_h = { dist = "exponential", mean = 1.0 }
[[pool]]
name = "one"
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
[[strategy]]
name = "mm1"
pools = ["one"]
"#,
    )
    .unwrap();
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains(">="), "{stdout}");
    assert!(!stdout.contains("note:"), "{stdout}");
}
