//! `fleetsim fit`: parametric workloads fitted to a trace, written as `[[workload]]` tables.
//!
//! The trace's jobs are split into classes (by GPU count: 1, 2-8, 9-32, 33-128 and more than
//! 128, i.e. one GPU, one 8-GPU node, up to 4, up to 16 and more nodes; or by team), and each
//! class becomes one workload:
//!
//! - the **frame** is the trace's whole days (UTC), all but its first and last calendar day,
//!   which are usually partial (a trace of under 3 calendar days: from its first to its last
//!   submit, with no profiles and no growth);
//! - `daily_profile`: jobs per hour of the day (UTC) in the frame, normalised to mean 1 (with
//!   at least 240 jobs; else flat); `weekly_profile`: jobs per day on each weekday over the
//!   frame's days of that weekday, normalised to mean 1 (with 14 days and 70 jobs, and dates;
//!   else flat);
//! - `growth_per_month`: a Poisson regression of whole weeks' counts on the week (4 weeks at
//!   least), kept when it is at least twice its standard error, else 0;
//! - `arrivals_per_day`: the rate at the frame's first day such that a run starting that day
//!   expects exactly the frame's jobs under the profiles and growth (months counted as the
//!   simulator counts them, calendar months from the start);
//! - `gpus`: the class's GPU counts and their shares; `duration_h`: an `empirical`
//!   distribution through the durations' quantiles (denser in the tail, where the GPU-hours
//!   are), hours on the trace's GPUs.
//!
//! Goodness of fit per workload: the Kolmogorov-Smirnov distance between the fitted and the
//! trace's durations, and the jobs per hour of the frame against the fitted rate (their mean,
//! the dispersion `sum (observed - expected)^2 / expected` per hour, 1 for a Poisson process,
//! and the same over the 168 hours of the week). GPU counts and durations are drawn
//! independently within a class: a trace whose larger gangs also run longer within a class
//! keeps that only as far as the classes separate them, so the report also gives the class's
//! GPU-hours per job in the trace (mean of GPUs x duration) against the fit's (mean GPUs x mean
//! duration).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::calendar::Calendar;
use crate::scenario::DurationDist;

use crate::names::without_controls;
use crate::trace::{Trace, thousands};

/// How jobs are split into workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitBy {
    /// 1 GPU, 2-8, 9-32, 33-128, more than 128 (one GPU, a node of 8, up to 4, up to 16
    /// nodes, more): in LLM clusters the scale of a job predicts its length.
    Gpus,
    /// One workload per team (the largest [`FitOptions::teams_max`] by GPU-hours, the rest
    /// together).
    Team,
}

#[derive(Debug, Clone)]
pub struct FitOptions {
    pub by: SplitBy,
    /// Workload names start with this.
    pub name: String,
    /// The workloads' `gpu` (the type the durations refer to); else the trace's, if it names
    /// one type only.
    pub gpu: Option<String>,
    pub teams_max: usize,
}

/// One fitted workload with its goodness of fit.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub name: String,
    pub team: Option<String>,
    /// The GPU type its durations were measured on, when the trace mixes types (each type
    /// then gets workloads of its own, so `[gpu_speed]` converts their durations).
    pub gpu: Option<String>,
    /// Jobs of the class, and of them in the frame.
    pub jobs: usize,
    pub jobs_in_frame: usize,
    pub gpu_hours: f64,
    pub arrivals_per_day: f64,
    pub arrivals_per_day_at_end: f64,
    pub daily: Option<[f64; 24]>,
    pub weekly: Option<[f64; 7]>,
    pub growth_per_month: f64,
    /// The regression's estimate and standard error, when it ran.
    pub growth_fitted: Option<(f64, f64)>,
    /// `(gpus, share)`, by GPUs.
    pub gpus: Vec<(u32, f64)>,
    /// `(hours, cumulative probability)`.
    pub points: Vec<(f64, f64)>,
    pub duration_mean_h: f64,
    pub duration_mean_fit_h: f64,
    /// GPU-hours per job: the trace's mean of GPUs x duration, and the fit's mean GPUs x mean
    /// duration (they differ when larger gangs of the class run longer or shorter).
    pub gpu_hours_per_job: f64,
    pub gpu_hours_per_job_fit: f64,
    pub ks: f64,
    pub per_hour: f64,
    pub per_hour_fit: f64,
    pub dispersion: f64,
    /// The same over the 168 hours of the week (jobs summed over the frame's weeks): 1 when
    /// the daily and weekly profiles explain the hours of the week as well as chance allows.
    pub week_dispersion: f64,
}

/// The fit of a whole trace.
#[derive(Debug, Clone)]
pub struct Fit {
    pub workloads: Vec<Fitted>,
    /// Classes whose jobs all fall outside the frame (on the partial first or last day), with
    /// their jobs: not fitted.
    pub skipped: Vec<(String, usize)>,
    /// The frame: first day (UTC, when the trace has dates), days, and whether it is whole days.
    pub frame_start: Option<jiff::civil::Date>,
    pub frame_days: f64,
    pub whole_days: bool,
    pub gpu: Option<String>,
    /// `gpu` came from `--gpu` (else from the trace, written as a comment only).
    pub gpu_given: bool,
    pub jobs: usize,
}

