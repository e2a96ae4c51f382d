//! One function per user operation: [`run::run`] (and [`run::run_shard`]), [`validate::validate`],
//! [`sweep::sweep`],
//! [`merge::merge`], [`optimize::optimize`], [`claims::claims`], [`fit::fit`],
//! [`plot::plot`] and [`plot::report`]. Each takes a plain request and returns a plain outcome;
//! the front ends (the command line in `cli`, the Python package) turn their arguments into the
//! request and show the outcome. Nothing here knows clap, pyo3 or the terminal: what a front
//! end must see while the work goes on (progress, warnings, when work that leaves files
//! begins) goes through the [`Context`] it hands in.
//!
//! Every operation that writes a folder goes through [`folder::work_in`]: the folder's lock,
//! the work, the charts and report drawn from the files just written, the release.

pub mod claims;
pub mod fit;
pub mod folder;
pub mod merge;
pub mod optimize;
pub mod plot;
pub mod run;
pub mod sweep;
pub mod validate;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::charts::ChartError;
use crate::claims::study::ClaimsError;
use crate::files::OutputError;
use crate::optimize::OptimizeError;
use crate::progress::Progress;
use crate::runner::RunError;
use crate::scenario::ScenarioError;
use crate::sweep::SweepError;
use crate::trace::TraceError;

/// What an operation may ask of the front end that calls it.
pub struct Context<'a> {
    /// The worker threads the work runs on.
    pub pool: &'a rayon::ThreadPool,
    /// Set (by a signal, or Ctrl-C in Python) to stop the work; polled between units, chunks
    /// of events, files and charts.
    pub stop: &'a AtomicBool,
    pub progress: &'a dyn Progress,
    /// Called when work that leaves files begins: a stop from then on must let it clean up.
    pub begin_work: &'a (dyn Fn() + Sync),
    /// A warning for the user (a scenario's, a damaged point found by `--resume`).
    pub warn: &'a (dyn Fn(&str) + Sync),
    /// What the work is doing, a line at a time (the claims study's claim by claim).
    pub note: &'a (dyn Fn(&str) + Sync),
}

impl Context<'_> {
    /// Worker threads, for `run.json` and `invocation.json`.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// Why an operation did not finish.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    OptimizeFolder(#[from] crate::files::optimize::FolderError),
    // Boxed: these are large, and an operation's success path returns the enum.
    #[error(transparent)]
    Sweep(Box<SweepError>),
    #[error(transparent)]
    Optimize(Box<OptimizeError>),
    #[error(transparent)]
    Claims(Box<ClaimsError>),
    /// A request the operation cannot carry out, saying why and what would do.
    #[error("{0}")]
    Request(String),
    /// Stopped before the end: `after_s` seconds into the work (when that says something),
    /// and what the stop left behind ("no result was written to DIR").
    #[error("interrupted: {left}")]
    Interrupted { after_s: Option<f64>, left: String },
    /// A step failed after others wrote their files: what is written, and how to finish.
    #[error("{done}")]
    Unfinished {
        done: String,
        #[source]
        source: Box<AppError>,
    },
}

impl From<SweepError> for AppError {
    fn from(error: SweepError) -> Self {
        AppError::Sweep(Box::new(error))
    }
}

impl From<OptimizeError> for AppError {
    fn from(error: OptimizeError) -> Self {
        AppError::Optimize(Box::new(error))
    }
}

impl From<ClaimsError> for AppError {
    fn from(error: ClaimsError) -> Self {
        AppError::Claims(Box::new(error))
    }
}

impl AppError {
    /// `source` failed after `done` was written.
    pub fn unfinished(done: impl Into<String>, source: impl Into<AppError>) -> Self {
        AppError::Unfinished {
            done: done.into(),
            source: Box::new(source.into()),
        }
    }
}
