//! What the rules read of a claim's scenario: prices, node sizes, fleet sizes, GPU types and
//! the value the claim is judged at. Every figure a rule prints or compares comes from here
//! or from the results, never from a constant in a rule; when a pool's shape changes (several
//! instance sizes, say) only these readers change.

use super::Point;
use crate::scenario::{Config, Pool, PoolKind, PriceCurve, Strategy};

/// The pool named `name`.
pub fn pool<'a>(config: &'a Config, name: &str) -> Result<&'a Pool, String> {
    // A pool of several instance sizes is its largest (the last of them).
    config
        .pools
        .iter()
        .find(|p| p.name == name)
        .or_else(|| config.pools.iter().rfind(|p| p.family() == name))
        .ok_or_else(|| format!("the scenario has no pool `{name}`"))
}

/// The strategy named `name`.
pub fn strategy<'a>(config: &'a Config, name: &str) -> Result<&'a Strategy, String> {
    config
        .strategies
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("the scenario has no strategy `{name}`"))
}

/// The first pool `strategy` tries: the one a single-pool strategy rents or owns.
pub fn first_pool<'a>(config: &'a Config, strategy_name: &str) -> Result<&'a Pool, String> {
    let strategy = strategy(config, strategy_name)?;
    let first = strategy
        .pools
        .first()
        .map(|&idx| &config.pools[idx])
        .ok_or_else(|| format!("strategy `{strategy_name}` has no pool"))?;
    // Of a pool of several instance sizes, its largest: whole nodes at the pool's list price.
    Ok(sizes(config, first).last().copied().unwrap_or(first))
}

/// The instance sizes of `pool`'s pool, smallest first (empty for a pool of one node size).
pub fn sizes<'a>(config: &'a Config, pool: &Pool) -> Vec<&'a Pool> {
    if pool.shape.is_none() {
        return Vec::new();
    }
    config
        .pools
        .iter()
        .filter(|p| p.shape.is_some() && p.family() == pool.family())
        .collect()
}

/// The scenario's baseline strategy's name.
pub fn baseline(config: &Config) -> &str {
    &config.strategies[config.baseline].name
}

/// The price per GPU-hour a pool lists at the start of the horizon: an elastic pool's price,
/// a reservation's on-demand list price (before its discount). On-prem pools have none.
pub fn price_per_gpu_h(pool: &Pool) -> Result<f64, String> {
    match &pool.kind {
        PoolKind::OnDemand(elastic) | PoolKind::Spot(elastic, _) => Ok(elastic.price_per_gpu_h),
        PoolKind::Reserved(reserved) => Ok(reserved.price_per_gpu_h),
        PoolKind::OnPrem(_) => Err(format!(
            "pool `{}` is owned: it has no price per GPU-hour",
            pool.name
        )),
    }
}

/// The lowest and highest price per GPU-hour a pool's schedule (`price_change_per_year`,
/// `price_schedule`, `price_trace`) reaches over the horizon.
pub fn price_range_per_gpu_h(pool: &Pool) -> Result<(f64, f64), String> {
    let curve = match &pool.kind {
        PoolKind::OnDemand(elastic) | PoolKind::Spot(elastic, _) => &elastic.price,
        PoolKind::Reserved(reserved) => &reserved.list_price,
        PoolKind::OnPrem(_) => return price_per_gpu_h(pool).map(|p| (p, p)),
    };
    let prices: Vec<f64> = match curve {
        PriceCurve::Monthly(prices) => prices.clone(),
        PriceCurve::Steps(steps) => steps.iter().map(|&(_, price)| price).collect(),
    };
    Ok(prices
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &p| {
            (low.min(p), high.max(p))
        }))
}

/// A pool's price as a sentence says it: `4.5 EUR/GPU-h`, and when its schedule moves,
/// `4.5 EUR/GPU-h at the start, 3.2 to 4.5 over the 36 months`: a break-even or payback
/// against it is then one for the whole horizon's bill, not for any one month's price.
pub fn price_words(config: &Config, pool: &Pool) -> Result<String, String> {
    let start = price_per_gpu_h(pool)?;
    let (low, high) = price_range_per_gpu_h(pool)?;
    let unit = format!("{}/GPU-h", config.currency);
    let others = other_sizes_words(config, pool, start)?;
    if high - low <= 1e-9 * high.abs().max(1.0) {
        return Ok(format!("{start} {unit}{others}"));
    }
    Ok(format!(
        "{start} {unit}{others} at the start, {low:.2} to {high:.2} over the {} months",
        config.horizon_months
    ))
}

/// ` (8-GPU instances; 1-GPU: 4.84)`: the other sizes of a pool whose sizes differ in
/// price (empty when they do not, or the pool has one node size).
fn other_sizes_words(config: &Config, pool: &Pool, price: f64) -> Result<String, String> {
    let mut others = Vec::new();
    for size in sizes(config, pool) {
        let size_price = price_per_gpu_h(size)?;
        if size.gpus_per_node != pool.gpus_per_node && size_price != price {
            others.push(format!("{}-GPU: {size_price:.2}", size.gpus_per_node));
        }
    }
    if others.is_empty() {
        return Ok(String::new());
    }
    Ok(format!(
        " ({}-GPU instances; {})",
        pool.gpus_per_node,
        others.join(", ")
    ))
}

/// GPUs a pool's nodes (or instances) hold.
pub fn gpus_per_node(pool: &Pool) -> u32 {
    pool.gpus_per_node
}

/// The nodes an owned or reserved pool holds.
pub fn nodes(pool: &Pool) -> Result<u32, String> {
    match &pool.kind {
        PoolKind::OnPrem(on_prem) => Ok(on_prem.nodes),
        PoolKind::Reserved(reserved) => Ok(reserved.nodes),
        PoolKind::OnDemand(_) | PoolKind::Spot(..) => Err(format!(
            "pool `{}` is elastic: it has no fixed number of nodes",
            pool.name
        )),
    }
}

