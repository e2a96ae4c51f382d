//! Warnings about legal but suspicious fleets: pools no strategy uses, owned capacity below
//! the load with nothing to burst to, and spot pools that would restart jobs without
//! checkpoints from zero again and again. They are printed before a run and kept in
//! `run.json`; they never stop a run.

use std::collections::BTreeSet;

use super::Checker;
use super::estimates::{busy_gpus, jobs_per_unit};
use crate::calendar::Calendar;
use crate::scenario::config::{Pool, PoolKind, Strategy, Workload};

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
        let bursts = strategy.burst_after_wait_h.is_some()
            || workloads
                .iter()
                .any(|w| w.burst_after_wait_h.flatten().is_some());
        if bursts && strategy.pools.iter().any(|p| pools[*p].is_elastic()) {
            continue;
        }
        // Offered load in reference-GPU terms at the end of the horizon (growth included).
        let load: f64 = workloads
            .iter()
            .map(|w| busy_gpus(w, months as u32) * gpu_speed[w.gpu])
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

/// The share of a workload's jobs that cannot meet their deadline from which validate warns.
const INFEASIBLE_WARNED: f64 = 0.01;

/// Warns of a workload some of whose jobs cannot meet its deadline on any pool: their work
/// alone, on the fastest GPU type a strategy gives them, outlasts `deadline_h`. Runs count them
/// as `deadline_infeasible`, apart from the late jobs a strategy could have avoided.
pub(super) fn warn_deadline_infeasible(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    speed: &[f64],
    horizon: (u32, f64),
) {
    for workload in workloads {
        let Some(deadline_h) = workload.deadline_h else {
            continue;
        };
        // The most work (hours on the workload's reference type) any strategy fits in it.
        let fastest = strategies
            .iter()
            .flat_map(|s| s.pools.iter().map(move |&p| (s, p, &pools[p])))
            .filter(|&(_, p, pool)| workload.may_use(p, pool.gpu))
            .map(|(s, _, pool)| (s, pool))
            .map(|(strategy, pool)| {
                let precision = if strategy.mixed_precision {
                    workload.mixed_precision_speedup
                } else {
                    1.0
                };
                (speed[pool.gpu] / speed[workload.gpu] * precision, pool)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let Some((speedup, pool)) = fastest else {
            continue;
        };
        let limit_ref_h = deadline_h * speedup;
        let share = match &workload.trace {
            Some(replay) => {
                let jobs = replay.trace.jobs.len();
                let above = (0..jobs as u32)
                    .filter(|&spec| replay.job(spec).1 > limit_ref_h)
                    .count();
                above as f64 / jobs.max(1) as f64
            }
            None => workload.duration_h.share_above_h(limit_ref_h),
        };
        let per_replication = share * jobs_per_unit(workload, horizon.0, horizon.1);
        // A long-tailed duration always has some jobs past any deadline: a share below
        // INFEASIBLE_WARNED is left to the run's table and notes, which count them.
        if share >= INFEASIBLE_WARNED && per_replication >= 1.0 {
            c.warnings.push(format!(
                "workload `{}`: about {} of its jobs ({} per replication) take longer than its \
                 deadline_h = {deadline_h} h even on pool `{}`, the fastest it may use; they cannot \
                 be on time and are counted as infeasible (deadline_infeasible), not late; raise \
                 deadline_h, or give such jobs a faster GPU type",
                workload.name,
                share_text(share),
                crate::format::thousands(per_replication.round(), 0),
                pool.name,
            ));
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
