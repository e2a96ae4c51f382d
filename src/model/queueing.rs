//! Arrivals and the wait queue: a job arrives, waits in its class, changes class when a timer of
//! its own runs out.

use super::*;

impl<'c> FleetSim<'c> {
    pub(super) fn schedule_next_arrival(&mut self, w: usize, sim: &mut Sim<Event>) {
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

    /// A job arrives and is tried at once (see `try_newcomer`): what came of that.
    pub(super) fn arrive(&mut self, w: usize, sim: &mut Sim<Event>) -> Tried {
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
                asked: 0,
                arrival_h: 0.0,
                queued_h: 0.0,
                remaining_ref_h: 0.0,
                work_ref_h: 0.0,
                first_start_h: f64::NAN,
                run_pending: false,
                counted: false,
                deadline_infeasible: false,
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
                data_sites: 0,
                storage_pool: NO_POOL,
                storage_from_h: f64::NAN,
                pinned: NO_POOL,
                prefer: 0,
                od_from_h: f64::NEG_INFINITY,
                spot_until_h: f64::INFINITY,
                move_run: None,
            });
            let slot = self.jobs.len() as u32 - 1;
            // Node slots above hold service replicas (`services::REPLICA_BASE`).
            assert!(slot < services::REPLICA_BASE, "job slots run out");
            slot
        });
        let job = &mut self.jobs[slot as usize];
        job.in_use = true;
        job.id = id;
        job.workload = w as u16;
        job.spec = spec;
        job.team = workload.team_idx_of(spec) as u16;
        job.gpus = gpus;
        job.asked = gpus;
        job.arrival_h = now_h;
        job.remaining_ref_h = duration_h;
        job.work_ref_h = duration_h;
        job.pinned = NO_POOL;
        job.prefer = 0;
        job.move_run = None;
        job.first_start_h = f64::NAN;
        job.run_pending = false;
        job.counted = counted;
        job.deadline_infeasible = self
            .limits
            .deadline_infeasible(w, workload, gpus, duration_h);
        job.burst = false;
        job.needs_restore = false;
        job.preemptions = 0;
        job.lost_gpu_h = 0.0;
        job.cost = 0.0;
        job.pool = NO_POOL;
        job.last_pool = NO_POOL;
        if job.retry_from_h.iter().any(|h| *h != 0.0) {
            job.retry_from_h.fill(0.0);
        }
        job.storage_pool = NO_POOL;
        job.storage_from_h = f64::NAN;
        let data_sites = self.home_sites();
        let queued_gpus = self.queued_gpus(slot);
        let job = &mut self.jobs[slot as usize];
        job.gpus = queued_gpus;
        job.data_sites = data_sites;
        job.key = QueueKey::new(
            self.strategy.queue,
            workload.priority,
            self.strategy.priority_aging_h,
            now_h,
            id,
            slot,
        );
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
        tried
    }

    /// Tries a job that just arrived, or asks for a pass to decide it. While the queue is
    /// settled (`settled_for_newcomers`: every waiting job was tried at the last pass and
    /// nothing a pass looks at changed since), the newcomer is the only job that may start
    /// now: under `fifo` only if nobody is ahead of it; under EASY backfill if it does not
    /// delay the reservation, and a newcomer ahead of the reserved job (by priority) that
    /// cannot start takes the reservation over in a pass.
    pub(super) fn try_newcomer(&mut self, slot: u32, sim: &mut Sim<Event>) -> Tried {
        #[cfg(test)]
        if plain_pass::plain_arrivals() {
            // A pass of its own, where the newcomer would be tried (events it schedules come
            // before the next arrival, as they would). "Placed": it is queued or placed.
            self.insert_waiting(slot, sim.now_h());
            self.pass(sim);
            return Tried::Placed;
        }
        let queue = self.strategy.queue;
        let try_now = |sim: &mut Sim<Event>, model: &mut Self| {
            model.forget_no_capacity();
            model.try_place(slot, sim)
        };
        let reserves = policies::reserves(queue);
        if !self.queue.is_empty() && !self.settled_for_newcomers(reserves) {
            // A pass would not just try the newcomer: it decides.
            self.pass_needed = true;
            return Tried::NoRoom;
        }
        if !self.queue.is_empty()
            && policies::backfills(queue)
            && self.skipped_by_last_pass(slot, sim.now_h())
        {
            return Tried::NoRoom;
        }
        if !reserves {
            if self.queue.is_empty() || policies::backfills(queue) {
                return try_now(sim, self);
            }
            return Tried::NoRoom;
        }
        let tried = try_now(sim, self);
        let key = self.jobs[slot as usize].key;
        let ahead = self.reserved.as_ref().is_none_or(|r| key < r.key);
        if ahead && (tried != Tried::Placed || self.reserved.is_some()) {
            // Blocked, it is the new head and gets the reservation (also when the queue was
            // empty); started ahead of the reserved job, it moves that job's shadow time, which
            // may let jobs behind start: either way a pass decides, as every event would in
            // a real scheduler.
            self.pass_needed = true;
        } else if !self.queue.is_empty() && !self.counted_as_a_pass(slot, tried, sim.now_h()) {
            // Where the pass after it reaches the cap of turned-away jobs is not known: it
            // decides the classes that pass skips.
            self.pass_needed = true;
        } else if tried == Tried::Placed {
            // Behind the reserved job (or with none), it ends by the shadow time or runs on
            // GPUs the reservation does not hold (what it took is counted off the spare): a
            // pass would work out the same reservation and try the same jobs, so the queue
            // stays settled.
            self.settled_nodes = Some(self.nodes_changes());
        }
        tried
    }

    /// Counts a newcomer tried alone behind the reserved job as the pass after its arrival
    /// would count it against the cap of turned-away jobs (`held_left`); whether the model
    /// still knows which classes that pass skips. A pass reaches the same jobs as the last
    /// one and decides them alike, so only the cap can move: a newcomer turned away takes one
    /// more of it, and where none is left its class is skipped from it on (it comes after
    /// every job the last pass decided, under `backfill` always); one that started shrank the
    /// room, so jobs turned away before may now find none and the count becomes a bound; one
    /// that found no room is skipped with its class. Only a pass knows in the other cases:
    /// a start after a pass that reached the cap, a job turned away where the bound is near
    /// it, a newcomer ahead of jobs the pass decided (by priority) near the cap.
    fn counted_as_a_pass(&mut self, slot: u32, tried: Tried, now_h: f64) -> bool {
        let key = self.jobs[slot as usize].key;
        let last = self.queue.after_pass(key);
        match tried {
            Tried::Placed if self.held_left == 0 => false,
            Tried::Placed => {
                self.held_left_exact = false;
                true
            }
            Tried::Held if self.held_left >= 2 => {
                self.held_left -= 1;
                true
            }
            Tried::Held if self.held_left_exact && last => {
                self.held_left = 0;
                let class = self.class_of(slot, now_h);
                self.queue.fail_class_at(class, key);
                true
            }
            Tried::Held => false,
            Tried::NoRoom | Tried::Refused => self.held_left > 0 || last,
        }
    }

    /// Whether the last pass skipped the newcomer's class from before the newcomer's place in
    /// the order on (a job of the class found no room, or was turned away once the pass could
    /// turn away no more): run again now, with nothing changed since, it would skip the
    /// newcomer too, so it waits untried. (A job of the class found no room: so would the
    /// newcomer, as room only shrank since.)
    fn skipped_by_last_pass(&mut self, slot: u32, now_h: f64) -> bool {
        let class = self.class_of(slot, now_h);
        self.queue
            .failed_before(class, self.jobs[slot as usize].key)
    }

    /// Whether a pass now would try a newcomer just as it is tried alone: the last pass had no
    /// refusal (the refused job waits in another class, untried there), and under a
    /// reservation the nodes are as it left them, or as newcomers started alone behind the
    /// reserved job left them (other changes would make a pass work the reservation out
    /// again). Without a reservation, GPUs taken since change no decision, and GPUs given back
    /// start a pass of their own. A newcomer whose class that pass skipped before its place
    /// is not tried (`skipped_by_last_pass`).
    pub(super) fn settled_for_newcomers(&self, reserves: bool) -> bool {
        self.settled_nodes
            .is_some_and(|changes| !reserves || changes == self.nodes_changes())
    }

    /// The job (re-)enters the queue now: its burst threshold counts from here.
    pub(super) fn start_waiting(&mut self, slot: u32, sim: &mut Sim<Event>) {
        self.plan_deadline(slot, sim);
        let now_h = sim.now_h();
        let job = &mut self.jobs[slot as usize];
        job.queued_h = now_h;
        let workload = &self.config.workloads[job.workload as usize];
        job.burst_due = match policies::burst_from_h(self.strategy, workload, now_h) {
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
    pub(super) fn class_of(&mut self, slot: u32, now_h: f64) -> usize {
        let key = self.class_key(slot, now_h);
        self.queue.class_of(key)
    }

    /// What makes a waiting job interchangeable with others, now.
    pub(super) fn class_key(&self, slot: u32, now_h: f64) -> ClassKey {
        let job = &self.jobs[slot as usize];
        let blocked = job
            .retry_from_h
            .iter()
            .enumerate()
            .filter(|(_, from_h)| **from_h > now_h)
            .fold(0u64, |mask, (sp, _)| mask | (1 << sp));
        // `stay`: every pool but the one it stays with.
        let pinned = match job.pinned {
            NO_POOL => 0,
            sp => !(1u64 << sp) & (u64::MAX >> (64 - self.pools.len())),
        };
        let workload = &self.config.workloads[job.workload as usize];
        ClassKey {
            workload: job.workload,
            gpus: job.gpus,
            burst_ok: job.burst_due,
            spot_ok: policies::spot_open(self.strategy, workload, job.preemptions)
                && now_h < job.spot_until_h,
            od_ok: now_h >= job.od_from_h,
            blocked: blocked | pinned,
            prefer: job.prefer,
        }
    }

    /// Moves a waiting job to the class its state now calls for, if that is another one;
    /// whether it was. (The burst flag is set once a threshold is reached, by the job's own
    /// timer, and stays as it is here.)
    fn reclass_if_changed(&mut self, slot: u32, now_h: f64) -> bool {
        let from = self.jobs[slot as usize].class;
        self.reclass(slot, now_h);
        self.jobs[slot as usize].class != from
    }

    /// Moves a waiting job to the class its state now calls for.
    pub(super) fn reclass(&mut self, slot: u32, now_h: f64) {
        let (from, key) = (self.jobs[slot as usize].class, self.jobs[slot as usize].key);
        let to = self.class_of(slot, now_h);
        self.queue.move_to(from, to, key);
        self.jobs[slot as usize].class = to;
    }

    pub(super) fn insert_waiting(&mut self, slot: u32, now_h: f64) {
        let class = self.class_of(slot, now_h);
        let job = &mut self.jobs[slot as usize];
        job.class = class;
        let key = job.key;
        let waiting = self.waiting(slot);
        self.queue.insert(class, key, waiting);
    }

    /// Puts a job (back) in the queue, keeping its arrival order, and asks for a pass.
    pub(super) fn enqueue(&mut self, slot: u32, sim: &mut Sim<Event>) {
        self.start_waiting(slot, sim);
        self.insert_waiting(slot, sim.now_h());
        self.pass_needed = true;
    }

    /// Re-classes every waiting job whose burst threshold or retry timer has run out, all at
    /// once, so the pass then takes them in queue order. Whether a job changed class.
    pub(super) fn run_due_timers(&mut self, now_h: f64) -> bool {
        let mut reclassed = false;
        while let Some(Reverse((bits, slot, run))) = self.class_timers.peek().copied() {
            if f64::from_bits(bits) > now_h {
                break;
            }
            self.class_timers.pop();
            let job = &mut self.jobs[slot as usize];
            if !job.in_use || job.pool != NO_POOL {
                continue;
            }
            if job.run != run {
                // Set in an earlier wait: the job has started since and waits again. A retry
                // time outlives the run that set it (refused by one pool, the job started on
                // another and was interrupted before the retry time), so the job's class may
                // still bar the pool: look again, now that the time has come. (A job whose
                // class is up to date, or another job in a reused slot, stays where it is.)
                reclassed |= self.reclass_if_changed(slot, now_h);
                continue;
            }
            job.burst_due = !self.has_elastic
                || policies::burst_from_h(
                    self.strategy,
                    &self.config.workloads[job.workload as usize],
                    job.queued_h,
                )
                .is_some_and(|from_h| from_h <= now_h);
            self.reclass(slot, now_h);
            reclassed = true;
        }
        reclassed
    }
}
