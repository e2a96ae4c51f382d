//! Replaying and fitting job traces, through the binary: exact replay reproduces
//! a trace, bootstrap replications bracket its daily load, growth scales it, `fit` then `run`
//! gives back its arrivals and GPU-hours, and every strategy and thread count sees the same
//! jobs. Expected values are computed here from the trace files with code of this file, never
//! by fleetsim. Run in release mode.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common::{fleetsim, temp_dir};

/// SplitMix64: a few lines of deterministic randomness for the synthetic traces.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One job of a synthetic trace: seconds from the trace's first midnight, GPUs, seconds.
#[derive(Debug, Clone, Copy)]
struct Job {
    submit_s: u64,
    gpus: u32,
    duration_s: u64,
}

/// `2024-01-01T00:00:00Z` plus `s` seconds, in RFC 3339 (by hand, for January 2024 on).
fn rfc3339(first_day: (u32, u32, u32), s: u64) -> String {
    let (year, month, day) = first_day;
    let days_in = |y: u32, m: u32| match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if y.is_multiple_of(4) => 29,
        _ => 28,
    };
    let (mut y, mut m, mut d) = (year, month, day);
    for _ in 0..s / 86_400 {
        d += 1;
        if d > days_in(y, m) {
            d = 1;
            m += 1;
            if m > 12 {
                m = 1;
                y += 1;
            }
        }
    }
    let rest = s % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

fn write_csv(path: &Path, first_day: (u32, u32, u32), jobs: &[Job]) {
    let mut text = String::from("name,submit_time,duration_s,gpus,team\n");
    for (i, job) in jobs.iter().enumerate() {
        text.push_str(&format!(
            "job-{i},{},{},{},team-{}\n",
            rfc3339(first_day, job.submit_s),
            job.duration_s,
            job.gpus,
            i % 3
        ));
    }
    std::fs::write(path, text).unwrap();
}

/// An on-demand pool that never makes a job wait or pays for idle time beyond a second.
pub const UNLIMITED_ON_DEMAND: &str = r#"
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1.0
provisioning_h = 0
idle_timeout_h = 0
billing_increment_s = 1

[[strategy]]
name = "cloud"
pools = ["cloud"]
"#;

fn run(scenario: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--no-charts",
    ];
    args.extend_from_slice(extra);
    let output = fleetsim(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The rows of a CSV file as maps from column to value.
fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap()
}

/// A metric of summary.csv: mean, std, 95 % CI and replications.
#[derive(Debug, Clone, Copy)]
struct Estimate {
    mean: f64,
    std: f64,
    low: f64,
    high: f64,
    n: f64,
}

impl Estimate {
    fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
    /// The 95 % prediction interval of one more replication: mean +- t s sqrt(1 + 1/n), from
    /// the CI's t s / sqrt(n).
    fn prediction(&self) -> (f64, f64) {
        let half = self.half_width() * (self.n + 1.0).sqrt();
        (self.mean - half, self.mean + half)
    }
}

fn summary(dir: &Path, strategy: &str, metric: &str) -> Estimate {
    let row = rows(&dir.join("summary.csv"))
        .into_iter()
        .find(|r| r["strategy"] == strategy && r["metric"] == metric)
        .unwrap_or_else(|| panic!("{strategy} {metric} in summary.csv"));
    Estimate {
        mean: number(&row, "mean"),
        std: number(&row, "std"),
        low: number(&row, "ci95_low"),
        high: number(&row, "ci95_high"),
        n: number(&row, "n"),
    }
}

