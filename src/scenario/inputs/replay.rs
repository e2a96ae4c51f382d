//! What a scenario makes of a trace: the workload's jobs, replayed exactly or resampled by
//! day, scaled by growth; checked against the rest of the scenario (GPU types and speeds,
//! gangs that no pool fits) with the trace's file, line and column in every message.
//!
//! Loading runs in two steps around the scenario's other checks: [`prepare`] reads every
//! trace (through a [`TraceCache`], so a sweep's points share one copy) and gives the checks a
//! copy of the file in which each trace workload carries its load as a rate (`arrivals_per_day`,
//! 1 GPU, `duration_h` = GPU-hours per job: the GPU-hour rate, which the checks' load
//! estimates and warnings need, without its gangs); [`attach`] then checks what needs the
//! whole scenario and puts a [`TraceReplay`] into each trace workload of the `Config`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use toml::Value;

use super::super::check::{Checked, Issue};
use super::super::config::{Config, DurationDist, GpuMix, TraceDay, TraceReplay, Workload};
use super::super::file::{Replay, ScenarioFile};
use super::super::lines::Lines;
use super::super::overrides::did_you_mean;
use crate::trace::{
    ReadOptions, TimeZoneSpec, Trace, TraceError, TraceFormat, display_path, thousands,
};

/// Teams a scenario may have with its traces' (results have a row per team and strategy).
pub const TEAMS_MAX: usize = 10_000;

// ---- reading, once per file -------------------------------------------------------------

/// Traces already read, shared by every load of one [`Source`](super::super::Source) (the
/// points of a sweep): one copy in memory, one read from disk. A file changed on disk (size or
/// modification time) is read again.
#[derive(Clone, Default)]
pub struct TraceCache(Arc<Mutex<Vec<Cached>>>);

/// A trace read, with what identifies its file(s) on disk.
type Cached = (CacheKey, Arc<Trace>);

#[derive(Debug, Clone, PartialEq)]
struct CacheKey {
    path: PathBuf,
    options: ReadOptions,
    files: Vec<(u64, Option<SystemTime>)>,
}

impl std::fmt::Debug for TraceCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |traces| traces.len());
        write!(f, "TraceCache({n} traces)")
    }
}

impl TraceCache {
    /// The trace at `path`, read now or earlier.
    pub fn read(&self, path: &Path, options: &ReadOptions) -> Result<Arc<Trace>, TraceError> {
        let files: Vec<PathBuf> = if options.format == TraceFormat::Pai {
            let (jobs, tasks) = crate::trace::pai::tables(path);
            vec![jobs, tasks]
        } else {
            vec![path.to_path_buf()]
        };
        let key = CacheKey {
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            options: options.clone(),
            files: files
                .iter()
                .map(|f| {
                    let meta = std::fs::metadata(f).ok();
                    (
                        meta.as_ref().map_or(0, std::fs::Metadata::len),
                        meta.and_then(|m| m.modified().ok()),
                    )
                })
                .collect(),
        };
        // Held while reading: loads of one trace on several threads read it once.
        let mut traces = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, trace)) = traces.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(trace));
        }
        let trace = Arc::new(crate::trace::read(path, options)?);
        traces.retain(|(k, _)| k.path != key.path || k.options != key.options);
        traces.push((key, Arc::clone(&trace)));
        Ok(trace)
    }
}

/// An issue at `field`, placed as the checks place theirs.
pub(super) fn issue(
    lines: &Lines,
    overridden: &BTreeSet<String>,
    field: &str,
    problem: impl Into<String>,
) -> Issue {
    let from_set = overridden
        .iter()
        .any(|path| field == path || field.starts_with(&format!("{path}.")));
    let position = if from_set {
        None
    } else {
        lines.position(field)
    };
    Issue {
        line: position.map(|(line, _)| line),
        column: position.map(|(_, column)| column),
        from_set,
        field: field.to_string(),
        problem: problem.into(),
    }
}

/// The traces of a scenario, read, with the file the checks see.
pub struct Prepared {
    /// The scenario file with each trace workload's load written as a rate (see the module).
    pub file: ScenarioFile,
    /// By workload, in file order: its trace, if it has one and it could be read.
    pub traces: Vec<Option<Arc<Trace>>>,
    pub issues: Vec<Issue>,
}

