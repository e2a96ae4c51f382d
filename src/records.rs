//! The rows fleetsim writes: what is serialized here is a promise to users.
//!
//! Field names are CSV headers (pandas reads them as they are); money is in the scenario's
//! currency; times are hours since the scenario's start.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::scenario::Config;
use crate::scenario::economics::BreakEven;

/// One row of `replications.csv`: one strategy in one replication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicationRow {
    pub strategy: String,
    pub replication: u32,
    /// Amortised view: on-prem capital spread over its amortisation period.
    pub total_cost: f64,
    /// Cash view: on-prem capital counted in its purchase month.
    pub total_cost_cash: f64,
    /// Jobs arriving after the warm-up.
    pub jobs_arrived: u64,
    pub jobs_completed: u64,
    pub jobs_unfinished: u64,
    /// Time from arrival to first start; a job not started by the horizon counts with its wait
    /// so far (a lower bound, see `wait_p95_lower_bound`).
    pub wait_mean_h: f64,
    /// Nearest-rank percentile of the waits (within 0.05 %).
    pub wait_p95_h: f64,
    /// Time from arrival to completion, of completed jobs.
    pub turnaround_mean_h: f64,
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    /// Busy / paid GPU-hours.
    pub utilization: f64,
    /// Job interruptions by spot preemptions (individual and waves).
    pub preemptions: u64,
    /// GPU-hours of work lost to interruptions (since the last checkpoint).
    pub lost_gpu_hours: f64,
    /// GPU-hours spent writing and restoring checkpoints.
    pub checkpoint_gpu_hours: f64,
    /// Jobs that ran at least partly on an elastic (on-demand or spot) pool.
    pub burst_jobs: u64,
    /// Node requests refused by an availability shortfall.
    pub failed_requests: u64,
    pub deadline_misses: u64,
    pub wait_p50_h: f64,
    /// Job interruptions by on-prem node failures.
    pub node_failures: u64,
    /// Cost lines of `total_cost`.
    pub cost_capital: f64,
    pub cost_capital_cash: f64,
    pub cost_energy: f64,
    pub cost_operations: f64,
    pub cost_reserved: f64,
    pub cost_on_demand: f64,
    pub cost_spot: f64,
    /// Months from the start until the cumulative cash-view cost stays below the baseline's
    /// (NaN when it never does, and for the baseline itself).
    pub break_even_months: f64,
    /// Jobs (arrived after the warm-up) not started by the horizon.
    pub jobs_unstarted: u64,
    pub wait_p90_h: f64,
    pub wait_p99_h: f64,
    /// Largest wait; a lower bound when `jobs_unstarted` > 0.
    pub wait_max_h: f64,
    /// 1 when `wait_p95_h` is only a lower bound (jobs never started could move it), else 0.
    pub wait_p95_lower_bound: f64,
    // Columns added with sites, storage and data transfer: absent from older result folders,
    // read back as unknown.
    /// Reserved capacity as paid (up front or month by month; `cost_reserved` spreads it).
    #[serde(default = "unknown")]
    pub cost_reserved_cash: f64,
    /// Checkpoint storage, and data moved between sites.
    #[serde(default = "unknown")]
    pub cost_storage: f64,
    #[serde(default = "unknown")]
    pub cost_network: f64,
    /// The cash view discounted to `start` at `discount_rate_per_year`.
    #[serde(default = "unknown")]
    pub total_cost_npv: f64,
    /// As `break_even_months`, in the discounted cash view.
    #[serde(default = "unknown")]
    pub break_even_months_npv: f64,
    /// CO2 of the energy the fleet drew (estimated for cloud pools), tonnes.
    #[serde(default = "unknown")]
    pub co2_tonnes: f64,
    /// Jobs past their deadline whose work alone outlasts `deadline_h` on every pool they may
    /// use (not counted in `deadline_misses`, which are the late jobs that could have met it).
    #[serde(default)]
    pub deadline_infeasible: u64,
}

/// A value a file written before its column existed does not give.
fn unknown() -> f64 {
    f64::NAN
}

/// Whether a metric (of `summary.csv`, `workloads.csv`, `teams.csv`, `services.csv`,
/// `sweep.csv`) is an amount of money, in the scenario's currency: `cost`, `cost_*` and
/// `total_cost*`. Such rows say the currency in their `currency` column.
pub fn is_money(metric: &str) -> bool {
    metric == "cost" || metric.starts_with("cost_") || metric.starts_with("total_cost")
}

/// The names of the metrics of `summary.csv` (and of `workloads.csv`, `teams.csv` and
/// `services.csv`), one constant each: the tables below name their columns with them and every
/// reader of a summary looks its figures up with them, so a misspelt metric does not compile
/// instead of reading as a missing figure.
pub mod metric {
    pub const TOTAL_COST: &str = "total_cost";
    pub const TOTAL_COST_CASH: &str = "total_cost_cash";
    pub const JOBS_ARRIVED: &str = "jobs_arrived";
    pub const JOBS_COMPLETED: &str = "jobs_completed";
    pub const JOBS_UNFINISHED: &str = "jobs_unfinished";
    pub const WAIT_MEAN_H: &str = "wait_mean_h";
    pub const WAIT_P95_H: &str = "wait_p95_h";
    pub const TURNAROUND_MEAN_H: &str = "turnaround_mean_h";
    pub const GPU_HOURS_BUSY: &str = "gpu_hours_busy";
    pub const GPU_HOURS_PAID: &str = "gpu_hours_paid";
    pub const UTILIZATION: &str = "utilization";
    pub const PREEMPTIONS: &str = "preemptions";
    pub const LOST_GPU_HOURS: &str = "lost_gpu_hours";
    pub const CHECKPOINT_GPU_HOURS: &str = "checkpoint_gpu_hours";
    pub const BURST_JOBS: &str = "burst_jobs";
    pub const FAILED_REQUESTS: &str = "failed_requests";
    pub const DEADLINE_MISSES: &str = "deadline_misses";
    pub const WAIT_P50_H: &str = "wait_p50_h";
    pub const NODE_FAILURES: &str = "node_failures";
    pub const COST_CAPITAL: &str = "cost_capital";
    pub const COST_CAPITAL_CASH: &str = "cost_capital_cash";
    pub const COST_ENERGY: &str = "cost_energy";
    pub const COST_OPERATIONS: &str = "cost_operations";
    pub const COST_RESERVED: &str = "cost_reserved";
    pub const COST_ON_DEMAND: &str = "cost_on_demand";
    pub const COST_SPOT: &str = "cost_spot";
    pub const BREAK_EVEN_MONTHS: &str = "break_even_months";
    pub const JOBS_UNSTARTED: &str = "jobs_unstarted";
    pub const WAIT_P90_H: &str = "wait_p90_h";
    pub const WAIT_P99_H: &str = "wait_p99_h";
    pub const WAIT_MAX_H: &str = "wait_max_h";
    pub const WAIT_P95_LOWER_BOUND: &str = "wait_p95_lower_bound";
    pub const COST_RESERVED_CASH: &str = "cost_reserved_cash";
    pub const COST_STORAGE: &str = "cost_storage";
    pub const COST_NETWORK: &str = "cost_network";
    pub const TOTAL_COST_NPV: &str = "total_cost_npv";
    pub const BREAK_EVEN_MONTHS_NPV: &str = "break_even_months_npv";
    pub const CO2_TONNES: &str = "co2_tonnes";
    pub const DEADLINE_INFEASIBLE: &str = "deadline_infeasible";
    pub const COST: &str = "cost";
    pub const GPU_HOURS_DEMANDED: &str = "gpu_hours_demanded";
    pub const GPU_HOURS_SERVED: &str = "gpu_hours_served";
    pub const GPU_HOURS_UNSERVED: &str = "gpu_hours_unserved";
    pub const UNSERVED_SHARE: &str = "unserved_share";
    pub const MET_SHARE: &str = "met_share";
    pub const GPU_HOURS_ALLOCATED: &str = "gpu_hours_allocated";
    pub const GPUS_DEMANDED_MAX: &str = "gpus_demanded_max";
    pub const SCALE_UPS: &str = "scale_ups";
    pub const REPLICAS_PREEMPTED: &str = "replicas_preempted";
    pub const BATCH_JOBS_PREEMPTED: &str = "batch_jobs_preempted";
    pub const TOTAL_COST_VS_BASELINE: &str = "total_cost_vs_baseline";
    pub const TOTAL_COST_CASH_VS_BASELINE: &str = "total_cost_cash_vs_baseline";
}

