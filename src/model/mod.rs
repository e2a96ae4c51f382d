//! The fleet model: jobs arriving, waiting, running on pools of nodes, being interrupted and
//! finishing, and what all of it costs. It implements [`engine::Model`] for one strategy in
//! one replication and produces that unit's records.
//!
//! Submodules hold the pieces that make sense alone: the job stream, a pool's nodes, a run's
//! checkpoint timeline and billing. The scheduling decisions come from [`crate::policies`];
//! calendar months and weekly windows from [`crate::calendar`].
//!
//! **Invariants:** no I/O; every random draw comes from a named stream of [`crate::rng`];
//! busy GPU-hours never exceed paid GPU-hours; a job is in exactly one of: queued, running.

pub mod accounts;
mod backfill;
mod capacity;
use backfill::{HELD_PER_PASS_MAX, Held, HeldRun, Reserved};
pub mod billing;
pub mod charges;
mod data;
pub mod demand;
mod environment;
mod finish;
pub mod free_times;
mod node;
pub mod nodes;
#[cfg(test)]
mod plain_pass;
pub mod progress;
pub mod queue;
mod queueing;
pub mod replay;
#[cfg(test)]
mod reservation;
mod runs;
mod scheduling;
mod services;
mod spot_policy;
pub mod waits;
pub mod workload;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use rand::RngExt;
use rand_distr::Exp1;

use crate::engine::{self, EngineError, Limits, Sim};
use crate::policies::{self, Candidate, PoolFacts, PoolKinds, QueueKey};
use crate::records::{
    ChargePeriod, Consumer, GroupRow, JobRow, MonthTotals, PoolMonth, PoolRow, ReplicationRow,
    Unallocated, UnitResult,
};
use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::NO_SPEC;
use crate::scenario::{
    CapacityTrace, Config, Constrained, Placement, Pool, PoolKind, Scaling, Strategy,
};
use accounts::Accounts;
use billing::OwnedMonth;
use free_times::Reservation;
use nodes::{GangPlan, NodeSet, NodeState};
use progress::RunPlan;
use queue::{ClassKey, WaitQueue, Waiting};
use services::{Replica, ServiceState};
use workload::ArrivalClock;

const NO_POOL: u16 = u16::MAX;

/// Why a unit did not reach its horizon.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(
        "the event budget of {events_max} events per replication was used up at {at_h:.1} h (month {month}), before the horizon; {diagnosis}; if the run is really this large, raise `max_events` in the scenario"
    )]
    EventBudget {
        events_max: u64,
        at_h: f64,
        month: String,
        /// What the events were spent on, to say which input to look at.
        diagnosis: String,
    },
    #[error(
        "{queued} jobs were waiting at once at {at_h:.0} h (month {month}): the strategy cannot keep up with the offered load, so the queue grows without bound; add capacity or an elastic pool, or raise `max_queued_jobs` (now {queued_jobs_max}) in the scenario to simulate it anyway"
    )]
    QueueLimit {
        queued: u64,
        queued_jobs_max: u64,
        at_h: f64,
        month: String,
    },
    #[error(
        "the scheduler tried waiting jobs {steps} times in {events} events by {at_h:.0} h (month {month}), with {queued} jobs waiting: many waiting jobs keep asking pools that refuse them (again every availability.retry_h), so this run would take hours; lower availability.shortfall, raise availability.retry_h, add owned capacity or lower arrivals_per_day; or raise `max_events` in the scenario, which also bounds this work"
    )]
    SchedulerWork {
        steps: u64,
        events: u64,
        at_h: f64,
        month: String,
        queued: u64,
    },
    #[error("stopped on request")]
    Stopped,
}

/// Events handled between two looks at the stop flag and the bounds: about a millisecond.
/// Small, because the queue can grow within a chunk.
const EVENTS_PER_CHUNK: u64 = 1 << 11;
/// Queue entries the scheduler may look at between two looks at the stop flag.
const QUEUE_STEPS_PER_CHUNK: u64 = 1 << 22;
/// The scheduler may try this many waiting jobs per event of the budget. A pass tries the jobs
/// it places plus one per class of waiting jobs, so typical runs stay far below; many jobs
/// retrying pools that keep refusing them (each asks again every `retry_h`) can reach it.
const QUEUE_STEPS_PER_BUDGET_EVENT: u64 = 1;

/// Simulates one strategy in one replication. `trace`: also return one row per job.
pub fn simulate(
    config: &Config,
    strategy: usize,
    replication: u32,
    trace: bool,
) -> Result<UnitResult, SimError> {
    simulate_until(
        config,
        strategy,
        replication,
        trace,
        &AtomicBool::new(false),
    )
}

/// [`simulate`], giving up with [`SimError::Stopped`] soon after `stop` is set (polled every
/// few thousand events, so one long unit stops promptly too).
pub fn simulate_until(
    config: &Config,
    strategy: usize,
    replication: u32,
    trace: bool,
    stop: &AtomicBool,
) -> Result<UnitResult, SimError> {
    run_unit(
        FleetSim::new(config, strategy, replication, trace),
        config,
        stop,
    )
}

