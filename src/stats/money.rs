//! The discounted cash view: each month's cash-view cost times
//! `(1 + discount_rate_per_year)^(-m/12)`, its running sum with a 95 % interval over
//! replications, and the break-even month of the discounted curves.

use super::{break_even_months, estimate};
use crate::records::{MonthTotals, MonthlyRow, UnitResult};
use crate::scenario::Config;

/// The cash-view costs `cash` (by month) discounted to the start.
pub fn discounted(config: &Config, cash: &[f64]) -> Vec<f64> {
    cash.iter()
        .enumerate()
        .map(|(m, cost)| cost * config.discount_factor(m))
        .collect()
}

/// Fills the discounted columns of `monthly` (rows by strategy, then month) and returns each
/// strategy's break-even month in the discounted view.
pub fn fill_npv(
    config: &Config,
    units: &[UnitResult],
    monthly: &mut [MonthlyRow],
) -> Vec<Option<String>> {
    let (strategies, replications) = (config.strategies.len(), config.replications as usize);
    let months = config.calendar.months();
    assert_eq!(
        monthly.len(),
        strategies * months,
        "a monthly row per strategy and month"
    );
    let mut mean_npv = vec![vec![0.0; months]; strategies];
    for s in 0..strategies {
        let mut cumulative = vec![0.0; replications];
        for m in 0..months {
            let factor = config.discount_factor(m);
            let costs: Vec<f64> = (0..replications)
                .map(|r| MonthTotals::cost_cash(&units[s * replications + r].months[m]) * factor)
                .collect();
            for (c, cost) in cumulative.iter_mut().zip(&costs) {
                *c += cost;
            }
            let (cost, cum) = (estimate(&costs), estimate(&cumulative));
            mean_npv[s][m] = cost.mean;
            let row = &mut monthly[s * months + m];
            row.cost_cash_npv = cost.mean;
            row.cumulative_cost_cash_npv = cum.mean;
            row.cumulative_cost_cash_npv_ci95_low = cum.ci95_low;
            row.cumulative_cost_cash_npv_ci95_high = cum.ci95_high;
        }
    }
    (0..strategies)
        .map(|s| {
            if s == config.baseline {
                return None;
            }
            let months_to = break_even_months(&mean_npv[s], &mean_npv[config.baseline]);
            (!months_to.is_nan()).then(|| config.calendar.month_label(months_to as usize - 1))
        })
        .collect()
}
