//! What a job does when spot fails it (`spot_policy`): stay with the pool, try
//! other zones or regions first, or, for jobs with a deadline, the uniform-progress rule of
//! the "Can't Be Late" study (Wu et al., NSDI '24).
//!
//! `deadline_aware`, for a job of work `C` with deadline `D` after its arrival `a`:
//! - the job should have done at least `C * (t - a) / D'` by time `t`, where
//!   `D' = D - (on-demand overhead)`: while it waits and is ahead of that line it waits for
//!   spot; once behind (or once spot closes), on-demand pools open to it too;
//! - a safety net: spot closes to it once the slack left (`a + D - t` less its on-demand run
//!   with restore, checkpoints and provisioning) could no longer absorb one more spot loss
//!   (spot provisioning, one checkpoint interval and write of lost work, and a restore) plus
//!   `deadline_safety_h`;
//! - on on-demand, when spot capacity returns and the safety net still allows spot, the job
//!   moves back at its next completed checkpoint (nothing is lost).
//!
//! It assumes the operator knows each job's remaining work and deadline, and that spot and
//! on-demand run it at the speeds the scenario gives.

use super::*;
use crate::scenario::SpotPolicy;

/// A migration is handled just after the checkpoint it waits for, so nothing is lost.
const AFTER_CHECKPOINT_H: f64 = 1e-9;

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
            SpotPolicy::Failover | SpotPolicy::FallbackAfter | SpotPolicy::DeadlineAware => {}
        }
    }

    /// The pools `deadline_aware` reckons with for a job: the first on-demand pool and the
    /// first spot pool of the strategy that take its GPU type.
    fn deadline_pools(&self, slot: u32) -> Option<(usize, usize)> {
        let job = &self.jobs[slot as usize];
        let accepts = self.config.workloads[job.workload as usize].accepts_mask;
        let takes = |p: &PoolState<'_>| accepts & (1u64 << p.facts.gpu) != 0;
        let on_demand = self
            .pools
            .iter()
            .position(|p| p.facts.elastic && !p.facts.spot && takes(p))?;
        let spot = self.pools.iter().position(|p| p.facts.spot && takes(p))?;
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

    /// `(on-demand opens, spot closes)` for a waiting job under `deadline_aware`, hours.
    fn deadline_times(&self, slot: u32) -> Option<(f64, f64)> {
        if self.strategy.spot_policy != SpotPolicy::DeadlineAware {
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
        // Once spot closes, on-demand must be open whatever the line says.
        let od_from_h = (job.arrival_h + line_h * done).min(spot_until_h);
        Some((od_from_h, spot_until_h))
    }

    /// Sets when on-demand opens and spot closes to a job entering the queue, with timers.
    pub(super) fn plan_deadline(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let (od_from_h, spot_until_h) = self
            .deadline_times(slot)
            .unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let job = &mut self.jobs[slot as usize];
        job.od_from_h = od_from_h;
        job.spot_until_h = spot_until_h;
        let run = job.run;
        for at_h in [od_from_h, spot_until_h] {
            if at_h > now_h && at_h.is_finite() {
                self.class_timers.push(Reverse((at_h.to_bits(), slot, run)));
                sim.schedule_at(at_h, Event::Wake);
            }
        }
    }

    /// Spot came back: deadline-aware jobs on on-demand move to spot at their next
    /// checkpoint if the safety net allows.
    pub(super) fn plan_moves_to_spot(&mut self, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        for slot in 0..self.jobs.len() as u32 {
            let job = &self.jobs[slot as usize];
            if !job.in_use || job.pool == NO_POOL || job.move_run == Some(job.run) {
                continue;
            }
            let facts = self.pools[job.pool as usize].facts;
            if !facts.elastic || facts.spot {
                continue;
            }
            let Some(at_h) = self.next_checkpoint_h(slot, now_h) else {
                continue;
            };
            let job = &mut self.jobs[slot as usize];
            job.move_run = Some(job.run);
            let run = job.run;
            sim.schedule_at(at_h, Event::MoveToSpot { job: slot, run });
        }
    }

    /// When the job's current run completes its next checkpoint (none: no more to come).
    fn next_checkpoint_h(&self, slot: u32, now_h: f64) -> Option<f64> {
        let job = &self.jobs[slot as usize];
        self.config.workloads[job.workload as usize].deadline_h?;
        let plan = job.plan;
        let cycle_h = plan.every_h + plan.write_h;
        if !cycle_h.is_finite() || now_h < job.run_start_h {
            return None;
        }
        let into_h = now_h - job.run_start_h - plan.restore_h;
        let done = if into_h < 0.0 {
            0
        } else {
            (into_h / cycle_h).floor() as u64
        };
        (done < plan.writes()).then(|| {
            job.run_start_h + plan.restore_h + (done + 1) as f64 * cycle_h + AFTER_CHECKPOINT_H
        })
    }

    /// A deadline-aware job reached its checkpoint: it leaves on-demand for spot if spot has
    /// room and the safety net still allows it.
    pub(super) fn move_to_spot(&mut self, slot: u32, run: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let job = &self.jobs[slot as usize];
        if !job.in_use || job.run != run || job.pool == NO_POOL {
            return;
        }
        let Some((_, spot)) = self.deadline_pools(slot) else {
            return;
        };
        let nodes = job.gpus.div_ceil(self.pools[spot].pool.gpus_per_node) as usize;
        if self.capacity_refuses(spot, nodes) || !self.pools[spot].open {
            return;
        }
        // The remaining work once this run stops at its checkpoint.
        let outcome = job.plan.interrupted_after(now_h - job.run_start_h);
        let slowdown = self.pools[job.pool as usize].slowdown[job.workload as usize];
        let saved_ref_h = outcome.saved_work_h / slowdown;
        let remaining = self.jobs[slot as usize].remaining_ref_h;
        self.jobs[slot as usize].remaining_ref_h = (remaining - saved_ref_h).max(0.0);
        let needs_restore = self.jobs[slot as usize].needs_restore;
        self.jobs[slot as usize].needs_restore = true;
        let allowed = self
            .deadline_times(slot)
            .is_some_and(|(_, spot_until_h)| now_h < spot_until_h);
        let job = &mut self.jobs[slot as usize];
        job.remaining_ref_h = remaining;
        job.needs_restore = needs_restore;
        if allowed {
            self.interrupt(slot, Cause::Migration, sim);
        }
    }
}
