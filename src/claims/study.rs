//! A claim's sweep (planned from its scenario, into its folder under `output/claims/`) and its
//! judgement from the sweep's points; copies the chart that shows its boundary beside the page.
//! Running the sweep in its folder is `app::claims`'s.
//!
//! Every file written depends only on the claims' scenarios, `--set`, `--replications` and
//! `--seed` (the sweep folders' invariant), so the page is the same on any thread count.

use crate::regular_file;
use std::path::{Path, PathBuf};

use super::{Claim, Finding, Point};
use crate::charts::ChartError;
use crate::files::{self, Cell, OutputError};
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

/// The sweep of `claim`'s scenario, planned with the options' `--set`; and its folder.
pub fn plan_claim(
    claim: &'static Claim,
    options: &Options,
) -> Result<(sweep::Plan, PathBuf), ClaimsError> {
    let scenario = options.scenarios.join(format!("{}.toml", claim.id()));
    let request = sweep::Request {
        scenario: scenario.clone(),
        vary: Vec::new(),
        sampling: None,
        set: options.set.clone(),
        focus: None,
    };
    let plan = sweep::plan(&request).map_err(|error| ClaimsError::Sweep {
        number: claim.number,
        scenario,
        error: Box::new(error),
    })?;
    Ok((plan, options.out.join(claim.id())))
}

/// The options of `claim`'s sweep into `dir`: every point again (`redo`), or only those not
/// in the folder already.
pub fn run_options(dir: &Path, options: &Options, redo: bool) -> sweep::RunOptions {
    sweep::RunOptions {
        out: dir.to_path_buf(),
        shard: None,
        resume: !redo,
        force: redo,
        threads: options.threads,
        command_line: options.command_line.clone(),
    }
}

/// What a failed sweep of `claim` means: another run's folder when reusing one.
pub fn sweep_failed(
    claim: &Claim,
    options: &Options,
    dir: &Path,
    redo: bool,
    error: SweepError,
) -> ClaimsError {
    match error {
        SweepError::OtherSweep { .. } if !redo => ClaimsError::Stale {
            number: claim.number,
            dir: dir.to_path_buf(),
        },
        error => ClaimsError::Sweep {
            number: claim.number,
            scenario: options.scenarios.join(format!("{}.toml", claim.id())),
            error: Box::new(error),
        },
    }
}

/// Judges `claim` on its sweep's points (the summaries of `outcome`), from `dir`.
pub fn judge(
    claim: &'static Claim,
    options: &Options,
    plan: &sweep::Plan,
    dir: &Path,
    outcome: sweep::Outcome,
) -> Outcome {
    let points: Vec<Point> = outcome
        .summaries
        .into_iter()
        .map(|s| Point {
            values: s.values.iter().map(number_of).collect(),
            summary: s.summary,
        })
        .collect();
    Outcome {
        claim,
        finding: (claim.rule)(&points),
        scenario: options.scenarios.join(format!("{}.toml", claim.id())),
        dir: dir.to_path_buf(),
        points: points.len(),
        points_simulated: outcome.invocation.points_simulated,
        replications: plan.info.replications,
        seed: plan.info.seed,
        chart: chart_of(claim, dir),
    }
}

/// The chart that shows `claim`'s boundary, in its folder `dir`.
pub fn chart_of(claim: &Claim, dir: &Path) -> PathBuf {
    dir.join(format!("{}.png", claim.chart))
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
    files::create_dir(dir).map_err(output_error)?;
    let bytes =
        regular_file::read(&outcome.chart, regular_file::CHART_BYTES_MAX).map_err(|source| {
            ClaimsError::ReadChart {
                path: outcome.chart.clone(),
                source,
            }
        })?;
    let name = format!("{}.png", outcome.claim.id());
    files::write_bytes(dir, &name, &bytes)
        .and_then(files::Pending::commit)
        .map_err(output_error)
}