/// [`simulate_until`], also keeping the unit's charges by pool and `period` (the FOCUS export)
/// in [`UnitResult::charges`]. The simulation is the same, so the unit's rows are too.
pub fn simulate_charges(
    config: &Config,
    strategy: usize,
    replication: u32,
    period: ChargePeriod,
    stop: &AtomicBool,
) -> Result<UnitResult, SimError> {
    let mut model = FleetSim::new(config, strategy, replication, false);
    model.charges = Some(Box::new(charges::Ledger::new(
        period,
        &config.calendar,
        model.pools.len(),
        config.workloads.len(),
        config.teams.len(),
        config.services.len(),
    )));
    run_unit(model, config, stop)
}

fn run_unit(
    mut model: FleetSim<'_>,
    config: &Config,
    stop: &AtomicBool,
) -> Result<UnitResult, SimError> {
    let mut sim = Sim::new();
    model.start(&mut sim);
    // The engine runs in chunks of the event budget; between chunks we look at the stop flag,
    // the queue and the scheduler's work, so the engine itself stays free of all three.
    let queue_steps_max = config
        .events_max
        .saturating_mul(QUEUE_STEPS_PER_BUDGET_EVENT);
    loop {
        if stop.load(AtomicOrdering::Relaxed) {
            return Err(SimError::Stopped);
        }
        let (now_h, handled) = (sim.now_h(), sim.events_handled());
        let month = || config.calendar.month_label(config.calendar.month_of(now_h));
        let queued = model.queue.len() as u64;
        if queued > config.queued_jobs_max {
            return Err(SimError::QueueLimit {
                queued,
                queued_jobs_max: config.queued_jobs_max,
                at_h: now_h,
                month: month(),
            });
        }
        if model.queue_steps > queue_steps_max {
            return Err(SimError::SchedulerWork {
                steps: model.queue_steps,
                events: handled,
                at_h: now_h,
                month: month(),
                queued,
            });
        }
        // An event queues at most a few jobs, so near the bound the chunks get short and the
        // bound is kept closely; with a long queue the chunks get short too, so the stop flag
        // is seen within about a second.
        let headroom = config.queued_jobs_max - queued + 1;
        let chunk = (QUEUE_STEPS_PER_CHUNK / (queued + 1))
            .clamp(1, EVENTS_PER_CHUNK)
            .min(headroom);
        let limits = Limits {
            horizon_h: config.horizon_h,
            events_max: handled.saturating_add(chunk).min(config.events_max),
        };
        match sim.run(&mut model, limits) {
            Ok(_) => break,
            Err(EngineError::EventBudgetExhausted { .. })
                if sim.events_handled() < config.events_max => {}
            Err(EngineError::EventBudgetExhausted { events_max, at_h }) => {
                return Err(SimError::EventBudget {
                    events_max,
                    at_h,
                    month: config.calendar.month_label(config.calendar.month_of(at_h)),
                    diagnosis: model.diagnosis(),
                });
            }
        }
    }
    sim.advance_to(config.horizon_h.max(sim.now_h()));
    Ok(model.finish(sim.events_handled()))
}

/// Everything that happens in the model.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// The next job of a workload arrives.
    Arrival {
        workload: u16,
    },
    /// A run ends, unless the job was interrupted since (`run` is stale then).
    RunEnds {
        job: u32,
        run: u32,
    },
    /// An elastic node has been idle for its timeout, unless it was used since.
    NodeIdle {
        pool: u16,
        node: u32,
        epoch: u32,
    },
    /// A spot node's individual preemption, unless it was released since.
    NodePreempted {
        pool: u16,
        node: u32,
        life: u32,
    },
    /// A spot pool's reclaim wave.
    Wave {
        pool: u16,
    },
    /// A spot pool's capacity changes (its availability trace or Markov process).
    CapacityStep {
        pool: u16,
    },
    /// A job under a deadline rule on on-demand reached the time its move to spot was planned
    /// for (a completed checkpoint, or now if its run had not begun): it may move to spot,
    /// unless its run changed since.
    MoveToSpot {
        job: u32,
        run: u32,
    },
    NodeFails {
        pool: u16,
        node: u32,
    },
    NodeRepaired {
        pool: u16,
        node: u32,
    },
    /// Owned capacity arrives (purchase, start of a reserved term) or leaves (end of term).
    CapacityOn {
        pool: u16,
    },
    CapacityOff {
        pool: u16,
    },
    /// A calendar shortfall window opens or closes.
    WindowEdge {
        pool: u16,
    },
    EpisodeStarts {
        pool: u16,
    },
    EpisodeEnds {
        pool: u16,
    },
    /// Something may now be placeable (a retry timer ran out, a burst threshold was reached).
    Wake,
    /// A service's autoscaler step.
    ServiceTick {
        service: u16,
    },
    /// A service replica has loaded and serves, unless it was removed since.
    ReplicaServes {
        replica: u32,
        life: u32,
    },
}

