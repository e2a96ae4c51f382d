//! Claims 8 and 10: faster arithmetic, and smaller GPUs.

use super::super::estimate::{Band, Estimate, Point, crossing, percent_ci, value_ci};
use super::super::{Finding, Verdict};
use super::over_sweep;
use crate::records::metric;

/// Claim 8: paid GPU-hours without mixed precision over those with it, at each kernel
/// speedup; holds if every speedup in 2-4 gives a cut in 2-4.
pub fn mixed_precision(points: &[Point]) -> Result<Finding, String> {
    let band = Band::new(2.0, 4.0);
    let mut rows: Vec<(f64, Estimate, Estimate)> = Vec::new();
    for p in points {
        let full = p.stat("full-precision", metric::GPU_HOURS_PAID)?;
        let mixed = p.stat("mixed-precision", metric::GPU_HOURS_PAID)?;
        let cost = p
            .stat("full-precision", metric::TOTAL_COST)?
            .ratio(p.stat("mixed-precision", metric::TOTAL_COST)?);
        rows.push((p.x(), full.ratio(mixed), cost));
    }
    let speedups: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let factors: Vec<f64> = rows.iter().map(|r| r.1.mean).collect();
    let claimed: Vec<_> = rows
        .iter()
        .filter(|r| band.low <= r.0 && r.0 <= band.high)
        .map(|r| band.judge(r.1))
        .collect();
    let edge = crossing(&speedups, &factors, band.low);
    let at = rows
        .iter()
        .map(|(k, f, c)| {
            format!(
                "{k}x kernels: {} less GPU time, {:.2}x less cost",
                value_ci(*f, 2, "x"),
                c.mean
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Ok(Finding {
        verdict: over_sweep(&claimed, edge.map(|k| format!("the kernels run at least {k:.2}x faster"))),
        figure: format!("paid GPU-hours in full precision over mixed precision: {at}"),
        boundary: edge.map(|k| {
            format!(
                "GPU time halves from a {k:.2}x kernel speedup: checkpoint writes, restores, provisioning and idle timeouts are not sped up"
            )
        }),
    })
}

/// Claim 10: whether L4 and T4 serve the endpoint and run the fine-tuning for less than
/// H100 and A100 (clearly: their intervals apart), at each L4 speed.
pub fn small_gpus(points: &[Point]) -> Result<Finding, String> {
    let mut l4_wins = Vec::new();
    let mut t4_wins = 0;
    let mut l4_costs = Vec::new();
    let mut big_costs = Vec::new();
    let mut at = Vec::new();
    for p in points {
        let cost = |s: &str| p.stat(s, metric::TOTAL_COST);
        let (h100, a100, l4, t4) = (cost("h100")?, cost("a100")?, cost("l4")?, cost("t4")?);
        let big = if a100.mean < h100.mean { a100 } else { h100 };
        if l4.high < big.low {
            l4_wins.push(p.x());
        }
        if t4.high < big.low {
            t4_wins += 1;
        }
        l4_costs.push(l4.mean);
        big_costs.push(big.mean);
        at.push(format!(
            "L4 at {:.2} of an H100: L4 {}, T4 {}, A100 {} against H100",
            p.x(),
            signed(p.saving("l4", "h100")?),
            signed(p.saving("t4", "h100")?),
            signed(p.saving("a100", "h100")?)
        ));
    }
    let gap: Vec<f64> = l4_costs
        .iter()
        .zip(&big_costs)
        .map(|(l, b)| l - b)
        .collect();
    let speeds: Vec<f64> = points.iter().map(Point::x).collect();
    let edge = crossing(&speeds, &gap, 0.0);
    let verdict = match (l4_wins.len(), t4_wins) {
        (l, t) if l == points.len() && t == points.len() => Verdict::Holds,
        (l, 0) if l == points.len() => Verdict::HoldsOnlyWhen(
            "the GPUs are L4s: T4s (8 to a node here) cost more than H100s".into(),
        ),
        (0, 0) => Verdict::DoesNotHold,
        _ => match edge {
            Some(speed) => {
                Verdict::HoldsOnlyWhen(format!("an L4 does at least {speed:.2} of an H100's work"))
            }
            None => Verdict::Undecided("L4 wins at some speeds only".into()),
        },
    };
    Ok(Finding {
        verdict,
        figure: format!(
            "each GPU type's bill (endpoint and fine-tuning) against H100: {}",
            at.join("; ")
        ),
        boundary: match edge {
            Some(speed) => Some(format!(
                "an L4 costs less than the cheaper of H100 and A100 from {speed:.2} of an H100's speed"
            )),
            None if l4_wins.len() == points.len() => Some(format!(
                "an L4 costs less than H100 and A100 at every speed tried, from {:.2} of an H100's: a small endpoint on 1-GPU L4 nodes pays for fewer idle GPU-hours",
                speeds.first().copied().unwrap_or(f64::NAN)
            )),
            None => None,
        },
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
    use super::*;

    fn precision_point(speedup: f64, full_h: f64, mixed_h: f64) -> Point {
        point(
            &[speedup],
            &[
                (
                    "full-precision",
                    metric::GPU_HOURS_PAID,
                    full_h,
                    full_h - 1.0,
                    full_h + 1.0,
                ),
                (
                    "mixed-precision",
                    metric::GPU_HOURS_PAID,
                    mixed_h,
                    mixed_h - 1.0,
                    mixed_h + 1.0,
                ),
                ("full-precision", metric::TOTAL_COST, full_h, full_h, full_h),
                (
                    "mixed-precision",
                    metric::TOTAL_COST,
                    mixed_h,
                    mixed_h,
                    mixed_h,
                ),
            ],
        )
    }

    #[test]
    fn mixed_precision_holds_only_from_the_speedup_that_halves_gpu_time() {
        // 2x kernels give 1.8x (1000/555), 3x give 2.7x, 4x give 3.6x.
        let points = [
            precision_point(2.0, 1000.0, 555.0),
            precision_point(3.0, 1000.0, 370.0),
            precision_point(4.0, 1000.0, 278.0),
        ];
        let finding = mixed_precision(&points).unwrap();
        let Verdict::HoldsOnlyWhen(condition) = &finding.verdict else {
            panic!("{finding:?}")
        };
        // 2.0 between 1.80 at 2x and 2.70 at 3x: 2 + 0.2/0.9 = 2.22.
        assert_eq!(condition, "the kernels run at least 2.22x faster");
        let ideal = [
            precision_point(2.0, 1000.0, 480.0),
            precision_point(4.0, 1000.0, 260.0),
        ];
        assert_eq!(mixed_precision(&ideal).unwrap().verdict, Verdict::Holds);
        let poor = [
            precision_point(2.0, 1000.0, 800.0),
            precision_point(4.0, 1000.0, 700.0),
        ];
        assert_eq!(
            mixed_precision(&poor).unwrap().verdict,
            Verdict::DoesNotHold
        );
    }

    /// Bills of H100, A100, L4 and T4 (± 1), with the paired differences against H100.
    fn gpu_point(speed: f64, [h100, a100, l4, t4]: [f64; 4]) -> Point {
        let mut rows = Vec::new();
        for (name, cost) in [("h100", h100), ("a100", a100), ("l4", l4), ("t4", t4)] {
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
    fn small_gpus_must_be_clearly_cheaper_than_both_large_ones() {
        let both = [gpu_point(0.12, [100.0, 90.0, 70.0, 80.0])];
        assert_eq!(small_gpus(&both).unwrap().verdict, Verdict::Holds);
        let l4_only = [gpu_point(0.12, [100.0, 90.0, 70.0, 200.0])];
        assert!(
            matches!(small_gpus(&l4_only).unwrap().verdict, Verdict::HoldsOnlyWhen(c) if c.starts_with("the GPUs are L4s"))
        );
        // L4 costs 120 at 0.1 and 60 at 0.3 against 90: even at 0.2.
        let faster = [
            gpu_point(0.1, [100.0, 90.0, 120.0, 200.0]),
            gpu_point(0.3, [100.0, 90.0, 60.0, 200.0]),
        ];
        assert_eq!(
            small_gpus(&faster).unwrap().verdict,
            Verdict::HoldsOnlyWhen("an L4 does at least 0.20 of an H100's work".into())
        );
        let never = [gpu_point(0.12, [100.0, 90.0, 120.0, 200.0])];
        assert_eq!(small_gpus(&never).unwrap().verdict, Verdict::DoesNotHold);
        // Within a euro of the A100: not clearly cheaper.
        let close = [gpu_point(0.12, [100.0, 90.0, 89.5, 200.0])];
        assert_eq!(small_gpus(&close).unwrap().verdict, Verdict::DoesNotHold);
    }
}
