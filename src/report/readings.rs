//! One line per chart saying what it shows for this run, computed from the same files the
//! chart is drawn from: "hybrid-dgx-spot costs 52 % less than cloud-on-demand (−4.91 M EUR,
//! paired 95 % CI ...)".

use super::super::charts::{BreakEven, Chart, Results, Standing, percent};
use crate::format::{money, money_difference, thousands};
use crate::records::metric;

/// The reading of `chart` for `results`.
pub fn reading(chart: Chart, results: &Results) -> String {
    match chart {
        Chart::CumulativeCost => cumulative(results),
        Chart::MonthlyCost => monthly(results),
        Chart::CostDistribution => distribution(results),
        Chart::CostVsWait => cost_vs_wait(results),
        Chart::PoolGpus => pool_gpus(results),
        Chart::PoolUtilization => utilization(results),
        Chart::WaitByWorkload => wait_by_workload(results),
        Chart::ServiceDemand => services(results),
    }
}

fn mean(results: &Results, strategy: &str, metric: &str) -> f64 {
    results
        .summary_of(strategy, metric)
        .map_or(f64::NAN, |r| r.mean)
}

/// The strategy with the least of `metric` (the first of equals), if any has it.
fn least<'a>(results: &'a Results, metric: &str) -> Option<&'a str> {
    results
        .strategies
        .iter()
        .filter(|s| mean(results, s, metric).is_finite())
        .min_by(|a, b| mean(results, a, metric).total_cmp(&mean(results, b, metric)))
        .map(String::as_str)
}

/// "52 % less than cloud-on-demand (−4.91 M EUR, paired 95 % CI −4.93 to −4.88 M)", or that
/// the difference is not significant.
pub fn versus_baseline(results: &Results, strategy: &str, metric: &str) -> String {
    let baseline = &results.meta.baseline;
    let total = metric.trim_end_matches("_vs_baseline");
    let Some(d) = results.summary_of(strategy, metric) else {
        return format!("no paired difference with {baseline}");
    };
    let base = mean(results, baseline, total);
    let difference = money_difference(d.mean, d.ci95_low, d.ci95_high, &results.meta.currency);
    let share = if base > 0.0 {
        let percent = (100.0 * d.mean / base).abs();
        let word = if d.mean < 0.0 { "less" } else { "more" };
        format!("{percent:.0} % {word} than {baseline}")
    } else {
        format!("a difference with {baseline}")
    };
    let significant = d.n > 1 && (d.ci95_low > 0.0 || d.ci95_high < 0.0);
    if significant {
        format!("{share}: {difference}, paired over the same jobs")
    } else {
        format!("{share}, but not significantly: {difference}, paired over the same jobs")
    }
}

/// The paired difference for a table cell: "−4.91 M EUR (95 % CI −4.93 to −4.88 M), −52 %",
/// "~" after it when not significant.
pub fn difference_cell(results: &Results, strategy: &str) -> String {
    let Some(d) = results.summary_of(strategy, metric::TOTAL_COST_VS_BASELINE) else {
        return "-".into();
    };
    let mut cell = money_difference(d.mean, d.ci95_low, d.ci95_high, &results.meta.currency);
    let base = mean(results, &results.meta.baseline, metric::TOTAL_COST);
    if base > 0.0 && d.mean.is_finite() {
        let sign = if d.mean < 0.0 { "\u{2212}" } else { "+" };
        cell.push_str(&format!(", {sign}{:.0} %", (100.0 * d.mean / base).abs()));
    }
    if !(d.n > 1 && (d.ci95_low > 0.0 || d.ci95_high < 0.0)) {
        cell.push_str(" ~");
    }
    cell
}

fn cumulative(results: &Results) -> String {
    let Some(cheapest) = least(results, metric::TOTAL_COST) else {
        return "No total cost in summary.csv.".into();
    };
    let horizon = results.months.len();
    let cost = money(
        mean(results, cheapest, metric::TOTAL_COST),
        &results.meta.currency,
    );
    if *cheapest == results.meta.baseline {
        return format!(
            "Over {horizon} months the baseline, {cheapest}, costs least: {cost} (amortised)."
        );
    }
    let break_even = match results.break_even_month(cheapest) {
        Some(month) => format!(
            "; its cumulative cash cost stays below {}'s from {month} on",
            results.meta.baseline
        ),
        None => format!(
            "; in cash it never stays below {}'s within the horizon",
            results.meta.baseline
        ),
    };
    format!(
        "Over {horizon} months {cheapest} costs least: {cost} (amortised), {}{break_even}.",
        versus_baseline(results, cheapest, metric::TOTAL_COST_VS_BASELINE)
    )
}

