//! What happens to nodes: elastic nodes released and billed, spot preemptions and waves,
//! failures and repairs, owned capacity coming and going, shortfall windows and episodes.

use super::*;

/// CO2 per paid GPU-hour of a cloud pool, kg: its power estimate times PUE and the grid's
/// intensity (0 when the scenario gives none).
pub(super) fn cloud_co2_kg_per_gpu_h(pool: &Pool) -> f64 {
    pool.carbon.power_kw_per_gpu * pool.carbon.pue * pool.carbon.grid_kg_co2_per_kwh
}

impl<'c> FleetSim<'c> {
    pub(super) fn wave_gap_h(&mut self, sp: usize, waves_per_month: f64) -> f64 {
        let mean_gap_h = self.config.calendar.month_mean_h() / waves_per_month;
        let rng = self.pools[sp].waves.as_mut().expect("wave stream");
        mean_gap_h * rng.sample::<f64, _>(Exp1)
    }

    /// Releases an elastic node and bills it.
    pub(super) fn release_node(&mut self, sp: usize, index: u32, now_h: f64) {
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
        if self.pools[sp].cap_nodes != CapacityTrace::UNLIMITED {
            self.capacity_room(sp, now_h);
        }
    }

    /// Bills a node's life `[from_h, to_h)` at the pool's price of each moment, plus `extra_h`
    /// of rounding (in the last month, at the last price).
    pub(super) fn bill_elastic(&mut self, sp: usize, from_h: f64, to_h: f64, extra_h: f64) {
        let state = &mut self.pools[sp];
        let per_node = f64::from(state.pool.gpus_per_node);
        let curve = &state.pool.elastic().expect("elastic pool").price;
        let spot = state.facts.spot;
        let co2_kg_per_gpu_h = cloud_co2_kg_per_gpu_h(state.pool);
        let months = &mut self.months;
        let by_month = &mut state.by_month;
        let counters = &mut state.counters;
        let calendar = &self.config.calendar;
        let mut add = |m: usize, hours: f64, price: f64| {
            let gpu_h = per_node * hours;
            months[m].gpu_hours_paid += gpu_h;
            months[m].co2_kg += gpu_h * co2_kg_per_gpu_h;
            if spot {
                months[m].cost_spot += gpu_h * price;
            } else {
                months[m].cost_on_demand += gpu_h * price;
            }
            by_month[m].gpu_hours_paid += gpu_h;
            by_month[m].cost += gpu_h * price;
            by_month[m].cost_cash += gpu_h * price;
            counters.gpu_hours_paid += gpu_h;
            counters.cost += gpu_h * price;
            counters.cost_cash += gpu_h * price;
        };
        let increment_h = state
            .pool
            .elastic()
            .expect("elastic pool")
            .billing_increment_s
            / 3600.0;
        curve.split_billed(calendar, from_h, to_h, increment_h, &mut add);
        if extra_h > 0.0 {
            // The rounding belongs to the last increment begun, at its starting price.
            let last_start_h = from_h + ((to_h - from_h) / increment_h).floor() * increment_h;
            let price = curve.at(calendar, last_start_h.min(to_h));
            add(calendar.month_of(to_h), extra_h, price);
        }
    }

    pub(super) fn node_idle(&mut self, sp: usize, index: u32, epoch: u32, now_h: f64) {
        let state = &self.pools[sp];
        let node = &state.nodes.nodes[index as usize];
        if node.state == NodeState::Up
            && node.idle_epoch == epoch
            && node.free_gpus == state.pool.gpus_per_node
        {
            self.release_node(sp, index, now_h);
        }
    }

    pub(super) fn preempt(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
        self.pools[sp].counters.nodes_preempted += 1;
        self.evacuate(sp, index, Cause::Preemption, sim);
        self.release_node(sp, index, sim.now_h());
    }

    pub(super) fn wave(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let now_h = sim.now_h();
        let state = &mut self.pools[sp];
        while state
            .provisioning
            .front()
            .is_some_and(|ready_h| *ready_h <= now_h)
        {
            state.provisioning.pop_front();
        }
        let mut ready = std::mem::take(&mut self.scratch_nodes);
        ready.clear();
        // Every up node still being provisioned: none is ready, so nothing to scan (a pool of
        // a million slow nodes would otherwise be scanned at every wave).
        let none_ready = state.provisioning.len() == state.nodes.up_nodes().len();
        if !none_ready {
            ready.extend(
                state
                    .nodes
                    .up_nodes()
                    .iter()
                    .copied()
                    .filter(|n| state.nodes.nodes[*n as usize].ready_h <= now_h),
            );
        }
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

    pub(super) fn node_fails(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
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

    pub(super) fn schedule_failure(&mut self, sp: usize, index: u32, sim: &mut Sim<Event>) {
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

    pub(super) fn capacity_on(&mut self, sp: usize, sim: &mut Sim<Event>) {
        let nodes = match &self.pools[sp].pool.kind {
            PoolKind::OnPrem(on_prem) => on_prem.nodes,
            PoolKind::Reserved(reserved) => reserved.nodes,
            PoolKind::OnDemand(_) | PoolKind::Spot(..) => {
                // `available_from`: nodes may be requested from now.
                self.pools[sp].open = true;
                return;
            }
        };
        for _ in 0..nodes {
            let index = self.pools[sp].nodes.add_slot();
            self.pools[sp].nodes.bring_up(index);
            self.schedule_failure(sp, index, sim);
        }
    }

    pub(super) fn capacity_off(&mut self, sp: usize, sim: &mut Sim<Event>) {
        if self.pools[sp].facts.elastic {
            // `available_until`: no new nodes; those running stay until idle.
            self.pools[sp].open = false;
            return;
        }
        // The end of a reserved term, or the sale of on-prem nodes.
        self.pools[sp].retired = true;
        let mut up = std::mem::take(&mut self.scratch_nodes);
        up.clear();
        up.extend_from_slice(self.pools[sp].nodes.up_nodes());
        for &index in &up {
            self.evacuate(sp, index, Cause::TermEnd, sim);
            self.pools[sp].nodes.take_down(index, NodeState::Absent);
        }
        self.scratch_nodes = up;
    }

    pub(super) fn window_edge(&mut self, sp: usize, sim: &mut Sim<Event>) {
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

    pub(super) fn episode_starts(&mut self, sp: usize, sim: &mut Sim<Event>) {
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
}
