//! `run`: simulate every strategy of a scenario and write its result folder (or, for the
//! Python package, the same files' bytes).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::folder::{self, Drawing, Drawn};
use super::{AppError, Context};
use crate::files::{self, LockMode};
use crate::records::{ChargePeriod, FileRecord, OverrideInfo, RunInfo, RunOutput, RunShardInfo};
use crate::runner::{self, RunError};
use crate::scenario::{Config, Loaded, Override, Source};
use crate::sweep::Shard;

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

/// The scenario of `request`, loaded with its overrides, its warnings passed on, and the
/// options that need the whole scenario (`--trace`, `--focus`) checked against it.
fn load_checked(request: &RunRequest, ctx: &Context<'_>) -> Result<Loaded, AppError> {
    let loaded = request.source.load(&request.set)?;
    if request.warn {
        for warning in &loaded.warnings {
            (ctx.warn)(warning);
        }
    }
    if request.trace {
        runner::check_trace(&loaded.config).map_err(AppError::Request)?;
    }
    if let Some(period) = request.focus {
        check_focus(&loaded.config, period)?;
    }
    Ok(loaded)
}

/// Loads, simulates and writes the run `request` asks for, on the context's threads.
pub fn run(request: &RunRequest, ctx: &Context<'_>) -> Result<RunOutcome, AppError> {
    let loaded = load_checked(request, ctx)?;
    let config = &loaded.config;
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
                    let previous = files::prepare_dir(&dir, &config.name, &scenario, *force)?;
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
pub(super) fn resolved(loaded: &Loaded) -> serde_json::Value {
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
    let (run_output, wall_time_s) = simulate(
        request,
        &loaded.config,
        ctx,
        &format!(" to {}", dir.display()),
    )?;
    let info = run_info(request, loaded, ctx, wall_time_s);
    let written = Finished {
        dir,
        loaded,
        info,
        trace: request.trace,
        charts,
    };
    written.write(run_output, previous, ctx)
}

/// A run simulated (or merged from shards), to be written into its folder.
pub(super) struct Finished<'a> {
    pub(super) dir: &'a Path,
    pub(super) loaded: &'a Loaded,
    /// Its `run.json`, less what the results and the charts tell.
    pub(super) info: RunInfo,
    pub(super) trace: bool,
    pub(super) charts: bool,
}

impl Finished<'_> {
    /// Writes the CSV files and run.json, and removes what the folder's previous run wrote
    /// that this one does not; says which charts to draw in `run.json`.
    pub(super) fn write(
        self,
        run_output: RunOutput,
        previous: &[String],
        ctx: &Context<'_>,
    ) -> Result<RunOutcome, AppError> {
        let Finished {
            dir,
            loaded,
            mut info,
            trace,
            charts,
        } = self;
        let config = &loaded.config;
        let mut warnings = loaded.warnings.clone();
        let skip_charts = match crate::charts::skipped(config.strategies.len()) {
            Some(note) if charts => {
                (ctx.warn)(&note);
                warnings.push(note);
                true
            }
            _ => !charts,
        };
        info.warnings = warnings.clone();
        if !skip_charts {
            info.charts = crate::charts::file_names(!config.services.is_empty());
            info.charts.push(crate::report::FILE_NAME.to_string());
        }
        let wall_time_s = info.wall_time_s.unwrap_or(0.0);
        let info = info.with_results(&run_output);
        let files = files::write_results(dir, config, &run_output, &info, trace)?;
        let mut now: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        now.extend(info.charts.iter().cloned());
        files::remove_stale(dir, previous, &now)?;
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
}

fn run_in_memory(
    request: &RunRequest,
    loaded: Loaded,
    ctx: &Context<'_>,
) -> Result<RunOutcome, AppError> {
    let (run_output, wall_time_s) = simulate(request, &loaded.config, ctx, "")?;
    let info = run_info(request, &loaded, ctx, wall_time_s).with_results(&run_output);
    let files = files::in_memory(&run_output, &info, request.trace);
    Ok(RunOutcome {
        config: loaded.config,
        output: run_output,
        info,
        warnings: loaded.warnings,
        written: Written::Memory(files),
        wall_time_s,
    })
}

