//! The validated scenario: what the engine, model and policies trust.
//!
//! Only [`crate::scenario::load`] and its checks build a [`Config`]; every field here has been
//! checked (finite, in range, names resolved to indices), so the simulation never fails on it.

use std::sync::Arc;

use super::file::Replay;
use crate::calendar::{Calendar, WeeklyWindows};
use crate::trace::{Trace, thousands};

/// What [`Config::unit_digest`] gives: two independent 64-bit hashes of the same text.
pub type UnitDigest = [u64; 2];

/// Hashes text as it is written: FNV-1a and SipHash (std's, fixed keys) side by side, so that
/// two different texts collide with a chance of about 2^-128. Used within one process only.
#[derive(Default)]
struct Digest {
    fnv: Option<u64>,
    sip: std::hash::DefaultHasher,
}

impl std::fmt::Write for Digest {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        use std::hash::Hasher as _;
        let mut fnv = self.fnv.unwrap_or(0xcbf2_9ce4_8422_2325);
        for byte in text.bytes() {
            fnv = (fnv ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.fnv = Some(fnv);
        self.sip.write(text.as_bytes());
        Ok(())
    }
}

impl Digest {
    fn finish(&self) -> UnitDigest {
        use std::hash::Hasher as _;
        [self.fnv.unwrap_or(0), self.sip.finish()]
    }
}

/// A whole validated scenario.
#[derive(Debug, Clone)]
pub struct Config {
    pub name: String,
    pub calendar: Calendar,
    pub horizon_months: u32,
    /// Length of the horizon, hours since `start`.
    pub horizon_h: f64,
    /// Jobs arriving before this time are left out of job statistics, hours.
    pub warmup_h: f64,
    pub replications: u32,
    pub seed: u64,
    pub currency: String,
    /// Index into `strategies` of the strategy the others are compared with.
    pub baseline: usize,
    /// GPU type names; `gpu_speed[t]` is the relative throughput of type `t`.
    pub gpu_types: Vec<String>,
    pub gpu_speed: Vec<f64>,
    pub workloads: Vec<Workload>,
    /// Inference services, in every strategy.
    pub services: Vec<Service>,
    pub pools: Vec<Pool>,
    pub strategies: Vec<Strategy>,
    /// Event budget of one replication of one strategy.
    pub events_max: u64,
    /// Jobs that may wait at once in one replication of one strategy; more is an error.
    pub queued_jobs_max: u64,
    /// Expected jobs in one replication of one strategy (for memory and time estimates).
    pub jobs_per_unit_estimate: f64,
    /// Team names (of the workloads, their traces and the services), in order of first
    /// appearance.
    pub teams: Vec<String>,
    pub idle_cost: IdleCost,
    /// Cash flows of month `m` count `(1 + r)^(-m/12)` in the discounted view.
    pub discount_rate_per_year: f64,
    /// Site names of the pools, in order of first appearance.
    pub sites: Vec<String>,
}

impl Config {
    /// A digest of everything a unit of `strategy` reads: the whole configuration but the
    /// other strategies, the pools it does not use and what only the statistics read. Two
    /// configurations (a sweep's points) with equal digests for a strategy give that strategy's
    /// units equal results, so a sweep simulates them once. A trace counts by its file (a sweep
    /// reads each file once, see [`super::inputs::TraceCache`]).
    pub fn unit_digest(&self, strategy: usize) -> UnitDigest {
        // Destructured, so that a new field must be placed here or left out knowingly.
        let Config {
            name,
            calendar,
            horizon_months,
            horizon_h,
            warmup_h,
            replications,
            seed,
            currency,
            baseline: _,
            gpu_types,
            gpu_speed,
            workloads,
            services,
            pools,
            strategies,
            events_max,
            queued_jobs_max,
            jobs_per_unit_estimate: _,
            teams,
            idle_cost,
            discount_rate_per_year,
            sites,
        } = self;
        let own = &strategies[strategy];
        let mut used: Vec<usize> = own
            .pools
            .iter()
            .chain(&own.service_pools)
            .copied()
            .chain(own.reserve_gpus.iter().map(|(pool, _)| *pool))
            .collect();
        used.sort_unstable();
        used.dedup();
        let mut digest = Digest::default();
        use std::fmt::Write as _;
        write!(
            digest,
            "{name:?}{calendar:?}{horizon_months:?}{horizon_h:?}{warmup_h:?}{replications:?}\
             {seed:?}{currency:?}{gpu_types:?}{gpu_speed:?}{workloads:?}{services:?}\
             {events_max:?}{queued_jobs_max:?}{teams:?}{idle_cost:?}\
             {discount_rate_per_year:?}{sites:?}{strategy:?}{own:?}"
        )
        .expect("a digest takes any text");
        for pool in used {
            write!(digest, "{pool:?}{:?}", pools[pool]).expect("a digest takes any text");
        }
        digest.finish()
    }

    /// The discount factor of month `m`'s cash flows: `(1 + r)^(-m/12)`, m whole months from
    /// `start` to the month's start.
    pub fn discount_factor(&self, m: usize) -> f64 {
        (1.0 + self.discount_rate_per_year).powf(-(m as f64) / 12.0)
    }
}

/// How the cost of paid but idle capacity is shown per workload and team.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleCost {
    /// In a row of its own, `unallocated`.
    Unallocated,
    /// Spread over the workloads (teams) in proportion to their busy GPU-hours on each pool in
    /// each month.
    Proportional,
}

