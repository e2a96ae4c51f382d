//! Statistics over replications: means with Student-t 95 % confidence intervals, percentiles,
//! paired differences with the baseline, monthly curves and break-even months.
//!
//! Everything here is sequential and works on rows in a fixed order (strategy, then
//! replication), so the same rows give the same bytes on any number of threads.

mod money;
mod services;

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::records::metric;
use crate::records::{
    Aggregates, GroupRow, GroupSummaryRow, MonthTotals, MonthlyReplicationRow, MonthlyRow,
    PoolMonth, PoolMonthlyRow, ReplicationRow, SummaryRow, UnitResult,
};
use crate::scenario::Config;

/// Mean, spread and percentiles of one metric over replications (NaN values are left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub std: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
    pub n: u32,
}

impl Estimate {
    pub fn half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }
}

/// The two-sided `level` quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile(level: f64, df: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    t.inverse_cdf(0.5 + level / 2.0)
}

/// Percentile `q` in [0, 1] of sorted values, by linear interpolation (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    sorted[below] + (sorted[above] - sorted[below]) * (position - below as f64)
}

/// Estimate with a `level` confidence interval (0.95 in the output files).
pub fn estimate_at(values: &[f64], level: f64) -> Estimate {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        let nan = f64::NAN;
        return Estimate {
            mean: nan,
            std: nan,
            ci95_low: nan,
            ci95_high: nan,
            p5: nan,
            p50: nan,
            p95: nan,
            n: 0,
        };
    }
    // Sum in sorted order: independent of how the values were produced.
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let (std, half_width) = if n > 1 {
        let variance = sorted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let std = variance.sqrt();
        (
            std,
            t_quantile(level, (n - 1) as f64) * std / (n as f64).sqrt(),
        )
    } else {
        (f64::NAN, f64::NAN)
    };
    Estimate {
        mean,
        std,
        ci95_low: mean - half_width,
        ci95_high: mean + half_width,
        p5: percentile(&sorted, 0.05),
        p50: percentile(&sorted, 0.5),
        p95: percentile(&sorted, 0.95),
        n: n as u32,
    }
}

pub fn estimate(values: &[f64]) -> Estimate {
    estimate_at(values, 0.95)
}

/// The `q` quantile (0..=1) of the finite values of `values`, by linear interpolation as in
/// `summary.csv` (see [`percentile`]); NaN when none is finite.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    percentile(&sorted, q)
}

/// The mean of the finite values of `values`, summed in the order given; NaN when none is
/// finite.
pub fn mean(values: &[f64]) -> f64 {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return f64::NAN;
    }
    finite.iter().sum::<f64>() / finite.len() as f64
}

/// Months until `costs`' cumulative sum stays below `baseline`'s through the end: the 1-based
/// count of months at whose end it first does so for good; NaN if it never does.
pub fn break_even_months(costs: &[f64], baseline: &[f64]) -> f64 {
    let (mut cumulative, mut cumulative_baseline) = (0.0, 0.0);
    let mut below_since = None;
    for (m, (cost, base)) in costs.iter().zip(baseline).enumerate() {
        cumulative += cost;
        cumulative_baseline += base;
        if cumulative < cumulative_baseline {
            below_since.get_or_insert(m);
        } else {
            below_since = None;
        }
    }
    below_since.map_or(f64::NAN, |m| (m + 1) as f64)
}