/// Reads every trace of `file`; `origin` is the scenario file (traces are relative to it).
pub fn prepare(
    file: &ScenarioFile,
    origin: &Path,
    lines: &Lines,
    overridden: &BTreeSet<String>,
    cache: &TraceCache,
) -> Prepared {
    let mut prepared = Prepared {
        file: file.clone(),
        traces: Vec::new(),
        issues: Vec::new(),
    };
    let base = origin.parent().unwrap_or(Path::new(""));
    for (i, w) in file.workload.iter().enumerate() {
        let at = format!("workload.{}", w.name);
        let field = |name: &str| format!("{at}.{name}");
        let mut push = |name: &str, problem: String| {
            prepared
                .issues
                .push(issue(lines, overridden, &field(name), problem));
        };
        let Some(trace_text) = &w.trace else {
            for (given, name) in [
                (w.trace_format.is_some(), "trace_format"),
                (w.trace_timezone.is_some(), "trace_timezone"),
                (w.replay.is_some(), "replay"),
            ] {
                if given {
                    push(
                        name,
                        "applies only to a workload that replays a trace; add `trace = \"path\"` or remove it".to_string(),
                    );
                }
            }
            prepared.traces.push(None);
            continue;
        };
        for (given, name) in [
            (w.arrivals_per_day.is_some(), "arrivals_per_day"),
            (w.arrival_times_h.is_some(), "arrival_times_h"),
            (w.gpus.is_some(), "gpus"),
            (w.duration_h.is_some(), "duration_h"),
            (w.daily_profile.is_some(), "daily_profile"),
            (w.weekly_profile.is_some(), "weekly_profile"),
        ] {
            if given {
                push(
                    name,
                    "does not apply to a workload that replays a trace: its jobs come from `trace`; remove one of them".to_string(),
                );
            }
        }
        let timezone = match &w.trace_timezone {
            None => Some(TimeZoneSpec::Utc),
            Some(text) => match TimeZoneSpec::parse(text) {
                Ok(tz) => Some(tz),
                Err(problem) => {
                    push("trace_timezone", problem);
                    None
                }
            },
        };
        let format = w.trace_format.unwrap_or(TraceFormat::Csv);
        let read = match (trace_text.trim(), timezone) {
            ("", _) => {
                push(
                    "trace",
                    "must name a file, e.g. trace = \"traces/jobs.csv\"".to_string(),
                );
                None
            }
            (_, None) => None,
            (text, Some(timezone)) => {
                let path = base.join(text);
                let shown = display_path(&path);
                let named = if same_file(&shown, &path) {
                    shown
                } else {
                    path.clone()
                };
                match cache.read(&named, &ReadOptions { format, timezone }) {
                    Ok(trace) => Some(trace),
                    Err(error) => {
                        push("trace", error.to_string());
                        None
                    }
                }
            }
        };
        // The load as a rate, for the checks' estimates (see the module documentation).
        let (per_day, gpu_hours_per_job) = match &read {
            Some(trace) => {
                let jobs = trace.jobs.len() as f64;
                let days = (trace.span_h() / 24.0).max(1.0);
                (jobs / days, (trace.gpu_hours() / jobs).max(1e-9))
            }
            None => (1.0, 1.0),
        };
        let target = &mut prepared.file.workload[i];
        if target.arrivals_per_day.is_none() && target.arrival_times_h.is_none() {
            target.arrivals_per_day = Some(per_day);
        }
        if target.gpus.is_none() {
            target.gpus = Some(Value::Integer(1));
        }
        if target.duration_h.is_none() {
            target.duration_h = Some(Value::Float(gpu_hours_per_job));
        }
        prepared.traces.push(read);
    }
    prepared
}

/// Whether two names of a file name the same one (a shorter name for messages is only used
/// when it does).
fn same_file(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        std::fs::canonicalize(p).ok()
    };
    match (canonical(a), canonical(b)) {
        (Some(a), Some(b)) => a == b,
        // A file that does not exist: the same if it would be in the same folder.
        _ => {
            a.file_name() == b.file_name()
                && match (a.parent(), b.parent()) {
                    (Some(pa), Some(pb)) => {
                        canonical(pa).is_some() && canonical(pa) == canonical(pb)
                    }
                    _ => false,
                }
        }
    }
}

// ---- checking against the scenario, and the replay -------------------------------------

