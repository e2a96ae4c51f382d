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
    /// Jobs past their deadline that could have met it.
    pub deadline_misses: u64,
    /// Jobs past their deadline whose work alone outlasts it on every pool they may use.
    pub deadline_infeasible: u64,
    pub preemptions: u64,
    pub lost_gpu_h: f64,
    pub gpu_hours_busy: f64,
    /// Costs that are the jobs' own (checkpoint storage, data moved): charged directly.
    pub cost_direct: f64,
    pub waits: WaitStats,
}

impl JobCounts {
    /// The group's row, with its share of the cost.
    pub fn row(&self, cost: f64) -> GroupRow {
        let ratio = |a: f64, b: u64| if b > 0 { a / b as f64 } else { f64::NAN };
        let [p50_h, p95_h] = self.waits.percentiles_h(&[500, 950])[..] else {
            unreachable!("two percentiles")
        };
        GroupRow {
            jobs_arrived: self.jobs_arrived,
            jobs_completed: self.jobs_completed,
            jobs_unstarted: self.waits.censored(),
            jobs_unfinished: self.jobs_arrived - self.jobs_completed,
            wait_mean_h: self.waits.mean_h(),
            wait_p50_h: p50_h,
            wait_p95_h: p95_h,
            wait_max_h: self.waits.max_h(),
            wait_p95_lower_bound: flag(self.waits.is_lower_bound(950)),
            turnaround_mean_h: ratio(self.turnaround_sum_h, self.jobs_completed),
            gpu_hours_busy: self.gpu_hours_busy,
            burst_jobs: self.burst_jobs,
            preemptions: self.preemptions,
            lost_gpu_hours: self.lost_gpu_h,
            deadline_misses: self.deadline_misses,
            deadline_infeasible: self.deadline_infeasible,
            cost,
        }
    }

    /// A job that ended (or reached the horizon) past its deadline when `missed`: late, or
    /// infeasible when its work alone could never meet it.
    pub fn count_miss(&mut self, missed: bool, infeasible: bool) {
        if missed {
            if infeasible {
                self.deadline_infeasible += 1;
            } else {
                self.deadline_misses += 1;
            }
        }
    }

    fn add(&mut self, other: &JobCounts) {
        self.jobs_arrived += other.jobs_arrived;
        self.jobs_completed += other.jobs_completed;
        self.turnaround_sum_h += other.turnaround_sum_h;
        self.burst_jobs += other.burst_jobs;
        self.deadline_misses += other.deadline_misses;
        self.deadline_infeasible += other.deadline_infeasible;
        self.preemptions += other.preemptions;
        self.lost_gpu_h += other.lost_gpu_h;
        self.gpu_hours_busy += other.gpu_hours_busy;
        self.cost_direct += other.cost_direct;
        self.waits.add(&other.waits);
    }
}

/// 1 for true, 0 for false: a flag as a metric, whose mean over replications is a share.
pub fn flag(value: bool) -> f64 {
    f64::from(u8::from(value))
}

/// The figures of the jobs of one workload and one team.
#[derive(Debug, Clone)]
struct Pair {
    counts: JobCounts,
    /// Busy GPU-hours by (strategy pool, month).
    busy: Vec<f64>,
}

/// All job figures of one replication of one strategy, kept per (workload, team) pair as the
/// jobs run (one record per event, whatever the groups) and added up at the end.
#[derive(Debug, Clone)]
pub struct Accounts {
    workloads: usize,
    teams: usize,
    pools: usize,
    months: usize,
    /// Index `workload * teams + team`; created when the pair's first job arrives.
    pairs: Vec<Option<Pair>>,
}

/// The groups' totals at the end of a replication.
#[derive(Debug, Clone)]
pub struct Totals {
    pub all: JobCounts,
    pub workloads: Vec<JobCounts>,
    pub teams: Vec<JobCounts>,
    /// Cost shares, in the order of `workloads` and `teams`.
    pub workload_costs: Vec<f64>,
    pub team_costs: Vec<f64>,
}

impl Accounts {
    pub fn new(workloads: usize, teams: usize, pools: usize, months: usize) -> Self {
        Self {
            workloads,
            teams,
            pools,
            months,
            pairs: vec![None; workloads * teams],
        }
    }

    /// The figures of a pair, made on its first job.
    // Inline: every job asks several times.
    #[inline]
    fn pair(&mut self, workload: usize, team: usize) -> &mut Pair {
        let index = workload * self.teams + team;
        if self.pairs[index].is_none() {
            self.add_pair(index);
        }
        self.pairs[index].as_mut().expect("a pair")
    }

