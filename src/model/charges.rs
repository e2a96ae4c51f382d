//! Charges by charge period (a day or a month) for the FOCUS export (issue 15): paid and busy
//! GPU-hours and cost per pool and period, and busy GPU-hours per consumer (a workload-team
//! pair's jobs, a service's replicas).
//!
//! Only a unit simulated for the export keeps a [`Ledger`] (`FleetSim::charges`): the others
//! pay one `Option` test per accounting call, and their memory does not grow with the horizon
//! for it. Elastic billing and busy time are recorded as they happen, split at the periods'
//! boundaries like the monthly accounts; owned capacity (on-prem, reserved) is worked out at
//! the end from the same monthly figures as `pools_monthly.csv` ([`super::billing`]), shared
//! out over the month's periods: capital and operations by hours, the idle part of energy by
//! hours and the load part by busy GPU-hours, a reservation by committed hours. So every
//! period's lines add up to the month's, and the months' to the unit's totals.

use crate::calendar::Calendar;
use crate::records::{ChargePeriod, Consumer, PeriodCharge, UnitCharges};
use crate::scenario::{OnPrem, Pool, PoolKind};

use super::billing;

/// The running record of one unit's charges by period.
#[derive(Debug, Clone)]
pub struct Ledger {
    period: ChargePeriod,
    /// Start of each period, then the horizon.
    starts_h: Vec<f64>,
    /// Paid GPU-hours and cost of elastic nodes, and busy GPU-hours, per (pool, period).
    paid: Vec<f64>,
    cost: Vec<f64>,
    busy: Vec<f64>,
    /// Per consumer slot (workload-team pairs, then services): busy GPU-hours per (pool,
    /// period), created at the first busy hour.
    consumers: Vec<Option<Vec<f64>>>,
    teams: usize,
    pairs: usize,
}

impl Ledger {
    /// A ledger for `pools` strategy pools; `workloads` x `teams` pairs and `services`.
    pub fn new(
        period: ChargePeriod,
        calendar: &Calendar,
        pools: usize,
        workloads: usize,
        teams: usize,
        services: usize,
    ) -> Self {
        let starts_h = period_starts_h(period, calendar);
        let cells = pools * (starts_h.len() - 1);
        Ledger {
            period,
            starts_h,
            paid: vec![0.0; cells],
            cost: vec![0.0; cells],
            busy: vec![0.0; cells],
            consumers: vec![None; workloads * teams + services],
            teams,
            pairs: workloads * teams,
        }
    }

    fn periods(&self) -> usize {
        self.starts_h.len() - 1
    }

    /// The period containing `at_h` (the last one at or past the horizon).
    fn period_of(&self, at_h: f64) -> usize {
        let after = self.starts_h.partition_point(|start| *start <= at_h);
        after.saturating_sub(1).min(self.periods() - 1)
    }

    /// Calls `add(period, hours)` for each period overlapped by `[from_h, to_h)`, as
    /// [`Calendar::split_by_month`] does for months.
    fn split(&self, from_h: f64, to_h: f64, mut add: impl FnMut(usize, f64)) {
        if to_h <= from_h {
            return;
        }
        let last = self.periods() - 1;
        let mut period = self.period_of(from_h);
        let mut at_h = from_h;
        loop {
            let end_h = if period >= last {
                to_h
            } else {
                to_h.min(self.starts_h[period + 1])
            };
            add(period, end_h - at_h);
            if end_h >= to_h {
                return;
            }
            at_h = end_h;
            period += 1;
        }
    }

