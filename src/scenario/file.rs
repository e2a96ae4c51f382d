//! The scenario file as a person writes it (TOML), before any check.
//!
//! Unknown fields are rejected here; fields that take several shapes (a number or a table, a
//! number or a word) are kept as TOML values and interpreted by the checks, which can then say
//! exactly what is accepted. These types also serialize: `run.json` carries the resolved file.
//!
//! They also give the JSON Schema of the file (`fleetsim schema`): each field's doc
//! comment is its description there (what it is first, as a short phrase, then its unit and
//! its default), `extend("default" = ...)` its default, and the fields that stay TOML values
//! take their shapes from `shapes.rs`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::Value;

use super::shapes;

/// A fleetsim scenario: jobs arriving over months (workloads and services), the pools of GPU
/// capacity and the strategies that combine them. See docs/scenario.md.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "fleetsim scenario")]
pub struct ScenarioFile {
    /// Scenario name: names the output folder `output/<name>/`. Letters, digits, spaces inside,
    /// `-`, `_`, `+`, `(`, `)`; at most 64 characters. Default: the file name without `.toml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::name")]
    pub name: Option<String>,
    /// The question this scenario answers, shown at the top of `report.html`. Default: the
    /// file's leading comment block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// First day of the horizon, "YYYY-MM-DD" (a string or a TOML date), midnight UTC.
    /// Months are calendar months from here. Required.
    #[schemars(schema_with = "shapes::start")]
    pub start: Option<Value>,
    /// Months simulated, 1 to 1200. Required.
    #[schemars(range(min = 1, max = 1200))]
    pub horizon_months: Option<u32>,
    /// Warm-up, days: jobs arriving earlier are left out of the job statistics (costs always
    /// cover the whole horizon). Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub warmup_days: Option<f64>,
    /// Independent replications per strategy, 1 to 1000000. Default: 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000), extend("default" = 30))]
    pub replications: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// Currency of every amount of money in the file, shown in the summary and charts (at most
    /// 16 characters). Default: "EUR".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16), extend("default" = "EUR"))]
    pub currency: Option<String>,
    /// Baseline strategy: the one the others are compared with (`total_cost_vs_baseline`,
    /// break-even). Default: the first strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Event budget per replication and strategy (a guard against runs that cannot end);
    /// reaching it is an error, never a hang. Default: from the estimated load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_events: Option<u64>,
    /// Jobs that may wait at once in one replication of one strategy (a guard against queues
    /// that grow without bound exhausting memory). Default: 1000000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 1_000_000))]
    pub max_queued_jobs: Option<u64>,
    /// How the cost of idle paid capacity is shown per workload and team. Default:
    /// "unallocated".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "unallocated"))]
    pub idle_cost: Option<IdleCostFile>,
    /// Cost of money, a fraction per year (-0.5 to 1): the cash flows of month m (whole
    /// months from `start`) also count discounted by (1 + r)^(-m/12), in `total_cost_npv`, the
    /// discounted monthly series and its break-even month. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -0.5, max = 1.0), extend("default" = 0))]
    pub discount_rate_per_year: Option<f64>,
    /// Relative throughput per GPU type, e.g. `H100 = 1.0`, `A100 = 0.45`. Default: 1 for
    /// every type.
    #[serde(default)]
    #[schemars(schema_with = "shapes::gpu_speed")]
    pub gpu_speed: BTreeMap<String, f64>,
    /// Workloads: classes of batch jobs.
    #[serde(default)]
    pub workload: Vec<WorkloadFile>,
    /// Inference services: GPU demand to be met now, not jobs to queue. Default:
    /// none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub service: Vec<ServiceFile>,
    /// Pools: sources of GPU capacity.
    #[serde(default)]
    pub pool: Vec<PoolFile>,
    /// Strategies: ordered lists of pools plus policies. At least one.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub strategy: Vec<StrategyFile>,
    /// A sweep to run with `fleetsim sweep` (ignored by `run`). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepFile>,
    /// What `fleetsim optimize` searches when no `--vary` is given (ignored by `run` and
    /// `sweep`). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimize: Option<OptimizeFile>,
}

