//! Warnings about legal but suspicious fleets: pools no strategy uses, owned capacity below
//! the load with nothing to burst to, and spot pools that would restart jobs without
//! checkpoints from zero again and again. They are printed before a run and kept in
//! `run.json`; they never stop a run.

use std::collections::BTreeSet;

use super::Checker;
use super::estimates::{busy_gpus, jobs_per_unit};
use crate::calendar::Calendar;
use crate::scenario::config::{Config, Pool, PoolKind, Strategy, Workload, beyond_deadline};

/// Warns about each pool that no strategy lists.
pub(super) fn unused_pools(c: &mut Checker<'_>, pools: &[Pool], strategies: &[Strategy]) {
    for (p, pool) in pools.iter().enumerate() {
        if !strategies.iter().any(|s| s.pools.contains(&p)) {
            c.warnings.push(format!(
                "pool `{}` is used by no strategy; add it to a strategy's pools or remove it",
                pool.name
            ));
        }
    }
}

/// Warns when jobs without checkpoints may run on spot nodes that are reclaimed much sooner
/// than the jobs take: each attempt starts over, so they may never finish.
pub(super) fn warn_spot_without_checkpoints(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    calendar: &Calendar,
) {
    let mut warned = BTreeSet::new();
    for strategy in strategies {
        for &p in &strategy.pools {
            let pool = &pools[p];
            if !pool.is_spot() {
                continue;
            }
            let mtbf_h = pool.node_mtbf_h(calendar.month_mean_h());
            for workload in workloads {
                if workload.checkpoint.is_some()
                    || workload.burst_after_wait_h_under(strategy).is_none()
                    || !workload.may_use(p, pool.gpu)
                    || strategy.deadline_jobs_off_spot && workload.deadline_h.is_some()
                {
                    continue;
                }
                let nodes = f64::from(workload.gpus.max_gpus())
                    .div_euclid(f64::from(pool.gpus_per_node))
                    .max(1.0);
                let mean_h = workload.duration_h.mean_h();
                // Chance that a gang of `nodes` nodes runs a mean-length job without a loss.
                let survive = (-mean_h * nodes / mtbf_h).exp();
                if survive < 0.01 && warned.insert((workload.name.clone(), pool.name.clone())) {
                    let fallback = match strategy.spot_fallback_after {
                        Some(n) => format!(" (they leave spot after {n} preemptions)"),
                        None => String::new(),
                    };
                    c.warnings.push(format!(
                        "workload `{}` has no checkpoint and its jobs take about {mean_h:.3} h, but spot pool `{}` loses a node every {mtbf_h:.3} h on average: only {:.1e} of its jobs would finish on spot without a preemption, and each preemption restarts a job from zero{fallback}; add `checkpoint` to the workload, raise preemption.mean_h, or set spot_fallback_after so jobs leave spot",
                        workload.name, pool.name, survive
                    ));
                }
            }
        }
    }
}

/// Warns of a strategy that never bursts (`burst_after_wait_h = "never"`) but lists elastic
/// pools that no workload's jobs can reach either: a workload's own burst threshold counts
/// only for the pools it may use ([`Workload::may_reach`]).
pub(super) fn warn_elastic_never_used(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
) {
    for strategy in strategies {
        if strategy.burst_after_wait_h.is_some() {
            continue;
        }
        let elastic: Vec<usize> = (strategy.pools.iter().copied())
            .filter(|p| pools[*p].is_elastic())
            .collect();
        let reached = elastic
            .iter()
            .any(|&p| (workloads.iter()).any(|w| w.may_reach(strategy, p, &pools[p])));
        if !elastic.is_empty() && !reached {
            c.warnings.push(format!(
                "strategy `{}` has burst_after_wait_h = \"never\": its elastic pools are never used; remove them from its pools, or give burst_after_wait_h in hours",
                strategy.name
            ));
        }
    }
}

/// Warns when owned capacity is below the offered load and nothing elastic can absorb it.
pub(super) fn warn_overload(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    gpu_speed: &[f64],
    calendar: &Calendar,
) {
    let months = calendar.months() as i32;
    for strategy in strategies {
        // Some workload's jobs reach the elastic pools (its own threshold, else the strategy's).
        let bursts = (workloads.iter()).any(|w| w.burst_after_wait_h_under(strategy).is_some());
        if bursts && strategy.pools.iter().any(|p| pools[*p].is_elastic()) {
            continue;
        }
        // Offered load in reference-GPU terms at the end of the horizon (growth included).
        let load: f64 = workloads
            .iter()
            .map(|w| busy_gpus(w, months as u32) * load_speed(w, strategy, pools, gpu_speed))
            .sum();
        let capacity: f64 = strategy
            .pools
            .iter()
            .map(|p| {
                let pool = &pools[*p];
                let nodes = match &pool.kind {
                    PoolKind::OnPrem(o) => o.nodes,
                    PoolKind::Reserved(r) => r.nodes,
                    _ => 0,
                };
                f64::from(nodes) * f64::from(pool.gpus_per_node) * gpu_speed[pool.gpu]
            })
            .sum();
        if load > capacity {
            c.warnings.push(format!(
                "strategy `{}` has owned capacity of about {capacity:.0} GPUs but the workloads offer about {load:.0} GPUs of load{} and does not burst to an elastic pool: the queue grows without bound, and jobs still waiting at the end are reported as jobs_unfinished; add nodes, or an elastic pool to its pools",
                strategy.name,
                if months > 1 { " by the end of the horizon" } else { "" }
            ));
        }
    }
}

