//! EASY backfill in the model: the reservation of the first job a pass cannot place, worked out
//! (with [`super::reservation`]) only when a later job could start, and kept while nothing
//! changes.

use super::scheduling::pools_of;
use super::*;

/// The reservation of EASY backfill: the first job of the last pass that found no room, and
/// (once a later job needs to know) where and when it will start.
#[derive(Debug, Clone)]
pub(super) struct Reserved {
    pub(super) slot: u32,
    pub(super) key: QueueKey,
    /// The job's wait-queue class (which pools are open to it).
    pub(super) class: usize,
    pub(super) held: Held,
}

/// What a reservation holds. Working it out walks the runs of the pools, so it waits until a
/// later job could start on a pool; in a full fleet, no job can, and it is never needed.
#[derive(Debug, Clone)]
pub(super) enum Held {
    Unknown,
    /// Worked out when the nodes' changes were `changes`: while they and the job's class stay,
    /// so does the reservation.
    Known {
        changes: u64,
        on: Option<Holding>,
    },
}

impl Held {
    /// Whether a pass may give this on as it is, the nodes' changes being `changes`: not
    /// worked out yet, or worked out on the nodes as they are with its start still to come
    /// (once it has come, the job must start now, or something unforeseen happened).
    pub(super) fn still_holds(&self, changes: u64, now_h: f64) -> bool {
        match self {
            Held::Unknown => true,
            Held::Known { changes: c, on } => {
                *c == changes && on.as_ref().is_none_or(|h| h.reservation.shadow_h > now_h)
            }
        }
    }
}

/// A reservation on one strategy pool.
#[derive(Debug, Clone)]
pub(super) struct Holding {
    pub(super) pool: usize,
    pub(super) reservation: Reservation,
}

/// A job of a class that the reservation turned away in this pass: its run, and the state of
/// the pass it met. A job of the same class whose run is no shorter, meeting the same state, is
/// turned away too, so a pass need not try it (its planned end only grows with the work left,
/// for jobs that asked for as many GPUs).
///
/// The state that matters: the pool the reservation holds (`held_pool`) exactly as it was,
/// and no more room on the other pools the job may try. Jobs placed elsewhere in the pass
/// since only took GPUs there, which changes nothing for it (unless they brought up nodes).
#[derive(Debug, Clone)]
pub(super) struct HeldMemo {
    class: usize,
    /// The reservation's pool, and its nodes' changes when the job was tried.
    held_pool: usize,
    held_pool_changes: u64,
    /// The other pools the job may try (bit per strategy pool), and their room then (see
    /// `room_of`).
    others: u64,
    others_room: (u64, u64),
    /// The pools the job could try (bit per strategy pool).
    triable: u64,
    /// Per kind of run (see [`run_kind`]: a restore first or not, checkpoints or not), the
    /// least work of a job of the class known to be turned away (infinite: none yet): a job
    /// of that kind with no less work is turned away too, as its run only grows with it.
    held_work_ref_h: [f64; 4],
    /// The GPUs the memo's jobs asked for: only a job that asked for as many is told by it
    /// (an elastic gang's run on a count grows with its work and with the count it asked for;
    /// every job of a class of rigid gangs asked for the class's count).
    asked: u32,
    /// Where it was turned away (see [`HeldRun`]); `None` for an elastic gang, whose count and
    /// so its run depend on its pools' room.
    run: Option<HeldRun>,
}

/// The run the reservation turned away on its pool: when it would start and on how many nodes,
/// against the reservation's shadow time. Another job of its class would start there alike
/// (the plan depends only on the gang), so it is turned away too exactly when its own run,
/// from that start, would still end after the shadow time.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeldRun {
    pub(super) start_h: f64,
    pub(super) nodes: usize,
    pub(super) shadow_h: f64,
}

/// Jobs a pass may turn away because of the reservation before it stops trying the rest of
/// their classes (as Slurm's backfill bounds its work with `bf_max_job_test`).
pub(super) const HELD_PER_PASS_MAX: u32 = 100;

impl<'c> FleetSim<'c> {
    /// The memo of a job as `try_place` left it: a job turned away met no refusal, so
    /// `last_triable` is every pool it could try.
    fn held_memo(&self, slot: u32, class: usize) -> HeldMemo {
        let job = &self.jobs[slot as usize];
        let held_pool = self
            .held_pool()
            .expect("a job turned away by a reservation");
        let others = self.last_triable & !(1 << held_pool);
        HeldMemo {
            class,
            held_pool,
            held_pool_changes: self.pools[held_pool].nodes.changes,
            others,
            others_room: self.room_of(others),
            triable: self.with_capacity(self.last_triable, job.gpus),
            held_work_ref_h: {
                let mut held = [f64::INFINITY; 4];
                held[run_kind(self.waiting(slot))] = job.remaining_ref_h;
                held
            },
            run: (!self.strategy.elastic).then_some(self.held_run),
            asked: job.asked,
        }
    }

