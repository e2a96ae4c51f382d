//! `merge`: the folders of a sharded sweep, or of a sharded run, combined into the files the
//! unsharded one writes. Which it is, the shards' markers say.
//!
//! A run's shards hold their units and how to load the scenario again; the merge loads it
//! (its traces from where the shards found them), checks that it is the run the shards ran,
//! puts the units in order and writes the folder exactly as `run` does (with `--focus`, the
//! median replications are simulated again for their charges, as `run` does). Every file but
//! `run.json`'s own command, threads and wall time (the shards' summed) and report.html, which
//! shows them, is the unsharded run's, byte for byte.

use std::path::{Path, PathBuf};

use super::folder::{self, Drawing};
use super::run::{Finished, RunOutcome, Written, resolved, run_id};
use super::sweep::{MergeRequest, SweepOutcome};
use super::{AppError, Context};
use crate::files::{self, LockMode};
use crate::records::{RunInfo, RunOutput, RunShardInfo, UnitResult};
use crate::runner;
use crate::scenario::{Override, Source, parse_value};
use crate::stats;

/// What a merge combined.
#[derive(Debug)]
pub enum Merged {
    // Both boxed: a merge's outcome is large, and made once.
    Sweep(Box<SweepOutcome>),
    Run(Box<RunOutcome>),
}

/// Merges the shards in `request.inputs`: a run's if they hold run shards, else a sweep's.
pub fn merge(request: &MergeRequest, ctx: &Context<'_>) -> Result<Merged, AppError> {
    for dir in &request.inputs {
        if !dir.is_dir() {
            let what = match dir.exists() {
                true => "is not a folder",
                false => "no such folder",
            };
            return Err(AppError::Request(format!(
                "{}: {what}; give the --out folders of the shards",
                dir.display()
            )));
        }
    }
    let mut shards = Vec::new();
    let mut without = None;
    for dir in &request.inputs {
        let markers = files::run_shard::markers(dir)?;
        if markers.is_empty() {
            without.get_or_insert(dir);
        }
        for (path, info) in markers {
            shards.push((dir.clone(), path, info));
        }
    }
    if shards.is_empty() {
        return Ok(Merged::Sweep(Box::new(super::sweep::merge(request, ctx)?)));
    }
    if let Some(dir) = request
        .inputs
        .iter()
        .find(|dir| dir.join("sweep.json").exists())
    {
        return Err(AppError::Request(format!(
            "{}: holds a sweep, and the other folders a run's shards; merge a run's shards or a sweep's, not both",
            dir.display()
        )));
    }
    if let Some(dir) = without {
        return Err(AppError::Request(format!(
            "{}: holds no shard of a run (no run-shard-K-of-N.json), and the other folders do; give only the folders of the run's shards",
            dir.display()
        )));
    }
    Ok(Merged::Run(Box::new(merge_run(request, &shards, ctx)?)))
}

/// One shard found: its folder, its marker and what the marker says.
type Found = (PathBuf, PathBuf, RunShardInfo);

/// The shards of one run, each once, all of them: in shard order.
fn one_run(shards: &[Found]) -> Result<Vec<&Found>, AppError> {
    let (_, first_path, first) = &shards[0];
    for (_, path, info) in shards {
        if info.run_id != first.run_id {
            return Err(AppError::Request(format!(
                "{} and {} are shards of different runs (run ids {} and {}); merge the shards of one run",
                first_path.display(),
                path.display(),
                first.run_id,
                info.run_id
            )));
        }
    }
    for (_, path, info) in shards {
        if info.shards != first.shards {
            return Err(AppError::Request(format!(
                "{} is shard {}/{} and {} shard {}/{}: shards of the run split in two ways (into {} and into {}); merge the shards of one split",
                first_path.display(),
                first.shard,
                first.shards,
                path.display(),
                info.shard,
                info.shards,
                first.shards,
                info.shards
            )));
        }
    }
    let count = first.shards;
    // Each shard's marker was checked (`RunShardInfo::check`), not their count: a shard is
    // missing long before `count` of them would fill memory.
    let mut ordered = Vec::with_capacity(shards.len());
    for k in 1..=count {
        let of_k: Vec<&Found> = shards.iter().filter(|(_, _, i)| i.shard == k).collect();
        match of_k.as_slice() {
            [one] => ordered.push(*one),
            [] => {
                return Err(AppError::Request(format!(
                    "shard {k}/{count} of the run is missing; run `fleetsim run ... --shard {k}/{count}` and give its folder too"
                )));
            }
            [a, b, ..] => {
                return Err(AppError::Request(format!(
                    "shard {k}/{count} is given twice ({} and {}); give each shard once",
                    a.1.display(),
                    b.1.display()
                )));
            }
        }
    }
    Ok(ordered)
}

