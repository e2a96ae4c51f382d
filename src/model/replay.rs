//! The job stream of a trace workload: which trace job arrives when, in one
//! replication.
//!
//! - `exact`: every job of the trace, in order, at its submit time minus the first job's.
//! - `bootstrap`: simulated day `d` (midnight UTC to midnight, from the start) replays one
//!   whole trace day drawn uniformly, with replacement, among the trace's weekdays when `d` is
//!   Monday to Friday and among its weekend days otherwise; its jobs keep their time of day.
//!   One draw per simulated day from the workload's `TraceDays` stream.
//! - growth: a job arriving in calendar month `m` stands for `f = (1 + growth_per_month)^m`
//!   jobs: `floor(f)` copies, plus one more with probability `f - floor(f)` (so a shrinking
//!   trace, `f < 1`, keeps each job with probability `f`). Copies arrive at the same instant as
//!   the original. One uniform draw per trace job from the `TraceGrowth` stream, only when the
//!   growth is not 0.
//!
//! Both streams are keyed by (seed, replication, workload), never the strategy: every strategy
//! sees the same jobs (common random numbers). The clock reads the shared trace; it copies
//! nothing.

use rand::RngExt;

use crate::calendar::Calendar;
use crate::rng::{Purpose, SimRng, stream};
use crate::scenario::Replay;
use crate::scenario::TraceReplay;

/// Where a trace workload's replay stands in one replication.
pub struct TraceClock<'c> {
    replay: &'c TraceReplay,
    /// Next trace job to consider (`exact`), or within the current day (`bootstrap`).
    next: usize,
    /// `bootstrap`: the current day's end (index into the trace's jobs), the simulated day and
    /// the shift from trace hours to simulated hours.
    day_end: usize,
    day: i64,
    day_shift_h: f64,
    days_rng: Option<SimRng>,
    growth_rng: Option<SimRng>,
    /// Copies of the last job still to arrive, at `copy_at_h`.
    copies_left: u32,
    copy_at_h: f64,
    copy_spec: u32,
}

impl<'c> TraceClock<'c> {
    pub fn new(replay: &'c TraceReplay, seed: u64, replication: u32, workload: &str) -> Self {
        Self {
            replay,
            next: 0,
            day_end: 0,
            day: -1,
            day_shift_h: 0.0,
            days_rng: (replay.mode == Replay::Bootstrap)
                .then(|| stream(seed, replication, Purpose::TraceDays(workload))),
            growth_rng: (replay.growth_per_month != 0.0)
                .then(|| stream(seed, replication, Purpose::TraceGrowth(workload))),
            copies_left: 0,
            copy_at_h: 0.0,
            copy_spec: 0,
        }
    }

    /// The next arrival: its time (hours since start) and trace job, or `None` when the next
    /// one would fall at or after `horizon_h`.
    pub fn next(&mut self, calendar: &Calendar, horizon_h: f64) -> Option<(f64, u32)> {
        if self.copies_left > 0 {
            self.copies_left -= 1;
            return Some((self.copy_at_h, self.copy_spec));
        }
        // Each step takes one trace job; thinning may skip it. Bounded by the jobs that arrive
        // before the horizon.
        loop {
            let (at_h, spec) = self.next_original(calendar, horizon_h)?;
            let copies = match self.growth_rng.as_mut() {
                None => 1,
                Some(rng) => {
                    let months = calendar.month_of(at_h) as i32;
                    let factor = (1.0 + self.replay.growth_per_month).powi(months);
                    let u: f64 = rng.random();
                    let whole = factor.floor();
                    (whole + f64::from(u8::from(u < factor - whole))) as u32
                }
            };
            if copies == 0 {
                continue;
            }
            self.copies_left = copies - 1;
            self.copy_at_h = at_h;
            self.copy_spec = spec;
            return Some((at_h, spec));
        }
    }

