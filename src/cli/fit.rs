//! `fleetsim fit`: a parametric workload from a job trace.

use std::path::PathBuf;

use anyhow::Result;

use super::stdout;
use super::{Session, Signals};
use crate::app;
use crate::fit::SplitBy;
use crate::trace::{TimeZoneSpec, TraceFormat};

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
    let request = app::fit::FitRequest {
        trace: args.trace.clone(),
        format: args.format,
        timezone: args.timezone.clone(),
        out: args.out.clone(),
        force: args.force,
        by: args.by,
        name: args.name.clone(),
        gpu: args.gpu.clone(),
        teams_max: usize::from(args.teams_max),
    };
    let session = Session::start(Some(1), signals, "", true)?;
    let fitted = app::fit::fit(&request, &session.context())?;
    match &fitted.written {
        Some(path) => eprintln!(
            "wrote {} workload(s) to {}",
            fitted.workloads,
            path.display()
        ),
        None => stdout::write(fitted.text.as_bytes()).map_err(anyhow::Error::from)?,
    }
    eprint!("{}", fitted.report);
    Ok(())
}