/// A class of jobs.
#[derive(Debug, Clone)]
pub struct Workload {
    pub name: String,
    pub arrivals: ArrivalProfile,
    pub gpus: GpuMix,
    pub duration_h: DurationDist,
    /// The GPU type `duration_h` refers to.
    pub gpu: usize,
    /// Bit `t` set: the job may run on GPU type `t`.
    pub accepts_mask: u64,
    /// Relative throughput of each GPU type (index as `Config::gpu_types`) for its jobs: its
    /// own `gpu_speed` where it gives one, else the scenario's `Config::gpu_speed`. Only ratios
    /// between types it may run on are read, so one workload's values are never compared with
    /// another's.
    pub gpu_speed: Vec<f64>,
    /// It gives its own `gpu_speed` (its values are then on a scale of their own).
    pub own_gpu_speed: bool,
    /// Data-parallel scaling (`scaling_efficiency` or `scaling`): the GPU counts its jobs may
    /// run on under an `elastic` strategy, and how fast. `None`: only the asked count.
    pub scaling: Option<Scaling>,
    pub mixed_precision_speedup: f64,
    pub checkpoint: Option<Checkpoint>,
    pub deadline_h: Option<f64>,
    /// Indices into `Config::pools` of the only pools its jobs may use (`None`: any of the
    /// strategy's).
    pub pools: Option<Vec<usize>>,
    /// Its own burst threshold (`None`: the strategy's; `Some(None)`: never).
    pub burst_after_wait_h: Option<Option<f64>>,
    pub priority: i64,
    pub team: String,
    /// Index of `team` in `Config::teams`.
    pub team_idx: usize,
    /// GB of one checkpoint and of the job's input data (0: not modelled).
    pub checkpoint_gb: f64,
    pub dataset_gb: f64,
    /// A trace workload's jobs; its `arrivals`, `gpus` and `duration_h` then only
    /// describe the trace for estimates.
    pub trace: Option<Arc<TraceReplay>>,
}

impl Workload {
    /// Its jobs' burst threshold under `strategy`, hours (`None`: never).
    pub fn burst_after_wait_h_under(&self, strategy: &Strategy) -> Option<f64> {
        self.burst_after_wait_h
            .unwrap_or(strategy.burst_after_wait_h)
    }

    /// Whether a job of it can run on config pool `p` under `strategy` from its arrival: a pool
    /// it may use, elastic only when it bursts, spot unless its deadline keeps it off spot.
    pub fn may_reach(&self, strategy: &Strategy, p: usize, pool: &Pool) -> bool {
        self.may_use(p, pool.gpu)
            && (!pool.is_elastic() || self.burst_after_wait_h_under(strategy).is_some())
            && !(pool.is_spot() && strategy.deadline_jobs_off_spot && self.deadline_h.is_some())
    }

    /// `(GPUs it can hold, speed-up over the reference type)` of each pool of `strategy` a job
    /// of it may reach (`u64::MAX` GPUs: no bound), fastest first.
    pub fn reachable_speedups(&self, strategy: &Strategy, pools: &[Pool]) -> Vec<(u64, f64)> {
        let precision = if strategy.mixed_precision {
            self.mixed_precision_speedup
        } else {
            1.0
        };
        let mut reach: Vec<(u64, f64)> = (strategy.pools.iter())
            .map(|&p| (p, &pools[p]))
            .filter(|&(p, pool)| self.may_reach(strategy, p, pool))
            .map(|(_, pool)| {
                let capacity_gpus = pool.capacity_gpus().unwrap_or(u64::MAX);
                (capacity_gpus, self.speedup_on(pool.gpu) * precision)
            })
            .collect();
        reach.sort_by(|a, b| b.1.total_cmp(&a.1));
        reach
    }

    /// How much faster its jobs run on GPU type `gpu` than on its reference type (its own
    /// `gpu_speed` when it gives one, else the scenario's): `speed[gpu] / speed[self.gpu]`.
    pub fn speedup_on(&self, gpu: usize) -> f64 {
        self.gpu_speed[gpu] / self.gpu_speed[self.gpu]
    }

    /// Whether its jobs may use config pool `pool`: of a GPU type it accepts, and among its
    /// `pools` when it names some.
    pub fn may_use(&self, pool: usize, pool_gpu: usize) -> bool {
        self.accepts_mask & (1u64 << pool_gpu) != 0
            && self
                .pools
                .as_ref()
                .is_none_or(|pools| pools.contains(&pool))
    }
}

/// How a workload's jobs speed up with their GPU count, and the counts they may run on.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    pub law: ScalingLaw,
    /// Bounds of the counts (`None`: the job's asked count).
    pub min_gpus: Option<u32>,
    pub max_gpus: Option<u32>,
}

/// Speed-up on `n` GPUs, relative to one.
#[derive(Debug, Clone, PartialEq)]
pub enum ScalingLaw {
    /// `scaling_efficiency = e`: each doubling of the count multiplies throughput by `2e`
    /// (speed-up `n^log2(2e)`); counts are the asked count times or divided by powers of two.
    Efficiency(f64),
    /// `scaling`: `(count, speed-up)`, increasing by count; only these counts.
    Table(Vec<(u32, f64)>),
}

impl Scaling {
    /// The largest count a job asking `asked` GPUs may run on.
    pub fn largest(&self, asked: u32) -> u32 {
        let (low, high) = self.bounds(asked);
        match &self.law {
            ScalingLaw::Efficiency(_) => {
                let mut n = asked;
                while n.checked_mul(2).is_some_and(|d| d <= high) {
                    n *= 2;
                }
                n
            }
            ScalingLaw::Table(table) => (table.iter().rev())
                .map(|&(n, _)| n)
                .find(|&n| (low..=high).contains(&n))
                .unwrap_or(asked),
        }
    }

    /// The next smaller count than `n` a job asking `asked` GPUs may run on.
    pub fn below(&self, asked: u32, n: u32) -> Option<u32> {
        let (low, _) = self.bounds(asked);
        match &self.law {
            ScalingLaw::Efficiency(_) => (n.is_multiple_of(2) && n / 2 >= low).then_some(n / 2),
            ScalingLaw::Table(table) => (table.iter().rev())
                .map(|&(c, _)| c)
                .find(|&c| c < n && c >= low),
        }
    }

    /// The smallest count a job asking `asked` GPUs may run on.
    pub fn smallest(&self, asked: u32) -> u32 {
        let mut n = self.largest(asked);
        while let Some(smaller) = self.below(asked, n) {
            n = smaller;
        }
        n
    }

    /// Run time on `n` GPUs over run time on the asked `asked`: `speedup(asked) / speedup(n)`.
    pub fn time_factor(&self, asked: u32, n: u32) -> f64 {
        match &self.law {
            ScalingLaw::Efficiency(e) => (f64::from(asked) / f64::from(n)).powf((2.0 * e).log2()),
            ScalingLaw::Table(table) => {
                let speedup = |count: u32| {
                    (table.iter())
                        .find(|&&(c, _)| c == count)
                        .map_or(1.0, |&(_, s)| s)
                };
                speedup(asked) / speedup(n)
            }
        }
    }

    fn bounds(&self, asked: u32) -> (u32, u32) {
        (
            self.min_gpus.unwrap_or(asked).min(asked),
            self.max_gpus.unwrap_or(asked).max(asked),
        )
    }
}

