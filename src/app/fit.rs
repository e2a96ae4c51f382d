//! `fit`: parametric workloads (rates, profiles, growth, GPU mix, empirical durations) fitted
//! to a job trace, as `[[workload]]` tables.

use std::path::{Path, PathBuf};

use super::{AppError, Context};
use crate::files;
use crate::fit::{FitOptions, SplitBy};
use crate::names;
use crate::trace::{self, ReadOptions, TimeZoneSpec, TraceFormat};

/// A fit to do.
#[derive(Debug, Clone)]
pub struct FitRequest {
    pub trace: PathBuf,
    pub format: TraceFormat,
    pub timezone: Option<TimeZoneSpec>,
    /// Write the tables to this file (else they are only returned).
    pub out: Option<PathBuf>,
    /// Replace `out` if it exists.
    pub force: bool,
    pub by: SplitBy,
    /// Workload names start with this (default: the trace file's name).
    pub name: Option<String>,
    /// The GPU type the durations were measured on.
    pub gpu: Option<String>,
    pub teams_max: usize,
}

/// What a fit found.
#[derive(Debug, Clone)]
pub struct FitOutcome {
    /// The `[[workload]]` tables, as TOML.
    pub text: String,
    pub workloads: usize,
    /// The file written, if `out` was given.
    pub written: Option<PathBuf>,
    /// Goodness of fit, per workload, for people.
    pub report: String,
}

/// Reads the trace, fits its workloads and writes them if asked. Reading and fitting write
/// nothing; only the write of `out` is work that a stop must let clean up.
pub fn fit(request: &FitRequest, ctx: &Context<'_>) -> Result<FitOutcome, AppError> {
    if let Some(out) = &request.out
        && out.exists()
        && !request.force
    {
        return Err(AppError::Request(format!(
            "{}: exists; choose another --out or add --force to overwrite it",
            out.display()
        )));
    }
    let options = ReadOptions {
        format: request.format,
        timezone: request.timezone.clone().unwrap_or_default(),
    };
    let trace = trace::read(&request.trace, &options)?;
    let name = request
        .name
        .clone()
        .unwrap_or_else(|| name_of(&request.trace));
    if let Some(problem) = names::problem(&name, names::NameKind::Path) {
        return Err(AppError::Request(format!("--name {problem}")));
    }
    if trace.mixed_types > 0 {
        (ctx.warn)(&format!(
            "{} job(s) in {} held GPUs of several types; each is fitted as that many GPUs of the type holding most of them",
            trace::thousands(trace.mixed_types),
            trace.path.display()
        ));
    }
    let dropped = trace.dropped.describe();
    if !dropped.is_empty() {
        (ctx.warn)(&format!(
            "{} of the {} jobs in {} are left out: {dropped}",
            trace::thousands(trace.dropped.total_jobs()),
            trace::thousands(trace.rows),
            trace.path.display()
        ));
    }
    let fit_options = FitOptions {
        by: request.by,
        name,
        gpu: request.gpu.clone(),
        teams_max: request.teams_max,
    };
    let fitted = crate::fit::fit(&trace, &fit_options)
        .map_err(|problem| AppError::Request(format!("{}: {problem}", trace.path.display())))?;
    let text = fitted.to_toml(&trace);
    // Our own output must load; a failure here is a bug.
    let parsed: Result<crate::scenario::ScenarioFile, _> = toml::from_str(&text);
    assert!(
        parsed.is_ok(),
        "fit wrote TOML that does not parse: {parsed:?}"
    );
    let written = match &request.out {
        Some(path) => Some(write(path, &text, ctx)?),
        None => None,
    };
    Ok(FitOutcome {
        workloads: fitted.workloads.len(),
        report: fitted.report(&trace),
        text,
        written,
    })
}

/// A workload name from a trace file's name: its stem, with characters names do not take as
/// `-`.
fn name_of(trace: &Path) -> String {
    let stem = trace
        .file_stem()
        .map_or_else(|| "trace".to_string(), |s| s.to_string_lossy().into_owned());
    stem.chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '-',
            },
        )
        .collect()
}

/// Writes `text` to `path` whole or not at all.
fn write(path: &Path, text: &str, ctx: &Context<'_>) -> Result<PathBuf, AppError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.map_or_else(|| PathBuf::from("."), PathBuf::from);
    let Some(file_name) = path.file_name() else {
        return Err(AppError::Request("--out must name a file".into()));
    };
    (ctx.begin_work)();
    let pending = files::write_bytes(&dir, &file_name.to_string_lossy(), text.as_bytes())?;
    if ctx.stopped() {
        pending.discard();
        return Err(AppError::Interrupted {
            after_s: None,
            left: format!("{} was not written", path.display()),
        });
    }
    Ok(pending.commit()?)
}
