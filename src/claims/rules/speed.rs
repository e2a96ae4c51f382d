//! Claims 8 and 10: faster arithmetic, and smaller GPUs.

use super::super::bisect::{Search, boundary};
use super::super::estimate::{Band, Estimate, Margin, Point, percent, percent_ci, value_ci};
use super::super::figures;
use super::super::{Evidence, Finding, Position, Verdict};
use super::at_point;
use crate::records::metric;

/// The strategies of `scenarios/claims/08-mixed-precision.toml`.
const FULL_PRECISION: &str = "full-precision";
const MIXED_PRECISION: &str = "mixed-precision";
/// Of `10-small-gpus.toml`: one per GPU type, each on its own pool.
const H100: &str = "h100";
const A100: &str = "a100";
const L4: &str = "l4";
const T4: &str = "t4";

/// Bisection precisions, in the swept fields' units.
const SPEEDUP_PRECISION: f64 = 0.01;
const SPEED_PRECISION: f64 = 0.005;

/// Paid GPU-hours without mixed precision over those with it, and the same of the bills.
fn cuts(p: &Point) -> Result<(Estimate, Estimate), String> {
    let hours = p
        .stat(FULL_PRECISION, metric::GPU_HOURS_PAID)?
        .ratio(p.stat(MIXED_PRECISION, metric::GPU_HOURS_PAID)?);
    let cost = p
        .stat(FULL_PRECISION, metric::TOTAL_COST)?
        .ratio(p.stat(MIXED_PRECISION, metric::TOTAL_COST)?);
    Ok((hours, cost))
}

/// Claim 8: the cut in paid GPU-hours at the scenario's own kernel speedup; holds if it is
/// 2-4x, holds only when the kernels run at least as fast as the speedup that halves the
/// GPU-hours (by direct runs) if it is less. The kernels' speedup is an input; what the
/// figure adds is how much of it the overheads take.
pub fn mixed_precision(e: &Evidence<'_>) -> Result<Finding, String> {
    let band = Band::new(2.0, 4.0);
    let field = e.swept.first().ok_or("the sweep varies nothing")?;
    let kernels = figures::mixed_precision_speedup(e.config, figures::swept_name(field)?)?;
    let base = figures::judged_point(e.points, e.swept, kernels)?;
    let (hours, cost) = cuts(base)?;
    let side = |p: &Point| cuts(p).map(|(h, _)| h.mean - band.low);
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &side,
        precision: SPEEDUP_PRECISION,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let position = band.judge(hours);
    let condition = edge
        .as_ref()
        .filter(|_| position == Position::Below)
        .map(|b| format!("the kernels run at least {}x faster", b.value(2, "")));
    let mut at = Vec::new();
    for p in e.points {
        let (h, c) = cuts(p)?;
        at.push(format!(
            "{}x kernels: {} less GPU time, {:.2}x less cost",
            p.x(),
            value_ci(h, 2, "x"),
            c.mean
        ));
    }
    Ok(Finding {
        verdict: at_point(position, condition),
        figure: format!(
            "at the scenario's {kernels}x kernel speedup, paid GPU-hours fall {} and the bill {:.2}x: checkpoint writes, restores, provisioning and idle timeouts, which mixed precision does not speed up, take {} of the kernel speedup; by speedup: {}",
            value_ci(hours, 2, "x"),
            cost.mean,
            percent(1.0 - hours.mean / kernels),
            at.join("; ")
        ),
        boundary: edge.map(|b| {
            format!(
                "GPU time halves from a {}x kernel speedup ({})",
                b.value(2, ""),
                b.how()
            )
        }),
        margin: band.margin(&[hours]),
    })
}

/// How far `small` is below `large` (positive: clearly cheaper), for the margin of a win.
fn lead(small: Estimate, large: Estimate) -> Margin {
    let gap = large.mean - small.mean;
    let half = small.half_width() + large.half_width();
    Margin {
        estimate: Estimate::new(gap, gap - half, gap + half),
        edge: 0.0,
    }
}

/// The cheaper of the two large GPUs' bills at `p`.
fn large_bill(p: &Point) -> Result<Estimate, String> {
    let (h100, a100) = (
        p.stat(H100, metric::TOTAL_COST)?,
        p.stat(A100, metric::TOTAL_COST)?,
    );
    Ok(if a100.mean < h100.mean { a100 } else { h100 })
}

/// A GPU type's name and its node size, from the pool its strategy uses: `T4 (8 to a node)`.
fn gpu_label(e: &Evidence<'_>, strategy: &str) -> Result<(String, u32), String> {
    let pool = figures::first_pool(e.config, strategy)?;
    Ok((
        figures::gpu(e.config, pool).to_string(),
        figures::gpus_per_node(pool),
    ))
}