/// Whether `work_ref_h` hours of a `gpus`-GPU job exceed `deadline_h` on the fastest pool of
/// `reach` (see [`Workload::reachable_speedups`]) that can hold it; false when none can.
pub fn beyond_deadline(reach: &[(u64, f64)], gpus: u32, work_ref_h: f64, deadline_h: f64) -> bool {
    (reach.iter())
        .find(|&&(capacity_gpus, _)| capacity_gpus >= u64::from(gpus))
        .is_some_and(|&(_, speedup)| work_ref_h > deadline_h * speedup)
}

/// An inference service: GPU demand that replicas on the strategy's pools must meet now.
#[derive(Debug, Clone)]
pub struct Service {
    pub name: String,
    /// The GPU type demand is counted in: a replica on a type of speed `s` serves
    /// `gpus_per_replica * s / speed[gpu]` of it.
    pub gpu: usize,
    /// Bit `t` set: replicas may run on GPU type `t`.
    pub accepts_mask: u64,
    pub team: String,
    /// Index of `team` in `Config::teams`.
    pub team_idx: usize,
    pub demand: Demand,
    /// GPUs of one replica, all on one node.
    pub gpus_per_replica: u32,
    /// Demand kept at least this high, GPUs of `gpu`.
    pub min_gpus: f64,
    /// The autoscaler aims at demand times `1 + headroom`.
    pub headroom: f64,
    pub scale_up_h: f64,
    pub scale_down_after_h: f64,
    pub autoscale_every_h: f64,
}

/// A service's demand, GPUs of its `gpu`, piecewise constant by hour.
#[derive(Debug, Clone)]
pub struct Demand {
    /// Mean GPUs before growth (for a trace: its multiplier, 1).
    pub gpus: f64,
    /// Multipliers per hour of day (UTC), mean 1.
    pub daily: [f64; 24],
    /// Multipliers per weekday, Monday first, as written.
    pub weekly: [f64; 7],
    /// Compounded growth per calendar month.
    pub growth_per_month: f64,
    /// Coefficient of variation of the hourly lognormal variation (0: none).
    pub noise_cv: f64,
    /// A measured curve: `(hours since start, GPUs)` steps, first at 0, repeated every
    /// `period_h` (it replaces `gpus` and the profiles).
    pub trace: Option<std::sync::Arc<DemandTrace>>,
}

impl Demand {
    /// The highest demand of its curve over `horizon_months`, before the hourly variation:
    /// the highest step of the trace, or `gpus` times the highest daily and weekly multipliers,
    /// times the growth of the month where it is largest (the first or the last).
    pub fn peak_gpus(&self, horizon_months: u32) -> f64 {
        let highest = |values: &[f64]| values.iter().copied().fold(0.0, f64::max);
        let shape = match &self.trace {
            Some(trace) => highest(&trace.steps.iter().map(|s| s.1).collect::<Vec<_>>()),
            None => self.gpus * highest(&self.daily) * highest(&self.weekly),
        };
        let last_month = horizon_months.saturating_sub(1) as i32;
        let growth = (1.0 + self.growth_per_month).powi(last_month).max(1.0);
        shape * growth
    }
}

/// A measured demand curve, shifted to start at 0 h.
#[derive(Debug, Clone, PartialEq)]
pub struct DemandTrace {
    /// `(from_h, gpus)`, increasing times, the first at 0.
    pub steps: Vec<(f64, f64)>,
    /// The curve repeats with this period, hours.
    pub period_h: f64,
}

/// A non-homogeneous Poisson arrival rate, piecewise constant by hour, weekday and month.
#[derive(Debug, Clone)]
pub struct ArrivalProfile {
    pub arrivals_per_day: f64,
    /// Multipliers per hour of day (UTC), mean 1.
    pub daily: [f64; 24],
    /// Multipliers per weekday, Monday first, as written.
    pub weekly: [f64; 7],
    /// Compounded growth of the rate per calendar month.
    pub growth_per_month: f64,
    /// When not empty: exactly these arrival times, hours (the rate fields then only
    /// describe the mean for estimates).
    pub times_h: Vec<f64>,
}

impl ArrivalProfile {
    pub fn daily_is_flat(&self) -> bool {
        self.daily.iter().all(|m| *m == self.daily[0])
    }
    pub fn weekly_is_flat(&self) -> bool {
        self.weekly.iter().all(|m| *m == self.weekly[0])
    }
}

/// GPUs per job: a discrete distribution.
#[derive(Debug, Clone)]
pub struct GpuMix {
    /// `(gpus, cumulative probability)`, increasing, the last probability exactly 1.
    pub cumulative: Vec<(u32, f64)>,
}

impl GpuMix {
    pub fn fixed(gpus: u32) -> Self {
        Self {
            cumulative: vec![(gpus, 1.0)],
        }
    }
    pub fn max_gpus(&self) -> u32 {
        self.cumulative.iter().map(|(g, _)| *g).max().unwrap_or(0)
    }
    pub fn mean_gpus(&self) -> f64 {
        let mut previous = 0.0;
        let mut mean = 0.0;
        for (gpus, cumulative) in &self.cumulative {
            mean += f64::from(*gpus) * (cumulative - previous);
            previous = *cumulative;
        }
        mean
    }
}

/// Distribution of a job's duration on its reference GPU type, hours.
#[derive(Debug, Clone)]
pub enum DurationDist {
    Fixed {
        value_h: f64,
    },
    Exponential {
        mean_h: f64,
    },
    LogNormal {
        mu: f64,
        sigma: f64,
    },
    Gamma {
        shape: f64,
        scale_h: f64,
    },
    Weibull {
        shape: f64,
        scale_h: f64,
    },
    Uniform {
        min_h: f64,
        max_h: f64,
    },
    /// `(hours, cumulative probability)`, both non-decreasing, the last probability 1;
    /// sampled by linear interpolation of the inverse CDF.
    Empirical {
        points: Vec<(f64, f64)>,
    },
}

