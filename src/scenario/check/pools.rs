//! Checks of `[[pool]]` tables: the fields each pool type takes (a table says which apply to
//! which types), their values and defaults, preemption and availability.

use std::collections::BTreeMap;

use super::instances;
use super::money::{self, ENERGY_PRICE, GPU_PRICE, PriceFields};
use super::{Checker, DEFAULT_RETRY_H, GPUS_PER_NODE_MAX, HORIZON_MONTHS_MAX, NODES_MAX};
use crate::calendar::{Calendar, WeeklyWindows};
use crate::names::{self, NameKind};
use crate::scenario::config::*;
use crate::scenario::file::*;

/// Checks every pool (names unique); returns the pools that passed and every pool's index by
/// name (for the strategies).
pub(super) fn check_pools(
    c: &mut Checker<'_>,
    files: &[PoolFile],
    resolved: &mut [PoolFile],
    gpu_types: &[String],
    calendar: &Calendar,
    sites: &mut Vec<String>,
) -> CheckedPools {
    let mut checked = CheckedPools::default();
    for (i, (pool, resolved_pool)) in files.iter().zip(resolved.iter_mut()).enumerate() {
        let at = format!("pool.{}", pool.name);
        let is_new = checked.names.insert(pool.name.clone(), i).is_none();
        c.table_name("pool", i, &pool.name, is_new);
        let context = PoolContext {
            gpu_types,
            calendar,
        };
        let instances = instances::check_instances(c, pool, &at, pool.gpu.as_deref());
        let stand_in = instances
            .as_ref()
            .map(|list| instances::stand_in(pool, list));
        let pool = stand_in.as_ref().unwrap_or(pool);
        if let Some(p) = check_pool(c, pool, resolved_pool, &at, &context, sites) {
            checked.pools.push(p);
            checked.instances.push(instances.unwrap_or_default());
        }
    }
    checked
}

/// The pools that passed, their instance sizes (empty: one node size) and every pool's
/// index by name (for the strategies).
#[derive(Default)]
pub(super) struct CheckedPools {
    pub pools: Vec<Pool>,
    pub instances: Vec<Vec<Instance>>,
    pub names: BTreeMap<String, usize>,
}

/// What the pool checks need to know about the rest of the scenario.
struct PoolContext<'a> {
    gpu_types: &'a [String],
    calendar: &'a Calendar,
}

/// Pool types a field applies to, and how a message names them.
struct Types {
    types: &'static [PoolType],
    named: &'static str,
}

const ON_PREM: Types = Types {
    types: &[PoolType::OnPrem],
    named: "on_prem pools",
};
const RESERVED: Types = Types {
    types: &[PoolType::Reserved],
    named: "reserved pools",
};
const CLOUD: Types = Types {
    types: &[PoolType::Reserved, PoolType::OnDemand, PoolType::Spot],
    named: "cloud pools (reserved, on_demand, spot)",
};
/// Only `nodes` is for owned pools alone, so the name carries its alternative.
const OWNED: Types = Types {
    types: &[PoolType::OnPrem, PoolType::Reserved],
    named: "on_prem and reserved pools; use max_nodes to cap an elastic pool",
};
const ELASTIC: Types = Types {
    types: &[PoolType::OnDemand, PoolType::Spot],
    named: "on_demand and spot pools",
};
const NOT_RESERVED: Types = Types {
    types: &[PoolType::OnPrem, PoolType::OnDemand, PoolType::Spot],
    named: "on_demand and spot pools (from then, no new nodes) and on_prem pools (the month the nodes are sold); a reservation ends with its term",
};
const SPOT: Types = Types {
    types: &[PoolType::Spot],
    named: "spot pools",
};