/// Claim 10: whether L4 and T4 serve the endpoint and run the fine-tuning for less than
/// H100 and A100 (clearly: their intervals apart), at each L4 speed.
pub fn small_gpus(e: &Evidence<'_>) -> Result<Finding, String> {
    let (l4_name, _) = gpu_label(e, L4)?;
    let (t4_name, t4_per_node) = gpu_label(e, T4)?;
    let (h100_name, _) = gpu_label(e, H100)?;
    let (a100_name, _) = gpu_label(e, A100)?;
    let mut l4_wins = 0;
    let mut t4_wins = 0;
    let mut margins = Vec::new();
    let mut at = Vec::new();
    for p in e.points {
        let big = large_bill(p)?;
        let (l4, t4) = (
            p.stat(L4, metric::TOTAL_COST)?,
            p.stat(T4, metric::TOTAL_COST)?,
        );
        l4_wins += usize::from(l4.high < big.low);
        t4_wins += usize::from(t4.high < big.low);
        margins.extend([lead(l4, big), lead(t4, big)]);
        at.push(format!(
            "{l4_name} at {:.2} of an {h100_name}: {l4_name} {}, {t4_name} {}, {a100_name} {} against {h100_name}",
            p.x(),
            signed(p.saving(L4, H100)?),
            signed(p.saving(T4, H100)?),
            signed(p.saving(A100, H100)?)
        ));
    }
    let side = |p: &Point| Ok(p.stat(L4, metric::TOTAL_COST)?.mean - large_bill(p)?.mean);
    let ordered: Vec<&Point> = e.points.iter().collect();
    let search = Search {
        side: &side,
        precision: SPEED_PRECISION,
        integer: false,
        rest: &[],
    };
    let edge = boundary(e.probe, &ordered, &search)?;
    let n = e.points.len();
    let verdict = match (l4_wins, t4_wins) {
        (l, t) if l == n && t == n => Verdict::Holds,
        (l, 0) if l == n => Verdict::HoldsOnlyWhen(format!(
            "the GPUs are {l4_name}s: {t4_name}s ({t4_per_node} to a node here) are not clearly cheaper than the cheaper of {h100_name} and {a100_name}"
        )),
        (0, 0) => Verdict::DoesNotHold,
        _ => match &edge {
            Some(b) => Verdict::HoldsOnlyWhen(format!(
                "an {l4_name} does at least {} of an {h100_name}'s work",
                b.value(3, "")
            )),
            None => Verdict::Undecided(format!("{l4_name} wins at some speeds only")),
        },
    };
    let first_speed = e.points.first().map_or(f64::NAN, Point::x);
    Ok(Finding {
        verdict,
        figure: format!(
            "each GPU type's bill (endpoint and fine-tuning) against {h100_name}: {}",
            at.join("; ")
        ),
        boundary: match edge {
            Some(b) => Some(format!(
                "an {l4_name} costs less than the cheaper of {h100_name} and {a100_name} from {} of an {h100_name}'s speed ({})",
                b.value(3, ""),
                b.how()
            )),
            None if l4_wins == n => Some(format!(
                "an {l4_name} costs less than {h100_name} and {a100_name} at every speed tried, from {first_speed:.2} of an {h100_name}'s"
            )),
            None => None,
        },
        margin: margins
            .into_iter()
            .max_by(|a, b| a.closeness().total_cmp(&b.closeness())),
    })
}

/// A saving as the change it makes to the bill: `-45.3 % (95 % CI ...)` is cheaper, `+12.0 %`
/// dearer.
fn signed(saving: Estimate) -> String {
    let change = Estimate::new(-saving.mean, -saving.high, -saving.low);
    let sign = if change.mean > 0.0 { "+" } else { "" };
    format!("{sign}{}", percent_ci(change))
}

#[cfg(test)]
mod tests {
    use super::super::super::estimate::tests::point;
    use super::super::prices::tests::number_after;
    use super::super::tests::{config, judge};
    use super::*;

    /// Full precision pays 1000 GPU-hours, mixed `1000 / speedup + overhead_h` (± 1 each).
    fn precision(overhead_h: f64) -> impl Fn(&[f64]) -> Point {
        move |v: &[f64]| {
            let mixed_h = 1000.0 / v[0] + overhead_h;
            point(
                &[v[0]],
                &[
                    (
                        FULL_PRECISION,
                        metric::GPU_HOURS_PAID,
                        1000.0,
                        999.0,
                        1001.0,
                    ),
                    (
                        MIXED_PRECISION,
                        metric::GPU_HOURS_PAID,
                        mixed_h,
                        mixed_h - 1.0,
                        mixed_h + 1.0,
                    ),
                    (FULL_PRECISION, metric::TOTAL_COST, 1000.0, 1000.0, 1000.0),
                    (
                        MIXED_PRECISION,
                        metric::TOTAL_COST,
                        mixed_h,
                        mixed_h,
                        mixed_h,
                    ),
                ],
            )
        }
    }

