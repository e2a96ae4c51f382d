//! When owned and committed capacity pays off: the break-even utilisation of each
//! `on_prem` and `reserved` pool, month by month from the scenario's price curves.
//!
//! The comparison is with buying the same GPU-hours on demand: a busy GPU-hour on an owned or
//! reserved pool replaces one GPU-hour of the cheapest `on_demand` pool of the same GPU type in
//! the scenario. Capacity that is paid whether used or not costs less than those GPU-hours in
//! month `m` once its utilisation `u` (busy / paid GPU-hours) is above
//!
//! - `on_prem`: `u*(m) = F(m) / (P(m) - V(m))`, with the fixed cost per GPU-hour (amortised
//!   view) `F(m) = (capex_per_node x (1 - residual_fraction) / amortization_months +
//!   opex_per_node_month) / (gpus_per_node x 730.5) + idle_power_kw_per_node x pue x E(m) /
//!   gpus_per_node` and the energy a busy GPU adds `V(m) = (power_kw_per_node -
//!   idle_power_kw_per_node) / gpus_per_node x pue x E(m)`; 730.5 is the hours of an average
//!   calendar month. Without an on-demand price of its GPU type there is nothing to break even
//!   against.
//! - `reserved`: `u*(m) = L(s) x (1 - discount) / P(m)`, where `L(s)` is the list price in the
//!   month `s` the term starts (the price the whole term pays, as billed); without an
//!   on-demand pool of its GPU type, `P(m)` is the reservation's own list price `L(m)`.
//!
//! Month `m`'s prices are the time-weighted means over that calendar month of the curves in
//! [`Config`]: `P(m)` the lowest of the on-demand pools' prices per GPU-hour (a yearly change,
//! a schedule or a trace, see [`PriceCurve::month_mean`]), `E(m)` the on-prem pool's
//! electricity price per kWh. The months are those the pool is paid for within the horizon:
//! from its purchase to its sale (on-prem), its term (reserved). The capital term of `F` is
//! the amortisation rate throughout: the range says how the prices move the line, not how
//! the books end the amortisation. When no price moves, every month gives the same value and
//! the result is that single value; when prices move it is the range over those months,
//! with the month in which each end first occurs.
//!
//! Above 100 % the pool never pays off in that month. Node failures, provisioning, billing
//! increments, availability windows and idle timeouts of the on-demand alternative are left
//! out: this is the line a planner draws on the back of an envelope, for the chart to
//! compare the simulated utilisation with.

use super::config::{Config, Pool, PoolKind, PriceCurve};

/// Hours of an average calendar month (365.25 x 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.5;

/// Break-even utilisations closer than this are the same value (a constant price gives
/// exactly equal months; this only absorbs rounding in the curves).
const SAME: f64 = 1e-12;

/// One owned or reserved pool's break-even utilisation, month by month.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakEven {
    pub pool: String,
    /// What it is compared with, at the prices of its first month: "aws-p5-on-demand at 7.5
    /// per GPU-hour", or why nothing.
    pub against: String,
    /// The month (0 = the start month) of `by_month[0]`.
    pub first_month_idx: usize,
    /// Busy / paid GPU-hours above which the pool costs less than on demand, in each month it
    /// is paid for from `first_month_idx` on (infinite: a busy GPU-hour's energy alone costs
    /// more than on demand). Empty when there is no price to compare with.
    pub by_month: Vec<f64>,
    /// The prices that move over those months, in words ("cloud-h100's price per GPU-hour
    /// from 7.5 to 2.57"); empty when none does.
    pub moving_prices: Vec<String>,
}

/// The two ends of a break-even that changes over the horizon; months count from 1 (the
/// start month), as the report says them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub low: f64,
    /// The first month at `low`.
    pub low_month: usize,
    pub high: f64,
    /// The first month at `high`.
    pub high_month: usize,
}

/// Against which months a utilisation holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Above the break-even in every month the pool is paid for.
    AboveThroughout,
    /// Below it in every month.
    BelowThroughout,
    /// Above it from the first month to this month (counted from 1), below after.
    AboveUntil(usize),
    /// Below it until the month before, above from this month (counted from 1) on.
    AboveFrom(usize),
    /// Above it in this many of the months, not in one stretch.
    AboveIn(usize),
}