/// A metric of a replication row, by name.
pub type Metric = (&'static str, fn(&ReplicationRow) -> f64);

impl ReplicationRow {
    /// Every numeric column, in CSV order: the metrics of `summary.csv`.
    pub const METRICS: [Metric; 39] = [
        (metric::TOTAL_COST, |r| r.total_cost),
        (metric::TOTAL_COST_CASH, |r| r.total_cost_cash),
        (metric::JOBS_ARRIVED, |r| r.jobs_arrived as f64),
        (metric::JOBS_COMPLETED, |r| r.jobs_completed as f64),
        (metric::JOBS_UNFINISHED, |r| r.jobs_unfinished as f64),
        (metric::WAIT_MEAN_H, |r| r.wait_mean_h),
        (metric::WAIT_P95_H, |r| r.wait_p95_h),
        (metric::TURNAROUND_MEAN_H, |r| r.turnaround_mean_h),
        (metric::GPU_HOURS_BUSY, |r| r.gpu_hours_busy),
        (metric::GPU_HOURS_PAID, |r| r.gpu_hours_paid),
        (metric::UTILIZATION, |r| r.utilization),
        (metric::PREEMPTIONS, |r| r.preemptions as f64),
        (metric::LOST_GPU_HOURS, |r| r.lost_gpu_hours),
        (metric::CHECKPOINT_GPU_HOURS, |r| r.checkpoint_gpu_hours),
        (metric::BURST_JOBS, |r| r.burst_jobs as f64),
        (metric::FAILED_REQUESTS, |r| r.failed_requests as f64),
        (metric::DEADLINE_MISSES, |r| r.deadline_misses as f64),
        (metric::WAIT_P50_H, |r| r.wait_p50_h),
        (metric::NODE_FAILURES, |r| r.node_failures as f64),
        (metric::COST_CAPITAL, |r| r.cost_capital),
        (metric::COST_CAPITAL_CASH, |r| r.cost_capital_cash),
        (metric::COST_ENERGY, |r| r.cost_energy),
        (metric::COST_OPERATIONS, |r| r.cost_operations),
        (metric::COST_RESERVED, |r| r.cost_reserved),
        (metric::COST_ON_DEMAND, |r| r.cost_on_demand),
        (metric::COST_SPOT, |r| r.cost_spot),
        (metric::BREAK_EVEN_MONTHS, |r| r.break_even_months),
        (metric::JOBS_UNSTARTED, |r| r.jobs_unstarted as f64),
        (metric::WAIT_P90_H, |r| r.wait_p90_h),
        (metric::WAIT_P99_H, |r| r.wait_p99_h),
        (metric::WAIT_MAX_H, |r| r.wait_max_h),
        (metric::WAIT_P95_LOWER_BOUND, |r| r.wait_p95_lower_bound),
        (metric::COST_RESERVED_CASH, |r| r.cost_reserved_cash),
        (metric::COST_STORAGE, |r| r.cost_storage),
        (metric::COST_NETWORK, |r| r.cost_network),
        (metric::TOTAL_COST_NPV, |r| r.total_cost_npv),
        (metric::BREAK_EVEN_MONTHS_NPV, |r| r.break_even_months_npv),
        (metric::CO2_TONNES, |r| r.co2_tonnes),
        (metric::DEADLINE_INFEASIBLE, |r| {
            r.deadline_infeasible as f64
        }),
    ];
}

/// One workload's or team's figures in one replication (aggregated into `workloads.csv` and
/// `teams.csv`). Job counts and waits as in [`ReplicationRow`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRow {
    pub jobs_arrived: u64,
    pub jobs_completed: u64,
    pub jobs_unstarted: u64,
    pub jobs_unfinished: u64,
    pub wait_mean_h: f64,
    pub wait_p50_h: f64,
    pub wait_p95_h: f64,
    pub wait_max_h: f64,
    /// 1 when `wait_p95_h` is only a lower bound (jobs never started could move it), else 0.
    pub wait_p95_lower_bound: f64,
    pub turnaround_mean_h: f64,
    pub gpu_hours_busy: f64,
    pub burst_jobs: u64,
    pub preemptions: u64,
    pub lost_gpu_hours: f64,
    pub deadline_misses: u64,
    #[serde(default)]
    pub deadline_infeasible: u64,
    /// Share of the strategy's cost (amortised view): see `idle_cost`.
    pub cost: f64,
}

/// A metric of a group row, by name.
pub type GroupMetric = (&'static str, fn(&GroupRow) -> f64);

impl GroupRow {
    /// The metrics of `workloads.csv` and `teams.csv`, in order.
    pub const METRICS: [GroupMetric; 17] = [
        (metric::JOBS_ARRIVED, |r| r.jobs_arrived as f64),
        (metric::JOBS_COMPLETED, |r| r.jobs_completed as f64),
        (metric::JOBS_UNSTARTED, |r| r.jobs_unstarted as f64),
        (metric::JOBS_UNFINISHED, |r| r.jobs_unfinished as f64),
        (metric::WAIT_MEAN_H, |r| r.wait_mean_h),
        (metric::WAIT_P50_H, |r| r.wait_p50_h),
        (metric::WAIT_P95_H, |r| r.wait_p95_h),
        (metric::WAIT_MAX_H, |r| r.wait_max_h),
        (metric::WAIT_P95_LOWER_BOUND, |r| r.wait_p95_lower_bound),
        (metric::TURNAROUND_MEAN_H, |r| r.turnaround_mean_h),
        (metric::GPU_HOURS_BUSY, |r| r.gpu_hours_busy),
        (metric::BURST_JOBS, |r| r.burst_jobs as f64),
        (metric::PREEMPTIONS, |r| r.preemptions as f64),
        (metric::LOST_GPU_HOURS, |r| r.lost_gpu_hours),
        (metric::DEADLINE_MISSES, |r| r.deadline_misses as f64),
        (metric::DEADLINE_INFEASIBLE, |r| {
            r.deadline_infeasible as f64
        }),
        (metric::COST, |r| r.cost),
    ];
}

/// One service's figures in one replication (aggregated into `services.csv`). Demand is in
/// GPUs of the service's `gpu`; `gpu_hours_allocated` in GPUs of the pools it ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceRow {
    pub gpu_hours_demanded: f64,
    /// Demand met by serving replicas.
    pub gpu_hours_served: f64,
    /// Demand above what was serving.
    pub gpu_hours_unserved: f64,
    /// Unserved over demanded GPU-hours (NaN without demand).
    pub unserved_share: f64,
    /// Share of the horizon's hours in which the demand was fully met.
    pub met_share: f64,
    /// GPU-hours the replicas held (loading or serving), on the pools' GPUs.
    pub gpu_hours_allocated: f64,
    /// Most GPUs of demand at once (GPUs of the service's `gpu`).
    pub gpus_demanded_max: f64,
    /// Replicas added by the autoscaler (those of the start included).
    pub scale_ups: u64,
    /// Replicas lost to spot preemptions, node failures and the end of reserved terms.
    pub replicas_preempted: u64,
    /// Batch jobs interrupted to make room for a replica (`service_preempts`).
    pub batch_jobs_preempted: u64,
    /// Share of the strategy's cost (amortised view), as for workloads.
    pub cost: f64,
}

