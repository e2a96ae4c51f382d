//! Checks of `[[service]]` tables: demand (mean, profiles, growth, variation or a
//! measured curve), replica size, autoscaler timing and GPU types; and of the strategy fields
//! that say where services run (`service_pools`, `service_preempts`, `reserve_gpus`).

use std::collections::{BTreeMap, BTreeSet};

use super::workloads::{
    GpuChoice, GpuFields, WorkloadContext, daily_profile, gpu_choice, weekly_profile,
};
use super::{Checker, GPUS_PER_NODE_MAX, SERVICE_GPUS_MAX};
use crate::names::NameKind;
use crate::scenario::config::*;
use crate::scenario::file::*;

/// Default step of the autoscaler, hours.
pub const AUTOSCALE_EVERY_H: f64 = 0.25;
/// Default time a replica takes to serve once added (provisioning and model load), hours.
pub const SCALE_UP_H: f64 = 0.1;
/// Default time demand must stay low before replicas are removed, hours.
pub const SCALE_DOWN_AFTER_H: f64 = 0.5;
/// Largest hourly variation accepted: a larger one is surely a typo.
const NOISE_CV_MAX: f64 = 10.0;

/// Refuses a service whose demand peaks above [`SERVICE_GPUS_MAX`] over the horizon: its
/// `gpus` may be within bounds while its profiles or growth multiply it past any fleet.
pub(super) fn check_peaks(c: &mut Checker<'_>, services: &[Service], horizon_months: u32) {
    for service in services {
        if let Some(problem) = peak_problem(&service.demand, horizon_months) {
            c.push(&format!("service.{}", service.name), problem);
        }
    }
}

/// What is wrong with a demand whose peak is above [`SERVICE_GPUS_MAX`], if it is.
pub fn peak_problem(demand: &Demand, horizon_months: u32) -> Option<String> {
    let peak = demand.peak_gpus(horizon_months);
    if peak <= SERVICE_GPUS_MAX {
        return None;
    }
    let (shape, check) = match demand.trace {
        Some(_) => ("the demand_trace's highest step", "the demand_trace"),
        None => (
            "gpus x the highest daily_profile and weekly_profile multipliers",
            "gpus, the profiles",
        ),
    };
    Some(format!(
        "peaks at about {peak:.1e} GPUs of demand ({shape}, with growth_per_month = {} over {horizon_months} months), more than the {SERVICE_GPUS_MAX:.0e} fleetsim simulates for one service; check {check} and growth_per_month",
        demand.growth_per_month
    ))
}

/// Checks every service (names unique, and distinct from the workloads' names).
pub(super) fn check_services(
    c: &mut Checker<'_>,
    files: &[ServiceFile],
    resolved: &mut [ServiceFile],
    workload_names: &BTreeSet<&str>,
    context: &WorkloadContext<'_>,
) -> Vec<Service> {
    let mut services = Vec::new();
    let mut names = BTreeSet::new();
    for (i, (file, resolved)) in files.iter().zip(resolved.iter_mut()).enumerate() {
        let is_new = names.insert(file.name.clone());
        c.table_name("service", i, &file.name, is_new);
        if workload_names.contains(file.name.as_str()) {
            c.push(
                &format!("service[{i}].name"),
                format!(
                    "`{}` is also a workload's name; a service and a workload need different names (they share teams.csv and the charts)",
                    file.name
                ),
            );
        }
        let at = format!("service.{}", file.name);
        if let Some(service) = check_service(c, file, resolved, &at, context) {
            services.push(service);
        }
    }
    services
}

