//! What one replication counts about its jobs, for all of them and per workload and per team,
//! and how each pool's cost is shared out among the workloads and teams that used it.
//!
//! Job counts and waits cover jobs arriving after the warm-up; GPU-hours, preemptions and lost
//! work cover the whole horizon (as for the strategy's totals).
//!
//! Cost shares: in every calendar month, a pool's cost is split at its cost per paid GPU-hour
//! over the busy GPU-hours of each workload (team); what idle paid capacity cost is left
//! `unallocated`. With `idle_cost = "proportional"` the rate is the cost per busy GPU-hour, so
//! the idle cost is spread over the month's users of the pool; only a pool-month nobody used
//! stays unallocated. Either way the shares plus the unallocated rest are the strategy's cost.

use crate::records::{GroupRow, PoolMonth};
use crate::scenario::IdleCost;

use super::waits::WaitStats;

/// Job figures of one group of jobs (all, a workload, a team) in one replication.
#[derive(Debug, Clone, Default)]
pub struct JobCounts {
    pub jobs_arrived: u64,
    pub jobs_completed: u64,
    pub turnaround_sum_h: f64,
    pub burst_jobs: u64,
    pub deadline_misses: u64,
    pub preemptions: u64,
    pub lost_gpu_h: f64,
    pub gpu_hours_busy: f64,
    pub waits: WaitStats,
}

impl JobCounts {
    /// The group's row, with its share of the cost.
    pub fn row(&self, cost: f64) -> GroupRow {
        let ratio = |a: f64, b: u64| if b > 0 { a / b as f64 } else { f64::NAN };
        GroupRow {
            jobs_arrived: self.jobs_arrived,
            jobs_completed: self.jobs_completed,
            jobs_unstarted: self.waits.censored(),
            jobs_unfinished: self.jobs_arrived - self.jobs_completed,
            wait_mean_h: self.waits.mean_h(),
            wait_p50_h: self.waits.percentile_h(500),
            wait_p95_h: self.waits.percentile_h(950),
            wait_max_h: self.waits.max_h(),
            wait_censored_min_h: self.waits.censored_min_h(),
            turnaround_mean_h: ratio(self.turnaround_sum_h, self.jobs_completed),
            gpu_hours_busy: self.gpu_hours_busy,
            burst_jobs: self.burst_jobs,
            preemptions: self.preemptions,
            lost_gpu_hours: self.lost_gpu_h,
            deadline_misses: self.deadline_misses,
            cost,
        }
    }
}

/// All job figures of one replication of one strategy.
#[derive(Debug, Clone)]
pub struct Accounts {
    pub all: JobCounts,
    pub workloads: Vec<JobCounts>,
    pub teams: Vec<JobCounts>,
    /// Busy GPU-hours by (workload, strategy pool, month), and by (team, pool, month).
    busy_by_workload: Vec<f64>,
    busy_by_team: Vec<f64>,
    pools: usize,
    months: usize,
}

impl Accounts {
    pub fn new(workloads: usize, teams: usize, pools: usize, months: usize) -> Self {
        Self {
            all: JobCounts::default(),
            workloads: vec![JobCounts::default(); workloads],
            teams: vec![JobCounts::default(); teams],
            busy_by_workload: vec![0.0; workloads * pools * months],
            busy_by_team: vec![0.0; teams * pools * months],
            pools,
            months,
        }
    }

    /// Applies `count` to the figures of all jobs, of the workload's and of the team's.
    pub fn count(&mut self, workload: usize, team: usize, count: impl Fn(&mut JobCounts)) {
        count(&mut self.all);
        count(&mut self.workloads[workload]);
        count(&mut self.teams[team]);
    }

    /// Busy GPU-hours of a job of `workload` and `team` on strategy pool `sp` in month `m`.
    pub fn busy(&mut self, workload: usize, team: usize, sp: usize, m: usize, gpu_h: f64) {
        self.count(workload, team, |c| c.gpu_hours_busy += gpu_h);
        let (pools, months) = (self.pools, self.months);
        self.busy_by_workload[(workload * pools + sp) * months + m] += gpu_h;
        self.busy_by_team[(team * pools + sp) * months + m] += gpu_h;
    }

    /// The cost shares of the workloads and of the teams, from each pool's months
    /// (`pool_months[sp][m]`).
    pub fn cost_shares(
        &self,
        pool_months: &[Vec<PoolMonth>],
        idle_cost: IdleCost,
    ) -> (Vec<f64>, Vec<f64>) {
        let rates: Vec<f64> = pool_months
            .iter()
            .flat_map(|months| months.iter().map(|m| rate(m, idle_cost)))
            .collect();
        let share = |busy: &[f64], groups: usize| {
            (0..groups)
                .map(|g| {
                    let from = g * self.pools * self.months;
                    let busy = &busy[from..from + self.pools * self.months];
                    busy.iter().zip(&rates).map(|(b, r)| b * r).sum::<f64>()
                })
                .collect::<Vec<f64>>()
        };
        (
            share(&self.busy_by_workload, self.workloads.len()),
            share(&self.busy_by_team, self.teams.len()),
        )
    }
}

/// A pool-month's cost per GPU-hour allocated to its users.
fn rate(month: &PoolMonth, idle_cost: IdleCost) -> f64 {
    let hours = match idle_cost {
        IdleCost::Unallocated => month.gpu_hours_paid,
        IdleCost::Proportional => month.gpu_hours_busy,
    };
    if hours > 0.0 { month.cost / hours } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn month(busy: f64, paid: f64, cost: f64) -> PoolMonth {
        PoolMonth {
            gpu_hours_busy: busy,
            gpu_hours_paid: paid,
            cost,
            cost_cash: cost,
        }
    }

    #[test]
    fn shares_split_each_pool_month_by_busy_hours() {
        // Two workloads (teams 0 and 0), one pool, two months. Month 0: 100 paid GPU-hours for
        // 500, 60 busy (w0 40, w1 20): 5 per paid GPU-hour, so w0 200, w1 100, idle 200.
        // Month 1: 50 paid for 100, all busy by w1: w1 100.
        let mut accounts = Accounts::new(2, 1, 1, 2);
        accounts.busy(0, 0, 0, 0, 40.0);
        accounts.busy(1, 0, 0, 0, 20.0);
        accounts.busy(1, 0, 0, 1, 50.0);
        let months = vec![vec![month(60.0, 100.0, 500.0), month(50.0, 50.0, 100.0)]];
        let (workloads, teams) = accounts.cost_shares(&months, IdleCost::Unallocated);
        assert_eq!(workloads, vec![200.0, 200.0]);
        assert_eq!(teams, vec![400.0]);
        // Proportional: month 0 costs 500 / 60 per busy GPU-hour: w0 333.33, w1 166.67 + 100.
        let (workloads, teams) = accounts.cost_shares(&months, IdleCost::Proportional);
        assert!((workloads[0] - 500.0 * 40.0 / 60.0).abs() < 1e-9);
        assert!((workloads[1] - (500.0 * 20.0 / 60.0 + 100.0)).abs() < 1e-9);
        assert!((teams[0] - 600.0).abs() < 1e-9);
        assert_eq!(accounts.all.gpu_hours_busy, 110.0);
        assert_eq!(accounts.workloads[1].gpu_hours_busy, 70.0);
    }
}