/// Why a running job stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Preemption,
    NodeFailure,
    TermEnd,
    /// A service replica needed the GPUs (`service_preempts`).
    Service,
    /// A deadline-aware job leaves on-demand for spot at a checkpoint.
    Migration,
}

/// What trying a job on the strategy's pools came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tried {
    Placed,
    /// No pool had room (or none was open to the job); true for every job of its class.
    NoRoom,
    /// A shortfall refused a request: the job now has a retry timer of its own.
    Refused,
    /// There is room, but only on what the reservation holds for an earlier job, and this one
    /// would still run at its shadow time (a shorter job of the same class may fit).
    Held,
}

/// What trying a job on one pool came to.
enum OnPool {
    Placed,
    /// Not enough capacity now (no free GPUs, quota reached).
    NoCapacity,
    /// A node request was refused by a shortfall; the job retries this pool later.
    Refused,
    /// Room only on what the reservation holds.
    Held,
    /// A node would have to be rented, but a larger instance size of the same pool, tried
    /// later, has free GPUs that hold the job.
    Later,
}

struct WorkloadStream<'c> {
    clock: ArrivalClock,
    arrivals: SimRng,
    jobs: SimRng,
    /// Trace workloads: the replay, and the trace job of the arrival scheduled.
    replay: Option<replay::TraceClock<'c>>,
    next_spec: u32,
}

#[derive(Debug, Clone, Default)]
struct PoolCounters {
    gpu_hours_busy: f64,
    gpu_hours_paid: f64,
    cost: f64,
    cost_cash: f64,
    jobs_started: u64,
    preemptions: u64,
    failed_requests: u64,
    nodes_requested: u64,
    nodes_preempted: u64,
    node_failures: u64,
    gpu_hours_down: f64,
    /// Hours with some capacity, up to the last change (see `capacity.rs`).
    hours_available: f64,
}

struct PoolState<'c> {
    pool: &'c Pool,
    facts: PoolFacts,
    nodes: NodeSet,
    /// Node requests may fail now.
    constrained: bool,
    episodes_active: u32,
    /// Random streams of the processes this pool has.
    shortfalls: Option<SimRng>,
    lifetimes: Option<SimRng>,
    waves: Option<SimRng>,
    victims: Option<SimRng>,
    failures: Option<SimRng>,
    episodes: Option<SimRng>,
    /// Per workload: wall hours on this pool per reference hour.
    slowdown: Vec<f64>,
    /// Mean time between interruptions of one node, hours (infinite if never).
    node_mtbf_h: f64,
    /// Rate used to attribute cost to jobs, per GPU-hour, by calendar month.
    job_rate_per_gpu_h: Vec<f64>,
    /// Elastic pools: nodes may be requested now (`available_from` to `available_until`).
    open: bool,
    /// On-prem nodes sold (`available_until`): a node back from repair stays away.
    retired: bool,
    /// Busy and paid GPU-hours and cost per calendar month.
    by_month: Vec<PoolMonth>,
    counters: PoolCounters,
    /// GPUs held for services on this pool (`reserve_gpus`), and where: `(node, GPUs)`.
    reserve_gpus: u32,
    held: Vec<(u32, u32)>,
    /// GPUs of service replicas on this pool.
    service_gpus: u32,
    /// The held GPUs may not match the reserve: check at the end of the event.
    hold_short: bool,
    /// Ready times of this spot pool's nodes still being provisioned, in request order (the
    /// same `provisioning_h` for all, so in time order; such a node is never lost before it
    /// is ready): a reclaim wave with none ready need not look at the nodes at all.
    provisioning: std::collections::VecDeque<f64>,
    /// Spot capacity that comes and goes: the process, the nodes allowed now
    /// ([`CapacityTrace::UNLIMITED`]: as `max_nodes` allows) and since when.
    capacity_clock: Option<capacity::CapacityClock>,
    cap_nodes: u32,
    cap_since_h: f64,
    /// Some waiting job was refused by the capacity and waits for room.
    capacity_refused: bool,
    /// One instance size of a pool of several: the widest gang it takes (`u32::MAX`: any,
    /// as the largest size and a pool of one node size do).
    gang_gpus_max: u32,
    /// The strategy pools of the larger sizes of the same pool (empty: none).
    larger_sizes: Vec<usize>,
}

