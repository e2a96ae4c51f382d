//! Scheduling policy: the order in which waiting jobs are considered, which of a strategy's
//! pools a job may try now, and whether a job that cannot be placed blocks the ones behind it.
//!
//! The mechanics of placing a job on a pool (free GPUs, node requests, billing) belong to the
//! model; this module only decides.

use crate::scenario::{Queue, Strategy, Workload};

/// A waiting job's place in the queue: compared as a tuple, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct QueueKey {
    /// Under `priority`: higher priority first, or with aging the arrival time less the hours
    /// its priority is worth, in microhours (see [`QueueKey::new`]); 0 otherwise.
    pub rank: i64,
    /// Arrival order (job number), kept when an interrupted job returns to the queue.
    pub arrival_seq: u64,
    /// The job's slot in the model.
    pub slot: u32,
}

impl QueueKey {
    /// The key of a job of `priority` arriving at `arrival_h`. Under `priority` with aging
    /// (`aging_h`: hours of waiting worth one priority level), a job's effective priority
    /// `priority + (now - arrival_h) / aging_h` grows as it waits; since `now` is common to all
    /// jobs, ordering by it is ordering by `arrival_h - priority * aging_h`, a key that never
    /// changes. So a job is passed by higher-priority work only while that work arrived less
    /// than `(difference in priority) * aging_h` after it: no class starves. Without aging
    /// (`None`) the order is strict priority, then arrival.
    pub fn new(
        queue: Queue,
        priority: i64,
        aging_h: Option<f64>,
        arrival_h: f64,
        arrival_seq: u64,
        slot: u32,
    ) -> Self {
        let rank = match (queue, aging_h) {
            // `as` saturates: a priority worth more than ~290,000 years stays in range.
            (Queue::Priority, Some(aging_h)) => {
                ((arrival_h - priority as f64 * aging_h) * MICROHOURS_PER_H).round() as i64
            }
            (Queue::Priority, None) => priority.saturating_neg(),
            (Queue::Fifo | Queue::Backfill | Queue::FirstFit, _) => 0,
        };
        Self {
            rank,
            arrival_seq,
            slot,
        }
    }
}

const MICROHOURS_PER_H: f64 = 1e6;

/// Whether later jobs may start when this one cannot (every discipline but `fifo`).
pub fn backfills(queue: Queue) -> bool {
    !matches!(queue, Queue::Fifo)
}

/// Whether the first job that cannot start gets a reservation that later jobs must not delay
/// (EASY backfill: `backfill` and `priority`; `first_fit` lets any job that fits pass).
pub fn reserves(queue: Queue) -> bool {
    matches!(queue, Queue::Backfill | Queue::Priority)
}

/// What a job brings to the question "may it use this pool now?".
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub workload: &'a Workload,
    /// The job has waited its burst threshold (see [`burst_from_h`]) since it last queued.
    pub burst_due: bool,
    pub preemptions: u32,
    /// The job may ask this pool again from this time (after a refused request), hours.
    pub retry_from_h: f64,
    /// On-demand pools are open to it (the deadline rules may close them while the job is
    /// ahead of its schedule).
    pub on_demand_open: bool,
    /// Spot pools are closed to it (the deadline rules: its slack could not absorb a loss).
    pub spot_closed: bool,
}

/// The pool facts the decision needs.
#[derive(Debug, Clone, Copy)]
pub struct PoolFacts {
    pub gpu: usize,
    pub elastic: bool,
    pub spot: bool,
}

/// When an elastic pool becomes eligible for a job of `workload` queued at `queued_h` (None:
/// never): the workload's own burst threshold, else the strategy's.
pub fn burst_from_h(strategy: &Strategy, workload: &Workload, queued_h: f64) -> Option<f64> {
    (workload.burst_after_wait_h_under(strategy)).map(|wait_h| queued_h + wait_h)
}

/// Whether the job may try the pool at `now_h`.
pub fn may_try(strategy: &Strategy, job: Candidate<'_>, pool: PoolFacts, now_h: f64) -> bool {
    if job.workload.accepts_mask & (1u64 << pool.gpu) == 0 || now_h < job.retry_from_h {
        return false;
    }
    if pool.elastic && !job.burst_due {
        return false;
    }
    if pool.spot && (job.spot_closed || !spot_open(strategy, job.workload, job.preemptions)) {
        return false;
    }
    if pool.elastic && !pool.spot && !job.on_demand_open {
        return false;
    }
    true
}

/// Which of a strategy's pools are elastic, spot and on-demand (bit per strategy pool).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolKinds {
    pub elastic: u64,
    pub spot: u64,
    pub on_demand: u64,
}