/// A nominal Monday for traces whose times are seconds from their start.
const NOMINAL_START: jiff::civil::Date = jiff::civil::date(2001, 1, 1);
const DAYS_PER_MONTH: f64 = 30.436_875;

pub fn fit(trace: &Trace, options: &FitOptions) -> Result<Fit, String> {
    let jobs = &trace.jobs;
    assert!(!jobs.is_empty(), "a trace has jobs");
    let frame = Frame::of(trace)?;
    // The trace's GPU type, if all jobs name the same one.
    let gpu = options
        .gpu
        .clone()
        .or_else(|| match trace.gpu_types.as_slice() {
            [only] if jobs.iter().all(|j| j.gpu == 1) => Some(only.clone()),
            _ => None,
        });
    let mut fitted = Vec::new();
    let mut skipped = Vec::new();
    let mut classes = classes(trace, options);
    if options.gpu.is_none() && mixes_gpu_types(trace) {
        classes = by_gpu_type(trace, classes);
    }
    for class in classes {
        match fit_class(trace, &frame, class) {
            Ok(class) => fitted.push(class),
            // Its jobs all fall on the partial first or last day: no rate to fit.
            Err(skip) => skipped.push(skip),
        }
    }
    if fitted.is_empty() {
        return Err(
            "no job falls in the trace's whole days (all but its first and last calendar day): nothing to fit a rate to"
                .to_string(),
        );
    }
    Ok(Fit {
        workloads: fitted,
        skipped,
        frame_start: frame.start,
        frame_days: frame.days,
        whole_days: frame.whole_days,
        gpu,
        gpu_given: options.gpu.is_some(),
        jobs: jobs.len(),
    })
}

/// The part of the trace rates are fitted to: its whole calendar days (all but the first and
/// the last, usually partial) when it spans three or more, else its whole span.
struct Frame {
    start_h: f64,
    end_h: f64,
    days: f64,
    /// The first day, when the trace has dates and whole days.
    start: Option<jiff::civil::Date>,
    whole_days: bool,
    calendar: Calendar,
    /// Whole days, at least 1.
    day_count: i64,
}

impl Frame {
    fn of(trace: &Trace) -> Result<Self, String> {
        let jobs = &trace.jobs;
        let first_day = (jobs[0].submit_h / 24.0).floor() as i64;
        let last_day = (jobs[jobs.len() - 1].submit_h / 24.0).floor() as i64;
        let whole_days = last_day - first_day + 1 >= 3;
        let (start_h, end_h) = if whole_days {
            ((first_day + 1) as f64 * 24.0, last_day as f64 * 24.0)
        } else {
            let span = trace.span_h().max(1.0);
            (jobs[0].submit_h, jobs[0].submit_h + span)
        };
        let days = (end_h - start_h) / 24.0;
        let start = match trace.origin {
            Some(origin) if whole_days => Some(
                origin
                    .checked_add(jiff::Span::new().days(first_day + 1))
                    .map_err(|e| e.to_string())?,
            ),
            _ => None,
        };
        let months = (days / 28.0).ceil() as u32 + 1;
        Ok(Frame {
            start_h,
            end_h,
            days,
            start,
            whole_days,
            calendar: Calendar::new(start.unwrap_or(NOMINAL_START), months),
            day_count: days.round().max(1.0) as i64,
        })
    }

    /// The frame day of trace hour `h`, from 0.
    fn day_of(&self, h: f64) -> i64 {
        ((h - self.start_h) / 24.0).floor() as i64
    }

    /// Weekday (Monday 0) of frame day `d` (of the nominal start when the trace has no dates).
    fn weekday_of(&self, d: i64) -> usize {
        (i64::from(self.calendar.start_weekday) + d).rem_euclid(7) as usize
    }
}

/// A class of jobs to fit one workload to: its name, team and jobs (indices), and the GPU type
/// its durations were measured on when the trace mixes types.
type Class = (String, Option<String>, Vec<usize>, Option<String>);

/// Whether the trace's jobs ran on more than one GPU type (or some name one and some none).
fn mixes_gpu_types(trace: &Trace) -> bool {
    let first = trace.jobs[0].gpu;
    trace.jobs.iter().any(|j| j.gpu != first)
}

/// Each class split by the GPU type of its jobs: durations measured on an A100 and on an H100
/// are different amounts of work, and a workload's durations refer to one type.
fn by_gpu_type(trace: &Trace, classes: Vec<Class>) -> Vec<Class> {
    let mut split = Vec::new();
    for (name, team, members, _) in classes {
        let mut by_type: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
        for j in members {
            by_type.entry(trace.jobs[j].gpu).or_default().push(j);
        }
        for members in by_type.into_values() {
            let (label, gpu) = match trace.gpu_type(members[0]) {
                Some(gpu) => (sanitize(gpu), Some(gpu.to_string())),
                None => ("untyped".to_string(), None),
            };
            let name = workload_name(&name, &label);
            split.push((name, team.clone(), members, gpu));
        }
    }
    split
}

