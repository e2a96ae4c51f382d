//! The command line: clap's types are turned into ours here and nowhere else; errors become
//! messages on stderr and exit codes (0 success, 1 error, 2 bad usage).

mod claims;
mod editor;
mod fit;
mod optimize;
mod signals;
mod stdout;
mod sweep;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::app::{self, AppError};
use crate::format::thousands;
use crate::records::ChargePeriod;
use crate::scenario::{self, Override};
use crate::terminal::TerminalProgress;
use signals::Signals;
use stdout::{out, outln};

#[derive(Debug, Parser)]
#[command(
    name = "fleetsim",
    version,
    about = "Monte Carlo simulator for hybrid GPU fleets: compare on-prem, reserved, on-demand and spot strategies by cost, wait and utilisation",
    long_about = None,
    after_help = "Examples:\n  fleetsim run                                  # the built-in hybrid-vs-cloud comparison\n  fleetsim run scenarios/dgx-payback.toml --set pool.dgx.nodes=6\n  fleetsim validate my-fleet.toml\n  fleetsim plot output/hybrid-vs-cloud           # redraw the charts of a result folder\n  fleetsim sweep scenarios/hybrid-vs-cloud.toml --vary pool.dgx.nodes=0..16:2\n  fleetsim optimize my-fleet.toml --vary pool.dgx.nodes=0..16:2 --subject-to 'wait_p95_h <= 2'\n  fleetsim claims                               # the market's rules of thumb, tested"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate every strategy of a scenario and write CSV results and a summary
    Run(RunArgs),
    /// Check a scenario file and report every problem, without simulating
    Validate(ValidateArgs),
    /// Draw the charts (PNG and SVG) of a result folder again from its CSV files and run.json,
    /// or of a sweep folder from its sweep.json and sweep.csv
    Plot(PlotArgs),
    /// Run a scenario at many points of its parameters (a grid or a sample), optionally one
    /// shard of them, and write each point's results plus sweep.csv
    Sweep(sweep::SweepArgs),
    /// Combine the folders of a sharded sweep (or run) into the files the unsharded one writes
    Merge(sweep::MergeArgs),
    /// Find the cheapest candidate (values of the varied parameters, per strategy) that meets
    /// the constraints, spending replications where the decision is; writes optimize.csv,
    /// recommendation.json, the chosen candidate's run folder and a chart
    Optimize(optimize::OptimizeArgs),
    /// Fit parametric workloads (rates, daily and weekly profiles, growth, GPU mix, empirical
    /// durations) to a job trace and write them as [[workload]] tables; goodness of fit on
    /// stderr
    Fit(fit::FitArgs),
    /// Write report.html of a result folder (or a sweep folder): the question, the tables,
    /// every chart with a reading of it, the warnings and how the results were made, in one
    /// self-contained file
    Report(ReportArgs),
    /// Print the JSON Schema of the scenario file (for editors: Even Better TOML, taplo)
    Schema,
    /// Write a commented starter scenario (and the schema beside it, for editors)
    Init(editor::InitArgs),
    /// Put the market's rules of thumb to the test: run the ten claims' scenarios
    /// (scenarios/claims/) and write docs/claims.md with a verdict, a figure and a boundary
    /// for each
    Claims(claims::ClaimsArgs),
    /// Print a completion script for a shell
    Completions(editor::CompletionsArgs),
    /// Print the man page (roff), or write one page per command to a folder
    Man(editor::ManArgs),
}

