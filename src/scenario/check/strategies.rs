//! Checks of `[[strategy]]` tables (names, pools, burst threshold, queue, options), then the
//! cross check that every gang of every workload fits a pool each strategy lets it use.

use std::collections::{BTreeMap, BTreeSet};

use toml::Value;

use super::{Checker, STRATEGY_POOLS_MAX, describe, number_of};
use crate::scenario::config::*;
use crate::scenario::file::*;
use crate::scenario::overrides::did_you_mean;

/// Checks every strategy (names unique) against the pools by name.
pub(super) fn check_strategies(
    c: &mut Checker<'_>,
    files: &[StrategyFile],
    resolved: &mut [StrategyFile],
    pool_names: &BTreeMap<String, usize>,
    pool_files: &[PoolFile],
) -> Vec<Strategy> {
    let mut strategies = Vec::new();
    let mut strategy_names = BTreeSet::new();
    for (i, (strategy, resolved_strategy)) in files.iter().zip(resolved.iter_mut()).enumerate() {
        let at = format!("strategy.{}", strategy.name);
        let is_new = strategy_names.insert(strategy.name.clone());
        c.table_name("strategy", i, &strategy.name, is_new);
        if let Some(s) = check_strategy(
            c,
            strategy,
            resolved_strategy,
            &at,
            (pool_names, pool_files),
        ) {
            strategies.push(s);
        }
    }
    strategies
}