/// The jobs split by GPU count or by team.
fn classes(trace: &Trace, options: &FitOptions) -> Vec<Class> {
    let jobs = &trace.jobs;
    let mut classes: Vec<Class> = Vec::new();
    match options.by {
        SplitBy::Gpus => {
            let sizes = [
                ("1gpu", 1..=1),
                ("2to8gpus", 2..=8),
                ("9to32gpus", 9..=32),
                ("33to128gpus", 33..=128),
                ("over128gpus", 129..=u32::MAX),
            ];
            for (suffix, range) in sizes {
                let members: Vec<usize> = (0..jobs.len())
                    .filter(|j| range.contains(&jobs[*j].gpus))
                    .collect();
                if !members.is_empty() {
                    classes.push((workload_name(&options.name, suffix), None, members, None));
                }
            }
        }
        SplitBy::Team => {
            // Team -> (GPU-hours, its jobs).
            type Teams<'t> = Vec<(Option<&'t str>, (f64, Vec<usize>))>;
            let mut by_team: BTreeMap<Option<&str>, (f64, Vec<usize>)> = BTreeMap::new();
            for (j, job) in jobs.iter().enumerate() {
                let entry = by_team.entry(trace.team(j)).or_default();
                entry.0 += f64::from(job.gpus) * job.duration_h;
                entry.1.push(j);
            }
            let mut teams: Teams<'_> = by_team.into_iter().collect();
            teams.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.0.cmp(&b.0)));
            let mut other: Vec<usize> = Vec::new();
            let mut used = std::collections::BTreeSet::new();
            for (rank, (team, (_, members))) in teams.into_iter().enumerate() {
                if rank >= options.teams_max {
                    other.extend(members);
                    continue;
                }
                let label = sanitize(team.unwrap_or("no-team"));
                let mut name = workload_name(&options.name, &label);
                let mut n = 2;
                while !used.insert(name.clone()) {
                    name = workload_name(&options.name, &format!("{label}-{n}"));
                    n += 1;
                }
                classes.push((name, team.map(str::to_string), members, None));
            }
            if !other.is_empty() {
                other.sort_unstable();
                classes.push((
                    workload_name(&options.name, "other-teams"),
                    Some("other".into()),
                    other,
                    None,
                ));
            }
        }
    }
    classes
}

/// `prefix-suffix`, the prefix cut so that the name stays within the length a scenario
/// accepts (the suffix tells classes apart, so it is kept whole when it can be).
fn workload_name(prefix: &str, suffix: &str) -> String {
    let max = crate::names::NAME_CHARS_MAX;
    let suffix: String = suffix.chars().take(max / 2).collect();
    let room = max - suffix.chars().count() - 1;
    let prefix: String = prefix.chars().take(room).collect();
    format!("{prefix}-{suffix}")
}

/// Fits one workload to a class of jobs, or says why not (its name and jobs: none of them
/// falls in the frame).
fn fit_class(trace: &Trace, frame: &Frame, class: Class) -> Result<Fitted, (String, usize)> {
    let jobs = &trace.jobs;
    let (name, team, members, gpu) = class;
    let in_frame: Vec<usize> = members
        .iter()
        .copied()
        .filter(|j| (frame.start_h..frame.end_h).contains(&jobs[*j].submit_h))
        .collect();
    let n_frame = in_frame.len();
    if n_frame == 0 {
        return Err((name, members.len()));
    }
    let (weekly, daily) = profiles(trace, frame, &in_frame);
    let growth_fitted = growth(trace, frame, &in_frame);
    let growth = match growth_fitted {
        Some((g, se)) if g.abs() >= 2.0 * se => g.clamp(-0.9, 10.0),
        _ => 0.0,
    };
    let rate = Rate {
        weekly: weekly.unwrap_or([1.0; 7]),
        daily: daily.unwrap_or([1.0; 24]),
        growth,
    };

    // The rate that gives the frame's jobs in expectation.
    let (arrivals_per_day, at_end) = if frame.whole_days {
        let weight: f64 = (0..frame.day_count)
            .map(|d| rate.weekly[frame.weekday_of(d)] * rate.month_factor(frame, d))
            .sum();
        let base = n_frame as f64 / weight;
        (base, base * rate.month_factor(frame, frame.day_count - 1))
    } else {
        let per_day = n_frame as f64 / frame.days;
        (per_day, per_day)
    };

    // GPUs.
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for j in &members {
        *counts.entry(jobs[*j].gpus).or_default() += 1;
    }
    let gpus: Vec<(u32, f64)> = counts
        .into_iter()
        .map(|(g, n)| (g, n as f64 / members.len() as f64))
        .collect();
    let mean_gpus: f64 = gpus.iter().map(|(g, p)| f64::from(*g) * p).sum();

    // Durations.
    let mut durations: Vec<f64> = members.iter().map(|j| jobs[*j].duration_h).collect();
    durations.sort_by(f64::total_cmp);
    let points = quantile_points(&durations);
    let mean_h = durations.iter().sum::<f64>() / durations.len() as f64;
    let fitted_mean = if points.last().is_some_and(|p| p.0 > 0.0) {
        DurationDist::Empirical {
            points: points.clone(),
        }
        .mean_h()
    } else {
        0.0
    };
    let ks = ks_distance(&durations, &points);
    let gpu_hours: f64 = members
        .iter()
        .map(|j| f64::from(jobs[*j].gpus) * jobs[*j].duration_h)
        .sum();
    let arrivals = arrivals_fit(trace, frame, &in_frame, &rate, arrivals_per_day);
    Ok(Fitted {
        name,
        team,
        gpu,
        jobs: members.len(),
        jobs_in_frame: n_frame,
        gpu_hours,
        arrivals_per_day,
        arrivals_per_day_at_end: at_end,
        daily,
        weekly,
        growth_per_month: growth,
        growth_fitted,
        gpus,
        points,
        duration_mean_h: mean_h,
        duration_mean_fit_h: fitted_mean,
        gpu_hours_per_job: gpu_hours / members.len() as f64,
        gpu_hours_per_job_fit: mean_gpus * fitted_mean,
        ks,
        per_hour: arrivals.per_hour,
        per_hour_fit: arrivals.per_hour_fit,
        dispersion: arrivals.dispersion,
        week_dispersion: arrivals.week_dispersion,
    })
}

