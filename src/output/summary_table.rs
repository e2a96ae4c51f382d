//! The table `fleetsim run` prints: one line per strategy, the numbers a planner acts on.

use std::fmt::Write;

use crate::format::thousands;
use crate::records::{Aggregates, SummaryRow};
use crate::scenario::Config;

fn find<'a>(summary: &'a [SummaryRow], strategy: &str, metric: &str) -> Option<&'a SummaryRow> {
    summary
        .iter()
        .find(|r| r.strategy == strategy && r.metric == metric)
}

/// The workload with the longest mean p95 wait under `strategy`, e.g. "training 6.20 h"
/// (">=" when its p95 is a lower bound in some replication).
fn slowest_workload(aggregates: &Aggregates, strategy: &str) -> String {
    let of = |workload: &str, metric: &str| {
        aggregates
            .workloads
            .iter()
            .find(|r| r.strategy == strategy && r.group == workload && r.metric == metric)
            .map_or(f64::NAN, |r| r.mean)
    };
    let mut names: Vec<&str> = aggregates
        .workloads
        .iter()
        .filter(|r| r.strategy == strategy && r.metric == "wait_p95_h" && !r.mean.is_nan())
        .map(|r| r.group.as_str())
        .collect();
    names.sort_by(|a, b| of(b, "wait_p95_h").total_cmp(&of(a, "wait_p95_h")));
    match names.first() {
        Some(name) => format!(
            "{name} {}",
            bounded_hours(
                of(name, "wait_p95_h"),
                of(name, "wait_p95_lower_bound") > 0.0
            )
        ),
        None => "-".into(),
    }
}

fn bounded_hours(value_h: f64, lower_bound: bool) -> String {
    if lower_bound && !value_h.is_nan() {
        format!(">={}", hours(value_h))
    } else {
        hours(value_h)
    }
}