/// A metric of a service row, by name.
pub type ServiceMetric = (&'static str, fn(&ServiceRow) -> f64);

impl ServiceRow {
    /// The metrics of `services.csv`, in order.
    pub const METRICS: [ServiceMetric; 11] = [
        (metric::GPU_HOURS_DEMANDED, |r| r.gpu_hours_demanded),
        (metric::GPU_HOURS_SERVED, |r| r.gpu_hours_served),
        (metric::GPU_HOURS_UNSERVED, |r| r.gpu_hours_unserved),
        (metric::UNSERVED_SHARE, |r| r.unserved_share),
        (metric::MET_SHARE, |r| r.met_share),
        (metric::GPU_HOURS_ALLOCATED, |r| r.gpu_hours_allocated),
        (metric::GPUS_DEMANDED_MAX, |r| r.gpus_demanded_max),
        (metric::SCALE_UPS, |r| r.scale_ups as f64),
        (metric::REPLICAS_PREEMPTED, |r| r.replicas_preempted as f64),
        (metric::BATCH_JOBS_PREEMPTED, |r| {
            r.batch_jobs_preempted as f64
        }),
        (metric::COST, |r| r.cost),
    ];
}

/// One service in one calendar month (or one hour of the day over the horizon) of one
/// replication: GPU-hours demanded, served and allocated, and the hours they cover.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServicePeriod {
    pub gpu_hours_demanded: f64,
    pub gpu_hours_served: f64,
    pub gpu_hours_allocated: f64,
    pub hours: f64,
}

/// One row of `services_monthly.csv` (`period` a month, YYYY-MM) or `services_hourly.csv`
/// (`period` an hour of the day, 0-23 UTC): mean GPUs over the period, mean over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServicePeriodRow {
    pub strategy: String,
    pub service: String,
    /// Written as the column `month` or `hour`.
    #[serde(alias = "month", alias = "hour")]
    pub period: String,
    pub gpus_demanded: f64,
    pub gpus_served: f64,
    /// Pool GPUs held by the service's replicas.
    pub gpus_allocated: f64,
}

/// What idle paid capacity cost in one replication: the part of the strategy's cost shared
/// out to no workload or team.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Unallocated {
    pub cost: f64,
    /// Paid GPU-hours nobody used.
    pub gpu_hours_idle: f64,
}

/// One row of `workloads.csv` or `teams.csv`: one metric of one workload (team) under one
/// strategy, over replications. `group` is written as the column `workload` (`team`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupSummaryRow {
    pub strategy: String,
    #[serde(alias = "workload", alias = "team", alias = "service")]
    pub group: String,
    pub metric: String,
    pub mean: f64,
    pub std: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
    pub n: u32,
}

/// One row of `pools.csv`: one pool of one strategy in one replication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolRow {
    pub strategy: String,
    pub replication: u32,
    pub pool: String,
    #[serde(rename = "type")]
    pub pool_type: String,
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    /// Amortised view.
    pub cost: f64,
    pub cost_cash: f64,
    pub utilization: f64,
    pub jobs_started: u64,
    /// Job interruptions by preemptions of this pool's nodes.
    pub preemptions: u64,
    pub failed_requests: u64,
    pub nodes_requested: u64,
    pub nodes_preempted: u64,
    pub node_failures: u64,
    /// GPU-hours of capacity under repair.
    pub gpu_hours_down: f64,
    /// Share of the horizon in which the pool's capacity process allowed nodes;
    /// 1 for pools whose capacity does not come and go (and in files written before it).
    #[serde(default = "always")]
    pub available_share: f64,
}

/// `available_share` of result folders written before spot capacity could come and go.
fn always() -> f64 {
    1.0
}