    #[cold]
    #[inline(never)]
    fn add_pair(&mut self, index: usize) {
        self.pairs[index] = Some(Pair {
            counts: JobCounts::default(),
            busy: vec![0.0; self.pools * self.months],
        });
    }

    /// Applies `count` to the figures of the jobs of `workload` and `team`.
    #[inline]
    pub fn count(&mut self, workload: usize, team: usize, count: impl FnOnce(&mut JobCounts)) {
        count(&mut self.pair(workload, team).counts);
    }

    /// The busy GPU-hours by (strategy pool, month) of the jobs of `workload` and `team`, to
    /// add to at `sp * months + m`; and their total.
    #[inline]
    pub fn busy(&mut self, workload: usize, team: usize) -> (&mut [f64], &mut f64) {
        let pair = self.pair(workload, team);
        (&mut pair.busy, &mut pair.counts.gpu_hours_busy)
    }

    /// Adds up the pairs into all jobs, workloads and teams, and shares out each pool-month's
    /// cost (`pool_months[sp][m]`).
    pub fn totals(&self, pool_months: &[Vec<PoolMonth>], idle_cost: IdleCost) -> Totals {
        let rates = rates(pool_months, idle_cost);
        let mut totals = Totals {
            all: JobCounts::default(),
            workloads: vec![JobCounts::default(); self.workloads],
            teams: vec![JobCounts::default(); self.teams],
            workload_costs: vec![0.0; self.workloads],
            team_costs: vec![0.0; self.teams],
        };
        // A group of one pair is a copy of it (cheaper than adding histograms).
        let mut pairs_of_workload = vec![0; self.workloads];
        let mut pairs_of_team = vec![0; self.teams];
        for index in self.used_pairs() {
            pairs_of_workload[index / self.teams] += 1;
            pairs_of_team[index % self.teams] += 1;
        }
        for index in self.used_pairs() {
            let pair = self.pairs[index].as_ref().expect("a used pair");
            let (w, t) = (index / self.teams, index % self.teams);
            let cost: f64 = pair.busy.iter().zip(&rates).map(|(b, r)| b * r).sum();
            totals.all.add(&pair.counts);
            for (group, pairs) in [
                (&mut totals.workloads[w], pairs_of_workload[w]),
                (&mut totals.teams[t], pairs_of_team[t]),
            ] {
                if pairs == 1 {
                    group.clone_from(&pair.counts);
                } else {
                    group.add(&pair.counts);
                }
            }
            totals.workload_costs[w] += cost + pair.counts.cost_direct;
            totals.team_costs[t] += cost + pair.counts.cost_direct;
        }
        totals
    }

    fn used_pairs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.pairs.len()).filter(|i| self.pairs[*i].is_some())
    }
}

/// Every pool-month's cost per GPU-hour allocated to its users, at `sp * months + m`.
pub fn rates(pool_months: &[Vec<PoolMonth>], idle_cost: IdleCost) -> Vec<f64> {
    pool_months
        .iter()
        .flat_map(|months| months.iter().map(|m| rate(m, idle_cost)))
        .collect()
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
        let mut busy = |w: usize, m: usize, gpu_h: f64| {
            let (months, total) = accounts.busy(w, 0);
            months[m] += gpu_h;
            *total += gpu_h;
        };
        busy(0, 0, 40.0);
        busy(1, 0, 20.0);
        busy(1, 1, 50.0);
        accounts.count(1, 0, |c| c.jobs_arrived += 3);
        let months = vec![vec![month(60.0, 100.0, 500.0), month(50.0, 50.0, 100.0)]];
        let totals = accounts.totals(&months, IdleCost::Unallocated);
        assert_eq!(totals.workload_costs, vec![200.0, 200.0]);
        assert_eq!(totals.team_costs, vec![400.0]);
        // Proportional: month 0 costs 500 / 60 per busy GPU-hour: w0 333.33, w1 166.67 + 100.
        let totals = accounts.totals(&months, IdleCost::Proportional);
        assert!((totals.workload_costs[0] - 500.0 * 40.0 / 60.0).abs() < 1e-9);
        assert!((totals.workload_costs[1] - (500.0 * 20.0 / 60.0 + 100.0)).abs() < 1e-9);
        assert!((totals.team_costs[0] - 600.0).abs() < 1e-9);
        assert_eq!(totals.all.gpu_hours_busy, 110.0);
        assert_eq!(totals.workloads[1].gpu_hours_busy, 70.0);
        assert_eq!(
            (totals.all.jobs_arrived, totals.teams[0].jobs_arrived),
            (3, 3)
        );
    }
}
