//! The report of a run's result folder: read back from its files (as `fleetsim plot` reads
//! them), so `fleetsim report DIR` on copied results gives the same page as the run.

use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::super::charts::{Chart, ChartError, Results, read_csv};
use super::html::{Table, escape, figure, list, page};
use super::readings::{difference_cell, reading};
use crate::format::{money, thousands};
use crate::records::GroupSummaryRow;
use crate::records::metric;
use crate::terminal::{NoteInput, notes_of};

/// The page of the result folder `dir`.
pub fn html(dir: &Path, stop: &AtomicBool) -> Result<String, ChartError> {
    let results = Results::load(dir)?;
    let teams: Vec<GroupSummaryRow> = read_csv(&dir.join("teams.csv"))?;
    let services_path = dir.join("services.csv");
    let services: Vec<GroupSummaryRow> = if services_path.exists() {
        read_csv(&services_path)?
    } else {
        Vec::new()
    };
    let charts = figures(dir, &results, stop)?;
    let meta = &results.meta;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"muted\">{} strategies \u{d7} {} over {} months from {} (money in {}, amortised view unless it says cash).</p>",
        results.strategies.len(),
        escape(&crate::charts::style::replications(meta.replications)),
        results.months.len(),
        escape(results.months.first().map_or("-", String::as_str)),
        escape(&meta.currency)
    );
    body += &question(&meta.scenario);
    body += "<h2 id=\"summary\">Summary</h2>\n";
    body += &summary_table(&results).html();
    body += "<p class=\"muted\">vs baseline: the paired difference with the baseline (the mean of the per-replication differences, every strategy seeing the same jobs) with its 95 % confidence interval and its share of the baseline's cost, ~ when not significant; never started: jobs per replication still waiting at the horizon; utilisation: busy / paid GPU-hours; p95 wait: from arrival to first start, mean over the replications; break-even: the first month from which the cumulative cash cost stays below the baseline's.</p>\n";
    body += &warnings_and_notes(&results, &services);
    body += "<h2 id=\"workloads\">Per workload</h2>\n";
    body += &group_table(&results, &results.workloads, "workload").html();
    body += "<h2 id=\"teams\">Per team</h2>\n";
    body += &group_table(&results, &teams, "team").html();
    if !services.is_empty() {
        body += "<h2 id=\"services\">Services</h2>\n";
        body += &services_table(&services, &meta.currency).html();
    }
    body += "<h2 id=\"charts\">Charts</h2>\n";
    for chart in &charts {
        body += chart;
    }
    body += &made(&results);
    Ok(page(
        &format!("{}: fleetsim report", meta.scenario_name),
        &body,
    ))
}

/// The question the scenario answers: its `description` (or leading comment).
pub fn question(scenario: &serde_json::Value) -> String {
    match scenario.get("description").and_then(|d| d.as_str()) {
        Some(text) if !text.trim().is_empty() => format!(
            "<h2 id=\"question\">The question</h2>\n<div class=\"question\">{}</div>\n",
            escape(text.trim())
        ),
        _ => "<h2 id=\"question\">The question</h2>\n<p class=\"muted\">The scenario file has no <code>description</code> and starts with no comment.</p>\n".into(),
    }
}

/// Every chart of the folder drawn again as SVG (so the page never depends on the chart
/// files being there), each with its reading; drawn in parallel, in chart order.
fn figures(dir: &Path, results: &Results, stop: &AtomicBool) -> Result<Vec<String>, ChartError> {
    let charts = Chart::drawn(!results.services_monthly.is_empty());
    charts
        .par_iter()
        .map(|&chart| {
            if stop.load(Ordering::SeqCst) {
                return Err(ChartError::ReportInterrupted {
                    dir: dir.to_path_buf(),
                });
            }
            let path = dir.join(format!("{}.svg", chart.file_stem()));
            let svg = chart.render_svg(results, &path)?;
            Ok(figure(&svg, chart.file_stem(), &reading(chart, results)))
        })
        .collect()
}