    fn next_original(&mut self, calendar: &Calendar, horizon_h: f64) -> Option<(f64, u32)> {
        let jobs = &self.replay.trace.jobs;
        match self.replay.mode {
            Replay::Exact => {
                let job = jobs.get(self.next)?;
                let at_h = job.submit_h - self.replay.shift_h;
                if at_h >= horizon_h {
                    return None;
                }
                self.next += 1;
                Some((at_h, (self.next - 1) as u32))
            }
            Replay::Bootstrap => loop {
                if self.next < self.day_end {
                    let at_h = jobs[self.next].submit_h + self.day_shift_h;
                    if at_h >= horizon_h {
                        return None;
                    }
                    self.next += 1;
                    return Some((at_h, (self.next - 1) as u32));
                }
                self.day += 1;
                let day_start_h = self.day as f64 * 24.0;
                if day_start_h >= horizon_h {
                    return None;
                }
                let weekday = (i64::from(calendar.start_weekday) + self.day) % 7;
                let pool = &self.replay.days[usize::from(weekday >= 5)];
                let rng = self.days_rng.as_mut().expect("bootstrap has a day stream");
                let drawn = pool[rng.random_range(0..pool.len())];
                self.next = drawn.first as usize;
                self.day_end = drawn.end as usize;
                self.day_shift_h = day_start_h - drawn.start_h;
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::scenario::TraceDay;
    use crate::trace::{Column, Dropped, Trace, TraceFormat, TraceJob};
    use jiff::civil::date;

    fn job(submit_h: f64, gpus: u32) -> TraceJob {
        TraceJob {
            submit_h,
            duration_h: 1.0,
            gpus,
            line: 0,
            team: u32::MAX,
            gpu: 0,
            checkpointable: 0,
            state: u8::MAX,
        }
    }

    fn trace(jobs: Vec<TraceJob>) -> Arc<Trace> {
        Arc::new(Trace {
            path: PathBuf::from("t.csv"),
            format: TraceFormat::Csv,
            jobs,
            origin: None,
            gpu_types: Vec::new(),
            teams: Vec::new(),
            states: Vec::new(),
            gpus_column: Column::default(),
            gpu_column: Column::default(),
            dropped: Dropped::default(),
            rounded_up: (0, 0.0),
            mixed_types: 0,
            rows: 0,
        })
    }

    fn replay(
        trace: Arc<Trace>,
        mode: Replay,
        growth: f64,
        days: [Vec<TraceDay>; 2],
    ) -> TraceReplay {
        TraceReplay {
            shift_h: trace.jobs[0].submit_h,
            trace,
            mode,
            growth_per_month: growth,
            days,
            duration_factor: vec![1.0],
            trace_teams: false,
            team_index: Vec::new(),
        }
    }

    fn all(clock: &mut TraceClock<'_>, calendar: &Calendar) -> Vec<(f64, u32)> {
        let mut out = Vec::new();
        while let Some(next) = clock.next(calendar, calendar.horizon_h()) {
            out.push(next);
        }
        out
    }

    #[test]
    fn exact_replay_shifts_the_first_job_to_the_start() {
        let calendar = Calendar::new(date(2027, 1, 1), 1);
        let r = replay(
            trace(vec![job(5.0, 1), job(6.5, 2), job(800.0, 1)]),
            Replay::Exact,
            0.0,
            [Vec::new(), Vec::new()],
        );
        let mut clock = TraceClock::new(&r, 1, 0, "w");
        // 800 - 5 = 795 h is past January's 744 h: left out.
        assert_eq!(all(&mut clock, &calendar), [(0.0, 0), (1.5, 1)]);
    }

    #[test]
    fn bootstrap_keeps_weekdays_apart_and_times_of_day() {
        // Trace days: a weekday whose jobs are at 10:00 and 11:00, and a weekend day with one
        // job at 03:00. 2027-01-04 is a Monday.
        let calendar = Calendar::new(date(2027, 1, 4), 1);
        let t = trace(vec![
            job(24.0 + 10.0, 1),
            job(24.0 + 11.0, 1),
            job(48.0 + 3.0, 1),
        ]);
        let days = [
            vec![TraceDay {
                first: 0,
                end: 2,
                start_h: 24.0,
            }],
            vec![TraceDay {
                first: 2,
                end: 3,
                start_h: 48.0,
            }],
        ];
        let r = replay(t, Replay::Bootstrap, 0.0, days);
        let mut clock = TraceClock::new(&r, 1, 0, "w");
        let arrivals = all(&mut clock, &calendar);
        for (at_h, spec) in &arrivals {
            let weekday = (at_h / 24.0).floor() as i64 % 7;
            let hour = at_h % 24.0;
            if weekday >= 5 {
                assert_eq!((*spec, hour), (2, 3.0));
            } else {
                assert!(
                    matches!((*spec, hour), (0, 10.0) | (1, 11.0)),
                    "{spec} {hour}"
                );
            }
        }
        // 31 days from a Monday: 23 weekdays (2 jobs each) and 8 weekend days (1 each).
        assert_eq!(arrivals.len(), 23 * 2 + 8);
    }

    #[test]
    fn growth_copies_and_thins_by_calendar_month() {
        // One job an hour for two months; +100 % a month doubles February's jobs exactly;
        // -50 % keeps about half of February's.
        let calendar = Calendar::new(date(2027, 1, 1), 2);
        let hours = calendar.horizon_h() as usize;
        let jobs: Vec<TraceJob> = (0..hours).map(|h| job(h as f64, 1)).collect();
        let t = trace(jobs);
        let january = 31 * 24;
        let r = replay(Arc::clone(&t), Replay::Exact, 1.0, [Vec::new(), Vec::new()]);
        let arrivals = all(&mut TraceClock::new(&r, 1, 0, "w"), &calendar);
        assert_eq!(arrivals.len(), january + 2 * (hours - january));
        assert!(arrivals.windows(2).all(|w| w[0].0 <= w[1].0));
        let r = replay(t, Replay::Exact, -0.5, [Vec::new(), Vec::new()]);
        let arrivals = all(&mut TraceClock::new(&r, 1, 0, "w"), &calendar);
        let february = (arrivals.len() - january) as f64;
        // Binomial(672, 0.5): mean 336, standard deviation 13; 4 standard deviations.
        assert!((february - 336.0).abs() < 4.0 * 13.0, "{february}");
    }
}