/// `[optimize]`: the question `fleetsim optimize` answers when its flags do not say it
/// (a flag given replaces the field).
///
/// ```toml
/// [optimize]
/// vary = { "pool.dgx.nodes" = "0..16:1", "strategy.hybrid.burst_after_wait_h" = [0, 1, 4] }
/// strategy = ["hybrid"]
/// minimize = "total_cost"
/// subject_to = ["wait_p95_h <= 2", "workload.training.wait_p95_h <= 8"]
/// ```
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptimizeFile {
    /// Parameters to search: field path (as for `--set`) -> a list of values or a spec
    /// string (`"0..16:1"`, `"1..100:log:9"`), as for `[sweep]`. Required.
    #[serde(default)]
    #[schemars(schema_with = "shapes::vary")]
    pub vary: BTreeMap<String, Value>,
    /// The strategies whose parameters are optimised, each on its own, then compared.
    /// Default: every strategy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strategy: Vec<String>,
    /// The metric to minimise: `total_cost`, `total_cost_cash`, `total_cost_npv` or any
    /// metric of summary.csv. Default: "total_cost".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "total_cost"))]
    pub minimize: Option<String>,
    /// Constraints, each `METRIC <= LIMIT` or `METRIC >= LIMIT` (optionally `+- TOLERANCE`);
    /// METRIC is a metric of summary.csv, or `workload.NAME.METRIC`, `team.NAME.METRIC`,
    /// `service.NAME.METRIC`. Default: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subject_to: Vec<String>,
    /// Constraints must hold at the upper bound of this two-sided confidence interval
    /// (0.5 to 0.999), not only in the mean. Default: in the mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.5, max = 0.999))]
    pub confidence: Option<f64>,
    /// At most this many replications (strategy runs) in all. Default: no limit but the
    /// replications per candidate (`--max-replications`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub budget: Option<u64>,
}

/// `[sweep]`: the parameters `fleetsim sweep` varies when no `--vary` is given.
///
/// ```toml
/// [sweep]
/// vary = { "pool.dgx.nodes" = "0..16:2", "strategy.hybrid.burst_after_wait_h" = [0, 1, 4] }
/// sample = "lhs:20"   # optional: "grid" (default), "random:N" or "lhs:N"
/// ```
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepFile {
    /// Parameters to vary: field path (as for `--set`) -> a list of values `[0, 2, 4]` or a
    /// spec string (`"0..16:2"`, `"1..1000:log:7"`, `"0,2,4"`). Checked by `fleetsim sweep`
    /// and `validate`. Required.
    #[serde(default)]
    #[schemars(schema_with = "shapes::vary")]
    pub vary: BTreeMap<String, Value>,
    /// How points are chosen: "grid", "random:N" or "lhs:N" (Latin hypercube), optionally
    /// ":SEED". Default: "grid".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        regex(pattern = r"^(grid|(random|lhs):[0-9]+(:[0-9]+)?)$"),
        extend("default" = "grid")
    )]
    pub sample: Option<String>,
}

