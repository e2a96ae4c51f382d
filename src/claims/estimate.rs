//! The figures a verdict is made of: a mean with its 95 % interval, read from a sweep point's
//! `summary.csv` rows, and the few ways the rules combine them (savings against a baseline,
//! ratios, differences, the parameter value where a curve crosses a level).

use crate::records::metric;
use crate::records::{PoolRow, SummaryRow};

/// A mean and its 95 % interval (Student-t over replications, as `summary.csv` gives it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    pub fn new(mean: f64, low: f64, high: f64) -> Self {
        Estimate { mean, low, high }
    }

    /// A figure known exactly (a point that was not simulated, a parameter).
    pub fn exact(value: f64) -> Self {
        Estimate::new(value, value, value)
    }

    fn of(row: &SummaryRow) -> Self {
        Estimate::new(row.mean, row.ci95_low, row.ci95_high)
    }

    /// `self / other`, with the widest interval the two intervals allow (both positive).
    pub fn ratio(self, other: Estimate) -> Estimate {
        Estimate::new(
            self.mean / other.mean,
            self.low / other.high,
            self.high / other.low,
        )
    }

    /// Half the interval's width.
    pub fn half_width(self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// `self - other` for two estimates whose errors are not paired: the half-widths add in
    /// quadrature (conservative under common random numbers, which correlate them positively).
    pub fn minus(self, other: Estimate) -> Estimate {
        let half = |e: Estimate| (e.high - e.low) / 2.0;
        let width = half(self).hypot(half(other));
        let mean = self.mean - other.mean;
        Estimate::new(mean, mean - width, mean + width)
    }
}

/// One sweep point (or direct run): its parameter values (in the sweep's order), its
/// `summary.csv` rows and its `pools.csv` rows (per strategy, replication and pool).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub values: Vec<f64>,
    pub summary: Vec<SummaryRow>,
    pub pools: Vec<PoolRow>,
}

impl Point {
    /// The first parameter's value (every claim's sweep varies at least one).
    pub fn x(&self) -> f64 {
        self.values.first().copied().unwrap_or(f64::NAN)
    }

    /// `metric` of `strategy`, or a message naming what is missing.
    pub fn stat(&self, strategy: &str, metric: &str) -> Result<Estimate, String> {
        self.row(strategy, metric).map(Estimate::of)
    }

    /// The replications `metric` of `strategy` is over (fewer than the run's when some
    /// replications have no value, e.g. a break-even that never came).
    pub fn count(&self, strategy: &str, metric: &str) -> Result<u32, String> {
        self.row(strategy, metric).map(|row| row.n)
    }

    /// The mean utilisation of `pool` under `strategy` over the replications (busy over paid
    /// GPU-hours of that pool alone).
    pub fn pool_utilisation(&self, strategy: &str, pool: &str) -> Result<f64, String> {
        let rows: Vec<f64> = self
            .pools
            .iter()
            .filter(|row| row.strategy == strategy && row.pool == pool)
            .map(|row| row.utilization)
            .collect();
        if rows.is_empty() {
            return Err(format!(
                "no `pools.csv` rows of pool `{pool}` under strategy `{strategy}`"
            ));
        }
        Ok(rows.iter().sum::<f64>() / rows.len() as f64)
    }

    fn row(&self, strategy: &str, metric: &str) -> Result<&SummaryRow, String> {
        self.summary
            .iter()
            .find(|row| row.strategy == strategy && row.metric == metric)
            .ok_or_else(|| format!("no `{metric}` of strategy `{strategy}` in the results"))
    }

    /// The share of the baseline's total cost that `strategy` saves (negative: it costs more),
    /// from the paired difference `total_cost_vs_baseline` and its interval; the baseline
    /// mean's own uncertainty is left out (it is a few tenths of a percent of the saving).
    pub fn saving(&self, strategy: &str, baseline: &str) -> Result<Estimate, String> {
        let difference = self.stat(strategy, metric::TOTAL_COST_VS_BASELINE)?;
        let base = self.stat(baseline, metric::TOTAL_COST)?.mean;
        if base.is_nan() || base <= 0.0 {
            return Err(format!("the baseline `{baseline}` costs nothing"));
        }
        Ok(Estimate::new(
            -difference.mean / base,
            -difference.high / base,
            -difference.low / base,
        ))
    }
}

