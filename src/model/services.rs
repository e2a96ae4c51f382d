//! Inference services: an autoscaler per service meets its demand with replicas on
//! the strategy's service pools, ahead of batch work.
//!
//! Every `autoscale_every_h` (from the start) the autoscaler reads the demand `d` and aims at
//! `max(d x (1 + headroom), min_gpus)` GPUs of the service's type: it adds replicas (each `gpus_per_replica`
//! GPUs on one node, serving `gpus_per_replica x speed[pool] / speed[service]`) in service-pool
//! order until the replicas placed cover the target, and removes replicas while those left
//! still cover the highest target of the last `scale_down_after_h` (the stabilization window
//! of Kubernetes' HPA), the last pool's and the newest first. On a pool a replica takes, in
//! order: GPUs held for services (`reserve_gpus`), the fullest node with room, a new node
//! (elastic pools), or, with `service_preempts`, the GPUs of batch jobs on the owned node where
//! interrupting them loses the least work. A replica serves `scale_up_h` after it is placed
//! (never before its node is ready); a lost replica (preemption, failure, end of term) is
//! replaced at once. At the start the service is already running: its first replicas serve
//! without `scale_up_h`.
//!
//! Replicas sit on nodes like jobs, under slot numbers from [`REPLICA_BASE`]; the GPUs a pool
//! holds for services sit under [`HOLD_SLOT`]. Busy GPU-hours of replicas count in the pools'
//! utilisation and energy like those of jobs.

use std::collections::VecDeque;

use super::demand::{DemandCurve, Integral};
use super::*;
use crate::calendar::Calendar;
use crate::records::{ServicePeriod, ServiceRow};
use crate::scenario::Service;

/// Node slots from here up hold service replicas (`REPLICA_BASE + replica`).
pub const REPLICA_BASE: u32 = 1 << 31;
/// The node slot of the GPUs a pool holds for services.
pub const HOLD_SLOT: u32 = u32::MAX;

/// The most GPUs the autoscaler asks for one service: ten times the highest peak a scenario
/// may give (`SERVICE_GPUS_MAX`), so only a spike of the hourly variation reaches it, and the
/// demand above it is counted as unserved instead of placing millions of replicas.
const TARGET_GPUS_MAX: f64 = 1e6;

/// What a node slot holds.
pub(super) enum Holder {
    Job(u32),
    Replica(u32),
    Hold,
}

pub(super) fn holder(slot: u32) -> Holder {
    match slot {
        HOLD_SLOT => Holder::Hold,
        s if s >= REPLICA_BASE => Holder::Replica(s - REPLICA_BASE),
        s => Holder::Job(s),
    }
}

/// One replica of a service.
#[derive(Debug, Clone)]
pub(super) struct Replica {
    pub(super) in_use: bool,
    /// Bumped when the slot is reused, so a stale `ReplicaServes` is ignored.
    pub(super) life: u32,
    service: u16,
    pub(super) pool: u16,
    node: u32,
    pub(super) gpus: u32,
    /// GPUs of the service's type it serves.
    capacity: f64,
    placed_h: f64,
    /// Busy from here (its node ready).
    busy_from_h: f64,
    serving: bool,
    /// Where its service's `replicas` list holds it: a removal needs no search.
    listed_at: u32,
}

/// Figures of one service in one replication, as it runs.
#[derive(Debug, Clone, Default)]
struct Counts {
    demand: Integral,
    gpus_demanded_max: f64,
    gpu_hours_allocated: f64,
    scale_ups: u64,
    replicas_preempted: u64,
    batch_jobs_preempted: u64,
}

