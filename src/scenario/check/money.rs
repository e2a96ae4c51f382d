//! Checks of the fields that put money and resources on a timeline: prices that
//! change (a yearly rate, a schedule by month or a trace), when a pool can be had and when
//! owned nodes are sold, how a reservation is paid, sites with their storage and transfer
//! prices, and the carbon intensity of a pool's power.

use super::{Checker, NUMBER_MAX};
use crate::calendar::Calendar;
use crate::scenario::config::*;
use crate::scenario::file::*;

/// A yearly price change beyond this is surely a typo (prices cannot fall by more than all).
const CHANGE_PER_YEAR_MIN: f64 = -0.99;
const CHANGE_PER_YEAR_MAX: f64 = 10.0;
/// Sites are a bit mask in the model.
const SITES_MAX: usize = 64;
/// Default PUE of a cloud data centre, for CO2 estimates.
pub const CLOUD_PUE: f64 = 1.2;

/// The ways one price may change over time, as written.
pub(super) struct PriceFields<'a> {
    /// The price at the start (`price_per_gpu_h`, `electricity_per_kwh`).
    pub(super) base: f64,
    pub(super) change_per_year: Option<f64>,
    /// `(from "YYYY-MM", price)`.
    pub(super) schedule: Option<Vec<(&'a str, f64)>>,
    pub(super) trace: Option<&'a str>,
    /// Field names for messages: the base, the change, the schedule, the trace.
    pub(super) names: [&'static str; 4],
}

/// The price curve of `fields`: a price per calendar month, or (for a trace, read after the
/// checks, see `trace::prices`) the base price until the trace replaces it.
pub(super) fn price_curve(
    c: &mut Checker<'_>,
    fields: &PriceFields<'_>,
    at: &str,
    calendar: &Calendar,
) -> PriceCurve {
    let f = |name: &str| format!("{at}.{name}");
    let [base_name, change_name, schedule_name, trace_name] = fields.names;
    let given = [
        fields.change_per_year.is_some(),
        fields.schedule.is_some(),
        fields.trace.is_some(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        c.push(
            &f(change_name),
            format!("{change_name}, {schedule_name} and {trace_name} are three ways to say how {base_name} changes; give one"),
        );
    }
    let months = calendar.months();
    let mut prices = vec![fields.base; months];
    if let Some(change) = fields.change_per_year {
        let change = c.number(
            change,
            &f(change_name),
            CHANGE_PER_YEAR_MIN,
            false,
            CHANGE_PER_YEAR_MAX,
        );
        for (m, price) in prices.iter_mut().enumerate() {
            // Compounded monthly from the start: month m at (1 + r)^(m / 12).
            *price = fields.base * (1.0 + change).powf(m as f64 / 12.0);
        }
    }
    if let Some(schedule) = &fields.schedule {
        let mut last = None;
        for (from, price) in schedule {
            let field = f(schedule_name);
            let price = c.number(*price, &field, 0.0, false, NUMBER_MAX);
            let Some(month) = month_index(c, from, &field, calendar) else {
                continue;
            };
            if last.is_some_and(|l| month <= l) {
                c.push(&field, format!("steps must be in increasing months; \"{from}\" is not after the step before"));
            }
            last = Some(month);
            for p in prices.iter_mut().skip(month.max(0) as usize) {
                *p = price;
            }
        }
    }
    if let Some(trace) = fields.trace
        && trace.trim().is_empty()
    {
        c.push(
            &f(trace_name),
            format!("must name a CSV file of time, {base_name}"),
        );
    }
    PriceCurve::Monthly(prices)
}

/// The month index (from the start month, which is 0; negative before it) of "YYYY-MM".
fn month_index(c: &mut Checker<'_>, text: &str, field: &str, calendar: &Calendar) -> Option<i64> {
    let parsed = text
        .split_once('-')
        .and_then(|(y, m)| Some((y.parse::<i64>().ok()?, m.parse::<i64>().ok()?)))
        .filter(|(y, m)| (1970..=2200).contains(y) && (1..=12).contains(m) && text.len() == 7);
    let Some((year, month)) = parsed else {
        c.push(
            field,
            format!("`from` must be a month \"YYYY-MM\", got \"{text}\""),
        );
        return None;
    };
    let start = calendar.start;
    Some((year - i64::from(start.year())) * 12 + (month - i64::from(start.month())))
}

/// `available_from` and `available_until` of an elastic pool, months from the start.
pub(super) fn window(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    horizon_months: u32,
) -> (u32, Option<u32>) {
    let f = |name: &str| format!("{at}.{name}");
    let from = pool.available_from.unwrap_or(0);
    let until = pool.available_until;
    if let Some(until) = until
        && until <= from
    {
        c.push(
            &f("available_until"),
            format!("must be after available_from ({from}), got {until}"),
        );
    }
    if from >= horizon_months {
        c.warnings.push(format!(
            "pool `{}` is available from month {from}, after the horizon of {horizon_months} month(s): it adds nothing",
            pool.name
        ));
    }
    (from, until)
}

/// When an on-prem pool is sold and what it fetches.
pub(super) fn sale(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    purchase_month: u32,
) -> (Option<u32>, f64) {
    let f = |name: &str| format!("{at}.{name}");
    let resale = pool
        .resale_fraction
        .map(|r| c.fraction(r, &f("resale_fraction")));
    match (pool.available_until, resale) {
        (Some(month), resale) => {
            if month <= purchase_month {
                c.push(
                    &f("available_until"),
                    format!("is the month the nodes are sold: it must be after purchase_month ({purchase_month}), got {month}"),
                );
            }
            (Some(month), resale.unwrap_or(0.0))
        }
        (None, Some(_)) => {
            c.push(
                &f("resale_fraction"),
                "needs available_until, the month the nodes are sold",
            );
            (None, 0.0)
        }
        (None, None) => (None, 0.0),
    }
}

/// How a reservation is paid.
pub(super) fn upfront(c: &mut Checker<'_>, pool: &PoolFile, at: &str) -> Upfront {
    let f = |name: &str| format!("{at}.{name}");
    match (
        pool.upfront.unwrap_or(UpfrontFile::None),
        pool.upfront_share,
    ) {
        (UpfrontFile::Partial, Some(share)) => {
            Upfront::Partial(c.fraction(share, &f("upfront_share")))
        }
        (UpfrontFile::Partial, None) => {
            c.push(
                &f("upfront_share"),
                "is missing: the share of the term's cost paid at its start, e.g. 0.5",
            );
            Upfront::None
        }
        (other, Some(_)) => {
            c.push(
                &f("upfront_share"),
                format!(
                    "applies to upfront = \"partial\" only, here upfront = \"{}\"",
                    upfront_word(other)
                ),
            );
            Upfront::None
        }
        (UpfrontFile::None, None) => Upfront::None,
        (UpfrontFile::All, None) => Upfront::All,
    }
}

fn upfront_word(upfront: UpfrontFile) -> &'static str {
    match upfront {
        UpfrontFile::None => "none",
        UpfrontFile::Partial => "partial",
        UpfrontFile::All => "all",
    }
}

/// A pool's site and its storage and transfer prices; `sites` collects the site names.
pub(super) fn storage(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    sites: &mut Vec<String>,
) -> Storage {
    let f = |name: &str| format!("{at}.{name}");
    let site = pool.site.as_ref().map(|name| {
        if let Some(problem) = crate::names::problem(name, crate::names::NameKind::Path) {
            c.push(&f("site"), problem);
        }
        match sites.iter().position(|s| s == name) {
            Some(index) => index,
            None if sites.len() >= SITES_MAX => {
                c.push(
                    &f("site"),
                    format!("is a site beyond the {SITES_MAX} a scenario may have"),
                );
                SITES_MAX - 1
            }
            None => {
                sites.push(name.clone());
                sites.len() - 1
            }
        }
    });
    let money = |c: &mut Checker<'_>, value: Option<f64>, name: &str| {
        value.map_or(0.0, |v| c.non_negative(v, &f(name)))
    };
    let storage = Storage {
        site,
        storage_per_gb_month: money(c, pool.storage_per_gb_month, "storage_per_gb_month"),
        keep_checkpoints_h: money(c, pool.keep_checkpoints_h, "keep_checkpoints_h"),
        egress_per_gb: money(c, pool.egress_per_gb, "egress_per_gb"),
        ingress_per_gb: money(c, pool.ingress_per_gb, "ingress_per_gb"),
    };
    if site.is_none() && (storage.egress_per_gb > 0.0 || storage.ingress_per_gb > 0.0) {
        c.push(
            &f("egress_per_gb"),
            "prices data moving to or from the pool's site, but the pool names no `site`; add site = \"...\"",
        );
    }
    storage
}

