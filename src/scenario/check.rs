//! Every check of a scenario, run once: a [`ScenarioFile`] becomes a [`Config`] or a list of
//! every problem found, each with its line, field path and what is accepted. Defaults are
//! filled in here too, so the resolved file (for `run.json`) and the `Config` agree.

use std::collections::{BTreeMap, BTreeSet};

use toml::Value;

use super::config::*;
use super::file::*;
use super::lines::Lines;
use super::overrides::did_you_mean;
use crate::model::calendar::{Calendar, WeeklyWindows};

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
        match (self.from_set, self.line, self.column) {
            (true, ..) => write!(f, "--set `{}`: {}", self.field, self.problem),
            (false, Some(line), Some(column)) if column > 1 => write!(
                f,
                "line {line}, column {column}: `{}` {}",
                self.field, self.problem
            ),
            (false, Some(line), _) => write!(f, "line {line}: `{}` {}", self.field, self.problem),
            (false, None, _) => write!(f, "`{}` {}", self.field, self.problem),
        }
    }
}

pub const HORIZON_MONTHS_MAX: u32 = 1200;
pub const REPLICATIONS_MAX: u32 = 1_000_000;
pub const NODES_MAX: u32 = 1_000_000;
pub const GPUS_PER_NODE_MAX: u32 = 1024;
/// GPU types are a bit mask in the model.
pub const GPU_TYPES_MAX: usize = 64;
pub const DEFAULT_REPLICATIONS: u32 = 30;
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_RETRY_H: f64 = 0.25;
/// Jobs one replication of one strategy may see: beyond this a replication takes hours and
/// the events pending at once may not fit in memory.
pub const JOBS_PER_UNIT_MAX: f64 = 1e8;
/// GPUs a workload may keep busy at once: beyond this elastic pools need more memory than a
/// machine has.
pub const BUSY_GPUS_MAX: f64 = 1e7;
/// Default of `max_queued_jobs`: about 250 MB of queued jobs per worker thread.
pub const DEFAULT_QUEUED_JOBS_MAX: u64 = 1_000_000;
/// Estimated events above which a run is announced as large.
pub const LARGE_RUN_EVENTS: f64 = 2e10;
/// Any number above this is a typo (or would overflow sums): 1e15.
pub const NUMBER_MAX: f64 = 1e15;
pub const DISTRIBUTIONS: [&str; 7] = [
    "fixed",
    "exponential",
    "lognormal",
    "gamma",
    "weibull",
    "uniform",
    "empirical",
];
pub const DAILY_PRESETS: [&str; 2] = ["flat", "office-hours"];

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
        if name.trim().is_empty() {
            self.push(field, "must not be empty");
        } else if name.contains('.') || name.contains('=') || name.contains(',') {
            self.push(field, format!("`{name}` must not contain `.`, `=` or `,` (they separate --set paths and values)"));
        }
    }

    /// A field that does not apply to this kind of pool.
    fn not_for<T>(&mut self, value: &Option<T>, field: &str, pool_type: PoolType, belongs: &str) {
        if value.is_some() {
            self.push(
                field,
                format!(
                    "does not apply to {} pools (it is a field of {belongs})",
                    pool_type.as_str()
                ),
            );
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

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Checks a whole scenario. `default_name` names it when the file does not.
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

    let name = file
        .name
        .clone()
        .unwrap_or_else(|| default_name.to_string());
    c.name(&name, "name");
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
                Ok(date) => Some(date),
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
    let seed = file.seed.unwrap_or(DEFAULT_SEED);
    let currency = file.currency.clone().unwrap_or_else(|| "EUR".to_string());
    if currency.trim().is_empty() {
        c.push("currency", "must not be empty (e.g. \"EUR\")");
    }
    resolved.warmup_days = Some(warmup_days);
    resolved.replications = Some(replications);
    resolved.seed = Some(seed);
    resolved.currency = Some(currency.clone());

    // GPU types: those pools offer, plus those given speeds.
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
    let gpu_speed: Vec<f64> = gpu_types
        .iter()
        .map(|g| file.gpu_speed.get(g).copied().unwrap_or(1.0))
        .collect();
    let gpu_index = |name: &str| gpu_types.iter().position(|g| g == name);

    if file.workload.is_empty() {
        c.push("workload", "is missing: add at least one [[workload]] with name, arrivals_per_day, gpus and duration_h");
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

    // ---- pools ----
    let mut pools = Vec::new();
    let mut pool_names = BTreeMap::new();
    for (i, (pool, resolved_pool)) in file.pool.iter().zip(resolved.pool.iter_mut()).enumerate() {
        let at = format!("pool.{}", pool.name);
        c.name(&pool.name, &format!("pool[{i}].name"));
        if pool_names.insert(pool.name.clone(), i).is_some() {
            c.push(
                &format!("pool[{i}].name"),
                format!(
                    "`{}` is used by an earlier pool; pool names must be unique",
                    pool.name
                ),
            );
        }
        if let Some(p) = check_pool(&mut c, pool, resolved_pool, &at, &gpu_index, horizon_months) {
            pools.push(p);
        }
    }

    // ---- workloads ----
    let mut workloads = Vec::new();
    let mut workload_names = BTreeSet::new();
    for (i, (workload, resolved_workload)) in file
        .workload
        .iter()
        .zip(resolved.workload.iter_mut())
        .enumerate()
    {
        let at = format!("workload.{}", workload.name);
        c.name(&workload.name, &format!("workload[{i}].name"));
        if !workload_names.insert(workload.name.clone()) {
            c.push(
                &format!("workload[{i}].name"),
                format!(
                    "`{}` is used by an earlier workload; workload names must be unique",
                    workload.name
                ),
            );
        }
        if let Some(w) = check_workload(
            &mut c,
            workload,
            resolved_workload,
            &at,
            &WorkloadContext {
                gpu_types: &gpu_types,
                offered: &offered,
                speeds: &file.gpu_speed,
                horizon_h,
            },
        ) {
            workloads.push(w);
        }
    }

    // ---- strategies ----
    let mut strategies = Vec::new();
    let mut strategy_names = BTreeSet::new();
    for (i, (strategy, resolved_strategy)) in file
        .strategy
        .iter()
        .zip(resolved.strategy.iter_mut())
        .enumerate()
    {
        let at = format!("strategy.{}", strategy.name);
        c.name(&strategy.name, &format!("strategy[{i}].name"));
        if !strategy_names.insert(strategy.name.clone()) {
            c.push(
                &format!("strategy[{i}].name"),
                format!(
                    "`{}` is used by an earlier strategy; strategy names must be unique",
                    strategy.name
                ),
            );
        }
        if let Some(s) = check_strategy(
            &mut c,
            strategy,
            resolved_strategy,
            &at,
            &pool_names,
            &file.pool,
        ) {
            strategies.push(s);
        }
    }

    let baseline = match &file.baseline {
        Some(name) => match file.strategy.iter().position(|s| &s.name == name) {
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
        },
        None => 0,
    };
    resolved.baseline = file.strategy.get(baseline).map(|s| s.name.clone());

    if !c.issues.is_empty() {
        return Err(c.issues);
    }

    // Cross checks on the trusted parts.
    for strategy in &strategies {
        for workload in &workloads {
            check_fit(&mut c, strategy, workload, &pools, &gpu_types);
        }
    }
    for (p, pool) in pools.iter().enumerate() {
        if !strategies.iter().any(|s| s.pools.contains(&p)) {
            c.warnings.push(format!(
                "pool `{}` is used by no strategy; add it to a strategy's pools or remove it",
                pool.name
            ));
        }
    }
    if !c.issues.is_empty() {
        return Err(c.issues);
    }

    // Refuse runs that could not end or would exhaust memory, before they start.
    let jobs_by_workload: Vec<f64> = workloads
        .iter()
        .map(|w| jobs_per_unit(w, horizon_months, horizon_h))
        .collect();
    let jobs_per_replication: f64 = jobs_by_workload.iter().sum();
    if jobs_per_replication.is_nan() || jobs_per_replication > JOBS_PER_UNIT_MAX {
        let (w, jobs) = jobs_by_workload
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("at least one workload");
        c.push(
            &format!("workload.{}.arrivals_per_day", workloads[w].name),
            format!(
                "gives about {jobs:.1e} jobs per replication over {horizon_months} months (with growth_per_month = {}), more than the {JOBS_PER_UNIT_MAX:.0e} fleetsim simulates in one replication; lower arrivals_per_day or growth_per_month, or shorten horizon_months",
                workloads[w].arrivals.growth_per_month
            ),
        );
    }
    for workload in &workloads {
        let busy = busy_gpus(workload, &gpu_speed, horizon_months, None);
        if busy.is_nan() || busy > BUSY_GPUS_MAX {
            c.push(
                &format!("workload.{}", workload.name),
                format!(
                    "keeps about {busy:.1e} GPUs busy at once by the end of the horizon (arrivals_per_day x mean gpus x mean duration_h), more than the {BUSY_GPUS_MAX:.0e} fleetsim simulates; check arrivals_per_day, gpus and duration_h"
                ),
            );
        }
    }
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    warn_overload(
        &mut c,
        &strategies,
        &workloads,
        &pools,
        &gpu_speed,
        &calendar,
    );
    warn_spot_without_checkpoints(&mut c, &strategies, &workloads, &pools, &calendar);
    let units = f64::from(replications) * strategies.len() as f64;
    let jobs_total = jobs_per_replication * units;
    // About 4 events per job (arrival, start, end, idle timeout), more with interruptions.
    let events_estimate = jobs_total * 4.0;
    if events_estimate > LARGE_RUN_EVENTS {
        c.warnings.push(format!(
            "this run is large: about {jobs_total:.1e} jobs ({} per replication and strategy, {} replications x {} strategies), roughly {events_estimate:.0e} events, which takes hours; try --replications 3 or a shorter horizon_months first",
            crate::output::thousands(jobs_per_replication, 0),
            replications,
            strategies.len()
        ));
    }
    let events_max = match file.max_events {
        Some(events_max) => {
            if events_max == 0 {
                c.push("max_events", "must be at least 1, got 0");
            }
            events_max
        }
        None => (1e7 + 200.0 * jobs_per_replication).min(1e15) as u64,
    };
    let queued_jobs_max = match file.max_queued_jobs {
        Some(queued) => {
            if queued == 0 {
                c.push("max_queued_jobs", "must be at least 1, got 0");
            }
            queued
        }
        None => DEFAULT_QUEUED_JOBS_MAX,
    };
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    resolved.max_queued_jobs = Some(queued_jobs_max);
    resolved.max_events = Some(events_max);
    let idle_cost = match file.idle_cost.unwrap_or(IdleCostFile::Unallocated) {
        IdleCostFile::Unallocated => IdleCost::Unallocated,
        IdleCostFile::Proportional => IdleCost::Proportional,
    };
    resolved.idle_cost = Some(file.idle_cost.unwrap_or(IdleCostFile::Unallocated));
    let mut workloads = workloads;
    let teams = team_indices(&mut workloads);

    let config = Config {
        name,
        calendar,
        horizon_months,
        horizon_h,
        warmup_h: warmup_days * 24.0,
        replications,
        seed,
        currency,
        baseline,
        gpu_types,
        gpu_speed,
        workloads,
        pools,
        strategies,
        events_max,
        queued_jobs_max,
        jobs_per_unit_estimate: jobs_per_replication,
        teams,
        idle_cost,
    };
    Ok(Checked {
        config,
        resolved,
        warnings: c.warnings,
    })
}

fn check_pool(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
    gpu_index: &dyn Fn(&str) -> Option<usize>,
    horizon_months: u32,
) -> Option<Pool> {
    let pool_type = pool.pool_type;
    let gpu = c.required(
        pool.gpu.as_deref(),
        &format!("{at}.gpu"),
        "the GPU type of its nodes, e.g. gpu = \"H100\"",
    );
    let gpus_per_node = c
        .required(
            pool.gpus_per_node,
            &format!("{at}.gpus_per_node"),
            "GPUs per node, e.g. 8",
        )
        .map(|g| c.count(g, &format!("{at}.gpus_per_node"), 1, GPUS_PER_NODE_MAX));
    let f = |name: &str| format!("{at}.{name}");
    let owned_only = "on_prem and reserved pools";
    let on_prem_only = "on_prem pools";
    let elastic_only = "on_demand and spot pools";
    if pool_type != PoolType::OnPrem {
        c.not_for(
            &pool.purchase_month,
            &f("purchase_month"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.capex_per_node,
            &f("capex_per_node"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.amortization_months,
            &f("amortization_months"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.residual_fraction,
            &f("residual_fraction"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.power_kw_per_node,
            &f("power_kw_per_node"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.idle_power_kw_per_node,
            &f("idle_power_kw_per_node"),
            pool_type,
            on_prem_only,
        );
        c.not_for(&pool.pue, &f("pue"), pool_type, on_prem_only);
        c.not_for(
            &pool.electricity_per_kwh,
            &f("electricity_per_kwh"),
            pool_type,
            on_prem_only,
        );
        c.not_for(
            &pool.opex_per_node_month,
            &f("opex_per_node_month"),
            pool_type,
            on_prem_only,
        );
        c.not_for(&pool.failures, &f("failures"), pool_type, on_prem_only);
    }
    if pool_type == PoolType::OnPrem {
        c.not_for(
            &pool.price_per_gpu_h,
            &f("price_per_gpu_h"),
            pool_type,
            "cloud pools (reserved, on_demand, spot)",
        );
    }
    if pool_type != PoolType::Reserved {
        c.not_for(&pool.discount, &f("discount"), pool_type, "reserved pools");
        c.not_for(
            &pool.term_months,
            &f("term_months"),
            pool_type,
            "reserved pools",
        );
        c.not_for(
            &pool.start_month,
            &f("start_month"),
            pool_type,
            "reserved pools",
        );
    }
    let elastic = matches!(pool_type, PoolType::OnDemand | PoolType::Spot);
    if elastic {
        c.not_for(
            &pool.nodes,
            &f("nodes"),
            pool_type,
            &format!("{owned_only}; use max_nodes to cap an elastic pool"),
        );
    } else {
        c.not_for(&pool.max_nodes, &f("max_nodes"), pool_type, elastic_only);
        c.not_for(
            &pool.provisioning_h,
            &f("provisioning_h"),
            pool_type,
            elastic_only,
        );
        c.not_for(
            &pool.idle_timeout_h,
            &f("idle_timeout_h"),
            pool_type,
            elastic_only,
        );
        c.not_for(
            &pool.billing_increment_s,
            &f("billing_increment_s"),
            pool_type,
            elastic_only,
        );
        c.not_for(
            &pool.billing_minimum_s,
            &f("billing_minimum_s"),
            pool_type,
            elastic_only,
        );
        c.not_for(
            &pool.availability,
            &f("availability"),
            pool_type,
            elastic_only,
        );
    }
    if pool_type != PoolType::Spot {
        c.not_for(&pool.preemption, &f("preemption"), pool_type, "spot pools");
    }

    let nodes = if elastic {
        0
    } else {
        let nodes = c
            .required(
                pool.nodes,
                &f("nodes"),
                "the number of nodes, e.g. nodes = 4",
            )
            .unwrap_or(0);
        let nodes = c.count(nodes, &f("nodes"), 0, NODES_MAX);
        if nodes == 0 {
            c.warnings.push(format!(
                "pool `{}` has nodes = 0: it adds no capacity (fine as the first point of a sweep over node counts)",
                pool.name
            ));
        }
        nodes
    };
    let kind = match pool_type {
        PoolType::OnPrem => {
            let need = |c: &mut Checker<'_>, v: Option<f64>, name: &str, hint: &str| {
                c.required(v, &f(name), hint)
                    .map(|v| c.non_negative(v, &f(name)))
            };
            let capex = need(
                c,
                pool.capex_per_node,
                "capex_per_node",
                "purchase price of one node, e.g. 350000",
            );
            let amortization = c
                .required(
                    pool.amortization_months,
                    &f("amortization_months"),
                    "months over which capital is spread, e.g. 36",
                )
                .map(|m| c.count(m, &f("amortization_months"), 1, HORIZON_MONTHS_MAX * 10));
            let residual = c.fraction(
                pool.residual_fraction.unwrap_or(0.0),
                &f("residual_fraction"),
            );
            let power = need(
                c,
                pool.power_kw_per_node,
                "power_kw_per_node",
                "power of a busy node in kW, e.g. 10.2",
            );
            let idle_power = match pool.idle_power_kw_per_node {
                Some(idle) => {
                    let idle = c.non_negative(idle, &f("idle_power_kw_per_node"));
                    if power.is_some_and(|p| idle > p) {
                        c.push(
                            &f("idle_power_kw_per_node"),
                            format!(
                                "must be at most power_kw_per_node ({}), got {idle}",
                                power.unwrap_or(0.0)
                            ),
                        );
                    }
                    Some(idle)
                }
                None => power,
            };
            let pue = c.required(
                pool.pue,
                &f("pue"),
                "power usage effectiveness of the data centre, e.g. 1.3",
            );
            let pue = pue.map(|p| c.number(p, &f("pue"), 1.0, false, f64::INFINITY));
            let electricity = need(
                c,
                pool.electricity_per_kwh,
                "electricity_per_kwh",
                "price of a kWh, e.g. 0.22",
            );
            let opex = need(
                c,
                pool.opex_per_node_month,
                "opex_per_node_month",
                "operating cost per node and month, e.g. 1500",
            );
            let purchase_month = pool.purchase_month.unwrap_or(0);
            if purchase_month >= horizon_months {
                c.warnings.push(format!("pool `{}` is bought in month {purchase_month}, after the horizon of {horizon_months} month(s): it adds nothing; lower purchase_month or raise horizon_months", pool.name));
            }
            let failures = pool.failures.as_ref().and_then(|failures| {
                let mtbf = c.required(
                    failures.mtbf_h,
                    &f("failures.mtbf_h"),
                    "mean time between failures of a node, hours",
                );
                let repair = c.required(
                    failures.repair_h,
                    &f("failures.repair_h"),
                    "time to repair a node, hours",
                );
                Some(Failures {
                    mtbf_h: c.positive(mtbf?, &f("failures.mtbf_h")),
                    repair_h: c.positive(repair?, &f("failures.repair_h")),
                })
            });
            resolved.purchase_month = Some(purchase_month);
            resolved.residual_fraction = Some(residual);
            resolved.idle_power_kw_per_node = idle_power;
            PoolKind::OnPrem(OnPrem {
                nodes,
                purchase_month,
                capex_per_node: capex?,
                amortization_months: amortization?,
                residual_fraction: residual,
                power_kw_per_node: power?,
                idle_power_kw_per_node: idle_power?,
                pue: pue?,
                electricity_per_kwh: electricity?,
                opex_per_node_month: opex?,
                failures,
            })
        }
        PoolType::Reserved => {
            let price = c.required(
                pool.price_per_gpu_h,
                &f("price_per_gpu_h"),
                "the on-demand list price per GPU-hour",
            );
            let price = price.map(|p| c.positive(p, &f("price_per_gpu_h")));
            let discount = c.required(
                pool.discount,
                &f("discount"),
                "the discount to the list price, e.g. 0.35",
            );
            let discount = discount.map(|d| c.fraction(d, &f("discount")));
            let term = c.required(
                pool.term_months,
                &f("term_months"),
                "length of the commitment in months, e.g. 12",
            );
            let term = term.map(|t| c.count(t, &f("term_months"), 1, HORIZON_MONTHS_MAX * 10));
            let start_month = pool.start_month.unwrap_or(0);
            if start_month >= horizon_months {
                c.warnings.push(format!(
                    "pool `{}` starts in month {start_month}, after the horizon of {horizon_months} month(s): it adds nothing; lower start_month or raise horizon_months",
                    pool.name
                ));
            }
            resolved.start_month = Some(start_month);
            PoolKind::Reserved(Reserved {
                nodes,
                price_per_gpu_h: price?,
                discount: discount?,
                term_months: term?,
                start_month,
            })
        }
        PoolType::OnDemand | PoolType::Spot => {
            let price = c.required(
                pool.price_per_gpu_h,
                &f("price_per_gpu_h"),
                "the price per GPU-hour",
            );
            let price = price.map(|p| c.positive(p, &f("price_per_gpu_h")));
            let max_nodes = pool
                .max_nodes
                .map(|m| c.count(m, &f("max_nodes"), 1, NODES_MAX));
            let provisioning_h =
                c.non_negative(pool.provisioning_h.unwrap_or(0.0), &f("provisioning_h"));
            let idle_timeout_h =
                c.non_negative(pool.idle_timeout_h.unwrap_or(0.0), &f("idle_timeout_h"));
            let billing_increment_s = c.positive(
                pool.billing_increment_s.unwrap_or(1.0),
                &f("billing_increment_s"),
            );
            let billing_minimum_s = c.non_negative(
                pool.billing_minimum_s.unwrap_or(0.0),
                &f("billing_minimum_s"),
            );
            let availability = pool
                .availability
                .as_ref()
                .and_then(|a| check_availability(c, a, &f("availability")));
            resolved.provisioning_h = Some(provisioning_h);
            resolved.idle_timeout_h = Some(idle_timeout_h);
            resolved.billing_increment_s = Some(billing_increment_s);
            resolved.billing_minimum_s = Some(billing_minimum_s);
            if let (Some(a), Some(r)) = (resolved.availability.as_mut(), availability.as_ref()) {
                a.retry_h = Some(r.retry_h);
            }
            let elastic = Elastic {
                price_per_gpu_h: price?,
                max_nodes,
                provisioning_h,
                idle_timeout_h,
                billing_increment_s,
                billing_minimum_s,
                availability,
            };
            if pool_type == PoolType::Spot {
                let preemption = c.required(
                    pool.preemption.as_ref(),
                    &f("preemption"),
                    "preemption = { mean_h = 30 } (mean hours until a spot node is reclaimed)",
                )?;
                let mean_h = c.required(
                    preemption.mean_h,
                    &f("preemption.mean_h"),
                    "mean hours until a spot node is reclaimed",
                )?;
                let mean_h = c.positive(mean_h, &f("preemption.mean_h"));
                let waves = c.non_negative(
                    preemption.waves_per_month.unwrap_or(0.0),
                    &f("preemption.waves_per_month"),
                );
                let fraction = match preemption.wave_fraction {
                    Some(fr) => c.fraction(fr, &f("preemption.wave_fraction")),
                    None if waves > 0.0 => {
                        c.push(
                            &f("preemption.wave_fraction"),
                            "is missing: the share of the pool's nodes a wave takes, e.g. 0.5",
                        );
                        0.0
                    }
                    None => 0.0,
                };
                if let Some(p) = resolved.preemption.as_mut() {
                    p.waves_per_month = Some(waves);
                    p.wave_fraction = Some(fraction);
                }
                PoolKind::Spot(
                    elastic,
                    Preemption {
                        mean_h,
                        waves_per_month: waves,
                        wave_fraction: fraction,
                    },
                )
            } else {
                PoolKind::OnDemand(elastic)
            }
        }
    };
    let gpu_name = gpu?;
    let gpu = gpu_index(gpu_name)?;
    resolved.placement = Some(pool.placement.unwrap_or(PlacementFile::NodeLocal));
    Some(Pool {
        name: pool.name.clone(),
        gpu,
        gpus_per_node: gpus_per_node?,
        kind,
        placement: placement(pool.placement),
    })
}

fn check_availability(c: &mut Checker<'_>, a: &AvailabilityFile, at: &str) -> Option<Availability> {
    let shortfall = c.required(
        a.shortfall,
        &format!("{at}.shortfall"),
        "the probability that a node request fails while constrained, e.g. 0.6",
    )?;
    let shortfall = c.fraction(shortfall, &format!("{at}.shortfall"));
    let retry_h = c.positive(
        a.retry_h.unwrap_or(DEFAULT_RETRY_H),
        &format!("{at}.retry_h"),
    );
    let episodic = a.episodes_per_month.is_some() || a.episode_mean_h.is_some();
    let when = match (&a.window, episodic) {
        (Some(_), true) => {
            c.push(at, "takes either a calendar `window` or random episodes (`episodes_per_month`, `episode_mean_h`), not both");
            return None;
        }
        (Some(window), false) => match WeeklyWindows::parse(window) {
            Ok(windows) => Constrained::Window(windows),
            Err(problem) => {
                c.push(
                    &format!("{at}.window"),
                    format!("\"{window}\" is not a calendar window: {problem}"),
                );
                return None;
            }
        },
        (None, true) => {
            let per_month = c.required(
                a.episodes_per_month,
                &format!("{at}.episodes_per_month"),
                "mean number of shortfall episodes per month",
            )?;
            let mean_h = c.required(
                a.episode_mean_h,
                &format!("{at}.episode_mean_h"),
                "mean length of an episode, hours",
            )?;
            Constrained::Episodes {
                episodes_per_month: c.positive(per_month, &format!("{at}.episodes_per_month")),
                episode_mean_h: c.positive(mean_h, &format!("{at}.episode_mean_h")),
            }
        }
        (None, false) => Constrained::Always,
    };
    Some(Availability {
        shortfall,
        when,
        retry_h,
    })
}

/// What the workload checks need to know about the rest of the scenario.
struct WorkloadContext<'a> {
    gpu_types: &'a [String],
    /// GPU types some pool offers.
    offered: &'a BTreeSet<String>,
    speeds: &'a BTreeMap<String, f64>,
    horizon_h: f64,
}

fn check_workload(
    c: &mut Checker<'_>,
    w: &WorkloadFile,
    resolved: &mut WorkloadFile,
    at: &str,
    context: &WorkloadContext<'_>,
) -> Option<Workload> {
    let WorkloadContext {
        gpu_types,
        offered,
        speeds,
        horizon_h,
    } = *context;
    let f = |name: &str| format!("{at}.{name}");
    let times_h = w.arrival_times_h.clone().unwrap_or_default();
    let arrivals_per_day = match (&w.arrival_times_h, w.arrivals_per_day) {
        (Some(_), Some(_)) => {
            c.push(
                &f("arrival_times_h"),
                "takes the place of arrivals_per_day; give one or the other",
            );
            None
        }
        (Some(times), None) => {
            if times.is_empty() {
                c.push(
                    &f("arrival_times_h"),
                    "must list at least one arrival time (hours since start)",
                );
            }
            for t in times {
                c.non_negative(*t, &f("arrival_times_h"));
            }
            if times.windows(2).any(|pair| pair[1] < pair[0]) {
                c.push(&f("arrival_times_h"), "must be in increasing order");
            }
            // For load estimates only: the listed jobs spread over the horizon.
            Some(times.len() as f64 / (horizon_h / 24.0))
        }
        (None, arrivals_per_day) => c
            .required(
                arrivals_per_day,
                &f("arrivals_per_day"),
                "mean jobs per day, e.g. 40 (or arrival_times_h, a list of hours)",
            )
            .map(|a| c.positive(a, &f("arrivals_per_day"))),
    };
    let daily = match &w.daily_profile {
        None => [1.0; 24],
        Some(value) => daily_profile(c, value, &f("daily_profile")),
    };
    let weekly = match &w.weekly_profile {
        None => [1.0; 7],
        Some(values) => {
            let mut weekly = [1.0; 7];
            if values.len() != 7 {
                c.push(
                    &f("weekly_profile"),
                    format!(
                        "must have 7 multipliers (Monday to Sunday), got {}",
                        values.len()
                    ),
                );
            } else {
                for (i, v) in values.iter().enumerate() {
                    weekly[i] = c.non_negative(*v, &f("weekly_profile"));
                }
                if weekly.iter().all(|v| *v == 0.0) {
                    c.push(
                        &f("weekly_profile"),
                        "must have a day above 0 (no job would ever arrive)",
                    );
                }
            }
            weekly
        }
    };
    let growth = c.number(
        w.growth_per_month.unwrap_or(0.0),
        &f("growth_per_month"),
        -1.0,
        true,
        10.0,
    );
    let gpus = c.required(
        w.gpus.as_ref(),
        &f("gpus"),
        "GPUs per job: a count, or a table like { 1 = 0.6, 8 = 0.4 }",
    );
    let gpus = gpus.and_then(|g| gpu_mix(c, g, &f("gpus")));
    let duration = c.required(
        w.duration_h.as_ref(),
        &f("duration_h"),
        "hours per job: a number, or a table like { dist = \"lognormal\", median = 3, p95 = 24 }",
    );
    let duration = duration.and_then(|d| duration_dist(c, d, &f("duration_h")));
    if let Some(mean_h) = duration.as_ref().map(DurationDist::mean_h)
        && !(mean_h.is_finite() && mean_h > 0.0 && mean_h <= NUMBER_MAX)
    {
        c.push(
            &f("duration_h"),
            format!("has a mean of {mean_h:e} hours with these parameters; choose parameters whose mean is above 0 and at most {NUMBER_MAX:e} hours"),
        );
    }

    // The reference GPU type: as written, else the first accepted type, else the only offered.
    let gpu_name = match (&w.gpu, &w.accepts) {
        (Some(gpu), _) => Some(gpu.clone()),
        (None, Some(accepts)) if !accepts.is_empty() => Some(accepts[0].clone()),
        _ if offered.len() == 1 => offered.iter().next().cloned(),
        _ => {
            c.push(&f("gpu"), format!(
                "is missing: pools offer several GPU types ({}); name the one duration_h refers to",
                offered.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
            None
        }
    };
    // A type is known if a pool offers it or [gpu_speed] names it: accepting a type no pool
    // offers is harmless (DESIGN.md's example accepts A100 beside H100-only pools); whether a
    // strategy has a pool the workload can use is checked per strategy (`check_fit`).
    let known = |c: &mut Checker<'_>, name: &str, field: &str| -> Option<usize> {
        let found = gpu_types.iter().position(|g| g == name);
        if found.is_none() {
            c.push(
                field,
                format!(
                    "names GPU type `{name}` that no pool offers and [gpu_speed] does not name{}; pools offer: {}",
                    did_you_mean(name, gpu_types.iter().map(String::as_str)),
                    offered.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            );
        }
        found
    };
    let gpu = gpu_name.as_deref().and_then(|g| {
        if w.gpu.is_some() {
            // The reference type needs no pool, only a speed if jobs run elsewhere.
            gpu_types
                .iter()
                .position(|t| t == g)
                .or_else(|| known(c, g, &f("gpu")))
        } else {
            known(c, g, &f("gpu"))
        }
    });
    let accepts: Vec<String> = w
        .accepts
        .clone()
        .unwrap_or_else(|| gpu_name.iter().cloned().collect());
    if w.accepts.as_ref().is_some_and(Vec::is_empty) {
        c.push(&f("accepts"), "must name at least one GPU type");
    }
    let mut accepts_mask = 0u64;
    for name in &accepts {
        // Without `accepts`, it is `[gpu]`, whose problems were reported at `gpu`.
        let found = if w.accepts.is_some() {
            known(c, name, &f("accepts"))
        } else {
            gpu_types.iter().position(|g| g == name)
        };
        if let Some(t) = found {
            accepts_mask |= 1 << t;
            if gpu_name.as_deref() != Some(name.as_str()) {
                for needed in [gpu_name.as_deref().unwrap_or_default(), name.as_str()] {
                    if !speeds.contains_key(needed) {
                        c.push(&format!("gpu_speed.{needed}"), format!(
                            "is missing: workload `{}` may run on {name} but its duration_h refers to {}; give both types a relative speed in [gpu_speed]",
                            w.name, gpu_name.as_deref().unwrap_or_default()
                        ));
                    }
                }
            }
        }
    }
    let speedup = c.number(
        w.mixed_precision_speedup.unwrap_or(1.0),
        &f("mixed_precision_speedup"),
        1.0,
        false,
        100.0,
    );
    let checkpoint = w.checkpoint.as_ref().and_then(|cp| {
        let write_h = c.required(cp.write_h, &f("checkpoint.write_h"), "hours to write one checkpoint, e.g. 0.02")?;
        let write_h = c.non_negative(write_h, &f("checkpoint.write_h"));
        let restart_h = c.required(cp.restart_h, &f("checkpoint.restart_h"), "hours to restore after an interruption, e.g. 0.1")?;
        let restart_h = c.non_negative(restart_h, &f("checkpoint.restart_h"));
        let every = c.required(cp.every_h.as_ref(), &f("checkpoint.every_h"), "hours of work between checkpoints, or \"auto\"")?;
        let every = match every {
            Value::String(s) if s == "auto" => {
                if write_h == 0.0 {
                    c.push(&f("checkpoint.every_h"), "\"auto\" needs write_h above 0 (the optimum interval sqrt(2 write_h MTBF) would be 0)");
                }
                CheckpointEvery::Auto
            }
            other => match number_of(other) {
                Some(hours) => CheckpointEvery::Hours(c.positive(hours, &f("checkpoint.every_h"))),
                None => {
                    c.push(&f("checkpoint.every_h"), format!("must be hours above 0 or \"auto\", got {}", describe(other)));
                    return None;
                }
            },
        };
        Some(Checkpoint { every, write_h, restart_h })
    });
    let deadline_h = w.deadline_h.map(|d| c.positive(d, &f("deadline_h")));
    let team = w.team.clone().unwrap_or_else(|| w.name.clone());
    resolved.growth_per_month = Some(growth);
    resolved.gpu = gpu_name.clone();
    resolved.accepts = Some(accepts);
    resolved.mixed_precision_speedup = Some(speedup);
    resolved.priority = Some(w.priority.unwrap_or(0));
    resolved.team = Some(team.clone());
    Some(Workload {
        name: w.name.clone(),
        arrivals: ArrivalProfile {
            arrivals_per_day: arrivals_per_day?,
            daily,
            weekly,
            growth_per_month: growth,
            times_h,
        },
        gpus: gpus?,
        duration_h: duration?,
        gpu: gpu?,
        accepts_mask,
        mixed_precision_speedup: speedup,
        checkpoint,
        deadline_h,
        priority: w.priority.unwrap_or(0),
        team,
        // Set once every workload is known (see `team_indices`).
        team_idx: 0,
    })
}

fn daily_profile(c: &mut Checker<'_>, value: &Value, field: &str) -> [f64; 24] {
    let raw: Vec<f64> = match value {
        Value::String(s) if s == "flat" => vec![1.0; 24],
        // Busy 08:00-18:00 UTC, a shoulder around it, quiet at night.
        Value::String(s) if s == "office-hours" => (0..24)
            .map(|h| match h {
                8..=17 => 1.0,
                7 | 18 | 19 => 0.5,
                _ => 0.1,
            })
            .collect(),
        Value::String(s) => {
            c.push(
                field,
                format!(
                    "names an unknown profile \"{s}\"{}; use one of {}, or a list of 24 multipliers",
                    did_you_mean(s, DAILY_PRESETS.iter().copied()),
                    DAILY_PRESETS.map(|p| format!("\"{p}\"")).join(", ")
                ),
            );
            return [1.0; 24];
        }
        Value::Array(items) => {
            let numbers: Vec<Option<f64>> = items.iter().map(number_of).collect();
            if items.len() != 24 || numbers.iter().any(Option::is_none) {
                c.push(field, format!("must be \"flat\", \"office-hours\" or 24 numbers (hours 00 to 23 UTC), got {} items", items.len()));
                return [1.0; 24];
            }
            numbers
                .into_iter()
                .map(|n| c.non_negative(n.unwrap_or(0.0), field))
                .collect()
        }
        other => {
            c.push(
                field,
                format!(
                    "must be \"flat\", \"office-hours\" or a list of 24 multipliers, got {}",
                    describe(other)
                ),
            );
            return [1.0; 24];
        }
    };
    let sum: f64 = raw.iter().sum();
    if sum <= 0.0 {
        c.push(
            field,
            "must have an hour above 0 (no job would ever arrive)",
        );
        return [1.0; 24];
    }
    let mut daily = [0.0; 24];
    for (slot, v) in daily.iter_mut().zip(&raw) {
        *slot = v * 24.0 / sum;
    }
    daily
}

fn gpu_mix(c: &mut Checker<'_>, value: &Value, field: &str) -> Option<GpuMix> {
    match value {
        Value::Integer(n) => {
            if *n < 1 || *n > i64::from(GPUS_PER_NODE_MAX * 1024) {
                c.push(field, format!("must be a GPU count of at least 1, got {n}"));
                return None;
            }
            Some(GpuMix::fixed(*n as u32))
        }
        Value::Table(table) => {
            let mut entries = Vec::new();
            for (key, p) in table {
                let Ok(gpus) = key.parse::<u32>() else {
                    c.push(&format!("{field}.{key}"), format!("`{key}` is not a GPU count; keys are counts and values probabilities, e.g. {{ 1 = 0.6, 8 = 0.4 }}"));
                    continue;
                };
                if gpus == 0 {
                    c.push(&format!("{field}.{key}"), "a job needs at least 1 GPU");
                    continue;
                }
                let Some(p) = number_of(p) else {
                    c.push(
                        &format!("{field}.{key}"),
                        format!("must be a probability, got {}", describe(p)),
                    );
                    continue;
                };
                entries.push((gpus, c.fraction(p, &format!("{field}.{key}"))));
            }
            if entries.is_empty() {
                c.push(
                    field,
                    "must give at least one GPU count with its probability",
                );
                return None;
            }
            entries.sort_by_key(|(g, _)| *g);
            let total: f64 = entries.iter().map(|(_, p)| p).sum();
            if (total - 1.0).abs() > 1e-6 {
                c.push(field, format!("probabilities must sum to 1, got {total}"));
                return None;
            }
            let mut cumulative = 0.0;
            let mut points: Vec<(u32, f64)> = entries
                .into_iter()
                .filter(|(_, p)| *p > 0.0)
                .map(|(g, p)| {
                    cumulative += p / total;
                    (g, cumulative)
                })
                .collect();
            if let Some(last) = points.last_mut() {
                last.1 = 1.0;
            }
            Some(GpuMix { cumulative: points })
        }
        other => {
            c.push(
                field,
                format!(
                    "must be a GPU count or a table like {{ 1 = 0.6, 8 = 0.4 }}, got {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// Parameters each distribution takes (beyond `dist`).
fn parameters(dist: &str) -> &'static [&'static str] {
    match dist {
        "fixed" => &["value"],
        "exponential" => &["mean"],
        "lognormal" => &["median", "p95", "mu", "sigma"],
        "gamma" => &["mean", "cv"],
        "weibull" => &["shape", "scale"],
        "uniform" => &["min", "max"],
        "empirical" => &["points"],
        _ => &[],
    }
}

fn duration_dist(c: &mut Checker<'_>, value: &Value, field: &str) -> Option<DurationDist> {
    let table = match value {
        Value::Integer(_) | Value::Float(_) => {
            let hours = c.positive(number_of(value)?, field);
            return Some(DurationDist::Fixed { value_h: hours });
        }
        Value::Table(table) => table,
        other => {
            c.push(field, format!("must be hours or a table like {{ dist = \"lognormal\", median = 3, p95 = 24 }}, got {}", describe(other)));
            return None;
        }
    };
    let Some(dist) = table.get("dist") else {
        c.push(
            field,
            format!("needs `dist`, one of: {}", DISTRIBUTIONS.join(", ")),
        );
        return None;
    };
    let Some(dist) = dist.as_str().filter(|d| DISTRIBUTIONS.contains(d)) else {
        let shown = describe(dist);
        let text = dist.as_str().unwrap_or_default();
        c.push(
            &format!("{field}.dist"),
            format!(
                "names an unknown distribution {shown}{}; use one of: {}",
                did_you_mean(text, DISTRIBUTIONS.iter().copied()),
                DISTRIBUTIONS.join(", ")
            ),
        );
        return None;
    };
    let allowed = parameters(dist);
    let mut ok = true;
    for key in table.keys().filter(|k| k.as_str() != "dist") {
        if !allowed.contains(&key.as_str()) {
            c.push(
                &format!("{field}.{key}"),
                format!(
                    "does not apply to dist = \"{dist}\"{}; it takes: {}",
                    did_you_mean(key, allowed.iter().copied()),
                    allowed.join(", ")
                ),
            );
            ok = false;
        }
    }
    let mut get = |c: &mut Checker<'_>, key: &str| -> Option<f64> {
        let path = format!("{field}.{key}");
        match table.get(key) {
            None => None,
            Some(v) => match number_of(v) {
                Some(n) if n.is_finite() => Some(n),
                _ => {
                    c.push(&path, format!("must be a number, got {}", describe(v)));
                    ok = false;
                    None
                }
            },
        }
    };
    let need = |c: &mut Checker<'_>, value: Option<f64>, key: &str| -> Option<f64> {
        if value.is_none() {
            c.push(
                &format!("{field}.{key}"),
                format!(
                    "is missing: dist = \"{dist}\" takes {}",
                    allowed.join(" and ")
                ),
            );
        }
        value
    };
    let dist = match dist {
        "fixed" => {
            let v = get(c, "value");
            let v = need(c, v, "value")?;
            DurationDist::Fixed {
                value_h: c.positive(v, &format!("{field}.value")),
            }
        }
        "exponential" => {
            let v = get(c, "mean");
            let v = need(c, v, "mean")?;
            DurationDist::Exponential {
                mean_h: c.positive(v, &format!("{field}.mean")),
            }
        }
        "lognormal" => {
            let (median, p95, mu, sigma) = (
                get(c, "median"),
                get(c, "p95"),
                get(c, "mu"),
                get(c, "sigma"),
            );
            match (median, p95, mu, sigma) {
                (Some(median), Some(p95), None, None) => {
                    let median = c.positive(median, &format!("{field}.median"));
                    if p95 <= median {
                        c.push(
                            &format!("{field}.p95"),
                            format!("must be above the median ({median}), got {p95}"),
                        );
                        return None;
                    }
                    // z of the 95th percentile of the standard normal.
                    const Z95: f64 = 1.644_853_626_951_472_2;
                    DurationDist::LogNormal {
                        mu: median.ln(),
                        sigma: (p95 / median).ln() / Z95,
                    }
                }
                (None, None, Some(mu), Some(sigma)) => DurationDist::LogNormal {
                    mu,
                    sigma: c.positive(sigma, &format!("{field}.sigma")),
                },
                _ => {
                    c.push(field, "dist = \"lognormal\" takes `median` and `p95` (hours), or `mu` and `sigma` (of log-hours)");
                    return None;
                }
            }
        }
        "gamma" => {
            let (mean, cv) = (get(c, "mean"), get(c, "cv"));
            let (mean, cv) = (need(c, mean, "mean")?, need(c, cv, "cv")?);
            let mean = c.positive(mean, &format!("{field}.mean"));
            let cv = c.positive(cv, &format!("{field}.cv"));
            let (shape, scale_h) = (1.0 / (cv * cv), mean * cv * cv);
            let representable = |x: f64| x.is_finite() && x > 0.0;
            if cv > 0.0 && !(representable(shape) && representable(scale_h)) {
                c.push(
                    &format!("{field}.cv"),
                    format!("{cv:e} is too extreme for a gamma distribution (its shape would be {shape:e}); use dist = \"fixed\" for durations that do not vary"),
                );
                return None;
            }
            DurationDist::Gamma { shape, scale_h }
        }
        "weibull" => {
            let (shape, scale) = (get(c, "shape"), get(c, "scale"));
            let (shape, scale) = (need(c, shape, "shape")?, need(c, scale, "scale")?);
            DurationDist::Weibull {
                shape: c.positive(shape, &format!("{field}.shape")),
                scale_h: c.positive(scale, &format!("{field}.scale")),
            }
        }
        "uniform" => {
            let (min, max) = (get(c, "min"), get(c, "max"));
            let (min, max) = (need(c, min, "min")?, need(c, max, "max")?);
            let min = c.non_negative(min, &format!("{field}.min"));
            if max <= min {
                c.push(
                    &format!("{field}.max"),
                    format!("must be above min ({min}), got {max}"),
                );
                return None;
            }
            DurationDist::Uniform {
                min_h: min,
                max_h: max,
            }
        }
        "empirical" => empirical(c, table.get("points"), &format!("{field}.points"))?,
        _ => unreachable!("checked against DISTRIBUTIONS"),
    };
    ok.then_some(dist)
}

fn empirical(c: &mut Checker<'_>, points: Option<&Value>, field: &str) -> Option<DurationDist> {
    const SHAPE: &str =
        "a list of [hours, cumulative probability] pairs, e.g. [[0.5, 0.2], [2, 0.7], [24, 1.0]]";
    let Some(Value::Array(items)) = points else {
        c.push(
            field,
            format!("is missing or not a list: dist = \"empirical\" takes points, {SHAPE}"),
        );
        return None;
    };
    let mut parsed = Vec::new();
    for item in items {
        let pair = item
            .as_array()
            .filter(|p| p.len() == 2)
            .and_then(|p| Some((number_of(&p[0])?, number_of(&p[1])?)));
        let Some((hours, probability)) = pair else {
            c.push(field, format!("must be {SHAPE}, got {item}"));
            return None;
        };
        parsed.push((c.non_negative(hours, field), c.fraction(probability, field)));
    }
    if parsed.is_empty() {
        c.push(field, format!("must not be empty: {SHAPE}"));
        return None;
    }
    if parsed
        .windows(2)
        .any(|w| w[1].0 < w[0].0 || w[1].1 < w[0].1)
    {
        c.push(field, "hours and probabilities must both be non-decreasing");
        return None;
    }
    let last = parsed[parsed.len() - 1];
    if (last.1 - 1.0).abs() > 1e-9 {
        c.push(
            field,
            format!("the last cumulative probability must be 1, got {}", last.1),
        );
        return None;
    }
    if last.0 <= 0.0 {
        c.push(field, "must reach a duration above 0 hours");
        return None;
    }
    Some(DurationDist::Empirical { points: parsed })
}

fn check_strategy(
    c: &mut Checker<'_>,
    s: &StrategyFile,
    resolved: &mut StrategyFile,
    at: &str,
    pool_names: &BTreeMap<String, usize>,
    pool_files: &[PoolFile],
) -> Option<Strategy> {
    let f = |name: &str| format!("{at}.{name}");
    if s.pools.is_empty() {
        c.push(
            &f("pools"),
            "is empty: list the pools this strategy uses, in the order they are tried",
        );
    }
    let mut pools = Vec::new();
    for name in &s.pools {
        match pool_names.get(name) {
            Some(&p) if pools.contains(&p) => {
                c.push(&f("pools"), format!("names pool `{name}` twice"))
            }
            Some(&p) => pools.push(p),
            None => c.push(
                &f("pools"),
                format!(
                    "names an unknown pool `{name}`{}; pools are: {}",
                    did_you_mean(name, pool_names.keys().map(String::as_str)),
                    pool_names.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ),
        }
    }
    let burst = match &s.burst_after_wait_h {
        None => Some(0.0),
        Some(Value::String(word)) if word == "never" => None,
        Some(value) => match number_of(value) {
            Some(hours) => Some(c.non_negative(hours, &f("burst_after_wait_h"))),
            None => {
                c.push(
                    &f("burst_after_wait_h"),
                    format!(
                        "must be hours (at least 0) or \"never\", got {}",
                        describe(value)
                    ),
                );
                None
            }
        },
    };
    let spot_fallback_after = s
        .spot_fallback_after
        .map(|n| c.count(n, &f("spot_fallback_after"), 1, u32::MAX));
    let uses_elastic = pools.iter().any(|p| {
        matches!(
            pool_files[*p].pool_type,
            PoolType::OnDemand | PoolType::Spot
        )
    });
    if burst.is_none() && uses_elastic {
        c.warnings.push(format!(
            "strategy `{}` has burst_after_wait_h = \"never\": its elastic pools are never used; remove them from its pools, or give burst_after_wait_h in hours",
            s.name
        ));
    }
    let queue = match s.queue.unwrap_or(QueueFile::Fifo) {
        QueueFile::Fifo => Queue::Fifo,
        QueueFile::Backfill => Queue::Backfill,
        QueueFile::Priority => Queue::Priority,
        QueueFile::FirstFit => Queue::FirstFit,
    };
    resolved.burst_after_wait_h = Some(burst.map_or(Value::String("never".into()), Value::Float));
    resolved.queue = Some(s.queue.unwrap_or(QueueFile::Fifo));
    resolved.mixed_precision = Some(s.mixed_precision.unwrap_or(false));
    resolved.deadline_jobs_off_spot = Some(s.deadline_jobs_off_spot.unwrap_or(false));
    resolved.checkpointing = Some(s.checkpointing.unwrap_or(true));
    Some(Strategy {
        name: s.name.clone(),
        pools,
        burst_after_wait_h: burst,
        queue,
        spot_fallback_after,
        mixed_precision: s.mixed_precision.unwrap_or(false),
        deadline_jobs_off_spot: s.deadline_jobs_off_spot.unwrap_or(false),
        checkpointing: s.checkpointing.unwrap_or(true),
        placement: s.placement.map(|p| placement(Some(p))),
    })
}

fn placement(file: Option<PlacementFile>) -> Placement {
    match file.unwrap_or(PlacementFile::NodeLocal) {
        PlacementFile::NodeLocal => Placement::NodeLocal,
        PlacementFile::Spread => Placement::Spread,
    }
}

/// Team names in order of first appearance; sets each workload's `team_idx`.
fn team_indices(workloads: &mut [Workload]) -> Vec<String> {
    let mut teams: Vec<String> = Vec::new();
    for workload in workloads {
        workload.team_idx = match teams.iter().position(|t| *t == workload.team) {
            Some(index) => index,
            None => {
                teams.push(workload.team.clone());
                teams.len() - 1
            }
        };
    }
    teams
}

/// Every gang of a workload must fit some pool it may use in every strategy.
fn check_fit(
    c: &mut Checker<'_>,
    strategy: &Strategy,
    workload: &Workload,
    pools: &[Pool],
    gpu_types: &[String],
) {
    let gang = workload.gpus.max_gpus();
    let usable: Vec<&Pool> = strategy
        .pools
        .iter()
        .map(|p| &pools[*p])
        .filter(|p| workload.accepts_mask & (1 << p.gpu) != 0)
        .filter(|p| !p.is_elastic() || strategy.burst_after_wait_h.is_some())
        .collect();
    let field = format!("strategy.{}.pools", strategy.name);
    if usable.is_empty() {
        let accepted: Vec<&str> = gpu_types
            .iter()
            .enumerate()
            .filter(|(t, _)| workload.accepts_mask & (1 << t) != 0)
            .map(|(_, g)| g.as_str())
            .collect();
        c.push(&field, format!(
            "offer no pool that workload `{}` can use (it accepts {}; elastic pools count only if burst_after_wait_h is not \"never\")",
            workload.name,
            accepted.join(", ")
        ));
        return;
    }
    let capacity = |p: &Pool| -> Option<u64> {
        let per_node = u64::from(p.gpus_per_node);
        match &p.kind {
            PoolKind::OnPrem(o) => Some(u64::from(o.nodes) * per_node),
            PoolKind::Reserved(r) => Some(u64::from(r.nodes) * per_node),
            PoolKind::OnDemand(e) | PoolKind::Spot(e, _) => {
                e.max_nodes.map(|m| u64::from(m) * per_node)
            }
        }
    };
    if usable
        .iter()
        .all(|p| capacity(p).is_some_and(|cap| cap < u64::from(gang)))
    {
        let sizes: Vec<String> = usable
            .iter()
            .map(|p| format!("`{}` has {} GPUs", p.name, capacity(p).unwrap_or(0)))
            .collect();
        c.push(
            &field,
            format!(
                "cannot fit workload `{}`: its jobs need up to {gang} GPUs at once, but {}",
                workload.name,
                sizes.join(", ")
            ),
        );
        return;
    }
    warn_owned_too_small(c, strategy, workload, &usable, gang, capacity);
}

/// A workload whose largest gangs fit none of the strategy's owned or reserved pools always
/// bursts with them: worth a warning, since that is rarely what a planner sizing an owned
/// base intends.
fn warn_owned_too_small(
    c: &mut Checker<'_>,
    strategy: &Strategy,
    workload: &Workload,
    usable: &[&Pool],
    gang: u32,
    capacity: impl Fn(&Pool) -> Option<u64>,
) {
    // Pools of no nodes have a warning of their own (and start sweeps over node counts).
    let owned: Vec<&&Pool> = usable
        .iter()
        .filter(|p| !p.is_elastic() && capacity(p).is_some_and(|c| c > 0))
        .collect();
    let largest = owned.iter().filter_map(|p| capacity(p)).max();
    let Some(largest) = largest else { return };
    if u64::from(gang) <= largest {
        return;
    }
    let sizes: Vec<String> = owned
        .iter()
        .map(|p| format!("`{}` has {} GPUs", p.name, capacity(p).unwrap_or(0)))
        .collect();
    c.warnings.push(format!(
        "workload `{}` has jobs of up to {gang} GPUs, more than any owned or reserved pool of strategy `{}` holds ({}): under that strategy they always run on elastic pools; add nodes, or make that intended by giving the workload its own strategy",
        workload.name,
        strategy.name,
        sizes.join(", ")
    ));
}

/// Expected jobs of a workload in one replication (Poisson mean, growth included).
fn jobs_per_unit(w: &Workload, horizon_months: u32, horizon_h: f64) -> f64 {
    let growth = w.arrivals.growth_per_month;
    let months_factor: f64 = (0..horizon_months)
        .map(|m| (1.0 + growth).powi(m as i32))
        .sum::<f64>()
        / f64::from(horizon_months);
    let weekly: f64 = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
    w.arrivals.arrivals_per_day * weekly * months_factor * horizon_h / 24.0
}

/// GPUs of the workload's reference type it keeps busy at once in the last month (Little's
/// law), or on a pool of type `on` (slower types stay busy longer).
fn busy_gpus(w: &Workload, gpu_speed: &[f64], horizon_months: u32, on: Option<usize>) -> f64 {
    let growth = (1.0 + w.arrivals.growth_per_month).powi(horizon_months as i32 - 1);
    let weekly = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
    let slowdown = on.map_or(1.0, |t| gpu_speed[w.gpu] / gpu_speed[t]);
    w.arrivals.arrivals_per_day * weekly * growth / 24.0
        * w.gpus.mean_gpus()
        * w.duration_h.mean_h()
        * slowdown
}

/// Warns when jobs without checkpoints may run on spot nodes that are reclaimed much sooner
/// than the jobs take: each attempt starts over, so they may never finish.
fn warn_spot_without_checkpoints(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    calendar: &Calendar,
) {
    let mut warned = BTreeSet::new();
    for strategy in strategies {
        if strategy.burst_after_wait_h.is_none() {
            continue;
        }
        for &p in &strategy.pools {
            let pool = &pools[p];
            if !pool.is_spot() {
                continue;
            }
            let mtbf_h = pool.node_mtbf_h(calendar.month_mean_h());
            for workload in workloads {
                if workload.checkpoint.is_some()
                    || workload.accepts_mask & (1 << pool.gpu) == 0
                    || strategy.deadline_jobs_off_spot && workload.deadline_h.is_some()
                {
                    continue;
                }
                let nodes = f64::from(workload.gpus.max_gpus())
                    .div_euclid(f64::from(pool.gpus_per_node))
                    .max(1.0);
                let mean_h = workload.duration_h.mean_h();
                // Chance that a gang of `nodes` nodes runs a mean-length job without a loss.
                let survive = (-mean_h * nodes / mtbf_h).exp();
                if survive < 0.01 && warned.insert((workload.name.clone(), pool.name.clone())) {
                    let fallback = match strategy.spot_fallback_after {
                        Some(n) => format!(" (they leave spot after {n} preemptions)"),
                        None => String::new(),
                    };
                    c.warnings.push(format!(
                        "workload `{}` has no checkpoint and its jobs take about {mean_h:.3} h, but spot pool `{}` loses a node every {mtbf_h:.3} h on average: only {:.1e} of its jobs would finish on spot without a preemption, and each preemption restarts a job from zero{fallback}; add `checkpoint` to the workload, raise preemption.mean_h, or set spot_fallback_after so jobs leave spot",
                        workload.name, pool.name, survive
                    ));
                }
            }
        }
    }
}

/// Warns when owned capacity is below the offered load and nothing elastic can absorb it.
fn warn_overload(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    gpu_speed: &[f64],
    calendar: &Calendar,
) {
    let months = calendar.months() as i32;
    for strategy in strategies {
        if strategy.burst_after_wait_h.is_some()
            && strategy.pools.iter().any(|p| pools[*p].is_elastic())
        {
            continue;
        }
        // Offered load in reference-GPU terms at the end of the horizon (growth included).
        let load: f64 = workloads
            .iter()
            .map(|w| {
                let growth = (1.0 + w.arrivals.growth_per_month).powi(months - 1);
                let weekly = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
                let speed = gpu_speed[w.gpu];
                w.arrivals.arrivals_per_day * weekly * growth / 24.0
                    * w.gpus.mean_gpus()
                    * w.duration_h.mean_h()
                    * speed
            })
            .sum();
        let capacity: f64 = strategy
            .pools
            .iter()
            .map(|p| {
                let pool = &pools[*p];
                let nodes = match &pool.kind {
                    PoolKind::OnPrem(o) => o.nodes,
                    PoolKind::Reserved(r) => r.nodes,
                    _ => 0,
                };
                f64::from(nodes) * f64::from(pool.gpus_per_node) * gpu_speed[pool.gpu]
            })
            .sum();
        if load > capacity {
            c.warnings.push(format!(
                "strategy `{}` has owned capacity of about {capacity:.0} GPUs but the workloads offer about {load:.0} GPUs of load{} and does not burst to an elastic pool: the queue grows without bound, and jobs still waiting at the end are reported as jobs_unfinished; add nodes, or an elastic pool to its pools",
                strategy.name,
                if months > 1 { " by the end of the horizon" } else { "" }
            ));
        }
    }
}