/// `[[workload]]`: a class of batch jobs that arrive, queue, run and may checkpoint.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadFile {
    /// Workload name, unique. Letters, digits, spaces inside, `-`, `_`, `+`, `(`, `)`; at most
    /// 64 characters. Required.
    #[schemars(schema_with = "shapes::name")]
    pub name: String,
    /// Job arrivals per day: the Poisson rate before profiles and growth. Required unless
    /// `arrival_times_h` or `trace` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub arrivals_per_day: Option<f64>,
    /// Exact arrival times, hours since start, the same in every replication (instead of
    /// `arrivals_per_day`): for replaying a known list of jobs and for worked examples.
    /// Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::times_h")]
    pub arrival_times_h: Option<Vec<f64>>,
    /// Arrivals by hour of the day (UTC): "flat", "office-hours", or 24 multipliers for hours
    /// 00-23 (normalised to mean 1). Default: "flat".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::daily_profile")]
    pub daily_profile: Option<Value>,
    /// Arrivals by weekday: 7 multipliers, Monday first, used as written. Default: all 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::weekly_profile")]
    pub weekly_profile: Option<Vec<f64>>,
    /// Growth of the arrival rate per calendar month, compounded (0.03: 3 % a month), above -1
    /// and at most 10. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 10.0), extend("exclusiveMinimum" = -1, "default" = 0))]
    pub growth_per_month: Option<f64>,
    /// GPUs per job: a count, or a table `{ 1 = 0.6, 8 = 0.4 }` of counts and probabilities
    /// summing to 1. Required unless `trace` is given.
    #[schemars(schema_with = "shapes::gpus")]
    pub gpus: Option<Value>,
    /// Duration of a job, hours on `gpu`: a number or a distribution `{ dist = "...", ... }`.
    /// Required unless `trace` is given.
    #[schemars(schema_with = "shapes::duration_h")]
    pub duration_h: Option<Value>,
    /// GPU type `duration_h` refers to. Default: the pools' only GPU type, or the first of
    /// `accepts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// GPU types the jobs may run on. Default: `[gpu]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub accepts: Option<Vec<String>>,
    /// Mixed-precision speedup: divides run time when the strategy enables
    /// `mixed_precision`, 1 to 100. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1.0, max = 100.0), extend("default" = 1))]
    pub mixed_precision_speedup: Option<f64>,
    /// Relative throughput of each GPU type for this workload's jobs (a row of a throughput
    /// matrix, e.g. `{ A100 = 1.0, H100 = 2.1 }`): replaces the scenario's `[gpu_speed]` for
    /// this workload, so it must name `gpu` and every accepted type when it accepts more than
    /// one. Each type must be known to the scenario (offered by a pool or named in
    /// `[gpu_speed]`). Default: the scenario's `[gpu_speed]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::workload_gpu_speed")]
    pub gpu_speed: Option<BTreeMap<String, f64>>,
    /// Data-parallel scaling efficiency, above 0.5 and at most 1: each doubling of a job's GPU
    /// count multiplies its throughput by `2 * scaling_efficiency` (speed-up `n^log2(2e)` on
    /// `n` GPUs), and its jobs may run on their asked count times or divided by powers of two
    /// within `min_gpus`..`max_gpus` under an `elastic` strategy. Not with `scaling` nor on a
    /// trace workload. Default: none (jobs run on the count they ask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.5))]
    pub scaling_efficiency: Option<f64>,
    /// Data-parallel speed-up by GPU count, e.g. `{ 1 = 1.0, 2 = 1.9, 4 = 3.5 }`: under an
    /// `elastic` strategy its jobs may run on these counts only (within `min_gpus`..`max_gpus`);
    /// it must list every count of `gpus`. Not with `scaling_efficiency` nor on a trace
    /// workload. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::scaling")]
    pub scaling: Option<BTreeMap<String, f64>>,
    /// Fewest GPUs a job may run on under an `elastic` strategy, at most the smallest count of
    /// `gpus`; needs `scaling_efficiency` or `scaling`. Default: the job's asked count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub min_gpus: Option<u32>,
    /// Most GPUs a job may run on under an `elastic` strategy, at least the largest count of
    /// `gpus`; needs `scaling_efficiency` or `scaling`. Default: the job's asked count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_gpus: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointFile>,
    /// Deadline, hours after arrival: a later completion is a deadline miss. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub deadline_h: Option<f64>,
    /// Pools this workload's jobs may use: of each strategy's pools, only these, still tried in
    /// the strategy's order (a weekly 64-GPU run that goes straight to the cloud, small jobs
    /// kept on the owned base). Default: all of the strategy's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub pools: Option<Vec<String>>,
    /// Burst threshold of this workload's jobs, overriding the strategy's: hours of waiting
    /// before elastic pools are tried, or "never". Default: the strategy's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::workload_burst_after_wait_h")]
    pub burst_after_wait_h: Option<Value>,
    /// Priority: higher runs first under `queue = "priority"`. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub priority: Option<i64>,
    /// Team, for cost showback: `teams.csv` adds up the workloads of each team. Default: the
    /// workload's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::team")]
    pub team: Option<String>,
    /// Size of one checkpoint, GB: stored while a checkpointing job lives, moved when it
    /// changes site. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub checkpoint_gb: Option<f64>,
    /// Size of a job's input data, GB: moved to a site the job runs at for the first time.
    /// Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub dataset_gb: Option<f64>,
    // Trace workloads: the jobs of a file instead of rates and distributions.
    /// Job trace to replay instead of rates and distributions, relative to the scenario file.
    /// Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Format of `trace`. Default: "csv".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "csv"))]
    pub trace_format: Option<crate::trace::TraceFormat>,
    /// Time zone of trace times written without one: "UTC", an IANA name ("Europe/Berlin") or
    /// an offset ("+08:00"). Default: "UTC".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "UTC"))]
    pub trace_timezone: Option<String>,
    /// How replications use the trace. Default: "bootstrap".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "bootstrap"))]
    pub replay: Option<Replay>,
}

