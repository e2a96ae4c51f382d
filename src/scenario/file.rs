//! The scenario file as a person writes it (TOML), before any check.
//!
//! Unknown fields are rejected here; fields that take several shapes (a number or a table, a
//! number or a word) are kept as TOML values and interpreted by the checks, which can then say
//! exactly what is accepted. These types also serialize: `run.json` carries the resolved file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toml::Value;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// First day of the horizon, "YYYY-MM-DD" (a string or a TOML date), midnight UTC.
    pub start: Option<Value>,
    pub horizon_months: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_days: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replications: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Event budget per replication and strategy (a guard against runs that cannot end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// Jobs that may wait at once in one replication of one strategy (a guard against queues
    /// that grow without bound exhausting memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queued_jobs: Option<u64>,
    /// How the cost of idle paid capacity is shown per workload and team: "unallocated"
    /// (default, a row of its own) or "proportional" (spread over the users of each pool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_cost: Option<IdleCostFile>,
    /// Cost of money: cash flows of month m are discounted by (1 + r)^(-m/12) in the NPV view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_rate_per_year: Option<f64>,
    #[serde(default)]
    pub gpu_speed: BTreeMap<String, f64>,
    #[serde(default)]
    pub workload: Vec<WorkloadFile>,
    /// Inference services (issue 13): GPU demand to be met now, not jobs to queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub service: Vec<ServiceFile>,
    #[serde(default)]
    pub pool: Vec<PoolFile>,
    #[serde(default)]
    pub strategy: Vec<StrategyFile>,
    /// A sweep to run with `fleetsim sweep` (ignored by `run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepFile>,
}

/// `[sweep]`: the parameters `fleetsim sweep` varies when no `--vary` is given.
///
/// ```toml
/// [sweep]
/// vary = { "pool.dgx.nodes" = "0..16:2", "strategy.hybrid.burst_after_wait_h" = [0, 1, 4] }
/// sample = "lhs:20"   # optional: "grid" (default), "random:N" or "lhs:N"
/// ```
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SweepFile {
    /// Field path (as for `--set`) -> a list of values `[0, 2, 4]` or a spec string
    /// (`"0..16:2"`, `"1..1000:log:7"`, `"0,2,4"`). Checked by `fleetsim sweep` and `validate`.
    #[serde(default)]
    pub vary: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadFile {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals_per_day: Option<f64>,
    /// Exact arrival times, hours since start, the same in every replication (instead of
    /// `arrivals_per_day`): for replaying a known list of jobs and for worked examples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_times_h: Option<Vec<f64>>,
    /// "flat", "office-hours", or 24 multipliers (normalised to mean 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_profile: Option<Value>,
    /// 7 multipliers, Monday first, used as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekly_profile: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth_per_month: Option<f64>,
    /// A GPU count or a table `{ 1 = 0.6, 8 = 0.4 }` of counts and probabilities.
    pub gpus: Option<Value>,
    /// Hours on `gpu`: a number or a table `{ dist = "...", ... }`.
    pub duration_h: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepts: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixed_precision_speedup: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Size of one checkpoint, GB (stored while the job lives; moved when it changes site).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_gb: Option<f64>,
    /// Size of the job's input data, GB (moved to a site the job runs at for the first time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_gb: Option<f64>,
    // Trace workloads (issue 12): the jobs of a file instead of rates and distributions.
    /// A job trace, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// "csv" (default), "slurm", "helios", "acme", "philly", "pai" or "openb".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_format: Option<super::trace::TraceFormat>,
    /// Time zone of trace times written without one: "UTC" (default), "Europe/Berlin", "+08:00".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_timezone: Option<String>,
    /// "bootstrap" (default: whole days resampled) or "exact" (the same jobs every replication).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<super::trace::Replay>,
}

/// `[[service]]`: an inference service whose demand, in GPUs of its `gpu`, an autoscaler
/// meets with replicas on the strategy's pools.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceFile {
    pub name: String,
    /// The GPU type demand is counted in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepts: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Mean demand, GPUs of `gpu` (before profiles and growth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<f64>,
    /// GPUs of one replica (all on one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_per_replica: Option<u32>,
    /// "flat", "office-hours", or 24 multipliers (normalised to mean 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_profile: Option<Value>,
    /// 7 multipliers, Monday first, used as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekly_profile: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth_per_month: Option<f64>,
    /// Coefficient of variation of an hourly multiplicative variation (lognormal, mean 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_cv: Option<f64>,
    /// A measured demand curve (CSV: time, gpus), relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demand_trace: Option<String>,
    /// GPUs always kept, whatever the demand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_gpus: Option<f64>,
    /// Capacity kept above demand, as a share of it (0.2: aim at 120 % of demand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<f64>,
    /// Time from the decision to add a replica until it serves, hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up_h: Option<f64>,
    /// A replica is removed only once demand has stayed low this long, hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_down_after_h: Option<f64>,
    /// The autoscaler's step, hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscale_every_h: Option<f64>,
}

/// One step of a price schedule: the price from a month on.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriceStepFile {
    /// "YYYY-MM".
    pub from: String,
    pub price_per_gpu_h: f64,
}