/// Cost lines of `monthly.csv`, with the names the chart's legend gives them.
const LINES: [&str; 8] = [
    "capital",
    "energy",
    "operations",
    "reserved",
    "on-demand",
    "spot",
    "storage",
    "network",
];

fn monthly(results: &Results) -> String {
    let Some(last) = results.months.last() else {
        return "No months in monthly.csv.".into();
    };
    let parts: Vec<String> = results
        .strategies
        .iter()
        .filter_map(|strategy| {
            let row = results
                .monthly
                .iter()
                .find(|r| r.strategy == *strategy && r.month == *last)?;
            let lines = [
                row.cost_capital,
                row.cost_energy,
                row.cost_operations,
                row.cost_reserved,
                row.cost_on_demand,
                row.cost_spot,
                row.cost_storage,
                row.cost_network,
            ];
            let (largest, amount) = LINES
                .iter()
                .zip(lines)
                .filter(|(_, v)| v.is_finite())
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let share = if row.cost > 0.0 {
                format!(", {:.0} % of it {largest}", 100.0 * amount / row.cost)
            } else {
                String::new()
            };
            Some(format!(
                "{strategy} {}{share}",
                money(row.cost, &results.meta.currency)
            ))
        })
        .collect();
    format!(
        "In the last month, {last} (amortised): {}.",
        parts.join("; ")
    )
}

