//! From a scenario and its `--vary` (or `[sweep]` table) to the checked points of a sweep and
//! its description, `sweep.json`.
//!
//! Every point is loaded and checked before anything runs, and all failing points are
//! reported at once. The values a spec gives are typed for the field they go to: a range over
//! `pool.dgx.nodes` gives 0, 2, 4, not 0.0 (see [`crate::scenario::FieldKind`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::Value;

use super::design::{grid, grid_size, lhs_unit, pick, random_unit};
use super::spec::{Domain, Sampling, Spec, Vary};
use super::{POINTS_MAX, SweepError, fnv1a_hex};
use crate::files::Cell;
use crate::records::{ChargePeriod, RunInfo, SweepInfo, SweepParameter, SweepPoint, SweepSampling};
use crate::scenario::{
    Config, FieldKind, Loaded, Override, ScenarioError, Source, SweepFile, UnitDigest,
};

/// What `fleetsim sweep` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    pub scenario: PathBuf,
    /// `--vary`, in the order given; empty: the scenario's `[sweep]` table.
    pub vary: Vec<Vary>,
    /// `--sample`; None: the `[sweep]` table's, else the grid.
    pub sampling: Option<Sampling>,
    /// Applied at every point: `--set`, then `--replications` and `--seed` as overrides.
    pub set: Vec<Override>,
    /// `--focus`: every point also writes `focus.csv` with charges by this period.
    pub focus: Option<ChargePeriod>,
}

/// A checked sweep, ready to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `sweep.json`.
    pub info: SweepInfo,
    /// In the order of `info.points`.
    pub points: Vec<PlannedPoint>,
    /// About the scenario and the points (legal but suspicious), to show before running.
    pub warnings: Vec<String>,
}

/// One point, checked.
#[derive(Debug, Clone)]
pub struct PlannedPoint {
    pub config: Config,
    /// The point's `run.json`, less what only the results tell (events, break-even, files).
    pub run_info: RunInfo,
    /// Per strategy, [`Config::unit_digest`]: equal digests at two points, equal units.
    pub digests: Vec<UnitDigest>,
}

impl PlannedPoint {
    pub fn point(&self) -> &SweepPoint {
        self.run_info
            .sweep_point
            .as_ref()
            .expect("a planned point has its sweep point")
    }
}

/// "point 7 (pool.dgx.nodes=4, ...)": how messages name a point.
pub fn label(info: &SweepInfo, point: &SweepPoint) -> String {
    let values: Vec<String> = info
        .parameters
        .iter()
        .map(|p| format!("{}={}", p.path, show(&point.parameters[&p.path])))
        .collect();
    format!("point {} ({})", point.id, values.join(", "))
}

/// A value as people read it: `fifo`, not `"fifo"`; `1`, not `1.0`.
fn show(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) if n.is_f64() => n.as_f64().unwrap_or(f64::NAN).to_string(),
        other => other.to_string(),
    }
}