#[test]
fn exact_replay_reproduces_the_traces_gpu_hours_and_jobs_with_zero_waits() {
    // 600 jobs over 10 days from Monday 2024-03-04: 1 to 64 GPUs, 1 minute to 30 hours.
    let dir = temp_dir("exact-replay");
    let mut draws = Draws(7);
    let mut jobs: Vec<Job> = (0..600)
        .map(|_| Job {
            submit_s: draws.below(10 * 86_400),
            gpus: [1, 1, 2, 4, 8, 16, 64][draws.below(7) as usize],
            duration_s: 60 + draws.below(30 * 3600),
        })
        .collect();
    jobs.sort_by_key(|j| j.submit_s);
    write_csv(&dir.join("jobs.csv"), (2024, 3, 4), &jobs);
    let gpu_hours: f64 = jobs
        .iter()
        .map(|j| f64::from(j.gpus) * j.duration_s as f64 / 3600.0)
        .sum();
    // Two months: the last job ends before day 12.
    let scenario = dir.join("exact.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-01-01\"\nhorizon_months = 2\nreplications = 3\n\n[[workload]]\nname = \"history\"\ntrace = \"jobs.csv\"\nreplay = \"exact\"\n{UNLIMITED_ON_DEMAND}"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    run(&scenario, &out, &[]);
    let replications = rows(&out.join("replications.csv"));
    assert_eq!(replications.len(), 3);
    for row in &replications {
        assert_eq!(row["jobs_arrived"], "600");
        assert_eq!(row["jobs_completed"], "600");
        assert_eq!(row["jobs_unfinished"], "0");
        assert_eq!(number(row, "wait_mean_h"), 0.0);
        assert_eq!(number(row, "wait_p95_h"), 0.0);
        let busy = number(row, "gpu_hours_busy");
        // The same sum, added in another order: equal to rounding.
        assert!(
            (busy - gpu_hours).abs() <= 1e-9 * gpu_hours,
            "{busy} simulated, {gpu_hours} in the trace"
        );
        // Paid hours cover busy hours; 1-second billing adds less than a second per node.
        assert!(number(row, "gpu_hours_paid") >= busy);
    }
    println!(
        "exact replay: {gpu_hours:.6} GPU-hours in the trace, {} simulated",
        replications[0]["gpu_hours_busy"]
    );
    // The trace's teams are the results' teams: job i is on team-(i % 3), 200 jobs each.
    let teams = rows(&out.join("teams.csv"));
    for team in ["team-0", "team-1", "team-2"] {
        let arrived = teams
            .iter()
            .find(|r| r["team"] == team && r["metric"] == "jobs_arrived")
            .unwrap_or_else(|| panic!("{team} in teams.csv"));
        assert_eq!(number(arrived, "mean"), 200.0, "{team}");
    }
    assert!(
        !teams.iter().any(|r| r["team"] == "history"),
        "the workload's own team is unused"
    );
}

/// Seconds of Slurm's `[D-]HH:MM:SS`.
fn elapsed_s(text: &str) -> u64 {
    let (days, clock) = text.split_once('-').unwrap_or(("0", text));
    let parts: Vec<u64> = clock.split(':').map(|p| p.parse().unwrap()).collect();
    days.parse::<u64>().unwrap() * 86_400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
}

/// GPU-hours and jobs of a sacct export that ran to the end on GPUs: sum of Elapsed x GPUs.
pub fn sacct_gpu_hours(text: &str) -> (f64, usize) {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('|').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (id, start, end, elapsed, tres, state) = (
        column("JobID"),
        column("Start"),
        column("End"),
        column("Elapsed"),
        column("AllocTRES"),
        column("State"),
    );
    let (mut gpu_hours, mut jobs) = (0.0, 0);
    for line in lines {
        let fields: Vec<&str> = line.split('|').collect();
        let ran = !matches!(fields[start], "None" | "Unknown" | "")
            && fields[end] != "Unknown"
            && !matches!(fields[state], "RUNNING" | "PENDING");
        let gpus = fields[tres]
            .split(',')
            .find_map(|entry| entry.strip_prefix("gres/gpu="))
            .map_or(0, |n| n.parse::<u64>().unwrap());
        if fields[id].contains('.') || !ran || gpus == 0 {
            continue;
        }
        jobs += 1;
        gpu_hours += (gpus * elapsed_s(fields[elapsed])) as f64 / 3600.0;
    }
    (gpu_hours, jobs)
}

#[test]
fn exact_replay_of_the_sample_sacct_export_gives_its_gpu_hours() {
    let dir = temp_dir("exact-sacct");
    let trace = std::fs::canonicalize("scenarios/traces/slurm-llm-sample.txt").unwrap();
    let (gpu_hours, jobs) = sacct_gpu_hours(&std::fs::read_to_string(&trace).unwrap());
    let scenario = dir.join("sacct.toml");
    // Four months hold its 92 days and its longest job (14 days).
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-01-01\"\nhorizon_months = 4\nreplications = 2\n\n[[workload]]\nname = \"sample\"\ntrace = \"{}\"\ntrace_format = \"slurm\"\nreplay = \"exact\"\n{UNLIMITED_ON_DEMAND}",
            trace.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    run(&scenario, &out, &[]);
    for row in rows(&out.join("replications.csv")) {
        assert_eq!(row["jobs_arrived"], jobs.to_string());
        assert_eq!(row["jobs_unfinished"], "0");
        let busy = number(&row, "gpu_hours_busy");
        assert!(
            (busy - gpu_hours).abs() <= 1e-9 * gpu_hours,
            "{busy} vs {gpu_hours}"
        );
    }
}

/// A trace of whole office days: 4 whole weeks (Monday 2024-01-01 to Sunday 2024-01-28) plus a
/// partial day before and after, which bootstrap leaves out. Jobs arrive 08:00-18:00 and run
/// at most 2 hours, so each ends on the day it arrives; weekend days are quieter.
fn office_trace(seed: u64) -> (Vec<Job>, f64, usize) {
    let mut draws = Draws(seed);
    let mut jobs = Vec::new();
    // Day 0 is Sunday 2023-12-31 (partial: afternoon only), days 1-28 whole, day 29 a morning.
    for day in 0..30u64 {
        let weekday = (day + 6) % 7; // Monday 0.
        let n = if weekday >= 5 {
            8 + draws.below(8)
        } else {
            30 + draws.below(30)
        };
        for _ in 0..n {
            let hour = 8 + draws.below(10);
            if (day == 0 && hour < 13) || (day == 29 && hour > 10) {
                continue;
            }
            jobs.push(Job {
                submit_s: day * 86_400 + hour * 3600 + draws.below(3600),
                gpus: [1, 1, 1, 2, 4, 8][draws.below(6) as usize],
                duration_s: 60 + draws.below(2 * 3600 - 60),
            });
        }
    }
    jobs.sort_by_key(|j| j.submit_s);
    let whole: Vec<&Job> = jobs
        .iter()
        .filter(|j| (86_400..29 * 86_400).contains(&j.submit_s))
        .collect();
    let gpu_hours: f64 = whole
        .iter()
        .map(|j| f64::from(j.gpus) * j.duration_s as f64 / 3600.0)
        .sum();
    (jobs.clone(), gpu_hours / 28.0, whole.len())
}

#[test]
fn bootstrap_replications_bracket_the_traces_mean_daily_gpu_hours() {
    let dir = temp_dir("bootstrap");
    let (jobs, daily_gpu_hours, whole_jobs) = office_trace(11);
    write_csv(&dir.join("office.csv"), (2023, 12, 31), &jobs);
    // February 2027 starts on a Monday and has 28 days: 20 weekdays and 8 weekend days, as the
    // trace's whole days, so the expected day is the trace's mean day.
    let scenario = dir.join("bootstrap.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-02-01\"\nhorizon_months = 1\nreplications = 200\nseed = 3\n\n[[workload]]\nname = \"office\"\ntrace = \"office.csv\"\nreplay = \"bootstrap\"\n{UNLIMITED_ON_DEMAND}\n[[strategy]]\nname = \"cloud-again\"\npools = [\"cloud\"]\n"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    run(&scenario, &out, &[]);
    let busy = summary(&out, "cloud", "gpu_hours_busy");
    let (low, high) = (busy.low / 28.0, busy.high / 28.0);
    println!(
        "bootstrap: trace {daily_gpu_hours:.3} GPU-h a day; 200 replications {:.3} [{low:.3}, {high:.3}]",
        busy.mean / 28.0
    );
    assert!(
        busy.half_width() < 0.02 * busy.mean,
        "too few replications for this test to fail: {busy:?}"
    );
    assert!(
        (low..=high).contains(&daily_gpu_hours),
        "the trace's {daily_gpu_hours} GPU-h a day is outside [{low}, {high}]"
    );
    let arrived = summary(&out, "cloud", "jobs_arrived");
    let whole_jobs = whole_jobs as f64;
    assert!(
        (arrived.low..=arrived.high).contains(&whole_jobs),
        "{whole_jobs} jobs in the trace's 28 whole days, {arrived:?} simulated"
    );
    // Replications differ, and both strategies see the same jobs in each.
    let replications = rows(&out.join("replications.csv"));
    let arrivals = |strategy: &str| -> Vec<String> {
        replications
            .iter()
            .filter(|r| r["strategy"] == strategy)
            .map(|r| r["jobs_arrived"].clone())
            .collect()
    };
    assert!(busy.std > 0.0);
    assert_eq!(arrivals("cloud"), arrivals("cloud-again"));
    let distinct: std::collections::BTreeSet<String> = arrivals("cloud").into_iter().collect();
    assert!(distinct.len() > 10, "{distinct:?}");

    // The same bytes on one and two threads.
    let one = dir.join("one");
    let two = dir.join("two");
    for (out, threads) in [(&one, "1"), (&two, "2")] {
        run(
            &scenario,
            out,
            &["--threads", threads, "--replications", "8", "--trace"],
        );
    }
    for file in ["replications.csv", "summary.csv", "monthly.csv", "jobs.csv"] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap(),
            std::fs::read(two.join(file)).unwrap(),
            "{file} differs between 1 and 2 threads"
        );
    }
}

