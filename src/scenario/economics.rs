//! When owned and committed capacity pays off: the break-even utilisation of each
//! `on_prem` and `reserved` pool, from the scenario's own prices.
//!
//! The comparison is with buying the same GPU-hours on demand: a busy GPU-hour on an owned or
//! reserved pool replaces one GPU-hour of the cheapest `on_demand` pool of the same GPU type in
//! the scenario, at its `price_per_gpu_h` (`P`). Capacity that is paid whether used or not
//! costs less than those GPU-hours once its utilisation `u` (busy / paid GPU-hours) is above
//!
//! - `on_prem`: `u* = F / (P - V)`, with the fixed cost per GPU-hour (amortised view)
//!   `F = (capex_per_node x (1 - residual_fraction) / amortization_months + opex_per_node_month)
//!   / (gpus_per_node x 730.5) + idle_power_kw_per_node x pue x electricity_per_kwh /
//!   gpus_per_node` and the energy a busy GPU adds
//!   `V = (power_kw_per_node - idle_power_kw_per_node) / gpus_per_node x pue x
//!   electricity_per_kwh`; 730.5 is the hours of an average calendar month. Without an
//!   on-demand price of its GPU type there is nothing to break even against.
//! - `reserved`: `u* = price_per_gpu_h x (1 - discount) / P`; without an on-demand pool of its
//!   GPU type, `P` is the reservation's own list price, so `u* = 1 - discount`.
//!
//! Above 100 % the pool never pays off. Prices that change over the horizon are
//! taken at the start, and the result says so (`prices_change`). Node failures, provisioning, billing increments and
//! idle timeouts of the on-demand alternative are left out: this is the line a planner draws
//! on the back of an envelope, for the chart to compare the simulated utilisation with.

use super::file::{PoolFile, PoolType, ScenarioFile};

/// Hours of an average calendar month (365.25 x 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.5;

/// One owned or reserved pool's break-even utilisation.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakEven {
    pub pool: String,
    /// Busy / paid GPU-hours above which the pool costs less than on-demand; None when there
    /// is no price to compare with.
    pub utilization: Option<f64>,
    /// What it is compared with: "aws-p5-on-demand at 7.5 per GPU-hour", or why nothing.
    pub against: String,
    /// Some price of the comparison changes over the horizon (`price_change_per_year`,
    /// `price_schedule`, `price_trace` or their electricity twins): the figure holds at the
    /// start's prices only.
    pub prices_change: bool,
}

/// Whether a pool's prices change over the horizon.
fn changes(pool: &PoolFile) -> bool {
    pool.price_change_per_year.is_some_and(|r| r != 0.0)
        || pool.price_schedule.as_ref().is_some_and(|s| !s.is_empty())
        || pool.price_trace.is_some()
        || pool.electricity_change_per_year.is_some_and(|r| r != 0.0)
        || pool
            .electricity_schedule
            .as_ref()
            .is_some_and(|s| !s.is_empty())
        || pool.electricity_trace.is_some()
}

/// The break-even utilisation of every `on_prem` and `reserved` pool of a resolved scenario
/// (defaults filled in), in the file's order.
pub fn break_evens(file: &ScenarioFile) -> Vec<BreakEven> {
    file.pool
        .iter()
        .filter(|p| matches!(p.pool_type, PoolType::OnPrem | PoolType::Reserved))
        .map(|pool| break_even(file, pool))
        .collect()
}

