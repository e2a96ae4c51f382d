//! Statistics of inference services: `services.csv` (every metric of
//! [`ServiceRow`] per strategy and service, over replications) and the mean GPUs demanded,
//! served and allocated per month and per hour of the day.

use super::estimate;
use crate::records::{GroupSummaryRow, ServicePeriod, ServicePeriodRow, ServiceRow, UnitResult};
use crate::scenario::Config;

/// Per strategy, service and metric, over replications.
pub fn service_summary(config: &Config, units: &[UnitResult]) -> Vec<GroupSummaryRow> {
    let replications = config.replications as usize;
    let mut rows = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let of = &units[s * replications..(s + 1) * replications];
        for (i, service) in config.services.iter().enumerate() {
            for (metric, value) in ServiceRow::METRICS {
                let values: Vec<f64> = of.iter().map(|u| value(&u.services[i])).collect();
                let e = estimate(&values);
                rows.push(GroupSummaryRow {
                    strategy: strategy.name.clone(),
                    group: service.name.clone(),
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
            }
        }
    }
    rows
}

/// Mean GPUs per month (`by_hour` false) or per hour of the day (true), mean over
/// replications.
pub fn service_periods(
    config: &Config,
    units: &[UnitResult],
    by_hour: bool,
) -> Vec<ServicePeriodRow> {
    let replications = config.replications as usize;
    let mut rows = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let of = &units[s * replications..(s + 1) * replications];
        for (i, service) in config.services.iter().enumerate() {
            let periods = if by_hour {
                24
            } else {
                config.calendar.months()
            };
            for p in 0..periods {
                let period = |u: &UnitResult| -> ServicePeriod {
                    if by_hour {
                        u.service_hours[i][p]
                    } else {
                        u.service_months[i][p]
                    }
                };
                let mean_gpus = |f: fn(&ServicePeriod) -> f64| {
                    of.iter()
                        .map(|u| {
                            let period = period(u);
                            if period.hours > 0.0 {
                                f(&period) / period.hours
                            } else {
                                f64::NAN
                            }
                        })
                        .sum::<f64>()
                        / replications as f64
                };
                rows.push(ServicePeriodRow {
                    strategy: strategy.name.clone(),
                    service: service.name.clone(),
                    period: if by_hour {
                        format!("{p:02}")
                    } else {
                        config.calendar.month_label(p)
                    },
                    gpus_demanded: mean_gpus(|p| p.gpu_hours_demanded),
                    gpus_served: mean_gpus(|p| p.gpu_hours_served),
                    gpus_allocated: mean_gpus(|p| p.gpu_hours_allocated),
                });
            }
        }
    }
    rows
}