struct Job {
    in_use: bool,
    id: u64,
    workload: u16,
    /// Its trace job ([`NO_SPEC`]: drawn from the workload's distributions).
    spec: u32,
    team: u16,
    /// GPUs of its current run; while it waits, the fewest it may start on (its asked count,
    /// or for an elastic gang its smallest allowed count, so caches keyed on it never skip a
    /// job that could start smaller).
    gpus: u32,
    /// GPUs it asked for: its work (`remaining_ref_h`) is hours on this many.
    asked: u32,
    arrival_h: f64,
    queued_h: f64,
    /// Work left, and all of it, hours on the workload's reference GPU type.
    remaining_ref_h: f64,
    work_ref_h: f64,
    first_start_h: f64,
    /// The current run waits for a node being provisioned: it begins at `run_start_h`, and is
    /// counted (started, first start and wait, burst) only then. Interrupted before that (one
    /// of its ready nodes preempted), it never began.
    run_pending: bool,
    counted: bool,
    /// Its work alone takes longer than its deadline on every pool it may use: counted as
    /// `deadline_infeasible`, never as late.
    deadline_infeasible: bool,
    burst: bool,
    needs_restore: bool,
    preemptions: u32,
    lost_gpu_h: f64,
    cost: f64,
    /// Bumped at every start and interruption, so a stale `RunEnds` is ignored.
    run: u32,
    pool: u16,
    last_pool: u16,
    run_start_h: f64,
    plan: RunPlan,
    alloc: Vec<(u32, u32)>,
    /// Per strategy pool: earliest time to ask it again after a refused request.
    retry_from_h: Vec<f64>,
    key: QueueKey,
    /// Elastic pools are open to it (it has waited its burst threshold since it queued).
    burst_due: bool,
    /// Its class in the wait queue while it waits.
    class: usize,
    /// Sites holding a copy of its dataset (bit per site), and where its checkpoints are
    /// stored (the pool of its last run) and since when (see `data.rs`).
    data_sites: u64,
    storage_pool: u16,
    storage_from_h: f64,
    /// Spot policies: the spot pool it stays with (`stay`, else `NO_POOL`), the
    /// pools it tries first (`next_zone`, `next_region`), when on-demand opens and spot closes
    /// to it (the deadline rules), and the run whose move to spot is planned.
    pinned: u16,
    prefer: u64,
    od_from_h: f64,
    spot_until_h: f64,
    move_run: Option<u32>,
}

impl Job {
    /// Whose charges the job's are in the FOCUS export.
    fn consumer(&self) -> Consumer {
        Consumer::Jobs {
            workload: usize::from(self.workload),
            team: usize::from(self.team),
        }
    }
}

/// Figures of the strategy as a whole that no workload or team has.
#[derive(Debug, Clone, Default)]
struct Totals {
    node_failures: u64,
    checkpoint_gpu_h: f64,
}

/// One strategy in one replication.
pub struct FleetSim<'c> {
    config: &'c Config,
    strategy: &'c Strategy,
    strategy_idx: usize,
    replication: u32,
    streams: Vec<WorkloadStream<'c>>,
    pools: Vec<PoolState<'c>>,
    jobs: Vec<Job>,
    vacant_jobs: Vec<u32>,
    queue: WaitQueue,
    /// When waiting jobs change class (burst threshold reached, retry timer run out):
    /// (time bits, slot, run), earliest first.
    class_timers: BinaryHeap<Reverse<(u64, u32, u32)>>,
    next_job_id: u64,
    pass_needed: bool,
    /// The count of events handled when the last pass ended, if that pass leaves the queue
    /// settled (see `pass`), and the quiet events since: timers, and newcomers that wait
    /// without asking for a pass. While every event since was quiet, a pass places nothing
    /// unless a timer moved a job to another class.
    settled_at: Option<u64>,
    quiet_events: u64,
    /// The nodes' changes (`nodes_changes`) when the last pass with waiting jobs ended, or a
    /// newcomer started alone behind the reserved job since, if that pass left the queue
    /// settled: no pool refused a job, and it did not reach the cap of turned-away jobs after
    /// starting one (see `settled_for_newcomers`; a newcomer that meets an empty queue is
    /// always tried alone).
    settled_nodes: Option<u64>,
    /// How many more jobs the last pass could have turned away (`HELD_PER_PASS_MAX` less
    /// those it did), less the newcomers turned away since; exact while no newcomer started
    /// since (`held_left_exact`), else a lower bound (a start only shrinks room, which turns
    /// away no more jobs). Tells where a pass after a newcomer would reach the cap.
    held_left: u32,
    held_left_exact: bool,
    has_elastic: bool,
    /// Per pool, during a pass: the smallest gang that found no capacity there.
    no_capacity_gpus: Vec<u32>,
    /// An elastic gang is trying its counts on a pool: `place_by_plan` places the count set.
    sizing: bool,
    /// This pass's jobs turned away by the reservation, one per class (see `backfill.rs`),
    /// and the run of the last one turned away.
    held_memos: Vec<backfill::HeldMemo>,
    held_run: HeldRun,
    /// Per class: where its memo is in `held_memos` (stale once they are cleared).
    held_memo_at: Vec<u32>,
    /// `walk_held`'s classes and their current memos (kept to reuse its allocation).
    scratch_memo_at: Vec<(usize, Option<usize>)>,
    /// Per wait-queue class: the pools' room when its last job found none.
    no_room_memos: Vec<Option<scheduling::NoRoomMemo>>,
    /// The pools the last `try_place` found open to its job (bit per strategy pool).
    last_triable: u64,
    /// Queue entries looked at by all passes so far (bounded, see [`simulate_until`]).
    queue_steps: u64,
    scratch_nodes: Vec<u32>,
    scratch_jobs: Vec<u32>,
    scratch_plan: GangPlan,
    /// EASY backfill: the reservation of the first job the last pass could not place.
    reserved: Option<Reserved>,
    totals: Totals,
    accounts: Accounts,
    months: Vec<MonthTotals>,
    trace: Option<Vec<JobRow>>,
    /// Inference services and their replicas.
    services: Vec<ServiceState<'c>>,
    replicas: Vec<Replica>,
    vacant_replicas: Vec<u32>,
    /// A reserve or a service needs attention at the end of the event.
    services_dirty: bool,
    /// Charges by period, for the unit the FOCUS export shows (see [`simulate_charges`]).
    charges: Option<Box<charges::Ledger>>,
    /// The strategy's home site (that of its first pool with a site) and that pool: datasets
    /// start there.
    home_site: Option<usize>,
    home_pool: Option<usize>,
    /// Per workload: the pools its jobs may use.
    limits: WorkloadLimits,
    /// The strategy's elastic, spot and on-demand pools, and those that take only gangs of up
    /// to so many GPUs (`(pool, GPUs)`: one instance size of several).
    pool_kinds: PoolKinds,
    narrow_pools: Vec<(usize, u32)>,
    /// The calendar month last looked up: most look-ups are of times near the last one.
    month_hint: std::cell::Cell<usize>,
}

