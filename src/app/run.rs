//! `run`: simulate every strategy of a scenario and write its result folder (or, for the
//! Python package, the same files' bytes).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::folder::{self, Drawing, Drawn};
use super::{AppError, Context};
use crate::output::{self, LockMode};
use crate::records::{ChargePeriod, RunInfo, RunOutput};
use crate::runner::{self, RunError};
use crate::scenario::{Config, Loaded, Override, Source};

/// A run to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub source: Source,
    /// How `run.json` names the scenario: its path, or "built-in hybrid-vs-cloud".
    pub source_name: String,
    /// `--set`, then `--replications` and `--seed` (see [`crate::scenario::run_overrides`]).
    pub set: Vec<Override>,
    pub to: RunTo,
    /// Also `jobs.csv`: every job of replication 0.
    pub trace: bool,
    /// Also `focus.csv`, with charges by this period.
    pub focus: Option<ChargePeriod>,
    /// The scenario's warnings go to the context (false: they were shown before).
    pub warn: bool,
    /// The command that asked for it (for `run.json`).
    pub command_line: Vec<String>,
}

/// Where a run's files go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunTo {
    /// A result folder (None: `output/<scenario name>`); `force` replaces another scenario's
    /// results there; `charts` draws the charts and report.html too.
    Folder {
        dir: Option<PathBuf>,
        force: bool,
        charts: bool,
    },
    /// Memory: the bytes of every file but the charts, `run.json` last.
    Memory,
}

/// A file's name and bytes.
pub type File = (String, Vec<u8>);

/// What a run did.
#[derive(Debug)]
pub struct RunOutcome {
    pub config: Config,
    pub output: RunOutput,
    pub info: RunInfo,
    /// The scenario's warnings (and a note if the charts were left out).
    pub warnings: Vec<String>,
    pub written: Written,
    pub wall_time_s: f64,
}

/// Where a run's files went.
#[derive(Debug)]
pub enum Written {
    Folder {
        dir: PathBuf,
        /// The CSV files and run.json, in the order written.
        files: Vec<PathBuf>,
        drawn: Drawn,
    },
    Memory(Vec<File>),
}

/// Loads, simulates and writes the run `request` asks for, on the context's threads.
pub fn run(request: &RunRequest, ctx: &Context<'_>) -> Result<RunOutcome, AppError> {
    let loaded = request.source.load(&request.set)?;
    if request.warn {
        for warning in &loaded.warnings {
            (ctx.warn)(warning);
        }
    }
    let config = &loaded.config;
    if request.trace {
        runner::check_trace(config).map_err(AppError::Request)?;
    }
    if let Some(period) = request.focus {
        check_focus(config, period)?;
    }
    match &request.to {
        RunTo::Memory => run_in_memory(request, loaded, ctx),
        RunTo::Folder { dir, force, charts } => {
            let dir = dir
                .clone()
                .unwrap_or_else(|| Path::new("output").join(&config.name));
            let scenario = resolved(&loaded);
            let (mut outcome, drawn) = folder::work_in(
                &dir,
                LockMode::Exclusive,
                &request.command_line,
                ctx,
                || {
                    let previous = output::prepare_dir(&dir, &config.name, &scenario, *force)?;
                    let outcome = simulate_into(request, &loaded, &dir, &previous, *charts, ctx)?;
                    let drawing = match outcome.info.charts.is_empty() {
                        true => Drawing::Nothing,
                        false => Drawing::Run,
                    };
                    Ok((outcome, drawing))
                },
            )?;
            if let Written::Folder { drawn: d, .. } = &mut outcome.written {
                *d = drawn;
            }
            Ok(outcome)
        }
    }
}

/// The scenario as run.json records it: resolved, defaults filled in.
fn resolved(loaded: &Loaded) -> serde_json::Value {
    serde_json::to_value(&loaded.resolved).expect("a scenario serializes")
}

