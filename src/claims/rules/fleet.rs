//! Claims 4, 5, 6 and 9: owning capacity against renting it.

use super::super::bisect::{Boundary, Search, bisect, boundary, bracket};
use super::super::estimate::{Band, Estimate, Margin, Point, percent, percent_ci, value_ci};
use super::super::figures;
use super::super::{Evidence, Finding, Position, Verdict};
use super::at_point;
use crate::records::metric;

/// The strategies of `scenarios/claims/04-utilisation.toml`.
const OWNED_FLEET: &str = "owned-fleet";
const CLOUD_ON_DEMAND: &str = "cloud-on-demand";
/// Of `05-on-prem-break-even.toml` and `06-dgx-payback.toml`.
const OWN_DGX: &str = "own-dgx";
const RENT_HYPERSCALER: &str = "rent-hyperscaler";
/// Of `09-hybrid.toml`.
const SMALL_BASE: &str = "small-base-burst";

/// The p95 wait an owned fleet must keep to count as carrying the demand (claim 4's own
/// definition, as its scenario states it).
const WAIT_P95_MAX_H: f64 = 1.0;
/// Bisection precisions, in the swept fields' units.
const ARRIVALS_PRECISION_PER_DAY: f64 = 0.1;
const PRICE_PRECISION_PER_GPU_H: f64 = 0.02;
const ENDPOINT_PRECISION_GPUS: f64 = 0.5;

/// Claim 4: the utilisation of the smallest owned fleet that keeps the p95 wait within an
/// hour (found by direct runs between the sweep's sizes), and of the cloud GPU-hours the
/// buyer pays for; holds if both are 40-60 % ("around 50"), holds only when the GPUs are
/// owned (or rented) if only that one is.
pub fn utilisation(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.40, 0.60);
    let owned = figures::first_pool(e.config, OWNED_FLEET)?;
    let first = e.points.first().ok_or("the sweep has no points")?;
    let cloud = first.stat(CLOUD_ON_DEMAND, metric::UTILIZATION)?;
    let mut sizes = Vec::new();
    for p in e.points {
        let wait = p.stat(OWNED_FLEET, metric::WAIT_P95_H)?;
        let busy = p.stat(OWNED_FLEET, metric::UTILIZATION)?;
        sizes.push(format!(
            "{:.0} nodes: {}, p95 wait {:.1} h",
            p.x(),
            percent(busy.mean),
            wait.mean
        ));
    }
    let sizes = sizes.join("; ");
    let side = |p: &Point| {
        p.stat(OWNED_FLEET, metric::WAIT_P95_H)
            .map(|w| w.mean - WAIT_P95_MAX_H)
    };
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &side,
        precision: 0.0,
        integer: true,
        rest: &[],
    };
    let sized = match boundary(e.probe, &ordered, &search)? {
        Some(b) if side(&b.to.1)? < 0.0 => Some((b.to.1.clone(), Some(b))),
        Some(b) => Some((b.from.1.clone(), Some(b))),
        None if side(first)? < 0.0 => Some((first.clone(), None)),
        None => None,
    };
    let Some((sized, found)) = sized else {
        return Ok(Finding {
            verdict: Verdict::Undecided(format!(
                "no fleet size tried keeps the p95 wait within {WAIT_P95_MAX_H} h"
            )),
            figure: format!("owned fleets: {sizes}"),
            boundary: None,
            margin: None,
        });
    };
    let busy = sized.stat(OWNED_FLEET, metric::UTILIZATION)?;
    let verdict = match (band.judge(busy), band.judge(cloud)) {
        (Position::Inside, Position::Inside) => Verdict::Holds,
        (Position::Straddles, _) | (_, Position::Straddles) => {
            Verdict::Undecided("an interval straddles the edge of the claim's range".into())
        }
        (Position::Inside, _) => Verdict::HoldsOnlyWhen(format!(
            "the GPUs are owned and sized for short waits: the rented GPU-hours the buyer pays for are {} busy",
            percent(cloud.mean)
        )),
        (_, Position::Inside) => Verdict::HoldsOnlyWhen(format!(
            "the GPUs are rented: an owned fleet sized for short waits is {} busy",
            percent(busy.mean)
        )),
        _ => Verdict::DoesNotHold,
    };
    let how = found.map_or_else(
        || "the smallest size tried".to_string(),
        |b| format!("the smallest size, {}", b.how()),
    );
    Ok(Finding {
        verdict,
        figure: format!(
            "the smallest owned fleet that keeps the p95 wait within {WAIT_P95_MAX_H:.0} h ({:.0} nodes of {}, {how}) is {} busy; the cloud GPU-hours the buyer pays for are {} busy",
            sized.x(),
            figures::node_label(e.config, owned),
            percent_ci(busy),
            percent_ci(cloud)
        ),
        boundary: Some(format!(
            "utilisation and p95 wait by owned fleet size: {sizes}"
        )),
        margin: band.margin(&[busy, cloud]),
    })
}

