//! Spot capacity that comes and goes: an availability trace played from a seeded
//! offset (repeated as often as the horizon needs), or a two-state Markov process. A drop
//! below the nodes a pool has preempts the newest; a request above it is refused, once per
//! job, and the job waits for a rise rather than asking again on a timer.

use super::*;
use crate::scenario::{Capacity, CapacityProcess, CapacityTrace};

/// Where a pool's capacity process is.
pub(super) struct CapacityClock {
    rng: SimRng,
    /// Trace: the step in force, and the simulated time at which this repetition began.
    step: usize,
    cycle_start_h: f64,
    /// Markov: available now.
    up: bool,
}

impl CapacityClock {
    /// Starts the process at time 0 and returns the clock, the nodes allowed now and when
    /// that changes.
    pub(super) fn start(capacity: &Capacity, mut rng: SimRng) -> (Self, u32, f64) {
        match &capacity.process {
            CapacityProcess::Trace(trace) => {
                let offset_h = match capacity.start_h {
                    _ if !trace.length_h.is_finite() => 0.0,
                    Some(start_h) => start_h % trace.length_h,
                    None => rng.random::<f64>() * trace.length_h,
                };
                let step = trace
                    .steps
                    .partition_point(|(from_h, _)| *from_h <= offset_h)
                    .saturating_sub(1);
                let clock = Self {
                    rng,
                    step,
                    cycle_start_h: -offset_h,
                    up: true,
                };
                let next_h = clock.next_trace_change_h(trace);
                (clock, trace.steps[step].1, next_h)
            }
            CapacityProcess::Markov {
                available_mean_h,
                unavailable_mean_h,
            } => {
                // The stationary start: available with the long-run share.
                let share = available_mean_h / (available_mean_h + unavailable_mean_h);
                let up = rng.random::<f64>() < share;
                let mean_h = if up {
                    *available_mean_h
                } else {
                    *unavailable_mean_h
                };
                let next_h = mean_h * rng.sample::<f64, _>(Exp1);
                let clock = Self {
                    rng,
                    step: 0,
                    cycle_start_h: 0.0,
                    up,
                };
                (clock, markov_nodes(up), next_h)
            }
        }
    }

    fn next_trace_change_h(&self, trace: &CapacityTrace) -> f64 {
        match trace.steps.get(self.step + 1) {
            Some((from_h, _)) => self.cycle_start_h + from_h,
            None => self.cycle_start_h + trace.length_h,
        }
    }

    /// Moves to the next change at `now_h`: the nodes allowed from now, and the time of the
    /// change after.
    pub(super) fn advance(&mut self, capacity: &Capacity, now_h: f64) -> (u32, f64) {
        match &capacity.process {
            CapacityProcess::Trace(trace) => {
                self.step += 1;
                if self.step == trace.steps.len() {
                    self.step = 0;
                    self.cycle_start_h += trace.length_h;
                }
                (trace.steps[self.step].1, self.next_trace_change_h(trace))
            }
            CapacityProcess::Markov {
                available_mean_h,
                unavailable_mean_h,
            } => {
                self.up = !self.up;
                let mean_h = if self.up {
                    *available_mean_h
                } else {
                    *unavailable_mean_h
                };
                let next_h = now_h + mean_h * self.rng.sample::<f64, _>(Exp1);
                (markov_nodes(self.up), next_h)
            }
        }
    }
}

fn markov_nodes(up: bool) -> u32 {
    if up { CapacityTrace::UNLIMITED } else { 0 }
}

impl<'c> FleetSim<'c> {
    /// Starts the capacity process of spot pool `sp`, if it has one.
    pub(super) fn start_capacity(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let pool = self.pools[sp].pool;
        let Some(capacity) = pool.elastic().and_then(|e| e.capacity.as_ref()) else {
            return;
        };
        let name = pool.stream_name();
        let rng = stream(
            self.config.seed,
            self.replication,
            Purpose::Availability(&name),
        );
        let (clock, nodes, next_h) = CapacityClock::start(capacity, rng);
        let state = &mut self.pools[sp];
        state.capacity_clock = Some(clock);
        state.cap_nodes = nodes;
        state.cap_since_h = 0.0;
        self.schedule_capacity_step(sp, next_h, sim);
    }

    fn schedule_capacity_step(&mut self, sp: usize, at_h: f64, sim: &mut Sim<Event>) {
        // A change past the horizon would never be handled.
        if at_h <= self.config.horizon_h {
            sim.schedule_at(at_h, Event::CapacityStep { pool: sp as u16 });
        }
    }