/// Simulates every unit (and, with `--focus`, the exported ones again with their charges).
fn simulate(
    request: &RunRequest,
    config: &Config,
    ctx: &Context<'_>,
    written_to: &str,
) -> Result<(RunOutput, f64), AppError> {
    let units = runner::units(config).len() as u64;
    ctx.progress
        .begin(units, &format!("simulating {}", config.name));
    let started = Instant::now();
    let result = ctx.pool.install(|| {
        let mut run_output = runner::run(config, request.trace, &|| ctx.progress.step(), ctx.stop)?;
        if let Some(period) = request.focus {
            runner::add_focus(config, &mut run_output, period, ctx.stop)?;
        }
        Ok(run_output)
    });
    ctx.progress.end();
    let interrupted = |after_s| AppError::Interrupted {
        after_s,
        left: format!("no result was written{written_to}"),
    };
    let run_output = match result {
        Ok(run_output) => run_output,
        Err(RunError::Cancelled) => {
            return Err(interrupted(Some(started.elapsed().as_secs_f64())));
        }
        Err(error) => return Err(error.into()),
    };
    if ctx.stopped() {
        return Err(interrupted(None));
    }
    Ok((run_output, started.elapsed().as_secs_f64()))
}

/// A run's `run.json`, less what only its results tell.
fn run_info(request: &RunRequest, loaded: &Loaded, ctx: &Context<'_>, wall_time_s: f64) -> RunInfo {
    RunInfo {
        command_line: request.command_line.clone(),
        scenario_source: request.source_name.clone(),
        threads: Some(ctx.threads()),
        wall_time_s: Some(wall_time_s),
        ..RunInfo::new(&loaded.config, resolved(loaded), loaded.warnings.clone())
    }
}

fn simulate_into(
    request: &RunRequest,
    loaded: &Loaded,
    dir: &Path,
    previous: &[String],
    charts: bool,
    ctx: &Context<'_>,
) -> Result<RunOutcome, AppError> {
    let config = &loaded.config;
    let (run_output, wall_time_s) =
        simulate(request, config, ctx, &format!(" to {}", dir.display()))?;
    let mut warnings = loaded.warnings.clone();
    let skip_charts = match output::charts::skipped(config.strategies.len()) {
        Some(note) if charts => {
            (ctx.warn)(&note);
            warnings.push(note);
            true
        }
        _ => !charts,
    };
    let mut info = run_info(request, loaded, ctx, wall_time_s);
    info.warnings = warnings.clone();
    if !skip_charts {
        info.charts = output::charts::file_names(!config.services.is_empty());
        info.charts.push(output::report::FILE_NAME.to_string());
    }
    let info = info.with_results(&run_output);
    let files = output::write_results(dir, config, &run_output, &info, request.trace)?;
    let mut now: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    now.extend(info.charts.iter().cloned());
    output::remove_stale(dir, previous, &now)?;
    Ok(RunOutcome {
        config: config.clone(),
        output: run_output,
        info,
        warnings,
        written: Written::Folder {
            dir: dir.to_path_buf(),
            files,
            drawn: Drawn::default(),
        },
        wall_time_s,
    })
}

fn run_in_memory(
    request: &RunRequest,
    loaded: Loaded,
    ctx: &Context<'_>,
) -> Result<RunOutcome, AppError> {
    let (run_output, wall_time_s) = simulate(request, &loaded.config, ctx, "")?;
    let info = run_info(request, &loaded, ctx, wall_time_s).with_results(&run_output);
    let files = output::in_memory(&run_output, &info, request.trace);
    Ok(RunOutcome {
        config: loaded.config,
        output: run_output,
        info,
        warnings: loaded.warnings,
        written: Written::Memory(files),
        wall_time_s,
    })
}

/// A FOCUS export needs an ISO 4217 currency and a file of a sensible size.
pub fn check_focus(config: &Config, period: ChargePeriod) -> Result<(), AppError> {
    if !output::focus::is_iso_currency(&config.currency) {
        return Err(AppError::Request(format!(
            "--focus needs the scenario's currency as an ISO 4217 code (three capital letters such as EUR or USD), got `{}`; set currency = \"EUR\" in the scenario, or --set currency=EUR",
            config.currency
        )));
    }
    let rows = output::focus::rows_estimate(config, period);
    if rows > output::focus::ROWS_MAX {
        let hint = match period {
            ChargePeriod::Day => "use --focus-period month, or shorten horizon_months",
            ChargePeriod::Month => "shorten horizon_months or export fewer strategies",
        };
        return Err(AppError::Request(format!(
            "--focus would write about {:.1e} rows of focus.csv (charge period: {}), more than {:.0e}; {hint}",
            rows,
            period.as_str(),
            output::focus::ROWS_MAX
        )));
    }
    Ok(())
}
