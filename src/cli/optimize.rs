//! `fleetsim optimize`: its flags, the folder, and what the terminal shows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

use super::{FocusArgs, Interrupted, RunArgs, ScenarioArgs, Signals, Workers};
use crate::optimize::{self, OptimizeError, Progress, Search, result};
use crate::output::{self, LockMode};
use crate::scenario::{Override, run_overrides};
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
    let prepared = optimize::prepare(&request)?;
    super::print_warnings(&prepared.warnings);
    let out = args.out.clone().unwrap_or_else(|| {
        Path::new("output").join(format!("{}-optimize", prepared.info.scenario_name))
    });
    let workers = Workers::start(args.threads, signals)?;
    signals.begin_work();
    let lock = output::lock_dir(&out, LockMode::Exclusive, &command_line.join(" "))?;
    // Held to the last file: the answer, the best candidate's folder and the chart.
    let result = search_and_write(&args, &prepared, &out, &workers, signals).and_then(|found| {
        finish(
            &args,
            &prepared,
            &found.0,
            &out,
            command_line,
            &workers,
            signals,
        )?;
        Ok(found)
    });
    lock.release();
    let (outcome, recommendation) = result?;
    if !args.quiet {
        print!("{}", result::memo(&prepared, &outcome, &recommendation));
        eprintln!(
            "wrote {} to {}",
            written(&outcome, args.no_charts),
            out.display()
        );
    }
    Ok(())
}

/// The best candidate's run folder and the chart, once the answer is written.
fn finish(
    args: &OptimizeArgs,
    prepared: &optimize::Prepared,
    outcome: &optimize::Outcome,
    out: &Path,
    command_line: Vec<String>,
    workers: &Workers,
    signals: &Signals,
) -> Result<()> {
    if let Some(best) = outcome.best {
        write_best(args, prepared, outcome, best, out, command_line, signals)?;
    }
    if !args.no_charts {
        workers
            .pool
            .install(|| output::charts::optimize::draw_all_until(out, &workers.stop))
            .with_context(|| {
                format!(
                    "{}the results are written but the chart is not; try `fleetsim plot {}`",
                    signals.why(),
                    out.display()
                )
            })?;
    }
    Ok(())
}

fn written(outcome: &optimize::Outcome, no_charts: bool) -> String {
    let mut files = vec![
        output::optimize::TABLE_FILE,
        output::optimize::RECOMMENDATION_FILE,
        output::optimize::INFO_FILE,
        output::optimize::JOURNAL_FILE,
    ];
    if outcome.best.is_some() {
        files.push("best/ (the chosen candidate's run)");
    }
    if !no_charts {
        files.push("the optimize chart (PNG, SVG)");
    }
    files.join(", ")
}

/// The search, with the journal that makes it resumable, then its answer's files.
fn search_and_write(
    args: &OptimizeArgs,
    prepared: &optimize::Prepared,
    out: &Path,
    workers: &Workers,
    signals: &Signals,
) -> Result<(optimize::Outcome, crate::records::Recommendation)> {
    let metrics: Vec<String> = prepared.metrics().iter().map(|m| m.text.clone()).collect();
    let (journal, earlier) =
        output::optimize::open(out, &prepared.info, &metrics, args.resume, args.force)?;
    if earlier.damaged > 0 {
        eprintln!(
            "warning: {}: {} damaged line(s) are left out and simulated again",
            out.join(output::optimize::JOURNAL_FILE).display(),
            earlier.damaged
        );
    }
    let all: Mutex<HashMap<String, Vec<f64>>> = Mutex::new(earlier.evaluations.clone());
    let bar = output::progress_bar(0, "optimizing", args.quiet);
    let record = |key: &str, values: &[f64]| {
        journal.record(key, values)?;
        all.lock()
            .expect("not poisoned")
            .insert(key.to_string(), values.to_vec());
        Ok(())
    };
    let progress = |p: Progress| match p {
        Progress::Stage { units, .. } => bar.inc_length(units),
        Progress::Unit => bar.inc(1),
    };
    let hooks = optimize::Hooks {
        stop: &workers.stop,
        cached: &earlier.evaluations,
        record: &record,
        progress: &progress,
    };
    let outcome = workers.pool.install(|| prepared.run(&hooks));
    bar.finish_and_clear();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(OptimizeError::Interrupted { .. }) => {
            let saved = all.lock().expect("not poisoned").len();
            return Err(Interrupted(format!(
                "stopped by {}; {saved} replications are saved in {}; run the same command with --resume to go on",
                signals.name(),
                out.join(output::optimize::JOURNAL_FILE).display()
            ))
            .into());
        }
        Err(error) => return Err(error.into()),
    };
    let recommendation = result::recommendation(prepared, &outcome);
    let (header, rows) = result::table(prepared, &outcome);
    let evaluations = all.into_inner().expect("not poisoned");
    output::optimize::write_answer(out, &header, &rows, &recommendation, &journal, &evaluations)?;
    Ok((outcome, recommendation))
}

/// The chosen candidate's full run folder, `best/`, as `fleetsim run` writes it (its
/// replications are those the candidate was judged on, so its summary repeats them).
fn write_best(
    args: &OptimizeArgs,
    prepared: &optimize::Prepared,
    outcome: &optimize::Outcome,
    best: usize,
    out: &Path,
    command_line: Vec<String>,
    signals: &Signals,
) -> Result<()> {
    let candidate = &outcome.candidates[best];
    let mut set: Vec<Override> = args.scenario_args.set.clone();
    set.extend(
        prepared
            .space
            .assignments(&candidate.point)
            .into_iter()
            .map(|(path, value)| Override::new(&path, value)),
    );
    let run_args = RunArgs {
        scenario: Some(args.scenario.clone()),
        out: Some(out.join(output::optimize::BEST_DIR)),
        replications: Some(candidate.rows.len() as u32),
        seed: args.seed,
        scenario_args: ScenarioArgs { set },
        threads: args.threads,
        trace: false,
        focus: FocusArgs {
            focus: false,
            focus_period: None,
        },
        force: true,
        no_charts: args.no_charts,
        quiet: true,
        hide_warnings: true,
    };
    super::run(run_args, command_line, signals).with_context(|| {
        format!(
            "optimize.csv and recommendation.json are written, but not the chosen candidate's run folder {}",
            out.join(output::optimize::BEST_DIR).display()
        )
    })
}
