//! `sweep` and `merge`: a scenario at many points of its parameters, all of them or one shard,
//! into a sweep folder (or, for the Python package, the same files' bytes); and the shards'
//! folders combined into the files of the unsharded sweep.

use std::path::{Path, PathBuf};

use super::folder::{self, Drawing, Drawn};
use super::run::check_focus;
use super::{AppError, Context};
use crate::files::LockMode;
use crate::records::SweepInfo;
use crate::scenario::Source;
use crate::sweep::{self, MergeOptions, Outcome, Plan, Request, Shard, SweepFiles, Watch};

/// Plans every point of the sweep `request` asks of `source` (each point loaded and checked),
/// and checks the FOCUS export of each if asked for. Its warnings are in the plan.
pub fn plan(request: &Request, source: &Source) -> Result<Plan, AppError> {
    let plan = sweep::plan_source(request, source)?;
    if let Some(period) = request.focus {
        for point in &plan.points {
            check_focus(&point.config, period).map_err(|error| {
                AppError::Request(format!(
                    "{}: {error}",
                    sweep::plan::label(&plan.info, point.point())
                ))
            })?;
        }
    }
    Ok(plan)
}

/// How to run a planned sweep into a folder.
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// None: `output/<scenario name>-sweep`.
    pub out: Option<PathBuf>,
    /// None (or 1/1): the whole sweep.
    pub shard: Option<Shard>,
    /// Skip the points already done in the folder.
    pub resume: bool,
    /// Replace another sweep's results in the folder.
    pub force: bool,
    /// Draw the sweep's charts and report.html (a shard draws none: it has no sweep.csv).
    pub charts: bool,
    pub command_line: Vec<String>,
}

/// What a sweep (or a merge) did.
#[derive(Debug)]
pub struct SweepOutcome {
    pub info: SweepInfo,
    pub out: PathBuf,
    pub outcome: Outcome,
    pub drawn: Drawn,
}

/// Runs `plan` into its folder; shards of one sweep may share it.
pub fn sweep(plan: &Plan, run: &SweepRun, ctx: &Context<'_>) -> Result<SweepOutcome, AppError> {
    let out = run
        .out
        .clone()
        .unwrap_or_else(|| Path::new("output").join(format!("{}-sweep", plan.info.scenario_name)));
    let shard = run.shard.filter(|s| s.count > 1);
    let mode = match shard {
        Some(shard) => LockMode::Shard(shard.index, shard.count),
        None => LockMode::Exclusive,
    };
    let options = sweep::RunOptions {
        out: out.clone(),
        shard: run.shard,
        resume: run.resume,
        force: run.force,
        threads: ctx.threads(),
        command_line: run.command_line.clone(),
    };
    let watch = Watch {
        progress: ctx.progress,
        warn: ctx.warn,
    };
    let (outcome, drawn) = folder::work_in(&out, mode, &run.command_line, ctx, || {
        let outcome = ctx
            .pool
            .install(|| sweep::execute(plan, &options, watch, ctx.stop))?;
        let drawing = match run.charts && outcome.shard.is_none() {
            true => Drawing::Sweep,
            false => Drawing::Nothing,
        };
        Ok((outcome, drawing))
    })?;
    Ok(SweepOutcome {
        info: plan.info.clone(),
        out,
        outcome,
        drawn,
    })
}

/// Runs every point of `plan` and returns the bytes of the files a sweep folder holds but the
/// charts and `invocation.json`.
pub fn sweep_in_memory(plan: &Plan, ctx: &Context<'_>) -> Result<SweepFiles, AppError> {
    let files = ctx.pool.install(|| sweep::run_in_memory(plan, ctx.stop))?;
    if ctx.stopped() {
        return Err(AppError::Interrupted {
            after_s: None,
            left: "no result was returned".into(),
        });
    }
    Ok(files)
}

/// A merge to do.
#[derive(Debug, Clone)]
pub struct MergeRequest {
    /// The shards' folders (several shards may share one).
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Replace another sweep's results in `out`.
    pub force: bool,
    /// Draw the sweep's charts and report.html.
    pub charts: bool,
    pub command_line: Vec<String>,
}

/// Combines the shards' folders into `out`: the files the unsharded sweep writes.
pub fn merge(request: &MergeRequest, ctx: &Context<'_>) -> Result<SweepOutcome, AppError> {
    let options = MergeOptions {
        inputs: request.inputs.clone(),
        out: request.out.clone(),
        force: request.force,
        command_line: request.command_line.clone(),
    };
    let out = &request.out;
    let ((info, outcome), drawn) =
        folder::work_in(out, LockMode::Exclusive, &request.command_line, ctx, || {
            let merged = sweep::merge(&options, ctx.stop)?;
            let drawing = match request.charts {
                true => Drawing::Sweep,
                false => Drawing::Nothing,
            };
            Ok((merged, drawing))
        })?;
    Ok(SweepOutcome {
        info,
        out: out.clone(),
        outcome,
        drawn,
    })
}
