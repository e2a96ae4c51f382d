//! Runs the points of a sweep (all of them, or one shard's) and writes each point as soon as
//! its last unit is done.
//!
//! The (strategy, replication) units of all points to run go into one flat parallel loop
//! ([`runner::simulate_each`]), so both cores stay busy to the end instead of idling at the tail
//! of every point. A point's results stay in memory only until its last unit is done; then the
//! thread that finished it summarizes and writes it, `run.json` last. A killed sweep therefore
//! loses at most the points in flight, and `--resume` skips the points already written.
//!
//! A strategy whose inputs are the same at several points (the varied fields belong to other
//! strategies' pools or policies: equal [`Config::unit_digest`]s) is simulated at the first of
//! them only, and its units are handed to the others as they come: a unit is deterministic, so
//! they are the units the others would simulate, bit for bit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::SweepError;
use super::folder::{self, INVOCATION, point_dir};
use super::plan::{Plan, PlannedPoint, label};
use super::shard::{Shard, points_of};
use crate::files::{self, PointSummary};
use crate::progress::Progress;
use crate::records::{ChargePeriod, InvocationInfo, RunOutput, ShardInfo, SweepInfo, UnitResult};
use crate::runner::{self, RunError, Unit};
use crate::scenario::{Config, UnitDigest};
use crate::stats;

/// How to run a planned sweep.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// None (or 1/1): the whole sweep.
    pub shard: Option<Shard>,
    /// Skip points already done in `out`.
    pub resume: bool,
    /// Replace another sweep's files in `out`.
    pub force: bool,
    /// Worker threads of the current rayon pool (for `invocation.json`).
    pub threads: usize,
    pub command_line: Vec<String>,
}

/// Who watches a sweep run: its progress, and the warnings it finds (a damaged point found by
/// `--resume`, simulated again).
#[derive(Clone, Copy)]
pub struct Watch<'a> {
    pub progress: &'a dyn Progress,
    pub warn: &'a (dyn Fn(&str) + Sync),
}

/// What a sweep did, for the terminal.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub invocation: InvocationInfo,
    /// Every point (a whole sweep) or the shard's points, with their summaries.
    pub summaries: Vec<PointSummary>,
    /// A shard of several: its folder needs `fleetsim merge` to become a sweep.
    pub shard: Option<Shard>,
}

/// Runs `plan` into `options.out` on the current rayon pool; `stop` interrupts it (the points
/// already written stay).
pub fn execute(
    plan: &Plan,
    options: &RunOptions,
    watch: Watch<'_>,
    stop: &AtomicBool,
) -> Result<Outcome, SweepError> {
    let progress = watch.progress;
    let started = Instant::now();
    let out = &options.out;
    let info = &plan.info;
    folder::prepare(out, info, options.force)?;
    files::write_json(out, folder::SWEEP_JSON, info)?.commit()?;

    let shard = options.shard.filter(|s| s.count > 1);
    let selected: Vec<&PlannedPoint> = match shard {
        Some(shard) => {
            let costs: Vec<f64> = info.points.iter().map(|p| p.estimated_cost).collect();
            points_of(&costs, shard)
                .into_iter()
                .map(|i| &plan.points[i])
                .collect()
        }
        None => plan.points.iter().collect(),
    };
    let todo: Vec<&PlannedPoint> = selected
        .iter()
        .copied()
        .filter(|p| !options.resume || !point_is_done(out, info, p, watch.warn))
        .collect();
    let resumed = selected.len() - todo.len();

    progress.begin(
        units_of(&todo),
        &progress_label(resumed, selected.len(), resumed),
    );
    let written = AtomicUsize::new(0);
    let done = |t: usize, run_output: RunOutput| -> Result<(), SweepError> {
        let point = todo[t];
        write_point(out, point, run_output, info.focus, stop).map_err(|error| match error {
            PointError::Sweep(error) => *error,
            PointError::Run(source) => SweepError::Run {
                point: label(info, point.point()),
                source,
            },
        })?;
        let done = resumed + written.fetch_add(1, Ordering::Relaxed) + 1;
        progress.relabel(&progress_label(done, selected.len(), resumed));
        Ok(())
    };
    let result = run_points(info, &todo, stop, &|| progress.step(), &done);
    progress.end();
    if stop.load(Ordering::SeqCst) {
        return Err(SweepError::Interrupted {
            done: resumed + written.load(Ordering::Relaxed),
            selected: selected.len(),
            dir: out.clone(),
        });
    }
    let events = result?;
    let replications = units_of(&todo);

    let summaries = folder::summaries(out, info, selected.iter().map(|p| p.point()))?;
    match shard {
        None => {
            folder::write_sweep_csv(out, info, &summaries)?;
        }
        Some(shard) => {
            let marker = ShardInfo {
                sweep_id: info.sweep_id.clone(),
                shard: shard.index,
                shards: shard.count,
                points: selected.iter().map(|p| p.point().id.clone()).collect(),
            };
            files::write_json(out, &shard.marker_name(), &marker)?.commit()?;
        }
    }
    let wall_time_s = started.elapsed().as_secs_f64();
    let per_s = |n: f64| {
        if wall_time_s > 0.0 {
            n / wall_time_s
        } else {
            0.0
        }
    };
    let invocation = InvocationInfo {
        fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "sweep".into(),
        command_line: options.command_line.clone(),
        shard: shard.map(Shard::label),
        points_total: info.points.len(),
        points_selected: selected.len(),
        points_simulated: todo.len(),
        replications_simulated: replications,
        events_simulated: events,
        threads: options.threads,
        wall_time_s,
        replications_per_s: per_s(replications as f64),
        events_per_s: per_s(events as f64),
        merged: Vec::new(),
    };
    let name = shard.map_or_else(|| INVOCATION.to_string(), Shard::invocation_name);
    files::write_json(out, &name, &invocation)?.commit()?;
    Ok(Outcome {
        invocation,
        summaries,
        shard,
    })
}