    /// An elastic node of `sp` billed over `[from_h, to_h)` plus `extra_h` of rounding (in
    /// the period of `to_h`), `gpus` GPUs at `price` per GPU-hour.
    pub fn bill(&mut self, sp: usize, from_h: f64, to_h: f64, extra_h: f64, gpus: f64, price: f64) {
        let base = sp * self.periods();
        let (mut paid, mut cost) = (
            std::mem::take(&mut self.paid),
            std::mem::take(&mut self.cost),
        );
        let mut add = |p: usize, hours: f64| {
            paid[base + p] += gpus * hours;
            cost[base + p] += gpus * hours * price;
        };
        self.split(from_h, to_h, &mut add);
        if extra_h > 0.0 {
            add(self.period_of(to_h), extra_h);
        }
        (self.paid, self.cost) = (paid, cost);
    }

    /// `gpus` busy on pool `sp` over `[from_h, to_h)` for `consumer`.
    pub fn busy(&mut self, consumer: Consumer, sp: usize, from_h: f64, to_h: f64, gpus: f64) {
        let cells = self.busy.len();
        let base = sp * self.periods();
        let slot = match consumer {
            Consumer::Jobs { workload, team } => workload * self.teams + team,
            Consumer::Service(si) => self.pairs + si,
        };
        let mut by_consumer = self.consumers[slot]
            .take()
            .unwrap_or_else(|| vec![0.0; cells]);
        let mut busy = std::mem::take(&mut self.busy);
        self.split(from_h, to_h, |p, hours| {
            busy[base + p] += gpus * hours;
            by_consumer[base + p] += gpus * hours;
        });
        self.busy = busy;
        self.consumers[slot] = Some(by_consumer);
    }

    fn consumer_of(&self, slot: usize) -> Consumer {
        if slot < self.pairs {
            Consumer::Jobs {
                workload: slot / self.teams,
                team: slot % self.teams,
            }
        } else {
            Consumer::Service(slot - self.pairs)
        }
    }

    /// The unit's charges, `pools` being the strategy's; owned capacity is worked out from its
    /// months here.
    pub fn charges(&self, pools: &[&Pool], calendar: &Calendar) -> UnitCharges {
        let periods = self.periods();
        let mut out: Vec<Vec<PeriodCharge>> = Vec::with_capacity(pools.len());
        for (sp, pool) in pools.iter().enumerate() {
            let base = sp * periods;
            let mut rows: Vec<PeriodCharge> = (0..periods)
                .map(|p| PeriodCharge {
                    busy: (0..self.consumers.len())
                        .filter_map(|slot| {
                            let busy = self.consumers[slot].as_ref()?[base + p];
                            (busy > 0.0).then(|| (self.consumer_of(slot), busy))
                        })
                        .collect(),
                    ..PeriodCharge::default()
                })
                .collect();
            let busy = &self.busy[base..base + periods];
            match &pool.kind {
                PoolKind::OnDemand(_) | PoolKind::Spot(..) => {
                    for (p, row) in rows.iter_mut().enumerate() {
                        row.gpu_hours_paid = self.paid[base + p];
                        if pool.is_spot() {
                            row.cost_spot = self.cost[base + p];
                        } else {
                            row.cost_on_demand = self.cost[base + p];
                        }
                    }
                }
                PoolKind::OnPrem(on_prem) => {
                    self.on_prem(on_prem, pool.gpus_per_node, calendar, busy, &mut rows)
                }
                PoolKind::Reserved(reserved) => {
                    let (from_h, to_h) = billing::reserved_window_h(reserved, calendar);
                    let per_h = f64::from(reserved.nodes) * f64::from(pool.gpus_per_node);
                    for m in 0..calendar.months() {
                        let month =
                            billing::reserved_month(reserved, pool.gpus_per_node, calendar, m);
                        if month.paid_gpu_h <= 0.0 {
                            continue;
                        }
                        for p in self.periods_of_month(calendar, m) {
                            let (start, end) = (self.starts_h[p], self.starts_h[p + 1]);
                            let hours = (end.min(to_h) - start.max(from_h)).max(0.0);
                            let paid = per_h * hours;
                            rows[p].gpu_hours_paid = paid;
                            rows[p].cost_reserved = month.reserved * paid / month.paid_gpu_h;
                        }
                    }
                }
            }
            out.push(rows);
        }
        UnitCharges {
            period: self.period,
            starts_h: self.starts_h.clone(),
            pools: out,
        }
    }

