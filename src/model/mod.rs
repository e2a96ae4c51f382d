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
pub mod billing;
pub mod nodes;
pub mod progress;
pub mod queue;
pub mod replay;
pub mod reservation;
pub mod waits;
pub mod workload;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use rand::RngExt;
use rand_distr::Exp1;

use crate::engine::{self, EngineError, Limits, Sim};
use crate::policies::{self, Candidate, PoolFacts, QueueKey};
use crate::records::{
    GroupRow, JobRow, MonthTotals, PoolMonth, PoolRow, ReplicationRow, Unallocated, UnitResult,
};
use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::trace::replay::NO_SPEC;
use crate::scenario::{Config, Constrained, Placement, Pool, PoolKind, Strategy};
use accounts::Accounts;
use billing::OwnedMonth;
use nodes::{GangPlan, NodeSet, NodeState};
use progress::RunPlan;
use queue::{ClassKey, WaitQueue};
use reservation::{NodeOutlook, Reservation};
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
    let mut model = FleetSim::new(config, strategy, replication, trace);
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
}

/// Why a running job stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Preemption,
    NodeFailure,
    TermEnd,
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
}

/// The reservation of EASY backfill: the first job of the last pass that found no room, and
/// (once a later job needs to know) where and when it will start.
#[derive(Debug, Clone)]
struct Reserved {
    slot: u32,
    key: QueueKey,
    /// The job's wait-queue class (which pools are open to it).
    class: usize,
    held: Held,
}

/// What a reservation holds. Working it out walks the runs of the pools, so it waits until a
/// later job could start on a pool; in a full fleet, no job can, and it is never needed.
#[derive(Debug, Clone)]
enum Held {
    Unknown,
    /// Worked out when the nodes' changes were `changes`: while they and the job's class stay,
    /// so does the reservation.
    Known {
        changes: u64,
        on: Option<Holding>,
    },
}

/// A reservation on one strategy pool.
#[derive(Debug, Clone)]
struct Holding {
    pool: usize,
    /// The pool's nodes' generation when worked out (stale once a node went down).
    generation: u64,
    reservation: Reservation,
}

/// Jobs a pass may turn away because of the reservation before it stops trying the rest of
/// their classes (as Slurm's backfill bounds its work with `bf_max_job_test`).
const HELD_PER_PASS_MAX: u32 = 100;

struct WorkloadStream<'c> {
    clock: ArrivalClock,
    arrivals: SimRng,
    jobs: SimRng,
    /// Trace workloads (issue 12): the replay, and the trace job of the arrival scheduled.
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
    /// Rate used to attribute cost to jobs, per GPU-hour.
    job_rate_per_gpu_h: f64,
    /// Busy and paid GPU-hours and cost per calendar month.
    by_month: Vec<PoolMonth>,
    counters: PoolCounters,
}

struct Job {
    in_use: bool,
    id: u64,
    workload: u16,
    /// Its trace job ([`NO_SPEC`]: drawn from the workload's distributions).
    spec: u32,
    team: u16,
    gpus: u32,
    arrival_h: f64,
    queued_h: f64,
    /// Work left, hours on the workload's reference GPU type.
    remaining_ref_h: f64,
    first_start_h: f64,
    /// The current run waits for a node being provisioned: it begins at `run_start_h`, and is
    /// counted (started, first start and wait, burst) only then. Interrupted before that (one
    /// of its ready nodes preempted), it never began.
    run_pending: bool,
    counted: bool,
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
    has_elastic: bool,
    /// Per pool, during a pass: the smallest gang that found no capacity there.
    no_capacity_gpus: Vec<u32>,
    /// Queue entries looked at by all passes so far (bounded, see [`simulate_until`]).
    queue_steps: u64,
    scratch_nodes: Vec<u32>,
    scratch_jobs: Vec<u32>,
    scratch_plan: GangPlan,
    scratch_outlook: Vec<NodeOutlook>,
    scratch_ends: Vec<(f64, u32)>,
    /// EASY backfill: the reservation of the first job the last pass could not place.
    reserved: Option<Reserved>,
    totals: Totals,
    accounts: Accounts,
    months: Vec<MonthTotals>,
    trace: Option<Vec<JobRow>>,
}

