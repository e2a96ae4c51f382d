//! `fleetsim._native`: the simulator behind the Python package `fleetsim` (see
//! `python/README.md`). It returns every file `fleetsim run` or `fleetsim sweep` writes (but
//! the charts) as bytes, written by the simulator's own writers into memory, and the
//! package's Python side reads them into pandas DataFrames. Scenario checks, simulation and
//! statistics are the library's; this crate only converts arguments, releases the GIL
//! (`detached.rs`) and maps errors to exceptions (`errors.rs`).

mod convert;
mod detached;
mod errors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use fleetsim::records::RunInfo;
use fleetsim::scenario::{self, Override, Source};
use fleetsim::sweep::{self, Request, Sampling};
use fleetsim::{output, runner};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use errors::Failure;

/// How messages and `run.json` name scenario text given to `run`, `sweep` or `validate`.
const TEXT_ORIGIN: &str = "<scenario text>";

/// The name of a scenario given as text when it has no `name` field.
const TEXT_DEFAULT_NAME: &str = "scenario";

/// A file's name and bytes.
type File = (String, Vec<u8>);

/// The scenario: read from `path`, given as `text`, or (neither) the built-in default; and
/// how `run.json` names its source.
fn source(path: Option<PathBuf>, text: Option<String>) -> Result<(Source, String), Failure> {
    Ok(match (path, text) {
        (Some(path), _) => (Source::read(&path)?, path.display().to_string()),
        (None, Some(text)) => (
            Source::from_text(&text, Path::new(TEXT_ORIGIN), TEXT_DEFAULT_NAME),
            TEXT_ORIGIN.to_string(),
        ),
        (None, None) => (Source::built_in(), "built-in hybrid-vs-cloud".to_string()),
    })
}

/// `set`, then `replications` and `seed`, as the command line orders them.
fn overrides(
    set: &[Bound<'_, PyAny>],
    replications: Option<u32>,
    seed: Option<u64>,
) -> PyResult<Vec<Override>> {
    let set = set
        .iter()
        .map(convert::override_of)
        .collect::<PyResult<Vec<_>>>()?;
    Ok(scenario::run_overrides(&set, replications, seed))
}

/// The `fleetsim` command that writes the same files (`run.json`'s `command_line`).
fn command_line(command: &str, scenario: Option<&str>, set: &[Override]) -> Vec<String> {
    let mut line = vec!["fleetsim".to_string(), command.to_string()];
    line.extend(scenario.map(String::from));
    for o in set {
        line.push("--set".into());
        line.push(o.text.clone());
    }
    line
}

fn into_python(py: Python<'_>, files: Vec<File>) -> Vec<(String, Py<PyBytes>)> {
    files
        .into_iter()
        .map(|(name, bytes)| (name, PyBytes::new(py, &bytes).unbind()))
        .collect()
}

/// What `run` hands back: the files, `run.json` last, and the scenario's warnings.
type RunFiles = (Vec<(String, Py<PyBytes>)>, Vec<String>);

/// Runs a scenario and returns the bytes of every file `fleetsim run --no-charts` writes,
/// `run.json` last, and the scenario's warnings.
#[pyfunction]
#[pyo3(signature = (path, text, set, replications, seed, threads, trace))]
// The Python package's keyword arguments, one for one.
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    set: Vec<Bound<'_, PyAny>>,
    replications: Option<u32>,
    seed: Option<u64>,
    threads: Option<u16>,
    trace: bool,
) -> PyResult<RunFiles> {
    let user_set = overrides(&set, None, None)?;
    let overrides = scenario::run_overrides(&user_set, replications, seed);
    let threads = detached::threads_or_all(threads);
    let shown = path.as_ref().map(|p| p.display().to_string());
    let mut line = command_line("run", shown.as_deref(), &user_set);
    let flags = [
        ("--replications", replications.map(u64::from)),
        ("--seed", seed),
    ];
    for (flag, value) in flags {
        if let Some(value) = value {
            line.extend([flag.to_string(), value.to_string()]);
        }
    }
    if trace {
        line.push("--trace".into());
    }
    line.extend(["--threads".to_string(), threads.to_string()]);
    let request = RunRequest {
        path,
        text,
        overrides,
        trace,
        command_line: line,
        threads,
    };
    let simulated = detached::run(py, threads, |stop| simulate(request, stop))?;
    let (files, warnings) = simulated?;
    Ok((into_python(py, files), warnings))
}

/// A run, its arguments converted.
struct RunRequest {
    path: Option<PathBuf>,
    text: Option<String>,
    overrides: Vec<Override>,
    trace: bool,
    /// For `run.json`.
    command_line: Vec<String>,
    threads: usize,
}

