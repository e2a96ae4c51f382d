//! Owned capacity by charge period: each month's on-prem and reserved lines from
//! [`billing`] (the figures of `pools_monthly.csv`), shared out over the month's periods.
//! Capital and operations go by hours, the idle part of energy by hours and its load part by
//! busy GPU-hours, a reservation by committed hours. Lump sums sit in the first period of
//! their month: the purchase of on-prem nodes, their sale, a reservation's upfront payment.

use super::super::billing;
use super::Ledger;
use crate::calendar::Calendar;
use crate::records::PeriodCharge;
use crate::scenario::{OnPrem, Reserved};

impl Ledger {
    /// On-prem lines per period from the months'.
    pub(super) fn on_prem(
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
            let periods = self.periods_of_month(calendar, m);
            let first = periods.start;
            let sold = on_prem.sold_month.is_some_and(|s| s as usize == m);
            if sold && m >= on_prem.purchase_month as usize {
                let sale = billing::on_prem_sale(on_prem).expect("a sale month");
                let row = &mut rows[first];
                row.sale_book_value = sale.book_value;
                row.sale_cash_in = sale.cash_in;
                row.cost_capital = sale.book_value - sale.cash_in;
                row.cost_capital_cash = -sale.cash_in;
                continue;
            }
            let month_h = billing::on_prem_hours(on_prem, calendar, m);
            if month_h <= 0.0 {
                continue;
            }
            let month_busy: f64 = periods.clone().map(|p| busy[p]).sum();
            let month = billing::on_prem_month(on_prem, gpus_per_node, calendar, m, month_busy);
            let idle = billing::on_prem_month(on_prem, gpus_per_node, calendar, m, 0.0);
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

    /// Reserved lines per period from the months': the amortised cost by committed hours, the
    /// monthly part of the cash view likewise, the upfront payment at the start.
    pub(super) fn reserved(
        &self,
        reserved: &Reserved,
        gpus_per_node: u32,
        calendar: &Calendar,
        rows: &mut [PeriodCharge],
    ) {
        let (from_h, to_h) = billing::reserved_window_h(reserved, calendar);
        let per_h = f64::from(reserved.nodes) * f64::from(gpus_per_node);
        let monthly_share = 1.0 - billing::upfront_share(reserved.upfront);
        for m in 0..calendar.months() {
            let month = billing::reserved_month(reserved, gpus_per_node, calendar, m);
            if month.paid_gpu_h <= 0.0 {
                continue;
            }
            let periods = self.periods_of_month(calendar, m);
            if m == reserved.start_month as usize {
                rows[periods.start].cost_reserved_upfront =
                    billing::reserved_upfront(reserved, gpus_per_node, calendar);
            }
            for p in periods {
                let (start, end) = (self.starts_h[p], self.starts_h[p + 1]);
                let hours = (end.min(to_h) - start.max(from_h)).max(0.0);
                let paid = per_h * hours;
                let row = &mut rows[p];
                row.gpu_hours_paid = paid;
                row.cost_reserved = month.reserved * paid / month.paid_gpu_h;
                row.cost_reserved_monthly = monthly_share * row.cost_reserved;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{ChargePeriod, Consumer};
    use crate::scenario::{Placement, Pool, PoolKind, PriceCurve, Upfront};
    use jiff::civil::date;

    fn pool(kind: PoolKind) -> Pool {
        Pool {
            name: "p".into(),
            gpu: 0,
            gpus_per_node: 8,
            kind,
            placement: Placement::NodeLocal,
            provider: "it".into(),
            available_from: 0,
            available_until: None,
            storage: Default::default(),
            carbon: Default::default(),
            zone: None,
            region: None,
            shape: None,
        }
    }

    /// One on-prem node of 8 GPUs bought in month 0: capex 31000, 31 months straight line,
    /// no residual: 1000 a month. Energy: idle 2 kW, busy 10 kW, PUE 1.5, 0.1 a kWh.
    fn dgx(months: usize) -> OnPrem {
        OnPrem {
            nodes: 1,
            purchase_month: 0,
            capex_per_node: 31_000.0,
            amortization_months: 31,
            residual_fraction: 0.0,
            power_kw_per_node: 10.0,
            idle_power_kw_per_node: 2.0,
            pue: 1.5,
            electricity_per_kwh: 0.1,
            electricity: PriceCurve::Monthly(vec![0.1; months]),
            opex_per_node_month: 310.0,
            failures: None,
            sold_month: None,
            resale_fraction: 0.0,
        }
    }

    #[test]
    fn owned_capacity_is_shared_out_over_the_days_of_its_months() {
        // A 1-month horizon (January 2027, 31 days): 1000/31 of capital a day. 80 busy
        // GPU-hours on day 3 (10 node-hours at +8 kW: 80 kWh more before PUE).
        let calendar = Calendar::new(date(2027, 1, 1), 1);
        let dgx = pool(PoolKind::OnPrem(dgx(1)));
        // Reserved: 1 node, 10 a GPU-hour less 40 %, from month 0 for 12 months (cut at the
        // horizon): 6 x 8 x 24 = 1152 a day; a quarter of the term paid up front: 6 x 8 x
        // 8760 h (2027) / 4 = 105120 on day 0, and 3/4 of 1152 = 864 a day.
        let reserved = pool(PoolKind::Reserved(Reserved {
            nodes: 1,
            price_per_gpu_h: 10.0,
            list_price: PriceCurve::Monthly(vec![10.0]),
            discount: 0.4,
            term_months: 12,
            start_month: 0,
            upfront: Upfront::Partial(0.25),
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
        let (first, last) = (&charges.pools[1][0], &charges.pools[1][30]);
        assert!((last.cost_reserved - 1152.0).abs() < 1e-9);
        assert!((last.cost_reserved_monthly - 864.0).abs() < 1e-9);
        assert_eq!(last.gpu_hours_paid, 192.0);
        assert!((first.cost_reserved_upfront - 105_120.0).abs() < 1e-6);
        assert_eq!(last.cost_reserved_upfront, 0.0);
    }

    #[test]
    fn a_sale_writes_off_the_book_value_and_brings_cash() {
        // Bought in month 0, sold at the start of month 2 (March 2027) for 40 % of capex:
        // two months depreciated (2000), book value 29000, cash 12400. Nothing after.
        let calendar = Calendar::new(date(2027, 1, 1), 4);
        let mut on_prem = dgx(4);
        on_prem.sold_month = Some(2);
        on_prem.resale_fraction = 0.4;
        let dgx = pool(PoolKind::OnPrem(on_prem));
        let ledger = Ledger::new(ChargePeriod::Month, &calendar, 1, 1, 1, 0);
        let months = &ledger.charges(&[&dgx], &calendar).pools[0];
        assert_eq!(
            (months[0].cost_capital, months[1].cost_capital),
            (1000.0, 1000.0)
        );
        assert_eq!(months[2].sale_book_value, 29_000.0);
        assert_eq!(months[2].sale_cash_in, 12_400.0);
        assert_eq!(months[2].cost_capital, 16_600.0);
        assert_eq!(months[2].cost_capital_cash, -12_400.0);
        assert_eq!(
            (months[2].gpu_hours_paid, months[2].cost_energy),
            (0.0, 0.0)
        );
        assert_eq!(months[3], PeriodCharge::default());
    }
}