impl<'c> FleetSim<'c> {
    pub fn new(config: &'c Config, strategy_idx: usize, replication: u32, trace: bool) -> Self {
        let strategy = &config.strategies[strategy_idx];
        let seed = config.seed;
        let month_mean_h = config.calendar.month_mean_h();
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
        let pools: Vec<PoolState> = strategy
            .pools
            .iter()
            .map(|&p| {
                let pool = &config.pools[p];
                let named = |purpose: Purpose<'_>| Some(stream(seed, replication, purpose));
                let name = pool.name.as_str();
                let (mut shortfalls, mut lifetimes, mut waves, mut victims) =
                    (None, None, None, None);
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
                        waves = named(Purpose::Waves(name));
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
                        config.gpu_speed[w.gpu] / config.gpu_speed[pool.gpu] / precision
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
                    job_rate_per_gpu_h: job_rate_per_gpu_h(pool, month_mean_h),
                    by_month: vec![PoolMonth::default(); config.calendar.months()],
                    counters: PoolCounters::default(),
                }
            })
            .collect();
        let has_elastic = pools.iter().any(|p| p.facts.elastic);
        Self {
            config,
            strategy,
            strategy_idx,
            replication,
            streams,
            no_capacity_gpus: vec![u32::MAX; pools.len()],
            queue_steps: 0,
            pools,
            jobs: Vec::new(),
            vacant_jobs: Vec::new(),
            queue: WaitQueue::new(),
            class_timers: BinaryHeap::new(),
            next_job_id: 0,
            pass_needed: false,
            has_elastic,
            scratch_nodes: Vec::new(),
            scratch_jobs: Vec::new(),
            scratch_plan: GangPlan::default(),
            scratch_outlook: Vec::new(),
            scratch_ends: Vec::new(),
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
                PoolKind::OnDemand(_) | PoolKind::Spot(..) => {}
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
        }
        for w in 0..self.streams.len() {
            self.schedule_next_arrival(w, sim);
        }
    }

    fn wave_gap_h(&mut self, sp: usize, waves_per_month: f64) -> f64 {
        let mean_gap_h = self.config.calendar.month_mean_h() / waves_per_month;
        let rng = self.pools[sp].waves.as_mut().expect("wave stream");
        mean_gap_h * rng.sample::<f64, _>(Exp1)
    }

    fn schedule_next_arrival(&mut self, w: usize, sim: &mut Sim<Event>) {
        let stream = &mut self.streams[w];
        let (calendar, horizon_h) = (&self.config.calendar, self.config.horizon_h);
        let next = match stream.replay.as_mut() {
            Some(clock) => clock.next(calendar, horizon_h).map(|(at_h, spec)| {
                stream.next_spec = spec;
                at_h
            }),
            None => stream.clock.next(&mut stream.arrivals, calendar, horizon_h),
        };
        if let Some(at_h) = next {
            sim.schedule_at(at_h, Event::Arrival { workload: w as u16 });
        }
    }

    // ---- jobs ---------------------------------------------------------------------------

    fn arrive(&mut self, w: usize, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let workload = &self.config.workloads[w];
        let spec = self.streams[w].next_spec;
        let (gpus, duration_h) = match &workload.trace {
            Some(trace) => trace.job(spec),
            None => {
                let rng = &mut self.streams[w].jobs;
                let gpus = workload::sample_gpus(&workload.gpus, rng);
                (gpus, workload::sample_duration_h(&workload.duration_h, rng))
            }
        };
        let id = self.next_job_id;
        self.next_job_id += 1;
        let counted = now_h >= self.config.warmup_h;
        if counted {
            self.accounts
                .count(w, workload.team_idx_of(spec), |c| c.jobs_arrived += 1);
        }
        let slot = self.vacant_jobs.pop().unwrap_or_else(|| {
            self.jobs.push(Job {
                in_use: false,
                id: 0,
                workload: 0,
                spec: NO_SPEC,
                team: 0,
                gpus: 0,
                arrival_h: 0.0,
                queued_h: 0.0,
                remaining_ref_h: 0.0,
                first_start_h: f64::NAN,
                run_pending: false,
                counted: false,
                burst: false,
                needs_restore: false,
                preemptions: 0,
                lost_gpu_h: 0.0,
                cost: 0.0,
                run: 0,
                pool: NO_POOL,
                last_pool: NO_POOL,
                run_start_h: 0.0,
                plan: RunPlan {
                    restore_h: 0.0,
                    work_h: 0.0,
                    every_h: 0.0,
                    write_h: 0.0,
                },
                alloc: Vec::new(),
                retry_from_h: vec![0.0; self.pools.len()],
                key: QueueKey {
                    rank: 0,
                    arrival_seq: 0,
                    slot: 0,
                },
                burst_due: false,
                class: 0,
            });
            self.jobs.len() as u32 - 1
        });
        let job = &mut self.jobs[slot as usize];
        job.in_use = true;
        job.id = id;
        job.workload = w as u16;
        job.spec = spec;
        job.team = workload.team_idx_of(spec) as u16;
        job.gpus = gpus;
        job.arrival_h = now_h;
        job.remaining_ref_h = duration_h;
        job.first_start_h = f64::NAN;
        job.run_pending = false;
        job.counted = counted;
        job.burst = false;
        job.needs_restore = false;
        job.preemptions = 0;
        job.lost_gpu_h = 0.0;
        job.cost = 0.0;
        job.pool = NO_POOL;
        job.last_pool = NO_POOL;
        job.retry_from_h.fill(0.0);
        job.key = QueueKey::new(self.strategy.queue, workload.priority, id, slot);
        self.start_waiting(slot, sim);
        let tried = self.try_newcomer(slot, sim);
        if tried != Tried::Placed {
            self.insert_waiting(slot, sim.now_h());
        }
        // A refusal may leave granted nodes idle, room that others could use.
        if tried == Tried::Refused {
            self.pass_needed = true;
        }
        self.schedule_next_arrival(w, sim);
    }

    /// Tries a job that just arrived. The queue is settled (every waiting job was tried at the
    /// last change and nothing else changed since), so the newcomer is the only job that may
    /// start now: under `fifo` only if nobody is ahead of it; under EASY backfill if it does
    /// not delay the reservation, and a newcomer ahead of the reserved job (by priority) that
    /// cannot start takes the reservation over in a pass.
    fn try_newcomer(&mut self, slot: u32, sim: &mut Sim<Event>) -> Tried {
        let queue = self.strategy.queue;
        let try_now = |sim: &mut Sim<Event>, model: &mut Self| {
            model.no_capacity_gpus.fill(u32::MAX);
            model.try_place(slot, sim)
        };
        if self.queue.is_empty() || (policies::backfills(queue) && !policies::reserves(queue)) {
            return try_now(sim, self);
        }
        if !policies::backfills(queue) {
            return Tried::NoRoom;
        }
        if self.reserved.is_some() && !self.reservation_current() {
            // A node went down since the last pass: decide in a new one.
            self.pass_needed = true;
            return Tried::NoRoom;
        }
        let tried = try_now(sim, self);
        let key = self.jobs[slot as usize].key;
        if tried != Tried::Placed && self.reserved.as_ref().is_none_or(|r| key < r.key) {
            self.pass_needed = true;
        }
        tried
    }

    /// The job (re-)enters the queue now: its burst threshold counts from here.
    fn start_waiting(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let job = &mut self.jobs[slot as usize];
        job.queued_h = now_h;
        job.burst_due = match policies::burst_from_h(self.strategy, now_h) {
            // Without elastic pools the flag changes nothing: keep the jobs in one class.
            _ if !self.has_elastic => true,
            Some(from_h) if from_h <= now_h => true,
            Some(from_h) => {
                // Positive floats order like their bits: the heap pops the earliest first.
                self.class_timers
                    .push(Reverse((from_h.to_bits(), slot, job.run)));
                sim.schedule_at(from_h, Event::Wake);
                false
            }
            None => false,
        };
    }

    /// The wait-queue class of a waiting job: interchangeable jobs share one.
    fn class_of(&mut self, slot: u32, now_h: f64) -> usize {
        let job = &self.jobs[slot as usize];
        let blocked = job
            .retry_from_h
            .iter()
            .enumerate()
            .filter(|(_, from_h)| **from_h > now_h)
            .fold(0u64, |mask, (sp, _)| mask | (1 << sp));
        let workload = &self.config.workloads[job.workload as usize];
        self.queue.class_of(ClassKey {
            workload: job.workload,
            gpus: job.gpus,
            burst_ok: job.burst_due,
            spot_ok: policies::spot_open(self.strategy, workload, job.preemptions),
            blocked,
        })
    }

    /// Moves a waiting job to the class its state now calls for.
    fn reclass(&mut self, slot: u32, now_h: f64) {
        let (from, key) = (self.jobs[slot as usize].class, self.jobs[slot as usize].key);
        let to = self.class_of(slot, now_h);
        self.queue.move_to(from, to, key);
        self.jobs[slot as usize].class = to;
    }

    fn insert_waiting(&mut self, slot: u32, now_h: f64) {
        let class = self.class_of(slot, now_h);
        let job = &mut self.jobs[slot as usize];
        job.class = class;
        self.queue.insert(class, job.key);
    }

    /// Puts a job (back) in the queue, keeping its arrival order, and asks for a pass.
    fn enqueue(&mut self, slot: u32, sim: &mut Sim<Event>) {
        self.start_waiting(slot, sim);
        self.insert_waiting(slot, sim.now_h());
        self.pass_needed = true;
    }

    /// Re-classes every waiting job whose burst threshold or retry timer has run out, all at
    /// once, so the pass then takes them in queue order.
    fn run_due_timers(&mut self, now_h: f64) {
        while let Some(Reverse((bits, slot, run))) = self.class_timers.peek().copied() {
            if f64::from_bits(bits) > now_h {
                break;
            }
            self.class_timers.pop();
            let job = &mut self.jobs[slot as usize];
            // Stale when the job started (or finished and the slot was reused) since.
            if !job.in_use || job.run != run || job.pool != NO_POOL {
                continue;
            }
            job.burst_due = !self.has_elastic
                || policies::burst_from_h(self.strategy, job.queued_h)
                    .is_some_and(|from_h| from_h <= now_h);
            self.reclass(slot, now_h);
        }
    }

    /// Walks the queue in discipline order and places what can be placed. A class whose
    /// first job finds no room is skipped for the rest of the pass. Under EASY backfill the
    /// first job that finds no room gets the reservation; later jobs must not delay it.
    fn pass(&mut self, sim: &mut Sim<Event>) {
        self.pass_needed = false;
        // Given to the first job of this pass that cannot start (kept as it was, if nothing
        // changed since).
        let previous = self.reserved.take();
        let mut reserved_now = false;
        if self.queue.is_empty() {
            return;
        }
        let now_h = sim.now_h();
        self.run_due_timers(now_h);
        self.no_capacity_gpus.fill(u32::MAX);
        let backfill = policies::backfills(self.strategy.queue);
        let reserves = policies::reserves(self.strategy.queue);
        let mut held_left = HELD_PER_PASS_MAX;
        self.queue.begin_pass();
        while let Some((key, class)) = self.queue.next_in_pass() {
            self.queue_steps += 1;
            match self.try_place(key.slot, sim) {
                Tried::Placed => self.queue.remove(class, key),
                // A retry timer now blocks a pool for this job alone: it changes class.
                Tried::Refused => self.reclass(key.slot, now_h),
                Tried::NoRoom => {
                    if reserves && !reserved_now {
                        reserved_now = true;
                        let changes = self.nodes_changes();
                        let held = match &previous {
                            Some(r) if r.slot == key.slot && r.class == class => match &r.held {
                                // Unless its start has come (then it must start now, or
                                // something unforeseen happened).
                                Held::Known { changes: c, on }
                                    if *c == changes
                                        && on
                                            .as_ref()
                                            .is_none_or(|h| h.reservation.shadow_h > now_h) =>
                                {
                                    r.held.clone()
                                }
                                _ => Held::Unknown,
                            },
                            _ => Held::Unknown,
                        };
                        self.reserved = Some(Reserved {
                            slot: key.slot,
                            key,
                            class,
                            held,
                        });
                    }
                    self.queue.fail_class(class);
                }
                Tried::Held => {
                    held_left = held_left.saturating_sub(1);
                    if held_left == 0 {
                        self.queue.fail_class(class);
                    }
                }
            }
            let placed = self.jobs[key.slot as usize].pool != NO_POOL;
            if !placed && !backfill {
                break;
            }
            // Nothing later can be placed when no pool has room for even one GPU.
            if self.no_capacity_gpus.iter().all(|g| *g <= 1) {
                break;
            }
        }
    }

    fn try_place(&mut self, slot: u32, sim: &mut Sim<Event>) -> Tried {
        let now_h = sim.now_h();
        let mut tried = Tried::NoRoom;
        for sp in 0..self.pools.len() {
            let job = &self.jobs[slot as usize];
            if job.gpus >= self.no_capacity_gpus[sp] || !self.may_try(slot, sp, now_h) {
                continue;
            }
            match self.place_on(slot, sp, sim) {
                OnPool::Placed => return Tried::Placed,
                OnPool::NoCapacity => {
                    let gpus = self.jobs[slot as usize].gpus;
                    self.no_capacity_gpus[sp] = self.no_capacity_gpus[sp].min(gpus);
                }
                OnPool::Refused => tried = Tried::Refused,
                OnPool::Held if tried == Tried::NoRoom => tried = Tried::Held,
                OnPool::Held => {}
            }
        }
        tried
    }

    /// Whether the job may use strategy pool `sp` now (policies: GPU type, burst threshold,
    /// retry timer, spot fallback).
    fn may_try(&self, slot: u32, sp: usize, now_h: f64) -> bool {
        let job = &self.jobs[slot as usize];
        let candidate = Candidate {
            workload: &self.config.workloads[job.workload as usize],
            burst_due: job.burst_due,
            preemptions: job.preemptions,
            retry_from_h: job.retry_from_h[sp],
        };
        policies::may_try(self.strategy, candidate, self.pools[sp].facts, now_h)
    }

    fn place_on(&mut self, slot: u32, sp: usize, sim: &mut Sim<Event>) -> OnPool {
        let mut plan = std::mem::take(&mut self.scratch_plan);
        let outcome = self.place_by_plan(slot, sp, &mut plan, sim);
        self.scratch_plan = plan;
        outcome
    }

    fn place_by_plan(
        &mut self,
        slot: u32,
        sp: usize,
        plan: &mut GangPlan,
        sim: &mut Sim<Event>,
    ) -> OnPool {
        let now_h = sim.now_h();
        let gpus = self.jobs[slot as usize].gpus;
        self.pools[sp].nodes.plan(gpus, &[], plan);
        if !self.may_add_nodes(sp, plan.new_nodes.len(), 0) {
            return OnPool::NoCapacity;
        }
        // Another job's reservation on this pool: a job still running at its shadow time may
        // take only what the reservation leaves spare.
        let mut runs_past_shadow = false;
        if let Some(held) = self.reservation_on(sp, slot, now_h) {
            let (shadow_h, extra, keep) = (held.shadow_h, held.extra_gpus, held.new_nodes as usize);
            if self.planned_end_h(slot, sp, plan, now_h) > shadow_h {
                runs_past_shadow = true;
                let spare = std::mem::take(&mut self.holding_mut().reservation.spare);
                self.pools[sp].nodes.plan(gpus, &spare, plan);
                self.holding_mut().reservation.spare = spare;
                let spread = self.pools[sp].nodes.placement == Placement::Spread;
                if (spread && u64::from(gpus) > extra)
                    || !self.may_add_nodes(sp, plan.new_nodes.len(), keep)
                {
                    return OnPool::Held;
                }
            }
        }
        if !plan.new_nodes.is_empty() {
            if !self.request_nodes(sp, plan.new_nodes.len() as u32, sim) {
                self.refused(slot, sp, sim);
                return OnPool::Refused;
            }
        } else {
            self.scratch_nodes.clear();
        }
        // `request_nodes` left the new nodes in `scratch_nodes`.
        let new_indexes = std::mem::take(&mut self.scratch_nodes);
        let job = &mut self.jobs[slot as usize];
        self.pools[sp]
            .nodes
            .commit(plan, &new_indexes, slot, &mut job.alloc);
        self.scratch_nodes = new_indexes;
        if runs_past_shadow {
            self.hold_less(plan, gpus);
        }
        if self.reserved.as_ref().is_some_and(|r| r.slot == slot) {
            self.reserved = None;
        }
        let state = &self.pools[sp];
        let job = &self.jobs[slot as usize];
        let start_h = job
            .alloc
            .iter()
            .map(|(node, _)| state.nodes.nodes[*node as usize].ready_h)
            .fold(now_h, f64::max);
        self.start_run(slot, sp, start_h, sim);
        OnPool::Placed
    }

    /// Whether pool `sp` may have `count` more nodes while keeping `keep` for a reservation.
    fn may_add_nodes(&self, sp: usize, count: usize, keep: usize) -> bool {
        if count == 0 {
            return true;
        }
        let state = &self.pools[sp];
        match state.pool.elastic() {
            None => false,
            Some(elastic) => elastic
                .max_nodes
                .is_none_or(|max| state.nodes.up_count() as usize + count + keep <= max as usize),
        }
    }

    /// A shortfall refused a node request: the job asks this pool again after `retry_h`.
    fn refused(&mut self, slot: u32, sp: usize, sim: &mut Sim<Event>) {
        let elastic = self.pools[sp]
            .pool
            .elastic()
            .expect("requests go to elastic pools");
        let retry_h = elastic.availability.as_ref().map_or(0.0, |a| a.retry_h);
        let retry_from_h = sim.now_h() + retry_h;
        let job = &mut self.jobs[slot as usize];
        job.retry_from_h[sp] = retry_from_h;
        self.class_timers
            .push(Reverse((retry_from_h.to_bits(), slot, job.run)));
        sim.schedule_at(retry_from_h, Event::Wake);
        // Nodes granted before the refusal are idle now and may fit smaller gangs.
        self.no_capacity_gpus[sp] = u32::MAX;
        self.queue.unfail_all();
    }

    // ---- EASY backfill's reservation ------------------------------------------------------

    /// What the reservation holds on pool `sp`, if it holds anything there and is for another
    /// job than `slot` (worked out now if no job needed it before).
    fn reservation_on(&mut self, sp: usize, slot: u32, now_h: f64) -> Option<&Reservation> {
        let reserved = self.reserved.as_ref()?;
        if reserved.slot == slot {
            return None;
        }
        if matches!(reserved.held, Held::Unknown) {
            let (reserved_slot, changes) = (reserved.slot, self.nodes_changes());
            let on = self.reserve(reserved_slot, now_h);
            self.reserved.as_mut().expect("a reservation").held = Held::Known { changes, on };
        }
        match &self.reserved.as_ref()?.held {
            Held::Known {
                on: Some(holding), ..
            } if holding.pool == sp => Some(&holding.reservation),
            _ => None,
        }
    }

    /// The reservation's holding, known to exist.
    fn holding_mut(&mut self) -> &mut Holding {
        match &mut self.reserved.as_mut().expect("a reservation").held {
            Held::Known {
                on: Some(holding), ..
            } => holding,
            _ => unreachable!("the reservation holds GPUs"),
        }
    }

    /// Whether the reservation of the last pass still describes the nodes (none of the pool it
    /// holds went down since it was worked out).
    fn reservation_current(&self) -> bool {
        match self.reserved.as_ref().map(|r| &r.held) {
            Some(Held::Known {
                on: Some(holding), ..
            }) => self.pools[holding.pool].nodes.generation == holding.generation,
            _ => true,
        }
    }

    /// When a run of `slot` on `sp` as `plan` says would end, hours.
    fn planned_end_h(&self, slot: u32, sp: usize, plan: &GangPlan, now_h: f64) -> f64 {
        let state = &self.pools[sp];
        let mut start_h = plan
            .pieces
            .iter()
            .map(|(node, _)| state.nodes.nodes[*node as usize].ready_h)
            .fold(now_h, f64::max);
        if !plan.new_nodes.is_empty() {
            let provisioning_h = state.pool.elastic().map_or(0.0, |e| e.provisioning_h);
            start_h = start_h.max(now_h + provisioning_h);
        }
        start_h + self.run_plan(slot, sp, plan.nodes()).total_h()
    }

    /// A job running past the shadow time took `plan`: the reservation has that much less
    /// to spare.
    fn hold_less(&mut self, plan: &GangPlan, gpus: u32) {
        let held = &mut self.holding_mut().reservation;
        held.extra_gpus = held.extra_gpus.saturating_sub(u64::from(gpus));
        for (node, taken) in &plan.pieces {
            if let Some((_, spare)) = held.spare.iter_mut().find(|(n, _)| n == node) {
                assert!(*taken <= *spare, "a job took GPUs the reservation holds");
                *spare -= taken;
            }
        }
    }

    /// Changes of every pool's nodes so far.
    fn nodes_changes(&self) -> u64 {
        self.pools.iter().map(|p| p.nodes.changes).sum()
    }

    /// Works out a reservation for a job that found no room: on the pool where it can start
    /// earliest, from the planned ends of the runs there (none if no open pool ever can).
    fn reserve(&mut self, slot: u32, now_h: f64) -> Option<Holding> {
        let gpus = self.jobs[slot as usize].gpus;
        let mut best: Option<(usize, Reservation)> = None;
        for sp in 0..self.pools.len() {
            if !self.may_try(slot, sp, now_h) {
                continue;
            }
            let state = &self.pools[sp];
            let new_nodes_allowed = match state.pool.elastic() {
                None => 0,
                // Unlimited: a job is never short of room there.
                Some(elastic) => match elastic.max_nodes {
                    None => continue,
                    Some(max) => max.saturating_sub(state.nodes.up_count()),
                },
            };
            let (per_node, placement) = (state.pool.gpus_per_node, state.nodes.placement);
            let (outlook, mut ends) = self.outlook(sp);
            let found = reservation::reserve(
                gpus,
                per_node,
                placement,
                &outlook,
                &mut ends,
                new_nodes_allowed,
                now_h,
            );
            self.scratch_outlook = outlook;
            self.scratch_ends = ends;
            if let Some(held) = found
                && best
                    .as_ref()
                    .is_none_or(|(_, b)| held.shadow_h < b.shadow_h)
            {
                best = Some((sp, held));
            }
        }
        best.map(|(sp, reservation)| Holding {
            pool: sp,
            generation: self.pools[sp].nodes.generation,
            reservation,
        })
    }

    /// Pool `sp`'s up nodes and the planned ends of the runs on them.
    fn outlook(&mut self, sp: usize) -> (Vec<NodeOutlook>, Vec<(f64, u32)>) {
        let mut outlook = std::mem::take(&mut self.scratch_outlook);
        let mut ends = std::mem::take(&mut self.scratch_ends);
        outlook.clear();
        ends.clear();
        let nodes = &self.pools[sp].nodes;
        for &index in nodes.up_nodes() {
            let node = &nodes.nodes[index as usize];
            let first = ends.len();
            for &job_slot in &node.jobs {
                let job = &self.jobs[job_slot as usize];
                let end_h = job.run_start_h + job.plan.total_h();
                let gpus: u32 = job
                    .alloc
                    .iter()
                    .filter(|(n, _)| *n == index)
                    .map(|(_, g)| g)
                    .sum();
                ends.push((end_h, gpus));
            }
            outlook.push(NodeOutlook {
                node: index,
                free_gpus: node.free_gpus,
                ready_h: node.ready_h,
                first,
                count: ends.len() - first,
            });
        }
        (outlook, ends)
    }

    /// Requests `count` new nodes; false if a shortfall refused one (those granted stay).
    fn request_nodes(&mut self, sp: usize, count: u32, sim: &mut Sim<Event>) -> bool {
        let now_h = sim.now_h();
        let state = &mut self.pools[sp];
        let elastic = state.pool.elastic().expect("requests go to elastic pools");
        let shortfall = elastic.availability.as_ref().map_or(0.0, |a| a.shortfall);
        self.scratch_nodes.clear();
        let mut granted_all = true;
        for _ in 0..count {
            if state.constrained {
                let rng = state.shortfalls.as_mut().expect("shortfall stream");
                if rng.random::<f64>() < shortfall {
                    state.counters.failed_requests += 1;
                    granted_all = false;
                    break;
                }
            }
            let index = state.nodes.add_slot();
            state.nodes.bring_up(index);
            let node = &mut state.nodes.nodes[index as usize];
            node.requested_h = now_h;
            node.ready_h = now_h + elastic.provisioning_h;
            state.counters.nodes_requested += 1;
            if let PoolKind::Spot(_, preemption) = &state.pool.kind {
                let rng = state.lifetimes.as_mut().expect("lifetime stream");
                let lifetime_h = preemption.mean_h * rng.sample::<f64, _>(Exp1);
                let (life, ready_h) = (node.life, node.ready_h);
                // A preemption past the horizon would never be handled, only held in memory.
                if ready_h + lifetime_h <= self.config.horizon_h {
                    sim.schedule_at(
                        ready_h + lifetime_h,
                        Event::NodePreempted {
                            pool: sp as u16,
                            node: index,
                            life,
                        },
                    );
                }
            }
            self.scratch_nodes.push(index);
        }
        if !granted_all {
            for i in 0..self.scratch_nodes.len() {
                let index = self.scratch_nodes[i];
                self.schedule_idle(sp, index, sim);
            }
        }
        granted_all
    }

    /// The run `slot` would make on pool `sp` spanning `nodes` nodes: restore, work and
    /// checkpoint writes.
    fn run_plan(&self, slot: u32, sp: usize, nodes: usize) -> RunPlan {
        let state = &self.pools[sp];
        let job = &self.jobs[slot as usize];
        let w = job.workload as usize;
        let checkpoint = self.config.workloads[w]
            .checkpoint_of(job.spec)
            .filter(|_| self.strategy.checkpointing);
        let restore_h = match checkpoint {
            Some(checkpoint) if job.needs_restore => checkpoint.restart_h,
            _ => 0.0,
        };
        // A gang is interrupted when any of its nodes is: its MTBF shrinks with its node count.
        let gang_mtbf_h = state.node_mtbf_h / nodes as f64;
        RunPlan {
            restore_h,
            work_h: job.remaining_ref_h * state.slowdown[w],
            every_h: checkpoint.map_or(f64::INFINITY, |c| c.interval_h(gang_mtbf_h)),
            write_h: checkpoint.map_or(0.0, |c| c.write_h),
        }
    }

    fn start_run(&mut self, slot: u32, sp: usize, start_h: f64, sim: &mut Sim<Event>) {
        let plan = self.run_plan(slot, sp, self.jobs[slot as usize].alloc.len());
        let job = &mut self.jobs[slot as usize];
        job.plan = plan;
        job.run = job.run.wrapping_add(1);
        job.pool = sp as u16;
        job.run_start_h = start_h;
        job.run_pending = start_h > sim.now_h();
        let end_h = start_h + job.plan.total_h();
        let (run, job_id, pending) = (job.run, slot, job.run_pending);
        sim.schedule_at(end_h, Event::RunEnds { job: job_id, run });
        if !pending {
            self.begin_run(slot);
        }
    }

    /// Counts a run that has begun: the pool's started jobs, the job's first start and wait,
    /// and whether it burst to an elastic pool.
    fn begin_run(&mut self, slot: u32) {
        let job = &mut self.jobs[slot as usize];
        job.last_pool = job.pool;
        let state = &mut self.pools[job.pool as usize];
        state.counters.jobs_started += 1;
        let (w, team) = (job.workload as usize, job.team as usize);
        if state.facts.elastic && !job.burst {
            job.burst = true;
            if job.counted {
                self.accounts.count(w, team, |c| c.burst_jobs += 1);
            }
        }
        if !job.first_start_h.is_nan() {
            return;
        }
        let start_h = job.run_start_h;
        job.first_start_h = start_h;
        if job.counted && start_h <= self.config.horizon_h {
            let wait_h = start_h - job.arrival_h;
            self.accounts.count(w, team, |c| c.waits.record(wait_h));
            let month = &mut self.months[self.config.calendar.month_of(start_h)];
            month.wait_sum_h += wait_h;
            month.waits += 1;
        }
    }

    /// Settles a run that was waiting for provisioning when placed: it began if `now_h` has
    /// reached its start; otherwise it never began.
    fn settle_run(&mut self, slot: u32, now_h: f64) {
        let job = &mut self.jobs[slot as usize];
        if job.run_pending {
            job.run_pending = false;
            if now_h >= job.run_start_h {
                self.begin_run(slot);
            }
        }
    }

    /// Adds busy GPU-hours of a job's run on its pool over `[from_h, to_h)`.
    fn account_busy(&mut self, slot: u32, from_h: f64, to_h: f64) {
        let to_h = to_h.min(self.config.horizon_h);
        if to_h <= from_h {
            return;
        }
        let job = &self.jobs[slot as usize];
        let (sp, w, team) = (job.pool as usize, job.workload as usize, job.team as usize);
        let gpus = f64::from(job.gpus);
        let state = &mut self.pools[sp];
        let months = &mut self.months;
        let (group_months, group_busy) = self.accounts.busy(w, team);
        let group_months = &mut group_months[sp * months.len()..(sp + 1) * months.len()];
        self.config
            .calendar
            .split_by_month(from_h, to_h, |m, hours| {
                months[m].gpu_hours_busy += gpus * hours;
                state.by_month[m].gpu_hours_busy += gpus * hours;
                group_months[m] += gpus * hours;
            });
        state.counters.gpu_hours_busy += gpus * (to_h - from_h);
        *group_busy += gpus * (to_h - from_h);
    }

    /// Gives back a job's GPUs; idle elastic nodes start their idle timeout.
    fn free_alloc(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let sp = self.jobs[slot as usize].pool as usize;
        let mut alloc = std::mem::take(&mut self.jobs[slot as usize].alloc);
        for &(node, gpus) in &alloc {
            let idle = self.pools[sp].nodes.release(node, gpus, slot);
            if idle && self.pools[sp].facts.elastic {
                self.schedule_idle(sp, node, sim);
            }
        }
        alloc.clear();
        self.jobs[slot as usize].alloc = alloc;
    }

    fn schedule_idle(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
        let state = &self.pools[sp];
        let timeout_h = state.pool.elastic().expect("elastic pool").idle_timeout_h;
        let node = &state.nodes.nodes[index as usize];
        let at_h = node.ready_h.max(sim.now_h()) + timeout_h;
        // Past the horizon it would never be handled, only held in memory (one per job end
        // with a long idle_timeout_h: gigabytes in a long run).
        if at_h > self.config.horizon_h {
            return;
        }
        sim.schedule_at(
            at_h,
            Event::NodeIdle {
                pool: sp as u16,
                node: index,
                epoch: node.idle_epoch,
            },
        );
    }

    fn run_ends(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        self.settle_run(slot, now_h);
        let job = &self.jobs[slot as usize];
        let sp = job.pool as usize;
        let (gpus, from_h, checkpoint_h) = (job.gpus, job.run_start_h, job.plan.checkpoint_h());
        self.account_busy(slot, from_h, now_h);
        self.totals.checkpoint_gpu_h += f64::from(gpus) * checkpoint_h;
        let rate = self.pools[sp].job_rate_per_gpu_h;
        self.free_alloc(slot, sim);
        let job = &mut self.jobs[slot as usize];
        job.cost += f64::from(gpus) * (now_h - from_h) * rate;
        job.pool = NO_POOL;
        if job.counted {
            let turnaround_h = now_h - job.arrival_h;
            let deadline = self.config.workloads[job.workload as usize].deadline_h;
            let missed = u64::from(deadline.is_some_and(|d| turnaround_h > d));
            self.accounts
                .count(job.workload as usize, job.team as usize, |c| {
                    c.jobs_completed += 1;
                    c.turnaround_sum_h += turnaround_h;
                    c.deadline_misses += missed;
                });
            self.months[self.config.calendar.month_of(now_h)].jobs_completed += 1;
        }
        self.trace_job(slot, now_h);
        self.jobs[slot as usize].in_use = false;
        self.vacant_jobs.push(slot);
        self.pass_needed = true;
    }

    /// Stops a running job: work since its last checkpoint is lost, and it queues again.
    fn interrupt(&mut self, slot: u32, cause: Cause, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let job = &self.jobs[slot as usize];
        let sp = job.pool as usize;
        assert!(
            sp != NO_POOL as usize,
            "interrupting a job that is not running"
        );
        let gpus = job.gpus;
        let from_h = job.run_start_h;
        self.settle_run(slot, now_h);
        let job = &self.jobs[slot as usize];
        let outcome = job.plan.interrupted_after(now_h - from_h);
        let (workload, spec, rate) = (
            job.workload as usize,
            job.spec,
            self.pools[sp].job_rate_per_gpu_h,
        );
        let team = job.team as usize;
        let slowdown = self.pools[sp].slowdown[workload];
        self.account_busy(slot, from_h, now_h);
        let gpus_f = f64::from(gpus);
        self.accounts
            .count(workload, team, |c| c.lost_gpu_h += gpus_f * outcome.lost_h);
        self.totals.checkpoint_gpu_h += gpus_f * outcome.checkpoint_h;
        self.free_alloc(slot, sim);
        let has_checkpoint = self.strategy.checkpointing
            && self.config.workloads[workload]
                .checkpoint_of(spec)
                .is_some();
        let job = &mut self.jobs[slot as usize];
        job.remaining_ref_h = (job.remaining_ref_h - outcome.saved_work_h / slowdown).max(0.0);
        job.lost_gpu_h += gpus_f * outcome.lost_h;
        job.cost += gpus_f * (now_h - from_h).max(0.0) * rate;
        job.run = job.run.wrapping_add(1);
        job.pool = NO_POOL;
        // A run cut short before it began (its gang waited for a node being provisioned) wrote
        // and read nothing, and the job was not preempted: it lost a node it had not started
        // on. Its restore need, preemption count and spot fallback stay as they were.
        let began = now_h >= from_h;
        if began {
            job.needs_restore = has_checkpoint;
            match cause {
                Cause::Preemption => {
                    job.preemptions += 1;
                    self.accounts.count(workload, team, |c| c.preemptions += 1);
                    self.pools[sp].counters.preemptions += 1;
                }
                Cause::NodeFailure => {
                    self.totals.node_failures += 1;
                }
                Cause::TermEnd => {}
            }
        }
        self.enqueue(slot, sim);
    }

    /// Interrupts every job on a node that is being lost.
    fn evacuate(&mut self, sp: usize, index: u32, cause: Cause, sim: &mut Sim<Event>) {
        let mut victims = std::mem::take(&mut self.scratch_jobs);
        victims.clear();
        victims.extend_from_slice(&self.pools[sp].nodes.nodes[index as usize].jobs);
        // A gang listed twice on one node is interrupted once.
        victims.sort_unstable();
        victims.dedup();
        for &slot in &victims {
            self.interrupt(slot, cause, sim);
        }
        self.scratch_jobs = victims;
    }

    /// Releases an elastic node and bills it.
    fn release_node(&mut self, sp: usize, index: u32, now_h: f64) {
        let state = &mut self.pools[sp];
        let elastic = state.pool.elastic().expect("elastic pool");
        let requested_h = state.nodes.nodes[index as usize].requested_h;
        let lifetime_h = now_h - requested_h;
        let billed_h = billing::billed_h(
            lifetime_h,
            elastic.billing_increment_s,
            elastic.billing_minimum_s,
        );
        self.bill_elastic(sp, requested_h, now_h, billed_h - lifetime_h);
        self.pools[sp].nodes.take_down(index, NodeState::Absent);
    }

    /// Bills a node's life `[from_h, to_h)` plus `extra_h` of rounding (in the last month).
    fn bill_elastic(&mut self, sp: usize, from_h: f64, to_h: f64, extra_h: f64) {
        let state = &mut self.pools[sp];
        let per_node = f64::from(state.pool.gpus_per_node);
        let price = state.pool.elastic().expect("elastic pool").price_per_gpu_h;
        let spot = state.facts.spot;
        let months = &mut self.months;
        let by_month = &mut state.by_month;
        let calendar = &self.config.calendar;
        let mut add = |m: usize, hours: f64| {
            let gpu_h = per_node * hours;
            months[m].gpu_hours_paid += gpu_h;
            if spot {
                months[m].cost_spot += gpu_h * price;
            } else {
                months[m].cost_on_demand += gpu_h * price;
            }
            by_month[m].gpu_hours_paid += gpu_h;
            by_month[m].cost += gpu_h * price;
            by_month[m].cost_cash += gpu_h * price;
        };
        calendar.split_by_month(from_h, to_h, &mut add);
        if extra_h > 0.0 {
            add(calendar.month_of(to_h), extra_h);
        }
        let gpu_h = per_node * ((to_h - from_h).max(0.0) + extra_h.max(0.0));
        state.counters.gpu_hours_paid += gpu_h;
        state.counters.cost += gpu_h * price;
        state.counters.cost_cash += gpu_h * price;
    }

    // ---- nodes and the environment --------------------------------------------------------

    fn node_idle(&mut self, sp: usize, index: u32, epoch: u32, now_h: f64) {
        let state = &self.pools[sp];
        let node = &state.nodes.nodes[index as usize];
        if node.state == NodeState::Up
            && node.idle_epoch == epoch
            && node.free_gpus == state.pool.gpus_per_node
        {
            self.release_node(sp, index, now_h);
        }
    }

    fn preempt(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
        self.pools[sp].counters.nodes_preempted += 1;
        self.evacuate(sp, index, Cause::Preemption, sim);
        self.release_node(sp, index, sim.now_h());
    }

    fn wave(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let state = &mut self.pools[sp];
        let mut ready = std::mem::take(&mut self.scratch_nodes);
        ready.clear();
        ready.extend(
            state
                .nodes
                .up_nodes()
                .iter()
                .copied()
                .filter(|n| state.nodes.nodes[*n as usize].ready_h <= now_h),
        );
        // The node order of `up_nodes` depends on history; sort so the draw picks by index.
        ready.sort_unstable();
        let PoolKind::Spot(_, preemption) = &state.pool.kind else {
            unreachable!("waves hit spot pools")
        };
        let preemption = *preemption;
        if !ready.is_empty() {
            let rng = state.victims.as_mut().expect("victim stream");
            // Stochastic rounding: on average exactly `wave_fraction` of the nodes.
            let exact = preemption.wave_fraction * ready.len() as f64;
            let taken = ((exact + rng.random::<f64>()).floor() as usize).min(ready.len());
            for i in 0..taken {
                let j = rng.random_range(i..ready.len());
                ready.swap(i, j);
            }
            ready.truncate(taken);
            for &index in &ready {
                self.preempt(sp, index, sim);
            }
        }
        self.scratch_nodes = ready;
        let gap_h = self.wave_gap_h(sp, preemption.waves_per_month);
        sim.schedule_in(gap_h, Event::Wave { pool: sp as u16 });
    }

    fn node_fails(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let PoolKind::OnPrem(on_prem) = &self.pools[sp].pool.kind else {
            unreachable!("on-prem")
        };
        let failures = on_prem.failures.expect("failures configured");
        self.evacuate(sp, index, Cause::NodeFailure, sim);
        let state = &mut self.pools[sp];
        state.nodes.take_down(index, NodeState::Down);
        state.counters.node_failures += 1;
        let down_until_h = (now_h + failures.repair_h).min(self.config.horizon_h);
        state.counters.gpu_hours_down +=
            f64::from(state.pool.gpus_per_node) * (down_until_h - now_h);
        sim.schedule_in(
            failures.repair_h,
            Event::NodeRepaired {
                pool: sp as u16,
                node: index,
            },
        );
    }

    fn schedule_failure(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
        let PoolKind::OnPrem(on_prem) = &self.pools[sp].pool.kind else {
            return;
        };
        let Some(failures) = on_prem.failures else {
            return;
        };
        let rng = self.pools[sp].failures.as_mut().expect("failure stream");
        let up_h = failures.mtbf_h * rng.sample::<f64, _>(Exp1);
        sim.schedule_in(
            up_h,
            Event::NodeFails {
                pool: sp as u16,
                node: index,
            },
        );
    }

    fn capacity_on(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let nodes = match &self.pools[sp].pool.kind {
            PoolKind::OnPrem(on_prem) => on_prem.nodes,
            PoolKind::Reserved(reserved) => reserved.nodes,
            PoolKind::OnDemand(_) | PoolKind::Spot(..) => unreachable!("owned capacity"),
        };
        for _ in 0..nodes {
            let index = self.pools[sp].nodes.add_slot();
            self.pools[sp].nodes.bring_up(index);
            self.schedule_failure(sp, index, sim);
        }
    }

    fn capacity_off(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let mut up = std::mem::take(&mut self.scratch_nodes);
        up.clear();
        up.extend_from_slice(self.pools[sp].nodes.up_nodes());
        for &index in &up {
            self.evacuate(sp, index, Cause::TermEnd, sim);
            self.pools[sp].nodes.take_down(index, NodeState::Absent);
        }
        self.scratch_nodes = up;
    }

    fn window_edge(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let pool = self.pools[sp].pool;
        let availability = pool
            .elastic()
            .and_then(|e| e.availability.as_ref())
            .expect("availability");
        let Constrained::Window(windows) = &availability.when else {
            unreachable!("window")
        };
        let how = self.config.calendar.hour_of_week(sim.now_h());
        self.pools[sp].constrained = windows.contains(how);
        sim.schedule_in(
            windows.hours_to_next_change(how),
            Event::WindowEdge { pool: sp as u16 },
        );
    }

    fn episode_starts(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let pool = self.pools[sp].pool;
        let availability = pool
            .elastic()
            .and_then(|e| e.availability.as_ref())
            .expect("availability");
        let Constrained::Episodes {
            episodes_per_month,
            episode_mean_h,
        } = availability.when
        else {
            unreachable!("episodes")
        };
        let mean_gap_h = self.config.calendar.month_mean_h() / episodes_per_month;
        let state = &mut self.pools[sp];
        state.episodes_active += 1;
        state.constrained = true;
        let rng = state.episodes.as_mut().expect("episode stream");
        let length_h = episode_mean_h * rng.sample::<f64, _>(Exp1);
        let gap_h = mean_gap_h * rng.sample::<f64, _>(Exp1);
        sim.schedule_in(length_h, Event::EpisodeEnds { pool: sp as u16 });
        sim.schedule_in(gap_h, Event::EpisodeStarts { pool: sp as u16 });
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

    // ---- the end ------------------------------------------------------------------------

    fn trace_job(&mut self, slot: u32, end_h: f64) {
        let Some(rows) = self.trace.as_mut() else {
            return;
        };
        let job = &self.jobs[slot as usize];
        let pool = if job.last_pool == NO_POOL {
            String::new()
        } else {
            self.pools[job.last_pool as usize].pool.name.clone()
        };
        rows.push(JobRow {
            strategy: self.strategy.name.clone(),
            replication: self.replication,
            job: job.id,
            workload: self.config.workloads[job.workload as usize].name.clone(),
            team: self.config.teams[job.team as usize].clone(),
            gpus: job.gpus,
            arrival_h: job.arrival_h,
            start_h: job.first_start_h,
            end_h,
            wait_h: if job.first_start_h.is_nan() {
                self.config.horizon_h - job.arrival_h
            } else {
                job.first_start_h - job.arrival_h
            },
            pool,
            preemptions: job.preemptions,
            lost_gpu_hours: job.lost_gpu_h,
            cost: job.cost,
        });
    }

    /// Closes the accounts at the horizon and returns the unit's records.
    pub fn finish(mut self, events: u64) -> UnitResult {
        let config = self.config;
        let horizon_h = config.horizon_h;
        // Jobs still running or queued are unfinished; running ones were busy until the horizon.
        for slot in 0..self.jobs.len() as u32 {
            let job = &self.jobs[slot as usize];
            if !job.in_use {
                continue;
            }
            if job.pool != NO_POOL {
                self.settle_run(slot, horizon_h);
                let job = &self.jobs[slot as usize];
                let (sp, gpus, from_h) = (job.pool as usize, job.gpus, job.run_start_h);
                let partial = job.plan.interrupted_after(horizon_h - from_h);
                self.account_busy(slot, from_h, horizon_h);
                self.totals.checkpoint_gpu_h += f64::from(gpus) * partial.checkpoint_h;
                let rate = self.pools[sp].job_rate_per_gpu_h;
                let job = &mut self.jobs[slot as usize];
                job.cost += f64::from(gpus) * (horizon_h - from_h).max(0.0) * rate;
            }
            let job = &self.jobs[slot as usize];
            if job.counted {
                let waited_h = horizon_h - job.arrival_h;
                let deadline = config.workloads[job.workload as usize].deadline_h;
                let missed = u64::from(deadline.is_some_and(|d| waited_h > d));
                // Not started by the horizon: its wait so far is a lower bound of its wait.
                let unstarted = job.first_start_h.is_nan();
                self.accounts
                    .count(job.workload as usize, job.team as usize, |c| {
                        c.deadline_misses += missed;
                        if unstarted {
                            c.waits.record_censored(waited_h);
                        }
                    });
            }
            self.trace_job(slot, f64::NAN);
        }
        // Elastic nodes still alive are billed up to the horizon.
        for sp in 0..self.pools.len() {
            if !self.pools[sp].facts.elastic {
                continue;
            }
            let up: Vec<u32> = self.pools[sp].nodes.up_nodes().to_vec();
            for index in up {
                let requested_h = self.pools[sp].nodes.nodes[index as usize].requested_h;
                self.bill_elastic(sp, requested_h, horizon_h, 0.0);
            }
        }
        // Owned capacity costs the same whether used or not (energy depends on load).
        for state in &mut self.pools {
            for (m, month) in self.months.iter_mut().enumerate() {
                let owned = match &state.pool.kind {
                    PoolKind::OnPrem(on_prem) => billing::on_prem_month(
                        on_prem,
                        state.pool.gpus_per_node,
                        &config.calendar,
                        m,
                        state.by_month[m].gpu_hours_busy,
                    ),
                    PoolKind::Reserved(reserved) => billing::reserved_month(
                        reserved,
                        state.pool.gpus_per_node,
                        &config.calendar,
                        m,
                    ),
                    PoolKind::OnDemand(_) | PoolKind::Spot(..) => continue,
                };
                add_owned(month, &owned, &mut state.counters, &mut state.by_month[m]);
            }
        }
        self.rows(events)
    }

    fn rows(self, events: u64) -> UnitResult {
        let strategy_name = &self.strategy.name;
        let pool_months: Vec<Vec<PoolMonth>> =
            self.pools.iter().map(|p| p.by_month.clone()).collect();
        let totals = self.accounts.totals(&pool_months, self.config.idle_cost);
        let all = &totals.all;
        let month_sum = |f: fn(&MonthTotals) -> f64| self.months.iter().map(f).sum::<f64>();
        let busy: f64 = self.pools.iter().map(|p| p.counters.gpu_hours_busy).sum();
        let paid: f64 = self.pools.iter().map(|p| p.counters.gpu_hours_paid).sum();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let waits = &all.waits;
        let [p50_h, p90_h, p95_h, p99_h] = waits.percentiles_h(&[500, 900, 950, 990])[..] else {
            unreachable!("four percentiles")
        };
        let row = ReplicationRow {
            strategy: strategy_name.clone(),
            replication: self.replication,
            total_cost: month_sum(MonthTotals::cost),
            total_cost_cash: month_sum(MonthTotals::cost_cash),
            jobs_arrived: all.jobs_arrived,
            jobs_completed: all.jobs_completed,
            jobs_unfinished: all.jobs_arrived - all.jobs_completed,
            wait_mean_h: waits.mean_h(),
            wait_p95_h: p95_h,
            turnaround_mean_h: ratio(all.turnaround_sum_h, all.jobs_completed as f64),
            gpu_hours_busy: busy,
            gpu_hours_paid: paid,
            utilization: ratio(busy, paid),
            preemptions: all.preemptions,
            lost_gpu_hours: all.lost_gpu_h,
            checkpoint_gpu_hours: self.totals.checkpoint_gpu_h,
            burst_jobs: all.burst_jobs,
            failed_requests: self.pools.iter().map(|p| p.counters.failed_requests).sum(),
            deadline_misses: all.deadline_misses,
            wait_p50_h: p50_h,
            node_failures: self.totals.node_failures,
            cost_capital: month_sum(|m| m.cost_capital),
            cost_capital_cash: month_sum(|m| m.cost_capital_cash),
            cost_energy: month_sum(|m| m.cost_energy),
            cost_operations: month_sum(|m| m.cost_operations),
            cost_reserved: month_sum(|m| m.cost_reserved),
            cost_on_demand: month_sum(|m| m.cost_on_demand),
            cost_spot: month_sum(|m| m.cost_spot),
            break_even_months: f64::NAN,
            jobs_unstarted: waits.censored(),
            wait_p90_h: p90_h,
            wait_p99_h: p99_h,
            wait_max_h: waits.max_h(),
            wait_p95_lower_bound: accounts::flag(waits.is_lower_bound(950)),
        };
        let pools = self
            .pools
            .iter()
            .map(|state| {
                let c = &state.counters;
                PoolRow {
                    strategy: strategy_name.clone(),
                    replication: self.replication,
                    pool: state.pool.name.clone(),
                    pool_type: state.pool.type_name().to_string(),
                    gpu_hours_busy: c.gpu_hours_busy,
                    gpu_hours_paid: c.gpu_hours_paid,
                    cost: c.cost,
                    cost_cash: c.cost_cash,
                    utilization: ratio(c.gpu_hours_busy, c.gpu_hours_paid),
                    jobs_started: c.jobs_started,
                    preemptions: c.preemptions,
                    failed_requests: c.failed_requests,
                    nodes_requested: c.nodes_requested,
                    nodes_preempted: c.nodes_preempted,
                    node_failures: c.node_failures,
                    gpu_hours_down: c.gpu_hours_down,
                }
            })
            .collect();
        let pool_months = self
            .pools
            .iter()
            .map(|state| state.by_month.clone())
            .collect();
        let (workloads, teams, unallocated) = group_rows(&totals, row.total_cost, paid - busy);
        let mut jobs = self.trace.unwrap_or_default();
        jobs.sort_by_key(|row| row.job);
        UnitResult {
            strategy: self.strategy_idx,
            replication: self.replication,
            row,
            pools,
            months: self.months,
            pool_months,
            workloads,
            teams,
            unallocated,
            jobs,
            events,
        }
    }
}