/// `[[service]]`: an inference service whose demand, in GPUs of its `gpu`, an autoscaler
/// meets with replicas on the strategy's pools.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceFile {
    /// Service name, unique among services and workloads. Required.
    #[schemars(schema_with = "shapes::name")]
    pub name: String,
    /// GPU type demand is counted in. Default: the only GPU type, or the first of `accepts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// GPU types replicas may run on. Default: `[gpu]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub accepts: Option<Vec<String>>,
    /// Team in `teams.csv`. Default: the service's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::team")]
    pub team: Option<String>,
    /// Mean demand, GPUs of `gpu` (before profiles and growth). Required unless
    /// `demand_trace` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub gpus: Option<f64>,
    /// GPUs of one replica, all on one node. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 1))]
    pub gpus_per_replica: Option<u32>,
    /// Demand by hour of the day (UTC): "flat", "office-hours", or 24 multipliers
    /// (normalised to mean 1). Default: "flat".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::daily_profile")]
    pub daily_profile: Option<Value>,
    /// Demand by weekday: 7 multipliers, Monday first, used as written. Default: all 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::weekly_profile")]
    pub weekly_profile: Option<Vec<f64>>,
    /// Growth of demand per calendar month, compounded, above -1 and at most 10. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 10.0), extend("exclusiveMinimum" = -1, "default" = 0))]
    pub growth_per_month: Option<f64>,
    /// Hourly variation of demand: the coefficient of variation of a lognormal multiplier
    /// with mean 1, 0 to 10. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 10.0), extend("default" = 0))]
    pub noise_cv: Option<f64>,
    /// Measured demand curve (CSV: time, gpus) instead of `gpus` and the profiles, relative to
    /// the scenario file. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demand_trace: Option<String>,
    /// Least GPUs always kept, whatever the demand. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub min_gpus: Option<f64>,
    /// Headroom: capacity kept above demand, as a share of it (0.2: aim at 120 % of demand),
    /// 0 to 10. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 10.0), extend("default" = 0))]
    pub headroom: Option<f64>,
    /// Scale-up time, hours: from the decision to add a replica until it serves. Default: 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0.1))]
    pub scale_up_h: Option<f64>,
    /// Scale-down window, hours: a replica is removed only once demand has stayed low this
    /// long. Default: 0.5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0.5))]
    pub scale_down_after_h: Option<f64>,
    /// Autoscaler step, hours (1/3600 to 168). Default: 0.25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 168.0), extend("exclusiveMinimum" = 0, "default" = 0.25))]
    pub autoscale_every_h: Option<f64>,
}

/// One instance size of a cloud pool.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstanceFile {
    /// The provider's name for it, e.g. "p5.48xlarge" (letters, digits, `-`, `_`, `.`,
    /// `+`, `(`, `)`, spaces inside; at most 32 characters). Default: GPUs and type, "8xH100".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 32))]
    pub name: Option<String>,
    /// GPUs of one instance, 1 to 1024, each size once in a pool. Required.
    #[schemars(range(min = 1, max = 1024))]
    pub gpus: u32,
    /// Price per GPU-hour of this size (reserved: its on-demand list price); all its GPUs are
    /// billed. Default: the pool's `price_per_gpu_h` (then it follows the pool's schedule or
    /// trace too); one of the two is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1e15), extend("exclusiveMinimum" = 0))]
    pub price_per_gpu_h: Option<f64>,
    /// Instead of its own price: its price per GPU-hour as a multiple of the pool's
    /// `price_per_gpu_h` (0.01 to 100), e.g. 1.075 for a 1-GPU size 7.5 % dearer per GPU; it
    /// then follows the pool's price, change, schedule or trace, and a sweep of it. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.01, max = 100.0))]
    pub price_ratio: Option<f64>,
    /// Reserved pools: instances of this size committed, 0 to 1000000. Required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub nodes: Option<u32>,
    /// On-demand and spot pools: quota of this size, most instances alive at once.
    /// Default: the pool's `max_nodes` (unlimited without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_nodes: Option<u32>,
}

/// One step of a price schedule: the price per GPU-hour from a month on.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceStepFile {
    /// First month of the step, "YYYY-MM". Required.
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}$"))]
    pub from: String,
    /// Price per GPU-hour from that month on, in the scenario's currency. Required.
    #[schemars(range(min = 0.0))]
    pub price_per_gpu_h: f64,
}

/// One step of an electricity price schedule: the price per kWh from a month on.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnergyStepFile {
    /// First month of the step, "YYYY-MM". Required.
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}$"))]
    pub from: String,
    /// Electricity price per kWh from that month on, in the scenario's currency. Required.
    #[schemars(range(min = 0.0))]
    pub electricity_per_kwh: f64,
}

/// How a reservation is paid: "none" (monthly), "partial" (`upfront_share` at the start, the
/// rest monthly) or "all" (the whole term at its start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UpfrontFile {
    None,
    Partial,
    All,
}

/// Checkpointing: after every `every_h` hours of useful work the job spends `write_h` writing
/// a checkpoint; an interruption loses the work since the last one, and a restart spends
/// `restart_h` restoring. Default: none (an interrupted job restarts from zero).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointFile {
    /// Checkpoint interval, hours of work between checkpoints, or "auto" (the Young/Daly
    /// optimum sqrt(2 x write_h x MTBF)). Required.
    #[schemars(schema_with = "shapes::every_h")]
    pub every_h: Option<Value>,
    /// Checkpoint write time, hours (no progress meanwhile). Required.
    #[schemars(range(min = 0.0))]
    pub write_h: Option<f64>,
    /// Restore time after an interruption, hours. Required.
    #[schemars(range(min = 0.0))]
    pub restart_h: Option<f64>,
}

