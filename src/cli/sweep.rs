//! `fleetsim sweep` and `fleetsim merge`: their flags, and what the terminal shows.

use std::path::PathBuf;

use anyhow::Result;

use super::stdout::{out, outln};
use super::{ScenarioArgs, Session, Signals};
use crate::app;
use crate::format::thousands;
use crate::scenario::{self, run_overrides};
use crate::sweep::{self, Sampling, Shard, Vary};

/// Warnings shown before a sweep runs; the rest are counted.
const WARNINGS_SHOWN: usize = 10;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim sweep scenarios/hybrid-vs-cloud.toml --vary pool.dgx.nodes=0..16:2\n  fleetsim sweep s.toml --vary pool.dgx.nodes=0,2,4,8 --vary horizon_months=12,24,36\n  fleetsim sweep s.toml --vary pool.aws-p5-spot.preemption.mean_h=1..1000:log --sample lhs:20\n  fleetsim sweep s.toml --vary pool.dgx.nodes=0..16:2 --shard 2/4 --out sweep/shard-2\n  fleetsim merge sweep/shard-* --out sweep/all"
)]
pub(super) struct SweepArgs {
    /// Scenario file (TOML); without --vary, its [sweep] table says what to vary
    scenario: PathBuf,
    /// A field path (as for --set) and its values: a list `0,2,4`, a range `START..END:STEP`
    /// (`0..16:2`, END included), N points `START..END:lin:N` or `START..END:log:N`, or for
    /// --sample an interval `START..END` or `START..END:log`. Several --vary form a grid, the
    /// first varying slowest (repeatable)
    #[arg(long, value_name = "PATH=SPEC", value_parser = Vary::parse)]
    vary: Vec<Vary>,
    /// Sample the parameters instead of a full grid: `random:N`, or `lhs:N` (Latin hypercube:
    /// each parameter's range cut into N strata with one point in each); seeded by the
    /// scenario's seed, or `:SEED` (`lhs:20:7`) [default: grid]
    #[arg(long, value_name = "METHOD", value_parser = Sampling::parse)]
    sample: Option<Sampling>,
    #[command(flatten)]
    scenario_args: ScenarioArgs,
    /// Replications per strategy at every point (overrides the scenario's `replications`)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    replications: Option<u32>,
    /// Seed of all random streams, 0 to 18446744073709551615 (overrides the scenario's
    /// `seed`); every point uses it
    #[arg(long, value_name = "N", value_parser = super::parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Run only shard K of N, K counting from 1 (1/4 ... 4/4): a share of the points balanced
    /// by estimated cost. Combine the shards' folders with `fleetsim merge`
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Skip the points already done in the output folder (after an interruption)
    #[arg(long)]
    resume: bool,
    /// Folder for the results [default: output/<scenario name>-sweep]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads [default: all cores]; results are identical for any value
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Replace another sweep's results in the output folder
    #[arg(long)]
    force: bool,
    /// Write no sweep charts (draw them later with `fleetsim plot DIR`); a shard draws none
    #[arg(long)]
    no_charts: bool,
    /// No progress bar and no summary (files are still written)
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    focus: super::FocusArgs,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim merge sweep/shard-1 sweep/shard-2 sweep/shard-3 --out sweep/all\n  fleetsim merge run/shard-* --out run/all      # the shards of `fleetsim run --shard K/N`"
)]
pub(super) struct MergeArgs {
    /// Folders of the shards (the --out of each `fleetsim sweep --shard K/N` or `fleetsim run
    /// --shard K/N`); shards may share a folder
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Folder for the merged sweep or run: the files the unsharded one would have written
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace another sweep's results in the output folder
    #[arg(long)]
    force: bool,
    /// Write no charts (draw them later with `fleetsim plot DIR`)
    #[arg(long)]
    no_charts: bool,
    /// No summary (files are still written)
    #[arg(long, short)]
    quiet: bool,
}