/// What a sweep's progress says: the points done of those selected.
fn progress_label(done: usize, total: usize, resumed: usize) -> String {
    if resumed > 0 {
        format!("sweep: {done}/{total} points ({resumed} done before)")
    } else {
        format!("sweep: {done}/{total} points")
    }
}

/// Whether `--resume` may skip `point`: done, and every file as its `run.json` recorded it.
/// A damaged point is said so and simulated again.
fn point_is_done(
    out: &Path,
    info: &SweepInfo,
    point: &PlannedPoint,
    notify: &(dyn Fn(&str) + Sync),
) -> bool {
    match folder::point_state(out, point.point()) {
        folder::PointState::Done(_) => true,
        folder::PointState::Missing => false,
        folder::PointState::Damaged(file, problem) => {
            notify(&format!(
                "{}: {problem}; simulating {} again",
                file.display(),
                label(info, point.point())
            ));
            false
        }
    }
}

/// The (strategy, replication) units of `points` that are simulated (see [`Sharing`]).
pub(super) fn units_of(points: &[&PlannedPoint]) -> u64 {
    Sharing::of(points).simulated.len() as u64
}

/// Which units of a list of points are simulated, and which points share each one.
struct Sharing {
    /// Per simulated unit: its point (in the list) and the unit.
    simulated: Vec<(usize, Unit)>,
    /// Per simulated unit: every (point, unit index in it) that takes its result, its own
    /// first.
    takers: Vec<Vec<(usize, usize)>>,
}

impl Sharing {
    fn of(points: &[&PlannedPoint]) -> Self {
        let mut first: BTreeMap<(usize, UnitDigest), usize> = BTreeMap::new();
        let (mut simulated, mut takers) = (Vec::new(), Vec::new());
        // Per (strategy, digest): its first point's simulated units, by replication.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (t, point) in points.iter().enumerate() {
            for (k, unit) in runner::units(&point.config).into_iter().enumerate() {
                let s = unit.strategy;
                let group = *first.entry((s, point.digests[s])).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                let r = unit.replication as usize;
                if groups[group].len() == r {
                    groups[group].push(simulated.len());
                    simulated.push((t, unit));
                    takers.push(Vec::new());
                }
                // Equal digests mean equal replications, so later points find them all.
                assert!(
                    r < groups[group].len(),
                    "replication {r} of point {t} is simulated"
                );
                takers[groups[group][r]].push((t, k));
            }
        }
        Self { simulated, takers }
    }
}