/// Loads the run's scenario again as the shards did, and checks it is the one they ran.
fn load(info: &RunShardInfo, marker: &Path) -> Result<(Source, crate::scenario::Loaded), AppError> {
    let source = Source::from_text(
        &info.scenario_text,
        &info.scenario_origin,
        &info.scenario_default_name,
    );
    let set: Vec<Override> = info
        .set
        .iter()
        .map(|o| Override {
            path: o.path.clone(),
            value: parse_value(&o.value),
            text: o.text.clone(),
        })
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    if info.fleetsim_version != version {
        return Err(AppError::Request(format!(
            "{}: written by fleetsim {}, and this is {version}; merge with that version, or run the shards again with this one",
            marker.display(),
            info.fleetsim_version
        )));
    }
    let loaded = source.load(&set)?;
    if run_id(&loaded, info.trace, info.focus) != info.run_id {
        return Err(AppError::Request(format!(
            "{}: its scenario, overrides and options load otherwise now than when the shards ran (a trace file changed, or the marker was edited); run the shards again",
            marker.display()
        )));
    }
    Ok((source, loaded))
}

fn merge_run(
    request: &MergeRequest,
    shards: &[Found],
    ctx: &Context<'_>,
) -> Result<RunOutcome, AppError> {
    for dir in &request.inputs {
        // A shard still being written is not finished.
        match files::check_not_locked(dir) {
            Err(files::OutputError::Locked { dir, holder }) => {
                return Err(AppError::Request(format!(
                    "{}: a shard is still being written there ({holder}); wait for it to end, then merge",
                    dir.display()
                )));
            }
            other => other?,
        }
        if same_folder(dir, &request.out) {
            return Err(AppError::Request(format!(
                "{}: is a shard's folder and the --out of the merge; merge into another folder",
                request.out.display()
            )));
        }
    }
    let ordered = one_run(shards)?;
    let (_, marker, first) = ordered[0];
    let (_, loaded) = load(first, marker)?;
    let config = &loaded.config;
    let mut units: Vec<UnitResult> = Vec::new();
    for (dir, marker, info) in &ordered {
        let shard_units = files::run_shard::units(dir, info)?;
        let expected =
            (info.replications_to - info.replications_from) as usize * config.strategies.len();
        let inside = shard_units
            .iter()
            .all(|u| (info.replications_from..info.replications_to).contains(&u.replication));
        if shard_units.len() != expected || !inside {
            return Err(AppError::Request(format!(
                "{}: its units are not those of replications {}..{}; run the shard again",
                marker.display(),
                info.replications_from,
                info.replications_to
            )));
        }
        let events: u64 = shard_units.iter().map(|u| u.events).sum();
        if events != info.events_simulated {
            return Err(AppError::Request(format!(
                "{}: says {} events simulated, and its units hold {events}; run the shard again",
                marker.display(),
                info.events_simulated
            )));
        }
        units.extend(shard_units);
    }
    units.sort_by_key(|u| (u.strategy, u.replication));
    let complete = units.iter().enumerate().all(|(i, u)| {
        let r = config.replications as usize;
        (u.strategy, u.replication as usize) == (i / r, i % r)
    });
    if units.len() != config.strategies.len() * config.replications as usize || !complete {
        return Err(AppError::Request(format!(
            "the shards do not hold every replication of the run once ({} units for {} strategies x {} replications)",
            units.len(),
            config.strategies.len(),
            config.replications
        )));
    }
    let aggregates = stats::summarize(config, &units);
    let events = units.iter().map(|u| u.events).sum();
    let mut run_output = RunOutput {
        units,
        aggregates,
        events,
        focus: None,
    };
    if let Some(period) = first.focus {
        ctx.pool
            .install(|| runner::add_focus(config, &mut run_output, period, ctx.stop))?;
    }
    let info = RunInfo {
        command_line: with_out(&first.command_line, &request.out),
        scenario_source: first.scenario_source.clone(),
        threads: ordered.iter().map(|(_, _, i)| i.threads).max(),
        wall_time_s: Some(ordered.iter().map(|(_, _, i)| i.wall_time_s).sum()),
        ..RunInfo::new(config, resolved(&loaded), loaded.warnings.clone())
    };
    let out = &request.out;
    let scenario = resolved(&loaded);
    let (mut outcome, drawn) =
        folder::work_in(out, LockMode::Exclusive, &request.command_line, ctx, || {
            let previous = files::prepare_dir(out, &config.name, &scenario, request.force)?;
            let finished = Finished {
                dir: out,
                loaded: &loaded,
                info,
                trace: first.trace,
                charts: request.charts,
            };
            let outcome = finished.write(run_output, &previous, ctx)?;
            let drawing = match outcome.info.charts.is_empty() {
                true => Drawing::Nothing,
                false => Drawing::Run,
            };
            Ok((outcome, drawing))
        })?;
    if let Written::Folder { drawn: d, .. } = &mut outcome.written {
        *d = drawn;
    }
    Ok(outcome)
}

/// Whether `a` and `b` name one folder (`b` may not exist yet).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The unsharded run's command: a shard's, writing to `out`.
fn with_out(command_line: &[String], out: &Path) -> Vec<String> {
    let mut line = Vec::with_capacity(command_line.len() + 2);
    let mut args = command_line.iter();
    while let Some(arg) = args.next() {
        if arg == "--out" {
            args.next();
        } else if !arg.starts_with("--out=") {
            line.push(arg.clone());
        }
    }
    line.push("--out".into());
    line.push(out.display().to_string());
    line
}