/// Rows per workload and per team, with their cost shares, and what is left unallocated:
/// the rest of the strategy's cost, and its idle paid GPU-hours.
fn group_rows(
    totals: &accounts::Totals,
    total_cost: f64,
    gpu_hours_idle: f64,
) -> (Vec<GroupRow>, Vec<GroupRow>, Unallocated) {
    let rows = |counts: &[accounts::JobCounts], costs: &[f64]| -> Vec<GroupRow> {
        counts
            .iter()
            .zip(costs)
            .map(|(c, cost)| c.row(*cost))
            .collect()
    };
    let unallocated = Unallocated {
        // Workload and team shares sum to the same.
        cost: total_cost - totals.workload_costs.iter().sum::<f64>(),
        gpu_hours_idle,
    };
    (
        rows(&totals.workloads, &totals.workload_costs),
        rows(&totals.teams, &totals.team_costs),
        unallocated,
    )
}

fn add_owned(
    month: &mut MonthTotals,
    owned: &OwnedMonth,
    counters: &mut PoolCounters,
    pool_month: &mut PoolMonth,
) {
    month.cost_capital += owned.capital;
    month.cost_capital_cash += owned.capital_cash;
    month.cost_energy += owned.energy;
    month.cost_operations += owned.operations;
    month.cost_reserved += owned.reserved;
    month.gpu_hours_paid += owned.paid_gpu_h;
    let running = owned.energy + owned.operations + owned.reserved;
    counters.cost += owned.capital + running;
    counters.cost_cash += owned.capital_cash + running;
    counters.gpu_hours_paid += owned.paid_gpu_h;
    pool_month.gpu_hours_paid += owned.paid_gpu_h;
    pool_month.cost += owned.capital + running;
    pool_month.cost_cash += owned.capital_cash + running;
}