/// Checks each trace against the whole scenario and puts its [`TraceReplay`] into the
/// `Config`; the resolved file gets the trace's settings instead of the rates the checks saw.
/// `file` is the scenario as written (after overrides).
pub fn attach(
    checked: &mut Checked,
    prepared: &Prepared,
    file: &ScenarioFile,
    lines: &Lines,
    overridden: &BTreeSet<String>,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    assert_eq!(
        checked.config.workloads.len(),
        file.workload.len(),
        "a checked scenario has every workload"
    );
    for (i, trace) in prepared.traces.iter().enumerate() {
        let Some(trace) = trace else {
            continue;
        };
        let written = &file.workload[i];
        let workload = &checked.config.workloads[i];
        assert_eq!(
            workload.name, written.name,
            "workloads keep the file's order"
        );
        let at = format!("workload.{}", workload.name);
        let mut push = |name: &str, problem: String| {
            issues.push(issue(lines, overridden, &format!("{at}.{name}"), problem));
        };
        let duration_factor = duration_factors(checked, i, trace, &mut push);
        check_gangs(&checked.config, i, trace, &mut push);
        let mode = written.replay.unwrap_or_default();
        let days = replay_days(checked, i, trace, mode, &mut push);
        trace_warnings(checked, i, trace);
        let trace_teams = written.team.is_none() && !trace.teams.is_empty();
        let team_index = if trace_teams {
            join_teams(&mut checked.config, trace, &mut push)
        } else {
            Vec::new()
        };
        let workload = &checked.config.workloads[i];
        let replay = TraceReplay {
            trace: Arc::clone(trace),
            mode,
            growth_per_month: workload.arrivals.growth_per_month,
            shift_h: days.shift_h,
            days: days.days,
            duration_factor,
            trace_teams,
            team_index,
        };
        describe_as_rates(&mut checked.config.workloads[i], replay, days.per_day);

        let resolved = &mut checked.resolved.workload[i];
        resolved.arrivals_per_day = None;
        resolved.gpus = None;
        resolved.duration_h = None;
        resolved.trace_format = Some(trace.format);
        resolved.replay = Some(mode);
        if trace_teams {
            resolved.team = None;
        }
    }
    drop_unused_teams(&mut checked.config);
    issues
}

/// A problem of a trace workload's field (its name in the workload), reported by `attach`.
type Push<'a> = dyn FnMut(&str, String) + 'a;

/// The trace's GPU types, each known to the scenario (exactly, else ignoring case), and the
/// factor its durations take on the workload's GPU type (from `[gpu_speed]`), by type index.
fn duration_factors(checked: &Checked, i: usize, trace: &Trace, push: &mut Push<'_>) -> Vec<f64> {
    let config = &checked.config;
    let workload = &config.workloads[i];
    let mut duration_factor = vec![1.0; trace.gpu_types.len() + 1];
    for (t, name) in trace.gpu_types.iter().enumerate() {
        let first = trace
            .jobs
            .iter()
            .position(|j| usize::from(j.gpu) == t + 1)
            .expect("a type is interned by its first job");
        let count = trace
            .jobs
            .iter()
            .filter(|j| usize::from(j.gpu) == t + 1)
            .count();
        let where_ = format!(
            "{}: {}",
            trace.path.display(),
            trace.at(first, &trace.gpu_column)
        );
        // Exactly, else ignoring case (Slurm sites write `a100` for the scenario's `A100`).
        let found = config.gpu_types.iter().position(|g| g == name).or_else(|| {
            let mut same = config
                .gpu_types
                .iter()
                .enumerate()
                .filter(|(_, g)| g.eq_ignore_ascii_case(name));
            match (same.next(), same.next()) {
                (Some((index, _)), None) => Some(index),
                _ => None,
            }
        });
        let Some(type_index) = found else {
            push(
                "trace",
                format!(
                    "{where_}: names GPU type `{name}` ({} job(s)) that no pool offers and [gpu_speed] does not name{}; add it to [gpu_speed] with its speed relative to the others (e.g. {name} = 0.5)",
                    thousands(count as u64),
                    did_you_mean(name, config.gpu_types.iter().map(String::as_str)),
                ),
            );
            continue;
        };
        if type_index != workload.gpu {
            let gpu_name = &config.gpu_types[workload.gpu];
            let mut missing = Vec::new();
            let type_name = config.gpu_types[type_index].as_str();
            // A workload's own gpu_speed replaces [gpu_speed] for it.
            let (speeds, table) = match &checked.resolved.workload[i].gpu_speed {
                Some(own) => (own, "its own gpu_speed"),
                None => (&checked.resolved.gpu_speed, "[gpu_speed]"),
            };
            for needed in [gpu_name.as_str(), type_name] {
                if !speeds.contains_key(needed) {
                    missing.push(needed);
                }
            }
            if !missing.is_empty() {
                push(
                    "trace",
                    format!(
                        "{where_}: jobs ran on {name} but the workload's gpu is {gpu_name}, and {table} lacks {}; give both types a relative speed so the durations can be converted",
                        missing.join(" and ")
                    ),
                );
                continue;
            }
        }
        duration_factor[t + 1] = workload.gpu_speed[type_index] / workload.gpu_speed[workload.gpu];
    }
    duration_factor
}