/// One service in one replication of one strategy.
pub(super) struct ServiceState<'c> {
    service: &'c Service,
    curve: DemandCurve<'c>,
    /// Strategy pools that serve it, in order, with the capacity of one replica there.
    pools: Vec<(usize, f64)>,
    /// Demand integrated up to here.
    counted_h: f64,
    /// Capacity of the replicas serving, and of all placed (serving or loading).
    serving: f64,
    placed: f64,
    replicas: Vec<u32>,
    /// Targets of the last `scale_down_after_h`, (time, target), decreasing targets: the
    /// window's highest is at the front.
    recent: VecDeque<(f64, f64)>,
    ticks: u64,
    /// A replica was lost: re-plan at the end of the event.
    replan: bool,
    counts: Counts,
    /// Busy GPU-hours by (strategy pool, month), for the cost share.
    busy: Vec<f64>,
    months: Vec<ServicePeriod>,
    hours: [ServicePeriod; 24],
}

impl<'c> ServiceState<'c> {
    /// The service's state under `strategy`, whose pools are `pools` (indices into
    /// `config.pools`).
    pub(super) fn new(
        config: &'c Config,
        service: &'c Service,
        strategy: &Strategy,
        replication: u32,
    ) -> Self {
        let pools = strategy
            .service_pools
            .iter()
            .filter(|p| service.accepts_mask & (1 << config.pools[**p].gpu) != 0)
            // Of a pool's instance sizes, those whose node holds a replica.
            .filter(|p| service.gpus_per_replica <= config.pools[**p].gpus_per_node)
            .map(|p| {
                let sp = strategy
                    .pools
                    .iter()
                    .position(|q| q == p)
                    .expect("service pools are strategy pools");
                let speed = config.gpu_speed[config.pools[*p].gpu] / config.gpu_speed[service.gpu];
                (sp, f64::from(service.gpus_per_replica) * speed)
            })
            .collect();
        let months = config.calendar.months();
        Self {
            service,
            curve: DemandCurve::new(
                &service.demand,
                &config.calendar,
                stream(
                    config.seed,
                    replication,
                    Purpose::ServiceDemand(&service.name),
                ),
            ),
            pools,
            counted_h: 0.0,
            serving: 0.0,
            placed: 0.0,
            replicas: Vec::new(),
            recent: VecDeque::new(),
            ticks: 0,
            replan: false,
            counts: Counts::default(),
            busy: vec![0.0; strategy.pools.len() * months],
            months: vec![ServicePeriod::default(); months],
            hours: [ServicePeriod::default(); 24],
        }
    }
}

/// Capacities within this share of each other are equal (sums of replica capacities).
const EPS: f64 = 1e-9;

impl<'c> FleetSim<'c> {
    /// The autoscaler's regular step.
    pub(super) fn service_tick(&mut self, si: usize, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let warm = self.services[si].ticks == 0;
        self.autoscale(si, now_h, warm, sim);
        let state = &mut self.services[si];
        state.ticks += 1;
        let next_h = state.ticks as f64 * state.service.autoscale_every_h;
        if next_h < self.config.horizon_h {
            sim.schedule_at(next_h, Event::ServiceTick { service: si as u16 });
        }
    }

    /// Re-plans service `si` now: adds replicas up to the demand, removes those the window no
    /// longer needs. `warm`: new replicas serve at once (the service runs at the start).
    fn autoscale(&mut self, si: usize, now_h: f64, warm: bool, sim: &mut Sim<Event>) {
        self.count_service(si, now_h);
        let state = &mut self.services[si];
        let (demand, _) = state.curve.piece(now_h);
        let target = (demand * (1.0 + state.service.headroom))
            .max(state.service.min_gpus)
            .min(TARGET_GPUS_MAX);
        while state.recent.back().is_some_and(|(_, t)| *t <= target) {
            state.recent.pop_back();
        }
        state.recent.push_back((now_h, target));
        let window_h = state.service.scale_down_after_h;
        while state
            .recent
            .front()
            .is_some_and(|(at_h, _)| *at_h < now_h - window_h)
        {
            state.recent.pop_front();
        }
        let keep = state.recent.front().map_or(target, |(_, t)| *t);
        while self.services[si].placed < target - EPS * target.max(1.0) {
            if !self.add_replica(si, now_h, warm, sim) {
                break;
            }
        }
        if self.services[si].placed > keep + EPS * keep.max(1.0) {
            self.scale_down(si, keep, now_h, sim);
        }
    }