    /// On-prem lines per period from the months' (see the module's comment).
    fn on_prem(
        &self,
        on_prem: &OnPrem,
        gpus_per_node: u32,
        calendar: &Calendar,
        busy: &[f64],
        rows: &mut [PeriodCharge],
    ) {
        let nodes = f64::from(on_prem.nodes);
        let load_kw_per_gpu =
            (on_prem.power_kw_per_node - on_prem.idle_power_kw_per_node) / f64::from(gpus_per_node);
        for m in 0..calendar.months() {
            let month_h = billing::on_prem_hours(on_prem, calendar, m);
            if month_h <= 0.0 {
                continue;
            }
            let periods = self.periods_of_month(calendar, m);
            let month_busy: f64 = periods.clone().map(|p| busy[p]).sum();
            let month = billing::on_prem_month(on_prem, gpus_per_node, calendar, m, month_busy);
            let idle = billing::on_prem_month(on_prem, gpus_per_node, calendar, m, 0.0);
            let first = periods.start;
            for p in periods {
                let hours = self.starts_h[p + 1] - self.starts_h[p];
                let share_h = hours / month_h;
                let row = &mut rows[p];
                row.gpu_hours_paid = month.paid_gpu_h * share_h;
                row.cost_capital = month.capital * share_h;
                row.cost_capital_cash = if p == first { month.capital_cash } else { 0.0 };
                row.cost_operations = month.operations * share_h;
                let load_share = if month_busy > 0.0 {
                    busy[p] / month_busy
                } else {
                    0.0
                };
                row.cost_energy = idle.energy * share_h + (month.energy - idle.energy) * load_share;
                row.energy_kwh = (on_prem.idle_power_kw_per_node * nodes * hours
                    + load_kw_per_gpu * busy[p])
                    * on_prem.pue;
            }
        }
    }

    /// The periods within calendar month `m` (periods nest in months: days start at midnight,
    /// months at a day's start).
    fn periods_of_month(&self, calendar: &Calendar, m: usize) -> std::ops::Range<usize> {
        let start = self.period_of(calendar.month_starts_h[m]);
        let end = if m + 1 >= calendar.months() {
            self.periods()
        } else {
            self.period_of(calendar.month_starts_h[m + 1])
        };
        start..end
    }
}