/// Aggregates units given in (strategy, replication) order.
pub fn summarize(config: &Config, units: &[UnitResult]) -> Aggregates {
    let strategies = config.strategies.len();
    let replications = config.replications as usize;
    assert_eq!(
        units.len(),
        strategies * replications,
        "one unit per strategy and replication"
    );
    let baseline = config.baseline;
    let rows = replication_rows(config, units);
    let summary = summary_rows(config, &rows);
    let (mut monthly, mean_cash) = monthly_rows(config, units);
    let monthly_replications = monthly_replications(config, units);
    let break_even_month = (0..strategies)
        .map(|s| {
            if s == baseline {
                return None;
            }
            let months_to = break_even_months(&mean_cash[s], &mean_cash[baseline]);
            (!months_to.is_nan()).then(|| config.calendar.month_label(months_to as usize - 1))
        })
        .collect();
    let break_even_month_npv = money::fill_npv(config, units, &mut monthly);
    let pools_monthly = pools_monthly(config, units);
    let workload_names: Vec<&str> = config.workloads.iter().map(|w| w.name.as_str()).collect();
    let team_names: Vec<&str> = config.teams.iter().map(String::as_str).collect();
    Aggregates {
        replications: rows,
        summary,
        monthly,
        monthly_replications,
        pools_monthly,
        workloads: group_summary(config, units, &workload_names, |u| &u.workloads),
        teams: group_summary(config, units, &team_names, |u| &u.teams),
        services: services::service_summary(config, units),
        services_monthly: services::service_periods(config, units, false),
        services_hourly: services::service_periods(config, units, true),
        break_even_month,
        break_even_month_npv,
    }
}

/// Each unit's row, with its break-even months against the baseline's unit of the same
/// replication.
fn replication_rows(config: &Config, units: &[UnitResult]) -> Vec<ReplicationRow> {
    let replications = config.replications as usize;
    let unit = |s: usize, r: usize| &units[s * replications + r];
    let cash = |u: &UnitResult| {
        u.months
            .iter()
            .map(MonthTotals::cost_cash)
            .collect::<Vec<f64>>()
    };
    let baseline = config.baseline;
    let mut rows = Vec::with_capacity(units.len());
    for s in 0..config.strategies.len() {
        for r in 0..replications {
            let u = unit(s, r);
            assert_eq!(
                (u.strategy, u.replication as usize),
                (s, r),
                "units in order"
            );
            let mut row = u.row.clone();
            if s != baseline {
                row.break_even_months = break_even_months(&cash(u), &cash(unit(baseline, r)));
                row.break_even_months_npv = break_even_months(
                    &money::discounted(config, &cash(u)),
                    &money::discounted(config, &cash(unit(baseline, r))),
                );
            }
            rows.push(row);
        }
    }
    rows
}

/// Mean, interval and percentiles of every metric of each strategy over its replications, and
/// the paired differences of its costs with the baseline's.
fn summary_rows(config: &Config, rows: &[ReplicationRow]) -> Vec<SummaryRow> {
    let replications = config.replications as usize;
    let baseline = config.baseline;
    let mut summary = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let of = |s: usize| &rows[s * replications..(s + 1) * replications];
        for (metric, value) in ReplicationRow::METRICS {
            let values: Vec<f64> = of(s).iter().map(value).collect();
            summary.push(summary_row(&strategy.name, metric, &estimate(&values)));
        }
        for (metric, value) in [
            (
                metric::TOTAL_COST_VS_BASELINE,
                (|r: &ReplicationRow| r.total_cost) as fn(&ReplicationRow) -> f64,
            ),
            (metric::TOTAL_COST_CASH_VS_BASELINE, |r: &ReplicationRow| {
                r.total_cost_cash
            }),
        ] {
            let paired: Vec<f64> = of(s)
                .iter()
                .zip(of(baseline))
                .map(|(a, b)| value(a) - value(b))
                .collect();
            summary.push(summary_row(&strategy.name, metric, &estimate(&paired)));
        }
    }
    summary
}

