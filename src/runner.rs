//! Runs every (strategy, replication) unit of a scenario in parallel and aggregates them.
//!
//! Units are independent and single-threaded; rayon spreads them over the threads of the
//! current pool and `collect` keeps their order, so the results do not depend on the number of
//! threads. Sums over units happen afterwards, sequentially, in [`crate::stats`].

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::format::thousands;
use crate::model::{self, SimError};
use crate::records::{RunOutput, UnitResult};
use crate::scenario::Config;
use crate::stats;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    // The cause is in the message, so it is not also a `source` (anyhow would print it twice).
    #[error("strategy `{strategy}`, replication {replication}: {cause}")]
    Engine {
        strategy: String,
        replication: u32,
        cause: SimError,
    },
    #[error("interrupted: no result was written")]
    Cancelled,
}

/// One unit of work: a strategy in a replication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub strategy: usize,
    pub replication: u32,
}

/// All units of a scenario in (strategy, replication) order.
pub fn units(config: &Config) -> Vec<Unit> {
    (0..config.strategies.len())
        .flat_map(|strategy| {
            (0..config.replications).map(move |replication| Unit {
                strategy,
                replication,
            })
        })
        .collect()
}

/// Simulates units in parallel on the current rayon pool. `trace` keeps the job rows of
/// replication 0; `done` is called after each unit; `stop` cancels the remaining units.
pub fn simulate_units(
    config: &Config,
    units: &[Unit],
    trace: bool,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Result<Vec<UnitResult>, RunError> {
    let work: Vec<(&Config, Unit)> = units.iter().map(|unit| (config, *unit)).collect();
    simulate_pairs(&work, trace, done, stop)
}

/// Simulates (configuration, unit) pairs of one or many configurations in one flat parallel
/// loop, results in the order of `work`.
pub fn simulate_pairs(
    work: &[(&Config, Unit)],
    trace: bool,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Result<Vec<UnitResult>, RunError> {
    work.par_iter()
        .map(|(config, unit)| {
            let result = simulate_one(config, *unit, trace, stop)?;
            done();
            Ok(result)
        })
        .collect()
}

/// Like [`simulate_pairs`], but hands each outcome to `sink` (with its index in `work`) as soon
/// as it is known, on the thread that simulated it, instead of collecting them all: a sweep
/// writes each point when its last unit is done, and keeps only the points in flight in memory.
/// Spreading the units of many configurations over one loop keeps every thread busy until the
/// last unit, rather than waiting at the end of each configuration. The loop stops at the
/// first error `sink` returns.
pub fn simulate_each<E: Send>(
    work: &[(&Config, Unit)],
    stop: &AtomicBool,
    sink: &(dyn Fn(usize, Result<UnitResult, RunError>) -> Result<(), E> + Sync),
) -> Result<(), E> {
    work.par_iter()
        .enumerate()
        .try_for_each(|(index, (config, unit))| {
            sink(index, simulate_one(config, *unit, false, stop))
        })
}

fn simulate_one(
    config: &Config,
    unit: Unit,
    trace: bool,
    stop: &AtomicBool,
) -> Result<UnitResult, RunError> {
    if stop.load(Ordering::Relaxed) {
        return Err(RunError::Cancelled);
    }
    model::simulate_until(
        config,
        unit.strategy,
        unit.replication,
        trace && unit.replication == 0,
        stop,
    )
    .map_err(|cause| match cause {
        SimError::Stopped => RunError::Cancelled,
        cause => RunError::Engine {
            strategy: config.strategies[unit.strategy].name.clone(),
            replication: unit.replication,
            cause,
        },
    })
}

/// Rows of `jobs.csv` beyond which `--trace` is refused (about 2 GB of memory).
pub const TRACE_ROWS_MAX: f64 = 1e7;

/// `--trace` keeps every job of replication 0 of each strategy in memory until the end: a
/// scenario for which that is more than [`TRACE_ROWS_MAX`] rows is refused, saying why.
pub fn check_trace(config: &Config) -> Result<(), String> {
    let rows = config.jobs_per_unit_estimate * config.strategies.len() as f64;
    if rows > TRACE_ROWS_MAX {
        return Err(format!(
            "--trace would keep about {:.1e} job rows in memory ({} strategies x {} jobs of replication 0), more than {TRACE_ROWS_MAX:.0e}; drop --trace, or shorten horizon_months (e.g. --set horizon_months=1) for the trace",
            rows,
            config.strategies.len(),
            thousands(config.jobs_per_unit_estimate, 0)
        ));
    }
    Ok(())
}

/// The whole run: every unit, then the statistics.
pub fn run(
    config: &Config,
    trace: bool,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Result<RunOutput, RunError> {
    let units = simulate_units(config, &units(config), trace, done, stop)?;
    let aggregates = stats::summarize(config, &units);
    let events = units.iter().map(|u| u.events).sum();
    Ok(RunOutput {
        units,
        aggregates,
        events,
    })
}