/// One row of `monthly.csv`: one strategy in one calendar month, over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthlyRow {
    pub strategy: String,
    /// Calendar month, YYYY-MM.
    pub month: String,
    pub cost: f64,
    pub cost_ci95_low: f64,
    pub cost_ci95_high: f64,
    pub cost_cash: f64,
    pub cost_cash_ci95_low: f64,
    pub cost_cash_ci95_high: f64,
    pub cumulative_cost: f64,
    pub cumulative_cost_ci95_low: f64,
    pub cumulative_cost_ci95_high: f64,
    pub cumulative_cost_p5: f64,
    pub cumulative_cost_p95: f64,
    pub cumulative_cost_cash: f64,
    pub cumulative_cost_cash_ci95_low: f64,
    pub cumulative_cost_cash_ci95_high: f64,
    pub cumulative_cost_cash_p5: f64,
    pub cumulative_cost_cash_p95: f64,
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    pub utilization: f64,
    pub jobs_completed: f64,
    pub wait_mean_h: f64,
    pub cost_capital: f64,
    pub cost_capital_cash: f64,
    pub cost_energy: f64,
    pub cost_operations: f64,
    pub cost_reserved: f64,
    pub cost_on_demand: f64,
    pub cost_spot: f64,
    // The newer cost lines, the discounted cash view and CO2.
    #[serde(default = "unknown")]
    pub cost_reserved_cash: f64,
    #[serde(default = "unknown")]
    pub cost_storage: f64,
    #[serde(default = "unknown")]
    pub cost_network: f64,
    /// The month's cash-view cost discounted to `start`, and its running sum.
    #[serde(default = "unknown")]
    pub cost_cash_npv: f64,
    #[serde(default = "unknown")]
    pub cumulative_cost_cash_npv: f64,
    #[serde(default = "unknown")]
    pub cumulative_cost_cash_npv_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cumulative_cost_cash_npv_ci95_high: f64,
    #[serde(default = "unknown")]
    pub co2_tonnes: f64,
    /// Percentiles over replications of the month's cost, amortised and cash (budgets with a
    /// margin: "the P95 bill of month 18"), by linear interpolation as in `summary.csv`.
    /// These and the bands below are absent from folders of earlier versions, which read
    /// back with NaN there.
    #[serde(default = "unknown")]
    pub cost_p5: f64,
    #[serde(default = "unknown")]
    pub cost_p50: f64,
    #[serde(default = "unknown")]
    pub cost_p95: f64,
    #[serde(default = "unknown")]
    pub cost_cash_p5: f64,
    #[serde(default = "unknown")]
    pub cost_cash_p50: f64,
    #[serde(default = "unknown")]
    pub cost_cash_p95: f64,
    /// Each cost line's 95 % interval of the mean and percentiles over replications.
    #[serde(default = "unknown")]
    pub cost_capital_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_capital_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_capital_p5: f64,
    #[serde(default = "unknown")]
    pub cost_capital_p50: f64,
    #[serde(default = "unknown")]
    pub cost_capital_p95: f64,
    #[serde(default = "unknown")]
    pub cost_capital_cash_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_capital_cash_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_capital_cash_p5: f64,
    #[serde(default = "unknown")]
    pub cost_capital_cash_p50: f64,
    #[serde(default = "unknown")]
    pub cost_capital_cash_p95: f64,
    #[serde(default = "unknown")]
    pub cost_energy_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_energy_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_energy_p5: f64,
    #[serde(default = "unknown")]
    pub cost_energy_p50: f64,
    #[serde(default = "unknown")]
    pub cost_energy_p95: f64,
    #[serde(default = "unknown")]
    pub cost_operations_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_operations_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_operations_p5: f64,
    #[serde(default = "unknown")]
    pub cost_operations_p50: f64,
    #[serde(default = "unknown")]
    pub cost_operations_p95: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_p5: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_p50: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_p95: f64,
    #[serde(default = "unknown")]
    pub cost_on_demand_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_on_demand_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_on_demand_p5: f64,
    #[serde(default = "unknown")]
    pub cost_on_demand_p50: f64,
    #[serde(default = "unknown")]
    pub cost_on_demand_p95: f64,
    #[serde(default = "unknown")]
    pub cost_spot_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_spot_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_spot_p5: f64,
    #[serde(default = "unknown")]
    pub cost_spot_p50: f64,
    #[serde(default = "unknown")]
    pub cost_spot_p95: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_cash_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_cash_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_cash_p5: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_cash_p50: f64,
    #[serde(default = "unknown")]
    pub cost_reserved_cash_p95: f64,
    #[serde(default = "unknown")]
    pub cost_storage_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_storage_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_storage_p5: f64,
    #[serde(default = "unknown")]
    pub cost_storage_p50: f64,
    #[serde(default = "unknown")]
    pub cost_storage_p95: f64,
    #[serde(default = "unknown")]
    pub cost_network_ci95_low: f64,
    #[serde(default = "unknown")]
    pub cost_network_ci95_high: f64,
    #[serde(default = "unknown")]
    pub cost_network_p5: f64,
    #[serde(default = "unknown")]
    pub cost_network_p50: f64,
    #[serde(default = "unknown")]
    pub cost_network_p95: f64,
}

/// One row of `monthly_replications.csv`: one strategy in one calendar month of one
/// replication (any quantile over replications can be computed from these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthlyReplicationRow {
    pub strategy: String,
    pub replication: u32,
    /// Calendar month, YYYY-MM.
    pub month: String,
    /// Amortised view.
    pub cost: f64,
    pub cost_cash: f64,
    pub cumulative_cost: f64,
    pub cumulative_cost_cash: f64,
    pub cost_capital: f64,
    pub cost_capital_cash: f64,
    pub cost_energy: f64,
    pub cost_operations: f64,
    pub cost_reserved: f64,
    pub cost_on_demand: f64,
    pub cost_spot: f64,
    /// Reserved capacity as paid, checkpoint storage, data moved; the
    /// month's cash view discounted to `start`; CO2 of the energy drawn.
    pub cost_reserved_cash: f64,
    pub cost_storage: f64,
    pub cost_network: f64,
    pub cost_cash_npv: f64,
    pub co2_tonnes: f64,
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    /// Busy / paid GPU-hours (undefined without paid capacity).
    pub utilization: f64,
    pub jobs_completed: u64,
    /// Mean wait of the (post-warm-up) jobs that first started in the month (undefined when
    /// none did).
    pub wait_mean_h: f64,
}

/// One row of `summary.csv`: one metric of one strategy over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub strategy: String,
    pub metric: String,
    pub mean: f64,
    pub std: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
    /// Replications the statistic is over.
    pub n: u32,
}

/// One row of `jobs.csv` (with `--trace`): one job under one strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRow {
    pub strategy: String,
    pub replication: u32,
    /// Job number in arrival order, the same under every strategy.
    pub job: u64,
    pub workload: String,
    pub team: String,
    pub gpus: u32,
    pub arrival_h: f64,
    /// First start (NaN if it never started).
    pub start_h: f64,
    /// Completion (NaN if unfinished at the horizon).
    pub end_h: f64,
    /// Time from arrival to first start; for a job not started by the horizon, its wait so
    /// far (horizon - arrival, a lower bound), as the wait statistics count it.
    pub wait_h: f64,
    /// Pool of the last run (empty if it never ran).
    pub pool: String,
    pub preemptions: u32,
    pub lost_gpu_hours: f64,
    /// GPU-hours used times each pool's hourly rate per GPU (idle capacity not included).
    pub cost: f64,
}

/// One calendar month of one replication (aggregated into `monthly.csv`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MonthTotals {
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    pub cost_capital: f64,
    pub cost_capital_cash: f64,
    pub cost_energy: f64,
    pub cost_operations: f64,
    pub cost_reserved: f64,
    pub cost_on_demand: f64,
    pub cost_spot: f64,
    /// Reserved capacity as paid (up front or monthly).
    pub cost_reserved_cash: f64,
    /// Checkpoint storage and data moved between sites.
    pub cost_storage: f64,
    pub cost_network: f64,
    /// CO2 of the energy drawn, kg.
    pub co2_kg: f64,
    pub jobs_completed: u64,
    /// Sum and count of waits of (post-warm-up) jobs first starting in the month.
    pub wait_sum_h: f64,
    pub waits: u64,
}

impl MonthTotals {
    /// Amortised view.
    pub fn cost(&self) -> f64 {
        self.cost_capital
            + self.cost_energy
            + self.cost_operations
            + self.cost_reserved
            + self.cost_on_demand
            + self.cost_spot
            + self.cost_storage
            + self.cost_network
    }
    pub fn cost_cash(&self) -> f64 {
        self.cost() - self.cost_capital + self.cost_capital_cash - self.cost_reserved
            + self.cost_reserved_cash
    }
}

/// One pool in one calendar month of one replication (aggregated into `pools_monthly.csv`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PoolMonth {
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    /// Amortised view.
    pub cost: f64,
    pub cost_cash: f64,
}

/// One row of `pools_monthly.csv`: one pool of one strategy in one month, mean over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolMonthlyRow {
    pub strategy: String,
    pub pool: String,
    #[serde(rename = "type")]
    pub pool_type: String,
    /// Calendar month, YYYY-MM.
    pub month: String,
    /// Mean GPUs busy and paid for over the month (GPU-hours / hours in the month).
    pub gpus_busy: f64,
    pub gpus_paid: f64,
    pub gpu_hours_busy: f64,
    pub gpu_hours_paid: f64,
    pub utilization: f64,
    pub cost: f64,
    pub cost_cash: f64,
}

