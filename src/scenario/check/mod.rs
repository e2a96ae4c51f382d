//! Every check of a scenario, run once: a [`ScenarioFile`] becomes a [`Config`] or a list of
//! every problem found, each with its line, field path and what is accepted. Defaults are
//! filled in here too, so the resolved file (for `run.json`) and the `Config` agree.
//!
//! This module holds the [`Checker`] that collects problems, the top-level fields and the
//! order of the checks; each section has its own module: `pools`, `workloads` (with the
//! GPU mixes and duration distributions in `distributions`), `strategies`, `estimates` (the
//! run's size and the bounds it sets) and `warnings` (legal but suspicious fleets).

mod distributions;
mod estimates;
mod instances;
mod money;
mod pools;

pub(crate) use pools::typed_fields;
mod services;
pub(crate) use services::peak_problem;
pub(crate) use warnings::warn_deadline_infeasible;
mod spot;
mod strategies;
mod warnings;
mod workloads;

use std::collections::BTreeSet;

use toml::Value;

use super::config::*;
use super::file::*;
use super::lines::Lines;
use super::overrides::did_you_mean;
use crate::calendar::Calendar;
use crate::names::{self, NameKind};
use workloads::WorkloadContext;

/// One problem in a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Line in the file, or None when the field came from `--set` or is not written.
    pub line: Option<usize>,
    /// Column of the field's key on that line (shown when the key does not start the line,
    /// as in inline tables `{ mean_h = 0 }`).
    pub column: Option<usize>,
    pub from_set: bool,
    pub field: String,
    pub problem: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A field path holds names, which may be the problem: none reaches the terminal raw.
        let field = names::without_controls(&self.field);
        match (self.from_set, self.line, self.column) {
            (true, ..) => write!(f, "--set `{field}`: {}", self.problem),
            (false, Some(line), Some(column)) if column > 1 => write!(
                f,
                "line {line}, column {column}: `{field}` {}",
                self.problem
            ),
            (false, Some(line), _) => write!(f, "line {line}: `{field}` {}", self.problem),
            (false, None, _) => write!(f, "`{field}` {}", self.problem),
        }
    }
}

pub const HORIZON_MONTHS_MAX: u32 = 1200;
/// The range the checks accept for a whole-number field, by its last path segment: parse
/// errors (`-1`, `1.5`, `"x"`, a number past the type) then give the same range as the check.
pub fn count_range(field: &str) -> Option<(u32, u32)> {
    Some(match field {
        "horizon_months" => (1, HORIZON_MONTHS_MAX),
        "replications" => (1, REPLICATIONS_MAX),
        "gpus_per_node" => (1, GPUS_PER_NODE_MAX),
        "nodes" => (0, NODES_MAX),
        "max_nodes" => (1, NODES_MAX),
        "amortization_months" | "term_months" => (1, HORIZON_MONTHS_MAX * 10),
        "spot_fallback_after" => (1, u32::MAX),
        _ => return None,
    })
}

/// Years a scenario may start in: the calendar of any horizon (at most 100 years) stays well
/// inside the dates jiff can count.
pub const START_YEAR_MIN: i16 = 1970;
pub const START_YEAR_MAX: i16 = 2200;
pub const REPLICATIONS_MAX: u32 = 1_000_000;
pub const NODES_MAX: u32 = 1_000_000;
pub const GPUS_PER_NODE_MAX: u32 = 1024;
/// GPU types are a bit mask in the model.
pub const GPU_TYPES_MAX: usize = 64;
/// The most pools a strategy may try (each instance size counts as one): the model keeps
/// them in 64-bit masks.
pub const STRATEGY_POOLS_MAX: usize = 64;
pub const DEFAULT_REPLICATIONS: u32 = 30;
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_RETRY_H: f64 = 0.25;
/// Jobs one replication of one strategy may see: beyond this a replication takes hours and
/// the events pending at once may not fit in memory.
pub const JOBS_PER_UNIT_MAX: f64 = 1e8;
/// GPUs a workload may keep busy at once: beyond this elastic pools need more memory than a
/// machine has.
pub const BUSY_GPUS_MAX: f64 = 1e7;
/// At most this many GPUs of demand for one service at its peak (12,500 eight-GPU nodes): the
/// autoscaler's work grows with the replicas it places at each step, and a service of a
/// million GPUs took minutes per simulated month (found by the fuzz tests).
pub const SERVICE_GPUS_MAX: f64 = 1e5;
/// Default of `max_queued_jobs`: about 250 MB of queued jobs per worker thread.
pub const DEFAULT_QUEUED_JOBS_MAX: u64 = 1_000_000;
/// Estimated events above which a run is announced as large.
pub const LARGE_RUN_EVENTS: f64 = 2e10;
pub use super::vocabulary::{DAILY_PRESETS, DISTRIBUTIONS, NUMBER_MAX};

