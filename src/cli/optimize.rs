//! `fleetsim optimize`: its flags, the folder, and what the terminal shows.

use std::path::PathBuf;

use anyhow::Result;

use super::stdout::out;
use super::{ScenarioArgs, Session, Signals};
use crate::app;
use crate::files;
use crate::optimize::{self, Search, result};
use crate::scenario::run_overrides;
use crate::sweep::Vary;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim optimize scenarios/hybrid-vs-cloud.toml --strategy hybrid-dgx-spot \\\n      --vary pool.dgx.nodes=0..8:1 --vary strategy.hybrid-dgx-spot.burst_after_wait_h=0,1,2,4 \\\n      --subject-to 'wait_p95_h <= 2'\n  fleetsim optimize s.toml --subject-to 'workload.training.wait_p95_h <= 8' --confidence 0.95\n  fleetsim optimize s.toml --subject-to 'service.chat.unserved_share <= 0.001 +- 0.0005'\n  fleetsim optimize s.toml --resume        # go on after an interruption\n\nWithout --vary, the scenario's [optimize] table says what to search (docs/optimize.md)."
)]
pub(super) struct OptimizeArgs {
    /// Scenario file (TOML); its [optimize] table gives what the flags do not
    scenario: PathBuf,
    /// A field path (as for --set) and the values to search: a list `0,2,4`, a range
    /// `START..END:STEP` or N points `START..END:lin:N` / `START..END:log:N` (repeatable)
    #[arg(long, value_name = "PATH=SPEC", value_parser = Vary::parse)]
    vary: Vec<Vary>,
    /// A strategy whose parameters are optimised (repeatable; several are each optimised,
    /// then compared) [default: every strategy]
    #[arg(long, value_name = "NAME")]
    strategy: Vec<String>,
    /// The metric to minimise: total_cost, total_cost_cash, total_cost_npv or any metric of
    /// summary.csv [default: total_cost]
    #[arg(long, value_name = "METRIC")]
    minimize: Option<String>,
    /// A constraint `METRIC <= LIMIT` or `METRIC >= LIMIT` [+- TOLERANCE] on a metric of
    /// summary.csv, `workload.NAME.METRIC`, `team.NAME.METRIC` or `service.NAME.METRIC`, e.g.
    /// 'wait_p95_h <= 2' or 'jobs_unfinished_share <= 0.01' (repeatable)
    #[arg(long = "subject-to", value_name = "EXPR")]
    subject_to: Vec<String>,
    /// Constraints must hold at the upper bound of this two-sided confidence interval (0.5 to
    /// 0.999), not only in the mean; also the confidence of the selection [default: in the
    /// mean, selection at 0.95]
    #[arg(long, value_name = "LEVEL")]
    confidence: Option<f64>,
    /// At most this many replications in all (each strategy gets an equal share); every
    /// candidate gets its first replications whatever the budget
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    budget: Option<u64>,
    /// How candidates are found: every grid point, coordinate search, or auto (the grid up to
    /// 200 points)
    #[arg(long, value_enum, default_value_t = SearchArg::Auto)]
    search: SearchArg,
    /// Replications of every candidate at the first stage (doubled for those still undecided)
    #[arg(long, value_name = "N", default_value_t = optimize::INITIAL_REPLICATIONS, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    initial_replications: u32,
    /// Replications of one candidate at most
    #[arg(long, value_name = "N", default_value_t = optimize::MAX_REPLICATIONS, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    max_replications: u32,
    /// Differences in the objective below this share of it do not matter (the indifference
    /// zone)
    #[arg(long, value_name = "SHARE", default_value_t = optimize::INDIFFERENCE)]
    indifference: f64,
    /// Extra starts of a coordinate search (Latin hypercube, seeded)
    #[arg(long, value_name = "N", default_value_t = optimize::RESTARTS, value_parser = clap::value_parser!(u32).range(0..=100))]
    restarts: u32,
    #[command(flatten)]
    scenario_args: ScenarioArgs,
    /// Seed of all random streams (overrides the scenario's `seed`)
    #[arg(long, value_name = "N", value_parser = super::parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Folder for the results [default: output/<scenario name>-optimize]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Go on from what an interrupted run of the same question simulated
    #[arg(long)]
    resume: bool,
    /// Replace the optimisation the output folder holds (other files there are left alone)
    #[arg(long)]
    force: bool,
    /// Worker threads [default: all cores]; results are identical for any value
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// No charts (neither the optimisation's nor the best candidate's)
    #[arg(long)]
    no_charts: bool,
    /// No progress bar and no summary (files are still written)
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SearchArg {
    Auto,
    Grid,
    Coordinate,
}

pub(super) fn optimize(
    args: OptimizeArgs,
    command_line: Vec<String>,
    signals: &Signals,
) -> Result<()> {
    if !(args.indifference >= 0.0 && args.indifference < 1.0) {
        anyhow::bail!(
            "--indifference {}: expected a share from 0 to below 1 (0.01 is 1 %)",
            args.indifference
        );
    }
    let request = optimize::Request {
        scenario: args.scenario.clone(),
        vary: args.vary.clone(),
        strategies: args.strategy.clone(),
        minimize: args.minimize.clone(),
        subject_to: args.subject_to.clone(),
        confidence: args.confidence,
        budget: args.budget,
        set: run_overrides(&args.scenario_args.set, None, args.seed),
        search: match args.search {
            SearchArg::Auto => Search::Auto,
            SearchArg::Grid => Search::Grid,
            SearchArg::Coordinate => Search::Coordinate,
        },
        initial_replications: args.initial_replications,
        max_replications: args.max_replications,
        indifference: args.indifference,
        restarts: args.restarts,
    };
    let prepared = app::optimize::prepare(&request)?;
    super::print_warnings(&prepared.warnings);
    let run = app::optimize::OptimizeRun {
        out: args.out.clone(),
        resume: args.resume,
        force: args.force,
        charts: !args.no_charts,
        set: args.scenario_args.set.clone(),
        seed: args.seed,
        source_name: args.scenario.display().to_string(),
        command_line,
    };
    let session = Session::start(args.threads, signals, "", args.quiet)?;
    let found = app::optimize::optimize(&prepared, &run, &session.context())?;
    if !args.quiet {
        out!(
            "{}",
            result::memo(&prepared, &found.outcome, &found.recommendation)
        )?;
        eprintln!(
            "wrote {} to {}",
            written(&found.outcome, args.no_charts),
            found.out.display()
        );
    }
    Ok(())
}

fn written(outcome: &optimize::Outcome, no_charts: bool) -> String {
    let mut files = vec![
        files::optimize::TABLE_FILE,
        files::optimize::RECOMMENDATION_FILE,
        files::optimize::INFO_FILE,
        files::optimize::JOURNAL_FILE,
    ];
    if outcome.best.is_some() {
        files.push("best/ (the chosen candidate's run)");
    }
    if !no_charts {
        files.push("the optimize chart (PNG, SVG)");
    }
    files.join(", ")
}