fn check_service(
    c: &mut Checker<'_>,
    s: &ServiceFile,
    resolved: &mut ServiceFile,
    at: &str,
    context: &WorkloadContext<'_>,
) -> Option<Service> {
    let f = |name: &str| format!("{at}.{name}");
    let demand = check_demand(c, s, at);
    let GpuChoice {
        gpu_name,
        gpu,
        accepts,
        accepts_mask,
    } = gpu_choice(
        c,
        &GpuFields {
            name: &format!("service `{}`", s.name),
            gpu: &s.gpu,
            accepts: &s.accepts,
            refers: "demand is counted in",
            own_speeds: None,
        },
        at,
        context,
    );
    let gpus_per_replica = c.count(
        s.gpus_per_replica.unwrap_or(1),
        &f("gpus_per_replica"),
        1,
        GPUS_PER_NODE_MAX,
    );
    let min_gpus = c.number(
        s.min_gpus.unwrap_or(0.0),
        &f("min_gpus"),
        0.0,
        false,
        SERVICE_GPUS_MAX,
    );
    let headroom = c.number(s.headroom.unwrap_or(0.0), &f("headroom"), 0.0, false, 10.0);
    let scale_up_h = c.non_negative(s.scale_up_h.unwrap_or(SCALE_UP_H), &f("scale_up_h"));
    let scale_down_after_h = c.non_negative(
        s.scale_down_after_h.unwrap_or(SCALE_DOWN_AFTER_H),
        &f("scale_down_after_h"),
    );
    let autoscale_every_h = c.number(
        s.autoscale_every_h.unwrap_or(AUTOSCALE_EVERY_H),
        &f("autoscale_every_h"),
        1.0 / 3600.0,
        false,
        24.0 * 7.0,
    );
    let team = s.team.clone().unwrap_or_else(|| s.name.clone());
    if s.team.is_some()
        && let Some(problem) = crate::names::problem(&team, NameKind::Team)
    {
        c.push(&f("team"), problem);
    }
    resolved.gpu = gpu_name;
    resolved.accepts = Some(accepts);
    resolved.team = Some(team.clone());
    resolved.gpus_per_replica = Some(gpus_per_replica);
    resolved.min_gpus = Some(min_gpus);
    resolved.headroom = Some(headroom);
    resolved.scale_up_h = Some(scale_up_h);
    resolved.scale_down_after_h = Some(scale_down_after_h);
    resolved.autoscale_every_h = Some(autoscale_every_h);
    resolved.growth_per_month = Some(demand.as_ref().map_or(0.0, |d| d.growth_per_month));
    resolved.noise_cv = Some(demand.as_ref().map_or(0.0, |d| d.noise_cv));
    Some(Service {
        name: s.name.clone(),
        gpu: gpu?,
        accepts_mask,
        team,
        team_idx: 0, // Set with the workloads' teams.
        demand: demand?,
        gpus_per_replica,
        min_gpus,
        headroom,
        scale_up_h,
        scale_down_after_h,
        autoscale_every_h,
    })
}

/// The demand curve: `gpus` shaped by profiles, growth and variation, or a `demand_trace`
/// (read later, beside the scenario file: see `trace::demand`).
fn check_demand(c: &mut Checker<'_>, s: &ServiceFile, at: &str) -> Option<Demand> {
    let f = |name: &str| format!("{at}.{name}");
    let gpus = match (&s.demand_trace, s.gpus) {
        (Some(_), Some(_)) => {
            c.push(
                &f("gpus"),
                "is given with demand_trace, which replaces it; give one or the other",
            );
            None
        }
        (Some(path), None) => {
            if path.trim().is_empty() {
                c.push(&f("demand_trace"), "must name a CSV file of time, gpus");
            }
            Some(1.0)
        }
        (None, gpus) => c
            .required(
                gpus,
                &f("gpus"),
                "mean demand in GPUs of the service's gpu, e.g. 16 (or demand_trace, a CSV of time, gpus)",
            )
            .map(|g| c.number(g, &f("gpus"), 0.0, true, SERVICE_GPUS_MAX)),
    };
    let daily = match &s.daily_profile {
        None => [1.0; 24],
        Some(value) => daily_profile(c, value, &f("daily_profile")),
    };
    let weekly = match &s.weekly_profile {
        None => [1.0; 7],
        Some(values) => weekly_profile(c, values, &f("weekly_profile")),
    };
    if s.demand_trace.is_some() && (s.daily_profile.is_some() || s.weekly_profile.is_some()) {
        c.push(
            &f("demand_trace"),
            "already has its own daily and weekly shape; remove daily_profile and weekly_profile",
        );
    }
    let growth_per_month = c.number(
        s.growth_per_month.unwrap_or(0.0),
        &f("growth_per_month"),
        -1.0,
        true,
        10.0,
    );
    let noise_cv = c.number(
        s.noise_cv.unwrap_or(0.0),
        &f("noise_cv"),
        0.0,
        false,
        NOISE_CV_MAX,
    );
    Some(Demand {
        gpus: gpus?,
        daily,
        weekly,
        growth_per_month,
        noise_cv,
        trace: None,
    })
}

/// A strategy's service pools, their reserves and whether services preempt batch work.
pub(super) struct ServicePlacement {
    pub(super) pools: Vec<usize>,
    pub(super) preempts: bool,
    pub(super) reserve_gpus: Vec<(usize, u32)>,
}