impl BreakEven {
    /// The single break-even utilisation when no price moves it (the same in every month);
    /// None when it changes, or when there is nothing to compare with.
    pub fn single(&self) -> Option<f64> {
        let first = *self.by_month.first()?;
        self.by_month
            .iter()
            .all(|u| same(*u, first))
            .then_some(first)
    }

    /// The lowest and highest month's break-even when prices move it; None when it is a
    /// single value or there is nothing to compare with.
    pub fn range(&self) -> Option<Range> {
        if self.by_month.is_empty() || self.single().is_some() {
            return None;
        }
        let mut range = Range {
            low: f64::INFINITY,
            low_month: 0,
            high: f64::NEG_INFINITY,
            high_month: 0,
        };
        for (k, u) in self.by_month.iter().enumerate() {
            let month = self.first_month_idx + k + 1;
            if *u < range.low && !same(*u, range.low) {
                range.low = *u;
                range.low_month = month;
            }
            if *u > range.high && !same(*u, range.high) {
                range.high = *u;
                range.high_month = month;
            }
        }
        Some(range)
    }

    /// Whether the pool never pays off: its break-even is above 100 % in every month.
    pub fn never_pays_off(&self) -> bool {
        !self.by_month.is_empty() && self.by_month.iter().all(|u| *u > 1.0)
    }

    /// How a utilisation `busy` (busy / paid GPU-hours) stands against the break-even of each
    /// month; None when there is nothing to compare with.
    pub fn standing(&self, busy: f64) -> Option<Standing> {
        let above: Vec<bool> = self.by_month.iter().map(|u| busy >= *u).collect();
        let n_above = above.iter().filter(|a| **a).count();
        let first = self.first_month_idx + 1;
        Some(if above.is_empty() {
            return None;
        } else if n_above == above.len() {
            Standing::AboveThroughout
        } else if n_above == 0 {
            Standing::BelowThroughout
        } else if above[..n_above].iter().all(|a| *a) {
            Standing::AboveUntil(first + n_above - 1)
        } else if above[above.len() - n_above..].iter().all(|a| *a) {
            Standing::AboveFrom(first + above.len() - n_above)
        } else {
            Standing::AboveIn(n_above)
        })
    }

    /// Whether the pool is paid for in every month of a horizon of `months` months.
    pub fn covers(&self, months: usize) -> bool {
        self.first_month_idx == 0 && self.by_month.len() == months
    }
}

/// A break-even utilisation in words: "26 %", or "over 100 %" (it never pays off).
pub fn percent(u: f64) -> String {
    if u > 1.0 {
        "over 100 %".into()
    } else {
        format!("{:.0} %", 100.0 * u)
    }
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= SAME * a.abs().max(b.abs()))
}

/// The break-even utilisation of every `on_prem` and `reserved` pool of `config`, in the
/// file's order.
pub fn break_evens(config: &Config) -> Vec<BreakEven> {
    config
        .pools
        .iter()
        .filter(|p| matches!(p.kind, PoolKind::OnPrem(_) | PoolKind::Reserved(_)))
        .map(|pool| break_even(config, pool))
        .collect()
}

/// The months (indices from the start month) `pool` is paid for within the horizon; at
/// least one, so that a pool bought after the horizon still says what it would break even at.
fn paid_months(config: &Config, pool: &Pool) -> std::ops::Range<usize> {
    let months = config.calendar.months();
    let (from, to) = match &pool.kind {
        PoolKind::OnPrem(on_prem) => (
            on_prem.purchase_month as usize,
            on_prem.sold_month.map_or(months, |s| s as usize),
        ),
        PoolKind::Reserved(reserved) => (
            reserved.start_month as usize,
            reserved.start_month as usize + reserved.term_months as usize,
        ),
        _ => (0, months),
    };
    let from = from.min(months - 1);
    from..to.min(months).max(from + 1)
}

