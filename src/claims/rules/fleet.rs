//! Claims 4, 5, 6 and 9: owning capacity against renting it.

use super::super::estimate::{Band, Estimate, Point, crossing, percent, percent_ci, value_ci};
use super::super::{Finding, Verdict};
use super::{at_point, point_at};
use crate::records::metric;

/// The p95 wait an owned fleet must keep to count as carrying the demand (claim 4).
const WAIT_P95_MAX_H: f64 = 1.0;

/// Claim 4: the utilisation of the smallest owned fleet that keeps the p95 wait within an
/// hour; holds if it is 40-60 % ("around 50").
pub fn utilisation(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.40, 0.60);
    let first = points.first().ok_or("the sweep has no points")?;
    let cloud = first.stat("cloud-on-demand", metric::UTILIZATION)?;
    let mut sized = None;
    let mut sizes = Vec::new();
    for p in points {
        let wait = p.stat("owned-fleet", metric::WAIT_P95_H)?;
        let busy = p.stat("owned-fleet", metric::UTILIZATION)?;
        sizes.push(format!(
            "{:.0} nodes: {}, p95 wait {:.1} h",
            p.x(),
            percent(busy.mean),
            wait.mean
        ));
        if sized.is_none() && wait.mean <= WAIT_P95_MAX_H {
            sized = Some((p.x(), busy));
        }
    }
    let sizes = sizes.join("; ");
    let Some((nodes, busy)) = sized else {
        return Ok(Finding {
            verdict: Verdict::Undecided(format!(
                "no fleet size tried keeps the p95 wait within {WAIT_P95_MAX_H} h"
            )),
            figure: format!("owned fleets: {sizes}"),
            boundary: None,
        });
    };
    Ok(Finding {
        verdict: at_point(band.judge(busy)),
        figure: format!(
            "the smallest owned fleet that keeps the p95 wait within {WAIT_P95_MAX_H:.0} h ({nodes:.0} DGX nodes) is {} busy; the cloud GPU-hours the buyer pays for are {} busy",
            percent_ci(busy),
            percent_ci(cloud)
        ),
        boundary: Some(format!(
            "utilisation and p95 wait by owned fleet size: {sizes}"
        )),
    })
}

/// The specialist and hyperscaler prices of `scenarios/claims/05-on-prem-break-even.toml`.
const SPECIALIST_PRICE: f64 = 4.5;
const HYPERSCALER_PRICE: f64 = 7.5;

/// Claim 5: the owned fleet's utilisation at which owning costs the same as renting from the
/// specialist cloud (interpolated over the demand sweep, with the interval given by the
/// paired differences' bounds); holds if it is 50-70 % ("about 60").
pub fn on_prem_break_even(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.50, 0.70);
    let mut busy = Vec::new();
    let mut specialist = Vec::new();
    let mut hyperscaler = Vec::new();
    for p in points {
        busy.push(p.stat("own-dgx", metric::UTILIZATION)?.mean);
        specialist.push(p.stat("own-dgx", metric::TOTAL_COST_VS_BASELINE)?);
        let own = p.stat("own-dgx", metric::TOTAL_COST)?;
        hyperscaler.push(own.minus(p.stat("rent-hyperscaler", metric::TOTAL_COST)?));
    }
    let break_even = |differences: &[Estimate]| -> Option<Estimate> {
        let at = |f: fn(&Estimate) -> f64| {
            let ys: Vec<f64> = differences.iter().map(f).collect();
            crossing(&busy, &ys, 0.0)
        };
        // Owning costs less where the difference is negative: the curve of the interval's
        // upper bound crosses zero last (highest utilisation), the lower bound's first.
        Some(Estimate::new(
            at(|e| e.mean)?,
            at(|e| e.low)?,
            at(|e| e.high)?,
        ))
    };
    let range = format!(
        "{} to {}",
        percent(busy.first().copied().unwrap_or(f64::NAN)),
        percent(busy.last().copied().unwrap_or(f64::NAN))
    );
    let Some(against_specialist) = break_even(&specialist) else {
        let cheaper = specialist.iter().all(|d| d.high < 0.0);
        return Ok(Finding {
            verdict: Verdict::DoesNotHold,
            figure: format!(
                "owning is {} than renting at {SPECIALIST_PRICE} EUR/GPU-h at every utilisation tried ({range})",
                if cheaper { "cheaper" } else { "dearer" }
            ),
            boundary: None,
        });
    };
    let hyper = break_even(&hyperscaler).map_or_else(
        || format!("no break-even against hyperscaler on-demand within {range}"),
        |e| {
            format!(
                "above {} against hyperscaler on-demand at {HYPERSCALER_PRICE} EUR/GPU-h",
                percent(e.mean)
            )
        },
    );
    Ok(Finding {
        verdict: at_point(band.judge(against_specialist)),
        figure: format!(
            "owning four DGX H100 costs the same as renting from a specialist cloud at {SPECIALIST_PRICE} EUR/GPU-h when they are {} busy (3 years, amortised)",
            percent_ci(against_specialist)
        ),
        boundary: Some(format!(
            "on-prem pays off above {} utilisation against a {SPECIALIST_PRICE} EUR/GPU-h cloud, {hyper}",
            percent(against_specialist.mean)
        )),
    })
}

