//! What capacity costs: billing of elastic nodes and the cost of owned and reserved capacity
//! per calendar month, in both views (amortised and cash).

use crate::calendar::Calendar;
use crate::scenario::{OnPrem, Reserved, Upfront};

/// Hours billed for an elastic node that lived `lifetime_h`: rounded up to whole billing
/// increments, at least the billing minimum.
pub fn billed_h(lifetime_h: f64, increment_s: f64, minimum_s: f64) -> f64 {
    let lifetime_s = lifetime_h * 3600.0;
    // A lifetime that is a whole number of increments up to rounding error is not rounded up.
    let increments = (lifetime_s / increment_s - 1e-9).ceil().max(0.0);
    (increments * increment_s).max(minimum_s) / 3600.0
}

/// The cost lines of one calendar month for one owned pool.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OwnedMonth {
    /// Capital in the amortised view: straight line over the amortisation period.
    pub capital: f64,
    /// Capital in the cash view: all of it in the purchase month.
    pub capital_cash: f64,
    pub energy: f64,
    pub operations: f64,
    /// Reserved capacity in the amortised view (the term's cost spread over its hours), and
    /// in the cash view (as paid: up front or month by month).
    pub reserved: f64,
    pub reserved_cash: f64,
    /// GPU-hours of capacity owned or committed in the month.
    pub paid_gpu_h: f64,
    /// Energy drawn (on-prem: from the energy model, PUE included), kWh.
    pub energy_kwh: f64,
}

/// Hours the nodes of an on-prem pool exist in month `m` (from the start of the purchase month
/// to the start of the month they are sold).
pub fn on_prem_hours(on_prem: &OnPrem, calendar: &Calendar, m: usize) -> f64 {
    let sold = on_prem.sold_month.is_some_and(|s| m >= s as usize);
    if m < on_prem.purchase_month as usize || sold {
        0.0
    } else {
        calendar.month_h(m)
    }
}

/// The sale of on-prem nodes in their sale month: the cash it brings (negative cost), and in
/// the amortised view the book value not yet depreciated less that cash (a loss, or a gain
/// when negative).
fn on_prem_sale(on_prem: &OnPrem) -> (f64, f64) {
    let Some(sold) = on_prem.sold_month else {
        return (0.0, 0.0);
    };
    let nodes = f64::from(on_prem.nodes);
    let capex = nodes * on_prem.capex_per_node;
    let owned = f64::from(sold.saturating_sub(on_prem.purchase_month));
    let months = f64::from(on_prem.amortization_months);
    let depreciated = capex * (1.0 - on_prem.residual_fraction) * (owned / months).min(1.0);
    let cash_in = capex * on_prem.resale_fraction;
    (capex - depreciated - cash_in, -cash_in)
}

/// On-prem cost of month `m`, given the busy GPU-hours of the pool in that month.
///
/// Energy draws idle power on every node all month plus, per busy GPU, its share of the
/// difference to full power: `(idle_kw * nodes * h + (kw - idle_kw) * busy_gpu_h / gpus_per_node)
/// * pue * price`. Nodes under repair are counted at idle power.
pub fn on_prem_month(
    on_prem: &OnPrem,
    gpus_per_node: u32,
    calendar: &Calendar,
    m: usize,
    busy_gpu_h: f64,
) -> OwnedMonth {
    let hours = on_prem_hours(on_prem, calendar, m);
    if on_prem.sold_month.is_some_and(|s| m == s as usize) && m >= on_prem.purchase_month as usize {
        let (capital, capital_cash) = on_prem_sale(on_prem);
        return OwnedMonth {
            capital,
            capital_cash,
            ..OwnedMonth::default()
        };
    }
    if hours == 0.0 {
        return OwnedMonth::default();
    }
    let nodes = f64::from(on_prem.nodes);
    let since_purchase = m - on_prem.purchase_month as usize;
    let capital = if since_purchase < on_prem.amortization_months as usize {
        nodes * on_prem.capex_per_node * (1.0 - on_prem.residual_fraction)
            / f64::from(on_prem.amortization_months)
    } else {
        0.0
    };
    let capital_cash = if since_purchase == 0 {
        nodes * on_prem.capex_per_node
    } else {
        0.0
    };
    let load_kw_h = (on_prem.power_kw_per_node - on_prem.idle_power_kw_per_node) * busy_gpu_h
        / f64::from(gpus_per_node);
    let energy_kwh = (on_prem.idle_power_kw_per_node * nodes * hours + load_kw_h) * on_prem.pue;
    // The month's mean tariff: load is taken as spread over the month.
    let energy = energy_kwh * on_prem.electricity.month_mean(calendar, m);
    OwnedMonth {
        capital,
        capital_cash,
        energy,
        operations: nodes * on_prem.opex_per_node_month,
        reserved: 0.0,
        reserved_cash: 0.0,
        paid_gpu_h: nodes * f64::from(gpus_per_node) * hours,
        energy_kwh,
    }
}