/// What one reference GPU of `workload`'s load weighs in the scenario's `[gpu_speed]` units:
/// its reference type's speed; for a workload with its own `gpu_speed` (a scale of its own),
/// the least it weighs on an owned pool of `strategy` it may use (its GPUs there times that
/// type's scenario speed), so that the warning errs towards silence.
fn load_speed(workload: &Workload, strategy: &Strategy, pools: &[Pool], gpu_speed: &[f64]) -> f64 {
    if !workload.own_gpu_speed {
        return gpu_speed[workload.gpu];
    }
    (strategy.pools.iter())
        .filter(|&&p| !pools[p].is_elastic() && workload.may_use(p, pools[p].gpu))
        .map(|&p| gpu_speed[pools[p].gpu] / workload.speedup_on(pools[p].gpu))
        .min_by(f64::total_cmp)
        .unwrap_or(gpu_speed[workload.gpu])
}

/// The share of a workload's jobs that cannot meet their deadline from which validate warns.
const INFEASIBLE_WARNED: f64 = 0.01;

/// Warns of a workload some of whose jobs cannot meet its deadline under any strategy: their
/// work alone outlasts `deadline_h` on the fastest pool that can hold them. Runs count them as
/// `deadline_infeasible`, apart from the late jobs a strategy could have avoided. Run on the
/// config with its traces attached, so a trace's own jobs are counted.
pub(crate) fn warn_deadline_infeasible(config: &Config, warnings: &mut Vec<String>) {
    for workload in &config.workloads {
        let Some(deadline_h) = workload.deadline_h else {
            continue;
        };
        // The share under the strategy that lets the most jobs be on time.
        let best = (config.strategies.iter())
            .map(|strategy| (infeasible_share(config, workload, strategy), strategy))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((share, strategy)) = best else {
            continue;
        };
        let per_replication =
            share * jobs_per_unit(workload, config.horizon_months, config.horizon_h);
        // A long-tailed duration always has some jobs past any deadline: a share below
        // INFEASIBLE_WARNED is left to the run's table and notes, which count them.
        if share >= INFEASIBLE_WARNED && per_replication >= 1.0 {
            warnings.push(format!(
                "workload `{}`: about {} of its jobs ({} per replication) take longer than its \
                 deadline_h = {deadline_h} h on every pool that can hold them, even under strategy \
                 `{}`; they cannot be on time and are counted as infeasible (deadline_infeasible), \
                 not late; raise deadline_h, or give such jobs a faster GPU type",
                workload.name,
                share_text(share),
                crate::format::thousands(per_replication.round(), 0),
                strategy.name,
            ));
        }
    }
}

/// The share of a workload's jobs that cannot meet its deadline under `strategy`.
fn infeasible_share(config: &Config, workload: &Workload, strategy: &Strategy) -> f64 {
    let reach = workload.reachable_speedups(strategy, &config.pools);
    let deadline_h = workload.deadline_h.unwrap_or(f64::INFINITY);
    match &workload.trace {
        Some(replay) => {
            let jobs = replay.trace.jobs.len();
            let above = (0..jobs as u32)
                .filter(|&spec| {
                    let (gpus, work_ref_h) = replay.job(spec);
                    beyond_deadline(&reach, gpus, work_ref_h, deadline_h)
                })
                .count();
            above as f64 / jobs.max(1) as f64
        }
        None => {
            let mut below = 0.0;
            let mut share = 0.0;
            for &(gpus, cumulative) in &workload.gpus.cumulative {
                let probability = cumulative - below;
                below = cumulative;
                // The fastest pool that holds the gang (reach is fastest first).
                if let Some(&(_, speedup)) = reach.iter().find(|(cap, _)| *cap >= u64::from(gpus)) {
                    share += probability * workload.duration_h.share_above_h(deadline_h * speedup);
                }
            }
            share
        }
    }
}

/// "4.2 %", or "0.03 %" for a small share.
fn share_text(share: f64) -> String {
    let percent = 100.0 * share;
    if percent >= 1.0 {
        format!("{percent:.1} %")
    } else {
        format!("{percent:.2} %")
    }
}