#[test]
fn growth_thins_and_copies_a_replayed_trace_month_by_month() {
    // 10 jobs an hour of 1 GPU-minute for 3 months from 2027-01-01, replayed exactly with +20 %
    // a month: a job of month m counts (1.2)^m times in expectation.
    let dir = temp_dir("growth");
    let mut jobs = Vec::new();
    let hours = (31 + 28 + 31) * 24;
    for h in 0..hours {
        for k in 0..10 {
            jobs.push(Job {
                submit_s: h * 3600 + k * 360,
                gpus: 1,
                duration_s: 60,
            });
        }
    }
    write_csv(&dir.join("steady.csv"), (2027, 1, 1), &jobs);
    let month_of = |s: u64| match s / 86_400 {
        0..31 => 0,
        31..59 => 1,
        _ => 2,
    };
    let expected: f64 = jobs.iter().map(|j| 1.2f64.powi(month_of(j.submit_s))).sum();
    let scenario = dir.join("growth.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-01-01\"\nhorizon_months = 3\nreplications = 50\n\n[[workload]]\nname = \"steady\"\ntrace = \"steady.csv\"\nreplay = \"exact\"\ngrowth_per_month = 0.2\n{UNLIMITED_ON_DEMAND}"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    run(&scenario, &out, &[]);
    let arrived = summary(&out, "cloud", "jobs_arrived");
    println!("growth: {expected} jobs expected, {arrived:?}");
    assert!(arrived.half_width() < 0.01 * expected, "{arrived:?}");
    assert!(
        (arrived.low..=arrived.high).contains(&expected),
        "{expected} expected, {arrived:?}"
    );
    // January is replayed as is: 31 x 24 x 10 jobs of month 0, never thinned or copied.
    let months = rows(&out.join("monthly.csv"));
    let january = months
        .iter()
        .find(|r| r["month"] == "2027-01")
        .expect("January in monthly.csv");
    assert_eq!(number(january, "jobs_completed"), 7440.0);
}

#[test]
fn fit_then_run_gives_back_the_traces_arrivals_and_gpu_hours() {
    let dir = temp_dir("fit-run");
    let trace = "scenarios/traces/slurm-llm-sample.txt";
    let fitted = dir.join("fitted.toml");
    let output = fleetsim(&[
        "fit",
        trace,
        "--format",
        "slurm",
        "--gpu",
        "H100",
        "--out",
        fitted.to_str().unwrap(),
    ]);
    let report = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(report.contains("KS"), "{report}");
    println!("{report}");
    // The fit's frame: the trace's whole days (times as UTC), 2026-09-01 to 2026-11-30. The
    // trace's jobs and busy GPU-hours in it, with every job starting when it arrives and cut
    // at the frame's end, as the run on an unlimited pool does.
    let text = std::fs::read_to_string(trace).unwrap();
    let mut lines = text.lines();
    lines.next();
    let (mut jobs, mut busy) = (0usize, 0.0f64);
    let frame_end = 91 * 86_400; // Seconds from 2026-09-01T00:00:00.
    let seconds_from_frame_start = |stamp: &str| -> Option<i64> {
        // YYYY-MM-DDTHH:MM:SS; days from 2026-09-01 by month lengths.
        let (date, clock) = stamp.split_once('T')?;
        let parts: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
        let day = match (parts[0], parts[1]) {
            (2026, 8) => parts[2] - 32,
            (2026, 9) => parts[2] - 1,
            (2026, 10) => 30 + parts[2] - 1,
            (2026, 11) => 61 + parts[2] - 1,
            (2026, 12) => 91 + parts[2] - 1,
            _ => return None,
        };
        let c: Vec<i64> = clock.split(':').map(|p| p.parse().unwrap()).collect();
        Some(day * 86_400 + c[0] * 3600 + c[1] * 60 + c[2])
    };
    for line in lines {
        let f: Vec<&str> = line.split('|').collect();
        let gpus = f[5]
            .split(',')
            .find_map(|e| e.strip_prefix("gres/gpu="))
            .map_or(0, |n| n.parse::<i64>().unwrap());
        let ran = !matches!(f[2], "None" | "Unknown") && f[3] != "Unknown" && f[6] != "RUNNING";
        let submit = seconds_from_frame_start(f[1]).unwrap();
        if gpus == 0 || !ran || !(0..frame_end).contains(&submit) {
            continue;
        }
        jobs += 1;
        let duration = elapsed_s(f[4]) as i64;
        busy += (gpus * duration.min(frame_end - submit)) as f64 / 3600.0;
    }
    let scenario = dir.join("fitted-run.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2026-09-01\"\nhorizon_months = 3\nreplications = 40\nseed = 5\n{UNLIMITED_ON_DEMAND}\n{}",
            std::fs::read_to_string(&fitted).unwrap()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    run(&scenario, &out, &[]);
    let arrived = summary(&out, "cloud", "jobs_arrived");
    let gpu_hours = summary(&out, "cloud", "gpu_hours_busy");
    let (low, high) = gpu_hours.prediction();
    println!(
        "fit -> run: {jobs} jobs in the trace, {:.1} [{:.1}, {:.1}] simulated; {busy:.0} GPU-h in the trace, {:.0} simulated, one replication in [{low:.0}, {high:.0}]",
        arrived.mean, arrived.low, arrived.high, gpu_hours.mean
    );
    // The fitted rates give the trace's count in expectation: its CI must hold it.
    assert!(arrived.half_width() < 0.02 * jobs as f64, "{arrived:?}");
    assert!(
        (arrived.low..=arrived.high).contains(&(jobs as f64)),
        "{jobs} jobs in the trace, {arrived:?} simulated"
    );
    // The trace's GPU-hours are one draw of a heavy-tailed sum (a few 256-GPU runs), not an
    // expectation: they must be a likely replication of the fit, inside its 95 % prediction
    // interval, which must be narrow enough to mean something.
    assert!(high - low < 1.5 * gpu_hours.mean, "{gpu_hours:?}");
    assert!(
        (low..=high).contains(&busy),
        "{busy} GPU-h in the trace, one replication of the fit in [{low}, {high}]"
    );
}

// ---- readers never panic -------------------------------------------------------------------

mod fuzz {
    use std::path::PathBuf;

    use crate::common::temp_dir;
    use fleetsim::fit::{FitOptions, SplitBy, fit};
    use fleetsim::trace::{ReadOptions, TimeZoneSpec, TraceFormat, read};
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;

    /// Valid traces of each format, to mutate.
    const SAMPLES: [(TraceFormat, &str); 6] = [
        (TraceFormat::Csv, "tests/data/traces/bad/large_gang.csv"),
        (TraceFormat::Slurm, "tests/data/traces/slurm.txt"),
        (TraceFormat::Helios, "tests/data/traces/helios.csv"),
        (TraceFormat::Acme, "tests/data/traces/acme.csv"),
        (TraceFormat::Philly, "tests/data/traces/philly.json"),
        (TraceFormat::Openb, "tests/data/traces/openb.csv"),
    ];

    fn config() -> ProptestConfig {
        ProptestConfig {
            cases: std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(300),
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                "tests/proptest-regressions/traces.txt",
            ))),
            ..ProptestConfig::default()
        }
    }

    /// Reads `bytes` as `format` (PAI: as its job table, beside the sample task table) and, if
    /// it reads, fits it: either may refuse, neither may panic.
    fn exercise(bytes: &[u8], format: TraceFormat) {
        let dir = temp_dir("trace-fuzz");
        let path: PathBuf = if format == TraceFormat::Pai {
            std::fs::copy(
                "tests/data/traces/pai/pai_task_table.csv",
                dir.join("pai_task_table.csv"),
            )
            .unwrap();
            dir.join("pai_job_table.csv")
        } else {
            dir.join("trace")
        };
        std::fs::write(&path, bytes).unwrap();
        let options = ReadOptions {
            format,
            timezone: TimeZoneSpec::Utc,
        };
        if let Ok(trace) = read(&path, &options) {
            for by in [SplitBy::Gpus, SplitBy::Team] {
                let options = FitOptions {
                    by,
                    name: "fuzz".into(),
                    gpu: None,
                    teams_max: 3,
                };
                if let Ok(fitted) = fit(&trace, &options) {
                    let text = fitted.to_toml(&trace);
                    assert!(toml::from_str::<toml::Table>(&text).is_ok(), "{text}");
                    let _ = fitted.report(&trace);
                }
            }
        } else if let Err(error) = read(&path, &options) {
            assert!(!error.to_string().is_empty());
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_bytes_are_read_or_refused_without_a_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            format in 0..7usize,
        ) {
            exercise(&bytes, TraceFormat::ALL[format]);
        }

        #[test]
        fn mutated_traces_are_read_or_refused_without_a_panic(
            sample in 0..SAMPLES.len(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..6),
        ) {
            let (format, file) = SAMPLES[sample];
            let mut bytes = std::fs::read(file).unwrap();
            for (at, byte, kind) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match kind {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    _ => {
                        bytes.remove(i);
                    }
                }
            }
            exercise(&bytes, format);
        }
    }
}