/// The terminal summary of a run.
pub fn summary_table(config: &Config, aggregates: &Aggregates) -> String {
    let summary = &aggregates.summary;
    let baseline = &config.strategies[config.baseline].name;
    let mut header = vec![
        "strategy".to_string(),
        format!("total cost {} (95% CI)", config.currency),
        "vs baseline".to_string(),
        "util".to_string(),
        "p95 wait".to_string(),
        "burst".to_string(),
        "preempt".to_string(),
        "lost GPU-h".to_string(),
        "unfinished".to_string(),
        "break-even".to_string(),
    ];
    // Which workload waits longest, when there are several.
    let by_workload = config.workloads.len() > 1;
    if by_workload {
        header.insert(5, "slowest workload (p95)".to_string());
    }
    let mut rows = Vec::new();
    for (s, strategy) in config.strategies.iter().enumerate() {
        let name = &strategy.name;
        let mean = |metric: &str| find(summary, name, metric).map_or(f64::NAN, |r| r.mean);
        let cost = find(summary, name, "total_cost");
        let cost_text = match cost {
            Some(c) if c.n > 1 => format!(
                "{} ± {}",
                thousands(c.mean, 0),
                thousands((c.ci95_high - c.ci95_low) / 2.0, 0)
            ),
            Some(c) => thousands(c.mean, 0),
            None => "-".into(),
        };
        let versus = if s == config.baseline {
            "baseline".to_string()
        } else {
            let difference = find(summary, name, "total_cost_vs_baseline");
            let base = mean_of(summary, baseline, "total_cost");
            match difference {
                Some(d) => {
                    let sign = if d.mean > 0.0 { "+" } else { "" };
                    let share = if base != 0.0 {
                        format!(" ({sign}{:.1}%)", 100.0 * d.mean / base)
                    } else {
                        String::new()
                    };
                    let significant = if d.n > 1 && (d.ci95_low > 0.0 || d.ci95_high < 0.0) {
                        ""
                    } else {
                        " ~"
                    };
                    format!("{sign}{}{share}{significant}", thousands(d.mean, 0))
                }
                None => "-".into(),
            }
        };
        let arrived = mean("jobs_arrived");
        let burst_share = if arrived > 0.0 {
            format!("{:.0}%", 100.0 * mean("burst_jobs") / arrived)
        } else {
            "-".into()
        };
        let unfinished = if arrived > 0.0 {
            format!("{:.1}%", 100.0 * mean("jobs_unfinished") / arrived)
        } else {
            "-".into()
        };
        let break_even = if s == config.baseline {
            "-".to_string()
        } else {
            aggregates.break_even_month[s]
                .clone()
                .unwrap_or_else(|| "never".into())
        };
        // A p95 that a job never started reaches is only a lower bound of the real one.
        let lower_bound = aggregates
            .replications
            .iter()
            .filter(|r| r.strategy == *name)
            .any(|r| r.wait_p95_lower_bound > 0.0);
        let mut row = vec![
            name.clone(),
            cost_text,
            versus,
            percent(mean("utilization")),
            bounded_hours(mean("wait_p95_h"), lower_bound),
            burst_share,
            thousands(mean("preemptions"), 0),
            thousands(mean("lost_gpu_hours"), 0),
            unfinished,
            break_even,
        ];
        if by_workload {
            row.insert(5, slowest_workload(aggregates, name));
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let replications = config.replications;
    let _ = writeln!(
        out,
        "{}: {} strategies x {} replication{} over {} months from {} (costs in {}, amortised view)",
        config.name,
        config.strategies.len(),
        replications,
        if replications == 1 { "" } else { "s" },
        config.horizon_months,
        config.calendar.month_label(0),
        config.currency,
    );
    out.push('\n');
    for (c, cell) in header.iter_mut().enumerate() {
        *cell = pad(cell, widths[c], c == 0);
    }
    let _ = writeln!(out, "{}", header.join("  ").trim_end());
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| pad(cell, widths[c], c == 0))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "util = busy / paid GPU-hours; p95 wait = time to first start, mean over replications; burst = jobs that ran on\n\
         on-demand or spot; break-even = first month from which the cumulative cash cost stays below the baseline's;\n\
         ~ = difference not significant at 95%."
    );
    // Jobs never started count with their waits up to the horizon: say how many, and that the
    // wait figures they reach are lower bounds.
    for strategy in &config.strategies {
        let arrived = mean_of(summary, &strategy.name, "jobs_arrived");
        let share = mean_of(summary, &strategy.name, "jobs_unfinished") / arrived;
        let unstarted = mean_of(summary, &strategy.name, "jobs_unstarted") / arrived;
        let bounded = mean_of(summary, &strategy.name, "wait_p95_lower_bound") > 0.0;
        if share > 0.01 || bounded {
            let _ = writeln!(
                out,
                "note: {:.1}% of the jobs of `{}` are still queued or running at the horizon, {:.1}% never \
                 started; waits of jobs never started count up to the horizon, so waits marked >= are lower bounds",
                100.0 * share,
                strategy.name,
                100.0 * unstarted,
            );
        }
    }
    if replications < 10 {
        let _ = writeln!(
            out,
            "note: {replications} replication(s) give wide intervals; try --replications 30"
        );
    }
    out
}

fn mean_of(summary: &[SummaryRow], strategy: &str, metric: &str) -> f64 {
    find(summary, strategy, metric).map_or(f64::NAN, |r| r.mean)
}

fn percent(value: f64) -> String {
    if value.is_finite() {
        format!("{:.0}%", 100.0 * value)
    } else {
        "-".into()
    }
}

fn hours(value: f64) -> String {
    if !value.is_finite() {
        "-".into()
    } else if value < 10.0 {
        format!("{value:.2} h")
    } else {
        format!("{} h", thousands(value, 0))
    }
}

fn pad(text: &str, width: usize, left: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(text.chars().count()));
    if left {
        format!("{text}{fill}")
    } else {
        format!("{fill}{text}")
    }
}
