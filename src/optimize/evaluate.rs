//! Simulates replications of candidates: a candidate is a strategy at a point of the
//! space, its configuration the scenario with the point's values set. Replication r of every
//! candidate draws from the streams of replication r (common random numbers: the streams are
//! keyed by seed, replication and purpose, never by the candidate), so two candidates are
//! compared on the same jobs, preemptions and failures.
//!
//! A replication already simulated by an interrupted run (`Hooks::cached`) is taken from
//! there; every new one is handed to `Hooks::record` (the journal) as soon as it is done. A
//! strategy whose inputs are the same at two points (the point's values belong to other
//! strategies' pools or policies: equal [`Config::unit_digest`]s) is simulated at one of them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::space::Point;
use super::{OptimizeError, Prepared, json};
use crate::runner::{self, RunError, Unit};
use crate::scenario::{Config, Override, UnitDigest};

/// What a run reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A stage begins: `units` replications to simulate.
    Stage { strategy: String, units: u64 },
    /// One replication done.
    Unit,
}

/// Where a new evaluation goes: its key and metric values (the journal); Err stops the run.
pub type Record<'a> = dyn Fn(&str, &[f64]) -> Result<(), String> + Sync + 'a;

/// How a run meets the world: the stop flag, an earlier run's evaluations, where new ones
/// go, and progress.
pub struct Hooks<'a> {
    pub stop: &'a AtomicBool,
    /// Metric values by [`key`], from the journal of an interrupted run.
    pub cached: &'a HashMap<String, Vec<f64>>,
    /// Called with each new evaluation's key and values, from the worker threads.
    pub record: &'a Record<'a>,
    pub progress: &'a (dyn Fn(Progress) + Sync),
}