/// Where each charge period starts (hours since the start), then the horizon.
pub fn period_starts_h(period: ChargePeriod, calendar: &Calendar) -> Vec<f64> {
    match period {
        ChargePeriod::Month => calendar.month_starts_h.clone(),
        ChargePeriod::Day => {
            let days = (calendar.horizon_h() / 24.0).round() as usize;
            (0..=days).map(|d| d as f64 * 24.0).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn busy_and_billing_are_split_at_day_boundaries() {
        // February 2027 (28 days); a node of 8 GPUs billed from 23:00 on day 0 to 01:30 on
        // day 1 plus 0.5 h of rounding: 1 h on day 0, 1.5 + 0.5 h on day 1.
        let calendar = Calendar::new(date(2027, 2, 1), 1);
        let mut ledger = Ledger::new(ChargePeriod::Day, &calendar, 2, 1, 2, 1);
        assert_eq!(ledger.periods(), 28);
        ledger.bill(1, 23.0, 25.5, 0.5, 8.0, 2.0);
        assert_eq!(ledger.paid[28..30], [8.0, 16.0]);
        assert_eq!(ledger.cost[28..30], [16.0, 32.0]);
        // 4 GPUs of team 1 busy from 23:30 to 00:30 on pool 1; a service on pool 0 at the end.
        let jobs = Consumer::Jobs {
            workload: 0,
            team: 1,
        };
        ledger.busy(jobs, 1, 23.5, 24.5, 4.0);
        ledger.busy(Consumer::Service(0), 0, 27.0 * 24.0, 28.0 * 24.0, 2.0);
        assert_eq!(ledger.busy[28..30], [2.0, 2.0]);
        assert_eq!(ledger.busy[27], 48.0);
        assert_eq!(ledger.consumer_of(1), jobs);
        assert_eq!(ledger.consumer_of(2), Consumer::Service(0));
        assert_eq!(ledger.periods_of_month(&calendar, 0), 0..28);
    }

    #[test]
    fn owned_capacity_is_shared_out_over_the_days_of_its_months() {
        use crate::scenario::{Placement, Reserved};
        // One on-prem node of 8 GPUs bought in month 0 of a 1-month (31 days) horizon:
        // capex 31000, 31 months straight line, no residual: 1000 a month, 1000/31 a day.
        // Energy: idle 2 kW, busy 10 kW, PUE 1.5, 0.1 a kWh. 80 busy GPU-hours on day 3
        // (10 node-hours at +8 kW: 80 kWh more before PUE).
        let calendar = Calendar::new(date(2027, 1, 1), 1);
        let on_prem = OnPrem {
            nodes: 1,
            purchase_month: 0,
            capex_per_node: 31_000.0,
            amortization_months: 31,
            residual_fraction: 0.0,
            power_kw_per_node: 10.0,
            idle_power_kw_per_node: 2.0,
            pue: 1.5,
            electricity_per_kwh: 0.1,
            opex_per_node_month: 310.0,
            failures: None,
        };
        let pool = |kind| Pool {
            name: "p".into(),
            gpu: 0,
            gpus_per_node: 8,
            kind,
            placement: Placement::NodeLocal,
            provider: "it".into(),
            region: None,
        };
        let dgx = pool(PoolKind::OnPrem(on_prem));
        // Reserved: 1 node, 10 a GPU-hour less 40 %, from month 0 for 12 months (cut at the
        // horizon): 6 x 8 x 24 = 1152 a day.
        let reserved = pool(PoolKind::Reserved(Reserved {
            nodes: 1,
            price_per_gpu_h: 10.0,
            discount: 0.4,
            term_months: 12,
            start_month: 0,
        }));
        let mut ledger = Ledger::new(ChargePeriod::Day, &calendar, 2, 1, 1, 0);
        let jobs = Consumer::Jobs {
            workload: 0,
            team: 0,
        };
        ledger.busy(jobs, 0, 72.0, 82.0, 8.0);
        let charges = ledger.charges(&[&dgx, &reserved], &calendar);
        let (day0, day3) = (&charges.pools[0][0], &charges.pools[0][3]);
        assert_eq!(day0.cost_capital_cash, 31_000.0);
        assert_eq!(day3.cost_capital_cash, 0.0);
        assert!((day3.cost_capital - 1000.0 / 31.0).abs() < 1e-9);
        assert!((day3.cost_operations - 10.0).abs() < 1e-9);
        assert_eq!(day0.gpu_hours_paid, 8.0 * 24.0);
        // Idle: 2 kW x 24 h x 1.5 = 72 kWh a day; day 3 adds 80 x 1.5 = 120 kWh.
        assert!((day0.energy_kwh - 72.0).abs() < 1e-9);
        assert!((day3.energy_kwh - 192.0).abs() < 1e-9);
        assert!((day0.cost_energy - 7.2).abs() < 1e-9);
        assert!((day3.cost_energy - 19.2).abs() < 1e-9);
        assert_eq!(day3.busy, vec![(jobs, 80.0)]);
        assert!(day0.busy.is_empty());
        let reserved_day = &charges.pools[1][30];
        assert!((reserved_day.cost_reserved - 1152.0).abs() < 1e-9);
        assert_eq!(reserved_day.gpu_hours_paid, 192.0);
    }
}