pub(super) fn sweep(args: SweepArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let request = sweep::Request {
        scenario: args.scenario.clone(),
        vary: args.vary.clone(),
        sampling: args.sample,
        set: run_overrides(&args.scenario_args.set, args.replications, args.seed),
        focus: args.focus.period(),
    };
    let source = scenario::Source::read(&args.scenario)?;
    let plan = app::sweep::plan(&request, &source)?;
    for warning in plan.warnings.iter().take(WARNINGS_SHOWN) {
        super::print_warnings(std::slice::from_ref(warning));
    }
    if plan.warnings.len() > WARNINGS_SHOWN {
        eprintln!(
            "warning: ... and {} more warnings",
            plan.warnings.len() - WARNINGS_SHOWN
        );
    }
    let run = app::sweep::SweepRun {
        out: args.out.clone(),
        shard: args.shard,
        resume: args.resume,
        force: args.force,
        charts: !args.no_charts,
        command_line,
    };
    let session = Session::start(args.threads, signals, "replications", args.quiet)?;
    let swept = app::sweep::sweep(&plan, &run, &session.context())?;
    if !args.quiet {
        report(&swept)?;
    }
    Ok(())
}

pub(super) fn merge(args: MergeArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let request = app::sweep::MergeRequest {
        inputs: args.dirs.clone(),
        out: args.out.clone(),
        force: args.force,
        charts: !args.no_charts,
        command_line,
    };
    let session = Session::start(None, signals, "", args.quiet)?;
    let merged = app::merge::merge(&request, &session.context())?;
    if !args.quiet {
        match &merged {
            app::merge::Merged::Sweep(swept) => report(swept)?,
            app::merge::Merged::Run(run) => super::show_run(run)?,
        }
    }
    Ok(())
}

/// The best points on stdout; what was done and where on stderr.
fn report(swept: &app::sweep::SweepOutcome) -> Result<(), super::stdout::StdoutError> {
    let (info, outcome, out) = (&swept.info, &swept.outcome, &swept.out);
    let charts = swept.drawn.charts.len();
    let parameters: Vec<String> = info.parameters.iter().map(|p| p.path.clone()).collect();
    let run = &outcome.invocation;
    let charts = match charts {
        0 => String::new(),
        n => format!(", {n} chart files (PNG, SVG), {}", crate::report::FILE_NAME),
    };
    let what = match &outcome.shard {
        Some(shard) => format!(
            "shard {} of the sweep: {} of its {} points",
            shard.label(),
            outcome.summaries.len(),
            info.points.len()
        ),
        None => format!("{} points", info.points.len()),
    };
    outln!(
        "{} over {what}, {} replications each (mean over replications; sweep.csv has every point, strategy and metric)",
        info.scenario_name,
        info.replications
    )?;
    let relevant = sweep::plan::relevance(info);
    out!(
        "{}",
        crate::terminal::best_points(
            &info.currency,
            &info.strategies,
            &parameters,
            &relevant,
            &outcome.summaries
        )
    )?;
    match run.command.as_str() {
        "merge" => eprintln!(
            "merged {} folder(s) into {}{charts} ({:.1} s)",
            run.merged.len(),
            out.display(),
            run.wall_time_s
        ),
        _ => {
            let resumed = run.points_selected - run.points_simulated;
            let resumed = if resumed > 0 {
                format!(", {resumed} done before")
            } else {
                String::new()
            };
            eprintln!(
                "simulated {} points{resumed} in {:.1} s ({} replications/s, {} events/s); results in {}{charts}",
                run.points_simulated,
                run.wall_time_s,
                thousands(run.replications_per_s, 1),
                thousands(run.events_per_s, 0),
                out.display()
            );
            if let Some(shard) = &outcome.shard {
                eprintln!(
                    "when all {} shards are done: fleetsim merge SHARD-FOLDERS... --out DIR",
                    shard.count
                );
            }
        }
    }
    Ok(())
}
