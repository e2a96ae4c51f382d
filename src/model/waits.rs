//! Waiting times of one replication: count, mean, maximum and percentiles.
//!
//! Percentiles come from an HDR histogram at 3 significant digits over the whole range a run
//! can produce (it grows with the largest wait recorded, so memory depends on the range of the
//! waits, not on their number). Waits are recorded in nanohours: a wait of 3.6 ms or more is
//! kept to within 0.05 % of its value (half a bucket of 1/1024 of the value), a shorter one to
//! within 1.8 µs; a wait of zero is exactly zero.
//!
//! A job that has not started by the horizon is recorded with the wait it has accrued (a lower
//! bound of its real wait), so a queue that never drains cannot report a small percentile.
//! [`WaitStats::censored_min_h`] says from which value on a reported figure is only a lower
//! bound.

use hdrhistogram::Histogram;

/// Histogram units per hour.
const UNITS_PER_H: f64 = 1e9;

/// Waits of the jobs of one replication (or of one workload or team in it).
#[derive(Debug, Clone)]
pub struct WaitStats {
    histogram: Histogram<u64>,
    sum_h: f64,
    max_h: f64,
    /// Waits of jobs that had not started by the horizon.
    censored: u64,
    censored_min_h: f64,
}

impl Default for WaitStats {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitStats {
    pub fn new() -> Self {
        Self {
            // Auto-resizing: it tracks whatever wait is recorded, up to 2^62 units (centuries).
            histogram: Histogram::new(3).expect("3 significant digits are supported"),
            sum_h: 0.0,
            max_h: 0.0,
            censored: 0,
            censored_min_h: f64::INFINITY,
        }
    }

    /// Records the wait of a job that started.
    pub fn record(&mut self, wait_h: f64) {
        assert!(wait_h >= 0.0, "a wait is not negative: {wait_h}");
        assert!(wait_h.is_finite(), "a wait is finite: {wait_h}");
        self.histogram
            .record(to_units(wait_h))
            .expect("an auto-resizing histogram records any wait of a run");
        self.sum_h += wait_h;
        self.max_h = self.max_h.max(wait_h);
    }

    /// Records the wait so far of a job that had not started by the horizon.
    pub fn record_censored(&mut self, wait_so_far_h: f64) {
        self.record(wait_so_far_h);
        self.censored += 1;
        self.censored_min_h = self.censored_min_h.min(wait_so_far_h);
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Mean wait; NaN without waits.
    pub fn mean_h(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.sum_h / self.count() as f64
        }
    }

    /// Largest wait (exact); NaN without waits.
    pub fn max_h(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.max_h
        }
    }

    /// The nearest-rank percentile `per_mille` / 1000: the smallest recorded wait such that at
    /// least that share of the waits is at or below it. NaN without waits.
    pub fn percentile_h(&self, per_mille: u64) -> f64 {
        assert!(
            (1..=1000).contains(&per_mille),
            "a percentile in (0, 100] %: {per_mille} per mille"
        );
        let n = self.count();
        if n == 0 {
            return f64::NAN;
        }
        // ceil(p n) in integers: no rounding of p x n can move the rank.
        let rank = (per_mille * n).div_ceil(1000).max(1);
        let mut below = 0;
        for bucket in self.histogram.iter_recorded() {
            below += bucket.count_at_value();
            if below >= rank {
                let value = bucket.value_iterated_to();
                // The middle of the bucket: within half a bucket of the recorded wait.
                let middle = self.histogram.median_equivalent(value);
                return (middle as f64 / UNITS_PER_H).min(self.max_h);
            }
        }
        unreachable!("rank {rank} is at most the count {n}")
    }

    /// Jobs whose waits are lower bounds (not started by the horizon).
    pub fn censored(&self) -> u64 {
        self.censored
    }

    /// The smallest censored wait: any reported wait at or above it may be only a lower bound
    /// of the real one. NaN when every job started.
    pub fn censored_min_h(&self) -> f64 {
        if self.censored == 0 {
            f64::NAN
        } else {
            self.censored_min_h
        }
    }
}

fn to_units(wait_h: f64) -> u64 {
    round_to_u64(wait_h * UNITS_PER_H)
}