fn simulate(request: RunRequest, stop: &AtomicBool) -> Result<(Vec<File>, Vec<String>), Failure> {
    let RunRequest {
        path,
        text,
        overrides,
        trace,
        command_line,
        threads,
    } = request;
    let (source, scenario_source) = source(path, text)?;
    let loaded = source.load(&overrides)?;
    let config = &loaded.config;
    if trace {
        runner::check_trace(config).map_err(Failure::Run)?;
    }
    let resolved = serde_json::to_value(&loaded.resolved).expect("a scenario serializes");
    let started = Instant::now();
    let run_output = runner::run(config, trace, &|| {}, stop)?;
    if stop.load(Ordering::SeqCst) {
        return Err(Failure::Interrupted);
    }
    let info = RunInfo {
        command_line,
        scenario_source,
        threads: Some(threads),
        wall_time_s: Some(started.elapsed().as_secs_f64()),
        ..RunInfo::new(config, resolved, loaded.warnings.clone())
    }
    .with_results(&run_output);
    Ok((
        output::in_memory(&run_output, &info, trace),
        loaded.warnings,
    ))
}

/// What `sweep` hands back: `sweep.json` and `sweep.csv`, each point's id and files, and the
/// warnings.
type SweepFiles = (
    Vec<(String, Py<PyBytes>)>,
    Vec<(String, Vec<(String, Py<PyBytes>)>)>,
    Vec<String>,
);

/// Runs a sweep and returns the bytes of `sweep.json` and `sweep.csv`, each point's files (as
/// in `points/<id>/`) and the warnings.
#[pyfunction]
#[pyo3(signature = (path, text, vary, sample, set, replications, seed, threads))]
// The Python package's keyword arguments, one for one.
#[allow(clippy::too_many_arguments)]
fn run_sweep(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    vary: Vec<Bound<'_, PyAny>>,
    sample: Option<String>,
    set: Vec<Bound<'_, PyAny>>,
    replications: Option<u32>,
    seed: Option<u64>,
    threads: Option<u16>,
) -> PyResult<SweepFiles> {
    let vary = vary
        .iter()
        .map(convert::vary_of)
        .collect::<PyResult<Vec<_>>>()?;
    let sampling = sample
        .map(|text| Sampling::parse(&text).map_err(|p| Failure::Argument(format!("sample: {p}"))))
        .transpose()?;
    let set = overrides(&set, replications, seed)?;
    let threads = detached::threads_or_all(threads);
    let swept = detached::run(py, threads, |stop| {
        let (source, _) = source(path, text)?;
        let request = Request {
            scenario: source.origin.clone(),
            vary,
            sampling,
            set,
        };
        let plan = sweep::plan_source(&request, &source)?;
        let files = sweep::run_in_memory(&plan, stop)?;
        if stop.load(Ordering::SeqCst) {
            return Err(Failure::Interrupted);
        }
        Ok::<_, Failure>((files, plan.warnings))
    })?;
    let (files, warnings) = swept?;
    let points = files
        .points
        .into_iter()
        .map(|point| (point.id, into_python(py, point.files)))
        .collect();
    Ok((into_python(py, files.files), points, warnings))
}

/// Checks a scenario as `fleetsim validate` does, without simulating; returns what it says.
#[pyfunction]
#[pyo3(signature = (path, text, set))]
fn validate<'py>(
    py: Python<'py>,
    path: Option<PathBuf>,
    text: Option<String>,
    set: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let set = overrides(&set, None, None)?;
    let checked = detached::run(py, 1, |_| check(path, text, &set))?;
    let (name, description, traces, sweep, warnings) = checked?;
    let result = PyDict::new(py);
    result.set_item("name", name)?;
    result.set_item("description", description)?;
    result.set_item("traces", traces)?;
    result.set_item("sweep", sweep)?;
    result.set_item("warnings", warnings)?;
    Ok(result)
}

/// The scenario's name and description, its trace workloads and `[sweep]` table described,
/// and its warnings.
type Checked = (String, String, Vec<String>, Option<String>, Vec<String>);

fn check(
    path: Option<PathBuf>,
    text: Option<String>,
    set: &[Override],
) -> Result<Checked, Failure> {
    let (source, _) = source(path, text)?;
    let loaded = source.load(set)?;
    let config = &loaded.config;
    let description = scenario::describe(config);
    let traces = config
        .workloads
        .iter()
        .filter_map(|w| {
            let replay = w.trace.as_ref()?;
            Some(format!("workload `{}`: {}", w.name, replay.describe()))
        })
        .collect();
    let name = config.name.clone();
    let warnings = loaded.warnings.clone();
    let has_sweep = loaded
        .resolved
        .sweep
        .as_ref()
        .is_some_and(|s| !s.vary.is_empty());
    let sweep = if has_sweep {
        sweep::plan::describe(&source.origin, set, &source, loaded)?
    } else {
        None
    };
    Ok((name, description, traces, sweep, warnings))
}

/// The simulator behind the Python package `fleetsim`.
#[pymodule]
mod _native {
    #[pymodule_export]
    use super::errors::{Error, RunError, ScenarioError, SweepError};
    #[pymodule_export]
    use super::{run, run_sweep, validate};

    #[pymodule_export]
    const VERSION: &str = env!("CARGO_PKG_VERSION");
    #[pymodule_export]
    const DEFAULT_SCENARIO: &str = fleetsim::scenario::DEFAULT_SCENARIO;
    #[pymodule_export]
    const TEXT_ORIGIN: &str = super::TEXT_ORIGIN;
}