/// A field's name, whether a pool writes it, and the types it applies to.
type TypedField = (&'static str, fn(&PoolFile) -> bool, Types);

/// Every field that some pool type does not take, in the order problems are reported. A
/// field missing here applies to every type.
#[rustfmt::skip] // One field a line reads as a table.
const TYPED_FIELDS: [TypedField; 38] = [
    ("instances", |p| p.instances.is_some(), CLOUD),
    ("purchase_month", |p| p.purchase_month.is_some(), ON_PREM),
    ("electricity_change_per_year", |p| p.electricity_change_per_year.is_some(), ON_PREM),
    ("electricity_schedule", |p| p.electricity_schedule.is_some(), ON_PREM),
    ("electricity_trace", |p| p.electricity_trace.is_some(), ON_PREM),
    ("resale_fraction", |p| p.resale_fraction.is_some(), ON_PREM),
    ("price_change_per_year", |p| p.price_change_per_year.is_some(), CLOUD),
    ("price_schedule", |p| p.price_schedule.is_some(), CLOUD),
    ("price_trace", |p| p.price_trace.is_some(), CLOUD),
    ("power_kw_per_gpu", |p| p.power_kw_per_gpu.is_some(), CLOUD),
    ("upfront", |p| p.upfront.is_some(), RESERVED),
    ("upfront_share", |p| p.upfront_share.is_some(), RESERVED),
    ("available_from", |p| p.available_from.is_some(), ELASTIC),
    ("available_until", |p| p.available_until.is_some(), NOT_RESERVED),
    ("capex_per_node", |p| p.capex_per_node.is_some(), ON_PREM),
    ("amortization_months", |p| p.amortization_months.is_some(), ON_PREM),
    ("residual_fraction", |p| p.residual_fraction.is_some(), ON_PREM),
    ("power_kw_per_node", |p| p.power_kw_per_node.is_some(), ON_PREM),
    ("idle_power_kw_per_node", |p| p.idle_power_kw_per_node.is_some(), ON_PREM),
    ("electricity_per_kwh", |p| p.electricity_per_kwh.is_some(), ON_PREM),
    ("opex_per_node_month", |p| p.opex_per_node_month.is_some(), ON_PREM),
    ("failures", |p| p.failures.is_some(), ON_PREM),
    ("price_per_gpu_h", |p| p.price_per_gpu_h.is_some(), CLOUD),
    ("discount", |p| p.discount.is_some(), RESERVED),
    ("term_months", |p| p.term_months.is_some(), RESERVED),
    ("start_month", |p| p.start_month.is_some(), RESERVED),
    ("nodes", |p| p.nodes.is_some(), OWNED),
    ("max_nodes", |p| p.max_nodes.is_some(), ELASTIC),
    ("provisioning_h", |p| p.provisioning_h.is_some(), ELASTIC),
    ("idle_timeout_h", |p| p.idle_timeout_h.is_some(), ELASTIC),
    ("billing_increment_s", |p| p.billing_increment_s.is_some(), ELASTIC),
    ("billing_minimum_s", |p| p.billing_minimum_s.is_some(), ELASTIC),
    ("availability", |p| p.availability.is_some(), ELASTIC),
    ("preemption", |p| p.preemption.is_some(), SPOT),
    ("zone", |p| p.zone.is_some(), CLOUD),
    ("availability_trace", |p| p.availability_trace.is_some(), SPOT),
    ("availability_start_h", |p| p.availability_start_h.is_some(), SPOT),
    ("availability_markov", |p| p.availability_markov.is_some(), SPOT),
];

/// Every field that some pool type does not take, with the types it applies to (for the
/// JSON Schema, which refuses the rest as these checks do).
pub(crate) fn typed_fields() -> impl Iterator<Item = (&'static str, &'static [PoolType])> {
    TYPED_FIELDS
        .iter()
        .map(|(name, _, applies_to)| (*name, applies_to.types))
}

/// Reports each field written for a pool type it does not apply to.
fn check_typed_fields(c: &mut Checker<'_>, pool: &PoolFile, at: &str) {
    let pool_type = pool.pool_type;
    for (name, is_set, applies_to) in &TYPED_FIELDS {
        if is_set(pool) && !applies_to.types.contains(&pool_type) {
            c.push(
                &format!("{at}.{name}"),
                format!(
                    "does not apply to {} pools (it is a field of {})",
                    pool_type.as_str(),
                    applies_to.named
                ),
            );
        }
    }
}

fn check_pool(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
    context: &PoolContext<'_>,
    sites: &mut Vec<String>,
) -> Option<Pool> {
    let (gpu_types, calendar) = (context.gpu_types, context.calendar);
    let horizon_months = calendar.months() as u32;
    let pool_type = pool.pool_type;
    let gpu = c.required(
        pool.gpu.as_deref(),
        &format!("{at}.gpu"),
        "the GPU type of its nodes, e.g. gpu = \"H100\"",
    );
    let gpus_per_node = c
        .required(
            pool.gpus_per_node,
            &format!("{at}.gpus_per_node"),
            "GPUs per node, e.g. 8",
        )
        .map(|g| c.count(g, &format!("{at}.gpus_per_node"), 1, GPUS_PER_NODE_MAX));
    let f = |name: &str| format!("{at}.{name}");
    check_typed_fields(c, pool, at);
    check_labels(c, pool, at);
    let elastic = matches!(pool_type, PoolType::OnDemand | PoolType::Spot);

    let nodes = if elastic {
        0
    } else {
        let nodes = c
            .required(
                pool.nodes,
                &f("nodes"),
                "the number of nodes, e.g. nodes = 4",
            )
            .unwrap_or(0);
        let nodes = c.count(nodes, &f("nodes"), 0, NODES_MAX);
        if nodes == 0 && pool.instances.is_none() {
            c.warnings.push(format!(
                "pool `{}` has nodes = 0: it adds no capacity (fine as the first point of a sweep over node counts)",
                pool.name
            ));
        }
        nodes
    };
    let (available_from, available_until) = if elastic {
        money::window(c, pool, at, horizon_months)
    } else {
        (0, None)
    };
    let storage = money::storage(c, pool, at, sites);
    let on_prem_pue = (pool_type == PoolType::OnPrem)
        .then_some(pool.pue)
        .flatten();
    let carbon = money::carbon(c, pool, at, on_prem_pue);
    if pool_type != PoolType::OnPrem {
        resolved.pue = Some(carbon.pue);
    }
    let kind = match pool_type {
        PoolType::OnPrem => on_prem(c, pool, resolved, at, nodes, calendar)?,
        PoolType::Reserved => reserved(c, pool, resolved, at, nodes, calendar)?,
        PoolType::OnDemand | PoolType::Spot => elastic_kind(c, pool, resolved, at, calendar)?,
    };
    let (zone, region) = super::spot::location(c, pool, at);
    let gpu_name = gpu?;
    let gpu = gpu_types.iter().position(|g| g == gpu_name)?;
    resolved.placement = Some(pool.placement.unwrap_or(PlacementFile::NodeLocal));
    let provider = pool
        .provider
        .clone()
        .unwrap_or_else(|| pool_type.as_str().to_string());
    resolved.provider = Some(provider.clone());
    Some(Pool {
        name: pool.name.clone(),
        gpu,
        gpus_per_node: gpus_per_node?,
        kind,
        placement: placement(pool.placement),
        provider,
        available_from,
        available_until,
        storage,
        carbon,
        zone,
        region,
        shape: None,
    })
}

use crate::scenario::vocabulary::NULL_WORDS;

/// `provider` follows the team name rules (a label in the FOCUS export: `.` and `@`
/// allowed); it, `region` and `site` (the FOCUS region when `region` is not given; their
/// name rules are checked with the spot and money fields) are not words a FOCUS reader takes
/// for null.
fn check_labels(c: &mut Checker<'_>, pool: &PoolFile, at: &str) {
    let fields = [
        ("provider", &pool.provider),
        ("region", &pool.region),
        ("site", &pool.site),
    ];
    for (field, value) in fields {
        let Some(value) = value else { continue };
        let problem = (field == "provider")
            .then(|| names::problem(value, NameKind::Team))
            .flatten();
        if let Some(problem) = problem {
            c.push(
                &format!("{at}.{field}"),
                problem.replace("team names", "labels"),
            );
        } else if NULL_WORDS.contains(&value.to_ascii_uppercase().as_str()) {
            c.push(
                &format!("{at}.{field}"),
                format!(
                    "`{value}` reads as null in FOCUS tools; choose another label (not {})",
                    NULL_WORDS.join(", ")
                ),
            );
        }
    }
}

/// A pool's or a strategy's `placement`, `node_local` unless written.
pub(super) fn placement(file: Option<PlacementFile>) -> Placement {
    match file.unwrap_or(PlacementFile::NodeLocal) {
        PlacementFile::NodeLocal => Placement::NodeLocal,
        PlacementFile::Spread => Placement::Spread,
    }
}

/// Capital, energy and operating cost of owned nodes, and their failures.
fn on_prem(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
    nodes: u32,
    calendar: &Calendar,
) -> Option<PoolKind> {
    let horizon_months = calendar.months() as u32;
    let f = |name: &str| format!("{at}.{name}");
    let need = |c: &mut Checker<'_>, v: Option<f64>, name: &str, hint: &str| {
        c.required(v, &f(name), hint)
            .map(|v| c.non_negative(v, &f(name)))
    };
    let capex = need(
        c,
        pool.capex_per_node,
        "capex_per_node",
        "purchase price of one node, e.g. 350000",
    );
    let amortization = c
        .required(
            pool.amortization_months,
            &f("amortization_months"),
            "months over which capital is spread, e.g. 36",
        )
        .map(|m| c.count(m, &f("amortization_months"), 1, HORIZON_MONTHS_MAX * 10));
    let residual = c.fraction(
        pool.residual_fraction.unwrap_or(0.0),
        &f("residual_fraction"),
    );
    let power = need(
        c,
        pool.power_kw_per_node,
        "power_kw_per_node",
        "power of a busy node in kW, e.g. 10.2",
    );
    let idle_power = match pool.idle_power_kw_per_node {
        Some(idle) => {
            let idle = c.non_negative(idle, &f("idle_power_kw_per_node"));
            if power.is_some_and(|p| idle > p) {
                c.push(
                    &f("idle_power_kw_per_node"),
                    format!(
                        "must be at most power_kw_per_node ({}), got {idle}",
                        power.unwrap_or(0.0)
                    ),
                );
            }
            Some(idle)
        }
        None => power,
    };
    let pue = c.required(
        pool.pue,
        &f("pue"),
        "power usage effectiveness of the data centre, e.g. 1.3",
    );
    let pue = pue.map(|p| c.number(p, &f("pue"), 1.0, false, f64::INFINITY));
    let electricity = need(
        c,
        pool.electricity_per_kwh,
        "electricity_per_kwh",
        "price of a kWh, e.g. 0.22",
    );
    let opex = need(
        c,
        pool.opex_per_node_month,
        "opex_per_node_month",
        "operating cost per node and month, e.g. 1500",
    );
    let purchase_month = pool.purchase_month.unwrap_or(0);
    if purchase_month >= horizon_months {
        c.warnings.push(format!("pool `{}` is bought in month {purchase_month}, after the horizon of {horizon_months} month(s): it adds nothing; lower purchase_month or raise horizon_months", pool.name));
    }
    let failures = pool.failures.as_ref().and_then(|failures| {
        let mtbf = c.required(
            failures.mtbf_h,
            &f("failures.mtbf_h"),
            "mean time between failures of a node, hours",
        );
        let repair = c.required(
            failures.repair_h,
            &f("failures.repair_h"),
            "time to repair a node, hours",
        );
        Some(Failures {
            mtbf_h: c.positive(mtbf?, &f("failures.mtbf_h")),
            repair_h: c.positive(repair?, &f("failures.repair_h")),
        })
    });
    let (sold_month, resale_fraction) = money::sale(c, pool, at, purchase_month);
    let electricity_curve = electricity.map(|base| {
        money::price_curve(
            c,
            &PriceFields {
                base,
                change_per_year: pool.electricity_change_per_year,
                schedule: money::energy_schedule(pool),
                trace: pool.electricity_trace.as_deref(),
                names: ENERGY_PRICE,
            },
            at,
            calendar,
        )
    });
    resolved.purchase_month = Some(purchase_month);
    resolved.residual_fraction = Some(residual);
    resolved.idle_power_kw_per_node = idle_power;
    Some(PoolKind::OnPrem(OnPrem {
        nodes,
        purchase_month,
        capex_per_node: capex?,
        amortization_months: amortization?,
        residual_fraction: residual,
        power_kw_per_node: power?,
        idle_power_kw_per_node: idle_power?,
        pue: pue?,
        electricity_per_kwh: electricity?,
        electricity: electricity_curve?,
        opex_per_node_month: opex?,
        failures,
        sold_month,
        resale_fraction,
    }))
}

