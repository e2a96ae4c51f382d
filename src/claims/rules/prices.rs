//! Claims 1, 2, 3 and 7: what a list discount becomes on the bill.

use super::super::estimate::{Band, Estimate, Point, crossing, percent, percent_ci};
use super::super::{Finding, Verdict};
use super::{at_point, over_sweep, point_at};
use crate::records::metric;

/// The on-demand price of `scenarios/claims/01-spot-discount.toml`, against which its sweep's
/// spot prices are list discounts.
const SPOT_CLAIM_ON_DEMAND_PRICE: f64 = 7.5;

/// Claim 1: the bill's saving of all-spot against all-on-demand at each list discount; holds
/// where it is 60-90 %.
pub fn spot_discount(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.60, 0.90);
    let mut rows: Vec<(f64, Estimate)> = points
        .iter()
        .map(|p| {
            Ok((
                1.0 - p.x() / SPOT_CLAIM_ON_DEMAND_PRICE,
                p.saving("spot", "on-demand")?,
            ))
        })
        .collect::<Result<_, String>>()?;
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let discounts: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let means: Vec<f64> = rows.iter().map(|r| r.1.mean).collect();
    let positions: Vec<_> = rows.iter().map(|r| band.judge(r.1)).collect();
    let at = rows
        .iter()
        .map(|(d, s)| format!("{} off: {}", percent(*d), percent_ci(*s)))
        .collect::<Vec<_>>()
        .join("; ");
    let edge = crossing(&discounts, &means, band.low);
    let condition = edge.map(|d| format!("spot lists at least {} below on-demand", percent(d)));
    Ok(Finding {
        verdict: over_sweep(&positions, condition),
        figure: format!("the bill's saving of all-spot against all-on-demand, by list discount: {at}"),
        boundary: edge.map(|d| {
            format!(
                "the bill saves 60 % from a list discount of {} (preemptions and restarts take the rest)",
                percent(d)
            )
        }),
    })
}

/// Claim 2: the saving of spot with checkpoints against on-demand, by the spot nodes' mean
/// life; holds where it is 65-75 % ("about 70").
pub fn spot_checkpointing(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.65, 0.75);
    let rows: Vec<(f64, Estimate)> = points
        .iter()
        .map(|p| Ok((p.x(), p.saving("spot-checkpointed", "on-demand")?)))
        .collect::<Result<_, String>>()?;
    let lives: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let means: Vec<f64> = rows.iter().map(|r| r.1.mean).collect();
    let positions: Vec<_> = rows.iter().map(|r| band.judge(r.1)).collect();
    let base = point_at(points, 20.0)?;
    let saving = base.saving("spot-checkpointed", "on-demand")?;
    let edge = crossing(&lives, &means, band.low);
    let range = format!(
        "{} at {:.0} h to {} at {:.0} h",
        percent(means[0]),
        lives[0],
        percent(*means.last().unwrap_or(&f64::NAN)),
        lives.last().copied().unwrap_or(f64::NAN)
    );
    Ok(Finding {
        verdict: over_sweep(&positions, edge.map(|h| format!("spot nodes live at least {h:.0} h on average"))),
        figure: format!(
            "spot with checkpoints saves {} against on-demand when a spot node lives {:.0} h on average ({range} of node life)",
            percent_ci(saving),
            base.x()
        ),
        boundary: edge.map(|h| {
            format!("the saving reaches 65 % from a mean node life of {h:.0} h; the 70 % list discount is its ceiling")
        }),
    })
}

