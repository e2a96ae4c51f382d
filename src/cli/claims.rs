//! `fleetsim claims`: runs the claims study and writes its page, `docs/claims.md`,
//! with the chart of each claim beside it.

use std::path::PathBuf;

use anyhow::Result;

use super::{ScenarioArgs, Session, Signals};
use crate::app;
use crate::claims::CLAIMS;
use crate::scenario::run_overrides;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each claim is a scenario with a [sweep] in scenarios/claims/ and a rule in src/claims/rules/; the page says, per claim, the verdict (holds / holds only when ... / does not hold here / undecided), the figure with its 95 % interval, the boundary (found by direct runs bisecting the swept field), whether the verdict is the same at 10 replications, and the chart that shows it.\n\nExamples:\n  fleetsim claims                               # all ten, 30 replications per point, a few minutes on 2 cores\n  fleetsim claims --only 3,5                    # redo claims 3 and 5, reuse the others' folders\n  fleetsim claims --replications 100 --seed 7   # narrower intervals, one seed for all\n  fleetsim claims --replications 2 --doc /tmp/claims.md --out /tmp/claims   # a quick look"
)]
pub(super) struct ClaimsArgs {
    /// Replications per strategy at every point of every claim's sweep
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = super::parse_replications, allow_negative_numbers = true)]
    replications: u32,
    /// Seed of all random streams of every claim [default: each scenario's own seed]
    #[arg(long, value_name = "N", value_parser = super::parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    #[command(flatten)]
    scenario_args: ScenarioArgs,
    /// Folder for the claims' sweep folders (one per claim, e.g. DIR/01-spot-discount)
    #[arg(long, value_name = "DIR", default_value = "output/claims")]
    out: PathBuf,
    /// Redo only these claims (numbers 1 to 10, comma-separated); the others are read from
    /// their folders under --out, which must hold a run with the same options
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', value_parser = parse_claim)]
    only: Vec<u8>,
    /// The page to write; the charts go into a `claims/` folder beside it
    #[arg(long, value_name = "PATH", default_value = "docs/claims.md")]
    doc: PathBuf,
    /// Overwrite --doc even if it is not a page `fleetsim claims` wrote
    #[arg(long)]
    force: bool,
    /// Folder of the claims' scenarios
    #[arg(long, value_name = "DIR", default_value = "scenarios/claims")]
    scenarios: PathBuf,
    /// Worker threads, 1 to 1024 [default: all cores]; results are identical for any value
    #[arg(long, value_name = "N", value_parser = super::parse_threads, allow_negative_numbers = true)]
    threads: Option<u16>,
    /// No progress bars and no verdicts on stderr (files are still written)
    #[arg(long, short)]
    quiet: bool,
}

fn parse_claim(text: &str) -> Result<u8, String> {
    let max = CLAIMS.len() as u64;
    super::parse_whole(text, 1, max).map(|n| n as u8)
}

pub(super) fn claims(args: ClaimsArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let request = app::claims::ClaimsRequest {
        scenarios: args.scenarios.clone(),
        out: args.out.clone(),
        set: run_overrides(&args.scenario_args.set, Some(args.replications), args.seed),
        only: args.only.clone(),
        doc: args.doc.clone(),
        force: args.force,
        reproduce: reproduce(&args),
        command_line,
    };
    let session = Session::start(args.threads, signals, "replications", args.quiet)?;
    let study = app::claims::claims(&request, &session.context())?;
    if !args.quiet {
        eprintln!(
            "wrote {} and {} charts in {}",
            study.page.display(),
            study.outcomes.len(),
            study.charts_dir.display()
        );
    }
    Ok(())
}

/// The command that gives the same page: the options that change results, as given.
fn reproduce(args: &ClaimsArgs) -> String {
    let mut command = String::from("fleetsim claims");
    if args.replications != 30 {
        command.push_str(&format!(" --replications {}", args.replications));
    }
    if let Some(seed) = args.seed {
        command.push_str(&format!(" --seed {seed}"));
    }
    for set in &args.scenario_args.set {
        command.push_str(&format!(" --set {set}"));
    }
    command
}