/// The result of the checks: the trusted config, the file with defaults filled in, and
/// warnings about legal but suspicious input.
pub struct Checked {
    pub config: Config,
    pub resolved: ScenarioFile,
    pub warnings: Vec<String>,
}

struct Checker<'a> {
    lines: &'a Lines,
    overridden: &'a BTreeSet<String>,
    issues: Vec<Issue>,
    warnings: Vec<String>,
}

impl Checker<'_> {
    fn push(&mut self, field: &str, problem: impl Into<String>) {
        let from_set = self
            .overridden
            .iter()
            .any(|path| field == path || field.starts_with(&format!("{path}.")));
        let position = if from_set {
            None
        } else {
            self.lines.position(field)
        };
        self.issues.push(Issue {
            line: position.map(|(line, _)| line),
            column: position.map(|(_, column)| column),
            from_set,
            field: field.to_string(),
            problem: problem.into(),
        });
    }

    fn required<T>(&mut self, value: Option<T>, field: &str, hint: &str) -> Option<T> {
        if value.is_none() {
            self.push(field, format!("is missing: {hint}"));
        }
        value
    }

    /// A finite number in `[min, max]` (`min_open`: strictly above `min`).
    fn number(&mut self, value: f64, field: &str, min: f64, min_open: bool, max: f64) -> f64 {
        let what = match (min_open, max.is_finite()) {
            (true, false) if min == 0.0 => "a number above 0".to_string(),
            (false, false) if min == 0.0 => "a number of at least 0".to_string(),
            (false, true) if min == 0.0 && max == 1.0 => "a fraction between 0 and 1".to_string(),
            (true, false) => format!("a number above {min}"),
            (false, false) => format!("a number of at least {min}"),
            (true, true) => format!("a number above {min} and at most {max}"),
            (false, true) => format!("a number between {min} and {max}"),
        };
        if !value.is_finite() || value < min || (min_open && value == min) || value > max {
            self.push(field, format!("must be {what}, got {value}"));
        } else if value > NUMBER_MAX {
            self.push(
                field,
                format!("must be at most {NUMBER_MAX:e} (a larger value is surely a typo), got {value:e}"),
            );
        }
        value
    }

    fn positive(&mut self, value: f64, field: &str) -> f64 {
        self.number(value, field, 0.0, true, f64::INFINITY)
    }

    fn non_negative(&mut self, value: f64, field: &str) -> f64 {
        self.number(value, field, 0.0, false, f64::INFINITY)
    }

    fn fraction(&mut self, value: f64, field: &str) -> f64 {
        self.number(value, field, 0.0, false, 1.0)
    }

    fn count(&mut self, value: u32, field: &str, min: u32, max: u32) -> u32 {
        if value < min || value > max {
            self.push(
                field,
                format!("must be a whole number from {min} to {max}, got {value}"),
            );
        }
        value
    }

    fn name(&mut self, name: &str, field: &str) {
        if let Some(problem) = names::problem(name, NameKind::Path) {
            self.push(field, problem);
        }
    }

    /// Checks the name of the `i`-th `[[kind]]` table; `is_new`: no earlier table of its kind
    /// has that name.
    fn table_name(&mut self, kind: &str, i: usize, name: &str, is_new: bool) {
        let field = format!("{kind}[{i}].name");
        self.name(name, &field);
        if !is_new {
            self.push(
                &field,
                format!("`{name}` is used by an earlier {kind}; {kind} names must be unique"),
            );
        }
    }

    /// `Err` with every problem found so far, if any: later checks need a clean input.
    fn clean(&mut self) -> Result<(), Vec<Issue>> {
        if self.issues.is_empty() {
            Ok(())
        } else {
            Err(std::mem::take(&mut self.issues))
        }
    }
}

fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// A burst threshold as written: hours (at least 0), or "never" (`None`).
fn burst_threshold(c: &mut Checker<'_>, value: &Value, field: &str) -> Option<f64> {
    match value {
        Value::String(word) if word == "never" => None,
        value => match number_of(value) {
            Some(hours) => Some(c.non_negative(hours, field)),
            None => {
                c.push(
                    field,
                    format!(
                        "must be hours (at least 0) or \"never\", got {}",
                        describe(value)
                    ),
                );
                None
            }
        },
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Checks a whole scenario. `default_name` names it when the file does not.
///
/// Problems are collected section by section in file order; the cross checks that need
/// trusted parts (every gang fits, the run's size) run only once the sections are clean.
pub fn check(
    file: &ScenarioFile,
    lines: &Lines,
    overridden: &BTreeSet<String>,
    default_name: &str,
) -> Result<Checked, Vec<Issue>> {
    let mut c = Checker {
        lines,
        overridden,
        issues: Vec::new(),
        warnings: Vec::new(),
    };
    let mut resolved = file.clone();
    let header = check_header(&mut c, file, &mut resolved, default_name);
    let gpus = gpu_types(&mut c, file);
    require_sections(&mut c, file);
    let mut sites = Vec::new();
    let pools::CheckedPools {
        pools,
        instances,
        names: pool_names,
    } = pools::check_pools(
        &mut c,
        &file.pool,
        &mut resolved.pool,
        &gpus.names,
        &header.calendar,
        &mut sites,
    );
    let discount_rate_per_year = money::discount_rate(&mut c, file);
    resolved.discount_rate_per_year = Some(discount_rate_per_year);
    let workloads = workloads::check_workloads(
        &mut c,
        &file.workload,
        &mut resolved.workload,
        &WorkloadContext {
            gpu_types: &gpus.names,
            offered: &gpus.offered,
            speeds: &file.gpu_speed,
            gpu_speed: &gpus.speed,
            horizon_h: header.horizon_h,
            pool_names: &pool_names,
        },
    );
    let workload_names: BTreeSet<&str> = file.workload.iter().map(|w| w.name.as_str()).collect();
    let services = services::check_services(
        &mut c,
        &file.service,
        &mut resolved.service,
        &workload_names,
        &WorkloadContext {
            gpu_types: &gpus.names,
            offered: &gpus.offered,
            speeds: &file.gpu_speed,
            gpu_speed: &gpus.speed,
            horizon_h: header.horizon_h,
            pool_names: &pool_names,
        },
    );
    let mut strategies = strategies::check_strategies(
        &mut c,
        &file.strategy,
        &mut resolved.strategy,
        &pool_names,
        &file.pool,
    );
    let baseline = check_baseline(&mut c, file);
    resolved.baseline = file.strategy.get(baseline).map(|s| s.name.clone());
    c.clean()?;
    let mut workloads = workloads;
    let pools = instances::split(pools, &instances, &mut strategies, &mut workloads);
    strategies::check_pool_counts(&mut c, &strategies);

    // Cross checks on the trusted parts.
    strategies::check_fits(&mut c, &strategies, &workloads, &pools, &gpus.names);
    services::check_service_fits(&mut c, &strategies, &services, &pools, &gpus.names);
    warnings::unused_pools(&mut c, &pools, &strategies);
    c.clean()?;

    // Refuse runs that could not end or would exhaust memory, before they start.
    let jobs_per_replication =
        estimates::check_size(&mut c, &workloads, header.horizon_months, header.horizon_h);
    services::check_peaks(&mut c, &services, header.horizon_months);
    c.clean()?;
    warnings::warn_elastic_never_used(&mut c, &strategies, &workloads, &pools);
    warnings::warn_overload(
        &mut c,
        &strategies,
        &workloads,
        &pools,
        &gpus.speed,
        &header.calendar,
    );
    warnings::warn_spot_without_checkpoints(
        &mut c,
        &strategies,
        &workloads,
        &pools,
        &header.calendar,
    );
    estimates::warn_large_run(
        &mut c,
        jobs_per_replication,
        header.replications,
        strategies.len(),
    );
    let limits = estimates::limits(&mut c, file, jobs_per_replication);
    c.clean()?;
    resolved.max_queued_jobs = Some(limits.queued_jobs_max);
    resolved.max_events = Some(limits.events_max);
    let idle_cost = match file.idle_cost.unwrap_or(IdleCostFile::Unallocated) {
        IdleCostFile::Unallocated => IdleCost::Unallocated,
        IdleCostFile::Proportional => IdleCost::Proportional,
    };
    resolved.idle_cost = Some(file.idle_cost.unwrap_or(IdleCostFile::Unallocated));
    let (mut workloads, mut services) = (workloads, services);
    let teams = workloads::team_indices(&mut workloads, &mut services);

    let config = Config {
        name: header.name,
        calendar: header.calendar,
        horizon_months: header.horizon_months,
        horizon_h: header.horizon_h,
        warmup_h: header.warmup_days * 24.0,
        replications: header.replications,
        seed: header.seed,
        currency: header.currency,
        baseline,
        gpu_types: gpus.names,
        gpu_speed: gpus.speed,
        workloads,
        services,
        pools,
        strategies,
        events_max: limits.events_max,
        queued_jobs_max: limits.queued_jobs_max,
        jobs_per_unit_estimate: jobs_per_replication,
        teams,
        idle_cost,
        discount_rate_per_year,
        sites,
    };
    Ok(Checked {
        config,
        resolved,
        warnings: c.warnings,
    })
}

/// The scenario's top-level fields, checked and with defaults.
struct Header {
    name: String,
    calendar: Calendar,
    horizon_months: u32,
    horizon_h: f64,
    warmup_days: f64,
    replications: u32,
    seed: u64,
    currency: String,
}

fn check_header(
    c: &mut Checker<'_>,
    file: &ScenarioFile,
    resolved: &mut ScenarioFile,
    default_name: &str,
) -> Header {
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| default_name.to_string());
    if let Some(problem) = names::problem(&name, NameKind::Path) {
        let problem = if file.name.is_none() {
            format!(
                "{problem} (the file sets no `name`, so its file name is used: add name = \"...\")"
            )
        } else {
            problem
        };
        c.push("name", problem);
    }
    resolved.name = Some(name.clone());

    let start = match c.required(
        file.start.as_ref(),
        "start",
        "the first day, e.g. start = \"2027-01-01\"",
    ) {
        Some(value) => {
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Datetime(d) => d.to_string(),
                other => other.to_string(),
            };
            match text.parse::<jiff::civil::Date>() {
                Ok(date) if (START_YEAR_MIN..=START_YEAR_MAX).contains(&date.year()) => Some(date),
                Ok(_) => {
                    c.push(
                        "start",
                        format!(
                            "must be a date from {START_YEAR_MIN}-01-01 to {START_YEAR_MAX}-12-31, got {}",
                            describe(value)
                        ),
                    );
                    None
                }
                Err(_) => {
                    c.push(
                        "start",
                        format!("must be a date \"YYYY-MM-DD\", got {}", describe(value)),
                    );
                    None
                }
            }
        }
        None => None,
    };
    let horizon_months = c
        .required(
            file.horizon_months,
            "horizon_months",
            "the number of calendar months to simulate, e.g. 24",
        )
        .map(|m| c.count(m, "horizon_months", 1, HORIZON_MONTHS_MAX))
        .unwrap_or(1)
        .clamp(1, HORIZON_MONTHS_MAX);
    let calendar = Calendar::new(
        start.unwrap_or(jiff::civil::date(2027, 1, 1)),
        horizon_months,
    );
    let horizon_h = calendar.horizon_h();
    let warmup_days = c.non_negative(file.warmup_days.unwrap_or(0.0), "warmup_days");
    if warmup_days * 24.0 >= horizon_h {
        c.warnings.push(format!(
            "warmup_days = {warmup_days} covers the whole horizon of {horizon_months} month(s): no job is counted in the job statistics; shorten warmup_days"
        ));
    }
    let replications = c.count(
        file.replications.unwrap_or(DEFAULT_REPLICATIONS),
        "replications",
        1,
        REPLICATIONS_MAX,
    );
    let seed = file.seed.map_or(DEFAULT_SEED, |seed| seed.0);
    let currency = file.currency.clone().unwrap_or_else(|| "EUR".to_string());
    if currency.trim().is_empty() {
        c.push("currency", "must not be empty (e.g. \"EUR\")");
    } else if currency.chars().count() > 16 || currency.chars().any(char::is_control) {
        c.push(
            "currency",
            format!(
                "must be at most 16 characters without control characters (e.g. \"EUR\"), got {}",
                names::shown(&currency)
            ),
        );
    }
    resolved.warmup_days = Some(warmup_days);
    resolved.replications = Some(replications);
    resolved.seed = Some(Seed(seed));
    resolved.currency = Some(currency.clone());
    Header {
        name,
        calendar,
        horizon_months,
        horizon_h,
        warmup_days,
        replications,
        seed,
        currency,
    }
}