    /// Integrates demand against the serving capacity up to `to_h`.
    fn count_service(&mut self, si: usize, to_h: f64) {
        let calendar = &self.config.calendar;
        let ServiceState {
            curve,
            counted_h,
            serving,
            counts,
            months,
            hours,
            ..
        } = &mut self.services[si];
        if to_h <= *counted_h {
            return;
        }
        let served = *serving;
        let max = &mut counts.gpus_demanded_max;
        let integral = curve.integrate(*counted_h, to_h, served, |start_h, length_h, gpus| {
            *max = max.max(gpus);
            let hour = (calendar.hour_of_week(start_h) % 24.0) as usize % 24;
            for period in [&mut months[calendar.month_of(start_h)], &mut hours[hour]] {
                period.gpu_hours_demanded += gpus * length_h;
                period.gpu_hours_served += gpus.min(served) * length_h;
                period.hours += length_h;
            }
        });
        let total = &mut counts.demand;
        total.demanded += integral.demanded;
        total.served += integral.served;
        total.unserved += integral.unserved;
        total.met_h += integral.met_h;
        *counted_h = to_h;
    }

    /// Places one more replica of service `si` on the first service pool with room.
    fn add_replica(&mut self, si: usize, now_h: f64, warm: bool, sim: &mut Sim<Event>) -> bool {
        for k in 0..self.services[si].pools.len() {
            let (sp, capacity) = self.services[si].pools[k];
            if let Some(node) = self.room_for_replica(si, sp, sim) {
                self.put_replica(si, sp, capacity, node, now_h, warm, sim);
                return true;
            }
        }
        false
    }

    /// A node of pool `sp` with `gpus_per_replica` free GPUs for a replica, made so if need
    /// be (held GPUs given up, a node requested, batch jobs interrupted).
    fn room_for_replica(&mut self, si: usize, sp: usize, sim: &mut Sim<Event>) -> Option<u32> {
        let gpus = self.services[si].service.gpus_per_replica;
        if let Some(node) = self.held_node(sp, gpus) {
            let held = self.held_on(sp, node);
            self.set_held(sp, node, held - gpus);
            return Some(node);
        }
        if let Some(node) = self.pools[sp].nodes.best_fit(gpus) {
            return Some(node);
        }
        if self.pools[sp].facts.elastic {
            // Free GPUs on a larger instance size come before a new node of this one.
            if self.pools[sp].larger_sizes.iter().any(|&q| {
                self.services[si].pools.iter().any(|(p, _)| *p == q)
                    && self.pools[q].nodes.best_fit(gpus).is_some()
            }) {
                return None;
            }
            // Spot capacity that is gone refuses a replica as a full quota does (the
            // autoscaler asks again at its next step).
            if self.may_add_nodes(sp, 1, 0)
                && !self.capacity_refuses(sp, 1)
                && self.request_nodes(sp, 1, sim)
            {
                return Some(self.scratch_nodes[0]);
            }
            return None;
        }
        if self.strategy.service_preempts {
            return self.make_room(si, sp, gpus, sim);
        }
        None
    }