/// How long one charge period of the FOCUS export (`focus.csv`) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChargePeriod {
    /// A UTC day.
    Day,
    /// A calendar month of the horizon.
    Month,
}

impl ChargePeriod {
    pub fn as_str(self) -> &'static str {
        match self {
            ChargePeriod::Day => "day",
            ChargePeriod::Month => "month",
        }
    }
}

/// Whose busy GPU-hours: the jobs of one workload and team, or one service's replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Consumer {
    /// Indices into `Config::workloads` and `Config::teams`.
    Jobs { workload: usize, team: usize },
    /// Index into `Config::services`.
    Service(usize),
}

/// One pool in one charge period of one replication: what it cost, line by line (the
/// amortised view; the `_cash` and sale fields give the cash view), and who kept it busy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PeriodCharge {
    pub gpu_hours_paid: f64,
    pub cost_capital: f64,
    pub cost_capital_cash: f64,
    /// An on-prem sale, in the first period of its month: the book value written
    /// off and the cash the nodes fetch (`cost_capital` is their difference then).
    pub sale_book_value: f64,
    pub sale_cash_in: f64,
    pub cost_energy: f64,
    /// Energy drawn, kWh (PUE included).
    pub energy_kwh: f64,
    pub cost_operations: f64,
    /// Reserved capacity, amortised; and as paid: month by month, and up front (the whole
    /// term's share, in the first period of the start month).
    pub cost_reserved: f64,
    pub cost_reserved_monthly: f64,
    pub cost_reserved_upfront: f64,
    pub cost_on_demand: f64,
    pub cost_spot: f64,
    /// Busy GPU-hours by consumer, in `Consumer` order; only those with some.
    pub busy: Vec<(Consumer, f64)>,
    /// Checkpoint storage and data moved by consumer (jobs only), in `Consumer` order; only
    /// those with some.
    pub data: Vec<(Consumer, DataCharge)>,
}

/// What one consumer's data cost on one pool in one charge period: checkpoints
/// stored there, data leaving it (egress) and arriving (ingress).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DataCharge {
    /// GB stored times the share of the month stored.
    pub storage_gb_months: f64,
    pub cost_storage: f64,
    pub egress_gb: f64,
    pub cost_egress: f64,
    pub ingress_gb: f64,
    pub cost_ingress: f64,
}

impl DataCharge {
    pub fn is_empty(&self) -> bool {
        self.storage_gb_months == 0.0 && self.egress_gb == 0.0 && self.ingress_gb == 0.0
    }
}

/// The charges of one unit by pool and charge period, for the FOCUS export: only
/// the exported replication of each strategy is simulated with this detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitCharges {
    pub period: ChargePeriod,
    /// Start of each period, hours since the scenario's start, then the horizon.
    pub starts_h: Vec<f64>,
    /// Per strategy pool (in the strategy's order), per period.
    pub pools: Vec<Vec<PeriodCharge>>,
}

/// A FOCUS decimal (`focus.csv`): written in plain notation, always with a decimal point
/// (`24.0`, `0.00003`; never `24`, which FOCUS readers take for an integer, nor `3e-5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decimal(pub f64);

impl Decimal {
    /// The text written for the value.
    pub fn text(self) -> String {
        assert!(
            self.0.is_finite(),
            "a FOCUS decimal is finite, got {}",
            self.0
        );
        // -0.0 would be written "-0.0".
        let x = if self.0 == 0.0 { 0.0 } else { self.0 };
        let mut text = x.to_string();
        if !text.contains('.') {
            text.push_str(".0");
        }
        text
    }
}

impl Serialize for Decimal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

/// One row of `focus.csv`: one charge of the FOCUS 1.2 export, named as the
/// specification names its columns; the `x_Fleetsim*` columns are fleetsim's own. A `None`
/// is a null (an empty cell). docs/finops.md says what each column holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FocusRow {
    #[serde(rename = "BilledCost")]
    pub billed_cost: Decimal,
    #[serde(rename = "BillingAccountId")]
    pub billing_account_id: String,
    #[serde(rename = "BillingAccountName")]
    pub billing_account_name: String,
    #[serde(rename = "BillingCurrency")]
    pub billing_currency: String,
    #[serde(rename = "BillingPeriodEnd")]
    pub billing_period_end: String,
    #[serde(rename = "BillingPeriodStart")]
    pub billing_period_start: String,
    #[serde(rename = "ChargeCategory")]
    pub charge_category: String,
    #[serde(rename = "ChargeClass")]
    pub charge_class: Option<String>,
    #[serde(rename = "ChargeDescription")]
    pub charge_description: String,
    #[serde(rename = "ChargeFrequency")]
    pub charge_frequency: String,
    #[serde(rename = "ChargePeriodEnd")]
    pub charge_period_end: String,
    #[serde(rename = "ChargePeriodStart")]
    pub charge_period_start: String,
    #[serde(rename = "CommitmentDiscountCategory")]
    pub commitment_discount_category: Option<String>,
    #[serde(rename = "CommitmentDiscountId")]
    pub commitment_discount_id: Option<String>,
    #[serde(rename = "CommitmentDiscountName")]
    pub commitment_discount_name: Option<String>,
    #[serde(rename = "CommitmentDiscountQuantity")]
    pub commitment_discount_quantity: Option<Decimal>,
    #[serde(rename = "CommitmentDiscountStatus")]
    pub commitment_discount_status: Option<String>,
    #[serde(rename = "CommitmentDiscountType")]
    pub commitment_discount_type: Option<String>,
    #[serde(rename = "CommitmentDiscountUnit")]
    pub commitment_discount_unit: Option<String>,
    #[serde(rename = "ConsumedQuantity")]
    pub consumed_quantity: Option<Decimal>,
    #[serde(rename = "ConsumedUnit")]
    pub consumed_unit: Option<String>,
    #[serde(rename = "ContractedCost")]
    pub contracted_cost: Decimal,
    #[serde(rename = "ContractedUnitPrice")]
    pub contracted_unit_price: Decimal,
    #[serde(rename = "EffectiveCost")]
    pub effective_cost: Decimal,
    #[serde(rename = "InvoiceId")]
    pub invoice_id: Option<String>,
    #[serde(rename = "InvoiceIssuerName")]
    pub invoice_issuer_name: String,
    #[serde(rename = "ListCost")]
    pub list_cost: Decimal,
    #[serde(rename = "ListUnitPrice")]
    pub list_unit_price: Decimal,
    #[serde(rename = "PricingCategory")]
    pub pricing_category: String,
    #[serde(rename = "PricingCurrency")]
    pub pricing_currency: String,
    #[serde(rename = "PricingCurrencyContractedUnitPrice")]
    pub pricing_currency_contracted_unit_price: Decimal,
    #[serde(rename = "PricingCurrencyEffectiveCost")]
    pub pricing_currency_effective_cost: Decimal,
    #[serde(rename = "PricingCurrencyListUnitPrice")]
    pub pricing_currency_list_unit_price: Decimal,
    #[serde(rename = "PricingQuantity")]
    pub pricing_quantity: Decimal,
    #[serde(rename = "PricingUnit")]
    pub pricing_unit: String,
    #[serde(rename = "ProviderName")]
    pub provider_name: String,
    #[serde(rename = "PublisherName")]
    pub publisher_name: String,
    #[serde(rename = "RegionId")]
    pub region_id: Option<String>,
    #[serde(rename = "RegionName")]
    pub region_name: Option<String>,
    #[serde(rename = "ResourceId")]
    pub resource_id: String,
    #[serde(rename = "ResourceName")]
    pub resource_name: String,
    #[serde(rename = "ResourceType")]
    pub resource_type: String,
    #[serde(rename = "ServiceCategory")]
    pub service_category: String,
    #[serde(rename = "ServiceName")]
    pub service_name: String,
    #[serde(rename = "ServiceSubcategory")]
    pub service_subcategory: String,
    #[serde(rename = "SkuId")]
    pub sku_id: String,
    #[serde(rename = "SkuMeter")]
    pub sku_meter: String,
    #[serde(rename = "SkuPriceDetails")]
    pub sku_price_details: Option<String>,
    #[serde(rename = "SkuPriceId")]
    pub sku_price_id: String,
    #[serde(rename = "SubAccountId")]
    pub sub_account_id: Option<String>,
    #[serde(rename = "SubAccountName")]
    pub sub_account_name: Option<String>,
    #[serde(rename = "Tags")]
    pub tags: String,
    #[serde(rename = "x_FleetsimScenario")]
    pub x_fleetsim_scenario: String,
    #[serde(rename = "x_FleetsimStrategy")]
    pub x_fleetsim_strategy: String,
    #[serde(rename = "x_FleetsimReplication")]
    pub x_fleetsim_replication: u32,
    #[serde(rename = "x_FleetsimPool")]
    pub x_fleetsim_pool: String,
    #[serde(rename = "x_FleetsimWorkload")]
    pub x_fleetsim_workload: Option<String>,
    #[serde(rename = "x_FleetsimService")]
    pub x_fleetsim_service: Option<String>,
    #[serde(rename = "x_FleetsimCostKind")]
    pub x_fleetsim_cost_kind: String,
}

