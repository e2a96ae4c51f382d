//! How large a run is: expected jobs and busy GPUs from the workloads, the bounds that refuse
//! runs which could not end or would exhaust memory, and the limits they set (`max_events`,
//! `max_queued_jobs`).

use super::{BUSY_GPUS_MAX, Checker, DEFAULT_QUEUED_JOBS_MAX, JOBS_PER_UNIT_MAX, LARGE_RUN_EVENTS};
use crate::format::thousands;
use crate::scenario::config::Workload;
use crate::scenario::file::ScenarioFile;

/// Expected jobs of a workload in one replication (Poisson mean, growth included).
pub(super) fn jobs_per_unit(w: &Workload, horizon_months: u32, horizon_h: f64) -> f64 {
    let growth = w.arrivals.growth_per_month;
    let months_factor: f64 = (0..horizon_months)
        .map(|m| (1.0 + growth).powi(m as i32))
        .sum::<f64>()
        / f64::from(horizon_months);
    let weekly: f64 = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
    w.arrivals.arrivals_per_day * weekly * months_factor * horizon_h / 24.0
}

/// GPUs of the workload's reference type it keeps busy at once in the last month (Little's
/// law: arrival rate x mean GPUs x mean duration).
pub(super) fn busy_gpus(w: &Workload, horizon_months: u32) -> f64 {
    let growth = (1.0 + w.arrivals.growth_per_month).powi(horizon_months as i32 - 1);
    let weekly = w.arrivals.weekly.iter().sum::<f64>() / 7.0;
    w.arrivals.arrivals_per_day * weekly * growth / 24.0
        * w.gpus.mean_gpus()
        * w.duration_h.mean_h()
}

/// Refuses workloads that give more jobs per replication, or keep more GPUs busy, than a run
/// can hold; returns the expected jobs of one replication of one strategy.
pub(super) fn check_size(
    c: &mut Checker<'_>,
    workloads: &[Workload],
    horizon_months: u32,
    horizon_h: f64,
) -> f64 {
    let jobs_by_workload: Vec<f64> = workloads
        .iter()
        .map(|w| jobs_per_unit(w, horizon_months, horizon_h))
        .collect();
    let jobs_per_replication: f64 = jobs_by_workload.iter().sum();
    if jobs_per_replication.is_nan() || jobs_per_replication > JOBS_PER_UNIT_MAX {
        let (w, jobs) = jobs_by_workload
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("at least one workload");
        c.push(
            &format!("workload.{}.arrivals_per_day", workloads[w].name),
            format!(
                "gives about {jobs:.1e} jobs per replication over {horizon_months} months (with growth_per_month = {}), more than the {JOBS_PER_UNIT_MAX:.0e} fleetsim simulates in one replication; lower arrivals_per_day or growth_per_month, or shorten horizon_months",
                workloads[w].arrivals.growth_per_month
            ),
        );
    }
    for workload in workloads {
        let busy = busy_gpus(workload, horizon_months);
        if busy.is_nan() || busy > BUSY_GPUS_MAX {
            c.push(
                &format!("workload.{}", workload.name),
                format!(
                    "keeps about {busy:.1e} GPUs busy at once by the end of the horizon (arrivals_per_day x mean gpus x mean duration_h), more than the {BUSY_GPUS_MAX:.0e} fleetsim simulates; check arrivals_per_day, gpus and duration_h"
                ),
            );
        }
    }
    jobs_per_replication
}

/// Announces a run that will take hours, with a smaller one to try first.
pub(super) fn warn_large_run(
    c: &mut Checker<'_>,
    jobs_per_replication: f64,
    replications: u32,
    strategies: usize,
) {
    let units = f64::from(replications) * strategies as f64;
    let jobs_total = jobs_per_replication * units;
    // About 4 events per job (arrival, start, end, idle timeout), more with interruptions.
    let events_estimate = jobs_total * 4.0;
    if events_estimate > LARGE_RUN_EVENTS {
        c.warnings.push(format!(
            "this run is large: about {jobs_total:.1e} jobs ({} per replication and strategy, {} replications x {} strategies), roughly {events_estimate:.0e} events, which takes hours; try --replications 3 or a shorter horizon_months first",
            thousands(jobs_per_replication, 0),
            replications,
            strategies
        ));
    }
}

/// The bounds of one unit's run.
pub(super) struct Limits {
    pub(super) events_max: u64,
    pub(super) queued_jobs_max: u64,
}

/// `max_events` (by default room for 200 events per expected job) and `max_queued_jobs`.
pub(super) fn limits(
    c: &mut Checker<'_>,
    file: &ScenarioFile,
    jobs_per_replication: f64,
) -> Limits {
    let events_max = match file.max_events {
        Some(events_max) => {
            if events_max == 0 {
                c.push("max_events", "must be at least 1, got 0");
            }
            events_max
        }
        None => (1e7 + 200.0 * jobs_per_replication).min(1e15) as u64,
    };
    let queued_jobs_max = match file.max_queued_jobs {
        Some(queued) => {
            if queued == 0 {
                c.push("max_queued_jobs", "must be at least 1, got 0");
            }
            queued
        }
        None => DEFAULT_QUEUED_JOBS_MAX,
    };
    Limits {
        events_max,
        queued_jobs_max,
    }
}
