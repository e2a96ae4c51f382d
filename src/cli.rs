//! The command line: clap's types are turned into ours here and nowhere else; errors become
//! messages on stderr and exit codes (0 success, 1 error, 2 bad usage).

mod claims;
mod editor;
mod fit;
mod optimize;
mod signals;
mod sweep;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::format::thousands;
use crate::output::{self, LockMode};
use crate::records::{ChargePeriod, RunInfo};
use crate::runner::{self, RunError};
use crate::scenario::{self, Loaded, Override};
use signals::Signals;

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
    /// Combine the folders of a sharded sweep into the files the unsharded sweep writes
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
    /// Overwrite an output folder that holds another scenario's results
    #[arg(long)]
    force: bool,
    /// Write only the CSV files and run.json, no charts (draw them later with `fleetsim plot`)
    #[arg(long)]
    no_charts: bool,
    /// No progress bar and no summary table (files are still written)
    #[arg(long, short)]
    quiet: bool,
    /// The scenario's warnings were shown already (the best candidate of `optimize`).
    #[arg(skip)]
    hide_warnings: bool,
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

/// A FOCUS export needs an ISO 4217 currency and a file of a sensible size.
fn check_focus(config: &scenario::Config, period: ChargePeriod) -> Result<()> {
    if !output::focus::is_iso_currency(&config.currency) {
        bail!(
            "--focus needs the scenario's currency as an ISO 4217 code (three capital letters such as EUR or USD), got `{}`; set currency = \"EUR\" in the scenario, or --set currency=EUR",
            config.currency
        );
    }
    let rows = output::focus::rows_estimate(config, period);
    if rows > output::focus::ROWS_MAX {
        let hint = match period {
            ChargePeriod::Day => "use --focus-period month, or shorten horizon_months",
            ChargePeriod::Month => "shorten horizon_months or export fewer strategies",
        };
        bail!(
            "--focus would write about {:.1e} rows of focus.csv (charge period: {}), more than {:.0e}; {hint}",
            rows,
            period.as_str(),
            output::focus::ROWS_MAX
        );
    }
    Ok(())
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

/// The run was stopped by a signal: exit code 128 + its number, as shells report it.
#[derive(Debug, thiserror::Error)]
#[error("interrupted: {0}")]
pub struct Interrupted(String);

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
        Command::Plot(args) => plot(&args, &signals),
        Command::Sweep(args) => sweep::sweep(args, command_line, &signals),
        Command::Merge(args) => sweep::merge(args, command_line, &signals),
        Command::Optimize(args) => optimize::optimize(args, command_line, &signals),
        Command::Fit(args) => fit::fit_command(args, &signals),
        Command::Report(args) => report(&args, &signals),
        Command::Schema => editor::schema_command(),
        Command::Init(args) => editor::init(&args, &signals),
        Command::Claims(args) => claims::claims(args, command_line, &signals),
        Command::Completions(args) => editor::completions(&args),
        Command::Man(args) => editor::man(&args, &signals),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", printable(&format!("{error:#}")));
            // Whatever failed once a signal asked to stop, the signal is why.
            if signals.stopped() || error.downcast_ref::<Interrupted>().is_some() {
                ExitCode::from(signals.exit_code())
            } else {
                ExitCode::from(1)
            }
        }
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

fn load(scenario: Option<&Path>, overrides: &[Override]) -> Result<Loaded> {
    let loaded = match scenario {
        Some(path) => scenario::load(path, overrides)?,
        None => scenario::load_default(overrides)?,
    };
    Ok(loaded)
}

fn validate(args: ValidateArgs) -> Result<()> {
    // Read once: a fifo or a process substitution cannot be read again for the [sweep] table.
    let source = scenario::Source::read(&args.scenario)?;
    let loaded = source.load(&args.scenario_args.set)?;
    print_warnings(&loaded.warnings);
    let config = &loaded.config;
    println!(
        "{}: valid: {}",
        args.scenario.display(),
        scenario::describe(config)
    );
    for workload in &config.workloads {
        if let Some(replay) = &workload.trace {
            println!("  workload `{}`: {}", workload.name, replay.describe());
        }
    }
    // Only a file with a [sweep] table has one to describe (planning loads the file again,
    // traces included).
    let has_sweep = loaded
        .resolved
        .sweep
        .as_ref()
        .is_some_and(|s| !s.vary.is_empty());
    if has_sweep
        && let Some(sweep) =
            crate::sweep::plan::describe(&args.scenario, &args.scenario_args.set, &source, loaded)?
    {
        println!("{}: {sweep}", args.scenario.display());
    }
    Ok(())
}

fn plot(args: &PlotArgs, signals: &Signals) -> Result<()> {
    signals.begin_work();
    let files = if args.dir.join("sweep.json").is_file() {
        output::charts::sweep::draw_all_until(&args.dir, &signals.stop)?
    } else if args
        .dir
        .join(output::optimize::RECOMMENDATION_FILE)
        .is_file()
    {
        output::charts::optimize::draw_all_until(&args.dir, &signals.stop)?
    } else {
        output::charts::draw_all_until(&args.dir, &signals.stop)?
    };
    if !args.quiet {
        eprintln!(
            "wrote {} chart files (PNG, SVG) to {}",
            files.len(),
            args.dir.display()
        );
    }
    Ok(())
}

fn report(args: &ReportArgs, signals: &Signals) -> Result<()> {
    signals.begin_work();
    let path = output::report::write(&args.dir, &signals.stop)?;
    if !args.quiet {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The worker threads of `run` and `sweep`, and the flag a signal sets to stop them.
struct Workers {
    pool: rayon::ThreadPool,
    /// `--threads`, or all cores.
    threads: usize,
    stop: Arc<AtomicBool>,
}

impl Workers {
    /// Starts `threads` workers (all cores when None), stopped by `signals` (see
    /// [`signals`]: the first signal sets `stop`, a second one exits at once).
    fn start(threads: Option<u16>, signals: &Signals) -> Result<Self> {
        let threads = match threads {
            Some(n) => usize::from(n),
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("cannot start worker threads")?;
        Ok(Workers {
            pool,
            threads,
            stop: Arc::clone(&signals.stop),
        })
    }
}

fn run(args: RunArgs, command_line: Vec<String>, signals: &Signals) -> Result<()> {
    let overrides = scenario::run_overrides(&args.scenario_args.set, args.replications, args.seed);
    let loaded = load(args.scenario.as_deref(), &overrides)?;
    if !args.hide_warnings {
        print_warnings(&loaded.warnings);
    }
    let config = &loaded.config;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("output").join(&config.name));
    if args.trace {
        runner::check_trace(config).map_err(anyhow::Error::msg)?;
    }
    if let Some(period) = args.focus.period() {
        check_focus(config, period)?;
    }
    let scenario =
        serde_json::to_value(&loaded.resolved).context("cannot describe the scenario")?;
    // Held to the last chart; a failed or interrupted run leaves no folder behind that it
    // created itself (dropping the lock removes it when empty).
    // From here a signal stops the work instead of ending the process.
    signals.begin_work();
    let lock = output::lock_dir(&out, LockMode::Exclusive, &command_line.join(" "))?;
    let previous = output::prepare_dir(&out, &config.name, &scenario, args.force)?;
    let run = Run {
        args: &args,
        loaded: &loaded,
        out: &out,
        signals,
    };
    let result = run.simulate_and_write(scenario, &previous, command_line);
    lock.release();
    result
}

/// What a `run` works with once its folder is taken.
struct Run<'a> {
    args: &'a RunArgs,
    loaded: &'a Loaded,
    out: &'a Path,
    signals: &'a Signals,
}

impl Run<'_> {
    fn simulate_and_write(
        &self,
        scenario: serde_json::Value,
        previous: &[String],
        command_line: Vec<String>,
    ) -> Result<()> {
        let Run {
            args,
            loaded,
            out,
            signals,
        } = *self;
        let config = &loaded.config;

        let workers = Workers::start(args.threads, signals)?;
        let stop = &workers.stop;
        let units = runner::units(config).len() as u64;
        let bar = output::progress_bar(units, &format!("simulating {}", config.name), args.quiet);
        let started = Instant::now();
        let result = workers.pool.install(|| {
            let mut run_output = runner::run(config, args.trace, &|| bar.inc(1), stop)?;
            if let Some(period) = args.focus.period() {
                // One unit per strategy again, with charges by period.
                runner::add_focus(config, &mut run_output, period, stop)?;
            }
            Ok(run_output)
        });
        bar.finish_and_clear();
        let run_output = match result {
            Ok(run_output) => run_output,
            Err(RunError::Cancelled) => {
                return Err(Interrupted(format!(
                    "stopped by {} after {:.1} s; no result was written to {}",
                    signals.name(),
                    started.elapsed().as_secs_f64(),
                    out.display()
                ))
                .into());
            }
            Err(error) => return Err(error.into()),
        };
        let wall_time_s = started.elapsed().as_secs_f64();
        if signals.stopped() {
            return Err(Interrupted(format!(
                "stopped by {}; no result was written to {}",
                signals.name(),
                out.display()
            ))
            .into());
        }

        let mut warnings = loaded.warnings.clone();
        let skip_charts = match output::charts::skipped(config.strategies.len()) {
            Some(note) if !args.no_charts => {
                print_warnings(std::slice::from_ref(&note));
                warnings.push(note);
                true
            }
            _ => args.no_charts,
        };
        let info = RunInfo {
            command_line,
            scenario_source: args
                .scenario
                .as_ref()
                .map_or("built-in hybrid-vs-cloud".into(), |p| {
                    p.display().to_string()
                }),
            threads: Some(workers.threads),
            wall_time_s: Some(wall_time_s),
            charts: if skip_charts {
                Vec::new()
            } else {
                let mut names = output::charts::file_names(!config.services.is_empty());
                names.push(output::report::FILE_NAME.to_string());
                names
            },
            ..RunInfo::new(config, scenario, warnings)
        }
        .with_results(&run_output);
        let files = output::write_results(out, config, &run_output, &info, args.trace)?;
        let mut now: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        now.extend(info.charts.iter().cloned());
        output::remove_stale(out, previous, &now)?;
        let charts = if skip_charts {
            Vec::new()
        } else {
            // Drawn from the files just written, exactly as `fleetsim plot` would, on the
            // run's threads.
            let charts = workers
            .pool
            .install(|| output::charts::draw_all_until(out, stop))
            .with_context(|| {
                let why = signals.why();
                format!(
                    "{why}the CSV files and run.json are written but the charts are not; try `fleetsim plot {}`",
                    out.display()
                )
            })?;
            workers
                .pool
                .install(|| output::report::write(out, stop))
                .with_context(|| {
                    let why = signals.why();
                    format!(
                        "{why}the results and charts are written but report.html is not; try `fleetsim report {}`",
                        out.display()
                    )
                })?;
            charts
        };
        if !args.quiet {
            print!("{}", output::summary_table(config, &run_output.aggregates));
            let names: Vec<String> = files
                .iter()
                .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            let charts = match charts.len() {
                0 => String::new(),
                n => format!(
                    ", {n} chart files (PNG, SVG) and {}",
                    output::report::FILE_NAME
                ),
            };
            eprintln!(
                "wrote {}{charts} to {} ({:.1} s, {} events)",
                names.join(", "),
                out.display(),
                wall_time_s,
                thousands(run_output.events as f64, 0)
            );
        }
        Ok(())
    }
}