/// Gangs every strategy can place somewhere: a job larger than the largest pool a strategy
/// may use (when none of them grows without bound) is reported with its line.
fn check_gangs(config: &Config, i: usize, trace: &Trace, push: &mut Push<'_>) {
    let workload = &config.workloads[i];
    for strategy in &config.strategies {
        let mut largest: Option<(u64, &str)> = None;
        let mut unbounded = false;
        for &p in &strategy.pools {
            let pool = &config.pools[p];
            if !workload.may_use(p, pool.gpu)
                || (pool.is_elastic() && workload.burst_after_wait_h_under(strategy).is_none())
            {
                continue;
            }
            match pool.capacity_gpus() {
                None => unbounded = true,
                Some(c) if largest.is_none_or(|(l, _)| c > l) => {
                    largest = Some((c, pool.name.as_str()));
                }
                Some(_) => {}
            }
        }
        let Some((capacity, pool_name)) = largest.filter(|_| !unbounded) else {
            continue;
        };
        let too_large: Vec<usize> = trace
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| u64::from(j.gpus) > capacity)
            .map(|(j, _)| j)
            .collect();
        if let Some(&first) = too_large.iter().min_by_key(|j| trace.jobs[**j].line) {
            push(
                "trace",
                format!(
                    "{}: {}: a job of {} GPUs fits no pool strategy `{}` may use (the largest, `{pool_name}`, has {capacity} GPUs); {} job(s) are larger than that; add capacity or an elastic pool, or leave such jobs out of the trace",
                    trace.path.display(),
                    trace.at(first, &trace.gpus_column),
                    trace.jobs[first].gpus,
                    strategy.name,
                    thousands(too_large.len() as u64),
                ),
            );
        }
    }
}

/// How replications use a trace: the shift of an exact replay, the whole days a bootstrap
/// draws from (weekdays, weekend days), and the jobs per day this gives.
struct ReplayDays {
    shift_h: f64,
    days: [Vec<TraceDay>; 2],
    per_day: f64,
}