/// One step of an electricity price schedule.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyStepFile {
    /// "YYYY-MM".
    pub from: String,
    pub electricity_per_kwh: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpfrontFile {
    None,
    Partial,
    All,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointFile {
    /// Hours of work between checkpoints, or "auto" (Young/Daly).
    pub every_h: Option<Value>,
    pub write_h: Option<f64>,
    pub restart_h: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolType {
    OnPrem,
    Reserved,
    OnDemand,
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

/// One pool; which fields apply depends on `type` (checked later, with clear messages).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoolFile {
    pub name: String,
    #[serde(rename = "type")]
    pub pool_type: PoolType,
    pub gpu: Option<String>,
    pub gpus_per_node: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    // on_prem
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase_month: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capex_per_node: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amortization_months: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_kw_per_node: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_power_kw_per_node: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pue: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_per_kwh: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opex_per_node_month: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<FailuresFile>,
    // cloud
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_h: Option<f64>,
    // Prices and money over time (issue 14).
    /// Yearly change of `price_per_gpu_h`, compounded monthly from `start` (-0.3: 30 % a year
    /// cheaper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_change_per_year: Option<f64>,
    /// Steps of the price from a month on: `[{ from = "2027-07", price_per_gpu_h = 2.9 }]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_schedule: Option<Vec<PriceStepFile>>,
    /// A CSV of `time, price_per_gpu_h`, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_trace: Option<String>,
    /// On-prem: yearly change of `electricity_per_kwh`, compounded monthly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_change_per_year: Option<f64>,
    /// On-prem: steps of the electricity price: `[{ from = "2028-01", electricity_per_kwh = 0.3 }]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_schedule: Option<Vec<EnergyStepFile>>,
    /// On-prem: a CSV of `time, electricity_per_kwh`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub electricity_trace: Option<String>,
    /// Elastic pools: the first month nodes can be had (0 = the start month).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_from: Option<u32>,
    /// Elastic pools: from this month no new nodes; on-prem: the month the nodes are sold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_until: Option<u32>,
    /// On-prem: share of the capital paid back when the nodes are sold (`available_until`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resale_fraction: Option<f64>,
    /// Reserved: "none" (monthly, default), "partial" (`upfront_share` at the start) or "all".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upfront: Option<UpfrontFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upfront_share: Option<f64>,
    /// Where the pool is: data moves (and is paid for) between sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Storage of the checkpoints of the jobs on this pool, per GB-month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_per_gb_month: Option<f64>,
    /// Checkpoints are kept this long after their job ends, hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_checkpoints_h: Option<f64>,
    /// Data leaving this pool's site, per GB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_per_gb: Option<f64>,
    /// Data entering this pool's site, per GB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_per_gb: Option<f64>,
    /// Carbon intensity of the grid that powers the pool, kg CO2 per kWh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_kg_co2_per_kwh: Option<f64>,
    /// Cloud pools: power drawn per paid GPU, its share of the node included, kW (for CO2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_kw_per_gpu: Option<f64>,
    // reserved
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term_months: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_month: Option<u32>,
    // on_demand and spot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_increment_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_minimum_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability: Option<AvailabilityFile>,
    // spot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionFile>,
    // Spot as it really behaves (issue 16).
    /// The availability zone: spot pools of one zone draw their availability and reclaim
    /// waves from one random stream (with the same parameters they go up and down together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    /// The region (for `spot_policy = "next_region"`; data between regions moves through
    /// the pools' sites), also the FOCUS export's RegionId and RegionName (issue 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Spot: how many nodes can be had over time, a CSV (`time, nodes` or `time, available`)
    /// or the JSON of the public spot traces, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_trace: Option<String>,
    /// Spot: where in the trace the horizon starts, hours (default: a random offset per
    /// replication).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_start_h: Option<f64>,
    /// Spot: synthetic availability, a two-state Markov process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_markov: Option<MarkovFile>,
    /// How gangs are placed on nodes: "node_local" (default) or "spread".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementFile>,
    /// Who sells (or, on-prem, runs) the capacity, for the FOCUS export's ProviderName,
    /// PublisherName and InvoiceIssuerName (issue 15); default: the pool's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacementFile {
    NodeLocal,
    Spread,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleCostFile {
    Unallocated,
    Proportional,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FailuresFile {
    pub mtbf_h: Option<f64>,
    pub repair_h: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptionFile {
    pub mean_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waves_per_month: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave_fraction: Option<f64>,
}

/// Spot capacity that comes and goes: available for exponential runs of mean
/// `available_mean_h`, a share `available_share` of the time in the long run.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MarkovFile {
    pub available_share: Option<f64>,
    pub available_mean_h: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityFile {
    pub shortfall: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episodes_per_month: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode_mean_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_h: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpotPolicyFile {
    Stay,
    Failover,
    NextZone,
    NextRegion,
    FallbackAfter,
    DeadlineAware,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueFile {
    Fifo,
    Backfill,
    Priority,
    FirstFit,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StrategyFile {
    pub name: String,
    #[serde(default)]
    pub pools: Vec<String>,
    /// Hours, or "never".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_after_wait_h: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueFile>,
    /// Under `queue = "priority"`: hours of waiting worth one priority level, or "never".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_aging_h: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_fallback_after: Option<u32>,
    /// What a job does when spot takes its node or refuses it (issue 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_policy: Option<SpotPolicyFile>,
    /// `deadline_aware`: extra hours of slack kept in hand before leaving spot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_safety_h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixed_precision: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_jobs_off_spot: Option<bool>,
    /// false: ignore the workloads' checkpoint sections (interrupted jobs restart from zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpointing: Option<bool>,
    /// Overrides the pools' `placement` for this strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementFile>,
    /// Pools that serve the services, in order (default: the strategy's pools but spot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_pools: Option<Vec<String>>,
    /// A service scale-up may interrupt batch jobs on owned and reserved pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_preempts: Option<bool>,
    /// GPUs held for the services on owned or reserved pools, by pool: batch never uses them.
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