impl DurationDist {
    /// The share of durations longer than `limit_h` (for warnings).
    pub fn share_above_h(&self, limit_h: f64) -> f64 {
        use statrs::distribution::{ContinuousCDF, Gamma, LogNormal};
        let x = limit_h;
        match self {
            DurationDist::Fixed { value_h } => f64::from(u8::from(*value_h > x)),
            DurationDist::Exponential { mean_h } => (-x.max(0.0) / mean_h).exp(),
            DurationDist::LogNormal { mu, sigma } => {
                LogNormal::new(*mu, *sigma).map_or(f64::NAN, |d| d.sf(x.max(0.0)))
            }
            DurationDist::Gamma { shape, scale_h } => {
                Gamma::new(*shape, 1.0 / scale_h).map_or(f64::NAN, |d| d.sf(x.max(0.0)))
            }
            DurationDist::Weibull { shape, scale_h } => {
                (-(x.max(0.0) / scale_h).powf(*shape)).exp()
            }
            DurationDist::Uniform { min_h, max_h } => {
                ((max_h - x) / (max_h - min_h)).clamp(0.0, 1.0)
            }
            DurationDist::Empirical { points } => 1.0 - empirical_cdf(points, x),
        }
    }

    /// The mean duration, hours (for load estimates and warnings).
    pub fn mean_h(&self) -> f64 {
        match self {
            DurationDist::Fixed { value_h } => *value_h,
            DurationDist::Exponential { mean_h } => *mean_h,
            DurationDist::LogNormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            DurationDist::Gamma { shape, scale_h } => shape * scale_h,
            DurationDist::Weibull { shape, scale_h } => {
                scale_h * statrs::function::gamma::gamma(1.0 + 1.0 / shape)
            }
            DurationDist::Uniform { min_h, max_h } => (min_h + max_h) / 2.0,
            DurationDist::Empirical { points } => {
                // The first point is an atom; segments are uniform between their ends.
                let mut mean = points[0].0 * points[0].1;
                for pair in points.windows(2) {
                    let ((h0, p0), (h1, p1)) = (pair[0], pair[1]);
                    mean += (h0 + h1) / 2.0 * (p1 - p0);
                }
                mean
            }
        }
    }
}

/// The CDF of an `Empirical` duration at `x`: the first point is an atom, segments are uniform
/// between their ends (as it is sampled).
fn empirical_cdf(points: &[(f64, f64)], x: f64) -> f64 {
    if x < points[0].0 {
        return 0.0;
    }
    for pair in points.windows(2) {
        let ((h0, p0), (h1, p1)) = (pair[0], pair[1]);
        if x < h1 {
            return p0 + (p1 - p0) * (x - h0) / (h1 - h0);
        }
    }
    1.0
}

/// Checkpoint/restart settings of a workload.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    pub every: CheckpointEvery,
    /// Time to write one checkpoint, hours (no progress meanwhile).
    pub write_h: f64,
    /// Time to restore after an interruption, hours (no progress meanwhile).
    pub restart_h: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CheckpointEvery {
    /// Hours of useful work between checkpoints.
    Hours(f64),
    /// The Young/Daly optimum sqrt(2 write_h MTBF) of the pool the job runs on.
    Auto,
}

impl Checkpoint {
    /// Hours of useful work between checkpoints on a pool whose mean time between
    /// interruptions is `mtbf_h` (infinite: no checkpoints are written).
    pub fn interval_h(&self, mtbf_h: f64) -> f64 {
        match self.every {
            CheckpointEvery::Hours(hours) => hours,
            CheckpointEvery::Auto => (2.0 * self.write_h * mtbf_h).sqrt(),
        }
    }
}

/// A source of GPU capacity.
#[derive(Debug, Clone)]
pub struct Pool {
    pub name: String,
    pub gpu: usize,
    pub gpus_per_node: u32,
    pub kind: PoolKind,
    pub placement: Placement,
    /// Who sells or runs the capacity (the FOCUS export's provider); the type by default.
    pub provider: String,
    /// Elastic pools: nodes can be requested from the start of month `available_from` until
    /// the start of `available_until` (none: to the end).
    pub available_from: u32,
    pub available_until: Option<u32>,
    pub storage: Storage,
    pub carbon: Carbon,
    /// Availability zone and region (the region is also the FOCUS export's, else
    /// the site); none: the pool is its own.
    pub zone: Option<String>,
    pub region: Option<String>,
    /// One instance size of a pool that sells several (see [`Shape`]); none for a pool of one
    /// node size.
    pub shape: Option<Shape>,
}

/// A pool of a scenario's `[[pool]]` that lists `instances` becomes one pool per instance
/// size, in increasing size, each with its own node size, price and quota; this says which.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The pool's name in the scenario (strategies and workloads name it).
    pub family: String,
    /// The instance's name ("8xH100" when the file gives none).
    pub instance: String,
    /// The largest size of the family: the only one a gang wider than every size may take
    /// (whole nodes, as a node-local gang wider than a node does).
    pub largest: bool,
}

/// One instance size as the checks read it, before the pool is split into one per size.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub name: String,
    pub gpus: u32,
    pub price_per_gpu_h: f64,
    /// Reserved: instances committed; elastic: 0.
    pub nodes: u32,
    /// Elastic: the quota of this size (none: unlimited).
    pub max_nodes: Option<u32>,
}

impl Pool {
    /// The name whose random streams this pool's availability and waves draw from: its
    /// zone's, so pools of one zone are correlated, else its family's, so that the sizes of
    /// one pool lose and regain spot capacity together.
    pub fn stream_name(&self) -> String {
        match (&self.zone, &self.shape) {
            (Some(zone), _) => format!("zone:{zone}"),
            (None, Some(shape)) => shape.family.clone(),
            (None, None) => self.name.clone(),
        }
    }

    /// Whether a gang of `gpus` may run on this pool: any pool of one node size; of a pool's
    /// sizes, those that hold it on one node, and the largest for a gang wider than all.
    pub fn takes_gang(&self, gpus: u32) -> bool {
        gpus <= self.gang_gpus_max()
    }

    /// The widest gang the pool takes: one node of an instance size that is not its pool's
    /// largest, else any (`u32::MAX`).
    pub fn gang_gpus_max(&self) -> u32 {
        match &self.shape {
            Some(shape) if !shape.largest => self.gpus_per_node,
            _ => u32::MAX,
        }
    }

    /// The pool's name in the scenario: its family's for an instance size, else its own.
    pub fn family(&self) -> &str {
        self.shape
            .as_ref()
            .map_or(&self.name, |shape| &shape.family)
    }

    /// The zone for `next_zone` (a pool without one is its own zone).
    pub fn zone_key(&self) -> &str {
        self.zone.as_deref().unwrap_or(&self.name)
    }

