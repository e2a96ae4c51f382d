//! Claims 1, 2, 3 and 7: what a list discount becomes on the bill.

use super::super::bisect::{Boundary, Search, boundary};
use super::super::estimate::{Band, Estimate, Point, percent, percent_ci};
use super::super::figures;
use super::super::{Evidence, Finding};
use super::{at_point, over_sweep};
use crate::records::metric;

/// The strategies of `scenarios/claims/01-spot-discount.toml` and `02-spot-checkpointing.toml`.
const SPOT: &str = "spot";
const SPOT_CHECKPOINTED: &str = "spot-checkpointed";
/// Of `03-reserved-discount.toml` and `07-specialist-cloud.toml`.
const RESERVED: &str = "reserved-plus-on-demand";
const SPECIALIST_FIRST: &str = "specialist-first";

/// Bisection precisions, in the swept fields' units.
const PRICE_PRECISION_PER_GPU_H: f64 = 0.01;
const NODE_LIFE_PRECISION_H: f64 = 0.5;
const DISCOUNT_PRECISION: f64 = 0.005;
const SHORTFALL_PRECISION: f64 = 0.01;
/// The deepest list discount a reservation is tried at when the sweep's do not reach the
/// claim's saving on the bill (three-year commitments list 56-65 % off).
const DISCOUNT_TRIED_MAX: f64 = 0.9;

/// A fraction to one decimal of a percent: `64.1 %`.
pub(super) fn percent_1(fraction: f64) -> String {
    format!("{:.1} %", fraction * 100.0)
}

/// A boundary on a fraction: `63.2 % ± 0.3 %`.
fn percent_pm(boundary: &Boundary) -> String {
    format!(
        "{:.1} % ± {:.1} %",
        boundary.x() * 100.0,
        boundary.precision() * 100.0
    )
}