/// What a shard of a run did.
#[derive(Debug)]
pub struct ShardOutcome {
    pub dir: PathBuf,
    pub info: RunShardInfo,
    pub files: Vec<PathBuf>,
}

/// The replications of shard `shard` of `replications`: contiguous, as even as can be
/// (`from..to`).
pub fn shard_replications(shard: Shard, replications: u32) -> (u32, u32) {
    crate::records::shard_replications(shard.index, shard.count, replications)
}

/// The id of a run: the same for every shard of it, and for nothing else.
pub fn run_id(loaded: &Loaded, trace: bool, focus: Option<ChargePeriod>) -> String {
    let text = format!(
        "{}\n{}\ntrace={trace}\nfocus={focus:?}",
        env!("CARGO_PKG_VERSION"),
        resolved(loaded)
    );
    files::manifest::Fnv1a::of(text.as_bytes())
}

/// Simulates shard `shard` of the run `request` asks for (every strategy in the shard's
/// replications) and writes its units and marker into the request's folder, which other
/// shards of the run may share; `fleetsim merge` makes the run's files of all of them.
pub fn run_shard(
    request: &RunRequest,
    shard: Shard,
    ctx: &Context<'_>,
) -> Result<ShardOutcome, AppError> {
    let loaded = load_checked(request, ctx)?;
    let config = &loaded.config;
    if shard.count > config.replications {
        return Err(AppError::Request(format!(
            "--shard {}: {} shards for {} replications leave some empty; use at most {} shards",
            shard.label(),
            shard.count,
            config.replications,
            config.replications
        )));
    }
    let RunTo::Folder { dir, force, .. } = &request.to else {
        return Err(AppError::Request(
            "a shard of a run is written to a folder".into(),
        ));
    };
    let dir = dir
        .clone()
        .unwrap_or_else(|| Path::new("output").join(&config.name));
    let run_id = run_id(&loaded, request.trace, request.focus);
    let (from, to) = shard_replications(shard, config.replications);
    let mode = LockMode::Shard(shard.index, shard.count);
    let (outcome, _) = folder::work_in(&dir, mode, &request.command_line, ctx, || {
        check_shard_folder(&dir, shard, &run_id, *force)?;
        let units: Vec<runner::Unit> = runner::units(config)
            .into_iter()
            .filter(|u| (from..to).contains(&u.replication))
            .collect();
        ctx.progress.begin(
            units.len() as u64,
            &format!("simulating {} (shard {})", config.name, shard.label()),
        );
        let started = Instant::now();
        let simulated = ctx.pool.install(|| {
            runner::simulate_units(
                config,
                &units,
                request.trace,
                &|| ctx.progress.step(),
                ctx.stop,
            )
        });
        ctx.progress.end();
        let results = match simulated {
            Ok(results) if !ctx.stopped() => results,
            Ok(_) | Err(RunError::Cancelled) => {
                return Err(AppError::Interrupted {
                    after_s: Some(started.elapsed().as_secs_f64()),
                    left: format!("no shard was written to {}", dir.display()),
                });
            }
            Err(error) => return Err(error.into()),
        };
        let info = RunShardInfo {
            fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
            run_id: run_id.clone(),
            shard: shard.index,
            shards: shard.count,
            replications_from: from,
            replications_to: to,
            replications: config.replications,
            scenario_text: request.source.text.clone(),
            scenario_origin: absolute(&request.source.origin),
            scenario_default_name: request.source.default_name.clone(),
            set: request
                .set
                .iter()
                .map(|o| OverrideInfo {
                    path: o.path.clone(),
                    value: o.value.to_string(),
                    text: o.text.clone(),
                })
                .collect(),
            scenario_source: request.source_name.clone(),
            trace: request.trace,
            focus: request.focus,
            command_line: without_shard(&request.command_line),
            threads: ctx.threads(),
            wall_time_s: started.elapsed().as_secs_f64(),
            events_simulated: results.iter().map(|u| u.events).sum(),
            units: FileRecord::default(),
        };
        let files = files::run_shard::write(&dir, info.clone(), &results)?;
        Ok(((info, files), Drawing::Nothing))
    })?;
    let (info, files) = outcome;
    Ok(ShardOutcome { dir, info, files })
}

