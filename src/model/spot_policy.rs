//! What a job does when spot fails it (`spot_policy`): stay with the pool, try
//! other zones or regions first, or, for jobs with a deadline, one of the rules of the "Can't
//! Be Late" study (Wu et al., NSDI '24).
//!
//! The deadline rules, for a job of work `C` with deadline `D` after its arrival `a`, reckon
//! with the strategy's first on-demand pool and first spot pool that take its GPU type:
//! - the line (the study's expected progress, section 5.2.1): the job should have done at
//!   least `C * (t - a) / D'` by time `t`, where `D' = D - (on-demand overhead)`;
//! - the safety net (section 3.3): spot closes to the job once the slack left (`a + D - t` less
//!   its on-demand run with restore, checkpoints and provisioning) could no longer absorb one
//!   more spot loss (spot provisioning, one checkpoint interval and write of lost work, and a
//!   restore) plus `deadline_safety_h`; from then on on-demand is open to it;
//! - `greedy` (section 3.4): a waiting job waits for spot until the safety net closes it, then
//!   goes on-demand and stays there to the end;
//! - `uniform_progress_plain` (section 5.2.2, rules 1 and 2): a waiting job takes spot whenever
//!   spot has room, and on-demand too once it is behind the line; on on-demand, when spot
//!   capacity returns and the safety net still allows spot, it moves back at its next
//!   completed checkpoint (nothing is lost), or at once if its run has not begun (its
//!   on-demand nodes are still being provisioned);
//! - `deadline_aware` (section 5.2.2 with rule 3, the hysteresis): as the plain rule, but a job
//!   on on-demand moves back to spot only once its progress is ahead of the line by the two
//!   changeovers a return to spot risks: its progress at the checkpoint must reach the line at
//!   `t + d_spot + d_back`, with `d_spot` the spot provisioning and restore, `d_back` the
//!   on-demand provisioning and restore plus one checkpoint interval and write of work lost.
//!
//! They assume the operator knows each job's remaining work and deadline, and that spot and
//! on-demand run it at the speeds the scenario gives.

use super::*;
use crate::scenario::SpotPolicy;

/// A migration is handled just after the checkpoint it waits for, so nothing is lost.
const AFTER_CHECKPOINT_H: f64 = 1e-9;

/// A waiting job's place against its deadline rule, hours.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    /// When the job falls behind the line (with its progress now).
    behind_h: f64,
    /// When the safety net closes spot to it.
    spot_until_h: f64,
    /// The hysteresis margin: what a return to spot and a loss there cost in time.
    hysteresis_h: f64,
}

