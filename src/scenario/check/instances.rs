//! Cloud pools that sell several instance sizes (`instances`): the checks of the list, and
//! the split of such a pool into one pool per size once every other check has passed.
//!
//! Until the split, the pool stands for all its sizes: its `gpus_per_node` is the largest
//! size's (so the gang checks see the widest node it offers) and its price the smallest
//! size's. The split gives each size its own node size, price curve (the pool's curve scaled
//! to the size's price) and quota or commitment, names it `pool (instance)`, and puts the
//! sizes, smallest first, wherever a strategy or a workload names the pool.

use super::{Checker, GPUS_PER_NODE_MAX, NODES_MAX};
use crate::names::{self, NameKind};
use crate::scenario::config::*;
use crate::scenario::file::*;

/// The most instance sizes of one pool.
const INSTANCES_MAX: usize = 16;

/// The most characters of an instance's name.
const INSTANCE_NAME_CHARS_MAX: usize = 32;

/// A pool field: its name, whether a pool writes it, and why it does not go with `instances`.
type RefusedField = (&'static str, fn(&PoolFile) -> bool, &'static str);

/// Fields a pool that lists `instances` cannot have, and why.
const PER_INSTANCE: [RefusedField; 2] = [
    (
        "gpus_per_node",
        |p| p.gpus_per_node.is_some(),
        "each instance gives its `gpus`",
    ),
    (
        "nodes",
        |p| p.nodes.is_some(),
        "a reserved pool commits `nodes` per instance",
    ),
];

/// The pool's instances, checked and smallest first (`None` when it lists none; those with a
/// problem are left out, and the problem pushed). An instance without its own
/// `price_per_gpu_h` or `max_nodes` takes the pool's.
pub(super) fn check_instances(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    gpu: Option<&str>,
) -> Option<Vec<Instance>> {
    // An on-prem pool is refused `instances` with the fields of other pool types.
    let files = pool
        .instances
        .as_ref()
        .filter(|_| pool.pool_type != PoolType::OnPrem)?;
    for (field, is_set, why) in PER_INSTANCE {
        if is_set(pool) {
            c.push(
                &format!("{at}.{field}"),
                format!("does not go with `instances`: {why}"),
            );
        }
    }
    if files.is_empty() || files.len() > INSTANCES_MAX {
        c.push(
            &format!("{at}.instances"),
            format!(
                "must list 1 to {INSTANCES_MAX} instance sizes, got {}",
                files.len()
            ),
        );
    }
    one_price_curve(c, pool, files, at);
    let mut instances: Vec<Instance> = files
        .iter()
        .enumerate()
        .filter_map(|(i, file)| check_instance(c, file, pool, &format!("{at}.instances[{i}]"), gpu))
        .collect();
    unique(c, &instances, at);
    instances.sort_by_key(|instance| instance.gpus);
    Some(instances)
}

/// A schedule or trace gives one price: only sizes at the pool's price can follow it.
fn one_price_curve(c: &mut Checker<'_>, pool: &PoolFile, files: &[InstanceFile], at: &str) {
    let own = files.iter().position(|i| i.price_per_gpu_h.is_some());
    let curve = [
        ("price_schedule", pool.price_schedule.is_some()),
        ("price_trace", pool.price_trace.is_some()),
    ];
    if let (Some(i), Some((field, _))) = (own, curve.iter().find(|(_, set)| *set)) {
        c.push(
            &format!("{at}.{field}"),
            format!(
                "gives one price, but instances[{i}] has its own price_per_gpu_h: give the sizes the pool's price_per_gpu_h, or use price_change_per_year"
            ),
        );
    }
}