    #[allow(clippy::too_many_arguments)] // One replica's whole description.
    fn put_replica(
        &mut self,
        si: usize,
        sp: usize,
        capacity: f64,
        node: u32,
        now_h: f64,
        warm: bool,
        sim: &mut Sim<Event>,
    ) {
        let gpus = self.services[si].service.gpus_per_replica;
        let id = match self.vacant_replicas.pop() {
            Some(id) => id,
            None => {
                self.replicas.push(Replica {
                    in_use: false,
                    life: 0,
                    service: 0,
                    pool: 0,
                    node: 0,
                    gpus: 0,
                    capacity: 0.0,
                    placed_h: 0.0,
                    busy_from_h: 0.0,
                    serving: false,
                    listed_at: 0,
                });
                let id = self.replicas.len() as u32 - 1;
                assert!(id < HOLD_SLOT - REPLICA_BASE, "replica slots run out");
                id
            }
        };
        let state = &mut self.pools[sp];
        state.nodes.take(node, gpus, REPLICA_BASE + id);
        state.service_gpus += gpus;
        let ready_h = state.nodes.nodes[node as usize].ready_h;
        let scale_up_h = self.services[si].service.scale_up_h;
        let busy_from_h = now_h.max(ready_h);
        let serves_h = if warm {
            busy_from_h
        } else {
            ready_h.max(now_h + scale_up_h)
        };
        let listed_at = self.services[si].replicas.len() as u32;
        let replica = &mut self.replicas[id as usize];
        *replica = Replica {
            in_use: true,
            life: replica.life.wrapping_add(1),
            service: si as u16,
            pool: sp as u16,
            node,
            gpus,
            capacity,
            placed_h: now_h,
            busy_from_h,
            serving: serves_h <= now_h,
            listed_at,
        };
        let life = replica.life;
        let state = &mut self.services[si];
        state.replicas.push(id);
        state.placed += capacity;
        state.counts.scale_ups += 1;
        if serves_h <= now_h {
            state.serving += capacity;
        } else {
            sim.schedule_at(serves_h, Event::ReplicaServes { replica: id, life });
        }
        self.hold_changed(sp);
    }

    /// A replica has loaded and serves from now.
    pub(super) fn replica_serves(&mut self, id: u32, life: u32, now_h: f64) {
        let replica = &self.replicas[id as usize];
        if !replica.in_use || replica.life != life || replica.serving {
            return;
        }
        let (si, capacity) = (replica.service as usize, replica.capacity);
        self.count_service(si, now_h);
        self.replicas[id as usize].serving = true;
        self.services[si].serving += capacity;
    }

    /// Removes replicas, the last service pool's and the newest first, while the rest still
    /// covers `keep`.
    fn scale_down(&mut self, si: usize, keep: f64, now_h: f64, sim: &mut Sim<Event>) {
        let rank =
            |sp: u16, pools: &[(usize, f64)]| pools.iter().position(|(p, _)| *p == sp as usize);
        let mut order = self.services[si].replicas.clone();
        let replicas = &self.replicas;
        let pools = &self.services[si].pools;
        order.sort_by(|a, b| {
            let (ra, rb) = (&replicas[*a as usize], &replicas[*b as usize]);
            rank(rb.pool, pools)
                .cmp(&rank(ra.pool, pools))
                .then(ra.serving.cmp(&rb.serving))
                .then(rb.placed_h.total_cmp(&ra.placed_h))
                .then(b.cmp(a))
        });
        for id in order {
            let capacity = self.replicas[id as usize].capacity;
            if self.services[si].placed - capacity >= keep - EPS * keep.max(1.0) {
                self.remove_replica(id, now_h, false, sim);
            }
        }
    }

    /// Takes a replica off its node. `lost`: by a preemption, failure or term end (it is
    /// replaced at the end of the event), else by the autoscaler.
    pub(super) fn remove_replica(&mut self, id: u32, now_h: f64, lost: bool, sim: &mut Sim<Event>) {
        let replica = self.replicas[id as usize].clone();
        assert!(replica.in_use, "removing a replica that is not placed");
        let (si, sp) = (replica.service as usize, replica.pool as usize);
        self.count_service(si, now_h);
        self.account_replica(id, now_h);
        let state = &mut self.services[si];
        state.placed -= replica.capacity;
        if replica.serving {
            state.serving -= replica.capacity;
        }
        let position = replica.listed_at as usize;
        debug_assert_eq!(state.replicas[position], id, "a placed replica is listed");
        state.replicas.swap_remove(position);
        if let Some(&moved) = state.replicas.get(position) {
            self.replicas[moved as usize].listed_at = position as u32;
        }
        let state = &mut self.services[si];
        if lost {
            state.replan = true;
            self.services_dirty = true;
        }
        let pool = &mut self.pools[sp];
        pool.service_gpus -= replica.gpus;
        let idle = pool
            .nodes
            .release(replica.node, replica.gpus, REPLICA_BASE + id);
        if idle && pool.facts.elastic {
            self.schedule_idle(sp, replica.node, sim);
        }
        self.replicas[id as usize].in_use = false;
        self.vacant_replicas.push(id);
        self.hold_changed(sp);
        self.pass_needed = true;
    }

