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
use std::sync::atomic::AtomicBool;

use fleetsim::app;
use fleetsim::progress::Silent;
use fleetsim::scenario::{self, Override, Source};
use fleetsim::sweep::{Request, Sampling};
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
    let simulated = detached::run(py, threads, |pool, stop| {
        let (source, source_name) = source(path, text)?;
        let request = app::run::RunRequest {
            source,
            source_name,
            set: overrides,
            to: app::run::RunTo::Memory,
            trace,
            focus: None,
            warn: false,
            command_line: line,
        };
        let outcome = app::run::run(&request, &context(pool, stop))?;
        match outcome.written {
            app::run::Written::Memory(files) => Ok::<_, Failure>((files, outcome.warnings)),
            app::run::Written::Folder { .. } => unreachable!("a run into memory"),
        }
    })?;
    let (files, warnings) = simulated?;
    Ok((into_python(py, files), warnings))
}

/// The context of work done for Python: no progress shown, warnings returned, not shown.
fn context<'a>(pool: &'a rayon::ThreadPool, stop: &'a AtomicBool) -> app::Context<'a> {
    app::Context {
        pool,
        stop,
        progress: &Silent,
        begin_work: &|| {},
        warn: &|_| {},
        note: &|_| {},
    }
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
    let swept = detached::run(py, threads, |pool, stop| {
        let (source, _) = source(path, text)?;
        let request = Request {
            scenario: source.origin.clone(),
            vary,
            sampling,
            set,
            focus: None,
        };
        let plan = app::sweep::plan(&request, &source)?;
        let files = app::sweep::sweep_in_memory(&plan, &context(pool, stop))?;
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
    let checked = detached::run(py, 1, |_, _| {
        let (source, _) = source(path, text)?;
        Ok::<_, Failure>(app::validate::validate(&source, &set)?)
    })?;
    let checked = checked?;
    let result = PyDict::new(py);
    result.set_item("name", checked.name)?;
    result.set_item("description", checked.description)?;
    result.set_item("traces", checked.traces)?;
    result.set_item("sweep", checked.sweep)?;
    result.set_item("warnings", checked.warnings)?;
    Ok(result)
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
