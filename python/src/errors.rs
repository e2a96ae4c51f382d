//! fleetsim's errors as Python exceptions, with the message the command line prints after
//! `error: ` (anyhow's `{:#}`: the error and its causes).

use fleetsim::app::AppError;
use fleetsim::{runner, scenario, sweep};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

create_exception!(
    fleetsim,
    Error,
    PyException,
    "Any error of fleetsim; its message is the one the command line prints after `error: `."
);
create_exception!(
    fleetsim,
    ScenarioError,
    Error,
    "The scenario cannot be read or is not valid (every problem, with its line and field)."
);
create_exception!(
    fleetsim,
    SweepError,
    Error,
    "The sweep cannot run: a bad `vary` or `sample`, too many points, or points that are not valid scenarios."
);
create_exception!(
    fleetsim,
    RunError,
    Error,
    "The simulation stopped on a bound (the event budget `max_events`, the queue or scheduler work bounds), or `trace` would hold too many jobs."
);

/// What went wrong, classified while the GIL is released, raised once it is held again.
#[derive(Debug)]
pub enum Failure {
    Scenario(String),
    Sweep(String),
    Run(String),
    /// A bad argument (`set`, `vary`, `sample`): `ValueError`.
    Argument(String),
    /// The stop flag was set (by a signal, whose exception the caller raises).
    Interrupted,
}

/// The message of `error` as the command line prints it.
fn message<E>(error: E) -> String
where
    E: std::error::Error + Send + Sync + 'static,
{
    format!("{:#}", anyhow::Error::from(error))
}

impl From<scenario::ScenarioError> for Failure {
    fn from(error: scenario::ScenarioError) -> Self {
        Failure::Scenario(message(error))
    }
}

impl From<runner::RunError> for Failure {
    fn from(error: runner::RunError) -> Self {
        match error {
            runner::RunError::Cancelled => Failure::Interrupted,
            error => Failure::Run(message(error)),
        }
    }
}

impl From<sweep::SweepError> for Failure {
    fn from(error: sweep::SweepError) -> Self {
        match error {
            sweep::SweepError::Scenario(error) => error.into(),
            sweep::SweepError::Run {
                source: runner::RunError::Cancelled,
                ..
            } => Failure::Interrupted,
            error @ sweep::SweepError::Run { .. } => Failure::Run(message(error)),
            error => Failure::Sweep(message(error)),
        }
    }
}

impl From<AppError> for Failure {
    fn from(error: AppError) -> Self {
        match error {
            AppError::Scenario(error) => error.into(),
            AppError::Run(error) => error.into(),
            AppError::Sweep(error) => (*error).into(),
            AppError::Interrupted { .. } => Failure::Interrupted,
            error => Failure::Run(message(error)),
        }
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Scenario(message) => ScenarioError::new_err(message),
            Failure::Sweep(message) => SweepError::new_err(message),
            Failure::Run(message) => RunError::new_err(message),
            Failure::Argument(message) => PyValueError::new_err(message),
            Failure::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        }
    }
}