impl<'c> FleetSim<'c> {
    /// Spot pool `sp` preempted or refused the job: the policy's reaction.
    pub(super) fn after_spot_loss(&mut self, slot: u32, sp: usize) {
        if !self.pools[sp].facts.spot {
            return;
        }
        let key = |state: &PoolState<'_>, policy: SpotPolicy| match policy {
            SpotPolicy::NextRegion => state.pool.region_key().to_string(),
            _ => state.pool.zone_key().to_string(),
        };
        match self.strategy.spot_policy {
            SpotPolicy::Stay => self.jobs[slot as usize].pinned = sp as u16,
            policy @ (SpotPolicy::NextZone | SpotPolicy::NextRegion) => {
                let lost = key(&self.pools[sp], policy);
                let prefer = self
                    .pools
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| q.facts.spot && key(q, policy) != lost)
                    .fold(0u64, |mask, (q, _)| mask | (1 << q));
                self.jobs[slot as usize].prefer = prefer;
            }
            SpotPolicy::Failover
            | SpotPolicy::FallbackAfter
            | SpotPolicy::DeadlineAware
            | SpotPolicy::UniformProgressPlain
            | SpotPolicy::Greedy => {}
        }
    }

    /// The pools the deadline rules reckon with for a job: the first on-demand pool and the
    /// first spot pool of the strategy that the job may use (of a pool's instance sizes, the
    /// first that holds its gang).
    fn deadline_pools(&self, slot: u32) -> Option<(usize, usize)> {
        let job = &self.jobs[slot as usize];
        let (usable, gpus) = (self.limits.usable_pools[job.workload as usize], job.gpus);
        let first = |wanted: fn(&PoolFacts) -> bool| {
            (self.pools.iter().enumerate()).position(|(sp, p)| {
                usable & (1u64 << sp) != 0 && gpus <= p.gang_gpus_max && wanted(&p.facts)
            })
        };
        let on_demand = first(|f| f.elastic && !f.spot)?;
        let spot = first(|f| f.spot)?;
        Some((on_demand, spot))
    }

    /// Hours the job needs on pool `sp` from a request: provisioning and its whole run.
    fn run_need_h(&self, slot: u32, sp: usize) -> (RunPlan, f64) {
        let state = &self.pools[sp];
        let gpus = self.jobs[slot as usize].gpus;
        let nodes = gpus.div_ceil(state.pool.gpus_per_node).max(1) as usize;
        let plan = self.run_plan(slot, sp, nodes);
        let provisioning_h = state.pool.elastic().map_or(0.0, |e| e.provisioning_h);
        (plan, provisioning_h)
    }

    /// The job's place against its deadline rule, from its remaining work now (none: no
    /// deadline rule applies to it).
    fn deadline_schedule(&self, slot: u32) -> Option<Schedule> {
        if !self.strategy.spot_policy.is_deadline_rule() {
            return None;
        }
        let job = &self.jobs[slot as usize];
        let deadline_h = self.config.workloads[job.workload as usize].deadline_h?;
        let (od, spot) = self.deadline_pools(slot)?;
        let (od_plan, od_provisioning_h) = self.run_need_h(slot, od);
        let od_need_h = od_plan.total_h() + od_provisioning_h;
        let (spot_plan, spot_provisioning_h) = self.run_need_h(slot, spot);
        // What one more spot loss costs beyond the on-demand run: the spot request and
        // restore, the work since the last checkpoint (one interval and a write at most), and
        // a restore on on-demand if that run would not have one anyway. Checkpoint writes
        // happen on both.
        let restart_h = self.config.workloads[job.workload as usize]
            .checkpoint_of(job.spec)
            .filter(|_| self.strategy.checkpointing)
            .map_or(0.0, |c| c.restart_h);
        let lost_h = spot_plan.every_h.min(spot_plan.work_h) + spot_plan.write_h;
        let spot_loss_h = spot_provisioning_h
            + spot_plan.restore_h
            + spot_plan.every_h.min(spot_plan.work_h)
            + spot_plan.write_h
            + (restart_h - od_plan.restore_h).max(0.0);
        let due_h = job.arrival_h + deadline_h;
        let spot_until_h = due_h - od_need_h - spot_loss_h - self.strategy.deadline_safety_h;
        let od_overhead_h = od_need_h - od_plan.work_h;
        let line_h = (deadline_h - od_overhead_h).max(0.0);
        let done = 1.0 - job.remaining_ref_h / job.work_ref_h.max(f64::MIN_POSITIVE);
        // The two changeovers of a move to spot that goes wrong: to spot (provisioning and
        // restore), and back to on-demand (provisioning, restore and the work lost on spot).
        let to_spot_h = spot_provisioning_h + restart_h;
        let back_h = od_provisioning_h + restart_h + lost_h;
        Some(Schedule {
            behind_h: job.arrival_h + line_h * done,
            spot_until_h,
            hysteresis_h: to_spot_h + back_h,
        })
    }

    /// `(on-demand opens, spot closes)` for a waiting job under a deadline rule, hours.
    // Inline: every job entering the queue asks, and most strategies have no deadline rule.
    #[inline]
    fn deadline_times(&self, slot: u32) -> Option<(f64, f64)> {
        if !self.strategy.spot_policy.is_deadline_rule() {
            return None;
        }
        let schedule = self.deadline_schedule(slot)?;
        let spot_until_h = schedule.spot_until_h;
        let od_from_h = match self.strategy.spot_policy {
            // On-demand only once spot has closed, and then to the end.
            SpotPolicy::Greedy => spot_until_h,
            // Once spot closes, on-demand must be open whatever the line says.
            _ => schedule.behind_h.min(spot_until_h),
        };
        Some((od_from_h, spot_until_h))
    }

    /// Sets when on-demand opens and spot closes to a job entering the queue, with timers.
    pub(super) fn plan_deadline(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let times = self.deadline_times(slot);
        let job = &mut self.jobs[slot as usize];
        // No deadline rule applies: both open for good, and no timer.
        let Some((od_from_h, spot_until_h)) = times else {
            (job.od_from_h, job.spot_until_h) = (f64::NEG_INFINITY, f64::INFINITY);
            return;
        };
        job.od_from_h = od_from_h;
        job.spot_until_h = spot_until_h;
        let now_h = sim.now_h();
        let run = job.run;
        for (i, at_h) in [od_from_h, spot_until_h].into_iter().enumerate() {
            // Under `greedy` both are one time: one timer does.
            if i == 1 && at_h == od_from_h {
                continue;
            }
            if at_h > now_h && at_h.is_finite() {
                self.class_timers.push(Reverse((at_h.to_bits(), slot, run)));
                sim.schedule_at(at_h, Event::Wake);
            }
        }
    }

    /// Spot came back: jobs on on-demand plan their move to spot, under the rules that move
    /// back.
    pub(super) fn plan_moves_to_spot(&mut self, sim: &mut Sim<Event>) {
        for slot in 0..self.jobs.len() as u32 {
            let job = &self.jobs[slot as usize];
            if !job.in_use || job.pool == NO_POOL || job.move_run == Some(job.run) {
                continue;
            }
            let facts = self.pools[job.pool as usize].facts;
            if !facts.elastic || facts.spot {
                continue;
            }
            self.plan_move(slot, sim);
        }
    }

    /// Plans the job's move from on-demand to spot for the first time after now that its rule
    /// allows (none: its run ends first).
    fn plan_move(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let Some(at_h) = self.first_move_h(slot, sim.now_h()) else {
            return;
        };
        let job = &mut self.jobs[slot as usize];
        job.move_run = Some(job.run);
        let run = job.run;
        sim.schedule_at(at_h, Event::MoveToSpot { job: slot, run });
    }

    /// When the job could leave its on-demand run for spot without losing work: now if the
    /// run has not begun (its nodes are still being provisioned), else at a completed
    /// checkpoint; under `deadline_aware` the first such time at which the hysteresis holds.
    fn first_move_h(&mut self, slot: u32, now_h: f64) -> Option<f64> {
        let job = &self.jobs[slot as usize];
        self.config.workloads[job.workload as usize].deadline_h?;
        let (plan, run_start_h) = (job.plan, job.run_start_h);
        let hysteresis = self.strategy.spot_policy == SpotPolicy::DeadlineAware;
        if now_h < run_start_h && (!hysteresis || self.hysteresis_holds(slot, now_h, 0.0)) {
            return Some(now_h);
        }
        let cycle_h = plan.every_h + plan.write_h;
        if !cycle_h.is_finite() {
            return None;
        }
        // The first checkpoint to complete after now.
        let into_h = now_h - run_start_h - plan.restore_h;
        let first = if into_h < 0.0 {
            1
        } else {
            (into_h / cycle_h).floor() as u64 + 1
        };
        let at = |k: u64| run_start_h + plan.restore_h + k as f64 * cycle_h + AFTER_CHECKPOINT_H;
        // One check per checkpoint left, the loop's bound.
        for k in first..=plan.writes() {
            if !hysteresis || self.hysteresis_holds(slot, at(k), k as f64 * plan.every_h) {
                return Some(at(k));
            }
        }
        None
    }

    /// Whether the job, on its current on-demand run, would at `at_h` (having saved
    /// `saved_work_h` hours of work on this run) be ahead of the line by the hysteresis
    /// margin: the study's `cp(t) >= ep(t + 2d)`.
    fn hysteresis_holds(&mut self, slot: u32, at_h: f64, saved_work_h: f64) -> bool {
        let began = at_h >= self.jobs[slot as usize].run_start_h;
        self.after_stop(slot, saved_work_h, began, |model| {
            model
                .deadline_schedule(slot)
                .is_some_and(|s| at_h + s.hysteresis_h <= s.behind_h)
        })
    }

    /// `look` on the job as it would be if its run stopped having saved `saved_work_h`
    /// hours of work on its pool (and needing a restore if the run had begun).
    fn after_stop<T>(
        &mut self,
        slot: u32,
        saved_work_h: f64,
        began: bool,
        look: impl FnOnce(&Self) -> T,
    ) -> T {
        let job = &self.jobs[slot as usize];
        let slowdown =
            self.pools[job.pool as usize].slowdown[job.workload as usize] * self.count_factor(slot);
        let (remaining, needs_restore) = (job.remaining_ref_h, job.needs_restore);
        let job = &mut self.jobs[slot as usize];
        job.remaining_ref_h = (remaining - saved_work_h / slowdown).max(0.0);
        job.needs_restore = needs_restore || began;
        let seen = look(self);
        let job = &mut self.jobs[slot as usize];
        job.remaining_ref_h = remaining;
        job.needs_restore = needs_restore;
        seen
    }

    /// A job on on-demand reached its planned move: it leaves on-demand for spot if spot has
    /// room and its rule still allows it (the safety net, and under `deadline_aware` the
    /// hysteresis: if that does not hold yet, the move is planned again for later).
    pub(super) fn move_to_spot(&mut self, slot: u32, run: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let job = &self.jobs[slot as usize];
        if !job.in_use || job.run != run || job.pool == NO_POOL {
            return;
        }
        // This plan is spent: whatever happens now, a later rise of spot capacity may plan
        // another move for this run.
        self.jobs[slot as usize].move_run = None;
        let Some((_, spot)) = self.deadline_pools(slot) else {
            return;
        };
        let job = &self.jobs[slot as usize];
        let nodes = job.gpus.div_ceil(self.pools[spot].pool.gpus_per_node) as usize;
        if self.capacity_refuses(spot, nodes) || !self.pools[spot].open {
            return;
        }
        // The work saved once this run stops now (at its checkpoint, or before it began).
        let began = now_h >= job.run_start_h;
        let saved_h = job
            .plan
            .interrupted_after(now_h - job.run_start_h)
            .saved_work_h;
        let hysteresis = self.strategy.spot_policy == SpotPolicy::DeadlineAware;
        let (allowed, ahead) = self.after_stop(slot, saved_h, began, |model| {
            model.deadline_schedule(slot).map_or((false, false), |s| {
                (now_h < s.spot_until_h, now_h + s.hysteresis_h <= s.behind_h)
            })
        });
        if allowed && (ahead || !hysteresis) {
            self.interrupt(slot, Cause::Migration, sim);
        } else if allowed {
            self.plan_move(slot, sim);
        }
    }
}
