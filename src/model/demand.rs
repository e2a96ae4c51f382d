//! A service's demand in one replication: GPUs of its `gpu` as a step function of time, and
//! exact integrals of what a served capacity leaves unmet.
//!
//! Demand is constant within each hour (profiles, growth by calendar month and the hourly
//! variation all change on the hour) and, for a measured curve, within each of its steps, so
//! integrals are sums over those pieces: no sampling error.

use rand_distr::{Distribution, StandardNormal};

use crate::calendar::Calendar;
use crate::rng::SimRng;
use crate::scenario::Demand;

/// The demand of one service in one replication.
pub struct DemandCurve<'c> {
    demand: &'c Demand,
    calendar: &'c Calendar,
    noise: Option<Noise>,
}

/// The hourly multiplicative variation: lognormal with mean 1, one draw per hour in order, so
/// hour `h` gets the same value under every strategy (common random numbers).
struct Noise {
    rng: SimRng,
    mu: f64,
    sigma: f64,
    /// Hour index of `value` (-1 before the first draw).
    hour: i64,
    value: f64,
}

/// Totals of one stretch of time against a constant served capacity.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Integral {
    /// GPU-hours demanded.
    pub demanded: f64,
    /// GPU-hours of demand met (at most the served capacity).
    pub served: f64,
    /// GPU-hours of demand above the served capacity.
    pub unserved: f64,
    /// Hours in which the served capacity met all the demand.
    pub met_h: f64,
}

/// Demand at or below the served capacity to within this share counts as met (rounding).
const MET_TOLERANCE: f64 = 1e-9;

impl<'c> DemandCurve<'c> {
    /// `rng`: the service's demand stream (used only with `noise_cv` > 0).
    pub fn new(demand: &'c Demand, calendar: &'c Calendar, rng: SimRng) -> Self {
        let noise = (demand.noise_cv > 0.0).then(|| {
            // Lognormal with mean 1 and coefficient of variation cv: sigma^2 = ln(1 + cv^2).
            let sigma2 = (1.0 + demand.noise_cv * demand.noise_cv).ln();
            Noise {
                rng,
                mu: -sigma2 / 2.0,
                sigma: sigma2.sqrt(),
                hour: -1,
                value: 1.0,
            }
        });
        Self {
            demand,
            calendar,
            noise,
        }
    }

    /// The demand on the piece containing `at_h`, and the end of that piece. Calls must come
    /// in non-decreasing time (the variation is drawn hour by hour).
    pub fn piece(&mut self, at_h: f64) -> (f64, f64) {
        let hour = at_h.floor();
        let mut end_h = hour + 1.0;
        let shape = match &self.demand.trace {
            None => {
                let how = self.calendar.hour_of_week(hour);
                let (day, hour_of_day) = ((how / 24.0) as usize % 7, (how % 24.0) as usize % 24);
                self.demand.gpus * self.demand.daily[hour_of_day] * self.demand.weekly[day]
            }
            Some(trace) => {
                let (laps, within_h) = if trace.period_h.is_finite() {
                    let laps = (at_h / trace.period_h).floor();
                    (laps, at_h - laps * trace.period_h)
                } else {
                    (0.0, at_h)
                };
                let next = trace
                    .steps
                    .partition_point(|(from_h, _)| *from_h <= within_h);
                let step_end_h = match trace.steps.get(next) {
                    Some((from_h, _)) => laps * trace.period_h + from_h,
                    None => (laps + 1.0) * trace.period_h,
                };
                // Rounding can put the next step at `at_h` itself; the hour still ends later.
                if step_end_h > at_h {
                    end_h = end_h.min(step_end_h);
                }
                trace.steps[next.saturating_sub(1)].1
            }
        };
        let month = self.calendar.month_of(at_h);
        let growth = (1.0 + self.demand.growth_per_month).powi(month as i32);
        (shape * growth * self.noise_at(hour as i64), end_h)
    }

    fn noise_at(&mut self, hour: i64) -> f64 {
        let Some(noise) = self.noise.as_mut() else {
            return 1.0;
        };
        assert!(
            hour >= noise.hour,
            "demand asked for hour {hour} after hour {}",
            noise.hour
        );
        while noise.hour < hour {
            let z: f64 = StandardNormal.sample(&mut noise.rng);
            noise.value = (noise.mu + noise.sigma * z).exp();
            noise.hour += 1;
        }
        noise.value
    }