/// `x.round() as u64`, bit for bit, without the libm call that `round` is on x86-64 without
/// SSE4.1 (the default target): it cost a quarter of the wait histogram's recording.
fn round_to_u64(x: f64) -> u64 {
    // Saturating truncation (NaN and negatives give 0); below 2^53 the fraction `x - t` is
    // exact, and above it `x` is a whole number.
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nearest rank from sorted values, by the textbook definition.
    fn nearest_rank(sorted: &[f64], per_mille: u64) -> f64 {
        let rank = ((per_mille as f64 / 1000.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.max(1) - 1]
    }

    #[test]
    fn percentiles_are_nearest_rank_to_a_twentieth_of_a_percent_over_any_range() {
        // Waits from zero through milliseconds to years, as a queue that never drains makes.
        let mut waits: Vec<f64> = vec![0.0; 37];
        let mut x = 1e-6;
        while x < 20_000.0 {
            waits.push(x);
            x *= 1.013;
        }
        waits.extend([2.047, 2.048, 2.049, 2.5, 13.863, 100.0, 8760.0]);
        let mut stats = WaitStats::new();
        for w in &waits {
            stats.record(*w);
        }
        waits.sort_by(f64::total_cmp);
        for per_mille in [1, 10, 50, 100, 500, 900, 950, 990, 999, 1000] {
            let exact = nearest_rank(&waits, per_mille);
            let got = stats.percentile_h(per_mille);
            let tolerance = (exact * 0.0005).max(1e-9);
            assert!(
                (got - exact).abs() <= tolerance,
                "p{per_mille}: {got} vs {exact}"
            );
        }
        assert_eq!(stats.max_h(), 20_000.0f64.min(*waits.last().unwrap()));
        assert_eq!(stats.count(), waits.len() as u64);
    }

    #[test]
    fn round_to_u64_is_round_then_cast() {
        let specials = [
            -1.5,
            -0.5,
            -0.0,
            0.0,
            0.499_999_999_999_999_94,
            0.5,
            1.5,
            2.5,
            4_503_599_627_370_495.5, // 2^52 - 0.5
            9_007_199_254_740_993.0, // Above 2^53.
            1.8e19,
            2e19,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let steps = (0..20_000).map(|i| f64::from(i) * 0.000_25 * 1000.0 / 7.0);
        for x in specials.into_iter().chain(steps) {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x}");
        }
    }

    #[test]
    fn waits_past_two_hours_do_not_saturate() {
        // Issue 10: a 20-GPU job holds the only node for 3 h with nineteen 1-GPU jobs behind
        // it: they all wait 2.999 h (and the big one waits 0).
        let mut stats = WaitStats::new();
        stats.record(0.0);
        for _ in 0..19 {
            stats.record(2.999);
        }
        assert!((stats.percentile_h(500) - 2.999).abs() < 2.999 * 0.0005);
        assert!((stats.percentile_h(950) - 2.999).abs() < 2.999 * 0.0005);
        assert_eq!(stats.percentile_h(50), 0.0);
    }

    #[test]
    fn ranks_are_exact_at_boundaries() {
        // 100 waits 1..=100 h: p95 is the 95th value, p50 the 50th, p1 the first.
        let mut stats = WaitStats::new();
        for i in 1..=100 {
            stats.record(f64::from(i));
        }
        for (per_mille, expected) in [(950, 95.0), (500, 50.0), (10, 1.0), (1000, 100.0)] {
            let got = stats.percentile_h(per_mille);
            assert!((got - expected).abs() <= expected * 0.0005, "{got}");
        }
        // 0.951 x 100 = 95.1: the 96th.
        assert!((stats.percentile_h(951) - 96.0).abs() < 0.05);
    }

    #[test]
    fn censored_waits_count_and_mark_their_range() {
        let mut stats = WaitStats::new();
        assert!(stats.mean_h().is_nan() && stats.percentile_h(950).is_nan());
        assert!(stats.censored_min_h().is_nan());
        stats.record(1.0);
        stats.record(3.0);
        stats.record_censored(100.0);
        stats.record_censored(50.0);
        assert_eq!(stats.count(), 4);
        assert_eq!(stats.censored(), 2);
        assert_eq!(stats.mean_h(), 154.0 / 4.0);
        assert_eq!(stats.censored_min_h(), 50.0);
        assert_eq!(stats.max_h(), 100.0);
        // p75 is the third wait, 50 h: a censored one, so only a lower bound.
        assert!((stats.percentile_h(750) - 50.0).abs() < 0.05);
    }
}
