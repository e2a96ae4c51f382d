//! A claim's sweep (planned from its scenario, into its folder under `output/claims/`) and its
//! judgement from the sweep's points; copies the chart that shows its boundary beside the page.
//! Running the sweep in its folder is `app::claims`'s.
//!
//! Every file written depends only on the claims' scenarios, `--set`, `--replications` and
//! `--seed` (the sweep folders' invariant), so the page is the same on any thread count.

use crate::regular_file;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::runs::{DirectRuns, number_of};
use super::{Claim, Evidence, Finding, Point, Verdict};
use crate::charts::ChartError;
use crate::files::{self, OutputError};
use crate::records::PoolRow;
use crate::scenario::Override;
use crate::sweep::{self, SweepError};

/// The replications every verdict is judged at again (a prefix of the study's own, by common
/// random numbers): a verdict that changes between them and the study's is undecided.
pub const SHORT_REPLICATIONS: u32 = 10;

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
    /// Whether the verdict is the same at [`SHORT_REPLICATIONS`], in a sentence.
    pub stability: String,
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

/// Judges `claim` on its sweep's points (the summaries of `outcome`, the `pools.csv` rows in
/// `dir`), with direct runs for its boundaries, at the study's replications and again at
/// [`SHORT_REPLICATIONS`].
pub fn judge(
    claim: &'static Claim,
    options: &Options,
    plan: &sweep::Plan,
    dir: &Path,
    outcome: sweep::Outcome,
    stop: &AtomicBool,
) -> Outcome {
    let points_simulated = outcome.invocation.points_simulated;
    let replications = plan.info.replications;
    let runs = DirectRuns {
        scenario: options.scenarios.join(format!("{}.toml", claim.id())),
        set: options.set.clone(),
        parameters: plan
            .info
            .parameters
            .iter()
            .map(|p| p.path.clone())
            .collect(),
        replications,
        stop,
    };
    let points = points_of(plan, dir, outcome.summaries);
    let n_points = points.as_ref().map_or(0, Vec::len);
    let finding = points.and_then(|points| find(claim, &runs, &points));
    let (finding, stability) = match finding {
        Ok(finding) => stable(claim, &runs, finding),
        Err(missing) => (Err(missing), "not checked: no verdict".to_string()),
    };
    Outcome {
        claim,
        finding,
        stability,
        scenario: runs.scenario.clone(),
        dir: dir.to_path_buf(),
        points: n_points,
        points_simulated,
        replications,
        seed: plan.info.seed,
        chart: chart_of(claim, dir),
    }
}

/// The sweep's points from its summaries and each point's `pools.csv`.
fn points_of(
    plan: &sweep::Plan,
    dir: &Path,
    summaries: Vec<files::PointSummary>,
) -> Result<Vec<Point>, String> {
    let mut points = Vec::with_capacity(summaries.len());
    for s in summaries {
        let planned = plan
            .points
            .get(s.index)
            .ok_or("a point outside the sweep")?;
        let path = sweep::folder::point_dir(dir, planned.point()).join("pools.csv");
        let pools: Vec<PoolRow> = files::read_csv(&path).map_err(|error| error.to_string())?;
        points.push(Point {
            values: s.values.iter().map(number_of).collect(),
            summary: s.summary,
            pools,
        });
    }
    Ok(points)
}

/// The claim's rule on `points`, with `runs` for the scenario and the direct runs.
fn find(claim: &Claim, runs: &DirectRuns<'_>, points: &[Point]) -> Result<Finding, String> {
    let config = runs.config()?;
    (claim.rule)(&Evidence {
        config: &config,
        swept: &runs.parameters,
        points,
        probe: runs,
    })
}

/// `finding` (at the study's replications) checked against the same rule at
/// [`SHORT_REPLICATIONS`]: a different verdict makes it undecided, with the replications the
/// deciding interval needs.
fn stable(
    claim: &Claim,
    runs: &DirectRuns<'_>,
    mut finding: Finding,
) -> (Result<Finding, String>, String) {
    let n = runs.replications;
    let needed = needed_words(&finding, n);
    if n <= SHORT_REPLICATIONS {
        let line = format!(
            "not checked: the study ran {n} replications, not more than {SHORT_REPLICATIONS}"
        );
        return (Ok(finding), line);
    }
    let short_runs = DirectRuns {
        scenario: runs.scenario.clone(),
        set: runs.set.clone(),
        parameters: runs.parameters.clone(),
        replications: SHORT_REPLICATIONS,
        stop: runs.stop,
    };
    let short = short_runs
        .grid()
        .and_then(|points| find(claim, &short_runs, &points));
    let short = match short {
        Ok(short) => short,
        Err(why) => {
            return (
                Ok(finding),
                format!("not checked at {SHORT_REPLICATIONS} replications: {why}"),
            );
        }
    };
    let kind = finding.verdict.kind();
    if short.verdict.kind() == kind {
        let line = match &finding.verdict {
            Verdict::Undecided(_) => {
                format!("undecided at {n} and at {SHORT_REPLICATIONS} replications; {needed}")
            }
            _ => format!(
                "the same verdict ({kind}) from the first {SHORT_REPLICATIONS} of the {n} replications; {needed}"
            ),
        };
        return (Ok(finding), line);
    }
    let line = format!(
        "{} at {n} replications but {} at the first {SHORT_REPLICATIONS}; {needed}",
        finding.verdict.words(),
        short.verdict.words()
    );
    finding.verdict = Verdict::Undecided(format!(
        "{kind} at {n} replications, {} at {SHORT_REPLICATIONS}; {needed}",
        short.verdict.kind()
    ));
    (Ok(finding), line)
}

/// The replications the figure nearest its edge needs for its interval to clear it, from the
/// variance at the study's `replications`.
fn needed_words(finding: &Finding, replications: u32) -> String {
    match finding.margin.map(|m| (m, m.replications_needed(replications))) {
        None => "no figure of this claim is judged against an edge".into(),
        Some((_, None)) => "the deciding mean sits on the edge of the claim's range: no number of replications settles it".into(),
        Some((m, Some(needed))) if m.closeness() < 1.0 => format!(
            "the figure nearest the claim's edge clears it from about {needed} replications (from the variance at {replications})"
        ),
        Some((_, Some(needed))) => format!(
            "the figure nearest the claim's edge would need about {needed} replications to clear it (from the variance at {replications})"
        ),
    }
}

/// The chart that shows `claim`'s boundary, in its folder `dir`.
pub fn chart_of(claim: &Claim, dir: &Path) -> PathBuf {
    dir.join(format!("{}.png", claim.chart))
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