/// What each workload's jobs may do under one strategy.
struct WorkloadLimits {
    /// Per workload: the strategy pools (bit per pool) its jobs may use, of a GPU type it
    /// accepts and among its own `pools` when it names some.
    usable_pools: Vec<u64>,
    /// Per workload with a deadline: the pools it can reach, fastest first (see
    /// [`crate::scenario::Workload::reachable_speedups`]), against which a job is
    /// `deadline_infeasible`.
    reach: Vec<Vec<(u64, f64)>>,
}

impl WorkloadLimits {
    fn new(config: &Config, strategy: &Strategy) -> Self {
        let usable_pools: Vec<u64> = (config.workloads.iter())
            .map(|workload| {
                (strategy.pools.iter().enumerate())
                    .filter(|&(_, &p)| workload.may_use(p, config.pools[p].gpu))
                    .fold(0u64, |mask, (sp, _)| mask | (1 << sp))
            })
            .collect();
        let reach = (config.workloads.iter())
            .map(|w| match w.deadline_h {
                Some(_) => w.reachable_speedups(strategy, &config.pools),
                None => Vec::new(),
            })
            .collect();
        Self {
            usable_pools,
            reach,
        }
    }

    /// Whether a job of workload `w` can never meet its deadline (see
    /// [`crate::scenario::beyond_deadline`]).
    fn deadline_infeasible(
        &self,
        w: usize,
        workload: &crate::scenario::Workload,
        gpus: u32,
        work_ref_h: f64,
    ) -> bool {
        (workload.deadline_h).is_some_and(|deadline_h| {
            crate::scenario::beyond_deadline(&self.reach[w], gpus, work_ref_h, deadline_h)
        })
    }
}

impl<'c> FleetSim<'c> {
    pub fn new(config: &'c Config, strategy_idx: usize, replication: u32, trace: bool) -> Self {
        let strategy = &config.strategies[strategy_idx];
        let seed = config.seed;
        let streams = config
            .workloads
            .iter()
            .map(|w| WorkloadStream {
                clock: ArrivalClock::new(&w.arrivals),
                arrivals: stream(seed, replication, Purpose::Arrivals(&w.name)),
                jobs: stream(seed, replication, Purpose::Jobs(&w.name)),
                replay: w
                    .trace
                    .as_deref()
                    .map(|r| replay::TraceClock::new(r, seed, replication, &w.name)),
                next_spec: NO_SPEC,
            })
            .collect();
        let pools: Vec<PoolState> = (strategy.pools.iter())
            .map(|&p| pool_state(config, strategy, p, replication))
            .collect();
        let has_elastic = pools.iter().any(|p| p.facts.elastic);
        let pool_kinds = PoolKinds::of(pools.iter().map(|p| p.facts));
        let narrow_pools = (pools.iter().enumerate())
            .filter(|(_, p)| p.gang_gpus_max < u32::MAX)
            .map(|(sp, p)| (sp, p.gang_gpus_max))
            .collect();
        let home_pool = pools.iter().position(|p| p.pool.storage.site.is_some());
        let home_site = home_pool.and_then(|sp| pools[sp].pool.storage.site);
        Self {
            config,
            strategy,
            strategy_idx,
            replication,
            streams,
            no_capacity_gpus: vec![u32::MAX; pools.len()],
            sizing: false,
            held_memos: Vec::new(),
            held_memo_at: Vec::new(),
            scratch_memo_at: Vec::new(),
            held_run: HeldRun {
                start_h: 0.0,
                nodes: 0,
                shadow_h: 0.0,
            },
            no_room_memos: Vec::new(),
            last_triable: 0,
            queue_steps: 0,
            pools,
            jobs: Vec::new(),
            vacant_jobs: Vec::new(),
            queue: WaitQueue::new(),
            class_timers: BinaryHeap::new(),
            next_job_id: 0,
            pass_needed: false,
            settled_at: None,
            quiet_events: 0,
            settled_nodes: None,
            held_left: HELD_PER_PASS_MAX,
            held_left_exact: true,
            has_elastic,
            scratch_nodes: Vec::new(),
            scratch_jobs: Vec::new(),
            scratch_plan: GangPlan::default(),
            reserved: None,
            totals: Totals::default(),
            accounts: Accounts::new(
                config.workloads.len(),
                config.teams.len(),
                strategy.pools.len(),
                config.calendar.months(),
            ),
            months: vec![MonthTotals::default(); config.calendar.months()],
            trace: trace.then(Vec::new),
            services: config
                .services
                .iter()
                .map(|service| ServiceState::new(config, service, strategy, replication))
                .collect(),
            replicas: Vec::new(),
            vacant_replicas: Vec::new(),
            services_dirty: false,
            charges: None,
            home_site,
            home_pool,
            limits: WorkloadLimits::new(config, strategy),
            pool_kinds,
            narrow_pools,
            month_hint: std::cell::Cell::new(0),
        }
    }

