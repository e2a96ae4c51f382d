//! Charges by charge period (a day or a month) for the FOCUS export: paid and busy
//! GPU-hours and cost per pool and period, and per consumer (a workload-team pair's jobs, a
//! service's replicas) the busy GPU-hours and what its data cost (checkpoint storage, data
//! moved between sites).
//!
//! Only a unit simulated for the export keeps a [`Ledger`] (`FleetSim::charges`): the others
//! pay one `Option` test per accounting call, and their memory does not grow with the horizon
//! for it. Elastic billing (at the price curve's price of each moment), busy time and data are
//! recorded as they happen, split at the periods' boundaries like the monthly accounts; owned
//! capacity (on-prem, reserved) is worked out at the end from the same monthly figures as
//! `pools_monthly.csv` ([`super::billing`]), shared out over the month's periods (`owned.rs`).
//! So every period's lines add up to the month's, and the months' to the unit's totals.

mod owned;

use crate::calendar::Calendar;
use crate::records::{ChargePeriod, Consumer, DataCharge, PeriodCharge, UnitCharges};
use crate::scenario::{Elastic, Pool, PoolKind};

/// What one consumer did on one pool in one period.
#[derive(Debug, Clone, Copy, Default)]
struct ConsumerCell {
    busy_gpu_h: f64,
    data: DataCharge,
}

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
    /// Per consumer slot (workload-team pairs, then services): its cells per (pool, period),
    /// created at its first charge.
    consumers: Vec<Option<Vec<ConsumerCell>>>,
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

    /// An elastic node of `sp` billed over its life `[from_h, to_h)` plus `extra_h` of
    /// rounding (in the period of `to_h`), `gpus` GPUs at the pool's price: each billing
    /// increment at the price of its start, as `FleetSim::bill_elastic` bills it.
    pub fn bill(
        &mut self,
        sp: usize,
        (from_h, to_h): (f64, f64),
        extra_h: f64,
        gpus: f64,
        elastic: &Elastic,
        calendar: &Calendar,
    ) {
        let base = sp * self.periods();
        let (mut paid, mut cost) = (
            std::mem::take(&mut self.paid),
            std::mem::take(&mut self.cost),
        );
        let increment_h = elastic.billing_increment_s / 3600.0;
        // The curve's stretches of one price come in order: `at_h` follows them.
        let mut at_h = from_h;
        let price = &elastic.price;
        price.split_billed(
            calendar,
            from_h,
            to_h,
            increment_h,
            |_, hours, per_gpu_h| {
                self.split(at_h, at_h + hours, |p, part_h| {
                    paid[base + p] += gpus * part_h;
                    cost[base + p] += gpus * part_h * per_gpu_h;
                });
                at_h += hours;
            },
        );
        if extra_h > 0.0 {
            // The rounding belongs to the last increment begun, at its starting price.
            let last_start_h = from_h + ((to_h - from_h) / increment_h).floor() * increment_h;
            let p = self.period_of(to_h);
            paid[base + p] += gpus * extra_h;
            cost[base + p] += gpus * extra_h * price.at(calendar, last_start_h.min(to_h));
        }
        (self.paid, self.cost) = (paid, cost);
    }

    fn slot_of(&self, consumer: Consumer) -> usize {
        match consumer {
            Consumer::Jobs { workload, team } => workload * self.teams + team,
            Consumer::Service(si) => self.pairs + si,
        }
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

    /// Calls `change(cells, base)` on the consumer's cells, `base` being pool `sp`'s first
    /// period.
    fn with_cells(
        &mut self,
        consumer: Consumer,
        sp: usize,
        change: impl FnOnce(&Self, &mut [ConsumerCell], usize),
    ) {
        let slot = self.slot_of(consumer);
        let cells = self.paid.len();
        let mut by_consumer = self.consumers[slot]
            .take()
            .unwrap_or_else(|| vec![ConsumerCell::default(); cells]);
        change(self, &mut by_consumer, sp * self.periods());
        self.consumers[slot] = Some(by_consumer);
    }

    /// `gpus` busy on pool `sp` over `[from_h, to_h)` for `consumer`.
    pub fn busy(&mut self, consumer: Consumer, sp: usize, from_h: f64, to_h: f64, gpus: f64) {
        let mut busy = std::mem::take(&mut self.busy);
        self.with_cells(consumer, sp, |ledger, cells, base| {
            ledger.split(from_h, to_h, |p, hours| {
                busy[base + p] += gpus * hours;
                cells[base + p].busy_gpu_h += gpus * hours;
            });
        });
        self.busy = busy;
    }

    /// `gb` of the consumer's checkpoints stored on pool `sp` over `[from_h, to_h)` at
    /// `per_gb_month` (per GB and calendar month, as `model::data` charges them).
    pub fn store(
        &mut self,
        consumer: Consumer,
        sp: usize,
        (from_h, to_h): (f64, f64),
        gb: f64,
        per_gb_month: f64,
        calendar: &Calendar,
    ) {
        self.with_cells(consumer, sp, |ledger, cells, base| {
            ledger.split(from_h, to_h, |p, hours| {
                // Periods nest in months.
                let m = calendar.month_of(ledger.starts_h[p]);
                let gb_months = gb * hours / calendar.month_h(m);
                let cell = &mut cells[base + p].data;
                cell.storage_gb_months += gb_months;
                cell.cost_storage += gb * per_gb_month * hours / calendar.month_h(m);
            });
        });
    }

    /// `gb` of the consumer's data leaving pool `from` (at `egress_per_gb`) for pool `to` (at
    /// `ingress_per_gb`) at `at_h`.
    pub fn transfer(
        &mut self,
        consumer: Consumer,
        (from, to): (usize, usize),
        gb: f64,
        (egress_per_gb, ingress_per_gb): (f64, f64),
        at_h: f64,
    ) {
        let p = self.period_of(at_h);
        if egress_per_gb > 0.0 {
            self.with_cells(consumer, from, |_, cells, base| {
                cells[base + p].data.egress_gb += gb;
                cells[base + p].data.cost_egress += gb * egress_per_gb;
            });
        }
        if ingress_per_gb > 0.0 {
            self.with_cells(consumer, to, |_, cells, base| {
                cells[base + p].data.ingress_gb += gb;
                cells[base + p].data.cost_ingress += gb * ingress_per_gb;
            });
        }
    }

    /// Period `p` of pool `sp` with its consumers' busy hours and data, and no cost yet.
    fn consumers_row(&self, sp: usize, p: usize) -> PeriodCharge {
        let at = sp * self.periods() + p;
        let mut row = PeriodCharge::default();
        for (slot, cells) in self.consumers.iter().enumerate() {
            let Some(cell) = cells.as_ref().map(|cells| cells[at]) else {
                continue;
            };
            let consumer = self.consumer_of(slot);
            if cell.busy_gpu_h > 0.0 {
                row.busy.push((consumer, cell.busy_gpu_h));
            }
            if !cell.data.is_empty() {
                row.data.push((consumer, cell.data));
            }
        }
        row
    }

    /// The unit's charges, `pools` being the strategy's; owned capacity is worked out from its
    /// months here.
    pub fn charges(&self, pools: &[&Pool], calendar: &Calendar) -> UnitCharges {
        let periods = self.periods();
        let mut out: Vec<Vec<PeriodCharge>> = Vec::with_capacity(pools.len());
        for (sp, pool) in pools.iter().enumerate() {
            let base = sp * periods;
            let mut rows: Vec<PeriodCharge> =
                (0..periods).map(|p| self.consumers_row(sp, p)).collect();
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
                    self.reserved(reserved, pool.gpus_per_node, calendar, &mut rows)
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
    use crate::scenario::PriceCurve;
    use jiff::civil::date;

    /// An on-demand pool's billing at `price`, per second.
    fn elastic(price: PriceCurve) -> Elastic {
        Elastic {
            price_per_gpu_h: price.at(&Calendar::new(date(2027, 1, 1), 1), 0.0),
            price,
            max_nodes: None,
            provisioning_h: 0.0,
            idle_timeout_h: 0.0,
            billing_increment_s: 1.0,
            billing_minimum_s: 0.0,
            availability: None,
            capacity: None,
        }
    }

    #[test]
    fn busy_and_billing_are_split_at_day_boundaries() {
        // February 2027 (28 days); a node of 8 GPUs billed from 23:00 on day 0 to 01:30 on
        // day 1 plus 0.5 h of rounding: 1 h on day 0, 1.5 + 0.5 h on day 1.
        let calendar = Calendar::new(date(2027, 2, 1), 1);
        let mut ledger = Ledger::new(ChargePeriod::Day, &calendar, 2, 1, 2, 1);
        assert_eq!(ledger.periods(), 28);
        let flat = elastic(PriceCurve::Monthly(vec![2.0]));
        ledger.bill(1, (23.0, 25.5), 0.5, 8.0, &flat, &calendar);
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
    fn a_price_that_changes_within_a_day_is_billed_at_each_price() {
        // Steps: 2 a GPU-hour until 06:00 on day 1 (30 h), then 3. One GPU from 20:00 on
        // day 0 to 10:00 on day 1: day 0 has 4 h at 2 = 8; day 1 has 6 h at 2 and 4 h at 3 =
        // 24, and the 1 h of rounding at the last price, 3.
        let calendar = Calendar::new(date(2027, 2, 1), 1);
        let steps = elastic(PriceCurve::Steps(std::sync::Arc::new(vec![
            (0.0, 2.0),
            (30.0, 3.0),
        ])));
        let mut ledger = Ledger::new(ChargePeriod::Day, &calendar, 1, 1, 1, 0);
        ledger.bill(0, (20.0, 34.0), 1.0, 1.0, &steps, &calendar);
        assert_eq!(ledger.paid[0..2], [4.0, 11.0]);
        assert_eq!(ledger.cost[0..2], [8.0, 27.0]);
    }

    #[test]
    fn data_is_charged_to_its_consumer_and_pools() {
        // January 2027 (744 h): 100 GB stored on pool 0 from 12:00 on day 0 to 12:00 on day 2
        // at 7.44 a GB-month (744 a month for the 100 GB, 1 an hour): 12, 24 and 12. 50 GB moved from
        // pool 0 (egress 0.1 a GB) to pool 1 (ingress 0.02) on day 1.
        let calendar = Calendar::new(date(2027, 1, 1), 1);
        let jobs = Consumer::Jobs {
            workload: 1,
            team: 0,
        };
        let mut ledger = Ledger::new(ChargePeriod::Day, &calendar, 2, 2, 1, 0);
        ledger.store(jobs, 0, (12.0, 60.0), 100.0, 7.44, &calendar);
        ledger.transfer(jobs, (0, 1), 50.0, (0.1, 0.02), 30.0);
        let day = |sp: usize, p: usize| ledger.consumers_row(sp, p).data;
        let stored = |d: usize| day(0, d)[0].1.cost_storage;
        assert!((stored(0) - 12.0).abs() < 1e-12 && (stored(1) - 24.0).abs() < 1e-12);
        assert!((stored(2) - 12.0).abs() < 1e-12 && day(0, 3).is_empty());
        assert!((day(0, 1)[0].1.storage_gb_months - 100.0 * 24.0 / 744.0).abs() < 1e-12);
        assert_eq!(
            (day(0, 1)[0].1.egress_gb, day(0, 1)[0].1.cost_egress),
            (50.0, 5.0)
        );
        assert_eq!(
            day(1, 1),
            vec![(
                jobs,
                DataCharge {
                    ingress_gb: 50.0,
                    cost_ingress: 1.0,
                    ..DataCharge::default()
                }
            )]
        );
    }
}