/// Claim 1: the bill's saving of all-spot against all-on-demand at each list discount of the
/// sweep that lies in the claim's 60-90 %; holds where every such saving lies in 60-90 %.
/// The list discounts are the swept spot prices against the baseline's on-demand price.
pub fn spot_discount(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.60, 0.90);
    let baseline = figures::baseline(e.config);
    let on_demand_price = figures::price_per_gpu_h(figures::first_pool(e.config, baseline)?)?;
    let unit = format!(" {}/GPU-h", e.config.currency);
    let discount_of = |price: f64| 1.0 - price / on_demand_price;
    let mut rows: Vec<(f64, Estimate, &Point)> = Vec::new();
    for p in e.points {
        rows.push((discount_of(p.x()), p.saving(SPOT, baseline)?, p));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let claimed: Vec<Estimate> = rows
        .iter()
        .filter(|r| band.low - 1e-9 <= r.0 && r.0 <= band.high + 1e-9)
        .map(|r| r.1)
        .collect();
    if claimed.is_empty() {
        return Err(format!(
            "no spot price of the sweep lists 60-90 % below the on-demand {on_demand_price}{unit}"
        ));
    }
    let side = |p: &Point| p.saving(SPOT, baseline).map(|s| s.mean - band.low);
    let ordered: Vec<&Point> = rows.iter().map(|r| r.2).collect();
    let search = Search {
        side: &side,
        precision: PRICE_PRECISION_PER_GPU_H,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let positions: Vec<_> = claimed.iter().map(|&s| band.judge(s)).collect();
    // The discount's precision is the price's over the on-demand price.
    let discount_pm = |b: &Boundary| {
        format!(
            "{} ± {:.1} %",
            percent_1(discount_of(b.x())),
            b.precision() / on_demand_price * 100.0
        )
    };
    let condition = edge
        .as_ref()
        .map(|b| format!("spot lists at least {} below on-demand", discount_pm(b)));
    let at = rows
        .iter()
        .map(|(d, s, _)| format!("{} off: {}", percent(*d), percent_ci(*s)))
        .collect::<Vec<_>>()
        .join("; ");
    Ok(Finding {
        verdict: over_sweep(&positions, condition),
        figure: format!(
            "the bill's saving of all-spot against all-on-demand at {on_demand_price}{unit}, by list discount: {at}"
        ),
        boundary: edge.map(|b| {
            format!(
                "the bill saves 60 % from a list discount of {} (spot at {}, {}); preemptions and restarts take the rest",
                discount_pm(&b),
                b.value(3, &unit),
                b.how()
            )
        }),
        margin: band.margin(&claimed),
    })
}

/// Claim 2: the saving of spot with checkpoints against on-demand, by the spot nodes' mean
/// life; holds where it is 65-75 % ("about 70"). The figure is read at the scenario's own
/// node life.
pub fn spot_checkpointing(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.65, 0.75);
    let baseline = figures::baseline(e.config);
    let spot_pool = figures::first_pool(e.config, SPOT_CHECKPOINTED)?;
    let list_discount = 1.0
        - figures::price_per_gpu_h(spot_pool)?
            / figures::price_per_gpu_h(figures::first_pool(e.config, baseline)?)?;
    let base = figures::judged_point(e.points, e.swept, figures::preemption_mean_h(spot_pool)?)?;
    let saving = base.saving(SPOT_CHECKPOINTED, baseline)?;
    let mut savings = Vec::new();
    for p in e.points {
        savings.push(p.saving(SPOT_CHECKPOINTED, baseline)?);
    }
    let side = |p: &Point| {
        p.saving(SPOT_CHECKPOINTED, baseline)
            .map(|s| s.mean - band.low)
    };
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &side,
        precision: NODE_LIFE_PRECISION_H,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let (first, last) = (&e.points[0], &e.points[e.points.len() - 1]);
    let range = format!(
        "{} at {:.0} h to {} at {:.0} h",
        percent(savings[0].mean),
        first.x(),
        percent(savings[savings.len() - 1].mean),
        last.x()
    );
    let positions: Vec<_> = savings.iter().map(|&s| band.judge(s)).collect();
    Ok(Finding {
        verdict: over_sweep(
            &positions,
            edge.as_ref()
                .map(|b| format!("spot nodes live at least {} h on average", b.value(1, ""))),
        ),
        figure: format!(
            "spot with checkpoints saves {} against on-demand when a spot node lives {:.0} h on average ({range} of node life)",
            percent_ci(saving),
            base.x()
        ),
        boundary: edge.map(|b| {
            format!(
                "the saving reaches 65 % from a mean node life of {} h ({}); the {} list discount is its ceiling",
                b.value(1, ""),
                b.how(),
                percent(list_discount)
            )
        }),
        margin: band.margin(&savings),
    })
}

/// The best commitment (the second swept field, nodes) at each list discount (the first):
/// `(discount, nodes, saving, point)`, by discount.
fn best_commitments<'p>(
    e: &Evidence<'p>,
    baseline: &str,
) -> Result<Vec<(f64, f64, Estimate, &'p Point)>, String> {
    let mut best: Vec<(f64, f64, Estimate, &Point)> = Vec::new();
    for p in e.points {
        let saving = p.saving(RESERVED, baseline)?;
        let nodes = p.values.get(1).copied().unwrap_or(f64::NAN);
        match best.iter_mut().find(|b| b.0 == p.x()) {
            Some(b) if b.2.mean >= saving.mean => {}
            Some(b) => *b = (p.x(), nodes, saving, p),
            None => best.push((p.x(), nodes, saving, p)),
        }
    }
    best.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(best)
}