/// The on-demand pools of `pool`'s GPU type with a positive price. The instance sizes of one
/// pool at one price count once, under the pool's name.
fn on_demand_pools<'a>(config: &'a Config, pool: &Pool) -> Vec<(&'a str, &'a PriceCurve)> {
    let mut pools: Vec<(&str, &PriceCurve)> = Vec::new();
    for p in config.pools.iter().filter(|p| p.gpu == pool.gpu) {
        let PoolKind::OnDemand(elastic) = &p.kind else {
            continue;
        };
        if !(elastic.price_per_gpu_h.is_finite() && elastic.price_per_gpu_h > 0.0) {
            continue;
        }
        let same_price = |q: &Pool| {
            q.shape.is_some()
                && q.family() == p.family()
                && q.elastic().is_some_and(|e| e.price == elastic.price)
        };
        let sizes_at_one_price = config.pools.iter().filter(|q| same_price(q)).count() > 1;
        let name = if sizes_at_one_price {
            p.family()
        } else {
            p.name.as_str()
        };
        if !pools
            .iter()
            .any(|(n, c)| *n == name && **c == elastic.price)
        {
            pools.push((name, &elastic.price));
        }
    }
    pools
}

/// How a price curve moves over `months`, in words, if it does.
fn movement(
    config: &Config,
    what: &str,
    unit: &str,
    curve: &PriceCurve,
    months: &std::ops::Range<usize>,
) -> Option<String> {
    let prices: Vec<f64> = months
        .clone()
        .map(|m| curve.month_mean(&config.calendar, m))
        .collect();
    let (first, last) = (prices[0], prices[prices.len() - 1]);
    if prices.iter().all(|p| same(*p, first)) {
        return None;
    }
    let low = prices.iter().copied().fold(f64::INFINITY, f64::min);
    let high = prices.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let shown = |p: f64| crate::format::significant(p, 3);
    Some(
        if same(first, low) && same(last, high) || same(first, high) && same(last, low) {
            format!(
                "{what} goes from {} to {} per {unit}",
                shown(first),
                shown(last)
            )
        } else {
            format!(
                "{what} moves between {} and {} per {unit}",
                shown(low),
                shown(high)
            )
        },
    )
}