    /// Schedules the first event of every process.
    pub fn start(&mut self, sim: &mut Sim<Event>) {
        let calendar = &self.config.calendar;
        for sp in 0..self.pools.len() {
            let pool = self.pools[sp].pool;
            let pool_id = sp as u16;
            match &pool.kind {
                PoolKind::OnPrem(on_prem) => {
                    if (on_prem.purchase_month as usize) < calendar.months() {
                        let at_h = calendar.month_starts_h[on_prem.purchase_month as usize];
                        sim.schedule_at(at_h, Event::CapacityOn { pool: pool_id });
                    }
                }
                PoolKind::Reserved(reserved) => {
                    let (from_h, to_h) = billing::reserved_window_h(reserved, calendar);
                    if from_h < to_h {
                        sim.schedule_at(from_h, Event::CapacityOn { pool: pool_id });
                        if to_h < self.config.horizon_h {
                            sim.schedule_at(to_h, Event::CapacityOff { pool: pool_id });
                        }
                    }
                }
                PoolKind::OnDemand(_) | PoolKind::Spot(..) => {
                    // A pool available later, or no longer: its window opens and closes.
                    let months = calendar.months();
                    if pool.available_from > 0 && (pool.available_from as usize) < months {
                        let at_h = calendar.month_starts_h[pool.available_from as usize];
                        sim.schedule_at(at_h, Event::CapacityOn { pool: pool_id });
                    }
                    if let Some(until) = pool.available_until.filter(|u| (*u as usize) < months) {
                        let at_h = calendar.month_starts_h[until as usize];
                        sim.schedule_at(at_h, Event::CapacityOff { pool: pool_id });
                    }
                }
            }
            if let PoolKind::OnPrem(on_prem) = &pool.kind
                && let Some(sold) = on_prem
                    .sold_month
                    .filter(|s| (*s as usize) < calendar.months())
            {
                sim.schedule_at(
                    calendar.month_starts_h[sold as usize],
                    Event::CapacityOff { pool: pool_id },
                );
            }
            if let Some(availability) = pool.elastic().and_then(|e| e.availability.as_ref()) {
                match &availability.when {
                    Constrained::Always => self.pools[sp].constrained = true,
                    Constrained::Window(windows) => {
                        let how = calendar.hour_of_week(0.0);
                        self.pools[sp].constrained = windows.contains(how);
                        let next_h = windows.hours_to_next_change(how);
                        if next_h.is_finite() {
                            sim.schedule_at(next_h, Event::WindowEdge { pool: pool_id });
                        }
                    }
                    Constrained::Episodes {
                        episodes_per_month, ..
                    } => {
                        let mean_gap_h = calendar.month_mean_h() / episodes_per_month;
                        let rng = self.pools[sp].episodes.as_mut().expect("episode stream");
                        let gap_h = mean_gap_h * rng.sample::<f64, _>(Exp1);
                        sim.schedule_at(gap_h, Event::EpisodeStarts { pool: pool_id });
                    }
                }
            }
            if let PoolKind::Spot(_, preemption) = &pool.kind
                && preemption.waves_per_month > 0.0
            {
                let gap_h = self.wave_gap_h(sp, preemption.waves_per_month);
                sim.schedule_at(gap_h, Event::Wave { pool: pool_id });
            }
            self.start_capacity(sp, sim);
        }
        for w in 0..self.streams.len() {
            self.schedule_next_arrival(w, sim);
        }
        // After the capacity that comes at the start: the services' first replicas find it.
        for si in 0..self.services.len() {
            sim.schedule_at(0.0, Event::ServiceTick { service: si as u16 });
        }
    }

