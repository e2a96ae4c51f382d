//! The end of a unit: jobs still queued or running, elastic nodes billed to the horizon, owned
//! capacity's months, and the unit's records.

use super::*;

impl<'c> FleetSim<'c> {
    /// Adds the job's row to the trace, if one is kept.
    // Inline: most runs keep none.
    #[inline]
    pub(super) fn trace_job(&mut self, slot: u32, end_h: f64) {
        if self.trace.is_some() {
            self.trace_row(slot, end_h);
        }
    }

    fn trace_row(&mut self, slot: u32, end_h: f64) {
        let Some(rows) = self.trace.as_mut() else {
            return;
        };
        let job = &self.jobs[slot as usize];
        let pool = if job.last_pool == NO_POOL {
            String::new()
        } else {
            self.pools[job.last_pool as usize].pool.name.clone()
        };
        rows.push(JobRow {
            strategy: self.strategy.name.clone(),
            replication: self.replication,
            job: job.id,
            workload: self.config.workloads[job.workload as usize].name.clone(),
            team: self.config.teams[job.team as usize].clone(),
            gpus: job.asked,
            arrival_h: job.arrival_h,
            start_h: job.first_start_h,
            end_h,
            wait_h: if job.first_start_h.is_nan() {
                self.config.horizon_h - job.arrival_h
            } else {
                job.first_start_h - job.arrival_h
            },
            pool,
            preemptions: job.preemptions,
            lost_gpu_hours: job.lost_gpu_h,
            cost: job.cost,
        });
    }

    /// Closes the accounts at the horizon and returns the unit's records.
    pub fn finish(mut self, events: u64) -> UnitResult {
        let config = self.config;
        let horizon_h = config.horizon_h;
        // Jobs still running or queued are unfinished; running ones were busy until the horizon.
        for slot in 0..self.jobs.len() as u32 {
            let job = &self.jobs[slot as usize];
            if !job.in_use {
                continue;
            }
            if job.pool != NO_POOL {
                self.settle_run(slot, horizon_h);
                let job = &self.jobs[slot as usize];
                let (sp, gpus, from_h) = (job.pool as usize, job.gpus, job.run_start_h);
                let partial = job.plan.interrupted_after(horizon_h - from_h);
                self.account_busy(slot, from_h, horizon_h);
                self.totals.checkpoint_gpu_h += f64::from(gpus) * partial.checkpoint_h;
                let rate = self.pools[sp].job_rate_per_gpu_h[self.month_of(from_h)];
                let job = &mut self.jobs[slot as usize];
                job.cost += f64::from(gpus) * (horizon_h - from_h).max(0.0) * rate;
            }
            // Checkpoints stored up to the horizon.
            self.store_checkpoint_until(slot, horizon_h);
            let job = &self.jobs[slot as usize];
            if job.counted {
                let waited_h = horizon_h - job.arrival_h;
                let deadline = config.workloads[job.workload as usize].deadline_h;
                let missed = deadline.is_some_and(|d| waited_h > d);
                let infeasible = job.deadline_infeasible;
                // Not started by the horizon: its wait so far is a lower bound of its wait.
                let unstarted = job.first_start_h.is_nan();
                self.accounts
                    .count(job.workload as usize, job.team as usize, |c| {
                        c.count_miss(missed, infeasible);
                        if unstarted {
                            c.waits.record_censored(waited_h);
                        }
                    });
            }
            self.trace_job(slot, f64::NAN);
        }
        self.close_services();
        // Elastic nodes still alive are billed up to the horizon.
        for sp in 0..self.pools.len() {
            if !self.pools[sp].facts.elastic {
                continue;
            }
            let up: Vec<u32> = self.pools[sp].nodes.up_nodes().to_vec();
            for index in up {
                let requested_h = self.pools[sp].nodes.nodes[index as usize].requested_h;
                self.bill_elastic(sp, requested_h, horizon_h, 0.0);
            }
        }
        // Owned capacity costs the same whether used or not (energy depends on load).
        for state in &mut self.pools {
            for (m, month) in self.months.iter_mut().enumerate() {
                let owned = match &state.pool.kind {
                    PoolKind::OnPrem(on_prem) => billing::on_prem_month(
                        on_prem,
                        state.pool.gpus_per_node,
                        &config.calendar,
                        m,
                        state.by_month[m].gpu_hours_busy,
                    ),
                    PoolKind::Reserved(reserved) => billing::reserved_month(
                        reserved,
                        state.pool.gpus_per_node,
                        &config.calendar,
                        m,
                    ),
                    PoolKind::OnDemand(_) | PoolKind::Spot(..) => continue,
                };
                add_owned(month, &owned, &mut state.counters, &mut state.by_month[m]);
                // On-prem from its energy model; reserved nodes as cloud GPUs, per paid hour.
                month.co2_kg += match &state.pool.kind {
                    PoolKind::OnPrem(_) => owned.energy_kwh * state.pool.carbon.grid_kg_co2_per_kwh,
                    _ => owned.paid_gpu_h * environment::cloud_co2_kg_per_gpu_h(state.pool),
                };
            }
        }
        self.rows(events)
    }