fn distribution(results: &Results) -> String {
    let baseline = &results.meta.baseline;
    let best = results
        .strategies
        .iter()
        .filter(|s| *s != baseline)
        .filter_map(|s| {
            Some((
                s,
                results.summary_of(s, metric::TOTAL_COST_VS_BASELINE)?.mean,
            ))
        })
        .filter(|(_, d)| d.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let Some((strategy, _)) = best else {
        return format!("Only the baseline, {baseline}: nothing to compare it with.");
    };
    let spread = |s: &str| {
        results
            .summary_of(s, metric::TOTAL_COST)
            .map_or(String::new(), |r| {
                format!(
                    "{} to {}",
                    money(r.p5, &results.meta.currency),
                    money(r.p95, &results.meta.currency)
                )
            })
    };
    format!(
        "{strategy} costs {}; across the replications (5th to 95th percentile) it spans {}, {baseline} {}.",
        versus_baseline(results, strategy, metric::TOTAL_COST_VS_BASELINE),
        spread(strategy),
        spread(baseline)
    )
}

fn cost_vs_wait(results: &Results) -> String {
    let (Some(cheapest), Some(quickest)) = (
        least(results, metric::TOTAL_COST),
        least(results, metric::WAIT_P95_H),
    ) else {
        return "No cost or wait in summary.csv.".into();
    };
    let point = |s: &str| {
        format!(
            "{}, p95 wait {} h",
            money(mean(results, s, metric::TOTAL_COST), &results.meta.currency),
            thousands(mean(results, s, metric::WAIT_P95_H), 2)
        )
    };
    if cheapest == quickest {
        format!(
            "{cheapest} is both the cheapest and the quickest ({}).",
            point(cheapest)
        )
    } else {
        format!(
            "Cheapest: {cheapest} ({}); quickest: {quickest} ({}).",
            point(cheapest),
            point(quickest)
        )
    }
}

fn pool_gpus(results: &Results) -> String {
    let peak = results
        .pools_monthly
        .iter()
        .filter(|r| r.gpus_paid.is_finite())
        .max_by(|a, b| a.gpus_paid.total_cmp(&b.gpus_paid));
    match peak {
        Some(row) => format!(
            "The most GPUs paid for in a month (mean over the replications): {} in pool {} under {}, in {}, of which {} busy.",
            thousands(row.gpus_paid, 0),
            row.pool,
            row.strategy,
            row.month,
            thousands(row.gpus_busy, 0)
        ),
        None => "No pool paid for GPUs.".into(),
    }
}

fn utilization(results: &Results) -> String {
    if results.meta.break_evens.is_none() {
        return "This folder's run.json (from an older fleetsim) gives no break-even utilisation; run the scenario again for it.".into();
    }
    let break_evens = results.break_evens();
    let mut parts = Vec::new();
    for strategy in &results.strategies {
        for pool in results.pools_of(strategy) {
            let Some(break_even) = break_evens
                .iter()
                .find(|b| b.pool == pool && !b.by_month.is_empty())
            else {
                continue;
            };
            let rows: Vec<f64> = results
                .pools
                .iter()
                .filter(|r| r.strategy == *strategy && r.pool == pool)
                .map(|r| r.utilization)
                .filter(|u| u.is_finite())
                .collect();
            if rows.is_empty() {
                continue;
            }
            let busy = crate::stats::mean(&rows);
            let verdict = verdict(break_even, busy, &results.months);
            parts.push(format!(
                "{pool} is {:.0} % busy under {strategy}, {verdict}",
                100.0 * busy
            ));
        }
    }
    if parts.is_empty() {
        "No owned or reserved pool with an on-demand price to break even against.".into()
    } else {
        format!("{}.", parts.join("; "))
    }
}

/// How a pool `busy` (busy / paid GPU-hours over the horizon) stands against its break-even:
/// one value when no price moves it, else the range and the months the judgement holds in
/// (counted from 1, with their calendar month from `months`, YYYY-MM).
fn verdict(break_even: &BreakEven, busy: f64, months: &[String]) -> String {
    let calendar = |k: usize| months.get(k.wrapping_sub(1));
    // "month 27 (2029-03)" in a sentence, "month 27, 2029-03" inside parentheses.
    let month = |k: usize| match calendar(k) {
        Some(yyyy_mm) => format!("month {k} ({yyyy_mm})"),
        None => format!("month {k}"),
    };
    let month_in = |k: usize| match calendar(k) {
        Some(yyyy_mm) => format!("month {k}, {yyyy_mm}"),
        None => format!("month {k}"),
    };
    if let Some(u) = break_even.single() {
        return if u > 1.0 {
            "it never pays off against on-demand".to_string()
        } else if busy >= u {
            format!("above its break-even of {:.0} %", 100.0 * u)
        } else {
            format!("below its break-even of {:.0} %", 100.0 * u)
        };
    }
    let Some(range) = break_even.range() else {
        return String::new();
    };
    let why = if break_even.moving_prices.is_empty() {
        String::new()
    } else {
        format!(" as {}", break_even.moving_prices.join(" and "))
    };
    let first = break_even.first_month_idx + 1;
    let last = break_even.first_month_idx + break_even.by_month.len();
    let whole = if break_even.covers(months.len()) {
        "for the whole horizon".to_string()
    } else {
        format!("in every month it is paid for (months {first} to {last})")
    };
    let judgement = match break_even.standing(busy) {
        _ if break_even.never_pays_off() => "it never pays off against on-demand".to_string(),
        Some(Standing::AboveThroughout) => format!("above it {whole}"),
        Some(Standing::BelowThroughout) | None => format!("below it {whole}"),
        Some(Standing::AboveUntil(k)) => format!("above it only until {}", month(k)),
        Some(Standing::AboveFrom(k)) => format!("above it only from {}", month(k)),
        Some(Standing::AboveIn(n)) => format!("above it in {n} of months {first} to {last}",),
    };
    format!(
        "against a break-even between {} ({}) and {} ({}){why}: {judgement}",
        percent(range.low),
        month_in(range.low_month),
        percent(range.high),
        month_in(range.high_month)
    )
}

fn wait_by_workload(results: &Results) -> String {
    let mut worst: Option<(String, String, f64)> = None;
    for strategy in &results.strategies {
        for workload in results.workload_names() {
            let Some(row) = results.workload_of(strategy, &workload, metric::WAIT_P95_H) else {
                continue;
            };
            if row.mean.is_finite() && worst.as_ref().is_none_or(|w| row.mean > w.2) {
                worst = Some((strategy.clone(), workload, row.mean));
            }
        }
    }
    match worst {
        Some((strategy, workload, wait)) => {
            let bound = results
                .workload_of(&strategy, &workload, metric::WAIT_P95_LOWER_BOUND)
                .is_some_and(|r| r.mean > 0.0);
            format!(
                "The longest p95 wait is workload {workload} under {strategy}: {}{} h.",
                if bound { "at least " } else { "" },
                thousands(wait, 2)
            )
        }
        None => "No waits in workloads.csv.".into(),
    }
}

fn services(results: &Results) -> String {
    let mut parts = Vec::new();
    for strategy in &results.strategies {
        let rows: Vec<_> = results
            .services_monthly
            .iter()
            .filter(|r| r.strategy == *strategy)
            .collect();
        let demanded: f64 = rows.iter().map(|r| r.gpus_demanded).sum();
        let served: f64 = rows.iter().map(|r| r.gpus_served).sum();
        if demanded > 0.0 {
            parts.push(format!(
                "{strategy} serves {:.1} %",
                100.0 * (served / demanded).min(1.0)
            ));
        }
    }
    if parts.is_empty() {
        "No service demand.".into()
    } else {
        format!(
            "Of the services' demand (mean GPUs over the months): {}.",
            parts.join(", ")
        )
    }
}