/// The exported replication of each strategy, simulated again with charges by period.
#[derive(Debug, Clone)]
pub struct FocusUnits {
    pub period: ChargePeriod,
    /// One per strategy, in order, each with its `charges`.
    pub units: Vec<UnitResult>,
}

/// What `run.json` says of an owned or reserved pool's break-even utilisation (see
/// [`crate::scenario::economics`]), month by month, so that the charts and the report can say
/// it from the folder alone, price traces included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakEvenInfo {
    pub pool: String,
    /// What it is compared with, at the prices of its first month.
    pub against: String,
    /// The month (0 = the start month) of the first value of `utilization_by_month`.
    pub first_month_idx: usize,
    /// Busy / paid GPU-hours above which the pool costs less than on demand, in each month it
    /// is paid for; null: it cannot pay off that month (a busy GPU-hour's energy alone costs
    /// more than on demand). Empty: no on-demand price to compare with.
    pub utilization_by_month: Vec<Option<f64>>,
    /// The prices that move over those months, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moving_prices: Vec<String>,
}

impl BreakEvenInfo {
    /// The record of `break_even` (an infinite month becomes null, which JSON can hold).
    pub fn of(break_even: &BreakEven) -> Self {
        BreakEvenInfo {
            pool: break_even.pool.clone(),
            against: break_even.against.clone(),
            first_month_idx: break_even.first_month_idx,
            utilization_by_month: break_even
                .by_month
                .iter()
                .map(|u| u.is_finite().then_some(*u))
                .collect(),
            moving_prices: break_even.moving_prices.clone(),
        }
    }

    /// Back to the break-even it records.
    pub fn to_break_even(&self) -> BreakEven {
        BreakEven {
            pool: self.pool.clone(),
            against: self.against.clone(),
            first_month_idx: self.first_month_idx,
            by_month: self
                .utilization_by_month
                .iter()
                .map(|u| u.unwrap_or(f64::INFINITY))
                .collect(),
            moving_prices: self.moving_prices.clone(),
        }
    }
}

/// What `run.json` says of the FOCUS export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FocusInfo {
    /// "day" or "month".
    pub period: String,
    /// The replication exported for each strategy: the one with the median total cost.
    pub replications: Vec<FocusReplication>,
}

/// The replication `focus.csv` shows for one strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FocusReplication {
    pub strategy: String,
    pub replication: u32,
    /// Its `total_cost` (the sum of EffectiveCost) and `total_cost_cash` (of BilledCost).
    pub total_cost: f64,
    pub total_cost_cash: f64,
}

/// Everything one replication of one strategy produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitResult {
    pub strategy: usize,
    pub replication: u32,
    pub row: ReplicationRow,
    pub pools: Vec<PoolRow>,
    pub months: Vec<MonthTotals>,
    /// Per strategy pool (in the strategy's order), per month.
    pub pool_months: Vec<Vec<PoolMonth>>,
    /// Per workload and per team of the scenario, in its order.
    pub workloads: Vec<GroupRow>,
    pub teams: Vec<GroupRow>,
    /// Per service of the scenario, in its order.
    pub services: Vec<ServiceRow>,
    /// Per service, per calendar month.
    pub service_months: Vec<Vec<ServicePeriod>>,
    /// Per service, per hour of the day (UTC).
    pub service_hours: Vec<[ServicePeriod; 24]>,
    pub unallocated: Unallocated,
    pub jobs: Vec<JobRow>,
    pub events: u64,
    /// By pool and charge period, when asked for (the FOCUS export).
    pub charges: Option<UnitCharges>,
}

/// What the output files and the terminal summary need: the rows aggregated over
/// replications (by `stats::summarize`).
#[derive(Debug, Clone)]
pub struct Aggregates {
    pub replications: Vec<ReplicationRow>,
    pub summary: Vec<SummaryRow>,
    pub monthly: Vec<MonthlyRow>,
    /// `monthly_replications.csv`: per strategy, replication and month.
    pub monthly_replications: Vec<MonthlyReplicationRow>,
    pub pools_monthly: Vec<PoolMonthlyRow>,
    /// `workloads.csv` and `teams.csv`: per strategy, workload (team) and metric, then the
    /// `unallocated` cost of idle capacity.
    pub workloads: Vec<GroupSummaryRow>,
    pub teams: Vec<GroupSummaryRow>,
    /// `services.csv`: per strategy, service and metric.
    pub services: Vec<GroupSummaryRow>,
    pub services_monthly: Vec<ServicePeriodRow>,
    pub services_hourly: Vec<ServicePeriodRow>,
    /// Per strategy: the break-even month (YYYY-MM) of the mean cash-view curves, if any.
    pub break_even_month: Vec<Option<String>>,
    /// The same of the discounted cash-view curves.
    pub break_even_month_npv: Vec<Option<String>>,
}

/// A whole run of a scenario (or of a sweep point): every unit's result, then the statistics.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// In (strategy, replication) order.
    pub units: Vec<UnitResult>,
    pub aggregates: Aggregates,
    /// Events simulated, summed over the units.
    pub events: u64,
    /// With `--focus`: the exported replications with their charges.
    pub focus: Option<FocusUnits>,
}