    /// A replica lost with its node.
    pub(super) fn lose_replica(&mut self, id: u32, cause: Cause, sim: &mut Sim<Event>) {
        let si = self.replicas[id as usize].service as usize;
        if matches!(cause, Cause::Preemption | Cause::NodeFailure) {
            self.services[si].counts.replicas_preempted += 1;
        }
        self.remove_replica(id, sim.now_h(), true, sim);
    }

    /// Adds a replica's busy GPU-hours up to `to_h` to its pool and service.
    fn account_replica(&mut self, id: u32, to_h: f64) {
        let replica = &self.replicas[id as usize];
        let from_h = replica.busy_from_h;
        let to_h = to_h.min(self.config.horizon_h);
        if to_h <= from_h {
            return;
        }
        let (si, sp, gpus) = (
            replica.service as usize,
            replica.pool as usize,
            f64::from(replica.gpus),
        );
        let calendar = &self.config.calendar;
        let months = calendar.months();
        let pool = &mut self.pools[sp];
        let service = &mut self.services[si];
        let totals = &mut self.months;
        calendar.split_by_month(from_h, to_h, |m, hours| {
            totals[m].gpu_hours_busy += gpus * hours;
            pool.by_month[m].gpu_hours_busy += gpus * hours;
            service.busy[sp * months + m] += gpus * hours;
            service.months[m].gpu_hours_allocated += gpus * hours;
        });
        for (hour, hours) in hours_of_day(calendar, from_h, to_h).into_iter().enumerate() {
            service.hours[hour].gpu_hours_allocated += gpus * hours;
        }
        pool.counters.gpu_hours_busy += gpus * (to_h - from_h);
        service.counts.gpu_hours_allocated += gpus * (to_h - from_h);
        self.replicas[id as usize].busy_from_h = to_h;
        if let Some(ledger) = self.charges.as_mut() {
            ledger.busy(Consumer::Service(si), sp, from_h, to_h, gpus);
        }
    }

    /// Interrupts the batch jobs on the node of owned pool `sp` where making `gpus` free
    /// loses the least work (then the fewest jobs, then the lowest node); returns the node.
    fn make_room(&mut self, si: usize, sp: usize, gpus: u32, sim: &mut Sim<Event>) -> Option<u32> {
        let now_h = sim.now_h();
        let mut nodes: Vec<u32> = self.pools[sp].nodes.up_nodes().to_vec();
        nodes.sort_unstable();
        let mut best: Option<(f64, usize, u32, Vec<u32>)> = None;
        for index in nodes {
            let node = &self.pools[sp].nodes.nodes[index as usize];
            let mut jobs: Vec<u32> = node
                .taken
                .iter()
                .filter_map(|taken| match holder(taken.holder) {
                    Holder::Job(job) => Some(job),
                    Holder::Replica(_) | Holder::Hold => None,
                })
                .collect();
            jobs.sort_unstable();
            jobs.dedup();
            let mut victims: Vec<(f64, u32, u32)> = jobs
                .iter()
                .map(|&slot| {
                    let job = &self.jobs[slot as usize];
                    let here: u32 = job
                        .alloc
                        .iter()
                        .filter(|(n, _)| *n == index)
                        .map(|(_, g)| g)
                        .sum();
                    let lost = job.plan.interrupted_after(now_h - job.run_start_h).lost_h;
                    (f64::from(job.gpus) * lost, slot, here)
                })
                .collect();
            victims.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let (mut free, mut lost, mut taken) = (node.free_gpus, 0.0, Vec::new());
            for (job_lost, slot, here) in victims {
                if free >= gpus {
                    break;
                }
                free += here;
                lost += job_lost;
                taken.push(slot);
            }
            if free < gpus {
                continue;
            }
            let better = best
                .as_ref()
                .is_none_or(|(l, n, _, _)| lost < *l || (lost == *l && taken.len() < *n));
            if better {
                best = Some((lost, taken.len(), index, taken));
            }
        }
        let (_, _, node, victims) = best?;
        self.services[si].counts.batch_jobs_preempted += victims.len() as u64;
        for slot in victims {
            self.interrupt(slot, Cause::Service, sim);
        }
        Some(node)
    }