/// Pool type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoolType {
    /// Owned nodes: capital, energy and operations, used or not.
    OnPrem,
    /// Committed cloud capacity for a term, paid every hour of it at a discount.
    Reserved,
    /// Elastic cloud capacity, billed while nodes exist.
    OnDemand,
    /// Like on_demand but cheaper, and nodes are preempted.
    Spot,
}

impl PoolType {
    pub fn as_str(self) -> &'static str {
        match self {
            PoolType::OnPrem => "on_prem",
            PoolType::Reserved => "reserved",
            PoolType::OnDemand => "on_demand",
            PoolType::Spot => "spot",
        }
    }
}

/// `[[pool]]`: a source of GPU capacity; which fields apply depends on `type` (checked later,
/// with clear messages).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolFile {
    /// Pool name, unique. Letters, digits, spaces inside, `-`, `_`, `+`, `(`, `)`; at most 64
    /// characters. Required.
    #[schemars(schema_with = "shapes::name")]
    pub name: String,
    /// Pool type. Required.
    #[serde(rename = "type")]
    pub pool_type: PoolType,
    /// GPU type of the nodes, e.g. "H100". Required.
    #[schemars(length(min = 1))]
    pub gpu: Option<String>,
    /// GPUs per node, 1 to 1024. Required, unless the pool lists its `instances`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024))]
    pub gpus_per_node: Option<u32>,
    /// Cloud pools: the instance sizes the pool sells, instead of one `gpus_per_node` (and a
    /// reserved pool's `nodes`): `[{ name = "g6e.xlarge", gpus = 1, price_per_gpu_h = 1.86 },
    /// { gpus = 8 }]`; the pool's `price_per_gpu_h` and `max_nodes` are the default of each
    /// size. A job takes free GPUs of any size that holds its gang on one node, else rents
    /// the smallest. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 16))]
    pub instances: Option<Vec<InstanceFile>>,
    /// Nodes in the pool (on_prem: bought; reserved: committed), 0 to 1000000. Required for
    /// on_prem and reserved pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub nodes: Option<u32>,
    // on_prem
    /// Purchase month: the month the nodes are bought and come online, from 0. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub purchase_month: Option<u32>,
    /// Purchase price per node. Required for on_prem pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e15))]
    pub capex_per_node: Option<f64>,
    /// Amortisation, months: capital is spread evenly over this many calendar months from the
    /// purchase. Required for on_prem pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 12_000))]
    pub amortization_months: Option<u32>,
    /// Residual value: share of the capex left at the end of amortisation (not amortised),
    /// 0 to 1. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0), extend("default" = 0))]
    pub residual_fraction: Option<f64>,
    /// Power of a fully busy node, kW. Required for on_prem pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub power_kw_per_node: Option<f64>,
    /// Power of an idle node, kW; busy GPUs add their share of the difference. Default:
    /// `power_kw_per_node`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub idle_power_kw_per_node: Option<f64>,
    /// Power usage effectiveness of the data centre, at least 1 (at most 5 on cloud pools).
    /// Required for on_prem pools; cloud pools: for CO2 only, default 1.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1.0))]
    pub pue: Option<f64>,
    /// Electricity price, per kWh. Required for on_prem pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub electricity_per_kwh: Option<f64>,
    /// Operating cost per node and calendar month (support, space, staff). Required for
    /// on_prem pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub opex_per_node_month: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<FailuresFile>,
    // cloud
    /// Price per GPU-hour (reserved: the on-demand list price the discount applies to); all
    /// GPUs of a node are billed. Required for cloud pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1e15), extend("exclusiveMinimum" = 0))]
    pub price_per_gpu_h: Option<f64>,
    // Prices and money over time.
    /// Yearly change of the price per GPU-hour, a fraction (-0.99 to 10), compounded monthly
    /// from `start`: -0.3 is 30 % a year cheaper. One of `price_change_per_year`,
    /// `price_schedule`, `price_trace`. Default: none (constant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -0.99, max = 10.0))]
    pub price_change_per_year: Option<f64>,
    /// Steps of the price per GPU-hour from a month on, in increasing months:
    /// `[{ from = "2027-07", price_per_gpu_h = 2.9 }]`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_schedule: Option<Vec<PriceStepFile>>,
    /// Price trace: a CSV of `time, price_per_gpu_h`, relative to the scenario file, shifted to
    /// begin at `start`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_trace: Option<String>,
    /// Yearly change of the electricity price, a fraction (-0.99 to 10), compounded monthly.
    /// Default: none (constant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -0.99, max = 10.0))]
    pub electricity_change_per_year: Option<f64>,
    /// Steps of the electricity price from a month on, in increasing months:
    /// `[{ from = "2028-01", electricity_per_kwh = 0.3 }]`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_schedule: Option<Vec<EnergyStepFile>>,
    /// Electricity price trace: a CSV of `time, electricity_per_kwh`, relative to the scenario
    /// file. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_trace: Option<String>,
    /// First month nodes can be requested, months from the start (0 = the start month).
    /// Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub available_from: Option<u32>,
    /// Last month of availability, months from the start: on_demand and spot take no new
    /// nodes from this month; on_prem nodes are sold at its start. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_until: Option<u32>,
    /// Resale value: share of the capex paid back when the nodes are sold at
    /// `available_until`, 0 to 1. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0), extend("default" = 0))]
    pub resale_fraction: Option<f64>,
    /// How the reservation is paid: "none" (monthly), "partial" (`upfront_share` at the
    /// start, the rest monthly) or "all" (the whole term at its start). Default: "none".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "none"))]
    pub upfront: Option<UpfrontFile>,
    /// Upfront share: the fraction of the term's cost paid at its start, 0 to 1, with
    /// `upfront = "partial"` only. Required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub upfront_share: Option<f64>,
    /// Site of the pool: datasets and checkpoints move (and are paid for) between sites.
    /// Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::name")]
    pub site: Option<String>,
    /// Checkpoint storage price per GB and calendar month, in the scenario's currency.
    /// Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub storage_per_gb_month: Option<f64>,
    /// Checkpoint retention, hours: checkpoints are stored this long after their job ends.
    /// Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub keep_checkpoints_h: Option<f64>,
    /// Egress price per GB of data leaving the pool's site (needs `site`). Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub egress_per_gb: Option<f64>,
    /// Ingress price per GB of data entering the pool's site (needs `site`). Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub ingress_per_gb: Option<f64>,
    /// Carbon intensity of the grid that powers the pool, kg CO2 per kWh (0 to 5). Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 5.0), extend("default" = 0))]
    pub grid_kg_co2_per_kwh: Option<f64>,
    /// Power per paid GPU of a cloud pool, its share of the node included, kW (0 to 100), for
    /// CO2. Required with `grid_kg_co2_per_kwh`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 100.0))]
    pub power_kw_per_gpu: Option<f64>,
    // reserved
    /// Reservation discount: fraction off the list price, 0 to 1. Required for reserved pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub discount: Option<f64>,
    /// Length of the commitment, months. Required for reserved pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 12_000))]
    pub term_months: Option<u32>,
    /// First month of the term, from 0. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub start_month: Option<u32>,
    // on_demand and spot
    /// Quota: most nodes alive at once. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_nodes: Option<u32>,
    /// Provisioning time, hours from request to ready. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub provisioning_h: Option<f64>,
    /// Idle timeout, hours: an idle node is released after this long. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub idle_timeout_h: Option<f64>,
    /// Billing increment, seconds: billed time is rounded up to whole increments. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0, "default" = 1))]
    pub billing_increment_s: Option<f64>,
    /// Minimum billed time per node, seconds. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub billing_minimum_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability: Option<AvailabilityFile>,
    // spot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionFile>,
    // Spot as it really behaves.
    /// Availability zone (cloud pools): spot pools of one zone draw their availability and
    /// reclaim waves from one random stream, so with the same parameters they go up and down
    /// together. Default: the pool's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::name")]
    pub zone: Option<String>,
    /// Region (cloud pools), for `spot_policy = "next_region"`; data between regions moves
    /// through the pools' sites. Also the FOCUS export's RegionId and RegionName.
    /// Default: the pool's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::name")]
    pub region: Option<String>,
    /// Availability trace (spot): how many nodes can be had over time, a CSV (`time, nodes` or
    /// `time, available`) or the JSON of the public spot traces, relative to the scenario file.
    /// Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_trace: Option<String>,
    /// Trace offset (spot), hours: where in the availability trace the horizon starts.
    /// Default: a random offset per replication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub availability_start_h: Option<f64>,
    /// Synthetic spot availability (spot), a two-state Markov process; not with
    /// `availability_trace`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_markov: Option<MarkovFile>,
    /// How gangs are placed on nodes. Default: "node_local".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "node_local"))]
    pub placement: Option<PlacementFile>,
    /// Who sells (or, on-prem, runs) the capacity, for the FOCUS export's ProviderName,
    /// PublisherName and InvoiceIssuerName. Default: the pool's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::team")]
    pub provider: Option<String>,
}