fn check_instance(
    c: &mut Checker<'_>,
    file: &InstanceFile,
    pool: &PoolFile,
    at: &str,
    gpu: Option<&str>,
) -> Option<Instance> {
    let problems = c.issues.len();
    let reserved = pool.pool_type == PoolType::Reserved;
    let gpus = c.count(file.gpus, &format!("{at}.gpus"), 1, GPUS_PER_NODE_MAX);
    let price = instance_price(c, file, pool, at);
    let nodes = if reserved {
        let nodes = c.required(
            file.nodes,
            &format!("{at}.nodes"),
            "the instances of this size committed, e.g. nodes = 4",
        );
        nodes.map_or(0, |n| c.count(n, &format!("{at}.nodes"), 0, NODES_MAX))
    } else {
        if file.nodes.is_some() {
            c.push(
                &format!("{at}.nodes"),
                "is for reserved pools; cap an elastic pool's size with max_nodes",
            );
        }
        0
    };
    let max_nodes = match (reserved, file.max_nodes) {
        (true, Some(_)) => {
            c.push(
                &format!("{at}.max_nodes"),
                "is for on_demand and spot pools; a reserved size commits `nodes`",
            );
            None
        }
        (_, max_nodes) => max_nodes
            .or(pool.max_nodes)
            .map(|m| c.count(m, &format!("{at}.max_nodes"), 1, NODES_MAX)),
    };
    if let Some(problem) = file.name.as_deref().and_then(instance_name_problem) {
        c.push(&format!("{at}.name"), problem);
    }
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| format!("{gpus}x{}", gpu.unwrap_or("GPU")));
    (c.issues.len() == problems).then_some(Instance {
        name,
        gpus,
        price_per_gpu_h: price,
        nodes,
        max_nodes,
    })
}

/// Its price per GPU-hour: its own, or the pool's times its `price_ratio` (1 by default).
fn instance_price(c: &mut Checker<'_>, file: &InstanceFile, pool: &PoolFile, at: &str) -> f64 {
    let ratio = file.price_ratio.map_or(1.0, |r| {
        c.number(r, &format!("{at}.price_ratio"), 0.01, false, 100.0)
    });
    let price = match (file.price_per_gpu_h, file.price_ratio) {
        (Some(_), Some(_)) => {
            c.push(
                &format!("{at}.price_ratio"),
                "goes with the pool's price: give price_per_gpu_h or price_ratio, not both",
            );
            None
        }
        (Some(own), None) => Some(own),
        (None, _) => c
            .required(
                pool.price_per_gpu_h,
                &format!("{at}.price_per_gpu_h"),
                "its price per GPU-hour, or the pool's price_per_gpu_h for every size",
            )
            .map(|p| p * ratio),
    };
    price.map_or(1.0, |p| c.positive(p, &format!("{at}.price_per_gpu_h")))
}

/// What is wrong with an instance's name: the team rules (`.` allowed, as in `p5.48xlarge`),
/// and at most 32 characters.
fn instance_name_problem(name: &str) -> Option<String> {
    if name.chars().count() > INSTANCE_NAME_CHARS_MAX {
        return Some(format!(
            "must have at most {INSTANCE_NAME_CHARS_MAX} characters, got {}",
            name.chars().count()
        ));
    }
    names::problem(name, NameKind::Team).map(|p| p.replace("team names", "instance names"))
}

/// Each size and each name once in a pool.
fn unique(c: &mut Checker<'_>, instances: &[Instance], at: &str) {
    for (i, instance) in instances.iter().enumerate() {
        let earlier = &instances[..i];
        if let Some(j) = earlier.iter().position(|e| e.gpus == instance.gpus) {
            c.push(
                &format!("{at}.instances[{i}].gpus"),
                format!(
                    "repeats instances[{j}]'s size of {} GPUs: list each size once (a pool of its own for another price)",
                    instance.gpus
                ),
            );
        } else if let Some(j) = earlier.iter().position(|e| e.name == instance.name) {
            c.push(
                &format!("{at}.instances[{i}].name"),
                format!("repeats instances[{j}]'s name `{}`", instance.name),
            );
        }
    }
}