/// Refuses, unless `force`, a folder that holds anything but shards of this run split into
/// as many shards as this one (besides files still being written and hidden files, the
/// locks among them): `merge` could not combine them. With `force`, shards of other runs or
/// splits are removed; other files stay.
fn check_shard_folder(dir: &Path, shard: Shard, run_id: &str, force: bool) -> Result<(), AppError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            let path = dir.to_path_buf();
            return Err(files::OutputError::Read { path, source }.into());
        }
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let refuse = |what: String, force_does: &str| {
        AppError::Request(format!(
            "{}: holds {what}; `fleetsim merge` takes a folder with the shards of one run only: choose another folder with --out, or pass --force ({force_does})",
            dir.display()
        ))
    };
    for name in names {
        // Hidden files too: a shared file system's own (NFS's `.nfs*`), never a shard.
        if name.starts_with('.') || name.ends_with(".partial") {
            continue;
        }
        let (k, n) = match files::run_shard::shard_file(&name) {
            // A shard's units are judged with its marker (without one they are no shard).
            Some(files::run_shard::ShardFile::Units(..)) => continue,
            Some(files::run_shard::ShardFile::Marker(k, n)) => (k, n),
            None if force => continue,
            None => {
                return Err(refuse(
                    format!("`{name}`, not a shard of a run"),
                    "which keeps that file",
                ));
            }
        };
        let other = match files::read_json::<RunShardInfo>(&dir.join(&name)) {
            Ok(Some(info)) if info.check().is_err() || (info.shard, info.shards) != (k, n) => {
                format!("`{name}`, a damaged shard marker")
            }
            Ok(Some(info)) if info.run_id == run_id && info.shards == shard.count => continue,
            Ok(Some(info)) if info.run_id == run_id => format!(
                "shard {k}/{n} of this run, split into {n} shards, not {}",
                shard.count
            ),
            Ok(Some(info)) => format!(
                "shard {k}/{n} of another run (run id {} against {run_id})",
                info.run_id
            ),
            Ok(None) => continue,
            Err(error) => format!("`{name}`, which cannot be read ({error})"),
        };
        if !force {
            return Err(refuse(other, "which removes that shard"));
        }
        files::run_shard::remove(dir, k, n)?;
    }
    Ok(())
}

/// A scenario file's path from anywhere (the merge may run in another folder, and finds the
/// scenario's traces beside it); a name that is not a file (the built-in scenario's) as it is.
fn absolute(origin: &Path) -> PathBuf {
    match origin.is_file() {
        true => std::path::absolute(origin).unwrap_or_else(|_| origin.to_path_buf()),
        false => origin.to_path_buf(),
    }
}

/// A shard's command line without its `--shard K/N` (or `--shard=K/N`): the unsharded run's.
fn without_shard(command_line: &[String]) -> Vec<String> {
    let mut line = Vec::with_capacity(command_line.len());
    let mut args = command_line.iter();
    while let Some(arg) = args.next() {
        if arg == "--shard" {
            args.next();
        } else if !arg.starts_with("--shard=") {
            line.push(arg.clone());
        }
    }
    line
}

/// A FOCUS export needs an ISO 4217 currency and a file of a sensible size.
pub fn check_focus(config: &Config, period: ChargePeriod) -> Result<(), AppError> {
    if !crate::focus::is_iso_currency(&config.currency) {
        return Err(AppError::Request(format!(
            "--focus needs the scenario's currency as an ISO 4217 code (three capital letters such as EUR or USD), got `{}`; set currency = \"EUR\" in the scenario, or --set currency=EUR",
            config.currency
        )));
    }
    let rows = crate::focus::rows_estimate(config, period);
    if rows > crate::focus::ROWS_MAX {
        let hint = match period {
            ChargePeriod::Day => "use --focus-period month, or shorten horizon_months",
            ChargePeriod::Month => "shorten horizon_months or export fewer strategies",
        };
        return Err(AppError::Request(format!(
            "--focus would write about {:.1e} rows of focus.csv (charge period: {}), more than {:.0e}; {hint}",
            rows,
            period.as_str(),
            crate::focus::ROWS_MAX
        )));
    }
    Ok(())
}