#[derive(Debug, clap::Args)]
struct ReportArgs {
    /// Result folder written by `fleetsim run` (or a sweep folder, with its sweep.json)
    dir: PathBuf,
    /// Do not say what was written
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, clap::Args)]
struct ScenarioArgs {
    /// Override a scenario field by path, e.g. pool.dgx.nodes=6 or
    /// strategy.hybrid.burst_after_wait_h=2 (repeatable)
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = parse_override)]
    set: Vec<Override>,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Scenario file (TOML); without one, the built-in hybrid-vs-cloud scenario runs
    scenario: Option<PathBuf>,
    /// Folder for the results [default: output/<scenario name>]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replications per strategy, 1 to 1000000 (overrides the scenario's `replications`)
    #[arg(long, value_name = "N", value_parser = parse_replications, allow_negative_numbers = true)]
    replications: Option<u32>,
    /// Seed of all random streams, 0 to 18446744073709551615 (overrides the scenario's `seed`)
    #[arg(long, value_name = "N", value_parser = parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    #[command(flatten)]
    scenario_args: ScenarioArgs,
    /// Worker threads, 1 to 1024 [default: all cores]; results are identical for any value
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<u16>,
    /// Also write jobs.csv: every job of replication 0 under every strategy
    #[arg(long)]
    trace: bool,
    #[command(flatten)]
    focus: FocusArgs,
    /// Simulate only shard K of N, K counting from 1 (1/4 ... 4/4): a contiguous share of the
    /// replications, written as the shard's units for `fleetsim merge`, which writes the
    /// unsharded run's files from all N shards' folders (shards of one run, split one way,
    /// may share a folder; 1/1 is a shard too)
    #[arg(long, value_name = "K/N", value_parser = crate::sweep::Shard::parse)]
    shard: Option<crate::sweep::Shard>,
    /// Overwrite an output folder that holds another scenario's results
    #[arg(long)]
    force: bool,
    /// Write only the CSV files and run.json, no charts (draw them later with `fleetsim plot`)
    #[arg(long)]
    no_charts: bool,
    /// No progress bar and no summary table (files are still written)
    #[arg(long, short)]
    quiet: bool,
}

/// `--focus` and `--focus-period`, for `run` and `sweep`.
#[derive(Debug, Clone, Copy, clap::Args)]
struct FocusArgs {
    /// Also write focus.csv: the simulated bill of each strategy's median replication (by
    /// total cost) in FOCUS 1.2, the FinOps Foundation's billing schema (see docs/finops.md)
    #[arg(long)]
    focus: bool,
    /// Charge period of focus.csv's rows: a UTC day, or a calendar month for a smaller file
    /// (implies --focus) [default: day]
    #[arg(long, value_name = "PERIOD", value_enum)]
    focus_period: Option<FocusPeriod>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
enum FocusPeriod {
    Day,
    Month,
}

impl FocusArgs {
    /// The charge period of the export, if one is asked for.
    fn period(self) -> Option<ChargePeriod> {
        match (self.focus, self.focus_period) {
            (_, Some(FocusPeriod::Month)) => Some(ChargePeriod::Month),
            (_, Some(FocusPeriod::Day)) | (true, None) => Some(ChargePeriod::Day),
            (false, None) => None,
        }
    }
}

#[derive(Debug, clap::Args)]
struct PlotArgs {
    /// Result folder written by `fleetsim run`, or sweep folder written by `fleetsim sweep` or
    /// `fleetsim merge` (it has a sweep.json); copied folders work too
    dir: PathBuf,
    /// Do not list the files written
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, clap::Args)]
struct ValidateArgs {
    /// Scenario file (TOML)
    scenario: PathBuf,
    #[command(flatten)]
    scenario_args: ScenarioArgs,
}

fn parse_override(text: &str) -> Result<Override, String> {
    Override::parse(text)
}

/// A whole number in `min..=max`, with a message that says what is accepted.
fn parse_whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let accepted = format!("expected a whole number from {min} to {max}");
    match text.trim().parse::<i128>() {
        Ok(n) if n >= i128::from(min) && n <= i128::from(max) => Ok(n as u64),
        Ok(_) => Err(format!("out of range: {accepted}")),
        Err(_) => Err(format!("not a whole number: {accepted}")),
    }
}

fn parse_replications(text: &str) -> Result<u32, String> {
    parse_whole(text, 1, u64::from(scenario::REPLICATIONS_MAX)).map(|n| n as u32)
}

fn parse_threads(text: &str) -> Result<u16, String> {
    parse_whole(text, 1, 1024).map(|n| n as u16)
}

