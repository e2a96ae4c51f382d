//! `fleetsim optimize`: the cheapest fleet that meets the service levels, with a statement of
//! how sure it is.
//!
//! - [`metric`]: the objective and the constraints (`wait_p95_h <= 2`), read from a unit.
//! - [`space`]: the candidates (one value of each varied parameter), and coordinate search.
//! - [`select`]: sequential ranking and selection under constraints (no simulation).
//! - [`evaluate`]: simulates candidates' replications with common random numbers, with a
//!   cache of what an earlier, interrupted run already simulated.
//! - [`result`]: what the search found, as the rows of `optimize.csv` and
//!   `recommendation.json`.
//!
//! [`prepare`] resolves the question (flags over the file's `[optimize]` table) and checks
//! it; [`Prepared::run`] answers it. Everything depends only on the question and the seed:
//! the same on any number of threads, and after a resume.

pub mod evaluate;
pub mod metric;
pub mod result;
pub mod run;
pub mod select;
pub mod space;

use std::path::PathBuf;

use toml::Value;

use crate::records::{OptimizeInfo, OptimizeParameter};
use crate::scenario::{Config, Loaded, Override, ScenarioError, Source};
use crate::sweep::plan::finite_parameters;
use crate::sweep::{Spec, SweepError, Vary, fnv1a_hex};
pub use evaluate::{Hooks, Progress};
pub use metric::{Bound, Constraint, MetricRef};
pub use result::Outcome;
use select::{Holding, Settings};
use space::{GRID_MAX, Space};

/// Replications of every candidate at the first stage.
pub const INITIAL_REPLICATIONS: u32 = 5;
/// Replications of a candidate at most, by default.
pub const MAX_REPLICATIONS: u32 = 160;
/// The indifference zone by default: a difference in the objective below 1 % of it does
/// not matter to a buying decision.
pub const INDIFFERENCE: f64 = 0.01;
/// Extra starting points of a coordinate search, by default.
pub const RESTARTS: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum OptimizeError {
    #[error(transparent)]
    Scenario(Box<ScenarioError>),
    #[error(transparent)]
    Sweep(Box<SweepError>),
    /// A flag or `[optimize]` field that cannot be used; `at` names it.
    #[error("{at}: {problem}")]
    Question { at: String, problem: String },
    #[error(
        "{}: nothing to vary: give --vary PATH=SPEC (e.g. --vary pool.dgx.nodes=0..16:1), or an [optimize] table with `vary` in the scenario",
        .path.display()
    )]
    NothingToVary { path: PathBuf },
    #[error(
        "interrupted: {done} replications are saved; run the same command with --resume to go on"
    )]
    Interrupted { done: u64 },
    #[error("{0}")]
    Simulation(String),
    #[error("cannot record an evaluation: {0}")]
    Record(String),
}

// Boxed: the big variants would make every `Result` of the search as large as they are.
impl From<ScenarioError> for OptimizeError {
    fn from(error: ScenarioError) -> Self {
        Self::Scenario(Box::new(error))
    }
}

impl From<SweepError> for OptimizeError {
    fn from(error: SweepError) -> Self {
        Self::Sweep(Box::new(error))
    }
}

/// How the candidates are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// The grid if it has at most [`GRID_MAX`] points, else coordinate search.
    Auto,
    Grid,
    Coordinate,
}

/// What `fleetsim optimize` was asked (None and empty: the `[optimize]` table's, or the
/// defaults).
#[derive(Debug, Clone)]
pub struct Request {
    pub scenario: PathBuf,
    pub vary: Vec<Vary>,
    pub strategies: Vec<String>,
    pub minimize: Option<String>,
    pub subject_to: Vec<String>,
    pub confidence: Option<f64>,
    pub budget: Option<u64>,
    /// `--set` and `--seed` as overrides, applied to every candidate.
    pub set: Vec<Override>,
    pub search: Search,
    pub initial_replications: u32,
    pub max_replications: u32,
    pub indifference: f64,
    pub restarts: u32,
}