/// A commitment: the list price, the discount and the term.
fn reserved(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
    nodes: u32,
    calendar: &Calendar,
) -> Option<PoolKind> {
    let horizon_months = calendar.months() as u32;
    let f = |name: &str| format!("{at}.{name}");
    let price = c.required(
        pool.price_per_gpu_h,
        &f("price_per_gpu_h"),
        "the on-demand list price per GPU-hour",
    );
    let price = price.map(|p| c.positive(p, &f("price_per_gpu_h")));
    let discount = c.required(
        pool.discount,
        &f("discount"),
        "the discount to the list price, e.g. 0.35",
    );
    let discount = discount.map(|d| c.fraction(d, &f("discount")));
    let term = c.required(
        pool.term_months,
        &f("term_months"),
        "length of the commitment in months, e.g. 12",
    );
    let term = term.map(|t| c.count(t, &f("term_months"), 1, HORIZON_MONTHS_MAX * 10));
    let start_month = pool.start_month.unwrap_or(0);
    if start_month >= horizon_months {
        c.warnings.push(format!(
            "pool `{}` starts in month {start_month}, after the horizon of {horizon_months} month(s): it adds nothing; lower start_month or raise horizon_months",
            pool.name
        ));
    }
    resolved.start_month = Some(start_month);
    let list_price = price.map(|base| gpu_price_curve(c, pool, at, base, calendar));
    let upfront = money::upfront(c, pool, at);
    Some(PoolKind::Reserved(Reserved {
        nodes,
        price_per_gpu_h: price?,
        list_price: list_price?,
        discount: discount?,
        term_months: term?,
        start_month,
        upfront,
    }))
}