/// A claim's range, as fractions (0.6..=0.9 for "60-90 %") or in the figure's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub low: f64,
    pub high: f64,
}

/// Where an estimate's interval lies against a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The whole interval within the band.
    Inside,
    /// The whole interval below it.
    Below,
    /// The whole interval above it.
    Above,
    /// Partly in, partly out: the run cannot say.
    Straddles,
}

impl Band {
    pub const fn new(low: f64, high: f64) -> Self {
        Band { low, high }
    }

    /// The estimate of `estimates` nearest to crossing an edge of the band (relative to its
    /// interval), with that edge: the one a firm verdict needs most replications for.
    pub fn margin(self, estimates: &[Estimate]) -> Option<Margin> {
        estimates
            .iter()
            .map(|&e| {
                let edge = if (e.mean - self.low).abs() < (e.mean - self.high).abs() {
                    self.low
                } else {
                    self.high
                };
                Margin { estimate: e, edge }
            })
            .max_by(|a, b| a.closeness().total_cmp(&b.closeness()))
    }

    pub fn judge(self, estimate: Estimate) -> Position {
        if estimate.high < self.low {
            Position::Below
        } else if estimate.low > self.high {
            Position::Above
        } else if estimate.low >= self.low && estimate.high <= self.high {
            Position::Inside
        } else {
            Position::Straddles
        }
    }
}

/// A figure and the edge it is judged against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margin {
    pub estimate: Estimate,
    pub edge: f64,
}

impl Margin {
    /// The interval's half-width over the mean's distance to the edge: above 1 the interval
    /// reaches across the edge.
    pub fn closeness(self) -> f64 {
        let distance = (self.estimate.mean - self.edge).abs();
        if distance == 0.0 {
            f64::INFINITY
        } else {
            self.estimate.half_width() / distance
        }
    }

    /// The replications that would shrink the interval (measured over `replications`) to
    /// the mean's distance from the edge: the interval narrows as one over the square root
    /// of the count. None when the mean sits on the edge.
    pub fn replications_needed(self, replications: u32) -> Option<u64> {
        let closeness = self.closeness();
        if !closeness.is_finite() {
            return None;
        }
        let needed = (f64::from(replications) * closeness * closeness).ceil();
        Some((needed as u64).max(2))
    }
}

/// The `x` at which the piecewise linear curve through `(xs, ys)` first reaches `level`
/// (points in the order given), or None if it never does. A point exactly at the level
/// counts as reaching it.
pub fn crossing(xs: &[f64], ys: &[f64], level: f64) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| (x, y - level))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    if let Some(&(x, _)) = pairs.first().filter(|(_, y)| *y == 0.0) {
        return Some(x);
    }
    pairs.windows(2).find_map(|w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if y1 == 0.0 {
            Some(x1)
        } else if (y0 < 0.0) != (y1 < 0.0) {
            Some(x0 + (x1 - x0) * y0 / (y0 - y1))
        } else {
            None
        }
    })
}

/// `0.413` as `41 %` (whole percent: the figures' intervals are a point or more wide).
pub fn percent(fraction: f64) -> String {
    format!("{:.0} %", fraction * 100.0)
}

/// An estimate of a fraction as `41 % (95 % CI 39-43 %)`.
pub fn percent_ci(estimate: Estimate) -> String {
    format!(
        "{:.1} % (95 % CI {:.1} to {:.1} %)",
        estimate.mean * 100.0,
        estimate.low * 100.0,
        estimate.high * 100.0
    )
}