    /// The calendar month of `at_h` (see [`crate::calendar::Calendar::month_of_near`]).
    #[inline]
    fn month_of(&self, at_h: f64) -> usize {
        let month = (self.config.calendar).month_of_near(at_h, self.month_hint.get());
        self.month_hint.set(month);
        month
    }

    /// What the events went to so far, for an exhausted event budget.
    fn diagnosis(&self) -> String {
        let preemptions: u64 = self.pools.iter().map(|p| p.counters.nodes_preempted).sum();
        let failures: u64 = self.pools.iter().map(|p| p.counters.node_failures).sum();
        let requests: u64 = self.pools.iter().map(|p| p.counters.nodes_requested).sum();
        let refused: u64 = self.pools.iter().map(|p| p.counters.failed_requests).sum();
        format!(
            "by then {} jobs had arrived and {} were waiting, spot nodes had been preempted {} times, nodes had failed {} times and {} of {} node requests had been refused; very frequent preemptions, failures or shortfall retries are the usual cause (check preemption.mean_h, waves_per_month, failures.mtbf_h, episodes_per_month and availability.retry_h)",
            self.next_job_id,
            self.queue.len(),
            preemptions,
            failures,
            refused,
            requests + refused
        )
    }
}

/// The hourly rate per GPU at which a job's use of a pool is costed in `jobs.csv`, by calendar
/// month: the price for cloud pools (at the start of the month; a reservation's for its
/// term); for on-prem, amortised capital, operations and full-load energy per GPU-hour of a
/// fully used month.
/// The state of config pool `p` under `strategy` at the start of a replication: its nodes,
/// random streams, speeds and rates.
fn pool_state<'c>(
    config: &'c Config,
    strategy: &Strategy,
    p: usize,
    replication: u32,
) -> PoolState<'c> {
    let seed = config.seed;
    let month_mean_h = config.calendar.month_mean_h();
    let pool = &config.pools[p];
    let named = |purpose: Purpose<'_>| Some(stream(seed, replication, purpose));
    let name = pool.name.as_str();
    let (mut shortfalls, mut lifetimes, mut waves, mut victims) = (None, None, None, None);
    let (mut failures, mut episodes) = (None, None);
    if let Some(availability) = pool.elastic().and_then(|e| e.availability.as_ref()) {
        shortfalls = named(Purpose::Shortfalls(name));
        if matches!(availability.when, Constrained::Episodes { .. }) {
            episodes = named(Purpose::Episodes(name));
        }
    }
    if let PoolKind::Spot(_, preemption) = &pool.kind {
        lifetimes = named(Purpose::Preemptions(name));
        if preemption.waves_per_month > 0.0 {
            // Pools of one zone share their waves' times.
            waves = named(Purpose::Waves(&pool.stream_name()));
            victims = named(Purpose::WaveVictims(name));
        }
    }
    if let PoolKind::OnPrem(on_prem) = &pool.kind
        && on_prem.failures.is_some()
    {
        failures = named(Purpose::Failures(name));
    }
    let mtbf_h = pool.node_mtbf_h(month_mean_h);
    let slowdown = config
        .workloads
        .iter()
        .map(|w| {
            let precision = if strategy.mixed_precision {
                w.mixed_precision_speedup
            } else {
                1.0
            };
            w.gpu_speed[w.gpu] / w.gpu_speed[pool.gpu] / precision
        })
        .collect();
    PoolState {
        pool,
        facts: PoolFacts {
            gpu: pool.gpu,
            elastic: pool.is_elastic(),
            spot: pool.is_spot(),
        },
        nodes: NodeSet::new(pool.gpus_per_node, strategy.placement_on(pool)),
        constrained: false,
        episodes_active: 0,
        shortfalls,
        lifetimes,
        waves,
        victims,
        failures,
        episodes,
        slowdown,
        node_mtbf_h: mtbf_h,
        job_rate_per_gpu_h: job_rates_per_gpu_h(pool, &config.calendar),
        open: pool.available_from == 0,
        retired: false,
        by_month: vec![PoolMonth::default(); config.calendar.months()],
        counters: PoolCounters::default(),
        reserve_gpus: strategy
            .reserve_gpus
            .iter()
            .find(|(q, _)| *q == p)
            .map_or(0, |(_, g)| *g),
        held: Vec::new(),
        service_gpus: 0,
        hold_short: false,
        provisioning: std::collections::VecDeque::new(),
        capacity_clock: None,
        cap_nodes: CapacityTrace::UNLIMITED,
        cap_since_h: 0.0,
        capacity_refused: false,
        gang_gpus_max: pool.gang_gpus_max(),
        larger_sizes: larger_sizes(config, &strategy.pools, p),
    }
}