/// How a job takes a pool's GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlacementFile {
    /// A job of at most a node's GPUs runs on one node; larger gangs take whole nodes.
    NodeLocal,
    /// The pool is one bag of GPUs: a gang may take GPUs of several nodes.
    Spread,
}

/// How the cost of idle paid capacity is shown per workload and team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdleCostFile {
    /// A row of its own, `unallocated`.
    Unallocated,
    /// Spread over the users of each pool in each month.
    Proportional,
}

/// Node failures (on_prem): each node fails after an exponential up-time, interrupting its
/// jobs, and is back after the repair time. Default: none.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailuresFile {
    /// Mean time between failures of a node, hours. Required.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub mtbf_h: Option<f64>,
    /// Repair time, hours. Required.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub repair_h: Option<f64>,
}

/// Spot preemptions: each node is preempted after an exponential time from when it is ready,
/// and reclaim waves take a share of the ready nodes at once. Default: none (spot nodes are
/// then lost only as their capacity goes, `availability_trace` or `availability_markov`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = shapes::waves_need_a_fraction)]
pub struct PreemptionFile {
    /// Mean time to preemption of a node, hours. Required.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub mean_h: Option<f64>,
    /// Reclaim waves per mean calendar month (a Poisson process). Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub waves_per_month: Option<f64>,
    /// Share of the pool's ready nodes a wave takes, 0 to 1. Required when `waves_per_month`
    /// is above 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub wave_fraction: Option<f64>,
}