#[test]
fn fitted_workloads_by_team_validate_and_run_as_written() {
    let dir = temp_dir("fit-team");
    let fitted = dir.join("teams.toml");
    let output = fleetsim(&[
        "fit",
        "scenarios/traces/slurm-llm-sample.txt",
        "--format",
        "slurm",
        "--by",
        "team",
        "--out",
        fitted.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&fitted).unwrap();
    for team in ["llm-dev", "llm-eval", "llm-sft", "llm-pretrain"] {
        assert!(
            text.contains(&format!("team = \"{team}\"")),
            "{team}:\n{text}"
        );
    }
    let scenario = dir.join("teams-run.toml");
    std::fs::write(
        &scenario,
        format!("start = \"2027-01-01\"\nhorizon_months = 1\nreplications = 2\n{UNLIMITED_ON_DEMAND}\n{text}"),
    )
    .unwrap();
    let validate = fleetsim(&["validate", scenario.to_str().unwrap()]);
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&validate.stderr)
    );
    run(&scenario, &dir.join("out"), &[]);
}

/// A trace whose jobs ran on several GPU types is fitted per type, each workload
/// naming the type its durations were measured on (4 h on A100s and 2 h on H100s were pooled
/// into one distribution before); with `[gpu_speed]` a scenario then converts them.
#[test]
fn fit_splits_a_trace_of_several_gpu_types_by_type() {
    let dir = temp_dir("fit-types");
    let trace = dir.join("types.csv");
    let mut text = String::from("submit_time,duration_h,gpus,gpu\n");
    for i in 0..200u32 {
        let (hours, gpu) = if i % 2 == 0 {
            (4.0, "A100")
        } else {
            (2.0, "H100")
        };
        text += &format!("{},{hours},1,{gpu}\n", 1800 * i);
    }
    std::fs::write(&trace, text).unwrap();
    let fitted = dir.join("fitted.toml");
    let output = fleetsim(&[
        "fit",
        trace.to_str().unwrap(),
        "--format",
        "csv",
        "--out",
        fitted.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&fitted).unwrap();
    for (gpu, mean) in [("A100", "mean 4.0 h"), ("H100", "mean 2.0 h")] {
        let table = text
            .split("[[workload]]")
            .find(|t| t.contains(&format!("gpu = \"{gpu}\"")))
            .unwrap_or_else(|| panic!("no workload with gpu = {gpu}:\n{text}"));
        assert!(table.contains(&format!("-{gpu}\"")), "{table}");
        assert!(
            table.contains(&format!("durations: {mean} in the trace")),
            "{table}"
        );
    }
    let scenario = dir.join("run.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-01-01\"\nhorizon_months = 1\nreplications = 2\n[gpu_speed]\nH100 = 1.0\nA100 = 0.5\n{UNLIMITED_ON_DEMAND}\n{}",
            text.replace("gpu = \"A100\"", "gpu = \"A100\"\naccepts = [\"H100\"]")
        ),
    )
    .unwrap();
    let validate = fleetsim(&["validate", scenario.to_str().unwrap()]);
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&validate.stderr)
    );
}