/// The price per GPU-hour over the horizon of a cloud pool.
fn gpu_price_curve(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    base: f64,
    calendar: &Calendar,
) -> PriceCurve {
    money::price_curve(
        c,
        &PriceFields {
            base,
            change_per_year: pool.price_change_per_year,
            schedule: money::gpu_schedule(pool),
            trace: pool.price_trace.as_deref(),
            names: GPU_PRICE,
        },
        at,
        calendar,
    )
}

/// On-demand and spot pools: price, node limits, billing, availability (and preemption).
fn elastic_kind(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
    calendar: &Calendar,
) -> Option<PoolKind> {
    let pool_type = pool.pool_type;
    let f = |name: &str| format!("{at}.{name}");
    let price = c.required(
        pool.price_per_gpu_h,
        &f("price_per_gpu_h"),
        "the price per GPU-hour",
    );
    let price = price.map(|p| c.positive(p, &f("price_per_gpu_h")));
    let max_nodes = pool
        .max_nodes
        .map(|m| c.count(m, &f("max_nodes"), 1, NODES_MAX));
    let provisioning_h = c.non_negative(pool.provisioning_h.unwrap_or(0.0), &f("provisioning_h"));
    let idle_timeout_h = c.non_negative(pool.idle_timeout_h.unwrap_or(0.0), &f("idle_timeout_h"));
    let billing_increment_s = c.positive(
        pool.billing_increment_s.unwrap_or(1.0),
        &f("billing_increment_s"),
    );
    let billing_minimum_s = c.non_negative(
        pool.billing_minimum_s.unwrap_or(0.0),
        &f("billing_minimum_s"),
    );
    let availability = pool
        .availability
        .as_ref()
        .and_then(|a| check_availability(c, a, &f("availability")));
    resolved.provisioning_h = Some(provisioning_h);
    resolved.idle_timeout_h = Some(idle_timeout_h);
    resolved.billing_increment_s = Some(billing_increment_s);
    resolved.billing_minimum_s = Some(billing_minimum_s);
    if let (Some(a), Some(r)) = (resolved.availability.as_mut(), availability.as_ref()) {
        a.retry_h = Some(r.retry_h);
    }
    let price_curve = price.map(|base| gpu_price_curve(c, pool, at, base, calendar));
    let elastic = Elastic {
        price_per_gpu_h: price?,
        price: price_curve?,
        max_nodes,
        provisioning_h,
        idle_timeout_h,
        billing_increment_s,
        billing_minimum_s,
        availability,
        capacity: super::spot::capacity(c, pool, at),
    };
    if pool_type == PoolType::Spot {
        let preemption = if pool.preemption.is_none() && elastic.capacity.is_some() {
            // Capacity that comes and goes preempts on its own.
            Preemption {
                mean_h: f64::INFINITY,
                waves_per_month: 0.0,
                wave_fraction: 0.0,
            }
        } else {
            preemption(c, pool, resolved, at)?
        };
        Some(PoolKind::Spot(elastic, preemption))
    } else {
        Some(PoolKind::OnDemand(elastic))
    }
}