/// Claim 3: the best commitment's saving on the whole bill at the scenario's own list
/// discount; holds if it is 30-40 %, holds only when the list discount is at least the one
/// that reaches 30 % (by bisection) if that lies within the sweep.
pub fn reserved_discount(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.30, 0.40);
    let baseline = figures::baseline(e.config);
    let reserved = figures::first_pool(e.config, RESERVED)?;
    let gpus_per_node = f64::from(figures::gpus_per_node(reserved));
    let judged_discount = figures::discount(reserved)?;
    let best = best_commitments(e, baseline)?;
    let judged = best
        .iter()
        .find(|b| (b.0 - judged_discount).abs() < 1e-9)
        .ok_or_else(|| {
            format!(
                "the sweep has no point at the scenario's own list discount {judged_discount}, the value the claim is judged at; add it to the [sweep] values"
            )
        })?;
    let nodes = judged.1;
    let side = |p: &Point| p.saving(RESERVED, baseline).map(|s| s.mean - band.low);
    let deeper: Point;
    let mut ordered: Vec<&Point> = e
        .points
        .iter()
        .filter(|p| p.values.get(1) == Some(&nodes))
        .collect();
    ordered.sort_by(|a, b| a.x().total_cmp(&b.x()));
    let deepest_swept = ordered.last().map_or(f64::NAN, |p| p.x());
    let below_everywhere = ordered.iter().all(|p| side(p).is_ok_and(|s| s < 0.0));
    if below_everywhere {
        deeper = e.probe.run(&[DISCOUNT_TRIED_MAX, nodes])?;
        ordered.push(&deeper);
    }
    let search = Search {
        side: &side,
        precision: DISCOUNT_PRECISION,
        integer: false,
        rest: &[nodes],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let condition = edge
        .as_ref()
        .filter(|b| b.x() <= deepest_swept)
        .map(|b| format!("the list discount is at least {}", percent_1(b.x())));
    let at = best
        .iter()
        .map(|(d, n, s, _)| {
            format!(
                "{} off: {} ({:.0} GPUs)",
                percent(*d),
                percent_ci(*s),
                n * gpus_per_node
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let committed = nodes * gpus_per_node;
    Ok(Finding {
        verdict: at_point(band.judge(judged.2), condition),
        figure: format!(
            "the best commitment's saving on the whole bill at the scenario's {} list discount: {}; by list discount: {at}",
            percent(judged_discount),
            percent_ci(judged.2)
        ),
        boundary: Some(match edge {
            Some(b) => format!(
                "30 % off the whole bill takes a list discount of {} with {committed:.0} GPUs committed ({})",
                percent_pm(&b),
                b.how()
            ),
            None => format!(
                "no list discount up to {} saves 30 % of the whole bill with {committed:.0} GPUs committed",
                percent(if below_everywhere {
                    DISCOUNT_TRIED_MAX
                } else {
                    deepest_swept
                })
            ),
        }),
        margin: band.margin(&[judged.2]),
    })
}

/// Claim 7: the saving of specialist-first (with hyperscaler fallback) against
/// hyperscaler-only at the scenario's own peak shortfall; holds if it is 30-50 %, holds only
/// below the shortfall that brings it to 30 % (by bisection) when it is lower.
pub fn specialist_cloud(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(0.30, 0.50);
    let baseline = figures::baseline(e.config);
    let specialist = figures::first_pool(e.config, SPECIALIST_FIRST)?;
    let list_discount = 1.0
        - figures::price_per_gpu_h(specialist)?
            / figures::price_per_gpu_h(figures::first_pool(e.config, baseline)?)?;
    let base = figures::judged_point(e.points, e.swept, figures::shortfall(specialist))?;
    let saving = base.saving(SPECIALIST_FIRST, baseline)?;
    let wait = base.stat(SPECIALIST_FIRST, metric::WAIT_P95_H)?;
    let without = e.points[0].saving(SPECIALIST_FIRST, baseline)?;
    let side = |p: &Point| {
        p.saving(SPECIALIST_FIRST, baseline)
            .map(|s| s.mean - band.low)
    };
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &side,
        precision: SHORTFALL_PRECISION,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let position = band.judge(saving);
    let condition = edge
        .as_ref()
        .filter(|b| b.x() < base.x() && position == super::super::Position::Below)
        .map(|b| format!("peak shortfalls stay below {}", percent_1(b.x())));
    Ok(Finding {
        verdict: at_point(position, condition),
        figure: format!(
            "specialist-first saves {} against hyperscaler-only at the scenario's {} weekday shortfall ({} at {} shortfall; the specialist lists {} below the hyperscaler), p95 wait {:.2} h",
            percent_ci(saving),
            percent(base.x()),
            percent(without.mean),
            percent(e.points[0].x()),
            percent(list_discount),
            wait.mean
        ),
        boundary: Some(match edge {
            Some(b) => format!(
                "the saving falls below 30 % from a peak shortfall of {} ({})",
                percent_pm(&b),
                b.how()
            ),
            None => format!(
                "the saving stays {} 30 % over shortfalls of {} to {}",
                if side(&e.points[0])? >= 0.0 {
                    "above"
                } else {
                    "below"
                },
                percent(e.points[0].x()),
                percent(e.points[e.points.len() - 1].x())
            ),
        }),
        margin: band.margin(&[saving]),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::super::Verdict;
    use super::super::super::estimate::tests::point;
    use super::super::tests::{config, judge, judge_at};
    use super::*;

    /// The number right after `prefix` in `text`.
    pub(crate) fn number_after(text: &str, prefix: &str) -> f64 {
        let start = text
            .find(prefix)
            .unwrap_or_else(|| panic!("{prefix:?} in {text:?}"))
            + prefix.len();
        let digits: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        digits
            .parse()
            .unwrap_or_else(|_| panic!("a number after {prefix:?} in {text:?}"))
    }

    /// A spot-discount point: spot at `price` saving `saving` (± 1 point) of a 1000 bill.
    fn spot_point(price: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[price],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (SPOT, metric::TOTAL_COST_VS_BASELINE, d, d - 10.0, d + 10.0),
            ],
        )
    }

    #[test]
    fn spot_discount_gives_each_verdict() {
        let config = config("01-spot-discount", &[]);
        let path = "pool.spot.price_per_gpu_h";
        // 40, 60, 74 and 84 % below the scenario's 7.5.
        let prices = [4.5, 3.0, 1.95, 1.2];
        let with_loss = |loss: f64| move |v: &[f64]| spot_point(v[0], 1.0 - v[0] / 7.5 - loss);
        let holds = judge(spot_discount, &config, path, &prices, with_loss(-0.02));
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(
            holds.figure.contains("at 7.5 EUR/GPU-h"),
            "{}",
            holds.figure
        );
        // 4 points lost: 60 % saved from 64 % off, found between 60 and 74 % by direct runs.
        let only = judge(spot_discount, &config, path, &prices, with_loss(0.04));
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        let discount = number_after(condition, "spot lists at least ");
        assert!((discount - 64.0).abs() <= 0.15, "{condition}");
        assert!(
            only.boundary
                .as_ref()
                .unwrap()
                .contains("found by bisection with 20 replications per run"),
            "{:?}",
            only.boundary
        );
        let fails = judge(spot_discount, &config, path, &prices, with_loss(0.3));
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        let edge = judge(spot_discount, &config, path, &[3.0], |v: &[f64]| {
            spot_point(v[0], 0.605)
        });
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
        // The on-demand price is the scenario's: at 10, spot at 3.0 lists 70 % off.
        let dearer = config_with(&[("pool.on-demand.price_per_gpu_h", 10.0)]);
        let finding = judge(spot_discount, &dearer, path, &[3.0], |v: &[f64]| {
            spot_point(v[0], 0.65)
        });
        assert!(
            finding
                .figure
                .contains("at 10 EUR/GPU-h, by list discount: 70 % off"),
            "{}",
            finding.figure
        );
    }

    fn config_with(set: &[(&str, f64)]) -> crate::scenario::Config {
        config("01-spot-discount", set)
    }

    fn checkpoint_point(life_h: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[life_h],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    SPOT_CHECKPOINTED,
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
            ],
        )
    }

    #[test]
    fn spot_checkpointing_gives_each_verdict() {
        let config = config("02-spot-checkpointing", &[]);
        let path = "pool.spot.preemption.mean_h";
        let lives = [5.0, 10.0, 20.0, 50.0];
        let flat = |saving: f64| move |v: &[f64]| checkpoint_point(v[0], saving);
        assert_eq!(
            judge(spot_checkpointing, &config, path, &lives, flat(0.70)).verdict,
            Verdict::Holds
        );
        // 0.75 - 1.5 / life reaches 65 % at 15 h.
        let only = judge(spot_checkpointing, &config, path, &lives, |v: &[f64]| {
            checkpoint_point(v[0], 0.75 - 1.5 / v[0])
        });
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        assert!(
            (number_after(condition, "at least ") - 15.0).abs() <= 0.5,
            "{condition}"
        );
        assert!(
            only.figure
                .starts_with("spot with checkpoints saves 67.5 %"),
            "{}",
            only.figure
        );
        assert!(
            only.boundary
                .unwrap()
                .contains("the 70 % list discount is its ceiling")
        );
        assert_eq!(
            judge(spot_checkpointing, &config, path, &lives, flat(0.40)).verdict,
            Verdict::DoesNotHold
        );
        assert!(matches!(
            judge(spot_checkpointing, &config, path, &lives, flat(0.647)).verdict,
            Verdict::Undecided(_)
        ));
    }

    fn reserved_point(discount: f64, nodes: f64, saving: f64) -> Point {
        let d = -1000.0 * saving;
        point(
            &[discount, nodes],
            &[
                ("on-demand", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    RESERVED,
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
            ],
        )
    }

    #[test]
    fn reserved_discount_gives_each_verdict() {
        let config = config("03-reserved-discount", &[]);
        let paths = ["pool.reserved.discount", "pool.reserved.nodes"];
        let grid: Vec<Vec<f64>> = [0.3, 0.35, 0.4]
            .iter()
            .flat_map(|&d| [vec![d, 2.0], vec![d, 3.0]])
            .collect();
        // Three nodes save a point less than two.
        let bill = |f: fn(f64) -> f64| {
            move |v: &[f64]| reserved_point(v[0], v[1], f(v[0]) - 0.01 * (v[1] - 2.0))
        };
        let holds = judge_at(
            reserved_discount,
            &config,
            &paths,
            &grid,
            bill(|d| d * 0.95),
        );
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(
            holds.figure.contains("scenario's 35 % list discount: 33."),
            "{}",
            holds.figure
        );
        assert!(
            holds.figure.contains("(16 GPUs); 35 % off: 33."),
            "{}",
            holds.figure
        );
        let only = judge_at(
            reserved_discount,
            &config,
            &paths,
            &grid,
            bill(|d| d - 0.06),
        );
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        assert!(
            (number_after(condition, "at least ") - 36.0).abs() <= 0.5,
            "{condition}"
        );
        // 0.6 of the list discount: 30 % off the bill only at 50 % off the list, beyond the sweep.
        let fails = judge_at(reserved_discount, &config, &paths, &grid, bill(|d| d * 0.6));
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        let text = fails.boundary.unwrap();
        assert!(
            (number_after(&text, "takes a list discount of ") - 50.0).abs() <= 0.5,
            "{text}"
        );
        let edge = judge_at(
            reserved_discount,
            &config,
            &paths,
            &grid,
            bill(|d| d - 0.05),
        );
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
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
                    SPECIALIST_FIRST,
                    metric::TOTAL_COST_VS_BASELINE,
                    d,
                    d - 5.0,
                    d + 5.0,
                ),
                (SPECIALIST_FIRST, metric::WAIT_P95_H, 0.1, 0.1, 0.1),
            ],
        )
    }

    #[test]
    fn specialist_cloud_gives_each_verdict() {
        let config = config("07-specialist-cloud", &[]);
        let path = "pool.specialist.availability.shortfall";
        let shortfalls = [0.0, 0.2, 0.4, 0.6, 0.8];
        let falling = |slope: f64| move |v: &[f64]| specialist_point(v[0], 0.40 - slope * v[0]);
        let holds = judge(specialist_cloud, &config, path, &shortfalls, falling(0.1));
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(
            holds.figure.contains("lists 40 % below the hyperscaler"),
            "{}",
            holds.figure
        );
        let only = judge(specialist_cloud, &config, path, &shortfalls, falling(0.2));
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        assert!(
            (number_after(condition, "below ") - 50.0).abs() <= 1.0,
            "{condition}"
        );
        let fails = judge(
            specialist_cloud,
            &config,
            path,
            &shortfalls,
            |v: &[f64]| specialist_point(v[0], 0.2),
        );
        assert_eq!(fails.verdict, Verdict::DoesNotHold);
        let edge = judge(
            specialist_cloud,
            &config,
            path,
            &shortfalls,
            falling(1.0 / 6.0),
        );
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
    }
}
