//! `fleetsim claims`: runs the claims study (issue 19) and writes its page, `docs/claims.md`,
//! with the chart of each claim beside it.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::{ScenarioArgs, Signals, Workers};
use crate::claims::{self, CLAIMS, Claim, doc, study};
use crate::output;
use crate::scenario::run_overrides;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each claim is a scenario with a [sweep] in scenarios/claims/ and a rule in src/claims/rules/; the page says, per claim, the verdict (holds / holds only when ... / does not hold here / undecided), the figure with its 95 % interval, the boundary the sweep found and the chart that shows it.\n\nExamples:\n  fleetsim claims                               # all ten, 30 replications per point, about a minute on 2 cores\n  fleetsim claims --only 3,5                    # redo claims 3 and 5, reuse the others' folders\n  fleetsim claims --replications 100 --seed 7   # narrower intervals, one seed for all\n  fleetsim claims --replications 2 --doc /tmp/claims.md --out /tmp/claims   # a quick look"
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
    let doc_name = match args.doc.file_name() {
        Some(name) if args.doc.extension().is_some_and(|e| e == "md") => name.to_owned(),
        _ => bail!(
            "--doc {}: expected a Markdown file name ending in .md",
            args.doc.display()
        ),
    };
    let doc_dir = args.doc.parent().unwrap_or(Path::new("")).to_path_buf();
    if !args.scenarios.is_dir() {
        bail!(
            "{}: no such folder of claim scenarios; run from the repository's root, or give --scenarios DIR",
            args.scenarios.display()
        );
    }
    let workers = Workers::start(args.threads, signals)?;
    let options = study::Options {
        scenarios: args.scenarios.clone(),
        out: args.out.clone(),
        set: run_overrides(&args.scenario_args.set, Some(args.replications), args.seed),
        threads: workers.threads,
        command_line,
        quiet: args.quiet,
        notify: |message| eprintln!("warning: {message}"),
    };
    // From here a signal stops the work instead of ending the process.
    signals.begin_work();
    let mut outcomes = Vec::with_capacity(CLAIMS.len());
    for claim in &CLAIMS {
        let redo = args.only.is_empty() || args.only.contains(&claim.number);
        outcomes.push(run_one(claim, &options, redo, &workers, args.quiet)?);
    }
    let charts_dir = doc_dir.join("claims");
    let mut charts = Vec::with_capacity(outcomes.len());
    for outcome in &outcomes {
        study::publish_chart(outcome, &charts_dir)?;
        charts.push(Some(format!("claims/{}.png", outcome.claim.id())));
    }
    let context = doc::Context {
        command: reproduce(&args),
        to_root: doc::to_root(&doc_dir),
        charts,
    };
    let page = doc::markdown(&outcomes, &context);
    if !doc_dir.as_os_str().is_empty() {
        output::create_dir(&doc_dir)?;
    }
    let name = doc_name.to_string_lossy();
    let path = output::write_bytes(&doc_dir, &name, page.as_bytes())?.commit()?;
    if !args.quiet {
        eprintln!(
            "wrote {} and {} charts in {}",
            path.display(),
            outcomes.len(),
            charts_dir.display()
        );
    }
    Ok(())
}

/// Runs (or reads back) one claim, saying on stderr what it does and what it found.
fn run_one(
    claim: &'static Claim,
    options: &study::Options,
    redo: bool,
    workers: &Workers,
    quiet: bool,
) -> Result<study::Outcome> {
    if !quiet {
        let what = if redo { "running" } else { "reading" };
        eprintln!(
            "claim {:>2}/{}: {what} {}",
            claim.number,
            CLAIMS.len(),
            claim.id()
        );
    }
    let outcome = workers
        .pool
        // A stop is told by the exit code (main maps it when the signals say so).
        .install(|| study::run_claim(claim, options, redo, &workers.stop))?;
    if !quiet {
        let verdict = match &outcome.finding {
            Ok(finding) => finding.verdict.words(),
            Err(missing) => claims::Verdict::Undecided(missing.clone()).words(),
        };
        eprintln!(
            "         {verdict} ({} of {} points simulated, results in {})",
            outcome.points_simulated,
            outcome.points,
            outcome.dir.display()
        );
    }
    Ok(outcome)
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