/// A question, checked: ready to run.
pub struct Prepared {
    pub source: Source,
    pub base: Loaded,
    pub set: Vec<Override>,
    pub space: Space,
    /// Indices into the scenario's strategies.
    pub strategies: Vec<usize>,
    pub objective: MetricRef,
    pub constraints: Vec<Constraint>,
    pub settings: Settings,
    /// True: coordinate search; false: the whole grid.
    pub coordinate: bool,
    pub restarts: u32,
    /// `optimize.json`: the question, with its id.
    pub info: OptimizeInfo,
    pub warnings: Vec<String>,
}

impl Prepared {
    /// The base scenario's configuration (every candidate shares its seed and horizon).
    pub fn config(&self) -> &Config {
        &self.base.config
    }

    /// The metrics read from each replication: the objective, then each constraint's.
    pub fn metrics(&self) -> Vec<&MetricRef> {
        std::iter::once(&self.objective)
            .chain(self.constraints.iter().map(|c| &c.metric))
            .collect()
    }
}

/// Reads the scenario and resolves the question: flags first, then the file's
/// `[optimize]` table, then the defaults.
pub fn prepare(request: &Request) -> Result<Prepared, OptimizeError> {
    let source = Source::read(&request.scenario)?;
    let base = source.load(&request.set)?;
    let file = base.resolved.optimize.clone().unwrap_or_default();
    let at_file = |field: &str| match source.line(&format!("optimize.{field}")) {
        Some(line) => format!(
            "{}: line {line}: `optimize.{field}`",
            request.scenario.display()
        ),
        None => format!("{}: `optimize.{field}`", request.scenario.display()),
    };
    let mut warnings = base.warnings.clone();
    let varies = varies(request, &source, &file, &at_file, &mut warnings)?;
    if varies.is_empty() {
        return Err(OptimizeError::NothingToVary {
            path: request.scenario.clone(),
        });
    }
    let parameters = finite_parameters(&request.set, &source, varies, &mut warnings)?;
    let space = Space {
        paths: parameters.iter().map(|(p, _)| p.clone()).collect(),
        levels: parameters.into_iter().map(|(_, v)| v).collect(),
    };
    let config = &base.config;
    let (flag_or_file, from) = if request.strategies.is_empty() {
        (file.strategy.clone(), at_file("strategy"))
    } else {
        (request.strategies.clone(), "--strategy".to_string())
    };
    let strategies = strategies(config, &flag_or_file, &from)?;
    let minimize = request
        .minimize
        .clone()
        .or(file.minimize.clone())
        .unwrap_or_else(|| crate::records::metric::TOTAL_COST.into());
    let objective =
        MetricRef::parse(&minimize, config).map_err(|problem| OptimizeError::Question {
            at: if request.minimize.is_some() {
                "--minimize".into()
            } else {
                at_file("minimize")
            },
            problem,
        })?;
    let (texts, from) = if request.subject_to.is_empty() {
        (file.subject_to.clone(), at_file("subject_to"))
    } else {
        (request.subject_to.clone(), "--subject-to".to_string())
    };
    let constraints = texts
        .iter()
        .map(|t| Constraint::parse(t, config))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|problem| OptimizeError::Question {
            at: from.clone(),
            problem,
        })?;
    let confidence = request.confidence.or(file.confidence);
    if let Some(c) = confidence
        && !(0.5..=0.999).contains(&c)
    {
        return Err(OptimizeError::Question {
            at: "confidence".into(),
            problem: format!("{c} is not a confidence from 0.5 to 0.999"),
        });
    }
    let settings = Settings {
        initial: request.initial_replications.min(request.max_replications),
        max: request.max_replications,
        confidence: confidence.unwrap_or(0.95),
        holding: confidence.map_or(Holding::Mean, Holding::Upper),
        indifference: request.indifference,
        budget: request.budget.or(file.budget),
    };
    let coordinate = match request.search {
        Search::Grid => false,
        Search::Coordinate => true,
        Search::Auto => space.size() > GRID_MAX,
    };
    if !coordinate && space.size() > crate::sweep::POINTS_MAX {
        return Err(OptimizeError::Question {
            at: "--search grid".into(),
            problem: format!(
                "the grid has {} points, more than {}: use --search coordinate",
                crate::format::thousands(space.size() as f64, 0),
                crate::sweep::POINTS_MAX
            ),
        });
    }
    let info = info(
        request,
        &base,
        &space,
        &strategies,
        &objective,
        &constraints,
        settings,
        coordinate,
    );
    Ok(Prepared {
        source,
        base,
        set: request.set.clone(),
        space,
        strategies,
        objective,
        constraints,
        settings,
        coordinate,
        restarts: request.restarts,
        info,
        warnings,
    })
}

