//! `optimize`: the cheapest candidate that meets the constraints, with its journal (so an
//! interrupted search goes on with `--resume`), the answer's files, the chosen candidate's run
//! folder `best/` (through [`super::run::run`]) and the chart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::folder::{self, Drawing, Drawn};
use super::run::{RunRequest, RunTo};
use super::{AppError, Context};
use crate::files::{self, LockMode};
use crate::optimize::{self, OptimizeError, Outcome, Prepared, Progress as Step, result};
use crate::progress::Silent;
use crate::records::Recommendation;
use crate::scenario::{Override, run_overrides};

/// How to run a prepared optimisation into its folder.
#[derive(Debug, Clone)]
pub struct OptimizeRun {
    /// None: `output/<scenario name>-optimize`.
    pub out: Option<PathBuf>,
    /// Go on from the journal of an interrupted run of the same question.
    pub resume: bool,
    /// Replace the optimisation the folder holds.
    pub force: bool,
    /// Draw the chart, and the best candidate's charts.
    pub charts: bool,
    /// The user's `--set` and `--seed` (the best candidate's run gets them as a run would).
    pub set: Vec<Override>,
    pub seed: Option<u64>,
    /// How `best/run.json` names the scenario.
    pub source_name: String,
    pub command_line: Vec<String>,
}

/// What an optimisation found and wrote.
#[derive(Debug)]
pub struct OptimizeOutcome {
    pub outcome: Outcome,
    pub recommendation: Recommendation,
    pub out: PathBuf,
    /// The journal's lines that were damaged, left out and simulated again.
    pub damaged: usize,
    pub drawn: Drawn,
}

/// Searches, writes the answer, the best candidate's folder and the chart, all under the
/// folder's lock.
pub fn optimize(
    prepared: &Prepared,
    run: &OptimizeRun,
    ctx: &Context<'_>,
) -> Result<OptimizeOutcome, AppError> {
    let out = run.out.clone().unwrap_or_else(|| {
        Path::new("output").join(format!("{}-optimize", prepared.info.scenario_name))
    });
    let ((outcome, recommendation, damaged), drawn) =
        folder::work_in(&out, LockMode::Exclusive, &run.command_line, ctx, || {
            let found = search_and_write(prepared, run, &out, ctx)?;
            if let Some(best) = found.0.best {
                write_best(prepared, run, &found.0, best, &out, ctx)?;
            }
            let drawing = match run.charts {
                true => Drawing::Optimize,
                false => Drawing::Nothing,
            };
            Ok((found, drawing))
        })?;
    Ok(OptimizeOutcome {
        outcome,
        recommendation,
        out,
        damaged,
        drawn,
    })
}

/// The search, with the journal that makes it resumable, then its answer's files.
fn search_and_write(
    prepared: &Prepared,
    run: &OptimizeRun,
    out: &Path,
    ctx: &Context<'_>,
) -> Result<(Outcome, Recommendation, usize), AppError> {
    let metrics: Vec<String> = prepared.metrics().iter().map(|m| m.text.clone()).collect();
    let (journal, earlier) =
        files::optimize::open(out, &prepared.info, &metrics, run.resume, run.force)?;
    if earlier.damaged > 0 {
        (ctx.warn)(&format!(
            "{}: {} damaged line(s) are left out and simulated again",
            out.join(files::optimize::JOURNAL_FILE).display(),
            earlier.damaged
        ));
    }
    let all: Mutex<HashMap<String, Vec<f64>>> = Mutex::new(earlier.evaluations.clone());
    ctx.progress.begin(0, "optimizing");
    let record = |key: &str, values: &[f64]| {
        journal.record(key, values)?;
        all.lock()
            .expect("not poisoned")
            .insert(key.to_string(), values.to_vec());
        Ok(())
    };
    let progress = |step: Step| match step {
        Step::Stage { units, .. } => ctx.progress.grow(units),
        Step::Unit => ctx.progress.step(),
    };
    let hooks = optimize::Hooks {
        stop: ctx.stop,
        cached: &earlier.evaluations,
        record: &record,
        progress: &progress,
    };
    let outcome = ctx.pool.install(|| prepared.run(&hooks));
    ctx.progress.end();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(OptimizeError::Interrupted { .. }) => {
            let saved = all.lock().expect("not poisoned").len();
            return Err(AppError::Interrupted {
                after_s: None,
                left: format!(
                    "{saved} replications are saved in {}; run the same command with --resume to go on",
                    out.join(files::optimize::JOURNAL_FILE).display()
                ),
            });
        }
        Err(error) => return Err(error.into()),
    };
    let recommendation = result::recommendation(prepared, &outcome);
    let (header, rows) = result::table(prepared, &outcome);
    let evaluations = all.into_inner().expect("not poisoned");
    files::optimize::write_answer(out, &header, &rows, &recommendation, &journal, &evaluations)?;
    Ok((outcome, recommendation, earlier.damaged))
}

/// The chosen candidate's full run folder, `best/`, as `fleetsim run` writes it (its
/// replications are those the candidate was judged on, so its summary repeats them).
fn write_best(
    prepared: &Prepared,
    run: &OptimizeRun,
    outcome: &Outcome,
    best: usize,
    out: &Path,
    ctx: &Context<'_>,
) -> Result<(), AppError> {
    let candidate = &outcome.candidates[best];
    let mut set = run.set.clone();
    set.extend(
        prepared
            .space
            .assignments(&candidate.point)
            .into_iter()
            .map(|(path, value)| Override::new(&path, value)),
    );
    let dir = out.join(files::optimize::BEST_DIR);
    let request = RunRequest {
        source: prepared.source.clone(),
        source_name: run.source_name.clone(),
        set: run_overrides(&set, Some(candidate.rows.len() as u32), run.seed),
        to: RunTo::Folder {
            dir: Some(dir.clone()),
            force: true,
            charts: run.charts,
        },
        trace: false,
        focus: None,
        // The scenario's warnings were shown when the question was prepared.
        warn: false,
        command_line: run.command_line.clone(),
    };
    let quiet = Context {
        progress: &Silent,
        ..*ctx
    };
    super::run::run(&request, &quiet).map_err(|error| {
        AppError::unfinished(
            format!(
                "optimize.csv and recommendation.json are written, but not the chosen candidate's run folder {}",
                dir.display()
            ),
            error,
        )
    })?;
    Ok(())
}

/// Prepares the question (`request`): the space, metrics, settings and `optimize.json`.
pub fn prepare(request: &optimize::Request) -> Result<Prepared, AppError> {
    Ok(optimize::prepare(request)?)
}