/// The pool as the checks see it before the split: the largest node, its own price (else the
/// smallest size's; the sizes' curves are scaled from it). With no valid instance (its
/// problems are reported) it takes placeholders, so that no field is also reported missing.
pub(super) fn stand_in(pool: &PoolFile, instances: &[Instance]) -> PoolFile {
    let mut stand_in = pool.clone();
    stand_in.gpus_per_node = Some(instances.last().map_or(1, |i| i.gpus));
    let smallest = instances.first().map_or(1.0, |i| i.price_per_gpu_h);
    stand_in.price_per_gpu_h = Some(pool.price_per_gpu_h.unwrap_or(smallest));
    stand_in.nodes = (pool.pool_type == PoolType::Reserved).then_some(0);
    stand_in.max_nodes = None;
    stand_in
}

/// Splits every pool with instances (`instances[p]` non-empty) into one pool per size,
/// smallest first, and re-points the strategies' and workloads' pool indices at the sizes.
pub(super) fn split(
    pools: Vec<Pool>,
    instances: &[Vec<Instance>],
    strategies: &mut [Strategy],
    workloads: &mut [Workload],
) -> Vec<Pool> {
    let mut split = Vec::new();
    let mut new_indices: Vec<Vec<usize>> = Vec::new();
    for (pool, sizes) in pools.into_iter().zip(instances) {
        let first = split.len();
        if sizes.is_empty() {
            split.push(pool);
        } else {
            split.extend(
                sizes
                    .iter()
                    .enumerate()
                    .map(|(k, size)| one_size(&pool, size, k + 1 == sizes.len())),
            );
        }
        new_indices.push((first..split.len()).collect());
    }
    let re_point = |indices: &[usize]| -> Vec<usize> {
        indices
            .iter()
            .flat_map(|&p| new_indices[p].iter().copied())
            .collect()
    };
    for strategy in strategies.iter_mut() {
        strategy.pools = re_point(&strategy.pools);
        strategy.service_pools = re_point(&strategy.service_pools);
        for (pool, _) in &mut strategy.reserve_gpus {
            // The checks refuse a hold on a pool with instances: it stays a single pool.
            *pool = new_indices[*pool][0];
        }
    }
    for workload in workloads.iter_mut() {
        if let Some(pools) = &workload.pools {
            workload.pools = Some(re_point(pools));
        }
    }
    split
}

/// The pool of one instance size.
fn one_size(pool: &Pool, size: &Instance, largest: bool) -> Pool {
    let mut one = pool.clone();
    one.name = format!("{} ({})", pool.name, size.name);
    one.gpus_per_node = size.gpus;
    one.shape = Some(Shape {
        family: pool.name.clone(),
        instance: size.name.clone(),
        largest,
    });
    match &mut one.kind {
        PoolKind::Reserved(reserved) => {
            reserved.list_price = scaled(&reserved.list_price, reserved.price_per_gpu_h, size);
            reserved.price_per_gpu_h = size.price_per_gpu_h;
            reserved.nodes = size.nodes;
        }
        PoolKind::OnDemand(elastic) | PoolKind::Spot(elastic, _) => {
            elastic.price = scaled(&elastic.price, elastic.price_per_gpu_h, size);
            elastic.price_per_gpu_h = size.price_per_gpu_h;
            elastic.max_nodes = size.max_nodes;
        }
        PoolKind::OnPrem(_) => unreachable!("on_prem pools list no instances"),
    }
    one
}

/// The pool's curve (which starts at `base`) for `size`: the size's price, changing as the
/// pool's does (the pool's curve itself for a size at the pool's price).
fn scaled(curve: &PriceCurve, base: f64, size: &Instance) -> PriceCurve {
    if size.price_per_gpu_h == base {
        return curve.clone();
    }
    let at = |price: f64| size.price_per_gpu_h * (price / base);
    match curve {
        PriceCurve::Monthly(prices) => PriceCurve::Monthly(prices.iter().map(|&p| at(p)).collect()),
        PriceCurve::Steps(steps) => PriceCurve::Steps(std::sync::Arc::new(
            steps.iter().map(|&(from_h, p)| (from_h, at(p))).collect(),
        )),
    }
}