/// An estimate with `digits` decimals and a unit: `19.0 months (95 % CI 18.6 to 19.4)`.
pub fn value_ci(estimate: Estimate, digits: usize, unit: &str) -> String {
    format!(
        "{:.digits$}{unit} (95 % CI {:.digits$} to {:.digits$})",
        estimate.mean, estimate.low, estimate.high
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A hand-made point: `(strategy, metric, mean, low, high)` rows.
    pub fn point(values: &[f64], rows: &[(&str, &str, f64, f64, f64)]) -> Point {
        Point {
            values: values.to_vec(),
            summary: rows
                .iter()
                .map(|&(strategy, metric, mean, low, high)| SummaryRow {
                    strategy: strategy.into(),
                    metric: metric.into(),
                    mean,
                    std: 0.0,
                    ci95_low: low,
                    ci95_high: high,
                    p5: mean,
                    p50: mean,
                    p95: mean,
                    n: 20,
                })
                .collect(),
            pools: Vec::new(),
        }
    }

    #[test]
    fn a_band_judges_the_whole_interval() {
        let band = Band::new(0.6, 0.9);
        assert_eq!(band.judge(Estimate::new(0.7, 0.65, 0.75)), Position::Inside);
        assert_eq!(band.judge(Estimate::new(0.5, 0.45, 0.55)), Position::Below);
        assert_eq!(band.judge(Estimate::new(0.95, 0.91, 0.99)), Position::Above);
        // The mean is in the band but the interval is not: undecided.
        assert_eq!(
            band.judge(Estimate::new(0.61, 0.58, 0.64)),
            Position::Straddles
        );
    }

    #[test]
    fn replications_needed_grow_with_the_square_of_the_closeness() {
        // Half-width 2 at a distance of 1 from the edge over 10 replications: 40 needed.
        let margin = Margin {
            estimate: Estimate::new(31.0, 29.0, 33.0),
            edge: 30.0,
        };
        assert_eq!(margin.replications_needed(10), Some(40));
        let on_edge = Margin {
            estimate: Estimate::new(30.0, 29.0, 31.0),
            edge: 30.0,
        };
        assert_eq!(on_edge.replications_needed(10), None);
        // The band picks the estimate nearest its edges.
        let band = Band::new(0.6, 0.9);
        let near = Estimate::new(0.62, 0.58, 0.66);
        let far = Estimate::new(0.75, 0.74, 0.76);
        let margin = band.margin(&[far, near]).unwrap();
        assert_eq!((margin.estimate, margin.edge), (near, 0.6));
    }

    #[test]
    fn crossings_interpolate_linearly() {
        // From 0.2 at x=10 to 0.6 at x=20, 0.5 is reached three quarters of the way.
        assert_eq!(
            crossing(&[0.0, 10.0, 20.0], &[0.1, 0.2, 0.6], 0.5),
            Some(17.5)
        );
        // Falling curves cross too.
        assert_eq!(crossing(&[1.0, 2.0], &[30.0, 10.0], 20.0), Some(1.5));
        assert_eq!(crossing(&[1.0, 2.0], &[30.0, 25.0], 20.0), None);
        assert_eq!(crossing(&[1.0, 2.0], &[20.0, 25.0], 20.0), Some(1.0));
    }

    #[test]
    fn a_saving_is_the_paired_difference_over_the_baseline() {
        let p = point(
            &[1.0],
            &[
                ("base", metric::TOTAL_COST, 1000.0, 990.0, 1010.0),
                (
                    "cheap",
                    metric::TOTAL_COST_VS_BASELINE,
                    -400.0,
                    -420.0,
                    -380.0,
                ),
            ],
        );
        let saving = p.saving("cheap", "base").unwrap();
        assert_eq!(saving, Estimate::new(0.4, 0.38, 0.42));
        assert!(
            p.saving("missing", "base")
                .unwrap_err()
                .contains("`missing`")
        );
    }

    #[test]
    fn ratios_and_differences_widen_their_intervals() {
        let a = Estimate::new(100.0, 90.0, 110.0);
        let b = Estimate::new(50.0, 45.0, 55.0);
        let r = a.ratio(b);
        assert_eq!(r.mean, 2.0);
        assert!((r.low - 90.0 / 55.0).abs() < 1e-12 && (r.high - 110.0 / 45.0).abs() < 1e-12);
        let d = a.minus(b);
        // Half-widths 10 and 5 add to sqrt(125).
        assert_eq!(d.mean, 50.0);
        assert!((d.high - d.mean - 125f64.sqrt()).abs() < 1e-12);
    }
}