/// A reservation's discount off its list price, as a fraction.
pub fn discount(pool: &Pool) -> Result<f64, String> {
    match &pool.kind {
        PoolKind::Reserved(reserved) => Ok(reserved.discount),
        _ => Err(format!("pool `{}` is not a reservation", pool.name)),
    }
}

/// A spot pool's mean node life between individual preemptions, hours.
pub fn preemption_mean_h(pool: &Pool) -> Result<f64, String> {
    match &pool.kind {
        PoolKind::Spot(_, preemption) => Ok(preemption.mean_h),
        _ => Err(format!("pool `{}` is not a spot pool", pool.name)),
    }
}

/// The probability that a node request fails while the pool is constrained (0 without an
/// availability section).
pub fn shortfall(pool: &Pool) -> f64 {
    pool.elastic()
        .and_then(|e| e.availability.as_ref())
        .map_or(0.0, |a| a.shortfall)
}

/// The GPU type of a pool's nodes.
pub fn gpu<'a>(config: &'a Config, pool: &Pool) -> &'a str {
    &config.gpu_types[pool.gpu]
}

/// `8 H100` / `1 L4`: a node (or instance) of the pool, as the page names it.
pub fn node_label(config: &Config, pool: &Pool) -> String {
    format!("{}-GPU {}", gpus_per_node(pool), gpu(config, pool))
}

/// The kernel speedup mixed precision gives the workload named `name`.
pub fn mixed_precision_speedup(config: &Config, name: &str) -> Result<f64, String> {
    config
        .workloads
        .iter()
        .find(|w| w.name == name)
        .map(|w| w.mixed_precision_speedup)
        .ok_or_else(|| format!("the scenario has no workload `{name}`"))
}

/// The name in a swept field's path (`workload.training.mixed_precision_speedup` gives
/// `training`).
pub fn swept_name(path: &str) -> Result<&str, String> {
    path.split('.')
        .nth(1)
        .ok_or_else(|| format!("`{path}` names no pool, workload or service"))
}

/// The point of the sweep at the scenario's own value `x` of its first swept field: the one
/// a claim is judged at. Its absence is an error naming the field and value, never a fallback
/// to another point.
pub fn judged_point<'p>(
    points: &'p [Point],
    swept: &[String],
    x: f64,
) -> Result<&'p Point, String> {
    let field = swept.first().map_or("the swept field", String::as_str);
    points
        .iter()
        .find(|p| (p.x() - x).abs() <= 1e-9 * x.abs().max(1.0))
        .ok_or_else(|| {
            format!(
                "the sweep has no point at the scenario's own `{field}` = {x}, the value the claim is judged at; add it to the [sweep] values"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::point;
    use super::*;

    #[test]
    fn a_missing_judged_point_is_an_error_naming_it() {
        let points = [point(&[3.0], &[]), point(&[6.0], &[])];
        let swept = ["pool.cloud.price_per_gpu_h".to_string()];
        assert_eq!(judged_point(&points, &swept, 6.0).unwrap().x(), 6.0);
        let error = judged_point(&points, &swept, 4.5).unwrap_err();
        assert!(
            error.contains("no point at the scenario's own `pool.cloud.price_per_gpu_h` = 4.5"),
            "{error}"
        );
        assert_eq!(swept_name("workload.training.x").unwrap(), "training");
    }

    #[test]
    fn prices_and_sizes_are_read_from_the_scenario() {
        let config = crate::scenario::load(
            std::path::Path::new("scenarios/claims/05-on-prem-break-even.toml"),
            &[crate::scenario::Override::new(
                "pool.specialist.price_per_gpu_h",
                toml::Value::Float(3.5),
            )],
        )
        .unwrap()
        .config;
        let specialist = first_pool(&config, baseline(&config)).unwrap();
        assert_eq!(price_per_gpu_h(specialist).unwrap(), 3.5);
        let dgx = first_pool(&config, "own-dgx").unwrap();
        assert_eq!(nodes(dgx).unwrap(), 4);
        assert_eq!(node_label(&config, dgx), "8-GPU H100");
        assert!(price_per_gpu_h(dgx).is_err());
        // The 1-GPU size lists 7.5 % more per GPU: 3.5 x 1.075 = 3.7625.
        assert_eq!(
            price_words(&config, specialist).unwrap(),
            "3.5 EUR/GPU-h (8-GPU instances; 1-GPU: 3.76)"
        );
    }

    #[test]
    fn a_moving_price_is_given_as_its_range_over_the_horizon() {
        let config = crate::scenario::load(
            std::path::Path::new("scenarios/claims/06-dgx-payback.toml"),
            &[crate::scenario::Override::new(
                "pool.cloud.price_change_per_year",
                toml::Value::Float(-0.25),
            )],
        )
        .unwrap()
        .config;
        let cloud = first_pool(&config, baseline(&config)).unwrap();
        let (low, high) = price_range_per_gpu_h(cloud).unwrap();
        assert_eq!(high, 4.5);
        // 25 % a year compounded monthly: 4.5 x 0.75^(35/12) in the last month.
        assert!(
            (low - 4.5 * 0.75f64.powf(35.0 / 12.0)).abs() < 1e-9,
            "{low}"
        );
        let words = price_words(&config, cloud).unwrap();
        // 4.5 x 1.075 = 4.8375 for the 1-GPU size.
        assert!(
            words.starts_with("4.5 EUR/GPU-h (8-GPU instances; 1-GPU: 4.84) at the start, "),
            "{words}"
        );
        assert!(words.ends_with(" to 4.50 over the 36 months"), "{words}");
    }
}