fn replay_days(
    checked: &mut Checked,
    i: usize,
    trace: &Trace,
    mode: Replay,
    push: &mut Push<'_>,
) -> ReplayDays {
    let config = &checked.config;
    let horizon_h = config.horizon_h;
    let jobs = trace.jobs.len();
    let name = &config.workloads[i].name;
    let shown = trace.path.display();
    let mut days: [Vec<TraceDay>; 2] = [Vec::new(), Vec::new()];
    match mode {
        Replay::Exact => {
            let shift_h = trace.jobs[0].submit_h;
            let inside = trace
                .jobs
                .partition_point(|j| j.submit_h - shift_h < horizon_h);
            if inside < jobs {
                checked.warnings.push(format!(
                    "workload `{name}`: {} of the {} jobs of {shown} arrive after the horizon of {} month(s) and are not replayed; lengthen horizon_months to replay them all",
                    thousands((jobs - inside) as u64),
                    thousands(jobs as u64),
                    config.horizon_months,
                ));
            }
            let span_days = trace.span_h() / 24.0;
            if trace.span_h() + 24.0 < horizon_h {
                checked.warnings.push(format!(
                    "workload `{name}`: {shown} covers {} of the {:.0}-day horizon: with replay = \"exact\" no job arrives after {}; replay = \"bootstrap\" extends a trace by resampling its days",
                    if span_days >= 1.0 {
                        format!("{span_days:.1} days")
                    } else {
                        format!("{:.1} hours", trace.span_h())
                    },
                    horizon_h / 24.0,
                    if span_days >= 1.0 {
                        format!("day {:.0}", span_days.ceil())
                    } else {
                        format!("hour {:.0}", trace.span_h().ceil())
                    },
                ));
            }
            ReplayDays {
                shift_h,
                days,
                per_day: inside as f64 / (horizon_h / 24.0),
            }
        }
        Replay::Bootstrap => {
            let first_day = (trace.jobs[0].submit_h / 24.0).floor() as i64;
            let last_day = (trace.jobs[jobs - 1].submit_h / 24.0).floor() as i64;
            let calendar_days = last_day - first_day + 1;
            if calendar_days < 3 {
                push(
                    "replay",
                    format!(
                        "\"bootstrap\" needs a trace of at least 3 calendar days (it resamples whole days and leaves out the first and the last, which are usually partial), but {shown} covers {calendar_days}; use replay = \"exact\""
                    ),
                );
                return ReplayDays {
                    shift_h: 0.0,
                    days,
                    per_day: jobs as f64,
                };
            }
            let origin_weekday = match trace.origin {
                Some(date) => i64::from(date.weekday().to_monday_zero_offset()),
                None => i64::from(config.calendar.start_weekday),
            };
            let mut all = Vec::new();
            for day in first_day + 1..last_day {
                let start_h = day as f64 * 24.0;
                let first = trace.jobs.partition_point(|j| j.submit_h < start_h);
                let end = trace.jobs.partition_point(|j| j.submit_h < start_h + 24.0);
                let entry = TraceDay {
                    first: first as u32,
                    end: end as u32,
                    start_h,
                };
                let weekday = (origin_weekday + day).rem_euclid(7);
                days[usize::from(weekday >= 5)].push(entry);
                all.push(entry);
            }
            for (kind, other) in [(0, "weekend"), (1, "weekday")] {
                if days[kind].is_empty() {
                    let this = if kind == 0 { "weekday" } else { "weekend day" };
                    checked.warnings.push(format!(
                        "workload `{name}`: {shown} has no whole {this} (its first and last days are left out as partial), so {this}s are drawn from its {other} days; a trace of two weeks or more keeps weekdays and weekends apart"
                    ));
                }
            }
            if days[0].is_empty() || days[1].is_empty() {
                days = [all.clone(), all];
            }
            let whole: usize = days[0]
                .iter()
                .chain(&days[1])
                .map(|d| (d.end - d.first) as usize)
                .sum();
            let per_day = whole as f64 / (days[0].len() + days[1].len()) as f64;
            ReplayDays {
                shift_h: 0.0,
                days,
                per_day,
            }
        }
    }
}

/// Warnings about what of a trace is not replayed as it was: checkpointable jobs without a
/// checkpoint section, jobs left out, fractional GPUs rounded up.
fn trace_warnings(checked: &mut Checked, i: usize, trace: &Trace) {
    let workload = &checked.config.workloads[i];
    let name = &workload.name;
    let shown = trace.path.display();
    let checkpointable = trace.jobs.iter().filter(|j| j.checkpointable == 2).count();
    if checkpointable > 0 && workload.checkpoint.is_none() {
        checked.warnings.push(format!(
            "workload `{name}`: {shown} marks {} job(s) checkpointable, but the workload has no `checkpoint` section, so they restart from zero when interrupted; add checkpoint = {{ every_h, write_h, restart_h }} to the workload",
            thousands(checkpointable as u64)
        ));
    }
    let dropped = trace.dropped.describe();
    if !dropped.is_empty() {
        checked.warnings.push(format!(
            "workload `{name}`: {} of the {} jobs in {shown} are not replayed: {dropped}",
            thousands(trace.dropped.total_jobs()),
            thousands(trace.rows),
        ));
    }
    if trace.mixed_types > 0 {
        checked.warnings.push(format!(
            "workload `{name}`: {} job(s) of {shown} held GPUs of several types (AllocTRES like gres/gpu:a100=2,gres/gpu:h100=2); a job runs on one type here, so each is replayed as that many GPUs of the type holding most of them",
            thousands(trace.mixed_types),
        ));
    }
    if trace.rounded_up.0 > 0 {
        checked.warnings.push(format!(
            "workload `{name}`: {} job(s) of {shown} hold a fraction of a GPU; each is given whole GPUs (rounded up), adding {:.1} GPU-hours ({:.2} % of the trace's)",
            thousands(trace.rounded_up.0),
            trace.rounded_up.1,
            100.0 * trace.rounded_up.1 / trace.gpu_hours().max(f64::MIN_POSITIVE),
        ));
    }
}