/// A break-even found by direct runs: the owned fleet's utilisation where `difference`
/// (owning minus renting) crosses zero, with the interval its own interval gives through the
/// slope between the sweep's points around it; and the bracket.
fn break_even(
    e: &Evidence<'_>,
    difference: &dyn Fn(&Point) -> Result<Estimate, String>,
) -> Result<Option<(Estimate, Boundary)>, String> {
    let side = |p: &Point| difference(p).map(|d| d.mean);
    let busy = |p: &Point| p.stat(OWN_DGX, metric::UTILIZATION).map(|u| u.mean);
    let ordered: Vec<&Point> = e.points.iter().collect();
    let Some((low, high)) = bracket(&ordered, &side)? else {
        return Ok(None);
    };
    let slope = (side(high)? - side(low)?) / (busy(high)? - busy(low)?);
    let search = Search {
        side: &side,
        precision: ARRIVALS_PRECISION_PER_DAY,
        integer: false,
        rest: &[],
    };
    let found = bisect(e.probe, low, high, &search)?;
    let at = (busy(&found.from.1)? + busy(&found.to.1)?) / 2.0;
    let half = (difference(&found.from.1)?.half_width() + difference(&found.to.1)?.half_width())
        / 2.0
        / slope.abs();
    Ok(Some((Estimate::new(at, at - half, at + half), found)))
}

/// Claim 5: the owned fleet's utilisation at which owning costs the same as renting from the
/// baseline's cloud (by direct runs on the demand); holds if it is 50-70 % ("about 60"),
/// holds only when renting costs the other cloud's price if only that break-even is.
pub fn on_prem_break_even(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.50, 0.70);
    let baseline = figures::baseline(e.config);
    let rent_price = figures::price_words(e.config, figures::first_pool(e.config, baseline)?)?;
    let other_price =
        figures::price_words(e.config, figures::first_pool(e.config, RENT_HYPERSCALER)?)?;
    let dgx = figures::first_pool(e.config, OWN_DGX)?;
    let fleet = format!(
        "{} nodes of {}",
        figures::nodes(dgx)?,
        figures::node_label(e.config, dgx)
    );
    let paired = |p: &Point| p.stat(OWN_DGX, metric::TOTAL_COST_VS_BASELINE);
    let unpaired = |p: &Point| {
        Ok(p.stat(OWN_DGX, metric::TOTAL_COST)?
            .minus(p.stat(RENT_HYPERSCALER, metric::TOTAL_COST)?))
    };
    let against_rent = break_even(e, &paired)?;
    let against_other = break_even(e, &unpaired)?;
    let busy = |p: &Point| p.stat(OWN_DGX, metric::UTILIZATION).map(|u| u.mean);
    let range = format!(
        "{} to {}",
        percent(busy(&e.points[0])?),
        percent(busy(&e.points[e.points.len() - 1])?)
    );
    let Some((at_rent, found)) = against_rent else {
        let cheaper = paired(&e.points[0])?.high < 0.0;
        return Ok(Finding {
            verdict: Verdict::DoesNotHold,
            figure: format!(
                "owning {fleet} is {} than renting at {rent_price} at every utilisation tried ({range})",
                if cheaper { "cheaper" } else { "dearer" }
            ),
            boundary: None,
            margin: None,
        });
    };
    let other_inside = against_other
        .as_ref()
        .is_some_and(|(u, _)| band.judge(*u) == Position::Inside);
    let condition = other_inside
        .then(|| format!("renting costs {other_price} (the {RENT_HYPERSCALER} strategy's price)"));
    let other = against_other.as_ref().map_or_else(
        || format!("no break-even against {other_price} within {range}"),
        |(u, _)| format!("above {} against {other_price}", percent(u.mean)),
    );
    Ok(Finding {
        verdict: at_point(band.judge(at_rent), condition),
        figure: format!(
            "owning {fleet} costs the same as renting at {rent_price} when they are {} busy ({} months, amortised)",
            percent_ci(at_rent),
            e.config.horizon_months
        ),
        boundary: Some(format!(
            "on-prem pays off above {} utilisation against a cloud at {rent_price} (at {} arrivals a day, {}), {other}",
            percent(at_rent.mean),
            found.value(2, ""),
            found.how()
        )),
        margin: band.margin(&[at_rent]),
    })
}