/// `run.json`: what produced a result folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub fleetsim_version: String,
    pub command_line: Vec<String>,
    pub scenario_name: String,
    /// Where the scenario came from (a path, or the built-in default).
    pub scenario_source: String,
    pub seed: u64,
    pub replications: u32,
    /// Absent in a sweep point's `run.json`: a point's files are the same bytes however and
    /// wherever it ran (see the sweep's `invocation.json` for threads and times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time_s: Option<f64>,
    pub events_simulated: u64,
    pub currency: String,
    pub start: String,
    pub horizon_months: u32,
    pub strategies: Vec<String>,
    pub baseline: String,
    /// Per strategy, the break-even month (YYYY-MM) of the mean cash-view curves, or null.
    pub break_even_month: Vec<Option<String>>,
    /// The same in the discounted cash view (`discount_rate_per_year`).
    #[serde(default)]
    pub break_even_month_npv: Vec<Option<String>>,
    pub warnings: Vec<String>,
    /// The manifest: every file the run wrote except `run.json` itself (renamed into place
    /// last), with what lets `--resume`, `merge` and the next run check it.
    pub files: Vec<FileRecord>,
    /// The chart files of the run, drawn from the files above after `run.json` is written
    /// (empty with `--no-charts`, and in sweep points).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<String>,
    /// The scenario after `--set`, with defaults filled in.
    pub scenario: serde_json::Value,
    /// The break-even utilisation of each owned and reserved pool, month by month from the
    /// price curves (absent from the `run.json` of versions before it).
    #[serde(default)]
    pub break_evens: Vec<BreakEvenInfo>,
    /// With `--focus`: the charge period and the replication `focus.csv` shows per strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<FocusInfo>,
    /// Present in the folders of sweep points: which point this is. A point counts as done
    /// (`--resume`, `merge`) when this matches the sweep's description of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_point: Option<SweepPoint>,
}

impl RunInfo {
    /// What `run.json` says of a run of `config` before it runs: this build, the scenario's
    /// settings, `scenario` (the file as resolved, defaults filled in) and its `warnings`.
    /// The command line, source, threads, wall time and sweep point are left empty for the
    /// caller; [`RunInfo::with_results`] adds what the run found.
    pub fn new(config: &Config, scenario: serde_json::Value, warnings: Vec<String>) -> Self {
        RunInfo {
            fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
            command_line: Vec::new(),
            scenario_name: config.name.clone(),
            scenario_source: String::new(),
            seed: config.seed,
            replications: config.replications,
            threads: None,
            wall_time_s: None,
            events_simulated: 0,
            currency: config.currency.clone(),
            start: config.calendar.start.to_string(),
            horizon_months: config.horizon_months,
            strategies: config.strategies.iter().map(|s| s.name.clone()).collect(),
            baseline: config.strategies[config.baseline].name.clone(),
            break_even_month: Vec::new(),
            break_even_month_npv: Vec::new(),
            warnings,
            files: Vec::new(),
            charts: Vec::new(),
            scenario,
            break_evens: crate::scenario::economics::break_evens(config)
                .iter()
                .map(BreakEvenInfo::of)
                .collect(),
            focus: None,
            sweep_point: None,
        }
    }

    /// With the events simulated, the break-even months and the FOCUS replications of
    /// `output`.
    pub fn with_results(self, output: &RunOutput) -> Self {
        let focus = output.focus.as_ref().map(|focus| FocusInfo {
            period: focus.period.as_str().to_string(),
            replications: focus
                .units
                .iter()
                .map(|unit| FocusReplication {
                    strategy: unit.row.strategy.clone(),
                    replication: unit.replication,
                    total_cost: unit.row.total_cost,
                    total_cost_cash: unit.row.total_cost_cash,
                })
                .collect(),
        });
        RunInfo {
            events_simulated: output.events,
            break_even_month: output.aggregates.break_even_month.clone(),
            focus,
            break_even_month_npv: output.aggregates.break_even_month_npv.clone(),
            ..self
        }
    }
}

/// One file of a run's manifest (`run.json`'s `files`): written by fleetsim, complete when its
/// size and hash match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// File name, in the run's folder.
    pub name: String,
    /// Rows below the header (CSV); 0 for other files.
    pub rows: u64,
    pub bytes: u64,
    /// FNV-1a (64 bits, hex) of the file's bytes.
    pub fnv1a: String,
}

/// One point of a sweep: the values of the varied parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Position in the sweep, from 0; the point's folder is `points/<id>`.
    pub index: usize,
    /// `index`, zero-padded to the same width for every point of the sweep.
    pub id: String,
    /// Varied field path -> value.
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// Hash of the fleetsim version and the point's resolved scenario: equal fingerprints,
    /// equal results.
    pub fingerprint: String,
    /// Relative cost of simulating the point (expected jobs x strategies x replications),
    /// which `--shard` balances.
    pub estimated_cost: f64,
    /// Strategy -> the first point of the sweep at which that strategy's inputs (its pools,
    /// its policies, the workloads, everything but the other strategies and their pools) are
    /// the same as here: its units here are those, simulated once and reused. Absent for the
    /// strategies simulated at this point.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub same_units_as: BTreeMap<String, String>,
}

/// One varied parameter of a sweep, in `sweep.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepParameter {
    /// Field path, as for `--set`; also the name of its column in `sweep.csv`.
    pub path: String,
    /// As written after `--vary PATH=` or in `[sweep] vary`.
    pub spec: String,
    /// "integer", "number" or "as written": how the spec's values were typed.
    pub kind: String,
    /// The values a grid takes, or a sample is drawn from (absent for an interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<serde_json::Value>>,
    /// `[low, high]` of an interval sampled as a whole (`0..16`, `1..1000:log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// Sampled uniformly in the logarithm.
    pub log: bool,
}

/// How a sweep chose its points, in `sweep.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepSampling {
    /// "grid", "random" or "lhs" (Latin hypercube).
    pub method: String,
    /// Points drawn (random and lhs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// Seed of the draw (random and lhs): the scenario's seed unless the spec gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// `sweep.json`: what a sweep is. Every shard of a sweep writes the same bytes, and `merge`
/// only combines shards whose `sweep.json` agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepInfo {
    pub fleetsim_version: String,
    /// Hash of every other field of this file.
    pub sweep_id: String,
    pub scenario_name: String,
    /// The scenario's file name, without folders (shards may run from different folders).
    pub scenario_file: String,
    /// `--set` overrides (and `--replications`, `--seed`) applied at every point.
    pub set: Vec<String>,
    pub seed: u64,
    pub replications: u32,
    pub currency: String,
    pub strategies: Vec<String>,
    pub baseline: String,
    pub sampling: SweepSampling,
    /// In the order of the grid (the first varies slowest) and of `sweep.csv`'s columns.
    pub parameters: Vec<SweepParameter>,
    pub points: Vec<SweepPoint>,
    /// The scenario with the `--set` overrides, without `[sweep]`, defaults filled in.
    pub scenario: serde_json::Value,
    /// `--focus`: the charge period of every point's `focus.csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<ChargePeriod>,
}