    /// The capacity of pool `sp` changes now.
    pub(super) fn capacity_step(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let pool = self.pools[sp].pool;
        let capacity = pool
            .elastic()
            .and_then(|e| e.capacity.as_ref())
            .expect("a capacity process");
        let state = &mut self.pools[sp];
        let clock = state.capacity_clock.as_mut().expect("a capacity clock");
        let (nodes, next_h) = clock.advance(capacity, now_h);
        self.schedule_capacity_step(sp, next_h, sim);
        self.set_capacity(sp, nodes, sim);
    }

    fn set_capacity(&mut self, sp: usize, nodes: u32, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let state = &mut self.pools[sp];
        let before = state.cap_nodes;
        if before > 0 {
            state.counters.hours_available += now_h - state.cap_since_h;
        }
        state.cap_since_h = now_h;
        state.cap_nodes = nodes;
        if nodes < before {
            self.preempt_newest(sp, sim);
        } else if nodes > before {
            self.capacity_rose(sp, sim);
        }
    }

    /// Preempts the newest nodes of pool `sp` until it has no more than its capacity.
    fn preempt_newest(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let state = &self.pools[sp];
        let excess = state.nodes.up_count().saturating_sub(state.cap_nodes) as usize;
        if excess == 0 {
            return;
        }
        let mut newest: Vec<(f64, u32)> = state
            .nodes
            .up_nodes()
            .iter()
            .map(|&n| (state.nodes.nodes[n as usize].requested_h, n))
            .collect();
        // Newest first; by index among nodes requested together, so the order is the same
        // whatever the history of `up_nodes`.
        newest.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        let now_h = sim.now_h();
        for &(_, index) in newest.iter().take(excess) {
            let ready_h = self.pools[sp].nodes.nodes[index as usize].ready_h;
            if ready_h > now_h {
                // Keep the list of nodes in provisioning true (see `PoolState::provisioning`).
                let provisioning = &mut self.pools[sp].provisioning;
                if let Some(i) = provisioning.iter().position(|r| *r == ready_h) {
                    provisioning.remove(i);
                }
            }
            self.preempt(sp, index, sim);
        }
    }

    /// Capacity came back: jobs it refused may ask again, and jobs on on-demand may come back
    /// to spot under the deadline rules that move back.
    fn capacity_rose(&mut self, sp: usize, sim: &mut Sim<Event>) {
        self.capacity_room(sp, sim.now_h());
        if self.strategy.spot_policy.moves_back_to_spot() {
            self.plan_moves_to_spot(sim);
        }
    }

    /// Pool `sp` may have room for more nodes (its capacity rose, or one of its nodes left):
    /// the jobs its capacity refused may ask again.
    pub(super) fn capacity_room(&mut self, sp: usize, now_h: f64) {
        let state = &mut self.pools[sp];
        if state.nodes.up_count() >= state.cap_nodes || !std::mem::take(&mut state.capacity_refused)
        {
            return;
        }
        for slot in 0..self.jobs.len() {
            let job = &mut self.jobs[slot];
            if job.in_use && job.retry_from_h[sp] == f64::INFINITY {
                job.retry_from_h[sp] = 0.0;
                if job.pool == NO_POOL {
                    self.reclass(slot as u32, now_h);
                }
            }
        }
        self.pass_needed = true;
    }

    /// Whether pool `sp`'s capacity refuses `count` more nodes now.
    pub(super) fn capacity_refuses(&self, sp: usize, count: usize) -> bool {
        let state = &self.pools[sp];
        state.cap_nodes != CapacityTrace::UNLIMITED
            && state.nodes.up_count() as usize + count > state.cap_nodes as usize
    }

    /// The capacity refused a job's request: counted once, and the job waits for a rise.
    pub(super) fn refused_by_capacity(&mut self, slot: u32, sp: usize) {
        self.pools[sp].counters.failed_requests += 1;
        self.pools[sp].capacity_refused = true;
        self.jobs[slot as usize].retry_from_h[sp] = f64::INFINITY;
        self.after_spot_loss(slot, sp);
    }

    /// Hours pool `sp` had capacity, to the horizon.
    pub(super) fn hours_available(&self, sp: usize) -> f64 {
        let state = &self.pools[sp];
        let open_h = if state.cap_nodes > 0 {
            self.config.horizon_h - state.cap_since_h
        } else {
            0.0
        };
        state.counters.hours_available + open_h
    }
}