/// The weekly profile (two weeks of dated whole days and 70 jobs at least) and the daily one
/// (240 jobs at least), relative to their means.
fn profiles(
    trace: &Trace,
    frame: &Frame,
    in_frame: &[usize],
) -> (Option<[f64; 7]>, Option<[f64; 24]>) {
    let jobs = &trace.jobs;
    let n_frame = in_frame.len();
    let dated = frame.start.is_some();
    let weekly = (dated && frame.whole_days && frame.days >= 14.0 && n_frame >= 70).then(|| {
        let mut days = [0usize; 7];
        for d in 0..frame.day_count {
            days[frame.weekday_of(d)] += 1;
        }
        let mut counts = [0usize; 7];
        for j in in_frame {
            counts[frame.weekday_of(frame.day_of(jobs[*j].submit_h))] += 1;
        }
        let rates: Vec<Option<f64>> = (0..7)
            .map(|w| (days[w] > 0).then(|| counts[w] as f64 / days[w] as f64))
            .collect();
        let present: Vec<f64> = rates.iter().flatten().copied().collect();
        let mean = present.iter().sum::<f64>() / present.len() as f64;
        let mut weekly = [1.0; 7];
        for w in 0..7 {
            if let Some(rate) = rates[w] {
                weekly[w] = if mean > 0.0 { rate / mean } else { 1.0 };
            }
        }
        weekly
    });
    let daily = (frame.whole_days && n_frame >= 240).then(|| {
        let mut counts = [0usize; 24];
        for j in in_frame {
            let hour = (jobs[*j].submit_h - frame.start_h).rem_euclid(24.0).floor() as usize;
            counts[hour.min(23)] += 1;
        }
        let mean = n_frame as f64 / 24.0;
        let mut daily = [0.0; 24];
        for h in 0..24 {
            daily[h] = counts[h] as f64 / mean;
        }
        daily
    });
    (weekly, daily)
}

/// Growth per month and its standard error, from a Poisson trend over the frame's whole
/// weeks (four at least).
fn growth(trace: &Trace, frame: &Frame, in_frame: &[usize]) -> Option<(f64, f64)> {
    let weeks = if frame.whole_days {
        frame.day_count / 7
    } else {
        0
    };
    if weeks < 4 || in_frame.is_empty() {
        return None;
    }
    let mut counts = vec![0.0; weeks as usize];
    for j in in_frame {
        let week = frame.day_of(trace.jobs[*j].submit_h) / 7;
        if week < weeks {
            counts[week as usize] += 1.0;
        }
    }
    poisson_trend(&counts).map(|(slope, se)| {
        let per_month = DAYS_PER_MONTH / 7.0;
        let growth = (slope * per_month).exp() - 1.0;
        (growth, (1.0 + growth) * per_month * se)
    })
}

/// The shape of a fitted arrival rate: profiles over the week and the day, growth.
struct Rate {
    weekly: [f64; 7],
    daily: [f64; 24],
    growth: f64,
}

impl Rate {
    /// Growth's factor on frame day `d`, by calendar month.
    fn month_factor(&self, frame: &Frame, d: i64) -> f64 {
        (1.0 + self.growth).powi(frame.calendar.month_of(d as f64 * 24.0) as i32)
    }
}

