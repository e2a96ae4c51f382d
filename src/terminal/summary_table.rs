//! The table `fleetsim run` prints: one line per strategy, the numbers a planner acts on, and
//! notes under it for what the means would hide (unfinished and starving work).

use std::fmt::Write;

use crate::format::thousands;
use crate::records::metric;
use crate::records::{Aggregates, GroupSummaryRow, SummaryRow};
use crate::scenario::Config;

fn find<'a>(summary: &'a [SummaryRow], strategy: &str, metric: &str) -> Option<&'a SummaryRow> {
    summary
        .iter()
        .find(|r| r.strategy == strategy && r.metric == metric)
}

fn mean_of(summary: &[SummaryRow], strategy: &str, metric: &str) -> f64 {
    find(summary, strategy, metric).map_or(f64::NAN, |r| r.mean)
}

/// Jobs that wait far longer than the p95 says, so that a percentile would hide them: some
/// job never started and the longest wait is both over a day and over ten times the p95 wait
/// (a few starving wide gangs among many small jobs), means over replications.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Starving {
    pub jobs_unstarted: f64,
    pub wait_max_h: f64,
    pub wait_p95_h: f64,
}

/// Whether `strategy`'s waits hide starving jobs (see [`Starving`]), from `summary.csv` rows.
pub fn starving(summary: &[SummaryRow], strategy: &str) -> Option<Starving> {
    let found = Starving {
        jobs_unstarted: mean_of(summary, strategy, metric::JOBS_UNSTARTED),
        wait_max_h: mean_of(summary, strategy, metric::WAIT_MAX_H),
        wait_p95_h: mean_of(summary, strategy, metric::WAIT_P95_H),
    };
    let long_h = (10.0 * found.wait_p95_h).max(24.0);
    (found.jobs_unstarted > 0.0 && found.wait_max_h > long_h).then_some(found)
}

/// The workload with the longest mean p95 wait under `strategy`, e.g. "training 6.20 h"
/// (">=" when its p95 is a lower bound in some replication).
fn slowest_workload(aggregates: &Aggregates, strategy: &str) -> String {
    let of = |workload: &str, metric: &str| {
        group_mean(&aggregates.workloads, strategy, workload, metric)
    };
    let mut names: Vec<&str> = aggregates
        .workloads
        .iter()
        .filter(|r| r.strategy == strategy && r.metric == metric::WAIT_P95_H && !r.mean.is_nan())
        .map(|r| r.group.as_str())
        .collect();
    names.sort_by(|a, b| of(b, metric::WAIT_P95_H).total_cmp(&of(a, metric::WAIT_P95_H)));
    match names.first() {
        Some(name) => format!(
            "{name} {}",
            bounded_hours(
                of(name, metric::WAIT_P95_H),
                of(name, metric::WAIT_P95_LOWER_BOUND) > 0.0
            )
        ),
        None => "-".into(),
    }
}

/// The share of service demand (GPU-hours) left unserved under `strategy`, of one service or
/// of all; NaN without demand.
fn unserved_share(rows: &[GroupSummaryRow], strategy: &str, service: Option<&str>) -> f64 {
    let sum = |metric: &str| -> f64 {
        rows.iter()
            .filter(|r| r.strategy == strategy && r.metric == metric)
            .filter(|r| service.is_none_or(|s| r.group == s))
            .map(|r| r.mean)
            .sum()
    };
    let demanded = sum(metric::GPU_HOURS_DEMANDED);
    if demanded > 0.0 {
        sum(metric::GPU_HOURS_UNSERVED) / demanded
    } else {
        f64::NAN
    }
}

/// A share with one decimal below 10 % ("0.3%"), whole percents above.
fn percent_fine(value: f64) -> String {
    match value {
        v if !v.is_finite() => "-".into(),
        v if v < 0.1 => format!("{:.1}%", 100.0 * v),
        v => format!("{:.0}%", 100.0 * v),
    }
}