/// The DGX payback claimed, in months.
const PAYBACK_BAND: Band = Band::new(18.0, 24.0);

/// How far within `limit_months` the owned fleet's mean payback is at `p` (negative: later,
/// or some replications never pay back).
fn payback_within(p: &Point, limit_months: f64) -> Result<f64, String> {
    let replications = p.count(OWN_DGX, metric::TOTAL_COST)?;
    let paid_back = p.count(OWN_DGX, metric::BREAK_EVEN_MONTHS)?;
    if paid_back < replications || paid_back == 0 {
        return Ok(-f64::from(u32::MAX));
    }
    Ok(limit_months - p.stat(OWN_DGX, metric::BREAK_EVEN_MONTHS)?.mean)
}

/// The rented price from which the DGX pays back within `limit_months`, by direct runs.
fn payback_price(e: &Evidence<'_>, limit_months: f64) -> Result<Option<Boundary>, String> {
    let side = |p: &Point| payback_within(p, limit_months);
    let mut ordered: Vec<&Point> = e.points.iter().collect();
    ordered.sort_by(|a, b| a.x().total_cmp(&b.x()));
    let search = Search {
        side: &side,
        precision: PRICE_PRECISION_PER_GPU_H,
        integer: false,
        rest: &[],
    };
    boundary(e.probe, &ordered, &search)
}

/// Claim 6: the cash view's break-even month of the owned fleet against renting at the
/// scenario's own cloud price; holds if it is 18-24 months, holds only when renting costs
/// what gives 18-24 months (by direct runs on the price) otherwise.
pub fn dgx_payback(e: &Evidence<'_>) -> Result<Finding, String> {
    let baseline = figures::baseline(e.config);
    let unit = format!(" {}/GPU-h", e.config.currency);
    let cloud = figures::first_pool(e.config, baseline)?;
    let price = figures::price_per_gpu_h(cloud)?;
    let price_words = figures::price_words(e.config, cloud)?;
    let dgx = figures::first_pool(e.config, OWN_DGX)?;
    let base = figures::judged_point(e.points, e.swept, price)?;
    let replications = base.count(OWN_DGX, metric::TOTAL_COST)?;
    let paid_back = base.count(OWN_DGX, metric::BREAK_EVEN_MONTHS)?;
    let busy = base.pool_utilisation(OWN_DGX, &dgx.name)?;
    let (p24, p18) = (
        payback_price(e, PAYBACK_BAND.high)?,
        payback_price(e, PAYBACK_BAND.low)?,
    );
    let condition = match (&p24, &p18) {
        (Some(a), Some(b)) => Some(format!(
            "renting costs {} to {}",
            a.value(2, ""),
            b.value(2, &unit)
        )),
        (Some(a), None) => Some(format!("renting costs at least {}", a.value(2, &unit))),
        _ => None,
    };
    let boundary = p24.as_ref().map(|a| {
        let from_18 = p18.as_ref().map_or(String::new(), |b| {
            format!(", within 18 from {}", b.value(2, &unit))
        });
        format!(
            "the DGX pays back within 24 months when renting costs at least {}{from_18} ({})",
            a.value(2, &unit),
            a.how()
        )
    });
    let fleet = format!(
        "{} nodes of {} ({} busy)",
        figures::nodes(dgx)?,
        figures::node_label(e.config, dgx),
        percent(busy)
    );
    if paid_back == 0 {
        return Ok(Finding {
            verdict: at_point(Position::Above, condition),
            figure: format!(
                "{fleet} never pay back within the {}-month horizon against renting at {price_words}",
                e.config.horizon_months
            ),
            boundary,
            margin: None,
        });
    }
    let months = base.stat(OWN_DGX, metric::BREAK_EVEN_MONTHS)?;
    let verdict = if paid_back < replications {
        Verdict::Undecided(format!(
            "{} of {replications} replications never pay back",
            replications - paid_back
        ))
    } else {
        at_point(PAYBACK_BAND.judge(months), condition)
    };
    Ok(Finding {
        verdict,
        figure: format!(
            "{fleet} pay back in {} against renting at {price_words} (cash view)",
            value_ci(months, 1, " months")
        ),
        boundary,
        margin: PAYBACK_BAND.margin(&[months]),
    })
}