/// The GPU types of a scenario: those pools offer, then those only `[gpu_speed]` names.
struct GpuTypes {
    names: Vec<String>,
    /// GPU types some pool offers.
    offered: BTreeSet<String>,
    /// Relative speed of each type of `names` (1 when not given).
    speed: Vec<f64>,
}

fn gpu_types(c: &mut Checker<'_>, file: &ScenarioFile) -> GpuTypes {
    let mut gpu_types: Vec<String> = Vec::new();
    for pool in &file.pool {
        if let Some(gpu) = &pool.gpu
            && !gpu_types.contains(gpu)
        {
            gpu_types.push(gpu.clone());
        }
    }
    let offered: BTreeSet<String> = gpu_types.iter().cloned().collect();
    for (gpu, speed) in &file.gpu_speed {
        c.positive(*speed, &format!("gpu_speed.{gpu}"));
        if !gpu_types.contains(gpu) {
            gpu_types.push(gpu.clone());
        }
    }
    if gpu_types.len() > GPU_TYPES_MAX {
        c.push(
            "gpu_speed",
            format!(
                "names {} GPU types; at most {GPU_TYPES_MAX} are supported",
                gpu_types.len()
            ),
        );
        gpu_types.truncate(GPU_TYPES_MAX);
    }
    let speed: Vec<f64> = gpu_types
        .iter()
        .map(|g| file.gpu_speed.get(g).copied().unwrap_or(1.0))
        .collect();
    GpuTypes {
        names: gpu_types,
        offered,
        speed,
    }
}

fn require_sections(c: &mut Checker<'_>, file: &ScenarioFile) {
    if file.workload.is_empty() && file.service.is_empty() {
        c.push("workload", "is missing: add at least one [[workload]] with name, arrivals_per_day, gpus and duration_h (or a [[service]] with name and gpus)");
    }
    if file.pool.is_empty() {
        c.push(
            "pool",
            "is missing: add at least one [[pool]] with name, type, gpu and gpus_per_node",
        );
    }
    if file.strategy.is_empty() {
        c.push(
            "strategy",
            "is missing: add at least one [[strategy]] with a name and its pools",
        );
    }
}

/// The index of the baseline strategy (the first when the file names none).
fn check_baseline(c: &mut Checker<'_>, file: &ScenarioFile) -> usize {
    let Some(name) = &file.baseline else {
        return 0;
    };
    match file.strategy.iter().position(|s| &s.name == name) {
        Some(index) => index,
        None => {
            let names: Vec<&str> = file.strategy.iter().map(|s| s.name.as_str()).collect();
            c.push(
                "baseline",
                format!(
                    "names no strategy: `{name}`{}; strategies are: {}",
                    did_you_mean(name, names.iter().copied()),
                    names.join(", ")
                ),
            );
            0
        }
    }
}