    /// The region for `next_region` (a pool without one is its own region).
    pub fn region_key(&self) -> &str {
        self.region.as_deref().unwrap_or(&self.name)
    }
}

/// Where a pool is and what data costs there.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Storage {
    /// Index into `Config::sites` (none: data never moves to or from it).
    pub site: Option<usize>,
    pub storage_per_gb_month: f64,
    pub keep_checkpoints_h: f64,
    pub egress_per_gb: f64,
    pub ingress_per_gb: f64,
}

/// What a pool's energy emits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Carbon {
    /// kg CO2 per kWh of the grid (0: not counted).
    pub grid_kg_co2_per_kwh: f64,
    /// Cloud pools: kW per paid GPU, and the data centre's PUE (an estimate).
    pub power_kw_per_gpu: f64,
    pub pue: f64,
}

/// How a gang takes GPUs of a pool's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A job of at most one node's GPUs runs on one node; a larger gang takes whole nodes
    /// plus, for the rest, one node (as Kubernetes and Slurm place such jobs by default).
    NodeLocal,
    /// The pool is one bag of GPUs: a gang takes free GPUs wherever they are.
    Spread,
}

#[derive(Debug, Clone)]
pub enum PoolKind {
    OnPrem(OnPrem),
    Reserved(Reserved),
    OnDemand(Elastic),
    Spot(Elastic, Preemption),
}

impl Pool {
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            PoolKind::OnPrem(_) => "on_prem",
            PoolKind::Reserved(_) => "reserved",
            PoolKind::OnDemand(_) => "on_demand",
            PoolKind::Spot(..) => "spot",
        }
    }
    /// The widest gang the pool can hold, GPUs: all it can hold at once (`None`: an elastic
    /// pool without `max_nodes`), or one node for an instance size that is not its pool's
    /// largest (see [`Pool::takes_gang`]).
    pub fn capacity_gpus(&self) -> Option<u64> {
        let per_node = u64::from(self.gpus_per_node);
        let all = self.all_gpus();
        match &self.shape {
            Some(shape) if !shape.largest => Some(all.map_or(per_node, |all| all.min(per_node))),
            _ => all,
        }
    }

    /// GPUs the pool can hold at once (`None`: an elastic pool without `max_nodes`).
    fn all_gpus(&self) -> Option<u64> {
        let per_node = u64::from(self.gpus_per_node);
        match &self.kind {
            PoolKind::OnPrem(o) => Some(u64::from(o.nodes) * per_node),
            PoolKind::Reserved(r) => Some(u64::from(r.nodes) * per_node),
            PoolKind::OnDemand(e) | PoolKind::Spot(e, _) => {
                e.max_nodes.map(|m| u64::from(m) * per_node)
            }
        }
    }

    pub fn is_elastic(&self) -> bool {
        matches!(self.kind, PoolKind::OnDemand(_) | PoolKind::Spot(..))
    }
    pub fn is_spot(&self) -> bool {
        matches!(self.kind, PoolKind::Spot(..))
    }
    pub fn elastic(&self) -> Option<&Elastic> {
        match &self.kind {
            PoolKind::OnDemand(elastic) | PoolKind::Spot(elastic, _) => Some(elastic),
            _ => None,
        }
    }
    /// Mean time between interruptions of one node, hours (infinite when nodes are never lost).
    pub fn node_mtbf_h(&self, month_mean_h: f64) -> f64 {
        match &self.kind {
            PoolKind::OnPrem(on_prem) => on_prem.failures.map_or(f64::INFINITY, |f| f.mtbf_h),
            PoolKind::Spot(elastic, preemption) => {
                let capacity_loss_per_h = elastic
                    .capacity
                    .as_ref()
                    .map_or(0.0, |c| 1.0 / c.mean_available_h());
                let rate_per_h = 1.0 / preemption.mean_h
                    + preemption.waves_per_month * preemption.wave_fraction / month_mean_h
                    + capacity_loss_per_h;
                1.0 / rate_per_h
            }
            PoolKind::Reserved(_) | PoolKind::OnDemand(_) => f64::INFINITY,
        }
    }
}

/// A price over the horizon (per GPU-hour, or per kWh for energy): one per calendar month, or
/// steps at any time from a price trace.
#[derive(Debug, Clone, PartialEq)]
pub enum PriceCurve {
    /// The price in each calendar month of the horizon (a constant, a yearly change
    /// compounded monthly, or a schedule by month).
    Monthly(Vec<f64>),
    /// `(from_h, price)` steps, increasing times, the first at 0; the last price holds to the
    /// horizon.
    Steps(std::sync::Arc<Vec<(f64, f64)>>),
}

impl PriceCurve {
    /// The price at `at_h`.
    pub fn at(&self, calendar: &Calendar, at_h: f64) -> f64 {
        match self {
            PriceCurve::Monthly(prices) => prices[calendar.month_of(at_h)],
            PriceCurve::Steps(steps) => {
                let next = steps.partition_point(|(from_h, _)| *from_h <= at_h);
                steps[next.saturating_sub(1)].1
            }
        }
    }

    /// The price in force at the start of month `m`.
    pub fn at_month(&self, calendar: &Calendar, m: usize) -> f64 {
        self.at(calendar, calendar.month_starts_h[m])
    }

    /// Calls `add(month, hours, price)` for each stretch of `[from_h, to_h)` at one price
    /// within one month.
    pub fn split(
        &self,
        calendar: &Calendar,
        from_h: f64,
        to_h: f64,
        mut add: impl FnMut(usize, f64, f64),
    ) {
        match self {
            PriceCurve::Monthly(prices) => {
                calendar.split_by_month(from_h, to_h, |m, hours| add(m, hours, prices[m]));
            }
            PriceCurve::Steps(steps) => {
                let mut at_h = from_h;
                let mut next = steps.partition_point(|(s, _)| *s <= at_h);
                while at_h < to_h {
                    let price = steps[next.saturating_sub(1)].1;
                    let step_end_h = steps.get(next).map_or(f64::INFINITY, |(s, _)| *s);
                    let end_h = step_end_h.min(to_h);
                    calendar.split_by_month(at_h, end_h, |m, hours| add(m, hours, price));
                    at_h = end_h;
                    next += 1;
                }
            }
        }
    }

