//! `fleetsim fit`: a parametric workload from a job trace (issue 12).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use super::Signals;
use crate::output;
use crate::scenario::names;
use crate::scenario::trace::fit::{FitOptions, SplitBy, fit};
use crate::scenario::trace::{self, ReadOptions, TimeZoneSpec, TraceFormat};

#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// Trace file (for pai: pai_job_table.csv, or the folder holding it and pai_task_table.csv)
    trace: PathBuf,
    /// The trace's format: csv, slurm, helios, acme, philly, pai or openb
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    format: TraceFormat,
    /// Write the [[workload]] tables to this file instead of stdout
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Split the jobs into workloads by GPU count (1, 2-8, more than 8) or by team
    #[arg(long, value_name = "gpus|team", default_value = "gpus", value_parser = parse_by)]
    by: SplitBy,
    /// Time zone of trace times written without one [default: UTC]
    #[arg(long, value_name = "ZONE", value_parser = parse_timezone)]
    timezone: Option<TimeZoneSpec>,
    /// Workload names start with this [default: the trace file's name]
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// The GPU type the durations were measured on (the workloads' `gpu`) [default: the
    /// trace's, if it names one]
    #[arg(long, value_name = "TYPE")]
    gpu: Option<String>,
    /// With --by team: this many teams (the largest by GPU-hours) get a workload each, the
    /// rest one together
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
    teams_max: u16,
    /// Overwrite --out if it exists
    #[arg(long)]
    force: bool,
}

fn parse_format(text: &str) -> Result<TraceFormat, String> {
    TraceFormat::parse(text).ok_or_else(|| {
        let names: Vec<&str> = TraceFormat::ALL.iter().map(|f| f.as_str()).collect();
        format!(
            "unknown trace format{}; use one of: {}",
            crate::scenario::did_you_mean(text, names.iter().copied()),
            names.join(", ")
        )
    })
}

fn parse_by(text: &str) -> Result<SplitBy, String> {
    match text {
        "gpus" => Ok(SplitBy::Gpus),
        "team" => Ok(SplitBy::Team),
        _ => Err("use gpus or team".to_string()),
    }
}

fn parse_timezone(text: &str) -> Result<TimeZoneSpec, String> {
    TimeZoneSpec::parse(text)
}

/// Reading and fitting write nothing, so a signal ends them at once (see `signals`); only the
/// write of `--out` is guarded.
pub fn fit_command(args: FitArgs, signals: &Signals) -> Result<()> {
    if let Some(out) = &args.out
        && out.exists()
        && !args.force
    {
        bail!(
            "{}: exists; choose another --out or add --force to overwrite it",
            out.display()
        );
    }
    let options = ReadOptions {
        format: args.format,
        timezone: args.timezone.clone().unwrap_or_default(),
    };
    let trace = trace::read(&args.trace, &options)?;
    let name = args.name.clone().unwrap_or_else(|| {
        let stem = args
            .trace
            .file_stem()
            .map_or_else(|| "trace".to_string(), |s| s.to_string_lossy().into_owned());
        stem.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    });
    if let Some(problem) = names::problem(&name, names::NameKind::Path) {
        bail!("--name {problem}");
    }
    if trace.mixed_types > 0 {
        eprintln!(
            "warning: {} job(s) in {} held GPUs of several types; each is fitted as that many GPUs of the type holding most of them",
            trace::thousands(trace.mixed_types),
            trace.path.display()
        );
    }
    let dropped = trace.dropped.describe();
    if !dropped.is_empty() {
        eprintln!(
            "warning: {} of the {} jobs in {} are left out: {dropped}",
            trace::thousands(trace.dropped.total_jobs()),
            trace::thousands(trace.rows),
            trace.path.display()
        );
    }
    let fitted = fit(
        &trace,
        &FitOptions {
            by: args.by,
            name,
            gpu: args.gpu.clone(),
            teams_max: usize::from(args.teams_max),
        },
    )
    .map_err(|problem| anyhow::anyhow!("{}: {problem}", trace.path.display()))?;
    let text = fitted.to_toml(&trace);
    // Our own output must load; a failure here is a bug.
    let parsed: Result<crate::scenario::ScenarioFile, _> = toml::from_str(&text);
    assert!(
        parsed.is_ok(),
        "fit wrote TOML that does not parse: {parsed:?}"
    );
    match &args.out {
        Some(path) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
            let dir = dir.map_or_else(|| PathBuf::from("."), PathBuf::from);
            let file_name = path
                .file_name()
                .context("--out must name a file")?
                .to_string_lossy()
                .into_owned();
            signals.begin_work();
            let pending = output::write_bytes(&dir, &file_name, text.as_bytes())?;
            if signals.stopped() {
                pending.discard();
                bail!(
                    "interrupted: stopped by {}; {} was not written",
                    signals.name(),
                    path.display()
                );
            }
            pending.commit()?;
            eprintln!(
                "wrote {} workload(s) to {}",
                fitted.workloads.len(),
                path.display()
            );
        }
        None => {
            std::io::stdout()
                .write_all(text.as_bytes())
                .context("cannot write to stdout")?;
        }
    }
    eprint!("{}", fitted.report(&trace));
    Ok(())
}
