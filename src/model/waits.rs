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
//! The real percentile then lies between the reported one and
//! [`WaitStats::percentile_upper_h`], the same rank with every such wait taken as endless;
//! [`WaitStats::is_lower_bound`] says when the two differ.

use hdrhistogram::Histogram;

/// Histogram units per hour.
const UNITS_PER_H: f64 = 1e9;

/// Waits of the jobs of one replication (or of one workload or team in it).
#[derive(Debug, Clone)]
pub struct WaitStats {
    /// Every wait but those of exactly zero, which `zeros` counts: most jobs of a fleet with
    /// room start at once, and a count is cheaper than a histogram record.
    histogram: Histogram<u64>,
    zeros: u64,
    /// The waits so far of jobs not started by the horizon (also in `histogram`, or in
    /// `zeros` for a wait of zero).
    censored: Histogram<u64>,
    sum_h: f64,
    max_h: f64,
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
            censored: Histogram::new(3).expect("3 significant digits are supported"),
            zeros: 0,
            sum_h: 0.0,
            max_h: 0.0,
        }
    }

    /// Records the wait of a job that started.
    pub fn record(&mut self, wait_h: f64) {
        assert!(wait_h >= 0.0, "a wait is not negative: {wait_h}");
        assert!(wait_h.is_finite(), "a wait is finite: {wait_h}");
        if wait_h == 0.0 {
            // Adds nothing to the sum, and the maximum is at least zero.
            self.zeros += 1;
            return;
        }
        self.histogram
            .record(to_units(wait_h))
            .expect("an auto-resizing histogram records any wait of a run");
        self.sum_h += wait_h;
        self.max_h = self.max_h.max(wait_h);
    }

    /// Records the wait so far of a job that had not started by the horizon.
    pub fn record_censored(&mut self, wait_so_far_h: f64) {
        self.record(wait_so_far_h);
        self.censored
            .record(to_units(wait_so_far_h))
            .expect("an auto-resizing histogram records any wait of a run");
    }

    pub fn count(&self) -> u64 {
        self.histogram.len() + self.zeros
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
        self.percentiles_h(&[per_mille])[0]
    }

    /// Several percentiles (per mille, increasing) in one walk over the histogram.
    pub fn percentiles_h(&self, per_milles: &[u64]) -> Vec<f64> {
        self.at_ranks(per_milles, false)
    }

    /// The same percentile if every job not started by the horizon waited for ever: the real
    /// percentile is at most this (infinite when the rank falls on such a job). Equal to
    /// [`WaitStats::percentile_h`] when every job started.
    pub fn percentile_upper_h(&self, per_mille: u64) -> f64 {
        self.at_ranks(&[per_mille], true)[0]
    }

    /// Whether the percentile is only a lower bound worth saying: jobs that never started could
    /// raise it by more than 1 %. (Any job not started could raise it a little: a few jobs that
    /// arrived just before the horizon shift a rank or two, which is not news.)
    pub fn is_lower_bound(&self, per_mille: u64) -> bool {
        if self.censored() == 0 {
            return false;
        }
        let (low, high) = (
            self.percentile_h(per_mille),
            self.percentile_upper_h(per_mille),
        );
        high > low * (1.0 + MATERIAL) + 1e-9
    }

    fn at_ranks(&self, per_milles: &[u64], censored_endless: bool) -> Vec<f64> {
        assert!(
            per_milles.iter().all(|p| (1..=1000).contains(p)),
            "percentiles in (0, 100] %: {per_milles:?} per mille"
        );
        assert!(per_milles.is_sorted(), "increasing percentiles");
        let n = self.count();
        if n == 0 {
            return vec![f64::NAN; per_milles.len()];
        }
        // ceil(p n) in integers: no rounding of p x n can move a rank.
        let mut ranks = per_milles
            .iter()
            .map(|p| (p * n).div_ceil(1000).max(1))
            .peekable();
        let mut found = Vec::with_capacity(per_milles.len());
        // Waits of zero first: those counted apart and those rounded to zero units.
        let mut below = self.zeros + self.histogram.count_at(0);
        if censored_endless {
            below -= self.censored.count_at(0);
        }
        while ranks.next_if(|rank| below >= *rank).is_some() {
            found.push(0.0);
        }
        if ranks.peek().is_none() {
            return found;
        }
        for bucket in self.histogram.iter_recorded() {
            let value = bucket.value_iterated_to();
            if value == 0 {
                continue;
            }
            below += bucket.count_at_value();
            // (`count_at` clamps values past the histogram's range to its last bucket.)
            if censored_endless && value <= self.censored.high() {
                below -= self.censored.count_at(value);
            }
            while ranks.next_if(|rank| below >= *rank).is_some() {
                // The middle of the bucket: within half a bucket of the recorded wait.
                let middle = self.histogram.median_equivalent(value);
                found.push((middle as f64 / UNITS_PER_H).min(self.max_h));
            }
            if ranks.peek().is_none() {
                return found;
            }
        }
        assert!(censored_endless, "every rank is at most the count {n}");
        found.resize(per_milles.len(), f64::INFINITY);
        found
    }

    /// Adds the waits of `other` (of another group of jobs).
    pub fn add(&mut self, other: &WaitStats) {
        self.histogram
            .add(&other.histogram)
            .expect("an auto-resizing histogram adds any other");
        // Usually empty: every job started.
        if other.censored() > 0 {
            self.censored
                .add(&other.censored)
                .expect("an auto-resizing histogram adds any other");
        }
        self.zeros += other.zeros;
        self.sum_h += other.sum_h;
        self.max_h = self.max_h.max(other.max_h);
    }

    /// Jobs whose waits are lower bounds (not started by the horizon).
    pub fn censored(&self) -> u64 {
        self.censored.len()
    }
}