fn summary_table(results: &Results) -> Table {
    let currency = &results.meta.currency;
    let npv = results
        .summary
        .iter()
        .any(|r| r.metric == metric::TOTAL_COST_NPV && r.mean.is_finite())
        && results
            .meta
            .scenario
            .get("discount_rate_per_year")
            .and_then(|r| r.as_f64())
            .is_some_and(|r| r != 0.0);
    let mut header: Vec<String> = vec![
        "strategy".into(),
        format!("total cost ({currency})"),
        "95 % CI".into(),
        "vs baseline (paired)".into(),
        format!("total cost, cash ({currency})"),
    ];
    if npv {
        header.push(format!("NPV, cash ({currency})"));
    }
    header.extend(
        [
            "utilisation",
            "p95 wait (h)",
            "unfinished",
            "never started",
            "break-even (cash)",
        ]
        .map(String::from),
    );
    let mut table = Table::new(header);
    for strategy in &results.strategies {
        let row = |metric: &str| results.summary_of(strategy, metric);
        let mean = |metric: &str| row(metric).map_or(f64::NAN, |r| r.mean);
        let ci = row(metric::TOTAL_COST).map_or("-".into(), |r| {
            if r.n > 1 {
                format!("{} to {}", money(r.ci95_low, ""), money(r.ci95_high, ""))
                    .replace("  ", " ")
                    .trim()
                    .to_string()
            } else {
                "-".into()
            }
        });
        let baseline = *strategy == results.meta.baseline;
        let versus = if baseline {
            "baseline".to_string()
        } else {
            difference_cell(results, strategy)
        };
        let arrived = mean(metric::JOBS_ARRIVED);
        let mut cells = vec![
            strategy.clone(),
            thousands(mean(metric::TOTAL_COST), 0),
            ci,
            versus,
            thousands(mean(metric::TOTAL_COST_CASH), 0),
        ];
        if npv {
            cells.push(thousands(mean(metric::TOTAL_COST_NPV), 0));
        }
        cells.extend([
            percent(mean(metric::UTILIZATION)),
            thousands(mean(metric::WAIT_P95_H), 2),
            if arrived > 0.0 {
                format!("{:.1} %", 100.0 * mean(metric::JOBS_UNFINISHED) / arrived)
            } else {
                "-".into()
            },
            thousands(mean(metric::JOBS_UNSTARTED), 1),
            if baseline {
                "-".into()
            } else {
                results
                    .break_even_month(strategy)
                    .unwrap_or("never")
                    .to_string()
            },
        ]);
        table.rows.push(cells);
    }
    table
}

fn percent(value: f64) -> String {
    if value.is_finite() {
        format!("{:.0} %", 100.0 * value)
    } else {
        "-".into()
    }
}

/// The scenario's warnings (run.json) and the notes the terminal printed under its table.
fn warnings_and_notes(results: &Results, services: &[GroupSummaryRow]) -> String {
    let scenario = &results.meta.scenario;
    let names = |table: &str| -> Vec<&str> {
        scenario
            .get(table)
            .and_then(|t| t.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.get("name")?.as_str())
                    .collect()
            })
            .unwrap_or_default()
    };
    let workloads = results.workload_names();
    let input = NoteInput {
        strategies: results.strategies.iter().map(String::as_str).collect(),
        workloads: workloads.iter().map(String::as_str).collect(),
        services: names("service"),
        replications: results.meta.replications,
        summary: &results.summary,
        workload_rows: &results.workloads,
        service_rows: services,
    };
    let mut items: Vec<String> = results
        .meta
        .warnings
        .iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    items.extend(notes_of(&input).into_iter().map(|n| format!("note: {n}")));
    let mut out = String::from("<h2 id=\"warnings\">Warnings and notes</h2>\n");
    if items.is_empty() {
        out += "<p>None: the scenario raised no warning, and no strategy left work unfinished, starving or past its deadline.</p>\n";
    } else {
        out += &list(&items);
    }
    out
}