    /// The pools of `mask` that this pass has not found short of capacity for `gpus` GPUs.
    fn with_capacity(&self, mask: u64, gpus: u32) -> u64 {
        pools_of(mask)
            .filter(|&sp| gpus < self.no_capacity_gpus[sp])
            .fold(0, |with, sp| with | 1 << sp)
    }

    /// The pool the reservation holds GPUs on, once worked out.
    fn held_pool(&self) -> Option<usize> {
        match self.reserved.as_ref().map(|r| &r.held) {
            Some(Held::Known {
                on: Some(holding), ..
            }) => Some(holding.pool),
            _ => None,
        }
    }

    /// What the wait queue should keep of job `slot` (see [`Waiting`]).
    pub(super) fn waiting(&self, slot: u32) -> Waiting {
        let job = &self.jobs[slot as usize];
        Waiting {
            work_ref_h: job.remaining_ref_h,
            restores: job.needs_restore,
            checkpointed: (self.config.workloads[job.workload as usize])
                .checkpoint_of(job.spec)
                .is_some(),
            asked: job.asked,
        }
    }

    /// The reservation turned job `slot` away in this pass: its class remembers it (right
    /// after `try_place`, whose `last_triable` it reads).
    pub(super) fn remember_held(&mut self, slot: u32, class: usize) {
        let memo = self.held_memo(slot, class);
        match self.memo_of(class) {
            Some(at) => self.held_memos[at] = memo,
            None => {
                if class >= self.held_memo_at.len() {
                    self.held_memo_at.resize(class + 1, u32::MAX);
                }
                self.held_memo_at[class] = self.held_memos.len() as u32;
                self.held_memos.push(memo);
            }
        }
    }

    /// Where in `held_memos` the memo of `class` is, if nothing changed since it was made in
    /// this pass.
    fn current_memo_at(&self, class: usize) -> Option<usize> {
        let at = self.memo_of(class)?;
        let memo = &self.held_memos[at];
        (memo.held_pool_changes == self.pools[memo.held_pool].nodes.changes
            && memo.others_room == self.room_of(memo.others))
        .then_some(at)
    }

    /// Where in `held_memos` this pass's memo of `class` is, if it has one.
    fn memo_of(&self, class: usize) -> Option<usize> {
        let at = *self.held_memo_at.get(class)? as usize;
        self.held_memos
            .get(at)
            .is_some_and(|memo| memo.class == class)
            .then_some(at)
    }

    /// Whether job `slot` of the memo's class would be turned away as the memo's job was: a
    /// job of its kind with no more work was, or its run would still end after the shadow time
    /// where the memo's job would have started. The pools it may try are those of its class
    /// (its class changes with every timer of its own), which the memo's job could try too. A
    /// job found turned away by its run lowers the memo's work for its kind to its own, so
    /// that the next ones are told by their work alone.
    fn held_like(&mut self, at: usize, slot: u32, waiting: Waiting, now_h: f64) -> bool {
        debug_assert_eq!(
            waiting,
            self.waiting(slot),
            "what the queue keeps of job {slot}"
        );
        let memo = &self.held_memos[at];
        if waiting.asked != memo.asked {
            return false;
        }
        let kind = run_kind(waiting);
        if waiting.work_ref_h >= memo.held_work_ref_h[kind] {
            return true;
        }
        let Some(run) = memo.run else {
            return false;
        };
        let run_h = self.run_plan(slot, memo.held_pool, run.nodes).total_h();
        let held = run.start_h + run_h > run.shadow_h;
        if held {
            self.held_memos[at].held_work_ref_h[kind] = waiting.work_ref_h;
        }
        // Pools may have dropped out since (another job found them full), none come in.
        debug_assert!(
            !held || {
                let memo = &self.held_memos[at];
                let gpus = self.jobs[slot as usize].gpus;
                self.with_capacity(self.triable_pools(slot, now_h), gpus) & !memo.triable == 0
            },
            "job {slot} may try other pools than its class"
        );
        held
    }

    /// Whether job `slot` of `class` would be turned away as a job of its class was earlier in
    /// this pass (see [`HeldMemo`]): then where that memo is.
    pub(super) fn held_as_before(&mut self, slot: u32, class: usize, now_h: f64) -> Option<usize> {
        let at = self.current_memo_at(class)?;
        let waiting = self.queue.waiting(slot);
        self.held_like(at, slot, waiting, now_h).then_some(at)
    }