/// Every strategy's monthly rows, and its mean cash cost per month (for the break-even month).
fn monthly_rows(config: &Config, units: &[UnitResult]) -> (Vec<MonthlyRow>, Vec<Vec<f64>>) {
    let strategies = config.strategies.len();
    let replications = config.replications as usize;
    let months = config.calendar.months();
    let mut monthly = Vec::with_capacity(strategies * months);
    let mut mean_cash = vec![vec![0.0; months]; strategies];
    for (s, strategy) in config.strategies.iter().enumerate() {
        let mut cumulative = vec![0.0; replications];
        let mut cumulative_cash = vec![0.0; replications];
        for (m, mean_cash_m) in mean_cash[s].iter_mut().enumerate() {
            let totals: Vec<&MonthTotals> = (0..replications)
                .map(|r| &units[s * replications + r].months[m])
                .collect();
            for (r, month) in totals.iter().enumerate() {
                cumulative[r] += month.cost();
                cumulative_cash[r] += month.cost_cash();
            }
            let row = month_row(
                config,
                &strategy.name,
                m,
                &totals,
                &cumulative,
                &cumulative_cash,
            );
            *mean_cash_m = row.cost_cash;
            monthly.push(row);
        }
    }
    (monthly, mean_cash)
}

/// One strategy's row for month `m`, from its replications' totals that month and their
/// cumulative costs up to it.
fn month_row(
    config: &Config,
    strategy: &str,
    m: usize,
    totals: &[&MonthTotals],
    cumulative: &[f64],
    cumulative_cash: &[f64],
) -> MonthlyRow {
    let collect =
        |f: &dyn Fn(&MonthTotals) -> f64| totals.iter().map(|t| f(t)).collect::<Vec<f64>>();
    let cost = collect(&MonthTotals::cost);
    let cost_cash = collect(&MonthTotals::cost_cash);
    let mean = |f: &dyn Fn(&MonthTotals) -> f64| estimate(&collect(f)).mean;
    let line = |f: fn(&MonthTotals) -> f64| estimate(&collect(&f));
    let capital = line(|t| t.cost_capital);
    let capital_cash = line(|t| t.cost_capital_cash);
    let energy = line(|t| t.cost_energy);
    let operations = line(|t| t.cost_operations);
    let reserved = line(|t| t.cost_reserved);
    let on_demand = line(|t| t.cost_on_demand);
    let spot = line(|t| t.cost_spot);
    let reserved_cash = line(|t| t.cost_reserved_cash);
    let storage = line(|t| t.cost_storage);
    let network = line(|t| t.cost_network);
    let (cost, cost_cash) = (estimate(&cost), estimate(&cost_cash));
    let (cum, cum_cash) = (estimate(cumulative), estimate(cumulative_cash));
    let busy = mean(&|t| t.gpu_hours_busy);
    let paid = mean(&|t| t.gpu_hours_paid);
    let waits = collect(&|t| {
        if t.waits > 0 {
            t.wait_sum_h / t.waits as f64
        } else {
            f64::NAN
        }
    });
    MonthlyRow {
        strategy: strategy.to_string(),
        month: config.calendar.month_label(m),
        cost: cost.mean,
        cost_ci95_low: cost.ci95_low,
        cost_ci95_high: cost.ci95_high,
        cost_cash: cost_cash.mean,
        cost_cash_ci95_low: cost_cash.ci95_low,
        cost_cash_ci95_high: cost_cash.ci95_high,
        cumulative_cost: cum.mean,
        cumulative_cost_ci95_low: cum.ci95_low,
        cumulative_cost_ci95_high: cum.ci95_high,
        cumulative_cost_p5: cum.p5,
        cumulative_cost_p95: cum.p95,
        cumulative_cost_cash: cum_cash.mean,
        cumulative_cost_cash_ci95_low: cum_cash.ci95_low,
        cumulative_cost_cash_ci95_high: cum_cash.ci95_high,
        cumulative_cost_cash_p5: cum_cash.p5,
        cumulative_cost_cash_p95: cum_cash.p95,
        gpu_hours_busy: busy,
        gpu_hours_paid: paid,
        utilization: if paid > 0.0 { busy / paid } else { f64::NAN },
        jobs_completed: mean(&|t| t.jobs_completed as f64),
        wait_mean_h: estimate(&waits).mean,
        cost_capital: capital.mean,
        cost_capital_cash: capital_cash.mean,
        cost_energy: energy.mean,
        cost_operations: operations.mean,
        cost_reserved: reserved.mean,
        cost_on_demand: on_demand.mean,
        cost_spot: spot.mean,
        cost_reserved_cash: reserved_cash.mean,
        cost_storage: storage.mean,
        cost_network: network.mean,
        co2_tonnes: mean(&|t| t.co2_kg) / 1000.0,
        // Filled below (`money::fill_npv`).
        cost_cash_npv: f64::NAN,
        cumulative_cost_cash_npv: f64::NAN,
        cumulative_cost_cash_npv_ci95_low: f64::NAN,
        cumulative_cost_cash_npv_ci95_high: f64::NAN,
        cost_p5: cost.p5,
        cost_p50: cost.p50,
        cost_p95: cost.p95,
        cost_cash_p5: cost_cash.p5,
        cost_cash_p50: cost_cash.p50,
        cost_cash_p95: cost_cash.p95,
        cost_capital_ci95_low: capital.ci95_low,
        cost_capital_ci95_high: capital.ci95_high,
        cost_capital_p5: capital.p5,
        cost_capital_p50: capital.p50,
        cost_capital_p95: capital.p95,
        cost_capital_cash_ci95_low: capital_cash.ci95_low,
        cost_capital_cash_ci95_high: capital_cash.ci95_high,
        cost_capital_cash_p5: capital_cash.p5,
        cost_capital_cash_p50: capital_cash.p50,
        cost_capital_cash_p95: capital_cash.p95,
        cost_energy_ci95_low: energy.ci95_low,
        cost_energy_ci95_high: energy.ci95_high,
        cost_energy_p5: energy.p5,
        cost_energy_p50: energy.p50,
        cost_energy_p95: energy.p95,
        cost_operations_ci95_low: operations.ci95_low,
        cost_operations_ci95_high: operations.ci95_high,
        cost_operations_p5: operations.p5,
        cost_operations_p50: operations.p50,
        cost_operations_p95: operations.p95,
        cost_reserved_ci95_low: reserved.ci95_low,
        cost_reserved_ci95_high: reserved.ci95_high,
        cost_reserved_p5: reserved.p5,
        cost_reserved_p50: reserved.p50,
        cost_reserved_p95: reserved.p95,
        cost_on_demand_ci95_low: on_demand.ci95_low,
        cost_on_demand_ci95_high: on_demand.ci95_high,
        cost_on_demand_p5: on_demand.p5,
        cost_on_demand_p50: on_demand.p50,
        cost_on_demand_p95: on_demand.p95,
        cost_spot_ci95_low: spot.ci95_low,
        cost_spot_ci95_high: spot.ci95_high,
        cost_spot_p5: spot.p5,
        cost_spot_p50: spot.p50,
        cost_spot_p95: spot.p95,
        cost_reserved_cash_ci95_low: reserved_cash.ci95_low,
        cost_reserved_cash_ci95_high: reserved_cash.ci95_high,
        cost_reserved_cash_p5: reserved_cash.p5,
        cost_reserved_cash_p50: reserved_cash.p50,
        cost_reserved_cash_p95: reserved_cash.p95,
        cost_storage_ci95_low: storage.ci95_low,
        cost_storage_ci95_high: storage.ci95_high,
        cost_storage_p5: storage.p5,
        cost_storage_p50: storage.p50,
        cost_storage_p95: storage.p95,
        cost_network_ci95_low: network.ci95_low,
        cost_network_ci95_high: network.ci95_high,
        cost_network_p5: network.p5,
        cost_network_p50: network.p50,
        cost_network_p95: network.p95,
    }
}