fn check_strategy(
    c: &mut Checker<'_>,
    s: &StrategyFile,
    resolved: &mut StrategyFile,
    at: &str,
    (pool_names, pool_files): (&BTreeMap<String, usize>, &[PoolFile]),
) -> Option<Strategy> {
    let f = |name: &str| format!("{at}.{name}");
    if s.pools.is_empty() {
        c.push(
            &f("pools"),
            "is empty: list the pools this strategy uses, in the order they are tried",
        );
    }
    let mut pools = Vec::new();
    for name in &s.pools {
        match pool_names.get(name) {
            Some(&p) if pools.contains(&p) => {
                c.push(&f("pools"), format!("names pool `{name}` twice"))
            }
            Some(&p) => pools.push(p),
            None => c.push(
                &f("pools"),
                format!(
                    "names an unknown pool `{name}`{}; pools are: {}",
                    did_you_mean(name, pool_names.keys().map(String::as_str)),
                    pool_names.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ),
        }
    }
    let burst = match &s.burst_after_wait_h {
        None => Some(0.0),
        Some(value) => super::burst_threshold(c, value, &f("burst_after_wait_h")),
    };
    let priority_aging_h = hours_or_never(
        c,
        &s.priority_aging_h,
        PRIORITY_AGING_H,
        &f("priority_aging_h"),
    );
    if s.priority_aging_h.is_some() && s.queue != Some(QueueFile::Priority) {
        c.warnings.push(format!(
            "strategy `{}` sets priority_aging_h, which applies to queue = \"priority\" only; remove it or set queue = \"priority\"",
            s.name
        ));
    }
    let spot_fallback_after = s
        .spot_fallback_after
        .map(|n| c.count(n, &f("spot_fallback_after"), 1, u32::MAX));
    let (spot_policy, deadline_safety_h) = super::spot::policy(c, s, at, spot_fallback_after);
    let queue = match s.queue.unwrap_or(QueueFile::Fifo) {
        QueueFile::Fifo => Queue::Fifo,
        QueueFile::Backfill => Queue::Backfill,
        QueueFile::Priority => Queue::Priority,
        QueueFile::FirstFit => Queue::FirstFit,
    };
    let services =
        super::services::check_placement(c, s, resolved, at, &pools, pool_names, pool_files);
    resolved.burst_after_wait_h = Some(burst.map_or(Value::String("never".into()), Value::Float));
    resolved.queue = Some(s.queue.unwrap_or(QueueFile::Fifo));
    if queue == Queue::Priority {
        resolved.priority_aging_h =
            Some(priority_aging_h.map_or(Value::String("never".into()), Value::Float));
    }
    resolved.mixed_precision = Some(s.mixed_precision.unwrap_or(false));
    resolved.elastic = Some(s.elastic.unwrap_or(false));
    resolved.deadline_jobs_off_spot = Some(s.deadline_jobs_off_spot.unwrap_or(false));
    resolved.checkpointing = Some(s.checkpointing.unwrap_or(true));
    Some(Strategy {
        name: s.name.clone(),
        pools,
        burst_after_wait_h: burst,
        queue,
        priority_aging_h,
        spot_fallback_after,
        spot_policy,
        deadline_safety_h,
        mixed_precision: s.mixed_precision.unwrap_or(false),
        elastic: s.elastic.unwrap_or(false),
        deadline_jobs_off_spot: s.deadline_jobs_off_spot.unwrap_or(false),
        checkpointing: s.checkpointing.unwrap_or(true),
        placement: s.placement.map(|p| super::pools::placement(Some(p))),
        service_pools: services.pools,
        service_preempts: services.preempts,
        reserve_gpus: services.reserve_gpus,
    })
}

/// Hours of waiting worth one priority level unless the file says otherwise: a day, so a
/// job is passed by work one level higher only while that work arrived within a day of it.
const PRIORITY_AGING_H: f64 = 24.0;

/// A positive number of hours, or "never" (`None`); `default` when absent.
fn hours_or_never(
    c: &mut Checker<'_>,
    value: &Option<Value>,
    default: f64,
    field: &str,
) -> Option<f64> {
    match value {
        None => Some(default),
        Some(Value::String(word)) if word == "never" => None,
        Some(value) => match number_of(value) {
            Some(hours) if hours > 0.0 && hours.is_finite() => Some(hours),
            _ => {
                c.push(
                    field,
                    format!(
                        "must be hours (more than 0) or \"never\", got {}",
                        describe(value)
                    ),
                );
                None
            }
        },
    }
}

/// No strategy tries more than [`STRATEGY_POOLS_MAX`] pools, each instance size counted.
pub(super) fn check_pool_counts(c: &mut Checker<'_>, strategies: &[Strategy]) {
    for strategy in strategies {
        if strategy.pools.len() > STRATEGY_POOLS_MAX {
            c.push(
                &format!("strategy.{}.pools", strategy.name),
                format!(
                    "tries {} pools (each instance size of a pool counts as one); at most {STRATEGY_POOLS_MAX}",
                    strategy.pools.len()
                ),
            );
        }
    }
}

/// Every gang of every workload must fit some pool it may use, in every strategy.
pub(super) fn check_fits(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    workloads: &[Workload],
    pools: &[Pool],
    gpu_types: &[String],
) {
    for strategy in strategies {
        for workload in workloads {
            check_fit(c, strategy, workload, pools, gpu_types);
        }
    }
}

/// Every gang of a workload must fit some pool it may use in every strategy.
fn check_fit(
    c: &mut Checker<'_>,
    strategy: &Strategy,
    workload: &Workload,
    pools: &[Pool],
    gpu_types: &[String],
) {
    let gang = workload.gpus.max_gpus();
    let bursts = workload.burst_after_wait_h_under(strategy).is_some();
    let usable: Vec<&Pool> = strategy
        .pools
        .iter()
        .filter(|&&p| workload.may_use(p, pools[p].gpu))
        .map(|p| &pools[*p])
        .filter(|p| (!p.is_elastic() || bursts) && p.takes_gang(gang))
        .collect();
    let field = format!("strategy.{}.pools", strategy.name);
    if usable.is_empty() {
        let accepted: Vec<&str> = gpu_types
            .iter()
            .enumerate()
            .filter(|(t, _)| workload.accepts_mask & (1 << t) != 0)
            .map(|(_, g)| g.as_str())
            .collect();
        c.push(&field, format!(
            "offer no pool that workload `{}` can use (it accepts {}{}; elastic pools count only if burst_after_wait_h is not \"never\")",
            workload.name,
            accepted.join(", "),
            workload.pools.as_ref().map_or(String::new(), |named| {
                let names: Vec<&str> = named.iter().map(|&p| pools[p].name.as_str()).collect();
                format!(" and names pools {}", names.join(", "))
            }),
        ));
        return;
    }
    let capacity = |p: &Pool| p.capacity_gpus();
    if usable
        .iter()
        .all(|p| capacity(p).is_some_and(|cap| cap < u64::from(gang)))
    {
        let sizes: Vec<String> = usable
            .iter()
            .map(|p| format!("`{}` has {} GPUs", p.name, capacity(p).unwrap_or(0)))
            .collect();
        c.push(
            &field,
            format!(
                "cannot fit workload `{}`: its jobs need up to {gang} GPUs at once, but {}",
                workload.name,
                sizes.join(", ")
            ),
        );
        return;
    }
    warn_owned_too_small(c, strategy, workload, &usable, gang, capacity);
}

/// A workload whose largest gangs fit none of the strategy's owned or reserved pools always
/// bursts with them: worth a warning, since that is rarely what a planner sizing an owned
/// base intends.
fn warn_owned_too_small(
    c: &mut Checker<'_>,
    strategy: &Strategy,
    workload: &Workload,
    usable: &[&Pool],
    gang: u32,
    capacity: impl Fn(&Pool) -> Option<u64>,
) {
    // Pools of no nodes have a warning of their own (and start sweeps over node counts).
    let owned: Vec<&&Pool> = usable
        .iter()
        .filter(|p| !p.is_elastic() && capacity(p).is_some_and(|c| c > 0))
        .collect();
    let largest = owned.iter().filter_map(|p| capacity(p)).max();
    let Some(largest) = largest else { return };
    if u64::from(gang) <= largest {
        return;
    }
    let sizes: Vec<String> = owned
        .iter()
        .map(|p| format!("`{}` has {} GPUs", p.name, capacity(p).unwrap_or(0)))
        .collect();
    c.warnings.push(format!(
        "workload `{}` has jobs of up to {gang} GPUs, more than any owned or reserved pool of strategy `{}` holds ({}): under that strategy they always run on elastic pools; add nodes, or make that intended by giving the workload its own strategy",
        workload.name,
        strategy.name,
        sizes.join(", ")
    ));
}