/// A trace whose file name holds a line break or ESC (a name from a hostile archive) is fitted
/// as any other: no panic, the TOML written parses, and neither the file nor the terminal gets
/// the control characters raw.
#[test]
fn fit_takes_a_trace_path_with_control_characters() {
    let dir = temp_dir("fit-control-path");
    for name in ["line\nbreak.csv", "esc\u{1b}[31mape.csv"] {
        let path = dir.join(name);
        std::fs::copy("tests/data/traces/acme.csv", &path).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
            .args(["fit", "--format", "acme"])
            .arg(&path)
            .output()
            .expect("fleetsim runs");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert_eq!(output.status.code(), Some(0), "{name:?}: {stderr}");
        stdout
            .parse::<toml::Table>()
            .unwrap_or_else(|e| panic!("{name:?}: the TOML does not parse: {e}\n{stdout}"));
        for (what, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            assert!(
                !text.contains('\u{1b}'),
                "{name:?}: ESC raw on {what}: {text}"
            );
        }
        let header = stdout.lines().next().unwrap();
        assert!(header.starts_with("# Fitted by"), "{header}");
        assert!(
            header.contains("\\n") || header.contains("\\u{1b}"),
            "the name is shown escaped: {header}"
        );
    }
}

/// A file given as a trace may be anything the user can read (a link to `/etc/shadow`): an
/// error about its header quotes none of its first line, only a name close to a missing
/// column, as the likely typo; the formats' own column lists say what was expected.
#[test]
fn a_trace_error_quotes_no_content_but_a_likely_typo() {
    let dir = temp_dir("trace-quotes");
    let secrets = [
        "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
        "user,hunter2,s3cr3t-token\nalice,pw,x\n",
    ];
    for (i, text) in secrets.iter().enumerate() {
        let path = dir.join(format!("secret-{i}.csv"));
        std::fs::write(&path, text).unwrap();
        for format in ["csv", "slurm", "helios", "acme", "pai", "openb"] {
            let output = fleetsim(&["fit", path.to_str().unwrap(), "--format", format]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{format}: {stderr}");
            for secret in ["root", "19000", "hunter2", "s3cr3t", "alice"] {
                assert!(
                    !stderr.contains(secret),
                    "{format} quotes `{secret}`: {stderr}"
                );
            }
        }
    }
    let typo = dir.join("typo.csv");
    std::fs::write(&typo, "submit_tme,duration_h,GPUS,team\n0,1,1,a\n").unwrap();
    let output = fleetsim(&["fit", typo.to_str().unwrap(), "--format", "csv"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let expected = "line 1: the header lacks the column `submit_time` (fleetsim's trace CSV has \
                    submit_time, duration_h or duration_s, and gpus); of the 4 name(s) on its \
                    first line, it has `submit_tme` (for `submit_time`?)";
    assert!(stderr.contains(expected), "{stderr}");
}