    /// Like [`PriceCurve::split`] for a node billed in increments of `increment_h` from
    /// `from_h`: each increment costs the price at its start (a price change inside one takes
    /// effect at the next), as a provider bills a changing spot price.
    pub fn split_billed(
        &self,
        calendar: &Calendar,
        from_h: f64,
        to_h: f64,
        increment_h: f64,
        mut add: impl FnMut(usize, f64, f64),
    ) {
        let snap = |t_h: f64| from_h + ((t_h - from_h) / increment_h).ceil() * increment_h;
        let mut at_h = from_h;
        while at_h < to_h {
            let price = self.at(calendar, at_h);
            let mut end_h = snap(self.next_change_after(calendar, at_h)).min(to_h);
            if end_h <= at_h {
                // Rounding put the snapped change at or before `at_h`: one increment on.
                end_h = (at_h + increment_h).min(to_h);
            }
            calendar.split_by_month(at_h, end_h, |m, hours| add(m, hours, price));
            at_h = end_h;
        }
    }

    /// The first time after `at_h` at which the price may change (infinite if never).
    fn next_change_after(&self, calendar: &Calendar, at_h: f64) -> f64 {
        match self {
            PriceCurve::Monthly(_) => {
                let m = calendar.month_of(at_h);
                calendar
                    .month_starts_h
                    .get(m + 1)
                    .copied()
                    .unwrap_or(f64::INFINITY)
            }
            PriceCurve::Steps(steps) => {
                let next = steps.partition_point(|(from_h, _)| *from_h <= at_h);
                steps.get(next).map_or(f64::INFINITY, |(s, _)| *s)
            }
        }
    }

    /// The mean price over month `m`, weighted by time.
    pub fn month_mean(&self, calendar: &Calendar, m: usize) -> f64 {
        let (from_h, to_h) = (calendar.month_starts_h[m], calendar.month_starts_h[m + 1]);
        self.mean_over(calendar, from_h, to_h)
    }

    /// The mean price over `[from_h, to_h)`, weighted by time (the price at `from_h` for an
    /// empty stretch).
    pub fn mean_over(&self, calendar: &Calendar, from_h: f64, to_h: f64) -> f64 {
        if to_h <= from_h {
            return self.at(calendar, from_h);
        }
        let mut total = 0.0;
        self.split(calendar, from_h, to_h, |_, hours, price| {
            total += hours * price
        });
        total / (to_h - from_h)
    }
}

/// How a reservation is paid: its total over the term is the same, the cash view differs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Upfront {
    /// Month by month (the amortised and cash views agree).
    None,
    /// This share of the term's cost at its start, the rest month by month.
    Partial(f64),
    /// The whole term's cost at its start.
    All,
}

/// Owned nodes.
#[derive(Debug, Clone)]
pub struct OnPrem {
    pub nodes: u32,
    /// Calendar month (0 = the start month) in which the nodes are bought and come online.
    pub purchase_month: u32,
    pub capex_per_node: f64,
    pub amortization_months: u32,
    pub residual_fraction: f64,
    pub power_kw_per_node: f64,
    pub idle_power_kw_per_node: f64,
    pub pue: f64,
    pub electricity_per_kwh: f64,
    /// The electricity price over the horizon (from `electricity_per_kwh` and its change,
    /// schedule or trace).
    pub electricity: PriceCurve,
    pub opex_per_node_month: f64,
    pub failures: Option<Failures>,
    /// The month the nodes are sold and leave (none: kept past the horizon).
    pub sold_month: Option<u32>,
    /// Share of the capital paid back at the sale.
    pub resale_fraction: f64,
}

#[derive(Debug, Clone, Copy)]
pub struct Failures {
    pub mtbf_h: f64,
    pub repair_h: f64,
}

/// Committed cloud capacity for a term.
#[derive(Debug, Clone)]
pub struct Reserved {
    pub nodes: u32,
    /// On-demand list price, per GPU-hour (at the start).
    pub price_per_gpu_h: f64,
    /// The list price over the horizon; the term's price is the one at its start month.
    pub list_price: PriceCurve,
    pub discount: f64,
    pub term_months: u32,
    pub start_month: u32,
    pub upfront: Upfront,
}

impl Reserved {
    /// What one GPU-hour of the commitment costs: the list price of the month the term starts,
    /// less the discount, for the whole term.
    pub fn effective_price_per_gpu_h(&self, calendar: &Calendar) -> f64 {
        let month = (self.start_month as usize).min(calendar.months() - 1);
        self.list_price.at_month(calendar, month) * (1.0 - self.discount)
    }
}

/// Capacity requested on demand (on-demand and spot pools).
#[derive(Debug, Clone)]
pub struct Elastic {
    /// The price per GPU-hour at the start.
    pub price_per_gpu_h: f64,
    /// The price over the horizon (from `price_per_gpu_h` and its change, schedule or trace).
    pub price: PriceCurve,
    pub max_nodes: Option<u32>,
    pub provisioning_h: f64,
    pub idle_timeout_h: f64,
    pub billing_increment_s: f64,
    pub billing_minimum_s: f64,
    pub availability: Option<Availability>,
    /// Spot capacity that comes and goes: how many nodes can be had over time.
    pub capacity: Option<Capacity>,
}

/// How many nodes a spot pool can have over time.
#[derive(Debug, Clone)]
pub struct Capacity {
    pub process: CapacityProcess,
    /// Where in a trace the horizon starts, hours (none: a random offset per replication).
    pub start_h: Option<f64>,
}

#[derive(Debug, Clone)]
pub enum CapacityProcess {
    /// A measured (or written) trace, repeated as often as the horizon needs.
    Trace(std::sync::Arc<CapacityTrace>),
    /// Available for exponential runs of mean `available_mean_h`, unavailable for
    /// exponential runs of mean `unavailable_mean_h`.
    Markov {
        available_mean_h: f64,
        unavailable_mean_h: f64,
    },
}

impl Capacity {
    /// Mean hours a node keeps its capacity: the mean available run (a loss preempts).
    pub fn mean_available_h(&self) -> f64 {
        match &self.process {
            CapacityProcess::Trace(trace) => trace.mean_available_h(),
            CapacityProcess::Markov {
                available_mean_h, ..
            } => *available_mean_h,
        }
    }
}

/// `(from_h, nodes)` steps from 0 to `length_h`; [`CapacityTrace::UNLIMITED`] is "as many as
/// the pool allows" (an available tick of a 0/1 trace).
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityTrace {
    pub steps: Vec<(f64, u32)>,
    pub length_h: f64,
}