impl PoolKinds {
    /// The kinds of `pools`, in strategy order (at most 64).
    pub fn of(pools: impl IntoIterator<Item = PoolFacts>) -> Self {
        pools
            .into_iter()
            .enumerate()
            .fold(Self::default(), |kinds, (sp, facts)| {
                let bit = 1u64 << sp;
                Self {
                    elastic: kinds.elastic | if facts.elastic { bit } else { 0 },
                    spot: kinds.spot | if facts.spot { bit } else { 0 },
                    on_demand: kinds.on_demand | if facts.elastic && !facts.spot { bit } else { 0 },
                }
            })
    }
}

/// The pools of `kinds` that [`may_try`] leaves open to the job for all it says but its GPU
/// types and retry timers (which the caller masks per pool): [`may_try`] for every pool at once.
pub fn open_pools(strategy: &Strategy, job: Candidate<'_>, kinds: PoolKinds) -> u64 {
    let mut closed = 0;
    if !job.burst_due {
        closed |= kinds.elastic;
    }
    if job.spot_closed || !spot_open(strategy, job.workload, job.preemptions) {
        closed |= kinds.spot;
    }
    if !job.on_demand_open {
        closed |= kinds.on_demand;
    }
    !closed
}

/// Whether spot pools are open to a job of `workload` preempted `preemptions` times.
pub fn spot_open(strategy: &Strategy, workload: &Workload, preemptions: u32) -> bool {
    let fallen_back = strategy
        .spot_fallback_after
        .is_some_and(|after| preemptions >= after);
    let kept_off = strategy.deadline_jobs_off_spot && workload.deadline_h.is_some();
    !fallen_back && !kept_off
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ArrivalProfile, DurationDist, GpuMix};

    fn workload(deadline_h: Option<f64>) -> Workload {
        Workload {
            name: "w".into(),
            arrivals: ArrivalProfile {
                arrivals_per_day: 1.0,
                daily: [1.0; 24],
                weekly: [1.0; 7],
                growth_per_month: 0.0,
                times_h: Vec::new(),
            },
            gpus: GpuMix::fixed(1),
            duration_h: DurationDist::Fixed { value_h: 1.0 },
            gpu: 0,
            accepts_mask: 0b01,
            gpu_speed: vec![1.0, 1.0],
            own_gpu_speed: false,
            scaling: None,
            mixed_precision_speedup: 1.0,
            checkpoint: None,
            deadline_h,
            pools: None,
            burst_after_wait_h: None,
            priority: 0,
            team: String::new(),
            team_idx: 0,
            checkpoint_gb: 0.0,
            dataset_gb: 0.0,
            trace: None,
        }
    }

    fn strategy() -> Strategy {
        Strategy {
            name: "s".into(),
            pools: vec![0],
            burst_after_wait_h: Some(2.0),
            queue: Queue::Fifo,
            priority_aging_h: None,
            spot_fallback_after: Some(2),
            spot_policy: crate::scenario::SpotPolicy::FallbackAfter,
            deadline_safety_h: 0.0,
            mixed_precision: false,
            elastic: false,
            deadline_jobs_off_spot: true,
            checkpointing: true,
            placement: None,
            service_pools: vec![0],
            service_preempts: true,
            reserve_gpus: Vec::new(),
        }
    }

    const OWNED: PoolFacts = PoolFacts {
        gpu: 0,
        elastic: false,
        spot: false,
    };
    const SPOT: PoolFacts = PoolFacts {
        gpu: 0,
        elastic: true,
        spot: true,
    };

    #[test]
    fn elastic_pools_wait_for_the_burst_threshold() {
        let w = workload(None);
        let job = Candidate {
            workload: &w,
            burst_due: false,
            preemptions: 0,
            retry_from_h: 0.0,
            on_demand_open: true,
            spot_closed: false,
        };
        assert!(may_try(&strategy(), job, OWNED, 10.0));
        assert!(!may_try(&strategy(), job, SPOT, 11.9));
        assert!(may_try(
            &strategy(),
            Candidate {
                burst_due: true,
                ..job
            },
            SPOT,
            12.0
        ));
        assert_eq!(burst_from_h(&strategy(), &w, 10.0), Some(12.0));
        let never = Strategy {
            burst_after_wait_h: None,
            ..strategy()
        };
        assert_eq!(burst_from_h(&never, &w, 10.0), None);
        // A workload's own threshold wins over the strategy's, "never" included.
        let at_once = Workload {
            burst_after_wait_h: Some(Some(0.0)),
            ..workload(None)
        };
        assert_eq!(burst_from_h(&never, &at_once, 10.0), Some(10.0));
        let kept_off = Workload {
            burst_after_wait_h: Some(None),
            ..workload(None)
        };
        assert_eq!(burst_from_h(&strategy(), &kept_off, 10.0), None);
    }

    #[test]
    fn open_pools_is_may_try_for_every_pool_at_once() {
        let facts = [
            OWNED,
            SPOT,
            PoolFacts {
                gpu: 0,
                elastic: true,
                spot: false,
            },
        ];
        let kinds = PoolKinds::of(facts);
        assert_eq!(
            kinds,
            PoolKinds {
                elastic: 0b110,
                spot: 0b010,
                on_demand: 0b100
            }
        );
        let (plain, urgent) = (workload(None), workload(Some(24.0)));
        for case in 0..64u32 {
            let bit = |b: u32| case & (1 << b) != 0;
            let job = Candidate {
                workload: if bit(0) { &urgent } else { &plain },
                burst_due: bit(1),
                preemptions: u32::from(bit(2)) * 2,
                retry_from_h: 0.0,
                on_demand_open: bit(3),
                spot_closed: bit(4),
            };
            let strategy = Strategy {
                deadline_jobs_off_spot: bit(5),
                ..strategy()
            };
            let open = open_pools(&strategy, job, kinds);
            for (sp, pool) in facts.iter().enumerate() {
                assert_eq!(
                    open & (1 << sp) != 0,
                    may_try(&strategy, job, *pool, 1.0),
                    "case {case:#b}, pool {sp}"
                );
            }
        }
    }

    #[test]
    fn spot_is_left_after_fallback_and_for_deadlines() {
        let w = workload(None);
        let job = Candidate {
            workload: &w,
            burst_due: true,
            preemptions: 2,
            retry_from_h: 0.0,
            on_demand_open: true,
            spot_closed: false,
        };
        assert!(!may_try(&strategy(), job, SPOT, 5.0));
        assert!(may_try(
            &strategy(),
            Candidate {
                preemptions: 1,
                ..job
            },
            SPOT,
            5.0
        ));
        let urgent = workload(Some(24.0));
        let job = Candidate {
            workload: &urgent,
            preemptions: 0,
            ..job
        };
        assert!(!may_try(&strategy(), job, SPOT, 5.0));
        assert!(may_try(
            &Strategy {
                deadline_jobs_off_spot: false,
                ..strategy()
            },
            job,
            SPOT,
            5.0
        ));
    }

    #[test]
    fn gpu_types_and_retry_timers_are_respected() {
        let w = workload(None);
        let job = Candidate {
            workload: &w,
            burst_due: true,
            preemptions: 0,
            retry_from_h: 3.0,
            on_demand_open: true,
            spot_closed: false,
        };
        assert!(!may_try(&strategy(), job, OWNED, 2.9));
        assert!(may_try(&strategy(), job, OWNED, 3.0));
        assert!(!may_try(
            &strategy(),
            job,
            PoolFacts { gpu: 1, ..OWNED },
            3.0
        ));
    }

    #[test]
    fn priority_orders_by_priority_then_arrival() {
        let low_early = QueueKey::new(Queue::Priority, 0, None, 1.0, 1, 0);
        let high_late = QueueKey::new(Queue::Priority, 5, None, 1000.0, 2, 1);
        assert!(high_late < low_early);
        let fifo_early = QueueKey::new(Queue::Fifo, 0, None, 1.0, 1, 0);
        let fifo_late = QueueKey::new(Queue::Fifo, 5, None, 2.0, 2, 1);
        assert!(fifo_early < fifo_late);
        assert!(!backfills(Queue::Fifo));
        assert!(backfills(Queue::Backfill) && backfills(Queue::Priority));
    }

    #[test]
    fn aging_lets_a_waiting_job_overtake_later_higher_priority_work() {
        // One level is worth 24 h: a priority-2 job is passed by priority-3 jobs that arrive
        // less than 24 h after it, and passes those that arrive later.
        let key = |priority, arrival_h: f64, seq| {
            QueueKey::new(Queue::Priority, priority, Some(24.0), arrival_h, seq, 0)
        };
        let waiting = key(2, 10.0, 1);
        assert!(key(3, 33.9, 2) < waiting);
        assert!(waiting < key(3, 34.1, 3));
        // Exactly 24 h later the two are equal in rank; arrival order decides.
        assert!(waiting < key(3, 34.0, 4));
        assert_eq!(key(3, 34.0, 4).rank, waiting.rank);
        // Huge priorities saturate instead of wrapping.
        assert_eq!(key(i64::MAX, 0.0, 5).rank, i64::MIN);
        assert_eq!(key(i64::MIN, 0.0, 7).rank, i64::MAX);
    }
}