/// The name of the row of idle capacity's cost in `workloads.csv` and `teams.csv`.
pub const UNALLOCATED: &str = "unallocated";

/// Per strategy and group (workload or team): every metric over replications, then the cost
/// and GPU-hours of idle capacity as the group `unallocated`.
fn group_summary(
    config: &Config,
    units: &[UnitResult],
    names: &[&str],
    groups: fn(&UnitResult) -> &Vec<GroupRow>,
) -> Vec<GroupSummaryRow> {
    let replications = config.replications as usize;
    let mut rows = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let of = &units[s * replications..(s + 1) * replications];
        let mut push = |group: &str, metric: &str, values: Vec<f64>| {
            let e = estimate(&values);
            rows.push(GroupSummaryRow {
                strategy: strategy.name.clone(),
                group: group.to_string(),
                metric: metric.to_string(),
                mean: e.mean,
                std: e.std,
                ci95_low: e.ci95_low,
                ci95_high: e.ci95_high,
                p5: e.p5,
                p50: e.p50,
                p95: e.p95,
                n: e.n,
            });
        };
        for (g, name) in names.iter().enumerate() {
            for (metric, value) in GroupRow::METRICS {
                push(
                    name,
                    metric,
                    of.iter().map(|u| value(&groups(u)[g])).collect(),
                );
            }
        }
        push(
            UNALLOCATED,
            "cost",
            of.iter().map(|u| u.unallocated.cost).collect(),
        );
        push(
            UNALLOCATED,
            "gpu_hours_idle",
            of.iter().map(|u| u.unallocated.gpu_hours_idle).collect(),
        );
    }
    rows
}