/// Any u64 (a seed above `i64::MAX` goes into the scenario as a string, as a file writes it).
fn parse_seed(text: &str) -> Result<u64, String> {
    parse_whole(text, 0, u64::MAX)
}

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT); SIGTERM gives 143, SIGHUP 129.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Runs the command line and maps errors to exit codes.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    // Paths need not be UTF-8 (clap takes them as `OsString`); run.json records them lossily.
    let command_line: Vec<String> = std::env::args_os()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let signals = Signals::install();
    let result = match cli.command {
        Command::Run(args) => run(args, command_line, &signals),
        Command::Validate(args) => validate(args),
        Command::Plot(args) => plot(&args, command_line, &signals),
        Command::Sweep(args) => sweep::sweep(args, command_line, &signals),
        Command::Merge(args) => sweep::merge(args, command_line, &signals),
        Command::Optimize(args) => optimize::optimize(args, command_line, &signals),
        Command::Fit(args) => fit::fit_command(args, &signals),
        Command::Report(args) => report(&args, command_line, &signals),
        Command::Schema => editor::schema_command(),
        Command::Init(args) => editor::init(&args, &signals),
        Command::Claims(args) => claims::claims(args, command_line, &signals),
        Command::Completions(args) => editor::completions(&args),
        Command::Man(args) => editor::man(&args, &signals),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`| head -1`): it had what it wanted.
        Err(error) if stdout::closed(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", printable(&message(&error, &signals)));
            // Whatever failed once a signal asked to stop, the signal is why.
            let interrupted = matches!(
                error.downcast_ref::<AppError>(),
                Some(AppError::Interrupted { .. })
            );
            if signals.stopped() || interrupted {
                ExitCode::from(signals.exit_code())
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// What the user reads of an error: the whole chain; a stop says which signal (and when).
fn message(error: &anyhow::Error, signals: &Signals) -> String {
    match error.downcast_ref::<AppError>() {
        Some(AppError::Interrupted { after_s, left }) => {
            let after = after_s.map_or_else(String::new, |s| format!(" after {s:.1} s"));
            format!("interrupted: stopped by {}{after}; {left}", signals.name())
        }
        // Files were written, then a later step stopped: the stop is why.
        Some(AppError::Unfinished { .. }) => format!("{}{error:#}", signals.why()),
        _ => format!("{error:#}"),
    }
}

/// A message as the terminal may show it: control characters other than line breaks and tabs
/// (ESC, BEL, carriage return: a file name or a line of a file can hold them) escaped.
fn printable(message: &str) -> std::borrow::Cow<'_, str> {
    if !message
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return message.into();
    }
    message
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_debug().to_string(),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// Prints the warnings of a scenario on stderr.
fn print_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {}", printable(warning));
    }
}

/// A scenario file read, or (None) the built-in default; and how run.json names it.
fn source(scenario: Option<&Path>) -> Result<(scenario::Source, String)> {
    Ok(match scenario {
        Some(path) => (scenario::Source::read(path)?, path.display().to_string()),
        None => (
            scenario::Source::built_in(),
            "built-in hybrid-vs-cloud".into(),
        ),
    })
}

fn validate(args: ValidateArgs) -> Result<()> {
    // Read once: a fifo or a process substitution cannot be read again for the [sweep] table.
    let source = scenario::Source::read(&args.scenario)?;
    let checked = app::validate::validate(&source, &args.scenario_args.set)?;
    print_warnings(&checked.warnings);
    let shown = args.scenario.display();
    outln!("{shown}: valid: {}", checked.description)?;
    for trace in &checked.traces {
        outln!("  {trace}")?;
    }
    if let Some(sweep) = &checked.sweep {
        outln!("{shown}: {sweep}")?;
    }
    Ok(())
}