/// Spot capacity that comes and goes: available for exponential runs of mean
/// `available_mean_h`, a share `available_share` of the time in the long run.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkovFile {
    /// Available share: the long-run fraction of the time spot capacity is there, above 0 and
    /// below 1. Required.
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub available_share: Option<f64>,
    /// Mean hours spot capacity stays available once it is. Required.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub available_mean_h: Option<f64>,
}

/// Availability shortfalls (on_demand and spot): while constrained, each node request fails
/// with probability `shortfall`. Constrained in a weekly `window`, in random episodes, or
/// always. Default: always available.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = shapes::window_or_episodes)]
pub struct AvailabilityFile {
    /// Shortfall: probability that a node request fails while constrained, 0 to 1. Required.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub shortfall: Option<f64>,
    /// Weekly calendar window (UTC) when constrained, e.g. "weekdays 09:00-18:00"; several
    /// separated by `;`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Random constrained episodes per mean calendar month (instead of `window`). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub episodes_per_month: Option<f64>,
    /// Mean length of an episode, hours. Required with `episodes_per_month`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub episode_mean_h: Option<f64>,
    /// Retry time, hours: a waiting job asks a pool that refused it again after this long.
    /// Default: 0.25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0, "default" = 0.25))]
    pub retry_h: Option<f64>,
}

/// What a job does when a spot pool preempts it or refuses its request (docs/scenario.md,
/// "Spot policies").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpotPolicyFile {
    /// Waits for that spot pool and uses no other pool from then on.
    Stay,
    /// Queues again and tries the strategy's pools in order.
    Failover,
    /// Tries the spot pools of other zones first, then the strategy's pools in order.
    NextZone,
    /// Tries the spot pools of other regions first, then the strategy's pools in order.
    NextRegion,
    /// As failover, and leaves spot for good after `spot_fallback_after` preemptions.
    FallbackAfter,
    /// Jobs with a deadline follow Uniform Progress with its hysteresis rule, as the "Can't Be
    /// Late" study publishes it; others as failover.
    DeadlineAware,
    /// Jobs with a deadline follow Uniform Progress without the hysteresis rule (the study's
    /// "Uniform Progress (plain)"); others as failover.
    UniformProgressPlain,
    /// Jobs with a deadline use spot until their slack is gone, then on-demand to the end (the
    /// study's greedy policy); others as failover.
    Greedy,
}

/// Queue discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueFile {
    /// Strict arrival order: a job that cannot be placed blocks those behind it.
    Fifo,
    /// EASY backfill: the first blocked job gets a reservation; later jobs start only if
    /// they do not delay it.
    Backfill,
    /// By priority with aging, then arrival, with the same reservation.
    Priority,
    /// Any later job that fits starts, with no reservation: wide jobs can starve.
    FirstFit,
}