impl CapacityTrace {
    pub const UNLIMITED: u32 = u32::MAX;

    /// Mean length of the runs with some capacity, hours (the whole trace if never lost).
    pub fn mean_available_h(&self) -> f64 {
        let mut available_h = 0.0;
        let mut losses = 0u32;
        for (i, &(from_h, nodes)) in self.steps.iter().enumerate() {
            let to_h = self.steps.get(i + 1).map_or(self.length_h, |s| s.0);
            if nodes > 0 {
                available_h += to_h - from_h;
            }
            let next = self.steps.get(i + 1).unwrap_or(&self.steps[0]).1;
            if next < nodes {
                losses += 1;
            }
        }
        if losses == 0 {
            f64::INFINITY
        } else {
            available_h / f64::from(losses)
        }
    }
}

/// Spot preemptions: individual node lifetimes plus correlated reclaim waves.
#[derive(Debug, Clone, Copy)]
pub struct Preemption {
    pub mean_h: f64,
    pub waves_per_month: f64,
    pub wave_fraction: f64,
}

/// When node requests may fail, and how often.
#[derive(Debug, Clone)]
pub struct Availability {
    /// Probability that one node request fails while the pool is constrained.
    pub shortfall: f64,
    pub when: Constrained,
    /// A waiting job asks a pool that refused it again after this long, hours.
    pub retry_h: f64,
}

#[derive(Debug, Clone)]
pub enum Constrained {
    /// A weekly calendar window, UTC.
    Window(WeeklyWindows),
    /// Random episodes: Poisson starts, exponential lengths.
    Episodes {
        episodes_per_month: f64,
        episode_mean_h: f64,
    },
    /// Always constrained.
    Always,
}

/// What a job does when a spot pool preempts or refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotPolicy {
    /// Waits for that spot pool to come back, and uses no other pool.
    Stay,
    /// Queues again and tries the strategy's pools in order.
    Failover,
    /// Tries spot pools of other zones first, then the strategy's pools in order.
    NextZone,
    /// Tries spot pools of other regions first, then the strategy's pools in order.
    NextRegion,
    /// As `failover`, and leaves spot after `spot_fallback_after` preemptions.
    FallbackAfter,
    /// Jobs with a deadline follow Uniform Progress with its hysteresis rule, as the "Can't Be
    /// Late" study (Wu et al., NSDI '24, section 5.2.2) publishes it.
    DeadlineAware,
    /// Uniform Progress without the hysteresis rule (the study's "Uniform Progress (plain)").
    UniformProgressPlain,
    /// The study's greedy policy (section 3.4): spot until the slack is gone, then on-demand to
    /// the end.
    Greedy,
}

impl SpotPolicy {
    /// Jobs with a deadline follow one of the study's deadline rules: on-demand opens to them
    /// and spot closes at times the rule sets.
    pub fn is_deadline_rule(self) -> bool {
        matches!(
            self,
            SpotPolicy::DeadlineAware | SpotPolicy::UniformProgressPlain | SpotPolicy::Greedy
        )
    }

    /// Jobs on on-demand go back to spot when its capacity returns (greedy never does).
    pub fn moves_back_to_spot(self) -> bool {
        matches!(
            self,
            SpotPolicy::DeadlineAware | SpotPolicy::UniformProgressPlain
        )
    }
}

/// Queue disciplines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// A job that cannot be placed blocks those behind it.
    Fifo,
    /// EASY backfill: the first job that cannot start gets a reservation; later jobs start
    /// only if they do not delay it.
    Backfill,
    /// By priority (higher first), then by arrival, with backfill.
    Priority,
    /// Any later job that fits starts, with no reservation: wide gangs can starve.
    FirstFit,
}

/// An ordered list of pools plus policies.
#[derive(Debug, Clone)]
pub struct Strategy {
    pub name: String,
    /// Indices into `Config::pools`, in the order they are tried.
    pub pools: Vec<usize>,
    /// Elastic pools are tried once a job has waited this long; `None`: never.
    pub burst_after_wait_h: Option<f64>,
    pub queue: Queue,
    /// Under `priority`: hours of waiting worth one priority level (`None`: strict priority,
    /// which can starve low-priority work).
    pub priority_aging_h: Option<f64>,
    /// After this many preemptions a job no longer uses spot pools.
    pub spot_fallback_after: Option<u32>,
    /// What a job does when spot takes its node or refuses it.
    pub spot_policy: SpotPolicy,
    /// The deadline rules (`deadline_aware`, `uniform_progress_plain`, `greedy`): extra slack
    /// kept before leaving spot, hours.
    pub deadline_safety_h: f64,
    pub mixed_precision: bool,
    /// Jobs of workloads that declare scaling start on the largest count they may that fits
    /// (`elastic = true`).
    pub elastic: bool,
    /// Jobs of workloads with a deadline never use spot pools.
    pub deadline_jobs_off_spot: bool,
    /// Workloads checkpoint as their `checkpoint` section says (false: nobody checkpoints,
    /// an interrupted job restarts from zero).
    pub checkpointing: bool,
    /// Overrides the pools' placement when set.
    pub placement: Option<Placement>,
    /// Indices into `Config::pools` of the pools that serve services, in order (a subset of
    /// `pools`).
    pub service_pools: Vec<usize>,
    /// A service scale-up may interrupt batch jobs on owned and reserved pools.
    pub service_preempts: bool,
    /// `(index into Config::pools, GPUs)` held for services on owned or reserved pools.
    pub reserve_gpus: Vec<(usize, u32)>,
}

impl Strategy {
    /// How gangs are placed on `pool` under this strategy.
    pub fn placement_on(&self, pool: &Pool) -> Placement {
        self.placement.unwrap_or(pool.placement)
    }
}

// ---- trace workloads ---------------------------------------------------------------------

/// Not a trace job: the job was drawn from the workload's distributions.
pub const NO_SPEC: u32 = u32::MAX;

/// One whole day of a trace: its jobs `first..end` (indices into [`Trace::jobs`]) and the
/// trace hour its midnight (UTC) falls on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceDay {
    pub first: u32,
    pub end: u32,
    pub start_h: f64,
}