/// The trace's teams join the scenario's (`teams.csv` has them): the index of each trace
/// team in `config.teams`.
fn join_teams(config: &mut Config, trace: &Trace, push: &mut Push<'_>) -> Vec<usize> {
    let mut team_index = Vec::new();
    for name in &trace.teams {
        let index = match config.teams.iter().position(|t| t == name) {
            Some(index) => index,
            None => {
                config.teams.push(name.clone());
                config.teams.len() - 1
            }
        };
        team_index.push(index);
    }
    if config.teams.len() > TEAMS_MAX {
        push(
            "trace",
            format!(
                "{} names {} teams, and the scenario would have {} with them, more than the {TEAMS_MAX} results are kept for; give the workload a `team` to count its jobs as one",
                trace.path.display(),
                thousands(trace.teams.len() as u64),
                thousands(config.teams.len() as u64),
            ),
        );
    }
    team_index
}

/// Puts `replay` into the workload, whose statistics now describe the trace (for anything
/// that estimates): its GPU mix, GPU-weighted mean duration and jobs per day.
fn describe_as_rates(workload: &mut Workload, replay: TraceReplay, per_day: f64) {
    let trace = &replay.trace;
    let jobs = trace.jobs.len();
    let mut counts: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    let mut gpu_hours = 0.0;
    for (j, job) in trace.jobs.iter().enumerate() {
        *counts.entry(job.gpus).or_default() += 1;
        gpu_hours += f64::from(job.gpus) * replay.job(j as u32).1;
    }
    let mut cumulative = 0.0;
    let mut mix: Vec<(u32, f64)> = counts
        .iter()
        .map(|(gpus, n)| {
            cumulative += *n as f64 / jobs as f64;
            (*gpus, cumulative)
        })
        .collect();
    mix.last_mut().expect("a trace has jobs").1 = 1.0;
    let gpus_total: f64 = trace.jobs.iter().map(|j| f64::from(j.gpus)).sum();
    workload.gpus = GpuMix { cumulative: mix };
    // GPU-weighted mean: rate x mean GPUs x this = the trace's GPU-hour rate.
    workload.duration_h = DurationDist::Fixed {
        value_h: gpu_hours / gpus_total,
    };
    workload.arrivals.arrivals_per_day = per_day.max(f64::MIN_POSITIVE);
    workload.trace = Some(Arc::new(replay));
}

