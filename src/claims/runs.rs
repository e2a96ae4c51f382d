//! Direct runs of a claim's scenario, in memory: at one set of values of its swept fields
//! (the bisections), or at every point of its sweep with fewer replications (the stability
//! check). Replication `r` of a run is the same history whatever the number of replications
//! (common random numbers), so a run of 10 replications is the first 10 of a run of 30.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::{Point, Probe};
use crate::files::Cell;
use crate::records::RunOutput;
use crate::runner;
use crate::scenario::{Config, Override};
use crate::sweep::{self, Vary};

/// Runs of one claim's scenario at a number of replications.
pub struct DirectRuns<'a> {
    pub scenario: PathBuf,
    /// The study's `--set`, `--replications` and `--seed`; the replications of
    /// [`DirectRuns::replications`] go after them.
    pub set: Vec<Override>,
    /// The swept fields, in the sweep's order.
    pub parameters: Vec<String>,
    pub replications: u32,
    pub stop: &'a AtomicBool,
}

impl DirectRuns<'_> {
    /// The overrides of every run: the study's, then the replications.
    fn overrides(&self) -> Vec<Override> {
        let mut set = self.set.clone();
        set.push(Override::new(
            "replications",
            toml::Value::Integer(i64::from(self.replications)),
        ));
        set
    }

    /// The claim's sweep (its own `[sweep]` when `vary` is empty), planned.
    fn plan(&self, vary: Vec<Vary>) -> Result<sweep::Plan, String> {
        let request = sweep::Request {
            scenario: self.scenario.clone(),
            vary,
            sampling: None,
            set: self.overrides(),
            focus: None,
        };
        sweep::plan(&request).map_err(|error| error.to_string())
    }

    /// The scenario as loaded with the runs' overrides, before any sweep.
    pub fn config(&self) -> Result<Config, String> {
        crate::scenario::load(&self.scenario, &self.overrides())
            .map(|loaded| loaded.config)
            .map_err(|error| error.to_string())
    }

    /// Every point of the claim's sweep, in its order.
    pub fn grid(&self) -> Result<Vec<Point>, String> {
        let plan = self.plan(Vec::new())?;
        let mut points = Vec::with_capacity(plan.points.len());
        for planned in &plan.points {
            let values = sweep::plan::cells(&plan.info, planned.point())
                .iter()
                .map(number_of)
                .collect();
            points.push(self.simulate(&planned.config, values)?);
        }
        Ok(points)
    }

    fn simulate(&self, config: &Config, values: Vec<f64>) -> Result<Point, String> {
        let output =
            runner::run(config, false, &|| {}, self.stop).map_err(|error| error.to_string())?;
        Ok(point_of(values, &output))
    }
}

impl Probe for DirectRuns<'_> {
    fn run(&self, values: &[f64]) -> Result<Point, String> {
        let vary = self
            .parameters
            .iter()
            .zip(values)
            .map(|(path, value)| Vary::parse(&format!("{path}={value}")))
            .collect::<Result<Vec<_>, _>>()?;
        let plan = self.plan(vary)?;
        let planned = plan.points.first().ok_or("the direct run has no point")?;
        self.simulate(&planned.config, values.to_vec())
    }

    fn replications(&self) -> u32 {
        self.replications
    }
}

/// A run's figures as a point at `values`.
fn point_of(values: Vec<f64>, output: &RunOutput) -> Point {
    Point {
        values,
        summary: output.aggregates.summary.clone(),
        pools: output
            .units
            .iter()
            .flat_map(|unit| unit.pools.iter().cloned())
            .collect(),
    }
}

/// A parameter's cell as a number (NaN for text: no claim's rule reads a named parameter).
pub fn number_of(cell: &Cell) -> f64 {
    match cell {
        Cell::Number(x) => *x,
        Cell::Integer(n) => *n as f64,
        Cell::Count(n) => *n as f64,
        Cell::Text(_) | Cell::Bool(_) | Cell::Empty => f64::NAN,
    }
}