/// `run-shard-K-of-N.json`: a shard of a run finished (`fleetsim run --shard K/N`); `merge`
/// looks for one per shard and loads the scenario again from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunShardInfo {
    pub fleetsim_version: String,
    /// Hash of the version, the resolved scenario and the options that change the files:
    /// the shards of one run have the same.
    pub run_id: String,
    /// 1-based, of `shards`.
    pub shard: u32,
    pub shards: u32,
    /// The shard's replications, `replications_from..replications_to`, of `replications`.
    pub replications_from: u32,
    pub replications_to: u32,
    pub replications: u32,
    /// The scenario as read, to load it again: its text, the file it came from (its traces
    /// are found beside it), the name it takes when it gives none, and the overrides.
    pub scenario_text: String,
    pub scenario_origin: PathBuf,
    pub scenario_default_name: String,
    pub set: Vec<OverrideInfo>,
    /// How `run.json` names the scenario.
    pub scenario_source: String,
    /// `--trace`, and `--focus`'s charge period.
    pub trace: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<ChargePeriod>,
    /// The unsharded run's command (this shard's without `--shard`).
    pub command_line: Vec<String>,
    pub threads: usize,
    pub wall_time_s: f64,
    pub events_simulated: u64,
    /// The units file, as written.
    pub units: FileRecord,
}

/// The replications of shard `index` (1-based) of `count` of a run of `replications`:
/// contiguous, as even as can be (`from..to`).
pub fn shard_replications(index: u32, count: u32, replications: u32) -> (u32, u32) {
    let of = |k: u32| (u64::from(k) * u64::from(replications) / u64::from(count)) as u32;
    (of(index - 1), of(index))
}

/// A shard's wall time beyond this (about 30 years) is a damaged marker.
const SHARD_WALL_TIME_S_MAX: f64 = 1e9;

/// Threads a shard may say it used: beyond this its marker is damaged.
const SHARD_THREADS_MAX: usize = 1 << 16;

impl RunShardInfo {
    /// Whether what the marker says of its shard holds together (a shard writes it so; a
    /// marker edited by hand may not): why not, if not.
    pub fn check(&self) -> Result<(), String> {
        let (k, n, r) = (self.shard, self.shards, self.replications);
        if n == 0 || k == 0 || k > n || n > r {
            return Err(format!(
                "it says shard {k}/{n} of {r} replications, which no run writes"
            ));
        }
        let (from, to) = shard_replications(k, n, r);
        if (self.replications_from, self.replications_to) != (from, to) {
            return Err(format!(
                "it says replications {}..{}, but shard {k}/{n} of {r} holds {from}..{to}",
                self.replications_from, self.replications_to
            ));
        }
        if !(0.0..=SHARD_WALL_TIME_S_MAX).contains(&self.wall_time_s) {
            return Err(format!("it says a wall time of {:.3e} s", self.wall_time_s));
        }
        if self.threads == 0 || self.threads > SHARD_THREADS_MAX {
            return Err(format!("it says {} threads", self.threads));
        }
        Ok(())
    }
}

/// A `--set` (or `--replications`, `--seed`) as a shard records it: the field, its value in
/// TOML, and as the user wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverrideInfo {
    pub path: String,
    pub value: String,
    pub text: String,
}

/// `shard-K-of-N.json`: a shard of a sweep finished; `merge` looks for one per shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardInfo {
    pub sweep_id: String,
    /// 1-based.
    pub shard: u32,
    pub shards: u32,
    /// Ids of the points of this shard.
    pub points: Vec<String>,
}

/// `invocation.json` (or `invocation-shard-K-of-N.json`): how one `fleetsim sweep` or
/// `fleetsim merge` went. The only sweep file that differs from run to run; `merge` neither
/// compares nor copies it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvocationInfo {
    pub fleetsim_version: String,
    /// "sweep" or "merge".
    pub command: String,
    pub command_line: Vec<String>,
    /// "K/N" for a shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub points_total: usize,
    /// Points this invocation was responsible for (its shard, or all).
    pub points_selected: usize,
    /// Points simulated now; the others of the selection were already done (`--resume`).
    pub points_simulated: usize,
    /// (strategy, replication) units simulated now.
    pub replications_simulated: u64,
    pub events_simulated: u64,
    pub threads: usize,
    pub wall_time_s: f64,
    pub replications_per_s: f64,
    pub events_per_s: f64,
    /// Folders merged (merge only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<String>,
}

/// `optimize.json`: the question `fleetsim optimize` answers, everything it depends on. Its
/// id is the hash of the rest: `--resume` goes on only with the same question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptimizeInfo {
    pub fleetsim_version: String,
    pub optimize_id: String,
    pub scenario_name: String,
    pub scenario_file: String,
    /// `--set` overrides (with `--seed`), applied to every candidate.
    pub set: Vec<String>,
    pub seed: u64,
    pub currency: String,
    /// The strategies whose parameters are optimised.
    pub strategies: Vec<String>,
    pub parameters: Vec<OptimizeParameter>,
    pub minimize: String,
    pub subject_to: Vec<String>,
    /// Of each constraint, in its metric's unit.
    pub tolerances: Vec<f64>,
    /// That every decision of the run is right together.
    pub confidence: f64,
    /// "in the mean", or "at the bound of the 95 % interval".
    pub constraints_hold: String,
    pub initial_replications: u32,
    pub max_replications: u32,
    /// Share of the best objective below which a difference does not matter.
    pub indifference: f64,
    pub budget: Option<u64>,
    pub search: String,
    pub restarts: u32,
    /// The resolved scenario, without its `[sweep]` and `[optimize]` tables.
    pub scenario: serde_json::Value,
}

/// A parameter `fleetsim optimize` searches, with the values it may take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptimizeParameter {
    pub path: String,
    pub values: Vec<serde_json::Value>,
}

/// A mean with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// `recommendation.json`: what `fleetsim optimize` recommends, and how sure it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub scenario_name: String,
    pub optimize_id: String,
    pub minimize: String,
    pub subject_to: Vec<String>,
    pub constraints_hold: String,
    pub confidence: f64,
    pub currency: String,
    /// "decided", "max_replications", "budget" or "none_feasible".
    pub stop: String,
    /// How sure the answer is, in words.
    pub statement: String,
    pub chosen: Option<Choice>,
    /// Candidates as good as the chosen one for practical purposes, or not told apart.
    pub runner_ups: Vec<Choice>,
    /// Each strategy's choice, when several were optimised.
    pub strategies: Vec<Choice>,
    pub candidates_evaluated: usize,
    pub grid_points: usize,
    /// Replications the search used (those an interrupted run simulated included, so a
    /// resumed run writes the same file).
    pub replications_spent: u64,
    /// What a grid over every point (and strategy) would spend at the chosen candidate's
    /// replications.
    pub grid_replications_at_final_precision: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub candidate: String,
    pub strategy: String,
    pub parameters: serde_json::Map<String, serde_json::Value>,
    pub replications: usize,
    pub objective: Interval,
    pub constraints: Vec<ConstraintValue>,
    pub feasibility_probability: f64,
    /// Objective minus the chosen candidate's, paired (absent for the chosen one).
    pub difference_vs_chosen: Option<Interval>,
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintValue {
    pub constraint: String,
    pub value: Interval,
    pub holds: bool,
}