    pub(super) fn rows(self, events: u64) -> UnitResult {
        let strategy_name = &self.strategy.name;
        let pool_months: Vec<Vec<PoolMonth>> =
            self.pools.iter().map(|p| p.by_month.clone()).collect();
        let mut totals = self.accounts.totals(&pool_months, self.config.idle_cost);
        let services = self.service_rows(&accounts::rates(&pool_months, self.config.idle_cost));
        // Services join their teams' showback: cost and busy GPU-hours.
        for ((team, busy), service) in self.service_teams().into_iter().zip(&services) {
            totals.teams[team].gpu_hours_busy += busy;
            totals.team_costs[team] += service.cost;
        }
        let services_cost: f64 = services.iter().map(|s| s.cost).sum();
        let (service_months, service_hours) = self.service_periods();
        let all = &totals.all;
        let month_sum = |f: fn(&MonthTotals) -> f64| self.months.iter().map(f).sum::<f64>();
        let busy: f64 = self.pools.iter().map(|p| p.counters.gpu_hours_busy).sum();
        let paid: f64 = self.pools.iter().map(|p| p.counters.gpu_hours_paid).sum();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let waits = &all.waits;
        let [p50_h, p90_h, p95_h, p99_h] = waits.percentiles_h(&[500, 900, 950, 990])[..] else {
            unreachable!("four percentiles")
        };
        let row = ReplicationRow {
            strategy: strategy_name.clone(),
            replication: self.replication,
            total_cost: month_sum(MonthTotals::cost),
            total_cost_cash: month_sum(MonthTotals::cost_cash),
            jobs_arrived: all.jobs_arrived,
            jobs_completed: all.jobs_completed,
            jobs_unfinished: all.jobs_arrived - all.jobs_completed,
            wait_mean_h: waits.mean_h(),
            wait_p95_h: p95_h,
            turnaround_mean_h: ratio(all.turnaround_sum_h, all.jobs_completed as f64),
            gpu_hours_busy: busy,
            gpu_hours_paid: paid,
            utilization: ratio(busy, paid),
            preemptions: all.preemptions,
            lost_gpu_hours: all.lost_gpu_h,
            checkpoint_gpu_hours: self.totals.checkpoint_gpu_h,
            burst_jobs: all.burst_jobs,
            failed_requests: self.pools.iter().map(|p| p.counters.failed_requests).sum(),
            deadline_misses: all.deadline_misses,
            deadline_infeasible: all.deadline_infeasible,
            wait_p50_h: p50_h,
            node_failures: self.totals.node_failures,
            cost_capital: month_sum(|m| m.cost_capital),
            cost_capital_cash: month_sum(|m| m.cost_capital_cash),
            cost_energy: month_sum(|m| m.cost_energy),
            cost_operations: month_sum(|m| m.cost_operations),
            cost_reserved: month_sum(|m| m.cost_reserved),
            cost_on_demand: month_sum(|m| m.cost_on_demand),
            cost_spot: month_sum(|m| m.cost_spot),
            break_even_months: f64::NAN,
            jobs_unstarted: waits.censored(),
            wait_p90_h: p90_h,
            wait_p99_h: p99_h,
            wait_max_h: waits.max_h(),
            wait_p95_lower_bound: accounts::flag(waits.is_lower_bound(950)),
            cost_reserved_cash: month_sum(|m| m.cost_reserved_cash),
            cost_storage: month_sum(|m| m.cost_storage),
            cost_network: month_sum(|m| m.cost_network),
            total_cost_npv: self
                .months
                .iter()
                .enumerate()
                .map(|(m, month)| month.cost_cash() * self.config.discount_factor(m))
                .sum(),
            break_even_months_npv: f64::NAN,
            co2_tonnes: month_sum(|m| m.co2_kg) / 1000.0,
        };
        let pools = self
            .pools
            .iter()
            .enumerate()
            .map(|(sp, state)| {
                let c = &state.counters;
                PoolRow {
                    strategy: strategy_name.clone(),
                    replication: self.replication,
                    pool: state.pool.name.clone(),
                    pool_type: state.pool.type_name().to_string(),
                    gpu_hours_busy: c.gpu_hours_busy,
                    gpu_hours_paid: c.gpu_hours_paid,
                    cost: c.cost,
                    cost_cash: c.cost_cash,
                    utilization: ratio(c.gpu_hours_busy, c.gpu_hours_paid),
                    jobs_started: c.jobs_started,
                    preemptions: c.preemptions,
                    failed_requests: c.failed_requests,
                    nodes_requested: c.nodes_requested,
                    nodes_preempted: c.nodes_preempted,
                    node_failures: c.node_failures,
                    gpu_hours_down: c.gpu_hours_down,
                    available_share: self.hours_available(sp) / self.config.horizon_h,
                }
            })
            .collect();
        let pool_months = self
            .pools
            .iter()
            .map(|state| state.by_month.clone())
            .collect();
        let (workloads, teams, unallocated) =
            group_rows(&totals, row.total_cost - services_cost, paid - busy);
        let charges = self.charges.as_ref().map(|ledger| {
            let pools: Vec<&Pool> = self.pools.iter().map(|p| p.pool).collect();
            ledger.charges(&pools, &self.config.calendar)
        });
        let mut jobs = self.trace.unwrap_or_default();
        jobs.sort_by_key(|row| row.job);
        UnitResult {
            strategy: self.strategy_idx,
            replication: self.replication,
            row,
            pools,
            months: self.months,
            pool_months,
            workloads,
            teams,
            services,
            service_months,
            service_hours,
            unallocated,
            jobs,
            events,
            charges,
        }
    }
}