    /// Marks pool `sp`'s services reserve for a check at the end of the event.
    pub(super) fn hold_changed(&mut self, sp: usize) {
        if self.pools[sp].reserve_gpus > 0 {
            self.pools[sp].hold_short = true;
            self.services_dirty = true;
        }
    }

    /// GPUs held on `node` of pool `sp`.
    fn held_on(&self, sp: usize, node: u32) -> u32 {
        self.pools[sp]
            .held
            .iter()
            .find(|(n, _)| *n == node)
            .map_or(0, |(_, g)| *g)
    }

    /// The lowest-numbered node where pool `sp` holds at least `gpus` GPUs.
    fn held_node(&self, sp: usize, gpus: u32) -> Option<u32> {
        self.pools[sp]
            .held
            .iter()
            .filter(|(_, g)| *g >= gpus)
            .map(|(n, _)| *n)
            .min()
    }

    /// Holds exactly `gpus` GPUs of `node` for services.
    fn set_held(&mut self, sp: usize, node: u32, gpus: u32) {
        let pool = &mut self.pools[sp];
        if let Some(position) = pool.held.iter().position(|(n, _)| *n == node) {
            let (_, before) = pool.held.swap_remove(position);
            pool.nodes.release(node, before, HOLD_SLOT);
        }
        if gpus > 0 {
            pool.nodes.take(node, gpus, HOLD_SLOT);
            pool.held.push((node, gpus));
        }
    }

    /// A node of pool `sp` is lost: the GPUs held there go with it.
    pub(super) fn drop_held(&mut self, sp: usize, node: u32) {
        self.set_held(sp, node, 0);
        self.hold_changed(sp);
    }

    /// Brings pool `sp`'s held GPUs to `reserve_gpus` less the replicas' GPUs there: gives
    /// back what is no longer needed, takes free GPUs (fullest nodes first) for what is.
    fn rebalance_hold(&mut self, sp: usize) {
        let pool = &self.pools[sp];
        let desired = pool.reserve_gpus.saturating_sub(pool.service_gpus);
        let mut held: u32 = pool.held.iter().map(|(_, g)| g).sum();
        while held > desired {
            let (node, gpus) = *self.pools[sp]
                .held
                .iter()
                .max_by_key(|(n, _)| *n)
                .expect("held GPUs are on some node");
            let keep = gpus.saturating_sub(held - desired);
            self.set_held(sp, node, keep);
            held -= gpus - keep;
        }
        while held < desired {
            let Some(node) = self.pools[sp].nodes.best_fit(1) else {
                break;
            };
            let free = self.pools[sp].nodes.nodes[node as usize].free_gpus;
            let take = free.min(desired - held);
            let before = self.held_on(sp, node);
            self.set_held(sp, node, before + take);
            held += take;
        }
        self.pools[sp].hold_short = held < desired;
    }

    /// At the end of an event: reserves topped up, lost replicas replaced.
    pub(super) fn settle_services(&mut self, sim: &mut Sim<Event>) {
        self.services_dirty = false;
        for sp in 0..self.pools.len() {
            if self.pools[sp].hold_short {
                self.rebalance_hold(sp);
                // Still short: try again when GPUs are freed.
                self.services_dirty |= self.pools[sp].hold_short;
            }
        }
        let now_h = sim.now_h();
        for si in 0..self.services.len() {
            if std::mem::take(&mut self.services[si].replan) {
                self.autoscale(si, now_h, false, sim);
            }
        }
    }

    /// At the horizon: replicas still placed were busy until it, demand is counted to it.
    /// (Before the owned pools' months are billed: their energy depends on busy GPU-hours.)
    pub(super) fn close_services(&mut self) {
        let horizon_h = self.config.horizon_h;
        for id in 0..self.replicas.len() as u32 {
            if self.replicas[id as usize].in_use {
                self.account_replica(id, horizon_h);
            }
        }
        for si in 0..self.services.len() {
            self.count_service(si, horizon_h);
        }
    }