/// Arrivals per hour of the frame against the fitted rate: means and dispersions.
struct ArrivalsFit {
    per_hour: f64,
    per_hour_fit: f64,
    dispersion: f64,
    week_dispersion: f64,
}

fn arrivals_fit(
    trace: &Trace,
    frame: &Frame,
    in_frame: &[usize],
    rate: &Rate,
    arrivals_per_day: f64,
) -> ArrivalsFit {
    let jobs = &trace.jobs;
    let n_frame = in_frame.len();
    let hours = (frame.end_h - frame.start_h).ceil().max(1.0) as usize;
    let mut observed = vec![0.0; hours];
    for j in in_frame {
        let h = ((jobs[*j].submit_h - frame.start_h).floor() as usize).min(hours - 1);
        observed[h] += 1.0;
    }
    let expected: Vec<f64> = (0..hours)
        .map(|h| {
            if frame.whole_days {
                let d = (h / 24) as i64;
                arrivals_per_day / 24.0
                    * rate.daily[h % 24]
                    * rate.weekly[frame.weekday_of(d)]
                    * rate.month_factor(frame, d)
            } else {
                n_frame as f64 / hours as f64
            }
        })
        .collect();
    let per_hour = observed.iter().sum::<f64>() / hours as f64;
    let per_hour_fit = expected.iter().sum::<f64>() / hours as f64;
    let mut week_observed = [0.0; 168];
    let mut week_expected = [0.0; 168];
    for h in 0..hours {
        let how = if frame.whole_days {
            frame.weekday_of((h / 24) as i64) * 24 + h % 24
        } else {
            h % 168
        };
        week_observed[how] += observed[h];
        week_expected[how] += expected[h];
    }
    ArrivalsFit {
        per_hour,
        per_hour_fit,
        dispersion: dispersion(&observed, &expected),
        week_dispersion: dispersion(&week_observed, &week_expected),
    }
}

/// Mean of (observed - expected)² / expected over the cells expecting arrivals (1 for a
/// Poisson process of the fitted rate), NaN when none does.
fn dispersion(observed: &[f64], expected: &[f64]) -> f64 {
    let cells: Vec<(f64, f64)> = observed
        .iter()
        .zip(expected)
        .filter(|(_, e)| **e > 0.0)
        .map(|(o, e)| (*o, *e))
        .collect();
    if cells.is_empty() {
        f64::NAN
    } else {
        cells.iter().map(|(o, e)| (o - e).powi(2) / e).sum::<f64>() / cells.len() as f64
    }
}

/// Workload names: letters, digits, `-` and `_`.
fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "x".to_string()
    } else {
        cleaned
    }
}

/// The slope of `log E[count_k] = a + b k` by Poisson regression (Newton's method), with its
/// standard error; `None` when it does not converge.
fn poisson_trend(counts: &[f64]) -> Option<(f64, f64)> {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 || counts.len() < 2 {
        return None;
    }
    let (mut a, mut b) = ((total / counts.len() as f64).ln(), 0.0f64);
    for _ in 0..100 {
        let (mut s0, mut s1, mut s2, mut ga, mut gb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (k, c) in counts.iter().enumerate() {
            let k = k as f64;
            let mu = (a + b * k).exp();
            s0 += mu;
            s1 += k * mu;
            s2 += k * k * mu;
            ga += c - mu;
            gb += k * (c - mu);
        }
        let det = s0 * s2 - s1 * s1;
        if det.is_nan() || det <= 0.0 {
            return None;
        }
        let (da, db) = ((s2 * ga - s1 * gb) / det, (s0 * gb - s1 * ga) / det);
        a += da;
        b += db;
        if da.abs() < 1e-12 && db.abs() < 1e-12 {
            let se = (s0 / det).sqrt();
            return (b.is_finite() && se.is_finite()).then_some((b, se));
        }
    }
    None
}

/// Samples up to this size are written exactly (each duration with its share).
const EXACT_POINTS_MAX: usize = 200;

/// Points of an empirical distribution for `sorted` (ascending). Up to
/// [`EXACT_POINTS_MAX`] durations: the sample itself, as steps (`(x, (i-1)/n)`, `(x, i/n)`),
/// so draws are the trace's durations and the mean is the trace's. More: through the quantiles
/// at probabilities `1 - (1 - i/200)^3`, dense where the long jobs are. The first point has
/// probability 0, the last is the maximum with probability 1.
fn quantile_points(sorted: &[f64]) -> Vec<(f64, f64)> {
    if sorted.len() <= EXACT_POINTS_MAX {
        let n = sorted.len() as f64;
        let mut points: Vec<(f64, f64)> = Vec::new();
        let mut i = 0;
        while i < sorted.len() {
            let x = sorted[i];
            let mut j = i;
            while j + 1 < sorted.len() && sorted[j + 1] == x {
                j += 1;
            }
            points.push((x, i as f64 / n));
            points.push((x, (j + 1) as f64 / n));
            i = j + 1;
        }
        return points;
    }
    let n_points = 200;
    let last = sorted.len() - 1;
    let quantile = |p: f64| {
        let x = p * last as f64;
        let (i, frac) = (x.floor() as usize, x - x.floor());
        if i >= last {
            sorted[last]
        } else {
            sorted[i] + (sorted[i + 1] - sorted[i]) * frac
        }
    };
    let mut points: Vec<(f64, f64)> = Vec::new();
    for i in 0..=n_points {
        let p = if i == n_points {
            1.0
        } else {
            1.0 - (1.0 - i as f64 / n_points as f64).powi(3)
        };
        // Unrounded: the KS distance measures these, and a rounded atom (60 s as 0.016667 h)
        // would sit beside every duration it stands for. The TOML rounds when it is written.
        let hours = quantile(p);
        // A run of equal hours (an atom) needs only its first and last point.
        let n = points.len();
        if n >= 2 && points[n - 1].0 == hours && points[n - 2].0 == hours {
            points[n - 1].1 = p;
            continue;
        }
        points.push((hours, p));
    }
    points
}

/// The Kolmogorov-Smirnov distance between the sample `sorted` and the distribution through
/// `points` (linear between them).
fn ks_distance(sorted: &[f64], points: &[(f64, f64)]) -> f64 {
    let cdf = |x: f64| -> f64 {
        let after = points.partition_point(|(h, _)| *h <= x);
        if after == 0 {
            return 0.0;
        }
        if after >= points.len() {
            return 1.0;
        }
        let ((h0, p0), (h1, p1)) = (points[after - 1], points[after]);
        p0 + (p1 - p0) * (x - h0) / (h1 - h0)
    };
    // Just below x (the fitted distribution may jump at x too).
    let cdf_below = |x: f64| -> f64 {
        let after = points.partition_point(|(h, _)| *h < x);
        if after == 0 {
            return 0.0;
        }
        if after >= points.len() {
            return 1.0;
        }
        let ((h0, p0), (h1, p1)) = (points[after - 1], points[after]);
        p0 + (p1 - p0) * (x - h0) / (h1 - h0)
    };
    let n = sorted.len() as f64;
    let mut distance: f64 = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let x = sorted[i];
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == x {
            j += 1;
        }
        distance = distance
            .max((cdf_below(x) - i as f64 / n).abs())
            .max(((j + 1) as f64 / n - cdf(x)).abs());
        i = j + 1;
    }
    distance
}