/// `service_pools`, `service_preempts` and `reserve_gpus` of a strategy whose pools (indices
/// into the file's pools) are `pools`.
pub(super) fn check_placement(
    c: &mut Checker<'_>,
    s: &StrategyFile,
    resolved: &mut StrategyFile,
    at: &str,
    pools: &[usize],
    pool_names: &BTreeMap<String, usize>,
    pool_files: &[PoolFile],
) -> ServicePlacement {
    let f = |name: &str| format!("{at}.{name}");
    let in_strategy = |c: &mut Checker<'_>, name: &str, field: &str| -> Option<usize> {
        match pool_names.get(name) {
            Some(p) if pools.contains(p) => Some(*p),
            _ => {
                c.push(
                    field,
                    format!(
                        "names `{name}`, which is not one of this strategy's pools ({})",
                        pools
                            .iter()
                            .map(|p| pool_files[*p].name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                None
            }
        }
    };
    let service_pools: Vec<usize> = match &s.service_pools {
        // Spot only when asked for: a service must be met now, and spot replicas are lost.
        None => pools
            .iter()
            .copied()
            .filter(|p| pool_files[*p].pool_type != PoolType::Spot)
            .collect(),
        Some(names) => {
            let mut found = Vec::new();
            for name in names {
                match in_strategy(c, name, &f("service_pools")) {
                    Some(p) if found.contains(&p) => {
                        c.push(&f("service_pools"), format!("names pool `{name}` twice"))
                    }
                    Some(p) => found.push(p),
                    None => {}
                }
            }
            found
        }
    };
    let mut reserve_gpus = Vec::new();
    for (name, gpus) in s.reserve_gpus.iter().flatten() {
        let field = f(&format!("reserve_gpus.{name}"));
        let Some(p) = in_strategy(c, name, &field) else {
            continue;
        };
        let pool = &pool_files[p];
        if pool.instances.is_some() {
            c.push(
                &field,
                format!("holds GPUs on `{name}`, which lists instance sizes: hold GPUs on a pool of one node size"),
            );
        } else if !matches!(pool.pool_type, PoolType::OnPrem | PoolType::Reserved) {
            c.push(
                &field,
                format!("holds GPUs on `{name}`, which is elastic: a reserve applies to on_prem and reserved pools only"),
            );
        } else if !service_pools.contains(&p) {
            c.push(
                &field,
                format!("holds GPUs on `{name}`, which is not one of the strategy's service_pools"),
            );
        } else {
            let capacity =
                u64::from(pool.nodes.unwrap_or(0)) * u64::from(pool.gpus_per_node.unwrap_or(0));
            if u64::from(*gpus) > capacity {
                c.push(
                    &field,
                    format!("holds {gpus} GPUs, more than the {capacity} of pool `{name}`"),
                );
            }
            reserve_gpus.push((p, *gpus));
        }
    }
    let preempts = s.service_preempts.unwrap_or(true);
    resolved.service_pools = Some(
        service_pools
            .iter()
            .map(|p| pool_files[*p].name.clone())
            .collect(),
    );
    resolved.service_preempts = Some(preempts);
    ServicePlacement {
        pools: service_pools,
        preempts,
        reserve_gpus,
    }
}

/// Every service has a pool in every strategy whose GPU type it accepts, and its replicas fit
/// that pool's nodes.
pub(super) fn check_service_fits(
    c: &mut Checker<'_>,
    strategies: &[Strategy],
    services: &[Service],
    pools: &[Pool],
    gpu_types: &[String],
) {
    for strategy in strategies {
        for service in services {
            let usable: Vec<&Pool> = strategy
                .service_pools
                .iter()
                .map(|p| &pools[*p])
                .filter(|p| service.accepts_mask & (1 << p.gpu) != 0)
                .collect();
            let field = format!("strategy.{}.service_pools", strategy.name);
            if usable.is_empty() {
                let accepted: Vec<&str> = (0..gpu_types.len())
                    .filter(|t| service.accepts_mask & (1 << t) != 0)
                    .map(|t| gpu_types[t].as_str())
                    .collect();
                c.push(
                    &field,
                    format!(
                        "offer no pool that service `{}` can use (it accepts {}; spot pools serve services only when service_pools names them)",
                        service.name,
                        accepted.join(", ")
                    ),
                );
            }
            // Of a pool's instance sizes a replica takes those that hold it; the largest
            // says whether any does.
            let judged = usable
                .into_iter()
                .filter(|p| p.shape.as_ref().is_none_or(|shape| shape.largest));
            for pool in judged {
                if service.gpus_per_replica > pool.gpus_per_node {
                    c.push(
                        &format!("service.{}.gpus_per_replica", service.name),
                        format!(
                            "is {}, more than the {} GPUs of a node of pool `{}` (strategy `{}`); a replica runs on one node",
                            service.gpus_per_replica, pool.gpus_per_node, pool.name, strategy.name
                        ),
                    );
                }
            }
        }
    }
}