/// Workloads' (teams') rows of `workloads.csv` (`teams.csv`): one line per strategy and group.
fn group_table(results: &Results, rows: &[GroupSummaryRow], what: &str) -> Table {
    let currency = &results.meta.currency;
    let columns: [(&str, &str, usize); 9] = [
        ("jobs arrived", metric::JOBS_ARRIVED, 0),
        ("completed", metric::JOBS_COMPLETED, 0),
        ("unfinished", metric::JOBS_UNFINISHED, 1),
        ("never started", metric::JOBS_UNSTARTED, 1),
        ("p95 wait (h)", metric::WAIT_P95_H, 2),
        ("longest wait (h)", metric::WAIT_MAX_H, 2),
        ("late", metric::DEADLINE_MISSES, 1),
        ("deadline infeasible", metric::DEADLINE_INFEASIBLE, 1),
        ("cost", "cost", 0),
    ];
    let mut header = vec!["strategy".to_string(), what.to_string()];
    header.extend(columns.iter().map(|(title, metric, _)| {
        if *metric == "cost" {
            format!("cost ({currency})")
        } else {
            (*title).to_string()
        }
    }));
    let mut table = Table::new(header);
    table.left.push(1);
    for (strategy, group) in groups(rows) {
        let of = |metric: &str| mean_of(rows, strategy, group, metric);
        let mut cells = vec![strategy.to_string(), group.to_string()];
        for (_, metric, decimals) in columns {
            cells.push(of(metric).map_or("-".into(), |v| thousands(v, decimals)));
        }
        table.rows.push(cells);
    }
    table
}

/// The (strategy, group) pairs of `rows`, in the order they first appear.
fn groups(rows: &[GroupSummaryRow]) -> Vec<(&str, &str)> {
    let mut groups: Vec<(&str, &str)> = Vec::new();
    for row in rows {
        if !groups.contains(&(row.strategy.as_str(), row.group.as_str())) {
            groups.push((row.strategy.as_str(), row.group.as_str()));
        }
    }
    groups
}

/// The mean of `metric` for `group` under `strategy`, if `rows` have it.
fn mean_of(rows: &[GroupSummaryRow], strategy: &str, group: &str, metric: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.strategy == strategy && r.group == group && r.metric == metric)
        .map(|r| r.mean)
}

/// `services.csv`: one line per strategy and service.
fn services_table(rows: &[GroupSummaryRow], currency: &str) -> Table {
    let columns: [(&str, &str); 6] = [
        ("GPU-hours demanded", metric::GPU_HOURS_DEMANDED),
        ("GPU-hours served", metric::GPU_HOURS_SERVED),
        ("unserved", metric::UNSERVED_SHARE),
        ("hours fully met", metric::MET_SHARE),
        ("replicas preempted", metric::REPLICAS_PREEMPTED),
        ("cost", "cost"),
    ];
    let mut header = vec!["strategy".to_string(), "service".to_string()];
    header.extend(columns.iter().map(|(title, metric)| {
        if *metric == "cost" {
            format!("cost ({currency})")
        } else {
            (*title).to_string()
        }
    }));
    let mut table = Table::new(header);
    table.left.push(1);
    for (strategy, group) in groups(rows) {
        let of = |metric: &str| mean_of(rows, strategy, group, metric);
        let mut cells = vec![strategy.to_string(), group.to_string()];
        for (_, metric) in columns {
            cells.push(match (metric, of(metric)) {
                (_, None) => "-".into(),
                (metric::UNSERVED_SHARE | metric::MET_SHARE, Some(v)) => {
                    format!("{:.1} %", 100.0 * v)
                }
                (_, Some(v)) => thousands(v, 0),
            });
        }
        table.rows.push(cells);
    }
    table
}

/// How the results were made: version, scenario, seed, replications, the command line.
fn made(results: &Results) -> String {
    let meta = &results.meta;
    let mut table = Table::new(vec!["".into(), "".into()]);
    table.left.push(1);
    let mut row = |key: &str, value: String| table.rows.push(vec![key.to_string(), value]);
    row("fleetsim version", meta.fleetsim_version.clone());
    row("scenario", meta.scenario_name.clone());
    row("scenario file", meta.scenario_source.clone());
    row(
        "seed",
        meta.seed.map_or("-".into(), |seed| seed.to_string()),
    );
    row("replications per strategy", meta.replications.to_string());
    row("baseline", meta.baseline.clone());
    let command = shell_words(&meta.command_line);
    format!(
        "<h2 id=\"made\">How this was made</h2>\n{}<p>Command line:</p>\n<pre>{}</pre>\n<p class=\"muted\">The simulation is deterministic: the same command with the same fleetsim version gives the same numbers on any machine and thread count. The resolved scenario is in run.json; every table above is in the folder's CSV files.</p>\n",
        table.html(),
        escape(&command)
    )
}

/// Arguments as a shell would take them back: quoted when they hold anything but safe
/// characters.
pub fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|arg| {
            let safe = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if safe {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