    #[test]
    fn mixed_precision_gives_each_verdict() {
        let path = "workload.training.mixed_precision_speedup";
        let speedups = [1.5, 2.0, 3.0, 4.0];
        // The scenario's 3x kernels with 10 h of overheads: 1000 / 343.3 = 2.91x.
        let config = config("08-mixed-precision", &[]);
        let holds = judge(mixed_precision, &config, path, &speedups, precision(10.0));
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(
            holds
                .figure
                .starts_with("at the scenario's 3x kernel speedup, paid GPU-hours fall 2.91x"),
            "{}",
            holds.figure
        );
        assert!(
            holds.figure.contains("take 3 % of the kernel speedup"),
            "{}",
            holds.figure
        );
        // 200 h of overheads: 1.88x at 3x kernels; 2x needs 1000 / 300 = 3.33x kernels.
        let only = judge(
            mixed_precision,
            &config,
            path,
            &[2.0, 3.0, 4.0, 6.0],
            precision(200.0),
        );
        let Verdict::HoldsOnlyWhen(condition) = &only.verdict else {
            panic!("{only:?}")
        };
        assert!(
            (number_after(condition, "at least ") - 3.333).abs() <= 0.01,
            "{condition}"
        );
        let poor = judge(mixed_precision, &config, path, &speedups, precision(400.0));
        assert_eq!(poor.verdict, Verdict::DoesNotHold);
        // 2.0x within ± 0.01 at 3x kernels: 1000 / 2 - 333.3 = 166.7 h.
        let edge = judge(mixed_precision, &config, path, &speedups, precision(166.7));
        assert!(matches!(edge.verdict, Verdict::Undecided(_)), "{edge:?}");
        // The judged speedup is the scenario's.
        let four = super::super::tests::config(
            "08-mixed-precision",
            &[("workload.training.mixed_precision_speedup", 4.0)],
        );
        let at_four = judge(mixed_precision, &four, path, &speedups, precision(10.0));
        assert!(
            at_four
                .figure
                .starts_with("at the scenario's 4x kernel speedup"),
            "{}",
            at_four.figure
        );
    }

    /// Bills of H100, A100, L4 and T4 (± 1), with the paired differences against H100.
    fn gpu_point(speed: f64, [h100, a100, l4, t4]: [f64; 4]) -> Point {
        let mut rows = Vec::new();
        for (name, cost) in [(H100, h100), (A100, a100), (L4, l4), (T4, t4)] {
            rows.push((name, metric::TOTAL_COST, cost, cost - 1.0, cost + 1.0));
            rows.push((
                name,
                metric::TOTAL_COST_VS_BASELINE,
                cost - h100,
                cost - h100 - 0.5,
                cost - h100 + 0.5,
            ));
        }
        point(&[speed], &rows)
    }

    #[test]
    fn small_gpus_gives_each_verdict() {
        let config = config("10-small-gpus", &[]);
        let path = "gpu_speed.L4";
        let flat = |bills: [f64; 4]| move |v: &[f64]| gpu_point(v[0], bills);
        let holds = judge(
            small_gpus,
            &config,
            path,
            &[0.12],
            flat([100.0, 90.0, 70.0, 80.0]),
        );
        assert_eq!(holds.verdict, Verdict::Holds);
        let l4_only = judge(
            small_gpus,
            &config,
            path,
            &[0.12],
            flat([100.0, 90.0, 70.0, 200.0]),
        );
        assert_eq!(
            l4_only.verdict,
            Verdict::HoldsOnlyWhen("the GPUs are L4s: T4s (8 to a node here) are not clearly cheaper than the cheaper of H100 and A100".into())
        );
        // L4 costs 12 / speed: even with the A100's 90 at 0.1333, not at the chord's point.
        let faster = judge(small_gpus, &config, path, &[0.1, 0.3], |v: &[f64]| {
            gpu_point(v[0], [100.0, 90.0, 12.0 / v[0], 200.0])
        });
        let Verdict::HoldsOnlyWhen(condition) = &faster.verdict else {
            panic!("{faster:?}")
        };
        assert!(
            (number_after(condition, "at least ") - 0.1333).abs() <= 0.005,
            "{condition}"
        );
        let never = judge(
            small_gpus,
            &config,
            path,
            &[0.12],
            flat([100.0, 90.0, 120.0, 200.0]),
        );
        assert_eq!(never.verdict, Verdict::DoesNotHold);
        // The L4 wins at one speed, and no bracket lies between the two speeds.
        let patchy = judge(small_gpus, &config, path, &[0.1, 0.3], |v: &[f64]| {
            let l4 = if v[0] < 0.2 { 70.0 } else { 89.5 };
            gpu_point(v[0], [100.0, 90.0, l4, 200.0])
        });
        assert!(
            matches!(patchy.verdict, Verdict::Undecided(_)),
            "{patchy:?}"
        );
    }
}