/// The total costs of every strategy at `p`, cheapest first.
fn costs_by_rank(p: &Point) -> Vec<(&str, Estimate)> {
    let mut costs: Vec<(&str, Estimate)> = p
        .summary
        .iter()
        .filter(|r| r.metric == metric::TOTAL_COST)
        .map(|r| {
            (
                r.strategy.as_str(),
                Estimate::new(r.mean, r.ci95_low, r.ci95_high),
            )
        })
        .collect();
    costs.sort_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
    costs
}

/// How clearly the cheapest strategy at `p` beats the second: their gap against the sum of
/// their half-widths (clear when the intervals are apart, the gap above zero).
fn clearness(best: Estimate, second: Estimate) -> Margin {
    let gap = second.mean - best.mean;
    let half = best.half_width() + second.half_width();
    Margin {
        estimate: Estimate::new(gap, gap - half, gap + half),
        edge: 0.0,
    }
}

/// The small base's cost minus the cheapest other strategy's at `p` (negative: it wins).
fn small_base_lead(p: &Point) -> Result<f64, String> {
    let costs = costs_by_rank(p);
    let own = costs
        .iter()
        .find(|c| c.0 == SMALL_BASE)
        .ok_or_else(|| format!("no `total_cost` of strategy `{SMALL_BASE}` in the results"))?;
    let other = costs
        .iter()
        .find(|c| c.0 != SMALL_BASE)
        .ok_or("fewer than two strategies in the results")?;
    Ok(own.1.mean - other.1.mean)
}