/// `[[strategy]]`: an ordered list of pools plus policies.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrategyFile {
    /// Strategy name, unique. Letters, digits, spaces inside, `-`, `_`, `+`, `(`, `)`; at
    /// most 64 characters. Required.
    #[schemars(schema_with = "shapes::name")]
    pub name: String,
    /// Pools, in the order they are tried. Required, at least one.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub pools: Vec<String>,
    /// Burst threshold, hours: elastic pools are tried once a job has waited this long in the
    /// queue; "never" keeps jobs off them. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::burst_after_wait_h")]
    pub burst_after_wait_h: Option<Value>,
    /// Queue discipline. Default: "fifo".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "fifo"))]
    pub queue: Option<QueueFile>,
    /// Priority aging, hours of waiting worth one priority level under `queue = "priority"`,
    /// or "never" (strict priority, which can starve low-priority work). Default: 24.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shapes::priority_aging_h")]
    pub priority_aging_h: Option<Value>,
    /// Spot fallback: after this many preemptions a job no longer uses spot pools. Default:
    /// never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub spot_fallback_after: Option<u32>,
    /// Spot policy: what a job does when spot preempts it or refuses its request. Default:
    /// "failover".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "failover"))]
    pub spot_policy: Option<SpotPolicyFile>,
    /// Deadline safety, hours of extra slack a job keeps before leaving spot under
    /// `deadline_aware`, `uniform_progress_plain` and `greedy`. Default: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 0))]
    pub deadline_safety_h: Option<f64>,
    /// Mixed precision: divide run times by the workloads' `mixed_precision_speedup`.
    /// Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub mixed_precision: Option<bool>,
    /// Elastic gangs: a job of a workload with `scaling_efficiency` or `scaling` starts on the
    /// largest GPU count it may run on that fits now on the pool being tried, instead of
    /// waiting for its asked count. Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub elastic: Option<bool>,
    /// Keep jobs of workloads with a `deadline_h` off spot pools. Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub deadline_jobs_off_spot: Option<bool>,
    /// Checkpointing: false ignores the workloads' checkpoint sections (interrupted jobs
    /// restart from zero). Default: true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub checkpointing: Option<bool>,
    /// Placement for every pool of this strategy, overriding the pools'. Default: the pools'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementFile>,
    /// Pools that serve the services, in order (a subset of `pools`). Default: the strategy's
    /// pools but spot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_pools: Option<Vec<String>>,
    /// A service scale-up may interrupt batch jobs on owned and reserved pools. Default: true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub service_preempts: Option<bool>,
    /// GPUs held for the services on owned or reserved pools, by pool (`{ dgx = 8 }`): batch
    /// never uses them. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_gpus: Option<BTreeMap<String, u32>>,
}

/// The seed of all random streams: any u64. TOML integers stop at `i64::MAX`, so a larger seed
/// is written as a string of digits (`seed = "18446744073709551615"`), and is written back so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed(pub u64);

impl Seed {
    /// What a seed must be, for messages.
    pub const ACCEPTED: &str = "a whole number from 0 to 18446744073709551615 (above 9223372036854775807, in quotes: seed = \"18446744073709551615\")";

    /// The seed as TOML writes it: an integer, or a string above `i64::MAX`.
    pub fn to_toml(self) -> Value {
        match i64::try_from(self.0) {
            Ok(n) => Value::Integer(n),
            Err(_) => Value::String(self.0.to_string()),
        }
    }
}

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(self.0) {
            Ok(n) => serializer.serialize_i64(n),
            Err(_) => serializer.serialize_str(&self.0.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Seed;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(Seed::ACCEPTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Seed, E> {
                u64::try_from(n)
                    .map(Seed)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(n), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Seed, E> {
                // The same file must load with and without `--set`, which goes through TOML
                // values (i64): so a larger integer is refused, and the message says to quote it.
                if i64::try_from(n).is_ok() {
                    Ok(Seed(n))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
                }
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Seed, E> {
                match text.trim().parse::<u64>() {
                    Ok(n) if !text.trim().starts_with('+') => Ok(Seed(n)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(text), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JsonSchema for Seed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seed".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Seed of every random stream, 0 to 18446744073709551615; above 9223372036854775807 (the largest TOML integer) in quotes, seed = \"18446744073709551615\". Default: 1.",
            "default": 1,
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^[0-9]{1,20}$" }
            ]
        })
    }
}

/// How replications use a trace.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// The same jobs in every replication, shifted so the first arrives at `start`.
    Exact,
    /// Each replication draws whole days of the trace with replacement, weekdays for
    /// weekdays and weekend days for weekend days.
    #[default]
    Bootstrap,
}

impl Replay {
    pub fn as_str(self) -> &'static str {
        match self {
            Replay::Exact => "exact",
            Replay::Bootstrap => "bootstrap",
        }
    }
}
