//! EASY backfill in the model: the reservation of the first job a pass cannot place, worked out
//! (with [`super::reservation`]) only when a later job could start, and kept while nothing
//! changes.

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

/// A reservation on one strategy pool.
#[derive(Debug, Clone)]
pub(super) struct Holding {
    pub(super) pool: usize,
    /// The pool's nodes' generation when worked out (stale once a node went down).
    pub(super) generation: u64,
    pub(super) reservation: Reservation,
}

/// Jobs a pass may turn away because of the reservation before it stops trying the rest of
/// their classes (as Slurm's backfill bounds its work with `bf_max_job_test`).
pub(super) const HELD_PER_PASS_MAX: u32 = 100;

impl<'c> FleetSim<'c> {
    /// What the reservation holds on pool `sp`, if it holds anything there and `slot` is behind
    /// the reserved job in queue order (worked out now if no job needed it before).
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
    pub(super) fn holding_mut(&mut self) -> &mut Holding {
        match &mut self.reserved.as_mut().expect("a reservation").held {
            Held::Known {
                on: Some(holding), ..
            } => holding,
            _ => unreachable!("the reservation holds GPUs"),
        }
    }

    /// Whether the reservation of the last pass still describes the nodes (none of the pool it
    /// holds went down since it was worked out).
    pub(super) fn reservation_current(&self) -> bool {
        match self.reserved.as_ref().map(|r| &r.held) {
            Some(Held::Known {
                on: Some(holding), ..
            }) => self.pools[holding.pool].nodes.generation == holding.generation,
            _ => true,
        }
    }

    /// When a run of `slot` on `sp` as `plan` says would end, hours.
    pub(super) fn planned_end_h(&self, slot: u32, sp: usize, plan: &GangPlan, now_h: f64) -> f64 {
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
        for sp in 0..self.pools.len() {
            if !self.may_try(slot, sp, now_h) {
                continue;
            }
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
    pub(super) fn outlook(&mut self, sp: usize) -> (Vec<NodeOutlook>, Vec<(f64, u32)>) {
        let mut outlook = std::mem::take(&mut self.scratch_outlook);
        let mut ends = std::mem::take(&mut self.scratch_ends);
        outlook.clear();
        ends.clear();
        let nodes = &self.pools[sp].nodes;
        for &index in nodes.up_nodes() {
            let node = &nodes.nodes[index as usize];
            let first = ends.len();
            for &slot in &node.jobs {
                // Services hold their GPUs with no planned end.
                let (end_h, gpus) = match services::holder(slot) {
                    services::Holder::Job(job_slot) => {
                        let job = &self.jobs[job_slot as usize];
                        let gpus: u32 = job
                            .alloc
                            .iter()
                            .filter(|(n, _)| *n == index)
                            .map(|(_, g)| g)
                            .sum();
                        (job.run_start_h + job.plan.total_h(), gpus)
                    }
                    services::Holder::Replica(replica) => {
                        (f64::INFINITY, self.replicas[replica as usize].gpus)
                    }
                    services::Holder::Hold => (
                        f64::INFINITY,
                        self.pools[sp]
                            .held
                            .iter()
                            .find(|(n, _)| *n == index)
                            .map_or(0, |(_, g)| *g),
                    ),
                };
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
}