/// `x` to `digits` significant digits.
/// "2.5 days", or "3.2 hours" under a day, or "40 seconds" under a minute... of hours.
fn span_words(days: f64) -> String {
    match days * 24.0 {
        h if h >= 24.0 => format!("{days:.1} days"),
        h if h >= 1.0 / 60.0 => format!("{h:.2} hours"),
        h => format!("{:.0} seconds", h * 3600.0),
    }
}

fn round_to(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - magnitude);
    (x * scale).round() / scale
}

/// A TOML float of `x` to `digits` significant digits.
fn toml_float(x: f64, digits: i32) -> String {
    let x = round_to(x, digits);
    if x == 0.0 {
        return "0.0".to_string();
    }
    let text = if (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    };
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list(values: &[f64], digits: i32) -> String {
    let items: Vec<String> = values.iter().map(|v| toml_float(*v, digits)).collect();
    format!("[{}]", items.join(", "))
}

impl Fit {
    /// The `[[workload]]` tables, with comments saying where each figure comes from.
    pub fn to_toml(&self, trace: &Trace) -> String {
        let mut out = String::new();
        let frame = match (self.frame_start, self.whole_days) {
            (Some(start), true) => {
                format!("{:.0} whole day(s) from {start} (UTC)", self.frame_days)
            }
            (None, true) => format!(
                "{:.0} whole day(s) (times are seconds from the trace's start: weekdays unknown)",
                self.frame_days
            ),
            _ => format!(
                "{} (under 3 calendar days: no profiles, no growth)",
                span_words(self.frame_days)
            ),
        };
        let _ = writeln!(
            out,
            "# Fitted by `fleetsim fit` from {} ({}): {} jobs, {} GPU-hours; rates from {frame}.",
            without_controls(&trace.path.display().to_string()), // No control chars in TOML.
            trace.format,
            thousands(self.jobs as u64),
            thousands(trace.gpu_hours().round() as u64),
        );
        let _ = writeln!(
            out,
            "# arrivals_per_day is the rate on the first of those days (a run starting then expects the\n\
             # trace's jobs); durations are hours on the trace's GPUs{}. Add these tables to a scenario\n\
             # with pools and strategies.",
            match &self.gpu {
                Some(gpu) => format!(" ({gpu})"),
                None => String::new(),
            }
        );
        for (name, jobs) in &self.skipped {
            let _ = writeln!(
                out,
                "# Not fitted: {name} ({} job(s), all on the trace's partial first or last day).",
                thousands(*jobs as u64)
            );
        }
        let total_gpu_hours = trace.gpu_hours().max(f64::MIN_POSITIVE);
        for w in &self.workloads {
            out.push('\n');
            out.push_str("[[workload]]\n");
            let _ = writeln!(out, "name = {}", toml_string(&w.name));
            let _ = writeln!(
                out,
                "# {} jobs ({:.1} % of the trace), {} GPU-hours ({:.1} %); KS distance of durations {:.4}",
                thousands(w.jobs as u64),
                100.0 * w.jobs as f64 / self.jobs as f64,
                thousands(w.gpu_hours.round() as u64),
                100.0 * w.gpu_hours / total_gpu_hours,
                w.ks,
            );
            let _ = writeln!(
                out,
                "arrivals_per_day = {}",
                toml_float(w.arrivals_per_day.max(1e-9), 6)
            );
            if w.growth_per_month != 0.0 {
                let _ = writeln!(
                    out,
                    "# at the trace's end: {} a day",
                    toml_float(w.arrivals_per_day_at_end, 4)
                );
            }
            if let Some(daily) = &w.daily {
                let _ = writeln!(out, "daily_profile = {}", list(daily, 4));
            }
            if let Some(weekly) = &w.weekly {
                let _ = writeln!(out, "weekly_profile = {}", list(weekly, 4));
            }
            match w.growth_fitted {
                Some((g, se)) if w.growth_per_month != 0.0 => {
                    let _ = writeln!(
                        out,
                        "growth_per_month = {}   # +- {} (one standard error)",
                        toml_float(w.growth_per_month, 4),
                        toml_float(se, 2)
                    );
                    let _ = g;
                }
                Some((g, se)) => {
                    let _ = writeln!(
                        out,
                        "# growth_per_month: {} +- {} fitted, under two standard errors: left at 0",
                        toml_float(g, 3),
                        toml_float(se, 2)
                    );
                }
                None => {}
            }
            match w.gpus.as_slice() {
                [(g, _)] => {
                    let _ = writeln!(out, "gpus = {g}");
                }
                mix => {
                    let entries: Vec<String> = mix
                        .iter()
                        .map(|(g, p)| format!("{g} = {}", toml_float(*p, 9)))
                        .collect();
                    let _ = writeln!(out, "gpus = {{ {} }}", entries.join(", "));
                }
            }
            match (&self.gpu, self.gpu_given) {
                _ if w.gpu.is_some() => {
                    let _ = writeln!(
                        out,
                        "gpu = {}   # its durations were measured on this type (the trace mixes types); name it as your pools do",
                        toml_string(w.gpu.as_deref().unwrap_or_default())
                    );
                }
                (Some(gpu), true) => {
                    let _ = writeln!(out, "gpu = {}", toml_string(gpu));
                }
                (Some(gpu), false) => {
                    let _ = writeln!(
                        out,
                        "# gpu = {}   # the trace's GPU type: name it as your pools do (or fit with --gpu)",
                        toml_string(gpu)
                    );
                }
                (None, _) => {}
            }
            if let Some(team) = &w.team {
                let _ = writeln!(out, "team = {}", toml_string(team));
            }
            if w.points.last().is_none_or(|p| p.0 <= 0.0) {
                // Every job ran 0 s: the smallest duration fleetsim takes.
                let _ = writeln!(
                    out,
                    "duration_h = {}   # every job took 0 s",
                    toml_float(1.0 / 3600.0, 6)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "# durations: mean {} h in the trace, {} h fitted",
                toml_float(w.duration_mean_h, 4),
                toml_float(w.duration_mean_fit_h, 4)
            );
            out.push_str("[workload.duration_h]\ndist = \"empirical\"\npoints = [\n");
            for (hours, p) in &w.points {
                let _ = writeln!(out, "  [{}, {}],", toml_float(*hours, 6), toml_float(*p, 9));
            }
            out.push_str("]\n");
        }
        out
    }

    /// The goodness of fit, a table for the terminal.
    pub fn report(&self, trace: &Trace) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "fitted {} ({}): {} jobs into {} workload(s), rates over {:.1} days{}",
            without_controls(&trace.path.display().to_string()),
            trace.format,
            thousands(self.jobs as u64),
            self.workloads.len(),
            self.frame_days,
            match (self.frame_start, self.whole_days) {
                (Some(start), true) => format!(" from {start}"),
                (None, true) => " (seconds from the trace's start)".to_string(),
                _ => " (under 3 calendar days: no profiles, no growth)".to_string(),
            }
        );
        let _ = writeln!(
            out,
            "{:<28} {:>7} {:>8} {:>14} {:>9} {:>17} {:>15} {:>7} {:>15} {:>10} {:>9}",
            "workload",
            "jobs",
            "per day",
            "growth/month",
            "GPU-h",
            "GPU-h/job (fit)",
            "mean h (fit)",
            "KS",
            "per hour (fit)",
            "dispersion",
            "hour/week"
        );
        for w in &self.workloads {
            let growth = match w.growth_fitted {
                Some((g, se)) => format!(
                    "{:+.1}%{}±{:.1}",
                    100.0 * g,
                    if w.growth_per_month == 0.0 {
                        "(0) "
                    } else {
                        " "
                    },
                    100.0 * se
                ),
                None => "-".to_string(),
            };
            let _ = writeln!(
                out,
                "{:<28} {:>7} {:>8.2} {:>14} {:>9} {:>17} {:>15} {:>7.4} {:>15} {:>10.2} {:>9.2}",
                w.name,
                thousands(w.jobs as u64),
                w.arrivals_per_day,
                growth,
                thousands(w.gpu_hours.round() as u64),
                format!(
                    "{:.2} ({:.2})",
                    w.gpu_hours_per_job, w.gpu_hours_per_job_fit
                ),
                format!("{:.3} ({:.3})", w.duration_mean_h, w.duration_mean_fit_h),
                w.ks,
                format!("{:.3} ({:.3})", w.per_hour, w.per_hour_fit),
                w.dispersion,
                w.week_dispersion,
            );
        }
        for (name, jobs) in &self.skipped {
            let _ = writeln!(
                out,
                "{name}: not fitted: its {} job(s) all fall on the trace's partial first or last day",
                thousands(*jobs as u64)
            );
        }
        out.push_str(
            "GPU-h/job: mean of GPUs x hours in the trace (the fit's mean GPUs x mean hours; GPUs and\n\
             durations are independent within a workload, so a gap means larger gangs run longer\n\
             or shorter within it: split finer, e.g. --by team).\n\
             KS: largest gap between the fitted and the trace's duration distributions (0 to 1).\n\
             per hour: mean jobs per hour of the frame, trace (fit). dispersion: mean of\n\
             (observed - expected)^2 / expected over the hours; 1 for a Poisson process with the fitted\n\
             rate, above 1: the trace arrives in bursts the fit smooths out (waits in a run are then\n\
             optimistic). hour/week: the same for the jobs of each of the 168 hours of the week over\n\
             the frame; above 1: daily x weekly profiles miss part of the week's pattern.\n",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisson_trend_finds_the_slope() {
        // Counts exactly exp(3 + 0.1 k): the slope is 0.1.
        let counts: Vec<f64> = (0..10).map(|k| (3.0 + 0.1 * k as f64).exp()).collect();
        let (slope, se) = poisson_trend(&counts).unwrap();
        assert!((slope - 0.1).abs() < 1e-9, "{slope}");
        assert!(se > 0.0 && se < 0.05, "{se}");
        assert!(poisson_trend(&[0.0, 0.0]).is_none());
    }

    #[test]
    fn small_samples_are_written_exactly() {
        let sorted = [0.5, 1.0, 1.0, 4.0];
        let points = quantile_points(&sorted);
        assert_eq!(
            points,
            [
                (0.5, 0.0),
                (0.5, 0.25),
                (1.0, 0.25),
                (1.0, 0.75),
                (4.0, 0.75),
                (4.0, 1.0)
            ]
        );
        let mean = DurationDist::Empirical {
            points: points.clone(),
        }
        .mean_h();
        assert!((mean - 6.5 / 4.0).abs() < 1e-12, "{mean}");
        assert!(ks_distance(&sorted, &points) < 1e-12);
    }

    #[test]
    fn quantile_points_end_at_the_extremes_and_ks_is_small() {
        let sorted: Vec<f64> = (1..=1000).map(|i| f64::from(i) / 100.0).collect();
        let points = quantile_points(&sorted);
        assert_eq!(points[0], (0.01, 0.0));
        assert_eq!(*points.last().unwrap(), (10.0, 1.0));
        assert!(
            points
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1)
        );
        let ks = ks_distance(&sorted, &points);
        assert!(ks < 0.01, "{ks}");
        // Far from a point mass at 20 h.
        assert!(ks_distance(&sorted, &[(20.0, 0.0), (20.0, 1.0)]) > 0.99);
    }

    #[test]
    fn a_point_mass_that_is_no_round_number_fits_exactly() {
        // 1,000 jobs of 60 s: 0.01666... h, which six decimals would move off every job (a KS
        // distance of 1 before).
        let sorted = vec![1.0 / 60.0; 1000];
        let points = quantile_points(&sorted);
        assert_eq!(ks_distance(&sorted, &points), 0.0, "{points:?}");
    }

    #[test]
    fn floats_are_valid_toml() {
        assert_eq!(toml_float(0.0, 6), "0.0");
        assert_eq!(toml_float(2.0, 6), "2.0");
        assert_eq!(toml_float(0.123456789, 6), "0.123457");
        assert_eq!(toml_float(1234567.0, 3), "1230000.0");
        assert_eq!(toml_float(1.5e-7, 6), "1.5e-7");
        for text in ["0.0", "2.0", "0.123457", "1230000.0", "1.5e-7"] {
            let value: toml::Value = toml::from_str(&format!("x = {text}")).unwrap();
            assert!(value["x"].as_float().is_some(), "{text}");
        }
        assert_eq!(toml_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