fn group_mean(rows: &[GroupSummaryRow], strategy: &str, group: &str, metric: &str) -> f64 {
    rows.iter()
        .find(|r| r.strategy == strategy && r.group == group && r.metric == metric)
        .map_or(f64::NAN, |r| r.mean)
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
    let mut header: Vec<String> = [
        "strategy",
        &format!("total cost {} (95% CI)", config.currency),
        "vs baseline",
        "util",
        "p95 wait",
        "burst",
        "preempt",
        "lost GPU-h",
        "unfinished",
        "never started",
        "break-even",
    ]
    .map(String::from)
    .to_vec();
    // Which workload waits longest, when there are several.
    let by_workload = config.workloads.len() > 1;
    if by_workload {
        header.insert(5, "slowest workload (p95)".to_string());
    }
    let services = !config.services.is_empty();
    if services {
        header.insert(header.len() - 1, "unserved".to_string());
    }
    // Jobs late for their deadline, when some workload has one: the cheapest strategy may be
    // the one that misses them.
    let deadlines = config.workloads.iter().any(|w| w.deadline_h.is_some());
    if deadlines {
        header.insert(header.len() - 1, "late".to_string());
    }
    // Jobs that could never be on time are shown apart, so that `late` is what a strategy
    // could have avoided.
    let infeasible_of = |s: usize| {
        let name = &config.strategies[s].name;
        mean_of(&aggregates.summary, name, metric::DEADLINE_INFEASIBLE)
    };
    let infeasible = deadlines && (0..config.strategies.len()).any(|s| infeasible_of(s) > 0.0);
    if infeasible {
        header.insert(header.len() - 1, "infeasible".to_string());
    }
    // With a cost of money: the discounted cash view and its break-even month.
    let discounted = config.discount_rate_per_year != 0.0;
    if discounted {
        header.push(format!("NPV {} (cash)", config.currency));
        header.push("break-even NPV".to_string());
    }
    let rows: Vec<Vec<String>> = (0..config.strategies.len())
        .map(|s| {
            let name = &config.strategies[s].name;
            let mut row = strategy_row(config, aggregates, s);
            if by_workload {
                row.insert(5, slowest_workload(aggregates, name));
            }
            if services {
                let share = unserved_share(&aggregates.services, name, None);
                row.insert(row.len() - 1, percent_fine(share));
            }
            if deadlines {
                let late = mean_of(&aggregates.summary, name, metric::DEADLINE_MISSES);
                row.insert(row.len() - 1, thousands(late, usize::from(late < 10.0)));
            }
            if infeasible {
                let count = infeasible_of(s);
                row.insert(row.len() - 1, thousands(count, usize::from(count < 10.0)));
            }
            if discounted {
                row.push(thousands(
                    mean_of(&aggregates.summary, name, metric::TOTAL_COST_NPV),
                    0,
                ));
                row.push(if s == config.baseline {
                    "-".to_string()
                } else {
                    aggregates.break_even_month_npv[s]
                        .clone()
                        .unwrap_or_else(|| "never".into())
                });
            }
            row
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
    out += &aligned(&header, &rows);
    out.push('\n');
    let _ = writeln!(
        out,
        "util = busy / paid GPU-hours; p95 wait = time to first start, mean over replications; burst = jobs that ran on\n\
         on-demand or spot; never started = jobs per replication still waiting at the horizon; break-even = first month\n\
         from which the cumulative cash cost stays below the baseline's; ~ = difference not significant at 95%."
    );
    if services {
        let _ = writeln!(
            out,
            "unserved = share of the services' demand (GPU-hours) above what their replicas served."
        );
    }
    if deadlines {
        let _ = writeln!(
            out,
            "late = jobs per replication that finished after their workload's deadline_h, or were still unfinished past it,\n\
             though their work fits in it on the fastest pool they may use."
        );
    }
    if infeasible {
        let _ = writeln!(
            out,
            "infeasible = jobs per replication past their deadline whose work alone outlasts deadline_h on every pool they may\n\
             use: this strategy's pools could not have run them on time (deadline_infeasible in summary.csv)."
        );
    }
    if discounted {
        let _ = writeln!(
            out,
            "NPV = cash-view cost discounted to the start at {:.1} % a year; break-even NPV = the same crossing on the discounted curves.",
            100.0 * config.discount_rate_per_year
        );
    }
    out += &notes(config, aggregates);
    out
}

/// One strategy's cells, in the order of the header (without the slowest workload).
fn strategy_row(config: &Config, aggregates: &Aggregates, s: usize) -> Vec<String> {
    let summary = &aggregates.summary;
    let name = &config.strategies[s].name;
    let mean = |metric: &str| mean_of(summary, name, metric);
    let cost_text = match find(summary, name, metric::TOTAL_COST) {
        Some(c) if c.n > 1 => format!(
            "{} ± {}",
            thousands(c.mean, 0),
            thousands((c.ci95_high - c.ci95_low) / 2.0, 0)
        ),
        Some(c) => thousands(c.mean, 0),
        None => "-".into(),
    };
    let arrived = mean(metric::JOBS_ARRIVED);
    let share = |metric: &str, decimals: usize| {
        if arrived > 0.0 {
            format!("{:.*}%", decimals, 100.0 * mean(metric) / arrived)
        } else {
            "-".into()
        }
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
    vec![
        name.clone(),
        cost_text,
        versus_baseline(config, summary, s),
        percent(mean(metric::UTILIZATION)),
        bounded_hours(mean(metric::WAIT_P95_H), lower_bound),
        share(metric::BURST_JOBS, 0),
        thousands(mean(metric::PREEMPTIONS), 0),
        thousands(mean(metric::LOST_GPU_HOURS), 0),
        share(metric::JOBS_UNFINISHED, 1),
        job_count(mean(metric::JOBS_UNSTARTED)),
        break_even,
    ]
}

/// The paired difference with the baseline, e.g. "-964,022 (-10.3%)", "~" when not significant.
fn versus_baseline(config: &Config, summary: &[SummaryRow], s: usize) -> String {
    if s == config.baseline {
        return "baseline".to_string();
    }
    let name = &config.strategies[s].name;
    let base = mean_of(
        summary,
        &config.strategies[config.baseline].name,
        metric::TOTAL_COST,
    );
    let Some(d) = find(summary, name, metric::TOTAL_COST_VS_BASELINE) else {
        return "-".into();
    };
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

/// What the notes under the summary are worked out from: names and rows, so that the notes of
/// a result folder (`report.html`) are those the terminal showed.
pub struct NoteInput<'a> {
    pub strategies: Vec<&'a str>,
    pub workloads: Vec<&'a str>,
    pub services: Vec<&'a str>,
    pub replications: u32,
    pub summary: &'a [SummaryRow],
    pub workload_rows: &'a [GroupSummaryRow],
    pub service_rows: &'a [GroupSummaryRow],
}

/// The notes under the table, without their "note: ": unfinished work and lower-bound waits,
/// starving jobs, unserved demand, too few replications.
pub fn notes_of(input: &NoteInput<'_>) -> Vec<String> {
    let summary = input.summary;
    let mut out = Vec::new();
    // Infeasible jobs are the same under every strategy whose pools are equally fast: then
    // one note says so for all.
    let infeasible: Vec<f64> = (input.strategies.iter())
        .map(|name| mean_of(summary, name, metric::DEADLINE_INFEASIBLE))
        .collect();
    let same_infeasible = infeasible.len() > 1 && infeasible.iter().all(|n| *n == infeasible[0]);
    if same_infeasible && infeasible[0] > 0.0 {
        out.push(format!(
            "under every strategy {} job(s) per replication{} need longer than their deadline_h \
             on every pool they may use and cannot be on time (deadline_infeasible)",
            job_count(infeasible[0]),
            most_of(input, input.strategies[0], metric::DEADLINE_INFEASIBLE),
        ));
    }
    for &name in &input.strategies {
        let arrived = mean_of(summary, name, metric::JOBS_ARRIVED);
        let share = mean_of(summary, name, metric::JOBS_UNFINISHED) / arrived;
        let unstarted = mean_of(summary, name, metric::JOBS_UNSTARTED) / arrived;
        let bounded = mean_of(summary, name, metric::WAIT_P95_LOWER_BOUND) > 0.0;
        // Jobs never started count with their waits up to the horizon: say how many, and that
        // the wait figures they reach are lower bounds.
        if share > 0.01 || bounded {
            out.push(format!(
                "{:.1}% of the jobs of `{name}` are still queued or running at the horizon, {:.1}% never \
                 started; waits of jobs never started count up to the horizon, so waits marked >= are lower bounds",
                100.0 * share,
                100.0 * unstarted,
            ));
        }
        if let Some(note) = deadline_note(input, name, !same_infeasible) {
            out.push(note);
        }
        if let Some(found) = starving(summary, name) {
            out.push(format!(
                "under `{name}` {} job(s) per replication never started and the longest wait is {} against a \
                 p95 of {}: a few jobs starve{} (jobs_unstarted and wait_max_h in workloads.csv)",
                job_count(found.jobs_unstarted),
                hours(found.wait_max_h),
                hours(found.wait_p95_h),
                most_unstarted(input, name),
            ));
        }
    }
    for &name in &input.strategies {
        for &service_name in &input.services {
            let share = unserved_share(input.service_rows, name, Some(service_name));
            if share > 0.01 {
                let met = group_mean(input.service_rows, name, service_name, metric::MET_SHARE);
                out.push(format!(
                    "under `{name}` service `{service_name}` leaves {} of its demand unserved (fully met in {} of the hours); see services.csv",
                    percent_fine(share),
                    percent(met),
                ));
            }
        }
    }
    let replications = input.replications;
    if replications < 10 {
        out.push(format!(
            "{replications} replication(s) give wide intervals; try --replications 30"
        ));
    }
    out
}

fn notes(config: &Config, aggregates: &Aggregates) -> String {
    let input = NoteInput {
        strategies: config.strategies.iter().map(|s| s.name.as_str()).collect(),
        workloads: config.workloads.iter().map(|w| w.name.as_str()).collect(),
        services: config.services.iter().map(|s| s.name.as_str()).collect(),
        replications: config.replications,
        summary: &aggregates.summary,
        workload_rows: &aggregates.workloads,
        service_rows: &aggregates.services,
    };
    let mut out = String::new();
    for note in notes_of(&input) {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// Work past its deadline under `strategy`: the late jobs (that could have been on time),
/// with the workload most of them belong to, and (with `infeasible`) those that never could be.
fn deadline_note(input: &NoteInput<'_>, strategy: &str, infeasible: bool) -> Option<String> {
    let late = mean_of(input.summary, strategy, metric::DEADLINE_MISSES);
    let never = mean_of(input.summary, strategy, metric::DEADLINE_INFEASIBLE);
    let mut parts = Vec::new();
    if late > 0.0 {
        parts.push(format!(
            "{} job(s) per replication{} are late: past a deadline they could have met",
            job_count(late),
            most_of(input, strategy, metric::DEADLINE_MISSES)
        ));
    }
    if infeasible && never > 0.0 {
        parts.push(format!(
            "{} job(s) per replication{} need longer than their deadline_h on every pool they \
             may use and cannot be on time (deadline_infeasible)",
            job_count(never),
            most_of(input, strategy, metric::DEADLINE_INFEASIBLE)
        ));
    }
    (!parts.is_empty()).then(|| format!("under `{strategy}` {}", parts.join("; ")))
}

/// " (37 in workload `fine-tuning`)": the workload with the largest mean of `metric` under
/// `strategy`; empty with one workload.
fn most_of(input: &NoteInput<'_>, strategy: &str, metric: &str) -> String {
    largest_group(input, strategy, metric).map_or(String::new(), |(w, n)| {
        format!(" ({} in workload `{w}`)", job_count(n))
    })
}

/// ", most of them in workload `wide` (88 of its 90 jobs)", for the workload with the most jobs
/// never started; empty with one workload.
fn most_unstarted(input: &NoteInput<'_>, strategy: &str) -> String {
    largest_group(input, strategy, metric::JOBS_UNSTARTED).map_or(String::new(), |(w, n)| {
        let arrived = group_mean(input.workload_rows, strategy, w, metric::JOBS_ARRIVED);
        format!(
            ", most of them in workload `{w}` ({} of its {} jobs)",
            job_count(n),
            job_count(arrived)
        )
    })
}

/// The workload with the largest positive mean of `metric` under `strategy`, with that mean;
/// None with one workload.
fn largest_group<'a>(
    input: &NoteInput<'a>,
    strategy: &str,
    metric: &str,
) -> Option<(&'a str, f64)> {
    if input.workloads.len() < 2 {
        return None;
    }
    (input.workloads.iter())
        .map(|w| (*w, group_mean(input.workload_rows, strategy, w, metric)))
        .filter(|(_, n)| *n > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// A mean count of jobs: whole numbers, "<1" for a fraction of one.
fn job_count(value: f64) -> String {
    if value > 0.0 && value < 0.5 {
        "<1".into()
    } else {
        thousands(value, 0)
    }
}

/// The header and rows as columns: the first left-aligned, the others right-aligned.
fn aligned(header: &[String], rows: &[Vec<String>]) -> String {
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
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| pad(cell, widths[c], c == 0))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
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