/// The positions in `strategy_pools` of the larger instance sizes of config pool `p`'s pool
/// (none unless `p` is one size of several).
fn larger_sizes(config: &Config, strategy_pools: &[usize], p: usize) -> Vec<usize> {
    let pool = &config.pools[p];
    if pool.shape.is_none() {
        return Vec::new();
    }
    strategy_pools
        .iter()
        .enumerate()
        .filter(|&(_, &q)| {
            let other = &config.pools[q];
            other.gpus_per_node > pool.gpus_per_node && other.family() == pool.family()
        })
        .map(|(sp, _)| sp)
        .collect()
}

fn job_rates_per_gpu_h(pool: &Pool, calendar: &crate::calendar::Calendar) -> Vec<f64> {
    let per_node = f64::from(pool.gpus_per_node);
    let month_mean_h = calendar.month_mean_h();
    (0..calendar.months())
        .map(|m| match &pool.kind {
            PoolKind::OnPrem(p) => {
                let monthly = p.capex_per_node * (1.0 - p.residual_fraction)
                    / f64::from(p.amortization_months)
                    + p.opex_per_node_month;
                monthly / (per_node * month_mean_h)
                    + p.power_kw_per_node / per_node * p.pue * p.electricity.month_mean(calendar, m)
            }
            PoolKind::Reserved(r) => r.effective_price_per_gpu_h(calendar),
            PoolKind::OnDemand(e) | PoolKind::Spot(e, _) => e.price.at_month(calendar, m),
        })
        .collect()
}

impl engine::Model for FleetSim<'_> {
    type Event = Event;

    fn handle(&mut self, event: Event, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        match event {
            Event::Arrival { workload } => {
                let tried = self.arrive(workload as usize, sim);
                // It waits and asks for no pass: a pass would turn it away too. (Only elastic
                // pools set timers, the events whose passes may be skipped.)
                if self.has_elastic
                    && matches!(tried, Tried::NoRoom | Tried::Held)
                    && !self.pass_needed
                {
                    self.quiet_events += 1;
                }
            }
            Event::RunEnds { job, run } => {
                let state = &self.jobs[job as usize];
                if state.in_use && state.run == run && state.pool != NO_POOL {
                    self.run_ends(job, sim);
                }
            }
            Event::NodeIdle { pool, node, epoch } => {
                self.node_idle(pool as usize, node, epoch, now_h)
            }
            Event::NodePreempted { pool, node, life } => {
                let slot = &self.pools[pool as usize].nodes.nodes[node as usize];
                if slot.life == life && slot.state == NodeState::Up {
                    self.preempt(pool as usize, node, sim);
                }
            }
            Event::Wave { pool } => self.wave(pool as usize, sim),
            Event::CapacityStep { pool } => self.capacity_step(pool as usize, sim),
            Event::MoveToSpot { job, run } => self.move_to_spot(job, run, sim),
            // A node sold (or a reserved term's, ended) fails no more.
            Event::NodeFails { pool, .. } if self.pools[pool as usize].retired => {}
            Event::NodeFails { pool, node } => self.node_fails(pool as usize, node, sim),
            Event::NodeRepaired { pool, node } if self.pools[pool as usize].retired => {
                // Repaired after the pool's nodes were sold: it left with them.
                let _ = node;
            }
            Event::NodeRepaired { pool, node } => {
                self.pools[pool as usize].nodes.bring_up(node);
                self.schedule_failure(pool as usize, node, sim);
                self.hold_changed(pool as usize);
                self.pass_needed = true;
            }
            Event::CapacityOn { pool } => {
                self.capacity_on(pool as usize, sim);
                self.hold_changed(pool as usize);
                self.pass_needed = true;
            }
            Event::CapacityOff { pool } => self.capacity_off(pool as usize, sim),
            Event::WindowEdge { pool } => {
                self.window_edge(pool as usize, sim);
                self.pass_needed = true;
            }
            Event::EpisodeStarts { pool } => self.episode_starts(pool as usize, sim),
            Event::EpisodeEnds { pool } => {
                let state = &mut self.pools[pool as usize];
                state.episodes_active -= 1;
                state.constrained = state.episodes_active > 0;
                self.pass_needed = true;
            }
            Event::Wake => {
                self.quiet_events += 1;
                self.pass_needed = true;
            }
            Event::ServiceTick { service } => self.service_tick(service as usize, sim),
            Event::ReplicaServes { replica, life } => self.replica_serves(replica, life, now_h),
        }
        // Services before batch: reserves are topped up and lost replicas replaced first.
        if self.services_dirty {
            // Up to 64 pools: a bit each.
            let all = u64::MAX >> (64 - self.pools.len());
            let room = self.room_of(all);
            self.settle_services(sim);
            // Replicas may have taken or given back GPUs: the next pass must look, and GPUs
            // given back are room for waiting jobs now.
            self.settled_at = None;
            if self.room_of(all) != room {
                self.pass_needed = true;
            }
        }
        if self.pass_needed {
            self.pass(sim);
        }
    }
}