/// How a spot pool loses nodes: one at a time, and in waves.
fn preemption(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    resolved: &mut PoolFile,
    at: &str,
) -> Option<Preemption> {
    let f = |name: &str| format!("{at}.{name}");
    let preemption = c.required(
        pool.preemption.as_ref(),
        &f("preemption"),
        "preemption = { mean_h = 30 } (mean hours until a spot node is reclaimed), or availability_markov or availability_trace",
    )?;
    let mean_h = c.required(
        preemption.mean_h,
        &f("preemption.mean_h"),
        "mean hours until a spot node is reclaimed",
    )?;
    let mean_h = c.positive(mean_h, &f("preemption.mean_h"));
    let waves = c.non_negative(
        preemption.waves_per_month.unwrap_or(0.0),
        &f("preemption.waves_per_month"),
    );
    let fraction = match preemption.wave_fraction {
        Some(fr) => c.fraction(fr, &f("preemption.wave_fraction")),
        None if waves > 0.0 => {
            c.push(
                &f("preemption.wave_fraction"),
                "is missing: the share of the pool's nodes a wave takes, e.g. 0.5",
            );
            0.0
        }
        None => 0.0,
    };
    if let Some(p) = resolved.preemption.as_mut() {
        p.waves_per_month = Some(waves);
        p.wave_fraction = Some(fraction);
    }
    Some(Preemption {
        mean_h,
        waves_per_month: waves,
        wave_fraction: fraction,
    })
}