/// Claim 3: the best commitment's saving on the whole bill at each list discount; holds where
/// it is 30-40 %.
pub fn reserved_discount(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.30, 0.40);
    // The best commitment size at each list discount (the first parameter).
    let mut best: Vec<(f64, f64, Estimate)> = Vec::new();
    for p in points {
        let saving = p.saving("reserved-plus-on-demand", "on-demand")?;
        let nodes = p.values.get(1).copied().unwrap_or(f64::NAN);
        match best.iter_mut().find(|b| b.0 == p.x()) {
            Some(b) if b.2.mean >= saving.mean => {}
            Some(b) => *b = (p.x(), nodes, saving),
            None => best.push((p.x(), nodes, saving)),
        }
    }
    best.sort_by(|a, b| a.0.total_cmp(&b.0));
    let positions: Vec<_> = best.iter().map(|b| band.judge(b.2)).collect();
    let at = best
        .iter()
        .map(|(d, nodes, s)| {
            format!(
                "{} off: {} ({:.0} GPUs)",
                percent(*d),
                percent_ci(*s),
                nodes * 8.0
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let boundary = match (best.first(), best.last()) {
        (Some(first), Some(last)) if last.0 > first.0 && last.2.mean > first.2.mean => {
            // For a fixed commitment the bill is linear in the discount.
            let slope = (last.2.mean - first.2.mean) / (last.0 - first.0);
            let needed = first.0 + (band.low - first.2.mean) / slope;
            Some(format!(
                "the bill saves about {:.2} of the list discount; 30 % off the bill would take a list discount of about {} (extrapolated: the bill is linear in the discount)",
                slope,
                percent(needed)
            ))
        }
        _ => None,
    };
    Ok(Finding {
        verdict: over_sweep(&positions, None),
        figure: format!("the best commitment's saving on the whole bill, by list discount: {at}"),
        boundary,
    })
}

/// Claim 7: the saving of specialist-first (with hyperscaler fallback) against
/// hyperscaler-only at the claim's 60 % peak shortfall; holds if it is 30-50 %.
pub fn specialist_cloud(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(0.30, 0.50);
    let rows: Vec<(f64, Estimate)> = points
        .iter()
        .map(|p| Ok((p.x(), p.saving("specialist-first", "hyperscaler-only")?)))
        .collect::<Result<_, String>>()?;
    let shortfalls: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let means: Vec<f64> = rows.iter().map(|r| r.1.mean).collect();
    let base = point_at(points, 0.6)?;
    let saving = base.saving("specialist-first", "hyperscaler-only")?;
    let wait = base.stat("specialist-first", metric::WAIT_P95_H)?;
    let edge = crossing(&shortfalls, &means, band.low);
    let without = rows
        .first()
        .map(|r| r.1)
        .unwrap_or(Estimate::exact(f64::NAN));
    let verdict = match at_point(band.judge(saving)) {
        Verdict::Holds => match edge {
            Some(s) if s < 1.0 => {
                Verdict::HoldsOnlyWhen(format!("peak shortfalls stay below {}", percent(s)))
            }
            _ => Verdict::Holds,
        },
        other => other,
    };
    Ok(Finding {
        verdict,
        figure: format!(
            "specialist-first saves {} against hyperscaler-only at a {} weekday shortfall ({} with none), p95 wait {:.2} h",
            percent_ci(saving),
            percent(base.x()),
            percent(without.mean),
            wait.mean
        ),
        boundary: Some(match edge {
            Some(s) => format!(
                "the saving falls below 30 % from a peak shortfall of {}",
                percent(s)
            ),
            None => format!(
                "the saving stays {} 30 % over shortfalls of {} to {}",
                if means.iter().all(|&m| m >= band.low) {
                    "above"
                } else {
                    "below"
                },
                percent(shortfalls[0]),
                percent(*shortfalls.last().unwrap_or(&f64::NAN))
            ),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::estimate::tests::point;
    use super::*;

    /// A spot-discount point: spot at `price` saving `saving` (± 1 point) of a 1000 bill.
    fn spot_point(price: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[price],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    "spot",
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 10.0,
                    d + 10.0,
                ),
            ],
        )
    }

    #[test]
    fn spot_discount_holds_only_above_the_discount_that_saves_60_percent() {
        // 40 % off saves 30 %, 80 % off saves 70 %: 60 % is reached at 70 % off.
        let points = [spot_point(4.5, 0.30), spot_point(1.5, 0.70)];
        let finding = spot_discount(&points).unwrap();
        assert_eq!(
            finding.verdict,
            Verdict::HoldsOnlyWhen("spot lists at least 70 % below on-demand".into())
        );
        // Every saving in the band: holds; none: does not.
        let all = [spot_point(3.0, 0.62), spot_point(1.5, 0.75)];
        assert_eq!(spot_discount(&all).unwrap().verdict, Verdict::Holds);
        let none = [spot_point(4.5, 0.30), spot_point(3.0, 0.45)];
        assert_eq!(spot_discount(&none).unwrap().verdict, Verdict::DoesNotHold);
        // 60.5 % ± 1 straddles the edge.
        let edge = [spot_point(3.0, 0.605)];
        assert!(matches!(
            spot_discount(&edge).unwrap().verdict,
            Verdict::Undecided(_)
        ));
    }

    fn checkpoint_point(life_h: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[life_h],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    "spot-checkpointed",
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
            ],
        )
    }

    #[test]
    fn spot_checkpointing_needs_nodes_that_live_long_enough() {
        let points = [
            checkpoint_point(5.0, 0.45),
            checkpoint_point(20.0, 0.66),
            checkpoint_point(50.0, 0.68),
        ];
        let finding = spot_checkpointing(&points).unwrap();
        // 0.65 between 0.45 at 5 h and 0.66 at 20 h: 5 + 15 * 20/21 = 19.3 h.
        assert_eq!(
            finding.verdict,
            Verdict::HoldsOnlyWhen("spot nodes live at least 19 h on average".into())
        );
        assert!(
            finding
                .figure
                .starts_with("spot with checkpoints saves 66.0 %"),
            "{}",
            finding.figure
        );
        let short = [checkpoint_point(2.0, 0.2), checkpoint_point(5.0, 0.4)];
        assert_eq!(
            spot_checkpointing(&short).unwrap().verdict,
            Verdict::DoesNotHold
        );
    }

    fn reserved_point(discount: f64, nodes: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[discount, nodes],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    "reserved-plus-on-demand",
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
            ],
        )
    }

    #[test]
    fn reserved_discount_judges_the_best_commitment_on_the_bill() {
        let points = [
            reserved_point(0.3, 2.0, 0.10),
            reserved_point(0.3, 3.0, 0.08),
            reserved_point(0.4, 2.0, 0.16),
            reserved_point(0.4, 3.0, 0.17),
        ];
        let finding = reserved_discount(&points).unwrap();
        assert_eq!(finding.verdict, Verdict::DoesNotHold);
        assert!(
            finding.figure.contains("30 % off: 10.0 %"),
            "{}",
            finding.figure
        );
        assert!(
            finding
                .figure
                .contains("40 % off: 17.0 % (95 % CI 16.5 to 17.5 %) (24 GPUs)"),
            "{}",
            finding.figure
        );
        // Slope 0.7 per unit of discount: 30 % off the bill at 0.3 + 0.2/0.7 = 59 % off the list.
        assert!(finding.boundary.unwrap().contains("about 59 %"));
        let good = [
            reserved_point(0.3, 2.0, 0.31),
            reserved_point(0.4, 2.0, 0.39),
        ];
        assert_eq!(reserved_discount(&good).unwrap().verdict, Verdict::Holds);
    }

    fn specialist_point(shortfall: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[shortfall],
            &[
                (
                    "hyperscaler-only",
                    metric::TOTAL_COST,
                    1000.0,
                    990.0,
                    1010.0,
                ),
                (
                    "specialist-first",
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
                ("specialist-first", metric::WAIT_P95_H, 0.1, 0.1, 0.1),
            ],
        )
    }

    #[test]
    fn specialist_cloud_is_judged_at_the_claimed_shortfall() {
        let points = [
            specialist_point(0.0, 0.40),
            specialist_point(0.6, 0.34),
            specialist_point(0.9, 0.26),
        ];
        let finding = specialist_cloud(&points).unwrap();
        // 30 % between 0.34 at 0.6 and 0.26 at 0.9: 0.6 + 0.3 * 0.5 = 75 %.
        assert_eq!(
            finding.verdict,
            Verdict::HoldsOnlyWhen("peak shortfalls stay below 75 %".into())
        );
        let eaten = [specialist_point(0.0, 0.40), specialist_point(0.6, 0.25)];
        assert_eq!(
            specialist_cloud(&eaten).unwrap().verdict,
            Verdict::DoesNotHold
        );
        let edge = [specialist_point(0.0, 0.40), specialist_point(0.6, 0.302)];
        assert!(matches!(
            specialist_cloud(&edge).unwrap().verdict,
            Verdict::Undecided(_)
        ));
        let flat = [
            specialist_point(0.0, 0.40),
            specialist_point(0.6, 0.38),
            specialist_point(0.9, 0.36),
        ];
        assert_eq!(specialist_cloud(&flat).unwrap().verdict, Verdict::Holds);
    }
}