/// The part of a reservation's term inside month `m`, `[from_h, to_h)`.
pub fn reserved_window_h(reserved: &Reserved, calendar: &Calendar) -> (f64, f64) {
    let months = calendar.months();
    let start = (reserved.start_month as usize).min(months);
    let end = (reserved.start_month as usize + reserved.term_months as usize).min(months);
    (calendar.month_starts_h[start], calendar.month_starts_h[end])
}

/// Reserved cost of month `m`: every hour of the term is paid, used or not, at the price of
/// the month the term starts. In the cash view an upfront payment covers the whole term (its
/// hours past the horizon too) in the start month, and the rest is paid month by month.
pub fn reserved_month(
    reserved: &Reserved,
    gpus_per_node: u32,
    calendar: &Calendar,
    m: usize,
) -> OwnedMonth {
    let (from_h, to_h) = reserved_window_h(reserved, calendar);
    let month_from = calendar.month_starts_h[m];
    let month_to = calendar.month_starts_h[m + 1];
    let hours = (to_h.min(month_to) - from_h.max(month_from)).max(0.0);
    let gpus = f64::from(reserved.nodes) * f64::from(gpus_per_node);
    let price = reserved.effective_price_per_gpu_h(calendar);
    let cost = gpus * hours * price;
    let upfront_share = match reserved.upfront {
        Upfront::None => 0.0,
        Upfront::Partial(share) => share,
        Upfront::All => 1.0,
    };
    let term_cost = || {
        let end = reserved.start_month as i64 + i64::from(reserved.term_months);
        gpus * calendar.hours_between_months(i64::from(reserved.start_month), end) * price
    };
    let upfront = if m == reserved.start_month as usize && upfront_share > 0.0 {
        upfront_share * term_cost()
    } else {
        0.0
    };
    OwnedMonth {
        reserved: cost,
        reserved_cash: upfront + (1.0 - upfront_share) * cost,
        paid_gpu_h: gpus * hours,
        ..OwnedMonth::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::PriceCurve;
    use jiff::civil::date;

    #[test]
    fn billing_rounds_up_to_increments_with_a_minimum() {
        assert_eq!(billed_h(1.0, 1.0, 60.0), 1.0);
        assert_eq!(billed_h(10.0 / 3600.0, 1.0, 60.0), 60.0 / 3600.0);
        assert_eq!(billed_h(61.5 / 3600.0, 1.0, 60.0), 62.0 / 3600.0);
        assert_eq!(billed_h(0.01, 3600.0, 0.0), 1.0);
        assert_eq!(billed_h(1.0 + 1e-13, 3600.0, 0.0), 1.0);
        assert_eq!(billed_h(0.0, 1.0, 0.0), 0.0);
    }

    fn dgx() -> OnPrem {
        OnPrem {
            nodes: 2,
            purchase_month: 1,
            capex_per_node: 360_000.0,
            amortization_months: 36,
            residual_fraction: 0.1,
            power_kw_per_node: 10.0,
            idle_power_kw_per_node: 2.0,
            pue: 1.5,
            electricity_per_kwh: 0.2,
            electricity: PriceCurve::Monthly(vec![0.2; 3]),
            opex_per_node_month: 1000.0,
            failures: None,
            sold_month: None,
            resale_fraction: 0.0,
        }
    }

    #[test]
    fn on_prem_month_by_hand() {
        let calendar = Calendar::new(date(2027, 1, 1), 3);
        assert_eq!(
            on_prem_month(&dgx(), 8, &calendar, 0, 0.0),
            OwnedMonth::default()
        );
        // February 2027: 672 h. 100 busy GPU-hours = 12.5 node-hours at +8 kW.
        let feb = on_prem_month(&dgx(), 8, &calendar, 1, 100.0);
        assert_eq!(feb.capital, 2.0 * 360_000.0 * 0.9 / 36.0);
        assert_eq!(feb.capital_cash, 720_000.0);
        assert!((feb.energy - (2.0 * 2.0 * 672.0 + 8.0 * 12.5) * 1.5 * 0.2).abs() < 1e-9);
        assert_eq!(feb.operations, 2000.0);
        assert_eq!(feb.paid_gpu_h, 2.0 * 8.0 * 672.0);
        let march = on_prem_month(&dgx(), 8, &calendar, 2, 0.0);
        assert_eq!(march.capital_cash, 0.0);
        assert_eq!(march.capital, feb.capital);
    }

    #[test]
    fn reserved_terms_are_cut_at_the_horizon() {
        let calendar = Calendar::new(date(2027, 1, 1), 2);
        let reserved = Reserved {
            nodes: 1,
            price_per_gpu_h: 10.0,
            list_price: PriceCurve::Monthly(vec![10.0; 2]),
            discount: 0.4,
            term_months: 12,
            start_month: 1,
            upfront: Upfront::None,
        };
        assert_eq!(reserved_month(&reserved, 8, &calendar, 0).reserved, 0.0);
        let feb = reserved_month(&reserved, 8, &calendar, 1);
        assert_eq!(feb.paid_gpu_h, 8.0 * 672.0);
        assert!((feb.reserved - 8.0 * 672.0 * 6.0).abs() < 1e-9);
    }
}