/// The point as text: `pool.dgx.nodes=4 strategy.hybrid.queue="backfill"` (values as JSON).
pub fn point_text(prepared: &Prepared, point: &[usize]) -> String {
    prepared
        .space
        .assignments(point)
        .iter()
        .map(|(path, value)| format!("{path}={}", json(value)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The key of one evaluation: strategy, point and replication, tab-separated.
pub fn key(strategy: &str, point: &str, replication: u32) -> String {
    format!("{strategy}\t{point}\t{replication}")
}

pub struct Evaluator<'a> {
    prepared: &'a Prepared,
    hooks: &'a Hooks<'a>,
    configs: HashMap<Point, Result<Config, String>>,
    /// Metric values of every replication evaluated, by strategy and point.
    pub rows: HashMap<(usize, Point), Vec<Vec<f64>>>,
    /// The same, by strategy, digest of its inputs and replication.
    by_digest: HashMap<(usize, UnitDigest, u32), Vec<f64>>,
    pub simulated: u64,
    pub reused: u64,
}

impl<'a> Evaluator<'a> {
    pub fn new(prepared: &'a Prepared, hooks: &'a Hooks<'a>) -> Self {
        Self {
            prepared,
            hooks,
            configs: HashMap::new(),
            rows: HashMap::new(),
            by_digest: HashMap::new(),
            simulated: 0,
            reused: 0,
        }
    }

    /// Why the point is not a valid scenario, if it is not (checked once).
    pub fn invalid(&mut self, point: &[usize]) -> Option<String> {
        self.build(point);
        self.configs[point].as_ref().err().cloned()
    }

    fn build(&mut self, point: &[usize]) {
        if self.configs.contains_key(point) {
            return;
        }
        let mut overrides: Vec<Override> = self.prepared.set.clone();
        overrides.extend(
            self.prepared
                .space
                .assignments(point)
                .into_iter()
                .map(|(path, value)| Override::new(&path, value)),
        );
        let config = self
            .prepared
            .source
            .load(&overrides)
            .map(|loaded| loaded.config)
            .map_err(|error| format!("not a valid scenario: {error}"));
        self.configs.insert(point.to_vec(), config);
    }

    /// Replications `from..to` of `strategy` at each point (valid points only), appended to
    /// [`Self::rows`]; returns their metric values in the order asked.
    pub fn evaluate(
        &mut self,
        strategy: usize,
        jobs: &[(Point, u32, u32)],
    ) -> Result<Vec<Vec<f64>>, OptimizeError> {
        for (point, _, _) in jobs {
            self.build(point);
        }
        let name = self.prepared.config().strategies[strategy].name.clone();
        let mut wanted: Vec<(String, &Config, Unit)> = Vec::new();
        // Per replication asked for: its values, or the wanted unit that gives them.
        let mut values: Vec<Result<Vec<f64>, usize>> = Vec::new();
        // Equal inputs asked for twice in this stage are simulated once.
        let mut asked: HashMap<(UnitDigest, u32), usize> = HashMap::new();
        let mut copies: Vec<(String, usize)> = Vec::new();
        let mut digests = Vec::new();
        for (point, from, to) in jobs {
            let config = self.configs[point]
                .as_ref()
                .expect("only valid points are asked for");
            let digest = config.unit_digest(strategy);
            let text = point_text(self.prepared, point);
            for replication in *from..*to {
                digests.push((digest, replication));
                let key = key(&name, &text, replication);
                if let Some(cached) = self.hooks.cached.get(&key) {
                    values.push(Ok(cached.clone()));
                } else if let Some(known) = self.by_digest.get(&(strategy, digest, replication)) {
                    (self.hooks.record)(&key, known).map_err(OptimizeError::Record)?;
                    values.push(Ok(known.clone()));
                } else if let Some(&index) = asked.get(&(digest, replication)) {
                    copies.push((key, index));
                    values.push(Err(index));
                } else {
                    asked.insert((digest, replication), wanted.len());
                    values.push(Err(wanted.len()));
                    let unit = Unit {
                        strategy,
                        replication,
                    };
                    wanted.push((key, config, unit));
                }
            }
        }
        self.reused += values.iter().filter(|v| v.is_ok()).count() as u64 + copies.len() as u64;
        (self.hooks.progress)(Progress::Stage {
            strategy: name,
            units: wanted.len() as u64,
        });
        let simulated = self.simulate(&wanted)?;
        self.simulated += simulated.len() as u64;
        for (key, index) in &copies {
            (self.hooks.record)(key, &simulated[*index]).map_err(OptimizeError::Record)?;
        }
        let values: Vec<Vec<f64>> = values
            .into_iter()
            .map(|v| v.unwrap_or_else(|index| simulated[index].clone()))
            .collect();
        for ((digest, replication), row) in digests.into_iter().zip(&values) {
            self.by_digest
                .entry((strategy, digest, replication))
                .or_insert_with(|| row.clone());
        }
        let mut at = 0;
        for (point, from, to) in jobs {
            let rows = self.rows.entry((strategy, point.clone())).or_default();
            assert_eq!(rows.len(), *from as usize, "replications in order");
            rows.extend(values[at..at + (to - from) as usize].iter().cloned());
            at += (to - from) as usize;
        }
        Ok(values)
    }

    /// Simulates the units in one parallel loop; each result is recorded as it completes.
    fn simulate(&self, wanted: &[(String, &Config, Unit)]) -> Result<Vec<Vec<f64>>, OptimizeError> {
        let work: Vec<(&Config, Unit)> = wanted.iter().map(|(_, c, u)| (*c, *u)).collect();
        let metrics = self.prepared.metrics();
        let out: Mutex<Vec<Option<Vec<f64>>>> = Mutex::new(vec![None; wanted.len()]);
        let done = std::sync::atomic::AtomicU64::new(0);
        let result = runner::simulate_each(&work, self.hooks.stop, &|index, unit| {
            let unit = unit.map_err(|error| match error {
                RunError::Cancelled => OptimizeError::Interrupted { done: 0 },
                other => OptimizeError::Simulation(other.to_string()),
            })?;
            let row: Vec<f64> = metrics.iter().map(|m| m.value(&unit)).collect();
            (self.hooks.record)(&wanted[index].0, &row).map_err(OptimizeError::Record)?;
            out.lock().expect("not poisoned")[index] = Some(row);
            done.fetch_add(1, Ordering::Relaxed);
            (self.hooks.progress)(Progress::Unit);
            Ok(())
        });
        match result {
            Err(OptimizeError::Interrupted { .. }) => Err(OptimizeError::Interrupted {
                done: done.load(Ordering::Relaxed),
            }),
            Err(error) => Err(error),
            Ok(()) => Ok(out
                .into_inner()
                .expect("not poisoned")
                .into_iter()
                .map(|row| row.expect("every unit simulated"))
                .collect()),
        }
    }
}