/// The DGX payback claimed, in months.
const PAYBACK_BAND: Band = Band::new(18.0, 24.0);
/// The cloud price (EUR per GPU-hour) of the claim's base point.
const PAYBACK_BASE_PRICE: f64 = 4.5;

/// Claim 6: the cash view's break-even month of the DGX against renting at 4.5 EUR per
/// GPU-hour; holds if it is 18-24 months.
pub fn dgx_payback(points: &[Point]) -> Result<Finding, String> {
    let base = point_at(points, PAYBACK_BASE_PRICE)?;
    let replications = base.count("own-dgx", metric::TOTAL_COST)?;
    let paid_back = base.count("own-dgx", metric::BREAK_EVEN_MONTHS)?;
    let months = base.stat("own-dgx", metric::BREAK_EVEN_MONTHS)?;
    let prices: Vec<f64> = points.iter().map(Point::x).collect();
    let mut means = Vec::new();
    for p in points {
        let n = p.count("own-dgx", metric::BREAK_EVEN_MONTHS)?;
        means.push(if n == 0 {
            f64::INFINITY
        } else {
            p.stat("own-dgx", metric::BREAK_EVEN_MONTHS)?.mean
        });
    }
    let within = |limit: f64| {
        crossing(
            &prices,
            &means.iter().map(|m| m.min(1e6)).collect::<Vec<_>>(),
            limit,
        )
    };
    let boundary = match (within(PAYBACK_BAND.high), within(PAYBACK_BAND.low)) {
        (Some(p24), Some(p18)) => Some(format!(
            "the DGX pays back within 24 months when renting costs at least {p24:.2} EUR/GPU-h, within 18 from {p18:.2}"
        )),
        (Some(p24), None) => Some(format!(
            "the DGX pays back within 24 months when renting costs at least {p24:.2} EUR/GPU-h"
        )),
        _ => None,
    };
    if paid_back == 0 {
        return Ok(Finding {
            verdict: Verdict::DoesNotHold,
            figure: format!(
                "the DGX never pays back within the horizon against renting at {:.1} EUR/GPU-h",
                base.x()
            ),
            boundary,
        });
    }
    let some = if paid_back < replications {
        format!(" ({paid_back} of {replications} replications pay back)")
    } else {
        String::new()
    };
    Ok(Finding {
        verdict: if paid_back < replications {
            Verdict::Undecided(format!(
                "{} of {replications} replications never pay back",
                replications - paid_back
            ))
        } else {
            at_point(PAYBACK_BAND.judge(months))
        },
        figure: format!(
            "eight DGX H100 about 80 % busy pay back in {}{some} against renting at {:.1} EUR/GPU-h (cash view)",
            value_ci(months, 1, " months"),
            base.x()
        ),
        boundary,
    })
}

/// The claim's hybrid in `scenarios/claims/09-hybrid.toml`.
const SMALL_BASE: &str = "small-base-burst";