fn break_even(config: &Config, pool: &Pool) -> BreakEven {
    let calendar = &config.calendar;
    let months = paid_months(config, pool);
    let alternatives = on_demand_pools(config, pool);
    // The cheapest on-demand pool in each month: its index in `alternatives` and price.
    let cheapest: Vec<Option<(usize, f64)>> = months
        .clone()
        .map(|m| {
            alternatives
                .iter()
                .enumerate()
                .map(|(k, (_, curve))| (k, curve.month_mean(calendar, m)))
                .filter(|(_, p)| p.is_finite() && *p > 0.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
        })
        .collect();
    let mut moving_prices = Vec::new();
    let mut used: Vec<usize> = cheapest.iter().flatten().map(|(k, _)| *k).collect();
    used.dedup();
    used.sort_unstable();
    used.dedup();
    for k in used {
        let (name, curve) = alternatives[k];
        moving_prices.extend(movement(
            config,
            &format!("{name}'s price"),
            "GPU-hour",
            curve,
            &months,
        ));
    }
    let against = |name: &str, price: f64| format!("{name} at {price} per GPU-hour");
    let first = cheapest[0].map(|(k, p)| (alternatives[k].0, p));
    let (by_month, against): (Vec<f64>, String) = match &pool.kind {
        PoolKind::Reserved(reserved) => {
            let paid = reserved.effective_price_per_gpu_h(calendar);
            match first {
                Some((name, p)) => (
                    cheapest
                        .iter()
                        .map(|c| paid / c.map_or(f64::NAN, |c| c.1))
                        .collect(),
                    against(name, p),
                ),
                None => {
                    moving_prices.extend(movement(
                        config,
                        &format!("{}'s list price", pool.name),
                        "GPU-hour",
                        &reserved.list_price,
                        &months,
                    ));
                    let own = |m: usize| reserved.list_price.month_mean(calendar, m);
                    (
                        months.clone().map(|m| paid / own(m)).collect(),
                        format!(
                            "its own list price of {} per GPU-hour (no on-demand pool of its GPU type)",
                            own(months.start)
                        ),
                    )
                }
            }
        }
        PoolKind::OnPrem(on_prem) => match first {
            Some((name, p)) => {
                moving_prices.extend(movement(
                    config,
                    &format!("{}'s electricity", pool.name),
                    "kWh",
                    &on_prem.electricity,
                    &months,
                ));
                let by_month = months
                    .clone()
                    .zip(&cheapest)
                    .map(|(m, c)| {
                        let kwh = on_prem.electricity.month_mean(calendar, m);
                        on_prem_break_even(
                            on_prem,
                            pool.gpus_per_node,
                            kwh,
                            c.map_or(f64::NAN, |c| c.1),
                        )
                    })
                    .collect();
                (by_month, against(name, p))
            }
            None => (
                Vec::new(),
                format!(
                    "nothing: no on-demand pool of {} in the scenario",
                    config.gpu_types[pool.gpu]
                ),
            ),
        },
        _ => unreachable!("only owned and reserved pools break even"),
    };
    let valid = by_month.iter().all(|u| !u.is_nan() && *u >= 0.0);
    BreakEven {
        pool: pool.name.clone(),
        against,
        first_month_idx: months.start,
        by_month: if valid { by_month } else { Vec::new() },
        moving_prices: if valid { moving_prices } else { Vec::new() },
    }
}

/// `u* = F / (P - V)` at electricity price `kwh` and on-demand price `on_demand_price` (see
/// the module's documentation); infinite when a busy GPU-hour's energy alone costs more than
/// on demand.
fn on_prem_break_even(
    on_prem: &super::config::OnPrem,
    gpus_per_node: u32,
    kwh: f64,
    on_demand_price: f64,
) -> f64 {
    let gpus = f64::from(gpus_per_node);
    let months = f64::from(on_prem.amortization_months);
    let energy_per_kwh = on_prem.pue * kwh;
    let fixed = (on_prem.capex_per_node * (1.0 - on_prem.residual_fraction) / months
        + on_prem.opex_per_node_month)
        / (gpus * HOURS_PER_MONTH)
        + on_prem.idle_power_kw_per_node * energy_per_kwh / gpus;
    let variable =
        (on_prem.power_kw_per_node - on_prem.idle_power_kw_per_node) / gpus * energy_per_kwh;
    let margin = on_demand_price - variable;
    if margin > 0.0 {
        fixed / margin
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{DEFAULT_SCENARIO, load_default, load_text};

    fn default_config() -> Config {
        load_default(&[]).unwrap().config
    }

    /// The default scenario with its on-demand pool's price changing by `change` a year.
    fn default_with_on_demand_change(change: f64) -> Config {
        let text = DEFAULT_SCENARIO.replacen(
            "name = \"aws-p5-on-demand\"\ntype = \"on_demand\"\n",
            &format!(
                "name = \"aws-p5-on-demand\"\ntype = \"on_demand\"\nprice_change_per_year = {change}\n"
            ),
            1,
        );
        assert_ne!(text, DEFAULT_SCENARIO, "the default's on-demand pool moved");
        load_text(&text, std::path::Path::new("t.toml"), "t", &[])
            .unwrap()
            .config
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    /// The default's DGX and reservation, worked by hand ("about 26 %" and "about
    /// 65 %"). DGX: F = (350,000 x 0.9 / 36 + 1,500) / (8 x 730.5) + 3.0 x 1.3 x 0.22 / 8
    /// = 10,250 / 5,844 + 0.10725 = 1.753936 + 0.10725 = 1.861186 per GPU-hour;
    /// V = 7.2 / 8 x 0.286 = 0.2574; u* = 1.861186 / (7.5 - 0.2574) = 1.861186 / 7.2426
    /// = 0.256978.
    /// Reserved: 7.5 x 0.65 / 7.5 = 0.65. No price moves: one value in every month.
    #[test]
    fn the_defaults_dgx_and_reservations_break_even_at_26_and_65_percent() {
        let found = break_evens(&default_config());
        let names: Vec<&str> = found.iter().map(|b| b.pool.as_str()).collect();
        assert_eq!(names, ["dgx", "aws-p5-reserved-y1", "aws-p5-reserved-y2"]);
        let dgx = found[0].single().unwrap();
        assert!(close(dgx, 0.256_978), "{dgx}");
        assert_eq!(found[0].against, "aws-p5-on-demand at 7.5 per GPU-hour");
        assert_eq!(found[0].by_month.len(), 24);
        for reserved in &found[1..] {
            assert!((reserved.single().unwrap() - 0.65).abs() < 1e-12);
            assert_eq!(reserved.by_month.len(), 12);
        }
        // The second year's reservation is paid for from its 13th month.
        assert_eq!(found[2].first_month_idx, 12);
        assert!(found.iter().all(|b| b.range().is_none()));
        assert!(found.iter().all(|b| b.moving_prices.is_empty()));
        assert_eq!(found[0].standing(0.3), Some(Standing::AboveThroughout));
        assert_eq!(found[0].standing(0.2), Some(Standing::BelowThroughout));
    }

    /// On-demand 30 % cheaper a year, compounded monthly: month m (0 = the start) costs
    /// 7.5 x 0.7^(m / 12).
    /// - Last month (m = 23): 0.7^(23/12) = e^(1.916667 x ln 0.7) = e^(1.916667 x -0.356675)
    ///   = e^(-0.683627) = 0.504783, so P = 3.785871; the DGX (F and V as above):
    ///   1.861186 / (3.785871 - 0.2574) = 1.861186 / 3.528471 = 0.527476; the first month
    ///   is still 0.256978.
    /// - First year's reservation (months 0..12, list price 7.5 at its start, so 4.875 paid):
    ///   0.65 in month 0; m = 11: 0.7^(11/12) = e^(-0.326952) = 0.721114, P = 5.408355,
    ///   4.875 / 5.408355 = 0.901378.
    /// - Second year's (months 12..24; its own list price does not move, 4.875 paid): m = 12:
    ///   4.875 / (7.5 x 0.7) = 4.875 / 5.25 = 0.928571; m = 23: 4.875 / 3.785871 = 1.287682,
    ///   over 100 %: in its last months it cannot pay off.
    #[test]
    fn a_falling_cloud_price_gives_a_range_from_the_first_to_the_last_month() {
        let found = break_evens(&default_with_on_demand_change(-0.3));
        let dgx = found[0].range().unwrap();
        assert!(close(dgx.low, 0.256_978), "{dgx:?}");
        assert!(close(dgx.high, 0.527_476), "{dgx:?}");
        assert_eq!((dgx.low_month, dgx.high_month), (1, 24));
        assert_eq!(found[0].single(), None);
        assert_eq!(
            found[0].moving_prices,
            ["aws-p5-on-demand's price goes from 7.5 to 3.79 per GPU-hour"]
        );
        let y1 = found[1].range().unwrap();
        assert!(close(y1.low, 0.65) && close(y1.high, 0.901_378), "{y1:?}");
        assert_eq!((y1.low_month, y1.high_month), (1, 12));
        let y2 = found[2].range().unwrap();
        assert!(
            close(y2.low, 0.928_571) && close(y2.high, 1.287_682),
            "{y2:?}"
        );
        assert_eq!((y2.low_month, y2.high_month), (13, 24));
        // 40 % busy is above the DGX's line while 1.861186 / (P - 0.2574) <= 0.4, that is
        // P >= 4.910365 = 7.5 x 0.7^(m/12): m <= 12 x ln(0.654715) / ln(0.7) = 14.25, so
        // months 0..=14, the 15th month counted from 1.
        assert_eq!(found[0].standing(0.4), Some(Standing::AboveUntil(15)));
        assert_eq!(found[0].standing(0.6), Some(Standing::AboveThroughout));
        assert_eq!(found[2].standing(0.95), Some(Standing::AboveUntil(13)));
    }

    /// A rising price: the line falls, and a pool in between is above it only from a month on.
    /// 7.5 x 1.2^(m/12): the DGX at 30 % busy needs P >= 1.861186 / 0.3 + 0.2574 = 6.461353,
    /// never reached below 7.5, so it is above throughout; at 25 % it needs P >= 7.702144:
    /// 1.2^(m/12) >= 1.026953, m >= 12 x ln(1.026953) / ln(1.2) = 1.75: months 2.. (0-based),
    /// the 3rd counted from 1.
    #[test]
    fn a_rising_cloud_price_is_above_the_line_only_from_a_month() {
        let found = break_evens(&default_with_on_demand_change(0.2));
        assert_eq!(found[0].standing(0.3), Some(Standing::AboveThroughout));
        assert_eq!(found[0].standing(0.25), Some(Standing::AboveFrom(3)));
    }

    /// A price trace's step inside a month counts for that month by its time-weighted mean.
    /// The on-demand price falls from 7.5 to 5 halfway through 2027-07 (month 6, 31 days: the
    /// step at 372 h into it), so month 6 costs (7.5 + 5) / 2 = 6.25 on average.
    /// DGX: months 0..6 at 0.256978; month 6: 1.861186 / (6.25 - 0.2574) = 1.861186 / 5.9926
    /// = 0.310581; from month 7: 1.861186 / (5 - 0.2574) = 1.861186 / 4.7426 = 0.392440.
    #[test]
    fn a_price_trace_step_counts_by_the_time_it_holds_in_its_month() {
        let mut config = default_config();
        let step_h = config.calendar.month_starts_h[6] + 372.0;
        for pool in &mut config.pools {
            if let PoolKind::OnDemand(elastic) = &mut pool.kind {
                elastic.price =
                    PriceCurve::Steps(std::sync::Arc::new(vec![(0.0, 7.5), (step_h, 5.0)]));
            }
        }
        let dgx = &break_evens(&config)[0];
        assert!(close(dgx.by_month[5], 0.256_978));
        assert!(close(dgx.by_month[6], 0.310_581), "{}", dgx.by_month[6]);
        assert!(close(dgx.by_month[7], 0.392_440));
        let range = dgx.range().unwrap();
        assert_eq!((range.low_month, range.high_month), (1, 8));
        assert_eq!(
            dgx.moving_prices,
            ["aws-p5-on-demand's price goes from 7.5 to 5 per GPU-hour"]
        );
        // 35 % busy: above in months 0..=6, the 7th counted from 1.
        assert_eq!(dgx.standing(0.35), Some(Standing::AboveUntil(7)));
    }

    #[test]
    fn without_an_on_demand_price_a_reservation_compares_with_its_list_price() {
        let mut config = default_config();
        config
            .pools
            .retain(|p| !matches!(p.kind, PoolKind::OnDemand(_)));
        let found = break_evens(&config);
        assert!(found[0].by_month.is_empty());
        assert_eq!(found[0].standing(0.5), None);
        assert!(found[0].against.contains("no on-demand pool of H100"));
        assert!((found[1].single().unwrap() - 0.65).abs() < 1e-12);
        assert!(found[1].against.starts_with("its own list price of 7.5"));
    }

    #[test]
    fn the_cheapest_on_demand_pool_of_the_same_type_is_the_alternative() {
        let mut config = default_config();
        let mut cheaper = config
            .pools
            .iter()
            .find(|p| matches!(p.kind, PoolKind::OnDemand(_)))
            .unwrap()
            .clone();
        cheaper.name = "cheap".into();
        if let PoolKind::OnDemand(elastic) = &mut cheaper.kind {
            elastic.price_per_gpu_h = 5.0;
            elastic.price = PriceCurve::Monthly(vec![5.0; 24]);
        }
        let mut other_type = cheaper.clone();
        other_type.name = "a100".into();
        other_type.gpu = config.gpu_types.len();
        if let PoolKind::OnDemand(elastic) = &mut other_type.kind {
            elastic.price_per_gpu_h = 1.0;
            elastic.price = PriceCurve::Monthly(vec![1.0; 24]);
        }
        config.gpu_types.push("A100".into());
        config.pools.push(cheaper);
        config.pools.push(other_type);
        let found = break_evens(&config);
        // 7.5 x 0.65 / 5 = 0.975; the DGX: 1.861186 / (5 - 0.2574) = 1.861186 / 4.7426 = 0.392440.
        assert!((found[1].single().unwrap() - 0.975).abs() < 1e-12);
        assert!(close(found[0].single().unwrap(), 0.392_440));
        // Energy dearer than on-demand: it never pays off.
        let mut dear = default_config();
        for pool in &mut dear.pools {
            if let PoolKind::OnPrem(on_prem) = &mut pool.kind {
                on_prem.electricity = PriceCurve::Monthly(vec![100.0; 24]);
            }
        }
        let dgx = &break_evens(&dear)[0];
        assert_eq!(dgx.single(), Some(f64::INFINITY));
        assert!(dgx.never_pays_off());
        assert_eq!(percent(dgx.by_month[0]), "over 100 %");
    }
}