/// The cheapest on-demand pool of `gpu`: its name and price per GPU-hour.
fn on_demand_pool<'a>(file: &'a ScenarioFile, gpu: Option<&str>) -> Option<(&'a PoolFile, f64)> {
    file.pool
        .iter()
        .filter(|p| p.pool_type == PoolType::OnDemand && p.gpu.as_deref() == gpu)
        .filter_map(|p| Some((p, p.price_per_gpu_h?)))
        .filter(|(_, price)| price.is_finite() && *price > 0.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn break_even(file: &ScenarioFile, pool: &PoolFile) -> BreakEven {
    let gpu = pool.gpu.as_deref();
    let alternative = on_demand_pool(file, gpu);
    let prices_change = changes(pool) || alternative.is_some_and(|(p, _)| changes(p));
    let on_demand = alternative.map(|(p, price)| (p.name.as_str(), price));
    let against = |name: &str, price: f64| format!("{name} at {price} per GPU-hour");
    let (utilization, against) = match pool.pool_type {
        PoolType::Reserved => {
            let price = pool.price_per_gpu_h.unwrap_or(f64::NAN);
            let paid = price * (1.0 - pool.discount.unwrap_or(0.0));
            match on_demand {
                Some((name, p)) => (Some(paid / p), against(name, p)),
                None => (
                    Some(paid / price),
                    format!(
                        "its own list price of {price} per GPU-hour (no on-demand pool of its GPU type)"
                    ),
                ),
            }
        }
        _ => match on_demand {
            Some((name, p)) => (on_prem_break_even(pool, p), against(name, p)),
            None => (
                None,
                format!(
                    "nothing: no on-demand pool of {} in the scenario",
                    gpu.unwrap_or("its GPU type")
                ),
            ),
        },
    };
    BreakEven {
        pool: pool.name.clone(),
        utilization: utilization.filter(|u| !u.is_nan() && *u >= 0.0),
        against,
        prices_change,
    }
}

/// `u* = F / (P - V)` (see the module's documentation); infinite when a busy GPU-hour's energy
/// alone costs more than on demand.
fn on_prem_break_even(pool: &PoolFile, on_demand_price: f64) -> Option<f64> {
    let gpus = f64::from(pool.gpus_per_node?);
    let capex = pool.capex_per_node?;
    let months = f64::from(pool.amortization_months?);
    let residual = pool.residual_fraction.unwrap_or(0.0);
    let opex = pool.opex_per_node_month?;
    let power = pool.power_kw_per_node?;
    let idle = pool.idle_power_kw_per_node.unwrap_or(power);
    let energy_per_kwh = pool.pue? * pool.electricity_per_kwh?;
    let fixed = (capex * (1.0 - residual) / months + opex) / (gpus * HOURS_PER_MONTH)
        + idle * energy_per_kwh / gpus;
    let variable = (power - idle) / gpus * energy_per_kwh;
    let margin = on_demand_price - variable;
    Some(if margin > 0.0 {
        fixed / margin
    } else {
        f64::INFINITY
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_scenario() -> ScenarioFile {
        super::super::load_default(&[]).unwrap().resolved
    }

    /// The default's DGX and reservation, worked by hand ("about 26 %" and "about
    /// 65 %"). DGX: F = (350,000 x 0.9 / 36 + 1,500) / (8 x 730.5) + 3.0 x 1.3 x 0.22 / 8
    /// = 10,250 / 5,844 + 0.10725 = 1.753936 + 0.10725 = 1.861186 per GPU-hour;
    /// V = 7.2 / 8 x 0.286 = 0.2574; u* = 1.861186 / (7.5 - 0.2574) = 1.861186 / 7.2426
    /// = 0.256978.
    /// Reserved: 7.5 x 0.65 / 7.5 = 0.65.
    #[test]
    fn the_defaults_dgx_and_reservations_break_even_at_26_and_65_percent() {
        let found = break_evens(&default_scenario());
        let names: Vec<&str> = found.iter().map(|b| b.pool.as_str()).collect();
        assert_eq!(names, ["dgx", "aws-p5-reserved-y1", "aws-p5-reserved-y2"]);
        let dgx = found[0].utilization.unwrap();
        assert!((dgx - 0.256_978).abs() < 1e-6, "{dgx}");
        assert_eq!(found[0].against, "aws-p5-on-demand at 7.5 per GPU-hour");
        for reserved in &found[1..] {
            assert!((reserved.utilization.unwrap() - 0.65).abs() < 1e-12);
        }
        assert!(found.iter().all(|b| !b.prices_change));
    }

    #[test]
    fn a_falling_cloud_price_is_noted() {
        let mut file = default_scenario();
        for pool in &mut file.pool {
            if pool.pool_type == PoolType::OnDemand {
                pool.price_change_per_year = Some(-0.3);
            }
        }
        let found = break_evens(&file);
        assert!(found.iter().all(|b| b.prices_change));
        // Still the start's prices: 26 % and 65 %.
        assert!((found[0].utilization.unwrap() - 0.256_978).abs() < 1e-6);
    }

    #[test]
    fn without_an_on_demand_price_a_reservation_compares_with_its_list_price() {
        let mut file = default_scenario();
        file.pool.retain(|p| p.pool_type != PoolType::OnDemand);
        let found = break_evens(&file);
        assert_eq!(found[0].utilization, None);
        assert!(found[0].against.contains("no on-demand pool of H100"));
        assert!((found[1].utilization.unwrap() - 0.65).abs() < 1e-12);
        assert!(found[1].against.starts_with("its own list price of 7.5"));
    }

    #[test]
    fn the_cheapest_on_demand_pool_of_the_same_type_is_the_alternative() {
        let mut file = default_scenario();
        let mut cheaper = file
            .pool
            .iter()
            .find(|p| p.pool_type == PoolType::OnDemand)
            .unwrap()
            .clone();
        cheaper.name = "cheap".into();
        cheaper.price_per_gpu_h = Some(5.0);
        let mut other_type = cheaper.clone();
        other_type.name = "a100".into();
        other_type.gpu = Some("A100".into());
        other_type.price_per_gpu_h = Some(1.0);
        file.pool.push(cheaper);
        file.pool.push(other_type);
        let found = break_evens(&file);
        // 7.5 x 0.65 / 5 = 0.975; the DGX: 1.861186 / (5 - 0.2574) = 1.861186 / 4.7426 = 0.392440.
        assert!((found[1].utilization.unwrap() - 0.975).abs() < 1e-12);
        assert!((found[0].utilization.unwrap() - 0.392_440).abs() < 1e-6);
        // Energy dearer than on-demand: it never pays off.
        let mut dear = default_scenario();
        for pool in &mut dear.pool {
            if pool.pool_type == PoolType::OnPrem {
                pool.electricity_per_kwh = Some(100.0);
            }
        }
        assert_eq!(break_evens(&dear)[0].utilization, Some(f64::INFINITY));
    }
}
