//! Runs a claim's sweep into its folder under `output/claims/` (with the sweep's charts and
//! report.html) and judges it; copies the chart that shows its boundary beside the page.
//!
//! Every file written depends only on the claims' scenarios, `--set`, `--replications` and
//! `--seed` (the sweep folders' invariant), so the page is the same on any thread count.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::{Claim, Finding, Point};
use crate::output::charts::ChartError;
use crate::output::{self, Cell, LockMode, OutputError};
use crate::scenario::Override;
use crate::sweep::{self, SweepError};

/// How to run the claims.
#[derive(Debug, Clone)]
pub struct Options {
    /// The folder of the claims' scenarios (`scenarios/claims`).
    pub scenarios: PathBuf,
    /// The claims' result folders go under this (`output/claims`).
    pub out: PathBuf,
    /// Applied to every claim's scenario: `--set`, then `--replications` and `--seed`.
    pub set: Vec<Override>,
    /// Worker threads of the current rayon pool (for `invocation.json`).
    pub threads: usize,
    pub command_line: Vec<String>,
    /// No progress bars.
    pub quiet: bool,
    /// Says something on the terminal (a damaged point found when reusing a folder).
    pub notify: fn(&str),
}

/// A claim run and judged.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub claim: &'static Claim,
    /// The finding, or what the results lacked for the rule.
    pub finding: Result<Finding, String>,
    /// The scenario file.
    pub scenario: PathBuf,
    /// The sweep folder.
    pub dir: PathBuf,
    pub points: usize,
    pub points_simulated: usize,
    pub replications: u32,
    pub seed: u64,
    /// The chart that shows the claim's boundary, in `dir`.
    pub chart: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum ClaimsError {
    /// The cause is in the message, not a `source` (or it would print twice).
    #[error("claim {number} ({}): {error}", .scenario.display())]
    Sweep {
        number: u8,
        scenario: PathBuf,
        /// Boxed: a `SweepError` is large, and this is returned on every claim's success path.
        error: Box<SweepError>,
    },
    #[error(
        "claim {number}: {} holds results of other options (seed, replications, --set or scenario); redo it with --only {number}, or run all claims without --only",
        .dir.display()
    )]
    Stale { number: u8, dir: PathBuf },
    #[error("claim {number}: {error}")]
    Chart { number: u8, error: ChartError },
    #[error("claim {number}: {error}")]
    Output { number: u8, error: OutputError },
    #[error("{}: cannot read the chart", .path.display())]
    ReadChart {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Runs `claim`'s sweep on the current rayon pool. `redo`: simulate every point again;
/// otherwise points already in its folder (of the same definition) are reused and only the
/// missing ones simulated.
pub fn run_claim(
    claim: &'static Claim,
    options: &Options,
    redo: bool,
    stop: &AtomicBool,
) -> Result<Outcome, ClaimsError> {
    let number = claim.number;
    let scenario = options.scenarios.join(format!("{}.toml", claim.id()));
    let sweep_error = |error| ClaimsError::Sweep {
        number,
        scenario: scenario.clone(),
        error: Box::new(error),
    };
    let output_error = |error| ClaimsError::Output { number, error };
    let request = sweep::Request {
        scenario: scenario.clone(),
        vary: Vec::new(),
        sampling: None,
        set: options.set.clone(),
        focus: None,
    };
    let plan = sweep::plan(&request).map_err(sweep_error)?;
    let dir = options.out.join(claim.id());
    let lock = output::lock_dir(&dir, LockMode::Exclusive, &options.command_line.join(" "))
        .map_err(output_error)?;
    let run = sweep::RunOptions {
        out: dir.clone(),
        shard: None,
        resume: !redo,
        force: redo,
        quiet: options.quiet,
        threads: options.threads,
        command_line: options.command_line.clone(),
        notify: options.notify,
    };
    let outcome = sweep::execute(&plan, &run, stop).map_err(|error| match error {
        SweepError::OtherSweep { .. } if !redo => ClaimsError::Stale {
            number,
            dir: dir.clone(),
        },
        error => sweep_error(error),
    })?;
    let chart = dir.join(format!("{}.png", claim.chart));
    let simulated = outcome.invocation.points_simulated;
    if simulated > 0 || !chart.is_file() {
        output::charts::sweep::draw_all_until(&dir, stop)
            .map_err(|error| ClaimsError::Chart { number, error })?;
        output::report::write(&dir, stop).map_err(|error| ClaimsError::Chart { number, error })?;
    }
    lock.release();
    let points: Vec<Point> = outcome
        .summaries
        .into_iter()
        .map(|s| Point {
            values: s.values.iter().map(number_of).collect(),
            summary: s.summary,
        })
        .collect();
    Ok(Outcome {
        claim,
        finding: (claim.rule)(&points),
        scenario,
        dir,
        points: points.len(),
        points_simulated: simulated,
        replications: plan.info.replications,
        seed: plan.info.seed,
        chart,
    })
}

/// A parameter's cell as a number (NaN for text: no claim's rule reads a named parameter).
fn number_of(cell: &Cell) -> f64 {
    match cell {
        Cell::Number(x) => *x,
        Cell::Integer(n) => *n as f64,
        Cell::Count(n) => *n as f64,
        Cell::Text(_) | Cell::Bool(_) | Cell::Empty => f64::NAN,
    }
}

/// Copies the claim's chart into `dir` (the page's `claims/` folder) as `<id>.png`; returns
/// the path written.
pub fn publish_chart(outcome: &Outcome, dir: &Path) -> Result<PathBuf, ClaimsError> {
    let number = outcome.claim.number;
    let output_error = |error| ClaimsError::Output { number, error };
    output::create_dir(dir).map_err(output_error)?;
    let bytes = std::fs::read(&outcome.chart).map_err(|source| ClaimsError::ReadChart {
        path: outcome.chart.clone(),
        source,
    })?;
    let name = format!("{}.png", outcome.claim.id());
    output::write_bytes(dir, &name, &bytes)
        .and_then(output::Pending::commit)
        .map_err(output_error)
}
