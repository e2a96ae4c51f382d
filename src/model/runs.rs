//! Runs: a job starts on a pool, is counted when it begins, is busy until it ends or is
//! interrupted, and gives its GPUs back.

use super::*;

impl<'c> FleetSim<'c> {
    /// The run `slot` would make on pool `sp` spanning `nodes` nodes: restore, work and
    /// checkpoint writes.
    pub(super) fn run_plan(&self, slot: u32, sp: usize, nodes: usize) -> RunPlan {
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
            work_h: job.remaining_ref_h * state.slowdown[w] * self.count_factor(slot),
            every_h: checkpoint.map_or(f64::INFINITY, |c| c.interval_h(gang_mtbf_h)),
            write_h: checkpoint.map_or(0.0, |c| c.write_h),
        }
    }

    /// The scaling of `slot`'s workload when the strategy lets its gangs change size.
    pub(super) fn elastic_scaling(&self, slot: u32) -> Option<&'c Scaling> {
        let config: &'c Config = self.config;
        let job = &self.jobs[slot as usize];
        (config.workloads[job.workload as usize].scaling.as_ref()).filter(|_| self.strategy.elastic)
    }

    /// How much longer the job's work takes on its current count than on its asked count
    /// (exactly 1 on the asked count).
    #[inline]
    pub(super) fn count_factor(&self, slot: u32) -> f64 {
        let job = &self.jobs[slot as usize];
        if job.gpus == job.asked {
            return 1.0;
        }
        self.resized_factor(slot)
    }

    #[cold]
    #[inline(never)]
    fn resized_factor(&self, slot: u32) -> f64 {
        let job = &self.jobs[slot as usize];
        let scaling = self
            .elastic_scaling(slot)
            .expect("only elastic gangs change size");
        scaling.time_factor(job.asked, job.gpus)
    }

    /// The count a job waits with: the fewest GPUs it may start on.
    pub(super) fn queued_gpus(&self, slot: u32) -> u32 {
        let asked = self.jobs[slot as usize].asked;
        self.elastic_scaling(slot)
            .map_or(asked, |scaling| scaling.smallest(asked))
    }

    pub(super) fn start_run(
        &mut self,
        slot: u32,
        sp: usize,
        start_h: f64,
        plan: RunPlan,
        sim: &mut Sim<Event>,
    ) {
        let job = &mut self.jobs[slot as usize];
        job.plan = plan;
        job.run = job.run.wrapping_add(1);
        job.pool = sp as u16;
        job.run_start_h = start_h;
        job.run_pending = start_h > sim.now_h();
        job.prefer = 0;
        let end_h = start_h + job.plan.total_h();
        let (run, job_id, pending) = (job.run, slot, job.run_pending);
        sim.schedule_at(end_h, Event::RunEnds { job: job_id, run });
        if !pending {
            self.begin_run(slot);
        }
    }

    /// Counts a run that has begun: the pool's started jobs, the job's first start and wait,
    /// and whether it burst to an elastic pool.
    pub(super) fn begin_run(&mut self, slot: u32) {
        let (sp, start_h) = {
            let job = &self.jobs[slot as usize];
            (job.pool as usize, job.run_start_h)
        };
        self.data_at_run_start(slot, sp, start_h);
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
            let m = self.month_of(start_h);
            let month = &mut self.months[m];
            month.wait_sum_h += wait_h;
            month.waits += 1;
        }
    }

    /// Settles a run that was waiting for provisioning when placed: it began if `now_h` has
    /// reached its start; otherwise it never began.
    pub(super) fn settle_run(&mut self, slot: u32, now_h: f64) {
        let job = &mut self.jobs[slot as usize];
        if job.run_pending {
            job.run_pending = false;
            if now_h >= job.run_start_h {
                self.begin_run(slot);
            }
        }
    }

    /// Adds busy GPU-hours of a job's run on its pool over `[from_h, to_h)`.
    pub(super) fn account_busy(&mut self, slot: u32, from_h: f64, to_h: f64) {
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
        let last = self.config.calendar.split_by_month_near(
            from_h,
            to_h,
            self.month_hint.get(),
            |m, hours| {
                months[m].gpu_hours_busy += gpus * hours;
                state.by_month[m].gpu_hours_busy += gpus * hours;
                group_months[m] += gpus * hours;
            },
        );
        self.month_hint.set(last);
        state.counters.gpu_hours_busy += gpus * (to_h - from_h);
        *group_busy += gpus * (to_h - from_h);
        if let Some(ledger) = self.charges.as_mut() {
            let consumer = Consumer::Jobs { workload: w, team };
            ledger.busy(consumer, sp, from_h, to_h, gpus);
        }
    }

    /// Gives back a job's GPUs; idle elastic nodes start their idle timeout.
    pub(super) fn free_alloc(&mut self, slot: u32, sim: &mut Sim<Event>) {
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

    pub(super) fn schedule_idle(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
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

    pub(super) fn run_ends(&mut self, slot: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        self.settle_run(slot, now_h);
        let job = &self.jobs[slot as usize];
        let sp = job.pool as usize;
        let (gpus, from_h, checkpoint_h) = (job.gpus, job.run_start_h, job.plan.checkpoint_h());
        self.account_busy(slot, from_h, now_h);
        self.totals.checkpoint_gpu_h += f64::from(gpus) * checkpoint_h;
        let rate = self.pools[sp].job_rate_per_gpu_h[self.month_of(from_h)];
        self.free_alloc(slot, sim);
        let job = &mut self.jobs[slot as usize];
        job.cost += f64::from(gpus) * (now_h - from_h) * rate;
        job.pool = NO_POOL;
        if job.counted {
            let turnaround_h = now_h - job.arrival_h;
            let deadline = self.config.workloads[job.workload as usize].deadline_h;
            let missed = deadline.is_some_and(|d| turnaround_h > d);
            let infeasible = job.deadline_infeasible;
            self.accounts
                .count(job.workload as usize, job.team as usize, |c| {
                    c.jobs_completed += 1;
                    c.turnaround_sum_h += turnaround_h;
                    c.count_miss(missed, infeasible);
                });
            let m = self.month_of(now_h);
            self.months[m].jobs_completed += 1;
        }
        self.data_at_job_end(slot, now_h);
        self.trace_job(slot, now_h);
        self.jobs[slot as usize].in_use = false;
        self.vacant_jobs.push(slot);
        self.pass_needed = true;
    }

    /// Stops a running job: work since its last checkpoint is lost, and it queues again.
    pub(super) fn interrupt(&mut self, slot: u32, cause: Cause, sim: &mut Sim<Event>) {
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
            self.pools[sp].job_rate_per_gpu_h[self.month_of(from_h)],
        );
        let team = job.team as usize;
        // Hours of this run's work per reference hour at the asked count.
        let slowdown = self.pools[sp].slowdown[workload] * self.count_factor(slot);
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
        // It waits again with the fewest GPUs it may start on (its next run's count is chosen
        // afresh).
        let queued_gpus = self.queued_gpus(slot);
        let job = &mut self.jobs[slot as usize];
        job.gpus = queued_gpus;
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
                    self.after_spot_loss(slot, sp);
                }
                Cause::NodeFailure => {
                    self.totals.node_failures += 1;
                }
                Cause::TermEnd | Cause::Service | Cause::Migration => {}
            }
        }
        self.enqueue(slot, sim);
    }

    /// Interrupts every job on a node that is being lost.
    pub(super) fn evacuate(&mut self, sp: usize, index: u32, cause: Cause, sim: &mut Sim<Event>) {
        let mut victims = std::mem::take(&mut self.scratch_jobs);
        victims.clear();
        victims.extend((self.pools[sp].nodes.nodes[index as usize].taken.iter()).map(|t| t.holder));
        // A gang listed twice on one node is interrupted once.
        victims.sort_unstable();
        victims.dedup();
        for &slot in &victims {
            match services::holder(slot) {
                services::Holder::Job(job) => self.interrupt(job, cause, sim),
                services::Holder::Replica(replica) => self.lose_replica(replica, cause, sim),
                services::Holder::Hold => self.drop_held(sp, index),
            }
        }
        self.scratch_jobs = victims;
    }
}