/// Relative resolution of a reported percentile: a bucket is 1/1024 of its values at most.
/// A percentile is flagged as a lower bound when its upper bound is more than this share above it.
const MATERIAL: f64 = 0.01;

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
    fn zero_waits_counted_apart_rank_with_those_rounded_to_zero() {
        // 3 exact zeros, 2 waits that round to zero units (1e-12 h), 5 waits of 1 h: p30 and
        // p50 are zero, p60 is 1 h (the largest wait, so exact); added to another group, the
        // zeros still count.
        let mut stats = WaitStats::new();
        for w in [0.0, 1e-12, 0.0, 1.0, 1.0, 1e-12, 0.0, 1.0, 1.0, 1.0] {
            stats.record(w);
        }
        assert_eq!(stats.count(), 10);
        assert_eq!(stats.percentiles_h(&[300, 500, 600]), vec![0.0, 0.0, 1.0]);
        let mut all = WaitStats::new();
        all.record(2.0);
        all.add(&stats);
        assert_eq!(all.count(), 11);
        // Sorted: five zeros, 1 h x 5, 2 h: the 5th is zero, the 6th 1 h, the 11th 2 h.
        let [p45, p50, p100] = all.percentiles_h(&[450, 500, 1000])[..] else {
            unreachable!()
        };
        assert_eq!(p45, 0.0);
        assert!((p50 - 1.0).abs() <= 0.0005, "{p50}");
        assert!((p100 - 2.0).abs() <= 2.0 * 0.0005, "{p100}");
        assert_eq!(all.mean_h(), 7.0 / 11.0 + 2e-12 / 11.0);
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
        // A 20-GPU job holds the only node for 3 h with nineteen 1-GPU jobs behind
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
    fn censored_waits_count_and_bound_the_percentiles() {
        let mut stats = WaitStats::new();
        assert!(stats.mean_h().is_nan() && stats.percentile_h(950).is_nan());
        for w in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] {
            stats.record(w);
        }
        stats.record_censored(0.5);
        stats.record_censored(100.0);
        assert_eq!((stats.count(), stats.censored()), (10, 2));
        assert_eq!(stats.mean_h(), 136.5 / 10.0);
        assert_eq!(stats.max_h(), 100.0);
        // Sorted: 0.5*, 1 .. 8, 100*. p50 is the 5th, 4 h; were both censored jobs endless,
        // the 5th of 1 .. 8, inf, inf would be 5 h: a lower bound.
        let close = |a: f64, b: f64| (a - b).abs() <= b * 0.0005;
        assert!(close(stats.percentile_h(500), 4.0));
        assert!(close(stats.percentile_upper_h(500), 5.0));
        assert!(stats.is_lower_bound(500));
        // p90 (9th): 8 h, at most inf (the 9th of 1 .. 8, inf, inf).
        assert!(close(stats.percentile_h(900), 8.0));
        assert_eq!(stats.percentile_upper_h(900), f64::INFINITY);
        // Without censored waits below them, percentiles are exact.
        let mut late = WaitStats::new();
        for w in 1..=99 {
            late.record(f64::from(w));
        }
        late.record_censored(500.0);
        assert!(!late.is_lower_bound(950));
        assert!(late.is_lower_bound(1000));
        // One just-arrived job (wait 0) beside 1,000 waits of 0.001 .. 1 h: p95 is the 951st of
        // 1,001, 0.950 h, and 0.951 h if that job waited for ever: +0.1 %, not flagged. With 20
        // such jobs p95 is the 969th of 1,020: 0.949 h, or 0.969 h (+2.1 %): flagged.
        let mut busy = WaitStats::new();
        for w in 1..=1000 {
            busy.record(f64::from(w) / 1000.0);
        }
        busy.record_censored(0.0);
        assert!(
            !busy.is_lower_bound(950),
            "{}",
            busy.percentile_upper_h(950)
        );
        for _ in 0..19 {
            busy.record_censored(0.0);
        }
        assert!(busy.is_lower_bound(950), "{}", busy.percentile_upper_h(950));
    }
}