/// Claim 9: at each company size (the endpoint's mean GPUs), which strategy is cheapest, and
/// whether clearly (its interval below every other's); holds if the small base is clearly
/// cheapest at every size.
pub fn hybrid(e: &Evidence<'_>) -> Result<Finding, String> {
    let baseline = figures::baseline(e.config);
    let mut wins = Vec::new();
    let mut ties = 0;
    let mut at = Vec::new();
    let mut small = Vec::new();
    let mut margins = Vec::new();
    for p in e.points {
        small.push(p.saving(SMALL_BASE, baseline)?.mean);
        let costs = costs_by_rank(p);
        let [(cheapest, best), (_, second), ..] = costs[..] else {
            return Err("fewer than two strategies in the results".into());
        };
        let clear = best.high < second.low;
        margins.push(clearness(best, second));
        if cheapest == SMALL_BASE && clear {
            wins.push(p.x());
        } else if !clear && costs.iter().take(2).any(|c| c.0 == SMALL_BASE) {
            ties += 1;
        }
        let saving = p.saving(cheapest, baseline).map_or(String::new(), |s| {
            format!(", {} below {baseline}", percent(s.mean))
        });
        at.push(format!(
            "{:.0} GPUs: {cheapest}{}{saving}",
            p.x(),
            if clear { "" } else { " (tied)" }
        ));
    }
    let (first, last) = (e.points[0].x(), e.points[e.points.len() - 1].x());
    let verdict = if wins.len() == e.points.len() {
        Verdict::Holds
    } else if let (Some(low), Some(high)) = (wins.first(), wins.last()) {
        let sizes = if low == high {
            format!("{low:.0}")
        } else {
            format!("{low:.0} to {high:.0}")
        };
        Verdict::HoldsOnlyWhen(format!(
            "the company's endpoint needs about {sizes} GPUs on average (of {first:.0} to {last:.0} tried)"
        ))
    } else if ties > 0 {
        Verdict::Undecided("the small base ties with another strategy and wins nowhere".into())
    } else {
        Verdict::DoesNotHold
    };
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &small_base_lead,
        precision: ENDPOINT_PRECISION_GPUS,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?.map_or(String::new(), |b| {
        format!(
            "; it stops or starts being cheapest at an endpoint of {} GPUs ({})",
            b.value(1, ""),
            b.how()
        )
    });
    let (low, high) = small
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &s| {
            (l.min(s), h.max(s))
        });
    Ok(Finding {
        verdict,
        figure: format!(
            "cheapest strategy by the endpoint's mean demand: {}",
            at.join("; ")
        ),
        boundary: Some(format!(
            "the small base with burst saves {} to {} against {baseline} over the sizes tried{edge}",
            percent(low),
            percent(high)
        )),
        margin: margins
            .into_iter()
            .max_by(|a, b| a.closeness().total_cmp(&b.closeness())),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::estimate::tests::point;
    use super::super::tests::{config, judge};
    use super::*;
    use crate::records::PoolRow;

    fn fleet_point(nodes: f64, busy: f64, wait_h: f64, cloud: f64) -> Point {
        point(
            &[nodes],
            &[
                (
                    CLOUD_ON_DEMAND,
                    metric::UTILIZATION,
                    cloud,
                    cloud - 0.01,
                    cloud + 0.01,
                ),
                (
                    OWNED_FLEET,
                    metric::UTILIZATION,
                    busy,
                    busy - 0.01,
                    busy + 0.01,
                ),
                (OWNED_FLEET, metric::WAIT_P95_H, wait_h, wait_h, wait_h),
            ],
        )
    }

    /// Owned fleets `load / nodes` busy, with short waits from 9 nodes on.
    fn fleets(load: f64, cloud: f64) -> impl Fn(&[f64]) -> Point {
        move |v: &[f64]| {
            let wait_h = if v[0] >= 9.0 { 0.2 } else { 5.0 };
            fleet_point(v[0], load / v[0], wait_h, cloud)
        }
    }

    #[test]
    fn utilisation_gives_each_verdict() {
        let config = config("04-utilisation", &[]);
        let path = "pool.owned.nodes";
        let sizes = [6.0, 8.0, 10.0, 12.0];
        // 9 nodes, found by a direct run between 8 and 10, are 51 % busy.
        let holds = judge(utilisation, &config, path, &sizes, fleets(4.6, 0.5));
        assert_eq!(holds.verdict, Verdict::Holds, "{holds:?}");
        assert!(
            holds
                .figure
                .contains("(9 nodes of 8-GPU H100, the smallest size, found by bisection"),
            "{}",
            holds.figure
        );
        let only = judge(utilisation, &config, path, &sizes, fleets(4.6, 0.74));
        assert_eq!(
            only.verdict,
            Verdict::HoldsOnlyWhen("the GPUs are owned and sized for short waits: the rented GPU-hours the buyer pays for are 74 % busy".into())
        );
        let fails = judge(utilisation, &config, path, &sizes, fleets(7.0, 0.74));
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        let edge = judge(utilisation, &config, path, &sizes, fleets(5.445, 0.5));
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
        let slow = judge(utilisation, &config, path, &[6.0, 8.0], fleets(4.6, 0.5));
        assert!(matches!(slow.verdict, Verdict::Undecided(w) if w.contains("no fleet size")));
    }

    /// Demand `x` arrivals a day keeps the owned fleet `x / 40` busy; owning costs
    /// `1000 (u - break_even)` less than the baseline and `1000 (u - other)` less than the
    /// other cloud.
    fn demand(break_even: f64, other: f64) -> impl Fn(&[f64]) -> Point {
        move |v: &[f64]| {
            let u = v[0] / 40.0;
            let d = 1000.0 * (break_even - u);
            let own = 5000.0;
            let other_cost = own - 1000.0 * (other - u);
            point(
                &[v[0]],
                &[
                    (OWN_DGX, metric::UTILIZATION, u, u, u),
                    (
                        OWN_DGX,
                        metric::TOTAL_COST_VS_BASELINE,
                        d,
                        d - 10.0,
                        d + 10.0,
                    ),
                    (OWN_DGX, metric::TOTAL_COST, own, own - 5.0, own + 5.0),
                    (
                        RENT_HYPERSCALER,
                        metric::TOTAL_COST,
                        other_cost,
                        other_cost - 5.0,
                        other_cost + 5.0,
                    ),
                ],
            )
        }
    }

    #[test]
    fn on_prem_break_even_gives_each_verdict() {
        let config = config("05-on-prem-break-even", &[]);
        let path = "workload.jobs.arrivals_per_day";
        let rates = [4.0, 12.0, 20.0, 28.0, 36.0];
        let holds = judge(on_prem_break_even, &config, path, &rates, demand(0.6, 0.4));
        assert_eq!(holds.verdict, Verdict::Holds, "{holds:?}");
        // ± 10 of a slope of 1000 per unit of utilisation: ± 1 point.
        assert!(holds.figure.contains("owning 4 nodes of 8-GPU H100 costs the same as renting at 4.5 EUR/GPU-h (8-GPU instances; 1-GPU: 4.84) when they are 60."), "{}", holds.figure);
        assert!(
            holds.figure.contains("(36 months, amortised)"),
            "{}",
            holds.figure
        );
        let only = judge(on_prem_break_even, &config, path, &rates, demand(0.3, 0.55));
        assert_eq!(
            only.verdict,
            Verdict::HoldsOnlyWhen(
                "renting costs 7.5 EUR/GPU-h (the rent-hyperscaler strategy's price)".into()
            )
        );
        let fails = judge(on_prem_break_even, &config, path, &rates, demand(0.3, 0.15));
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        assert!(fails.boundary.unwrap().starts_with(
            "on-prem pays off above 30 % utilisation against a cloud at 4.5 EUR/GPU-h"
        ));
        let edge = judge(on_prem_break_even, &config, path, &rates, demand(0.5, 0.3));
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
        let never = judge(on_prem_break_even, &config, path, &rates, demand(0.0, 0.0));
        assert!(
            never
                .figure
                .contains("cheaper than renting at 4.5 EUR/GPU-h"),
            "{}",
            never.figure
        );
        // The price is the scenario's.
        let cheap = super::super::tests::config(
            "05-on-prem-break-even",
            &[("pool.specialist.price_per_gpu_h", 3.5)],
        );
        let finding = judge(on_prem_break_even, &cheap, path, &rates, demand(0.6, 0.4));
        assert!(
            finding.figure.contains("renting at 3.5 EUR/GPU-h"),
            "{}",
            finding.figure
        );
        // A price that falls over the horizon is given as its range: the break-even is the
        // whole horizon's, not one month's.
        let falling = super::super::tests::config(
            "05-on-prem-break-even",
            &[("pool.specialist.price_change_per_year", -0.25)],
        );
        let finding = judge(on_prem_break_even, &falling, path, &rates, demand(0.6, 0.4));
        let boundary = finding.boundary.unwrap();
        assert!(
            boundary.contains(
                "against a cloud at 4.5 EUR/GPU-h (8-GPU instances; 1-GPU: 4.84) at the start, 1.94 to 4.50 over the 36 months"
            ),
            "{boundary}"
        );
    }

    fn pool_row(strategy: &str, pool: &str, utilization: f64) -> PoolRow {
        PoolRow {
            strategy: strategy.into(),
            replication: 0,
            pool: pool.into(),
            pool_type: "on_prem".into(),
            gpu_hours_busy: 0.0,
            gpu_hours_paid: 0.0,
            cost: 0.0,
            cost_cash: 0.0,
            utilization,
            jobs_started: 0,
            preemptions: 0,
            failed_requests: 0,
            nodes_requested: 0,
            nodes_preempted: 0,
            node_failures: 0,
            gpu_hours_down: 0.0,
            available_share: 1.0,
        }
    }

    /// Payback in `months_at_1 / price` months, `paid_back` of 20 replications paying back at
    /// the scenario's price; the DGX 73 % busy.
    fn paybacks(months_at_1: f64, paid_back: u32) -> impl Fn(&[f64]) -> Point {
        move |v: &[f64]| {
            let months = months_at_1 / v[0];
            let mut p = point(
                &[v[0]],
                &[
                    (OWN_DGX, metric::TOTAL_COST, 1.0, 1.0, 1.0),
                    (
                        OWN_DGX,
                        metric::BREAK_EVEN_MONTHS,
                        months,
                        months - 0.5,
                        months + 0.5,
                    ),
                ],
            );
            if (v[0] - 4.5).abs() < 1e-9 {
                p.summary[1].n = paid_back;
            }
            p.pools.push(pool_row(OWN_DGX, "dgx", 0.73));
            p
        }
    }

    #[test]
    fn dgx_payback_gives_each_verdict() {
        let config = config("06-dgx-payback", &[]);
        let path = "pool.cloud.price_per_gpu_h";
        let prices = [3.0, 4.5, 6.0, 7.5];
        let holds = judge(dgx_payback, &config, path, &prices, paybacks(86.4, 20));
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(
            holds
                .figure
                .starts_with("8 nodes of 8-GPU H100 (73 % busy) pay back in 19.2 months"),
            "{}",
            holds.figure
        );
        // 24 months at 86.4 / 24 = 3.60, not at the chord's 3.75; 18 at 4.80.
        let boundary = holds.boundary.unwrap();
        let at = super::super::prices::tests::number_after(&boundary, "at least ");
        assert!((at - 3.6).abs() <= 0.02, "{boundary}");
        assert!(
            boundary.contains("found by bisection with 20 replications per run"),
            "{boundary}"
        );
        let only = judge(dgx_payback, &config, path, &prices, paybacks(126.0, 20));
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        let number_after = super::super::prices::tests::number_after;
        assert!(
            (number_after(condition, "renting costs ") - 5.25).abs() <= 0.02,
            "{condition}"
        );
        assert!(
            (number_after(condition, " to ") - 7.0).abs() <= 0.02,
            "{condition}"
        );
        let fails = judge(dgx_payback, &config, path, &prices, paybacks(300.0, 20));
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        let some = judge(dgx_payback, &config, path, &prices, paybacks(86.4, 15));
        assert!(matches!(some.verdict, Verdict::Undecided(_)), "{some:?}");
        let edge = judge(dgx_payback, &config, path, &prices, paybacks(108.9, 20));
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
        // The judged point is the scenario's price; without it, an error names it.
        let points: Vec<Point> = [3.0, 6.0]
            .iter()
            .map(|&x| paybacks(86.4, 20)(&[x]))
            .collect();
        let swept = [path.to_string()];
        let probe = super::super::tests::Model(paybacks(86.4, 20));
        let error = dgx_payback(&Evidence {
            config: &config,
            swept: &swept,
            points: &points,
            probe: &probe,
        })
        .unwrap_err();
        assert!(
            error.contains("no point at the scenario's own `pool.cloud.price_per_gpu_h` = 4.5"),
            "{error}"
        );
    }

    /// Total costs of the four strategies (± 10) at an endpoint of `gpus`.
    fn hybrid_point(gpus: f64, costs: [f64; 4]) -> Point {
        let names = [
            "all-cloud",
            "committed-plus-cloud",
            SMALL_BASE,
            "large-base-burst",
        ];
        let mut rows: Vec<(&str, &str, f64, f64, f64)> = names
            .iter()
            .zip(costs)
            .map(|(&n, c)| (n, metric::TOTAL_COST, c, c - 10.0, c + 10.0))
            .collect();
        let diffs: Vec<f64> = costs.iter().map(|c| c - costs[0]).collect();
        for (n, d) in names.iter().zip(&diffs) {
            rows.push((n, metric::TOTAL_COST_VS_BASELINE, *d, d - 5.0, d + 5.0));
        }
        point(&[gpus], &rows)
    }

    /// The small base costs `600 + slope x`, the large base `1200 - 10 x`.
    fn companies(slope: f64, tie: bool) -> impl Fn(&[f64]) -> Point {
        move |v: &[f64]| {
            let small = if tie { 1000.0 } else { 600.0 + slope * v[0] };
            let large = if tie { 1005.0 } else { 1200.0 - 10.0 * v[0] };
            hybrid_point(v[0], [3000.0, 2500.0, small, large])
        }
    }

    #[test]
    fn hybrid_gives_each_verdict() {
        let config = config("09-hybrid", &[]);
        let path = "service.chat.gpus";
        let sizes = [4.0, 8.0, 14.0, 24.0];
        assert_eq!(
            judge(hybrid, &config, path, &sizes, companies(0.0, false)).verdict,
            Verdict::Holds
        );
        // 600 + 20 x meets 1200 - 10 x at 20 GPUs.
        let only = judge(hybrid, &config, path, &sizes, companies(20.0, false));
        assert_eq!(
            only.verdict,
            Verdict::HoldsOnlyWhen(
                "the company's endpoint needs about 4 to 14 GPUs on average (of 4 to 24 tried)"
                    .into()
            )
        );
        let boundary = only.boundary.unwrap();
        assert!(
            (super::super::prices::tests::number_after(&boundary, "an endpoint of ") - 20.0).abs()
                <= 0.5,
            "{boundary}"
        );
        assert_eq!(
            judge(hybrid, &config, path, &sizes, companies(200.0, false)).verdict,
            Verdict::DoesNotHold
        );
        assert!(matches!(
            judge(hybrid, &config, path, &sizes, companies(0.0, true)).verdict,
            Verdict::Undecided(_)
        ));
    }
}