/// A trace workload's jobs, as the model replays them. Shared by every replication.
#[derive(Debug, Clone)]
pub struct TraceReplay {
    pub trace: Arc<Trace>,
    pub mode: Replay,
    /// Compounded growth per calendar month: jobs are thinned or copied (see the model's
    /// `replay` module).
    pub growth_per_month: f64,
    /// `Exact`: trace hours subtracted from every submit time (the first job's), so the first
    /// job arrives at the start.
    pub shift_h: f64,
    /// `Bootstrap`: the whole days of the trace (all but its first and last calendar day),
    /// weekdays (Monday to Friday) in `[0]`, weekend days in `[1]`. When the trace has no day of
    /// one kind, both hold every day.
    pub days: [Vec<TraceDay>; 2],
    /// Per GPU type of the trace (index = [`crate::trace::TraceJob::gpu`]; 0: none given):
    /// the factor from hours on that type to hours on the workload's `gpu`
    /// (`speed[type] / speed[gpu]`).
    pub duration_factor: Vec<f64>,
    /// Jobs carry the trace's teams (the workload gives no `team` and the trace has some).
    pub trace_teams: bool,
    /// Per team of the trace (index = [`crate::trace::TraceJob::team`]): its index in
    /// `Config::teams`, for results per team. Empty unless `trace_teams`.
    pub team_index: Vec<usize>,
}

impl TraceReplay {
    /// GPUs and hours of work on the workload's reference GPU type of trace job `spec`.
    pub fn job(&self, spec: u32) -> (u32, f64) {
        let job = &self.trace.jobs[spec as usize];
        (
            job.gpus,
            job.duration_h * self.duration_factor[usize::from(job.gpu)],
        )
    }
}

impl TraceReplay {
    /// One line for `fleetsim validate`: the jobs, their period and GPU-hours, and the replay.
    pub fn describe(&self) -> String {
        let trace = &self.trace;
        let period = match trace.origin {
            Some(origin) => {
                let day = |h: f64| {
                    origin
                        .checked_add(jiff::Span::new().days((h / 24.0).floor() as i64))
                        .map_or_else(|_| "?".to_string(), |d| d.to_string())
                };
                format!(
                    "from {} to {} (UTC)",
                    day(trace.jobs[0].submit_h),
                    day(trace.jobs[trace.jobs.len() - 1].submit_h)
                )
            }
            None => format!("over {:.1} days", trace.span_h() / 24.0),
        };
        let replay = match self.mode {
            Replay::Exact => "exact replay".to_string(),
            Replay::Bootstrap => format!(
                "bootstrap over {} whole weekdays and {} weekend days",
                self.days[0].len(),
                self.days[1].len()
            ),
        };
        format!(
            "{} jobs of {} ({}) {period}, {} GPU-hours; {replay}",
            thousands(trace.jobs.len() as u64),
            trace.path.display(),
            trace.format,
            thousands(trace.gpu_hours().round() as u64),
        )
    }
}

impl Workload {
    /// The checkpoint settings of a job of this workload (`spec`: its trace job, or
    /// [`NO_SPEC`]): the workload's, unless the trace says the job cannot checkpoint.
    pub fn checkpoint_of(&self, spec: u32) -> Option<&Checkpoint> {
        let checkpoint = self.checkpoint.as_ref()?;
        match &self.trace {
            Some(replay) if spec != NO_SPEC => {
                (replay.trace.jobs[spec as usize].checkpointable != 1).then_some(checkpoint)
            }
            _ => Some(checkpoint),
        }
    }

    /// The index in `Config::teams` of a job's team (`spec` as for
    /// [`Workload::checkpoint_of`]): the trace's when it gives one, else the workload's.
    pub fn team_idx_of(&self, spec: u32) -> usize {
        match &self.trace {
            Some(replay) if replay.trace_teams && spec != NO_SPEC => {
                match replay.trace.jobs[spec as usize].team {
                    crate::trace::NONE => self.team_idx,
                    team => replay.team_index[team as usize],
                }
            }
            _ => self.team_idx,
        }
    }

    /// The team of a job of this workload (`spec` as for [`Workload::checkpoint_of`]): the
    /// trace's when it gives one, else the workload's `team`.
    pub fn team_of(&self, spec: u32) -> &str {
        match &self.trace {
            Some(replay) if replay.trace_teams && spec != NO_SPEC => {
                replay.trace.team(spec as usize).unwrap_or(&self.team)
            }
            _ => &self.team,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(scaling: &Scaling, asked: u32) -> Vec<u32> {
        let mut n = Some(scaling.largest(asked));
        let mut all = Vec::new();
        while let Some(count) = n {
            all.push(count);
            n = scaling.below(asked, count);
        }
        all
    }

    #[test]
    fn an_efficiency_allows_the_asked_count_doubled_and_halved_within_the_bounds() {
        let scaling = |min_gpus, max_gpus| Scaling {
            law: ScalingLaw::Efficiency(0.9),
            min_gpus,
            max_gpus,
        };
        // 8 within 2..16: 16, 8, 4, 2; 6 within 1..12: 12, 6, 3 (1.5 is no count).
        assert_eq!(counts(&scaling(Some(2), Some(16)), 8), [16, 8, 4, 2]);
        assert_eq!(counts(&scaling(Some(1), Some(12)), 6), [12, 6, 3]);
        assert_eq!(scaling(Some(1), Some(12)).smallest(6), 3);
        // No bounds: the asked count only.
        assert_eq!(counts(&scaling(None, None), 8), [8]);
        // On half the GPUs, 2 x 0.9 = 1.8 times as long; on twice, 1 / 1.8.
        let s = scaling(Some(2), Some(16));
        assert!((s.time_factor(8, 4) - 1.8).abs() < 1e-12);
        assert!((s.time_factor(8, 16) - 1.0 / 1.8).abs() < 1e-12);
        assert!((s.time_factor(8, 2) - 1.8 * 1.8).abs() < 1e-12);
    }

    #[test]
    fn a_table_allows_only_its_counts_within_the_bounds() {
        let scaling = Scaling {
            law: ScalingLaw::Table(vec![(1, 1.0), (2, 1.9), (4, 3.5), (8, 6.0)]),
            min_gpus: Some(2),
            max_gpus: None,
        };
        // Asked 4, max defaults to 4: 4 and 2 (1 is below min_gpus, 8 above the asked count).
        assert_eq!(counts(&scaling, 4), [4, 2]);
        // On 2 instead of 4: 3.5 / 1.9 as long.
        assert!((scaling.time_factor(4, 2) - 3.5 / 1.9).abs() < 1e-12);
    }
}