/// Per strategy, replication and month: the month's figures as the unit found them.
fn monthly_replications(config: &Config, units: &[UnitResult]) -> Vec<MonthlyReplicationRow> {
    let mut rows = Vec::with_capacity(units.len() * config.calendar.months());
    for unit in units {
        let strategy = &config.strategies[unit.strategy].name;
        let (mut cumulative, mut cumulative_cash) = (0.0, 0.0);
        for (m, t) in unit.months.iter().enumerate() {
            cumulative += t.cost();
            cumulative_cash += t.cost_cash();
            rows.push(MonthlyReplicationRow {
                strategy: strategy.clone(),
                replication: unit.replication,
                month: config.calendar.month_label(m),
                cost: t.cost(),
                cost_cash: t.cost_cash(),
                cumulative_cost: cumulative,
                cumulative_cost_cash: cumulative_cash,
                cost_capital: t.cost_capital,
                cost_capital_cash: t.cost_capital_cash,
                cost_energy: t.cost_energy,
                cost_operations: t.cost_operations,
                cost_reserved: t.cost_reserved,
                cost_on_demand: t.cost_on_demand,
                cost_spot: t.cost_spot,
                cost_reserved_cash: t.cost_reserved_cash,
                cost_storage: t.cost_storage,
                cost_network: t.cost_network,
                cost_cash_npv: t.cost_cash() * config.discount_factor(m),
                co2_tonnes: t.co2_kg / 1000.0,
                gpu_hours_busy: t.gpu_hours_busy,
                gpu_hours_paid: t.gpu_hours_paid,
                utilization: if t.gpu_hours_paid > 0.0 {
                    t.gpu_hours_busy / t.gpu_hours_paid
                } else {
                    f64::NAN
                },
                jobs_completed: t.jobs_completed,
                wait_mean_h: if t.waits > 0 {
                    t.wait_sum_h / t.waits as f64
                } else {
                    f64::NAN
                },
            });
        }
    }
    rows
}

/// Per strategy pool and month: means over replications.
fn pools_monthly(config: &Config, units: &[UnitResult]) -> Vec<PoolMonthlyRow> {
    let replications = config.replications as usize;
    let mut rows = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let of_strategy = &units[s * replications..(s + 1) * replications];
        for (sp, &p) in strategy.pools.iter().enumerate() {
            let pool = &config.pools[p];
            for m in 0..config.calendar.months() {
                let mean = |f: fn(&PoolMonth) -> f64| {
                    of_strategy
                        .iter()
                        .map(|u| f(&u.pool_months[sp][m]))
                        .sum::<f64>()
                        / replications as f64
                };
                let (busy, paid) = (mean(|p| p.gpu_hours_busy), mean(|p| p.gpu_hours_paid));
                let month_h = config.calendar.month_h(m);
                rows.push(PoolMonthlyRow {
                    strategy: strategy.name.clone(),
                    pool: pool.name.clone(),
                    pool_type: pool.type_name().to_string(),
                    month: config.calendar.month_label(m),
                    gpus_busy: busy / month_h,
                    gpus_paid: paid / month_h,
                    gpu_hours_busy: busy,
                    gpu_hours_paid: paid,
                    utilization: if paid > 0.0 { busy / paid } else { f64::NAN },
                    cost: mean(|p| p.cost),
                    cost_cash: mean(|p| p.cost_cash),
                });
            }
        }
    }
    rows
}