/// The `sweep.csv` cells of a point's parameters, in the sweep's order.
pub fn cells(info: &SweepInfo, point: &SweepPoint) -> Vec<Cell> {
    info.parameters
        .iter()
        .map(|p| match &point.parameters[&p.path] {
            serde_json::Value::String(s) => Cell::Text(s.clone()),
            serde_json::Value::Bool(b) => Cell::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Cell::Integer(i)
                } else if let Some(u) = n.as_u64() {
                    Cell::Count(u)
                } else {
                    Cell::Number(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            other => Cell::Text(other.to_string()),
        })
        .collect()
}

/// Per strategy, whether each varied parameter can change its results: `strategy.S.*` only
/// strategy S's, `pool.P.*` only those of the strategies using pool P, any other field all.
pub fn relevance(info: &SweepInfo) -> Vec<Vec<bool>> {
    let strategies = info.scenario["strategy"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    info.strategies
        .iter()
        .map(|name| {
            let pools: Vec<&str> = strategies
                .iter()
                .find(|s| s["name"].as_str() == Some(name))
                .and_then(|s| s["pools"].as_array())
                .map(|pools| pools.iter().filter_map(|p| p.as_str()).collect())
                .unwrap_or_default();
            info.parameters
                .iter()
                .map(|p| {
                    let mut parts = p.path.splitn(3, '.');
                    match (parts.next(), parts.next(), parts.next()) {
                        (Some("strategy"), Some(strategy), Some(_)) => strategy == name,
                        (Some("pool"), Some(pool), Some(_)) => pools.contains(&pool),
                        _ => true,
                    }
                })
                .collect()
        })
        .collect()
}

/// For `validate`: what the scenario's `[sweep]` table would run, if it has one (`source`,
/// already read, and its base load `loaded`).
pub fn describe(
    scenario: &Path,
    set: &[Override],
    source: &Source,
    loaded: Loaded,
) -> Result<Option<String>, SweepError> {
    let request = Request {
        scenario: scenario.to_path_buf(),
        vary: Vec::new(),
        sampling: None,
        set: set.to_vec(),
        focus: None,
    };
    let plan = match plan_loaded(&request, source, loaded) {
        Ok(plan) => plan,
        Err(SweepError::NothingToVary { .. }) => return Ok(None),
        Err(error) => return Err(error),
    };
    let info = &plan.info;
    let method = match info.sampling.method.as_str() {
        "grid" => "a grid".to_string(),
        "lhs" => "a Latin hypercube sample".to_string(),
        other => format!("a {other} sample"),
    };
    Ok(Some(format!(
        "[sweep]: {} points, {method} over {}",
        info.points.len(),
        info.parameters
            .iter()
            .map(|p| p.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// One parameter while planning: where it came from (for messages), its spec and domain.
struct Parameter {
    vary: Vary,
    at: String,
    kind: FieldKind,
    domain: Domain,
}

/// Reads the scenario, works out the points and checks each of them.
pub fn plan(request: &Request) -> Result<Plan, SweepError> {
    plan_source(request, &Source::read(&request.scenario)?)
}

/// [`plan`] of a scenario already read, or given as text (`request.scenario` names it).
pub fn plan_source(request: &Request, source: &Source) -> Result<Plan, SweepError> {
    let base = source.load(&request.set)?;
    plan_loaded(request, source, base)
}

/// [`plan`] of a scenario already read (`source`, whose base load with `request.set` is
/// `base`): `validate` reads its file once, which a fifo allows.
pub fn plan_loaded(request: &Request, source: &Source, base: Loaded) -> Result<Plan, SweepError> {
    let mut warnings = base.warnings.clone();
    let file_name = request
        .scenario
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let (varies, sampling) = varies(request, source, &base, &file_name, &mut warnings)?;
    if varies.is_empty() {
        return Err(SweepError::NothingToVary {
            path: request.scenario.clone(),
        });
    }
    let parameters = parameters(request, source, varies, &mut warnings)?;
    let values = point_values(&parameters, sampling, base.config.seed)?;
    let points = plan_points(
        request,
        source,
        &base,
        &file_name,
        &parameters,
        &values,
        &mut warnings,
    )?;
    let info = sweep_info(request, &base, file_name, sampling, &parameters, &points);
    Ok(Plan {
        info,
        points,
        warnings,
    })
}

/// The parameters to vary, each with where it was given (for messages), and the sampling:
/// from the command line, or else from the file's `[sweep]` table.
fn varies(
    request: &Request,
    source: &Source,
    base: &Loaded,
    file_name: &str,
    warnings: &mut Vec<String>,
) -> Result<(Vec<(Vary, String)>, Sampling), SweepError> {
    let file_sweep = base.resolved.sweep.clone().unwrap_or_default();
    if request.vary.is_empty() {
        return file_varies(request, source, &file_sweep);
    }
    if !file_sweep.vary.is_empty() {
        warnings.push(format!(
            "{file_name}: its [sweep] table is ignored: --vary replaces it"
        ));
    }
    let varies = request
        .vary
        .iter()
        .map(|v| (v.clone(), format!("--vary {}={}", v.path, v.text)))
        .collect();
    Ok((varies, request.sampling.unwrap_or(Sampling::Grid)))
}

/// The parameters and sampling of the file's `[sweep]` table.
fn file_varies(
    request: &Request,
    source: &Source,
    file_sweep: &SweepFile,
) -> Result<(Vec<(Vary, String)>, Sampling), SweepError> {
    let mut varies = Vec::new();
    for path in source.sweep_vary_order() {
        let at = match source.line(&format!("sweep.vary.{path}")) {
            Some(line) => format!(
                "{}: line {line}: `sweep.vary.{path}`",
                request.scenario.display()
            ),
            None => format!("{}: `sweep.vary.{path}`", request.scenario.display()),
        };
        let value = &file_sweep.vary[&path];
        let (spec, text) = Spec::from_toml(value).map_err(|problem| SweepError::Vary {
            at: at.clone(),
            problem,
        })?;
        varies.push((Vary { path, spec, text }, at));
    }
    let sampling = match (request.sampling, &file_sweep.sample) {
        (Some(sampling), _) => sampling,
        (None, Some(text)) => Sampling::parse(text).map_err(|problem| SweepError::Vary {
            at: match source.line("sweep.sample") {
                Some(line) => format!(
                    "{}: line {line}: `sweep.sample`",
                    request.scenario.display()
                ),
                None => format!("{}: `sweep.sample`", request.scenario.display()),
            },
            problem,
        })?,
        (None, None) => Sampling::Grid,
    };
    Ok((varies, sampling))
}

/// The values of each parameter of `varies` (each with where it was given), typed for its
/// field as a sweep's grid types them: what `fleetsim optimize` searches. An interval (which
/// only a sample can draw from) is an error saying how to give values instead.
pub fn finite_parameters(
    set: &[Override],
    source: &Source,
    varies: Vec<(Vary, String)>,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, Vec<Value>)>, SweepError> {
    let request = Request {
        scenario: PathBuf::new(),
        vary: Vec::new(),
        sampling: None,
        set: set.to_vec(),
        focus: None,
    };
    let parameters = parameters(&request, source, varies, warnings)?;
    parameters
        .into_iter()
        .map(|p| match p.domain {
            Domain::Finite(values) => Ok((p.vary.path, values)),
            Domain::Interval { .. } => Err(SweepError::Vary {
                at: p.at,
                problem: format!(
                    "`{}` is an interval; give values to search: a STEP (`{}:1`) or a count (`{}:lin:9`)",
                    p.vary.text, p.vary.text, p.vary.text
                ),
            }),
        })
        .collect()
}

/// Each parameter once, not also fixed by --set, typed for its field, with its domain.
fn parameters(
    request: &Request,
    source: &Source,
    varies: Vec<(Vary, String)>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Parameter>, SweepError> {
    let mut parameters: Vec<Parameter> = Vec::new();
    for (vary, at) in varies {
        let fail = |problem: String| SweepError::Vary {
            at: at.clone(),
            problem,
        };
        if parameters.iter().any(|p| p.vary.path == vary.path) {
            return Err(fail(format!("`{}` is varied twice", vary.path)));
        }
        if request.set.iter().any(|o| o.path == vary.path) {
            return Err(fail(format!(
                "`{}` is also fixed by --set; drop one of them",
                vary.path
            )));
        }
        let kind = source
            .field_kind(&request.set, &vary.path, &vary.spec.example())
            .map_err(&fail)?;
        let (domain, notes) = vary.spec.domain(kind, &vary.path).map_err(&fail)?;
        warnings.extend(notes.into_iter().map(|note| format!("{at}: {note}")));
        parameters.push(Parameter {
            vary,
            at,
            kind,
            domain,
        });
    }
    Ok(parameters)
}

/// Loads and checks the scenario at every point; the warnings that only some points give are
/// added to `warnings`, each once with the points that give it.
fn plan_points(
    request: &Request,
    source: &Source,
    base: &Loaded,
    file_name: &str,
    parameters: &[Parameter],
    values: &[Vec<Value>],
    warnings: &mut Vec<String>,
) -> Result<Vec<PlannedPoint>, SweepError> {
    let version = env!("CARGO_PKG_VERSION");
    let width = (values.len().saturating_sub(1)).to_string().len().max(3);
    let mut points = Vec::with_capacity(values.len());
    let mut failures = Vec::new();
    // The same warning at many points is said once, naming the points.
    let mut point_warnings: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for (index, point_values) in values.iter().enumerate() {
        let id = format!("{index:0width$}");
        let mut overrides = request.set.clone();
        overrides.extend(
            parameters
                .iter()
                .zip(point_values)
                .map(|(p, value)| Override::new(&p.vary.path, value.clone())),
        );
        let parameters_json: BTreeMap<String, serde_json::Value> = parameters
            .iter()
            .zip(point_values)
            .map(|(p, value)| (p.vary.path.clone(), json(value)))
            .collect();
        let shown: Vec<String> = parameters
            .iter()
            .zip(point_values)
            .map(|(p, value)| format!("{}={}", p.vary.path, show(&json(value))))
            .collect();
        let point_label = format!("point {id} ({})", shown.join(", "));
        let loaded = match source.load(&overrides) {
            Ok(loaded) => loaded,
            Err(error) => {
                failures.push(format!("{point_label}: {}", explain(&error, parameters)));
                continue;
            }
        };
        for warning in &loaded.warnings {
            if !base.warnings.contains(warning) {
                let point = (id.clone(), point_label.clone());
                match point_warnings.iter_mut().find(|(w, _)| w == warning) {
                    Some((_, points)) => points.push(point),
                    None => point_warnings.push((warning.clone(), vec![point])),
                }
            }
        }
        let mut resolved = loaded.resolved.clone();
        resolved.sweep = None;
        let scenario = serde_json::to_value(&resolved).expect("a scenario serializes");
        let fingerprint = fnv1a_hex(format!("{version}\n{scenario}").as_bytes());
        let config = loaded.config;
        let mut command_line = vec!["fleetsim".to_string(), "run".into(), file_name.to_string()];
        for o in &overrides {
            command_line.push("--set".into());
            command_line.push(o.text.clone());
        }
        if let Some(period) = request.focus {
            command_line.push("--focus-period".into());
            command_line.push(period.as_str().into());
        }
        let run_info = RunInfo {
            command_line,
            scenario_source: file_name.to_string(),
            sweep_point: Some(SweepPoint {
                index,
                id,
                parameters: parameters_json,
                fingerprint,
                estimated_cost: estimated_cost(&config),
                same_units_as: BTreeMap::new(),
            }),
            ..RunInfo::new(&config, scenario, loaded.warnings)
        };
        let digests = (0..config.strategies.len())
            .map(|s| config.unit_digest(s))
            .collect();
        points.push(PlannedPoint {
            config,
            run_info,
            digests,
        });
    }
    for (warning, points) in point_warnings {
        warnings.push(match points.as_slice() {
            [(_, label)] => format!("{label}: {warning}"),
            _ => format!("{}: {warning}", some_points(&points)),
        });
    }
    if !failures.is_empty() {
        return Err(SweepError::InvalidPoints {
            failures,
            total: values.len(),
        });
    }
    note_same_units(&mut points);
    Ok(points)
}

/// Tells each point which of its strategies have the inputs of an earlier point, and so that
/// point's units (`same_units_as`).
fn note_same_units(points: &mut [PlannedPoint]) {
    let mut first: BTreeMap<(usize, UnitDigest), String> = BTreeMap::new();
    for point in points.iter_mut() {
        let id = point.point().id.clone();
        for (s, digest) in point.digests.iter().enumerate() {
            let source = first.entry((s, *digest)).or_insert_with(|| id.clone());
            if *source != id {
                let name = point.config.strategies[s].name.clone();
                let sweep_point = point.run_info.sweep_point.as_mut().expect("a sweep point");
                sweep_point.same_units_as.insert(name, source.clone());
            }
        }
    }
}

/// `sweep.json` of a planned sweep.
fn sweep_info(
    request: &Request,
    base: &Loaded,
    file_name: String,
    sampling: Sampling,
    parameters: &[Parameter],
    points: &[PlannedPoint],
) -> SweepInfo {
    let mut resolved = base.resolved.clone();
    resolved.sweep = None;
    let config = &base.config;
    let mut info = SweepInfo {
        fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
        sweep_id: String::new(),
        scenario_name: config.name.clone(),
        scenario_file: file_name,
        set: request.set.iter().map(|o| o.text.clone()).collect(),
        seed: config.seed,
        replications: config.replications,
        currency: config.currency.clone(),
        strategies: config.strategies.iter().map(|s| s.name.clone()).collect(),
        baseline: config.strategies[config.baseline].name.clone(),
        sampling: sampling_info(sampling, config.seed),
        parameters: parameters.iter().map(parameter_info).collect(),
        points: points.iter().map(|p| p.point().clone()).collect(),
        scenario: serde_json::to_value(&resolved).expect("a scenario serializes"),
        focus: request.focus,
    };
    info.sweep_id = sweep_id(&info);
    info
}

/// Names several points by id: all of them up to 6, else the first 5 and the last.
fn some_points(points: &[(String, String)]) -> String {
    const LISTED_MAX: usize = 6;
    let ids: Vec<&str> = points.iter().map(|(id, _)| id.as_str()).collect();
    let listed = if ids.len() <= LISTED_MAX {
        ids.join(", ")
    } else {
        format!(
            "{}, ..., {}",
            ids[..LISTED_MAX - 1].join(", "),
            ids[ids.len() - 1]
        )
    };
    format!("{} points ({listed})", ids.len())
}

/// The id of a sweep: the hash of everything its `sweep.json` says but the id itself.
pub fn sweep_id(info: &SweepInfo) -> String {
    let mut unnamed = info.clone();
    unnamed.sweep_id = String::new();
    fnv1a_hex(&serde_json::to_vec(&unnamed).expect("records serialize"))
}

/// The values of every point, in the order of the parameters.
fn point_values(
    parameters: &[Parameter],
    sampling: Sampling,
    scenario_seed: u64,
) -> Result<Vec<Vec<Value>>, SweepError> {
    let dims = parameters.len();
    let (unit, samples) = match sampling {
        Sampling::Grid => {
            let mut lists = Vec::with_capacity(dims);
            for p in parameters {
                match &p.domain {
                    Domain::Finite(values) => lists.push(values.clone()),
                    Domain::Interval { .. } => {
                        return Err(SweepError::Vary {
                            at: p.at.clone(),
                            problem: format!(
                                "`{}` is an interval, which only --sample can draw from; for a grid give a STEP (`{}:2`) or a count (`{}:lin:5`)",
                                p.vary.text, p.vary.text, p.vary.text
                            ),
                        });
                    }
                }
            }
            let detail = lists
                .iter()
                .map(|l| l.len().to_string())
                .collect::<Vec<_>>()
                .join(" x ");
            return match grid_size(&lists) {
                Some(n) if n <= POINTS_MAX => Ok(grid(&lists)),
                Some(n) => Err(SweepError::TooManyPoints {
                    points: crate::format::thousands(n as f64, 0),
                    detail,
                }),
                None => Err(SweepError::TooManyPoints {
                    points: "too many".into(),
                    detail,
                }),
            };
        }
        Sampling::Random { samples, seed } => (
            random_unit(samples as usize, dims, seed.unwrap_or(scenario_seed)),
            samples,
        ),
        Sampling::Lhs { samples, seed } => (
            lhs_unit(samples as usize, dims, seed.unwrap_or(scenario_seed)),
            samples,
        ),
    };
    assert_eq!(unit.len(), samples as usize, "one unit point per sample");
    Ok(unit
        .iter()
        .map(|u| {
            parameters
                .iter()
                .zip(u)
                .map(|(p, &x)| pick(&p.domain, x))
                .collect()
        })
        .collect())
}

fn json(value: &Value) -> serde_json::Value {
    serde_json::to_value(value).expect("a TOML value is JSON")
}

/// A point's scenario error in one line, naming varied fields as such.
fn explain(error: &ScenarioError, parameters: &[Parameter]) -> String {
    let varied = |field: &str| {
        parameters
            .iter()
            .any(|p| field == p.vary.path || field.starts_with(&format!("{}.", p.vary.path)))
    };
    match error {
        ScenarioError::Invalid { issues, .. } => issues
            .iter()
            .map(|issue| {
                if issue.from_set && varied(&issue.field) {
                    format!("`{}` {}", issue.field, issue.problem)
                } else {
                    issue.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
        ScenarioError::Override { set, problem, .. } => format!("`{set}`: {problem}"),
        other => other.to_string(),
    }
}

fn parameter_info(p: &Parameter) -> SweepParameter {
    let (values, interval, log) = match &p.domain {
        Domain::Finite(values) => (Some(values.iter().map(json).collect()), None, false),
        Domain::Interval {
            start, end, log, ..
        } => (None, Some([*start, *end]), *log),
    };
    let log = log || matches!(p.vary.spec, Spec::Count { log: true, .. });
    SweepParameter {
        path: p.vary.path.clone(),
        spec: p.vary.text.clone(),
        kind: match p.kind {
            FieldKind::Integer => "integer",
            FieldKind::Number => "number",
            FieldKind::AsWritten => "as written",
        }
        .to_string(),
        values,
        interval,
        log,
    }
}

fn sampling_info(sampling: Sampling, scenario_seed: u64) -> SweepSampling {
    match sampling {
        Sampling::Grid => SweepSampling {
            method: "grid".into(),
            samples: None,
            seed: None,
        },
        Sampling::Random { samples, seed } => SweepSampling {
            method: "random".into(),
            samples: Some(samples),
            seed: Some(seed.unwrap_or(scenario_seed)),
        },
        Sampling::Lhs { samples, seed } => SweepSampling {
            method: "lhs".into(),
            samples: Some(samples),
            seed: Some(seed.unwrap_or(scenario_seed)),
        },
    }
}

/// What simulating a point costs, relatively: expected jobs (plus a share per month for
/// everything else that happens) times strategies times replications. Shards balance it.
pub fn estimated_cost(config: &Config) -> f64 {
    let months = config.calendar.months();
    let jobs: f64 = config
        .workloads
        .iter()
        .map(|w| {
            let weekly = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
            (0..months)
                .map(|m| {
                    w.arrivals.arrivals_per_day
                        * weekly
                        * (1.0 + w.arrivals.growth_per_month).powi(m as i32)
                        * config.calendar.month_h(m)
                        / 24.0
                })
                .sum::<f64>()
        })
        .sum();
    ((jobs + 100.0 * months as f64)
        * config.strategies.len() as f64
        * f64::from(config.replications))
    .round()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(path: &str) -> SweepParameter {
        SweepParameter {
            path: path.into(),
            spec: "1,2".into(),
            kind: "integer".into(),
            values: None,
            interval: None,
            log: false,
        }
    }

    #[test]
    fn parameters_matter_to_the_strategies_that_use_them() {
        let info = SweepInfo {
            fleetsim_version: String::new(),
            sweep_id: String::new(),
            scenario_name: "s".into(),
            scenario_file: "s.toml".into(),
            set: Vec::new(),
            seed: 1,
            replications: 1,
            currency: "EUR".into(),
            strategies: vec!["cloud".into(), "hybrid".into()],
            baseline: "cloud".into(),
            sampling: sampling_info(Sampling::Grid, 1),
            parameters: vec![
                parameter("pool.dgx.nodes"),
                parameter("strategy.hybrid.burst_after_wait_h"),
                parameter("pool.cloud.price_per_gpu_h"),
                parameter("horizon_months"),
            ],
            points: Vec::new(),
            focus: None,
            scenario: serde_json::json!({"strategy": [
                {"name": "cloud", "pools": ["cloud"]},
                {"name": "hybrid", "pools": ["dgx", "cloud"]},
            ]}),
        };
        assert_eq!(
            relevance(&info),
            [vec![false, false, true, true], vec![true, true, true, true]]
        );
    }
}