    /// Demand against `served` GPUs over `[from_h, to_h)`, piece by piece; `each` sees every
    /// piece as (start, hours, demand).
    pub fn integrate(
        &mut self,
        from_h: f64,
        to_h: f64,
        served: f64,
        mut each: impl FnMut(f64, f64, f64),
    ) -> Integral {
        let mut total = Integral::default();
        let mut at_h = from_h;
        while at_h < to_h {
            let (gpus, end_h) = self.piece(at_h);
            let end_h = end_h.min(to_h);
            let hours = end_h - at_h;
            total.demanded += gpus * hours;
            total.served += gpus.min(served) * hours;
            total.unserved += (gpus - served).max(0.0) * hours;
            if gpus <= served + MET_TOLERANCE * gpus.max(1.0) {
                total.met_h += hours;
            }
            each(at_h, hours, gpus);
            at_h = end_h;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, stream};
    use crate::scenario::DemandTrace;
    use std::sync::Arc;

    fn calendar() -> Calendar {
        // 2027-02-01 is a Monday; February 2027 has 28 days.
        Calendar::new(jiff::civil::date(2027, 2, 1), 2)
    }

    fn demand(gpus: f64) -> Demand {
        Demand {
            gpus,
            daily: [1.0; 24],
            weekly: [1.0; 7],
            growth_per_month: 0.0,
            noise_cv: 0.0,
            trace: None,
        }
    }

    fn rng() -> SimRng {
        stream(1, 0, Purpose::Arrivals("test"))
    }

    #[test]
    fn profiles_and_growth_shape_the_hours() {
        let mut d = demand(10.0);
        d.daily[9] = 3.0;
        d.weekly[6] = 0.5; // Sunday
        d.growth_per_month = 0.1;
        let calendar = calendar();
        let mut curve = DemandCurve::new(&d, &calendar, rng());
        assert_eq!(curve.piece(0.5), (10.0, 1.0));
        assert_eq!(curve.piece(9.0), (30.0, 10.0));
        // Sunday 2027-02-07 09:00 is hour 6 x 24 + 9.
        assert_eq!(curve.piece(6.0 * 24.0 + 9.2), (15.0, 154.0));
        // March (month 1) starts at 28 x 24 h: 10 % more.
        let (gpus, _) = curve.piece(28.0 * 24.0 + 2.0);
        assert!((gpus - 11.0).abs() < 1e-12, "{gpus}");
    }

    #[test]
    fn integrals_split_demand_into_served_and_unserved() {
        // 10 GPUs on hours 0-8, 30 at 09:00, against 20 served: hour 9 leaves 10 GPU-h unmet.
        let mut d = demand(10.0);
        d.daily[9] = 3.0;
        let calendar = calendar();
        let mut curve = DemandCurve::new(&d, &calendar, rng());
        let mut pieces = 0;
        let total = curve.integrate(0.5, 10.5, 20.0, |_, _, _| pieces += 1);
        assert_eq!(pieces, 11);
        // Half an hour at 10, hours 1-8 at 10, hour 9 at 30, half an hour at 10.
        assert_eq!(total.demanded, 0.5 * 10.0 + 8.0 * 10.0 + 30.0 + 0.5 * 10.0);
        assert_eq!(total.unserved, 10.0);
        assert_eq!(total.served, total.demanded - 10.0);
        assert_eq!(total.met_h, 9.0);
    }

    #[test]
    fn a_measured_curve_steps_and_repeats() {
        let mut d = demand(1.0);
        d.trace = Some(Arc::new(DemandTrace {
            steps: vec![(0.0, 4.0), (1.5, 8.0)],
            period_h: 3.0,
        }));
        let calendar = calendar();
        let mut curve = DemandCurve::new(&d, &calendar, rng());
        assert_eq!(curve.piece(0.2), (4.0, 1.0));
        assert_eq!(curve.piece(1.2), (4.0, 1.5));
        assert_eq!(curve.piece(1.5), (8.0, 2.0));
        assert_eq!(curve.piece(2.5), (8.0, 3.0));
        assert_eq!(curve.piece(3.1), (4.0, 4.0));
        // Over two periods: (1.5 x 4 + 1.5 x 8) x 2.
        let total = curve.integrate(4.0, 10.0, 0.0, |_, _, _| {});
        assert_eq!(total.demanded, 36.0);
    }

    #[test]
    fn the_hourly_variation_has_mean_one_and_the_asked_spread() {
        let mut d = demand(1.0);
        d.noise_cv = 0.5;
        let calendar = calendar();
        let mut curve = DemandCurve::new(&d, &calendar, rng());
        let n = 100_000;
        let values: Vec<f64> = (0..n).map(|h| curve.piece(f64::from(h)).0).collect();
        let mean = values.iter().sum::<f64>() / f64::from(n);
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / f64::from(n - 1);
        // Standard error of the mean: cv / sqrt(n) = 0.0016; of the cv about 0.004.
        assert!((mean - 1.0).abs() < 0.006, "{mean}");
        assert!(
            (var.sqrt() / mean - 0.5).abs() < 0.02,
            "{}",
            var.sqrt() / mean
        );
        // Within an hour the value holds.
        let mut again = DemandCurve::new(&d, &calendar, rng());
        assert_eq!(again.piece(0.1).0, again.piece(0.9).0);
    }
}