/// The hourly rate per GPU at which a job's use of a pool is costed in `jobs.csv`: the price
/// for cloud pools; for on-prem, amortised capital, operations and full-load energy per
/// GPU-hour of a fully used month.
fn job_rate_per_gpu_h(pool: &Pool, month_mean_h: f64) -> f64 {
    let per_node = f64::from(pool.gpus_per_node);
    match &pool.kind {
        PoolKind::OnPrem(p) => {
            let monthly = p.capex_per_node * (1.0 - p.residual_fraction)
                / f64::from(p.amortization_months)
                + p.opex_per_node_month;
            monthly / (per_node * month_mean_h)
                + p.power_kw_per_node / per_node * p.pue * p.electricity_per_kwh
        }
        PoolKind::Reserved(r) => r.effective_price_per_gpu_h(),
        PoolKind::OnDemand(e) | PoolKind::Spot(e, _) => e.price_per_gpu_h,
    }
}

impl engine::Model for FleetSim<'_> {
    type Event = Event;

    fn handle(&mut self, event: Event, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        match event {
            Event::Arrival { workload } => self.arrive(workload as usize, sim),
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
            Event::NodeFails { pool, node } => self.node_fails(pool as usize, node, sim),
            Event::NodeRepaired { pool, node } => {
                self.pools[pool as usize].nodes.bring_up(node);
                self.schedule_failure(pool as usize, node, sim);
                self.pass_needed = true;
            }
            Event::CapacityOn { pool } => {
                self.capacity_on(pool as usize, sim);
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
            Event::Wake => self.pass_needed = true,
        }
        if self.pass_needed {
            self.pass(sim);
        }
    }
}