/// The parameters: `--vary`, or else the `[optimize]` table's `vary`.
fn varies(
    request: &Request,
    source: &Source,
    file: &crate::scenario::OptimizeFile,
    at_file: &dyn Fn(&str) -> String,
    warnings: &mut Vec<String>,
) -> Result<Vec<(Vary, String)>, OptimizeError> {
    if !request.vary.is_empty() {
        if !file.vary.is_empty() {
            warnings.push(format!(
                "{}: its [optimize] vary is ignored: --vary replaces it",
                request.scenario.display()
            ));
        }
        return Ok(request
            .vary
            .iter()
            .map(|v| (v.clone(), format!("--vary {}={}", v.path, v.text)))
            .collect());
    }
    let mut varies = Vec::new();
    for path in source.vary_order("optimize") {
        let at = at_file(&format!("vary.{path}"));
        let (spec, text) =
            Spec::from_toml(&file.vary[&path]).map_err(|problem| OptimizeError::Question {
                at: at.clone(),
                problem,
            })?;
        varies.push((Vary { path, spec, text }, at));
    }
    Ok(varies)
}

fn strategies(config: &Config, names: &[String], from: &str) -> Result<Vec<usize>, OptimizeError> {
    if names.is_empty() {
        return Ok((0..config.strategies.len()).collect());
    }
    let mut picked = Vec::new();
    for name in names {
        let Some(index) = config.strategies.iter().position(|s| &s.name == name) else {
            let known: Vec<&str> = config.strategies.iter().map(|s| s.name.as_str()).collect();
            return Err(OptimizeError::Question {
                at: from.to_string(),
                problem: format!(
                    "the scenario has no strategy `{name}`; it has {}",
                    known.join(", ")
                ),
            });
        };
        if !picked.contains(&index) {
            picked.push(index);
        }
    }
    Ok(picked)
}

#[allow(clippy::too_many_arguments)]
fn info(
    request: &Request,
    base: &Loaded,
    space: &Space,
    strategies: &[usize],
    objective: &MetricRef,
    constraints: &[Constraint],
    settings: Settings,
    coordinate: bool,
) -> OptimizeInfo {
    let config = &base.config;
    let mut resolved = base.resolved.clone();
    resolved.sweep = None;
    resolved.optimize = None;
    let mut info = OptimizeInfo {
        fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
        optimize_id: String::new(),
        scenario_name: config.name.clone(),
        scenario_file: request
            .scenario
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        set: request.set.iter().map(|o| o.text.clone()).collect(),
        seed: config.seed,
        currency: config.currency.clone(),
        strategies: strategies
            .iter()
            .map(|&s| config.strategies[s].name.clone())
            .collect(),
        parameters: space
            .paths
            .iter()
            .zip(&space.levels)
            .map(|(path, levels)| OptimizeParameter {
                path: path.clone(),
                values: levels.iter().map(json).collect(),
            })
            .collect(),
        minimize: objective.text.clone(),
        subject_to: constraints.iter().map(|c| c.text.clone()).collect(),
        tolerances: constraints.iter().map(|c| c.tolerance).collect(),
        confidence: settings.confidence,
        constraints_hold: match settings.holding {
            Holding::Mean => "in the mean".into(),
            Holding::Upper(c) => format!("at the bound of the {} % interval", c * 100.0),
        },
        initial_replications: settings.initial,
        max_replications: settings.max,
        indifference: settings.indifference,
        budget: settings.budget,
        search: if coordinate {
            format!(
                "coordinate search from the centre and {} more starts",
                request.restarts
            )
        } else {
            "every point of the grid".into()
        },
        restarts: if coordinate { request.restarts } else { 0 },
        scenario: serde_json::to_value(&resolved).expect("a scenario serializes"),
    };
    info.optimize_id = fnv1a_hex(&serde_json::to_vec(&info).expect("records serialize"));
    info
}

/// A parameter value as JSON (for `optimize.json` and `recommendation.json`).
pub fn json(value: &Value) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