/// Rows per workload and per team, with their cost shares, and what is left unallocated:
/// the rest of `total_cost` (the strategy's cost less the services' shares, which the teams'
/// costs already include), and its idle paid GPU-hours.
fn group_rows(
    totals: &accounts::Totals,
    total_cost: f64,
    gpu_hours_idle: f64,
) -> (Vec<GroupRow>, Vec<GroupRow>, Unallocated) {
    let rows = |counts: &[accounts::JobCounts], costs: &[f64]| -> Vec<GroupRow> {
        counts
            .iter()
            .zip(costs)
            .map(|(c, cost)| c.row(*cost))
            .collect()
    };
    // A rest within rounding of the sum (every
    // pool-month shared out, `idle_cost = "proportional"`) is zero, not -3.7e-10.
    let rest = total_cost - totals.workload_costs.iter().sum::<f64>();
    let rounding = 1e-12 * total_cost.abs().max(1.0);
    let unallocated = Unallocated {
        cost: if rest.abs() <= rounding { 0.0 } else { rest },
        gpu_hours_idle,
    };
    (
        rows(&totals.workloads, &totals.workload_costs),
        rows(&totals.teams, &totals.team_costs),
        unallocated,
    )
}

fn add_owned(
    month: &mut MonthTotals,
    owned: &OwnedMonth,
    counters: &mut PoolCounters,
    pool_month: &mut PoolMonth,
) {
    month.cost_capital += owned.capital;
    month.cost_capital_cash += owned.capital_cash;
    month.cost_energy += owned.energy;
    month.cost_operations += owned.operations;
    month.cost_reserved += owned.reserved;
    month.cost_reserved_cash += owned.reserved_cash;
    month.gpu_hours_paid += owned.paid_gpu_h;
    let running = owned.energy + owned.operations;
    counters.cost += owned.capital + running + owned.reserved;
    counters.cost_cash += owned.capital_cash + running + owned.reserved_cash;
    counters.gpu_hours_paid += owned.paid_gpu_h;
    pool_month.gpu_hours_paid += owned.paid_gpu_h;
    pool_month.cost += owned.capital + running + owned.reserved;
    pool_month.cost_cash += owned.capital_cash + running + owned.reserved_cash;
}