fn summary_row(strategy: &str, metric: &str, e: &Estimate) -> SummaryRow {
    SummaryRow {
        strategy: strategy.to_string(),
        metric: metric.to_string(),
        mean: e.mean,
        std: e.std,
        ci95_low: e.ci95_low,
        ci95_high: e.ci95_high,
        p5: e.p5,
        p50: e.p50,
        p95: e.p95,
        n: e.n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95 %: 12.706 (df 1), 2.262 (df 9), 1.984 (df 100).
        assert!((t_quantile(0.95, 1.0) - 12.706).abs() < 1e-3);
        assert!((t_quantile(0.95, 9.0) - 2.262).abs() < 1e-3);
        assert!((t_quantile(0.95, 100.0) - 1.984).abs() < 1e-3);
    }

    #[test]
    fn estimate_by_hand() {
        let e = estimate(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0, f64::NAN]);
        assert_eq!(e.n, 8);
        assert_eq!(e.mean, 5.0);
        // Sample variance 32 / 7.
        assert!((e.std - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        // Half-width t(0.975, 7) s / sqrt(8) = 2.364624251592785 x 0.7559289460184544: the
        // quantile from the regularized incomplete beta function (mpmath, 30 digits; tables
        // give 2.365), s = sqrt(32 / 7).
        let half = 1.787_487_918_236_211;
        assert!((e.ci95_high - 5.0 - half).abs() < 1e-9, "{e:?}");
        assert!((5.0 - e.ci95_low - half).abs() < 1e-9, "{e:?}");
        assert_eq!(e.p50, 4.5);
        // numpy.percentile([2,4,4,4,5,5,7,9], 95) = 8.3
        assert!((e.p95 - 8.3).abs() < 1e-12);
        let one = estimate(&[3.0]);
        assert_eq!((one.mean, one.n), (3.0, 1));
        assert!(one.std.is_nan() && one.ci95_low.is_nan());
        assert_eq!(estimate(&[]).n, 0);
    }

    #[test]
    fn quantile_and_mean_skip_what_is_not_finite() {
        let values = [4.0, f64::NAN, 1.0, f64::INFINITY, 3.0, 2.0];
        // Sorted finite values 1, 2, 3, 4: the median lies halfway between 2 and 3, the 90th
        // percentile at position 0.9 x 3 = 2.7, between 3 and 4.
        assert_eq!(quantile(&values, 0.5), 2.5);
        assert!((quantile(&values, 0.9) - 3.7).abs() < 1e-12);
        assert_eq!(mean(&values), 2.5);
        assert!(quantile(&[f64::NAN], 0.5).is_nan());
        assert!(mean(&[]).is_nan());
    }

    #[test]
    fn break_even_needs_to_stay_below() {
        // Cumulative: 10, 12, 14, 16 against 5, 10, 15, 20: below from month 3 for good.
        assert_eq!(
            break_even_months(&[10.0, 2.0, 2.0, 2.0], &[5.0, 5.0, 5.0, 5.0]),
            3.0
        );
        // Dips below then back above: never for good.
        assert!(break_even_months(&[1.0, 10.0], &[5.0, 5.0]).is_nan());
        assert_eq!(break_even_months(&[1.0, 1.0], &[5.0, 5.0]), 1.0);
        assert!(break_even_months(&[5.0], &[5.0]).is_nan());
    }
}