fn run(args: RunArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let (source, source_name) = source(args.scenario.as_deref())?;
    let request = app::run::RunRequest {
        source,
        source_name,
        set: scenario::run_overrides(&args.scenario_args.set, args.replications, args.seed),
        to: app::run::RunTo::Folder {
            dir: args.out.clone(),
            force: args.force,
            charts: !args.no_charts,
        },
        trace: args.trace,
        focus: args.focus.period(),
        warn: true,
        command_line,
    };
    let session = Session::start(args.threads, signals, "", args.quiet)?;
    if let Some(shard) = args.shard {
        let done = app::run::run_shard(&request, shard, &session.context())?;
        if !args.quiet {
            let info = &done.info;
            eprintln!(
                "wrote shard {} of the run (replications {}..{} of {}) to {} ({:.1} s); when all {} shards are done: fleetsim merge SHARD-FOLDERS... --out DIR",
                shard.label(),
                info.replications_from,
                info.replications_to,
                info.replications,
                done.dir.display(),
                info.wall_time_s,
                shard.count
            );
        }
        return Ok(());
    }
    let outcome = app::run::run(&request, &session.context())?;
    if !args.quiet {
        show_run(&outcome)?;
    }
    Ok(())
}

/// The summary table on stdout; what was written, and where, on stderr.
fn show_run(outcome: &app::run::RunOutcome) -> Result<(), stdout::StdoutError> {
    {
        out!(
            "{}",
            crate::terminal::summary_table(&outcome.config, &outcome.output.aggregates)
        )?;
        if let app::run::Written::Folder { dir, files, drawn } = &outcome.written {
            let names: Vec<String> = files
                .iter()
                .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            let charts = match drawn.charts.len() {
                0 => String::new(),
                n => format!(
                    ", {n} chart files (PNG, SVG) and {}",
                    crate::report::FILE_NAME
                ),
            };
            eprintln!(
                "wrote {}{charts} to {} ({:.1} s, {} events)",
                names.join(", "),
                dir.display(),
                outcome.wall_time_s,
                thousands(outcome.output.events as f64, 0)
            );
        }
    }
    Ok(())
}

fn plot(args: &PlotArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let session = Session::start(None, signals, "", true)?;
    let files = app::plot::plot(&args.dir, &command_line, &session.context())?;
    if !args.quiet {
        eprintln!(
            "wrote {} chart files (PNG, SVG) to {}",
            files.len(),
            args.dir.display()
        );
    }
    Ok(())
}

fn report(args: &ReportArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let session = Session::start(None, signals, "", true)?;
    let path = app::plot::report(&args.dir, &command_line, &session.context())?;
    if !args.quiet {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// What a command hands the operation it calls: worker threads, the stop flag its signals
/// set, a progress bar on stderr, and how warnings and notes are shown.
struct Session<'s> {
    pool: rayon::ThreadPool,
    signals: &'s Signals,
    progress: TerminalProgress,
    begin_work: Box<dyn Fn() + Sync + 's>,
    warn: Box<dyn Fn(&str) + Sync>,
    note: Box<dyn Fn(&str) + Sync>,
}

impl<'s> Session<'s> {
    /// Starts `threads` workers (all cores when None), stopped by `signals` (see
    /// [`signals`]: the first signal sets the stop flag, a second one exits at once); a bar
    /// of `unit` steps, and notes, unless `quiet`.
    fn start(
        threads: Option<u16>,
        signals: &'s Signals,
        unit: &'static str,
        quiet: bool,
    ) -> Result<Self> {
        let threads = match threads {
            Some(n) => usize::from(n),
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("cannot start worker threads")?;
        Ok(Session {
            pool,
            signals,
            progress: TerminalProgress::new(unit, quiet),
            begin_work: Box::new(move || signals.begin_work()),
            warn: Box::new(|warning| eprintln!("warning: {}", printable(warning))),
            note: match quiet {
                true => Box::new(|_| {}),
                false => Box::new(|note| eprintln!("{}", printable(note))),
            },
        })
    }

    fn context(&self) -> app::Context<'_> {
        app::Context {
            pool: &self.pool,
            stop: &self.signals.stop,
            progress: &self.progress,
            begin_work: &*self.begin_work,
            warn: &*self.warn,
            note: &*self.note,
        }
    }
}
