//! Runs every (strategy, replication) unit of a scenario in parallel and aggregates them.
//!
//! Units are independent and single-threaded; rayon spreads them over the threads of the
//! current pool and `collect` keeps their order, so the results do not depend on the number of
//! threads. Sums over units happen afterwards, sequentially, in [`crate::stats`].

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::model::{self, SimError};
use crate::records::UnitResult;
use crate::scenario::Config;
use crate::stats::{self, Aggregates};

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
    units
        .par_iter()
        .map(|unit| {
            if stop.load(Ordering::Relaxed) {
                return Err(RunError::Cancelled);
            }
            let result = model::simulate_until(
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
            })?;
            done();
            Ok(result)
        })
        .collect()
}

/// The whole run: every unit, then the statistics.
pub struct RunOutput {
    pub units: Vec<UnitResult>,
    pub aggregates: Aggregates,
    pub events: u64,
}

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