/// A pool's carbon intensity and, for cloud pools, the power estimate it multiplies.
pub(super) fn carbon(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
    on_prem_pue: Option<f64>,
) -> Carbon {
    let f = |name: &str| format!("{at}.{name}");
    let grid = pool.grid_kg_co2_per_kwh.map_or(0.0, |g| {
        c.number(g, &f("grid_kg_co2_per_kwh"), 0.0, false, 5.0)
    });
    let power = pool.power_kw_per_gpu.map_or(0.0, |p| {
        c.number(p, &f("power_kw_per_gpu"), 0.0, false, 100.0)
    });
    let elastic_or_reserved = pool.pool_type != PoolType::OnPrem;
    if elastic_or_reserved && grid > 0.0 && pool.power_kw_per_gpu.is_none() {
        c.push(
            &f("power_kw_per_gpu"),
            "is missing: a cloud pool's CO2 is estimated from the power per paid GPU (its share of the node included), e.g. 1.0 for an H100",
        );
    }
    let pue = match (on_prem_pue, pool.pue) {
        (Some(pue), _) => pue,
        (None, Some(pue)) => c.number(pue, &f("pue"), 1.0, false, 5.0),
        (None, None) => CLOUD_PUE,
    };
    Carbon {
        grid_kg_co2_per_kwh: grid,
        power_kw_per_gpu: power,
        pue,
    }
}

/// `discount_rate_per_year`, 0 unless written.
pub(super) fn discount_rate(c: &mut Checker<'_>, file: &ScenarioFile) -> f64 {
    file.discount_rate_per_year.map_or(0.0, |r| {
        c.number(r, "discount_rate_per_year", -0.5, false, 1.0)
    })
}

/// Schedules as (from, price) pairs.
pub(super) fn gpu_schedule(pool: &PoolFile) -> Option<Vec<(&str, f64)>> {
    pool.price_schedule.as_ref().map(|steps| {
        steps
            .iter()
            .map(|s| (s.from.as_str(), s.price_per_gpu_h))
            .collect()
    })
}

pub(super) fn energy_schedule(pool: &PoolFile) -> Option<Vec<(&str, f64)>> {
    pool.electricity_schedule.as_ref().map(|steps| {
        steps
            .iter()
            .map(|s| (s.from.as_str(), s.electricity_per_kwh))
            .collect()
    })
}

/// Names for messages, by what a price curve prices.
pub(super) const GPU_PRICE: [&str; 4] = [
    "price_per_gpu_h",
    "price_change_per_year",
    "price_schedule",
    "price_trace",
];
pub(super) const ENERGY_PRICE: [&str; 4] = [
    "electricity_per_kwh",
    "electricity_change_per_year",
    "electricity_schedule",
    "electricity_trace",
];