    /// After a job was turned away: the jobs the pass would hand out next that their classes'
    /// memos turn away alike are counted as tried and handed out in one go, as the pass would
    /// one by one (each takes one of `held_left`, and a job that takes the last, or comes once
    /// none is left, fails its class). Nothing changes while they are walked, so each class's
    /// memo is looked up once, and the jobs of one class that come next are walked as a run.
    /// Stops at the first job the memos do not tell; returns the jobs the pass may still turn
    /// away.
    pub(super) fn walk_held(&mut self, mut held_left: u32, now_h: f64) -> u32 {
        let mut known = std::mem::take(&mut self.scratch_memo_at);
        known.clear();
        // Counted here and added once: the loop calls `&mut self` methods, so a field would
        // be written back to memory at every step.
        let mut steps = 0;
        'walk: while let Some(run) = self.queue.peek_run() {
            let at = match known.iter().find(|(c, _)| *c == run.class) {
                Some(&(_, at)) => at,
                None => {
                    let at = self.current_memo_at(run.class);
                    known.push((run.class, at));
                    at
                }
            };
            let Some(at) = at else { break };
            let (mut key, mut last) = (run.key, None);
            let stop = loop {
                let waiting = self.queue.waiting(key.slot);
                if !self.held_like(at, key.slot, waiting, now_h) {
                    break true;
                }
                last = Some(key);
                steps += 1;
                held_left = held_left.saturating_sub(1);
                if held_left == 0 {
                    break false;
                }
                match self.queue.next_in_run(key, run.bound) {
                    Some(next) => key = next,
                    None => break false,
                }
            };
            if let Some(last) = last {
                self.queue.hand_out_through(run.class, last);
                if held_left == 0 {
                    self.queue.fail_class(run.class);
                }
            }
            if stop {
                break 'walk;
            }
        }
        self.scratch_memo_at = known;
        self.queue_steps += steps;
        held_left
    }

    /// What the reservation holds on pool `sp`, if it holds anything there and `slot` is behind
    /// the reserved job in queue order (worked out now if no job needed it before).
    // Inline: every placement asks, and most often there is no reservation.
    #[inline]
    pub(super) fn reservation_on(
        &mut self,
        sp: usize,
        slot: u32,
        now_h: f64,
    ) -> Option<&Reservation> {
        let reserved = self.reserved.as_ref()?;
        // Only jobs behind the reserved one in queue order must not delay it.
        if reserved.slot == slot || self.jobs[slot as usize].key < reserved.key {
            return None;
        }
        if matches!(reserved.held, Held::Unknown) {
            self.work_out_reservation(now_h);
        }
        match &self.reserved.as_ref()?.held {
            Held::Known {
                on: Some(holding), ..
            } if holding.pool == sp => Some(&holding.reservation),
            _ => None,
        }
    }

    /// Works out what the reservation holds, now that a job behind it needs to know.
    #[inline(never)]
    fn work_out_reservation(&mut self, now_h: f64) {
        let reserved_slot = self.reserved.as_ref().expect("a reservation").slot;
        let changes = self.nodes_changes();
        let on = self.reserve(reserved_slot, now_h);
        self.reserved.as_mut().expect("a reservation").held = Held::Known { changes, on };
    }

    /// The reservation's holding, known to exist.
    pub(super) fn holding_mut(&mut self) -> &mut Holding {
        match &mut self.reserved.as_mut().expect("a reservation").held {
            Held::Known {
                on: Some(holding), ..
            } => holding,
            _ => unreachable!("the reservation holds GPUs"),
        }
    }

    /// When a run on `sp` as `plan` says could start, hours: once its nodes are ready.
    pub(super) fn planned_start_h(&self, sp: usize, plan: &GangPlan, now_h: f64) -> f64 {
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
        start_h
    }

    /// A job running past the shadow time took `plan`: the reservation has that much less
    /// to spare.
    pub(super) fn hold_less(&mut self, plan: &GangPlan, gpus: u32) {
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
    pub(super) fn nodes_changes(&self) -> u64 {
        self.pools.iter().map(|p| p.nodes.changes).sum()
    }

    /// Works out a reservation for a job that found no room: on the pool where it can start
    /// earliest, from the planned ends of the runs there (none if no open pool ever can).
    pub(super) fn reserve(&mut self, slot: u32, now_h: f64) -> Option<Holding> {
        let gpus = self.jobs[slot as usize].gpus;
        let mut best: Option<(usize, Reservation)> = None;
        for sp in pools_of(self.triable_pools(slot, now_h)) {
            let state = &self.pools[sp];
            let new_nodes_allowed = match state.pool.elastic() {
                None => 0,
                // Closed (`available_from`, `available_until`): only its nodes still up.
                Some(_) if !state.open => 0,
                // Unlimited: a job is never short of room there.
                Some(elastic) => match elastic.max_nodes {
                    None => continue,
                    Some(max) => max.saturating_sub(state.nodes.up_count()),
                },
            };
            let found = self.pools[sp].nodes.reserve(gpus, new_nodes_allowed, now_h);
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
            reservation,
        })
    }
}

/// The kind of a waiting job's next run, besides its work (0..4): whether it restores a
/// checkpoint first, and whether it writes checkpoints. Runs of one kind of one class on one
/// pool grow with the work alone.
fn run_kind(waiting: Waiting) -> usize {
    usize::from(waiting.restores) * 2 + usize::from(waiting.checkpointed)
}