/// The results of one point while its units come in.
struct Slot {
    results: Vec<Option<UnitResult>>,
    remaining: usize,
}

/// Simulates every (point, strategy, replication) unit of `points` in one flat loop on the
/// current rayon pool. `unit_done` is called after each unit; when a point's last unit is
/// done, the thread that finished it summarizes the point and hands it to `point_done` (with
/// its index in `points`), so only the points in flight stay in memory. Returns the events
/// simulated; stops at the first error.
pub(super) fn run_points(
    info: &SweepInfo,
    points: &[&PlannedPoint],
    stop: &AtomicBool,
    unit_done: &(dyn Fn() + Sync),
    point_done: &(dyn Fn(usize, RunOutput) -> Result<(), SweepError> + Sync),
) -> Result<u64, SweepError> {
    // One flat list of the units simulated; each result goes to every point that takes it.
    let sharing = Sharing::of(points);
    let work: Vec<(&Config, Unit)> = (sharing.simulated.iter())
        .map(|(t, unit)| (&points[*t].config, *unit))
        .collect();
    let slots: Vec<Mutex<Slot>> = points
        .iter()
        .map(|point| {
            let units = runner::units(&point.config).len();
            Mutex::new(Slot {
                results: (0..units).map(|_| None).collect(),
                remaining: units,
            })
        })
        .collect();
    let events = AtomicU64::new(0);
    let sink = |i: usize, result: Result<UnitResult, RunError>| -> Result<(), SweepError> {
        let point = points[sharing.simulated[i].0];
        let result = result.map_err(|source| SweepError::Run {
            point: label(info, point.point()),
            source,
        })?;
        events.fetch_add(result.events, Ordering::Relaxed);
        unit_done();
        let takers = &sharing.takers[i];
        let mut result = Some(result);
        for (n, &(t, k)) in takers.iter().enumerate() {
            let taken = if n + 1 == takers.len() {
                result.take()
            } else {
                result.clone()
            };
            let finished = {
                let mut slot = slots[t].lock().expect("no thread panicked holding a slot");
                slot.results[k] = taken;
                slot.remaining -= 1;
                (slot.remaining == 0).then(|| std::mem::take(&mut slot.results))
            };
            if let Some(results) = finished {
                point_done(t, summarize(points[t], results))?;
            }
        }
        Ok(())
    };
    runner::simulate_each(&work, stop, &sink)?;
    Ok(events.load(Ordering::Relaxed))
}

/// The results of a point whose units are all done.
fn summarize(point: &PlannedPoint, results: Vec<Option<UnitResult>>) -> RunOutput {
    let units: Vec<UnitResult> = results
        .into_iter()
        .map(|r| r.expect("every unit of a finished point is done"))
        .collect();
    let aggregates = stats::summarize(&point.config, &units);
    let events = units.iter().map(|u| u.events).sum();
    RunOutput {
        units,
        aggregates,
        events,
        focus: None,
    }
}

/// Why a point could not be written.
enum PointError {
    /// Boxed: a `SweepError` is large, and this is returned on every point's success path.
    Sweep(Box<SweepError>),
    /// Simulating its FOCUS units again.
    Run(RunError),
}

impl<E: Into<SweepError>> From<E> for PointError {
    fn from(error: E) -> Self {
        PointError::Sweep(Box::new(error.into()))
    }
}

/// Writes the folder of a point whose units are all done (`run.json` last); with `focus`, its
/// median units are simulated again for `focus.csv` first.
fn write_point(
    out: &Path,
    point: &PlannedPoint,
    mut run_output: RunOutput,
    focus: Option<ChargePeriod>,
    stop: &AtomicBool,
) -> Result<(), PointError> {
    if let Some(period) = focus {
        runner::add_focus(&point.config, &mut run_output, period, stop).map_err(PointError::Run)?;
    }
    let info = point.run_info.clone().with_results(&run_output);
    let dir = point_dir(out, point.point());
    files::create_dir(&dir)?;
    files::write_results(&dir, &point.config, &run_output, &info, false)?;
    Ok(())
}