fn check_availability(c: &mut Checker<'_>, a: &AvailabilityFile, at: &str) -> Option<Availability> {
    let shortfall = c.required(
        a.shortfall,
        &format!("{at}.shortfall"),
        "the probability that a node request fails while constrained, e.g. 0.6",
    )?;
    let shortfall = c.fraction(shortfall, &format!("{at}.shortfall"));
    let retry_h = c.positive(
        a.retry_h.unwrap_or(DEFAULT_RETRY_H),
        &format!("{at}.retry_h"),
    );
    let episodic = a.episodes_per_month.is_some() || a.episode_mean_h.is_some();
    let when = match (&a.window, episodic) {
        (Some(_), true) => {
            c.push(at, "takes either a calendar `window` or random episodes (`episodes_per_month`, `episode_mean_h`), not both");
            return None;
        }
        (Some(window), false) => match WeeklyWindows::parse(window) {
            Ok(windows) => Constrained::Window(windows),
            Err(problem) => {
                c.push(
                    &format!("{at}.window"),
                    format!("\"{window}\" is not a calendar window: {problem}"),
                );
                return None;
            }
        },
        (None, true) => {
            let per_month = c.required(
                a.episodes_per_month,
                &format!("{at}.episodes_per_month"),
                "mean number of shortfall episodes per month",
            )?;
            let mean_h = c.required(
                a.episode_mean_h,
                &format!("{at}.episode_mean_h"),
                "mean length of an episode, hours",
            )?;
            Constrained::Episodes {
                episodes_per_month: c.positive(per_month, &format!("{at}.episodes_per_month")),
                episode_mean_h: c.positive(mean_h, &format!("{at}.episode_mean_h")),
            }
        }
        (None, false) => Constrained::Always,
    };
    Some(Availability {
        shortfall,
        when,
        retry_h,
    })
}