/// Removes the teams no job can have: a trace workload whose jobs all carry the trace's teams
/// leaves its default team (its name) unused, and `teams.csv` would show it empty.
fn drop_unused_teams(config: &mut Config) {
    let mut used = vec![false; config.teams.len()];
    for workload in &config.workloads {
        match &workload.trace {
            Some(replay) if replay.trace_teams => {
                for index in &replay.team_index {
                    used[*index] = true;
                }
                if replay
                    .trace
                    .jobs
                    .iter()
                    .any(|j| j.team == crate::trace::NONE)
                {
                    used[workload.team_idx] = true;
                }
            }
            _ => used[workload.team_idx] = true,
        }
    }
    for service in &config.services {
        used[service.team_idx] = true;
    }
    if used.iter().all(|u| *u) {
        return;
    }
    let mut new_index = vec![usize::MAX; used.len()];
    let mut kept = Vec::new();
    for (index, name) in config.teams.drain(..).enumerate() {
        if used[index] {
            new_index[index] = kept.len();
            kept.push(name);
        }
    }
    config.teams = kept;
    for service in &mut config.services {
        service.team_idx = new_index[service.team_idx];
    }
    for workload in &mut config.workloads {
        // An unused default team's index is never read; keep it in range.
        workload.team_idx = new_index[workload.team_idx].min(config.teams.len().saturating_sub(1));
        if let Some(replay) = workload.trace.as_mut() {
            let replay = Arc::get_mut(replay).expect("a replay is not shared while it is built");
            for index in &mut replay.team_index {
                *index = new_index[*index];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::scenario::Source;

    fn source(trace_line: &str) -> Source {
        let trace = std::fs::canonicalize("tests/data/traces/slurm.txt").unwrap();
        Source {
            text: format!(
                "start = \"2027-01-01\"\nhorizon_months = 1\n[gpu_speed]\nH100 = 1.0\nA100 = 0.5\n\n[[workload]]\nname = \"w\"\ntrace = \"{}\"\ntrace_format = \"slurm\"\nreplay = \"exact\"\n{trace_line}\n[[pool]]\nname = \"p\"\ntype = \"on_demand\"\ngpu = \"H100\"\ngpus_per_node = 8\nprice_per_gpu_h = 1\n\n[[strategy]]\nname = \"s\"\npools = [\"p\"]\n",
                trace.display()
            ),
            origin: PathBuf::from("<test>"),
            default_name: "test".into(),
            traces: super::TraceCache::default(),
        }
    }

    #[test]
    fn loads_of_one_source_share_one_trace() {
        let source = source("");
        let (a, b) = (source.load(&[]).unwrap(), source.load(&[]).unwrap());
        let trace = |loaded: &crate::scenario::Loaded| {
            std::sync::Arc::clone(&loaded.config.workloads[0].trace.as_ref().unwrap().trace)
        };
        assert!(std::sync::Arc::ptr_eq(&trace(&a), &trace(&b)));
    }

    #[test]
    fn per_job_gpu_types_convert_durations_and_teams_come_from_the_trace() {
        let loaded = source("").load(&[]).unwrap();
        let workload = &loaded.config.workloads[0];
        let replay = workload.trace.as_ref().unwrap();
        // The a100 job (24 h on A100) is 12 h of work on the workload's H100.
        let typed = replay.trace.jobs.iter().position(|j| j.gpus == 8).unwrap() as u32;
        assert_eq!(replay.job(typed), (8, 12.0));
        assert_eq!(workload.team_of(0), "nlp");
        // The trace's teams are the scenario's; the workload's own name, used by no job, is not.
        assert_eq!(loaded.config.teams, ["nlp", "vision"]);
        assert_eq!(loaded.config.teams[workload.team_idx_of(0)], "nlp");
        assert_eq!(workload.team_of(crate::scenario::NO_SPEC), "w");
        // A team in the workload applies to every job.
        let loaded = source("team = \"platform\"").load(&[]).unwrap();
        assert_eq!(loaded.config.workloads[0].team_of(0), "platform");
    }

    #[test]
    fn a_workload_s_own_gpu_speed_converts_its_trace_durations() {
        // For this workload an A100 is a quarter of an H100 (the scenario says half): the a100
        // job's 24 h on an A100 are 24 x 0.25 / 1 = 6 h of work on its H100.
        let loaded = source("gpu_speed = { H100 = 1.0, A100 = 0.25 }")
            .load(&[])
            .unwrap();
        let replay = loaded.config.workloads[0].trace.as_ref().unwrap();
        let typed = replay.trace.jobs.iter().position(|j| j.gpus == 8).unwrap() as u32;
        assert_eq!(replay.job(typed), (8, 6.0));
        // Its table replaces [gpu_speed]: a type the trace ran on must be in it.
        let error = source("gpu_speed = { H100 = 1.0 }").load(&[]).unwrap_err();
        let message = format!("{error:#}");
        assert!(
            message.contains("and its own gpu_speed lacks A100; give both types"),
            "{message}"
        );
    }

    #[test]
    fn a_job_the_trace_marks_not_checkpointable_does_not_checkpoint() {
        let (_scratch, csv) = super::super::write_temp(
            "flags.csv",
            "submit_time,duration_h,gpus,checkpointable\n0,1,1,false\n1,1,1,true\n2,1,1,\n",
        );
        let text = format!(
            "start = \"2027-01-01\"\nhorizon_months = 1\n\n[[workload]]\nname = \"w\"\ntrace = \"{}\"\nreplay = \"exact\"\ncheckpoint = {{ every_h = 0.5, write_h = 0.01, restart_h = 0.01 }}\n\n[[pool]]\nname = \"p\"\ntype = \"on_demand\"\ngpu = \"H100\"\ngpus_per_node = 8\nprice_per_gpu_h = 1\n\n[[strategy]]\nname = \"s\"\npools = [\"p\"]\n",
            csv.display()
        );
        let loaded = crate::scenario::load_text(&text, &PathBuf::from("<test>"), "t", &[]).unwrap();
        let workload = &loaded.config.workloads[0];
        assert!(workload.checkpoint_of(0).is_none());
        assert!(workload.checkpoint_of(1).is_some());
        assert!(workload.checkpoint_of(2).is_some());
        assert!(workload.checkpoint_of(crate::scenario::NO_SPEC).is_some());
    }
}