    /// The services' rows, with their cost shares at `rates[sp * months + m]`.
    pub(super) fn service_rows(&self, rates: &[f64]) -> Vec<ServiceRow> {
        let horizon_h = self.config.horizon_h;
        self.services
            .iter()
            .map(|state| {
                let c = &state.counts;
                let cost: f64 = state.busy.iter().zip(rates).map(|(b, r)| b * r).sum();
                ServiceRow {
                    gpu_hours_demanded: c.demand.demanded,
                    gpu_hours_served: c.demand.served,
                    gpu_hours_unserved: c.demand.unserved,
                    unserved_share: if c.demand.demanded > 0.0 {
                        c.demand.unserved / c.demand.demanded
                    } else {
                        f64::NAN
                    },
                    met_share: c.demand.met_h / horizon_h,
                    gpu_hours_allocated: c.gpu_hours_allocated,
                    gpus_demanded_max: c.gpus_demanded_max,
                    scale_ups: c.scale_ups,
                    replicas_preempted: c.replicas_preempted,
                    batch_jobs_preempted: c.batch_jobs_preempted,
                    cost,
                }
            })
            .collect()
    }

    /// Per service: its months and hours of the day, and its team and busy GPU-hours (for
    /// the teams' rows).
    pub(super) fn service_periods(&self) -> (Vec<Vec<ServicePeriod>>, Vec<[ServicePeriod; 24]>) {
        (
            self.services.iter().map(|s| s.months.clone()).collect(),
            self.services.iter().map(|s| s.hours).collect(),
        )
    }

    /// Per service: its team and its busy GPU-hours.
    pub(super) fn service_teams(&self) -> Vec<(usize, f64)> {
        self.services
            .iter()
            .map(|s| (s.service.team_idx, s.counts.gpu_hours_allocated))
            .collect()
    }
}

/// Hours of `[from_h, to_h)` in each hour of the day (UTC; the horizon starts at midnight):
/// whole days add the same to every hour, so only the ends are walked.
fn hours_of_day(calendar: &Calendar, from_h: f64, to_h: f64) -> [f64; 24] {
    let mut hours = [0.0; 24];
    let mut add = |from_h: f64, to_h: f64| {
        let mut at_h = from_h;
        while at_h < to_h {
            let end_h = (at_h.floor() + 1.0).min(to_h);
            hours[(calendar.hour_of_week(at_h) % 24.0) as usize % 24] += end_h - at_h;
            at_h = end_h;
        }
    };
    let first_day_end_h = ((from_h / 24.0).floor() + 1.0) * 24.0;
    if to_h <= first_day_end_h {
        add(from_h, to_h);
        return hours;
    }
    add(from_h, first_day_end_h);
    let last_day_start_h = (to_h / 24.0).floor() * 24.0;
    let whole_days = ((last_day_start_h - first_day_end_h) / 24.0).round();
    add(last_day_start_h, to_h);
    for h in &mut hours {
        *h += whole_days;
    }
    hours
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_of_day_count_whole_days_once_per_hour() {
        let calendar = Calendar::new(jiff::civil::date(2027, 1, 1), 2);
        // 22:30 on day 0 to 01:15 on day 3: 0.5 h at 22, 1 h at 23, two whole days, then 1 h
        // at 00 and 0.25 h at 01.
        let hours = hours_of_day(&calendar, 22.5, 3.0 * 24.0 + 1.25);
        let mut expected = [2.0; 24];
        expected[22] += 0.5;
        expected[23] += 1.0;
        expected[0] += 1.0;
        expected[1] += 0.25;
        assert_eq!(hours, expected);
        assert_eq!(hours_of_day(&calendar, 5.25, 5.75)[5], 0.5);
        let total: f64 = hours_of_day(&calendar, 3.3, 1000.9).iter().sum();
        assert!((total - 997.6).abs() < 1e-9);
    }
}