/// Claim 9: at each company size (the endpoint's mean GPUs), which strategy is cheapest, and
/// whether clearly (its interval below every other's); holds if the small base is clearly
/// cheapest at every size.
pub fn hybrid(points: &[Point]) -> Result<Finding, String> {
    let mut wins = Vec::new();
    let mut ties = 0;
    let mut at = Vec::new();
    let mut small = Vec::new();
    for p in points {
        small.push(p.saving(SMALL_BASE, "all-cloud")?.mean);
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
        let [(cheapest, best), (_, second), ..] = costs[..] else {
            return Err("fewer than two strategies in the results".into());
        };
        let clear = best.high < second.low;
        if cheapest == SMALL_BASE && clear {
            wins.push(p.x());
        } else if !clear && costs.iter().take(2).any(|c| c.0 == SMALL_BASE) {
            ties += 1;
        }
        let saving = p.saving(cheapest, "all-cloud").map_or(String::new(), |s| {
            format!(", {} below all-cloud", percent(s.mean))
        });
        at.push(format!(
            "{:.0} GPUs: {cheapest}{}{saving}",
            p.x(),
            if clear { "" } else { " (tied)" }
        ));
    }
    let at = at.join("; ");
    let verdict = if wins.len() == points.len() {
        Verdict::Holds
    } else if let (Some(low), Some(high)) = (wins.first(), wins.last()) {
        let sizes = if low == high {
            format!("{low:.0}")
        } else {
            format!("{low:.0} to {high:.0}")
        };
        Verdict::HoldsOnlyWhen(format!(
            "the company's endpoint needs about {sizes} GPUs on average (of {:.0} to {:.0} tried)",
            points.first().map_or(f64::NAN, Point::x),
            points.last().map_or(f64::NAN, Point::x)
        ))
    } else if ties > 0 {
        Verdict::Undecided("the small base ties with another strategy and wins nowhere".into())
    } else {
        Verdict::DoesNotHold
    };
    let (low, high) = small
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &s| {
            (l.min(s), h.max(s))
        });
    Ok(Finding {
        verdict,
        figure: format!("cheapest strategy by the endpoint's mean demand: {at}"),
        boundary: Some(format!(
            "the small base with burst saves {} to {} against all-cloud over the sizes tried",
            percent(low),
            percent(high)
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::estimate::tests::point;
    use super::*;

    fn fleet_point(nodes: f64, busy: f64, wait_h: f64) -> Point {
        point(
            &[nodes],
            &[
                ("cloud-on-demand", metric::UTILIZATION, 0.74, 0.73, 0.75),
                (
                    "owned-fleet",
                    metric::UTILIZATION,
                    busy,
                    busy - 0.01,
                    busy + 0.01,
                ),
                ("owned-fleet", metric::WAIT_P95_H, wait_h, wait_h, wait_h),
            ],
        )
    }

    #[test]
    fn utilisation_is_read_at_the_smallest_fleet_with_short_waits() {
        let points = [
            fleet_point(6.0, 0.76, 20.0),
            fleet_point(10.0, 0.46, 0.1),
            fleet_point(12.0, 0.38, 0.0),
        ];
        let finding = utilisation(&points).unwrap();
        assert_eq!(finding.verdict, Verdict::Holds);
        assert!(
            finding.figure.contains("(10 DGX nodes) is 46.0 %"),
            "{}",
            finding.figure
        );
        let busy = [fleet_point(6.0, 0.76, 0.5)];
        assert_eq!(utilisation(&busy).unwrap().verdict, Verdict::DoesNotHold);
        let edge = [fleet_point(6.0, 0.605, 0.5)];
        assert!(matches!(
            utilisation(&edge).unwrap().verdict,
            Verdict::Undecided(_)
        ));
        let slow = [fleet_point(6.0, 0.76, 20.0)];
        assert!(matches!(
            utilisation(&slow).unwrap().verdict,
            Verdict::Undecided(_)
        ));
    }

    /// Owning costs `own_minus_rent` more than the specialist at utilisation `busy`.
    fn break_even_point(busy: f64, own_minus_rent: f64) -> Point {
        point(
            &[busy],
            &[
                ("own-dgx", metric::UTILIZATION, busy, busy, busy),
                (
                    "own-dgx",
                    metric::TOTAL_COST_VS_BASELINE,
                    own_minus_rent,
                    own_minus_rent - 10.0,
                    own_minus_rent + 10.0,
                ),
                ("own-dgx", metric::TOTAL_COST, 1000.0, 995.0, 1005.0),
                (
                    "rent-hyperscaler",
                    metric::TOTAL_COST,
                    1000.0 - own_minus_rent * 2.0,
                    995.0,
                    1005.0,
                ),
            ],
        )
    }

    #[test]
    fn on_prem_break_even_is_where_the_paired_difference_crosses_zero() {
        // +100 at 50 %, -100 at 70 %: break-even at 60 %, within 59.0-61.0 % (±10 of 200 per 20 points).
        let finding =
            on_prem_break_even(&[break_even_point(0.5, 100.0), break_even_point(0.7, -100.0)])
                .unwrap();
        assert_eq!(finding.verdict, Verdict::Holds);
        assert!(
            finding.figure.contains("60.0 % (95 % CI 59.0 to 61.0 %)"),
            "{}",
            finding.figure
        );
        let early =
            on_prem_break_even(&[break_even_point(0.2, 100.0), break_even_point(0.4, -100.0)])
                .unwrap();
        assert_eq!(early.verdict, Verdict::DoesNotHold);
        assert!(
            early
                .boundary
                .unwrap()
                .starts_with("on-prem pays off above 30 % utilisation")
        );
        let never =
            on_prem_break_even(&[break_even_point(0.2, -100.0), break_even_point(0.4, -200.0)])
                .unwrap();
        assert_eq!(never.verdict, Verdict::DoesNotHold);
        assert!(never.figure.contains("cheaper"));
    }

    fn payback_point(price: f64, months: f64, paid_back: u32) -> Point {
        let mut p = point(
            &[price],
            &[
                ("own-dgx", metric::TOTAL_COST, 1.0, 1.0, 1.0),
                (
                    "own-dgx",
                    metric::BREAK_EVEN_MONTHS,
                    months,
                    months - 0.5,
                    months + 0.5,
                ),
            ],
        );
        p.summary[1].n = paid_back;
        p
    }

    #[test]
    fn dgx_payback_is_judged_at_the_base_price() {
        let points = [
            payback_point(3.0, 30.0, 20),
            payback_point(4.5, 19.0, 20),
            payback_point(6.0, 14.0, 20),
        ];
        let finding = dgx_payback(&points).unwrap();
        assert_eq!(finding.verdict, Verdict::Holds);
        // 24 months between 30 at 3.0 and 19 at 4.5: 3 + 1.5 * 6/11 = 3.82; 18 between 19 and 14: 4.8.
        assert_eq!(
            finding.boundary.as_deref(),
            Some(
                "the DGX pays back within 24 months when renting costs at least 3.82 EUR/GPU-h, within 18 from 4.80"
            )
        );
        let late = [payback_point(4.5, 26.0, 20)];
        assert_eq!(dgx_payback(&late).unwrap().verdict, Verdict::DoesNotHold);
        let some = [payback_point(4.5, 20.0, 15)];
        assert!(matches!(
            dgx_payback(&some).unwrap().verdict,
            Verdict::Undecided(_)
        ));
        let never = [payback_point(4.5, f64::NAN, 0)];
        assert_eq!(dgx_payback(&never).unwrap().verdict, Verdict::DoesNotHold);
    }

    /// Total costs of the four strategies (± 10).
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

    #[test]
    fn the_hybrid_must_be_clearly_cheapest() {
        let small_wins = hybrid_point(4.0, [1000.0, 950.0, 600.0, 800.0]);
        let large_wins = hybrid_point(24.0, [2000.0, 1900.0, 1500.0, 1200.0]);
        let tie = hybrid_point(14.0, [1500.0, 1400.0, 1000.0, 1005.0]);
        assert_eq!(
            hybrid(std::slice::from_ref(&small_wins)).unwrap().verdict,
            Verdict::Holds
        );
        let finding = hybrid(&[small_wins.clone(), tie.clone(), large_wins.clone()]).unwrap();
        assert_eq!(
            finding.verdict,
            Verdict::HoldsOnlyWhen(
                "the company's endpoint needs about 4 GPUs on average (of 4 to 24 tried)".into()
            )
        );
        assert!(
            finding.figure.contains("14 GPUs: small-base-burst (tied)"),
            "{}",
            finding.figure
        );
        assert!(matches!(
            hybrid(&[tie, large_wins.clone()]).unwrap().verdict,
            Verdict::Undecided(_)
        ));
        assert_eq!(hybrid(&[large_wins]).unwrap().verdict, Verdict::DoesNotHold);
    }
}
