//! The report of a sweep folder, from `sweep.json` and `sweep.csv` alone (like its charts), so
//! a merged sweep gets the very bytes of the unsharded one: no command line, threads or times
//! (those are in `invocation*.json`); the command that makes the sweep is rebuilt instead.

use crate::regular_file;
use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::super::charts::ChartError;
use super::super::charts::sweep::{Metric, SweepChart, SweepResults};
use super::html::{Table, escape, figure, page};
use super::run::{question, shell_words};
use crate::format::{money, thousands};
use crate::records::SweepInfo;

/// The page of the sweep folder `dir`.
pub fn html(dir: &Path, stop: &AtomicBool) -> Result<String, ChartError> {
    let results = SweepResults::load(dir)?;
    let info_path = dir.join("sweep.json");
    let text = regular_file::read_to_string(&info_path, regular_file::JSON_BYTES_MAX).map_err(
        |source| ChartError::Read {
            path: info_path.clone(),
            source,
        },
    )?;
    let info: SweepInfo = serde_json::from_str(&text).map_err(|source| ChartError::SweepJson {
        path: info_path.clone(),
        source,
    })?;
    let charts = SweepChart::all(&results);
    let figures: Vec<String> = charts
        .par_iter()
        .map(|&chart| {
            if stop.load(Ordering::SeqCst) {
                return Err(ChartError::ReportInterrupted {
                    dir: dir.to_path_buf(),
                });
            }
            let stem = chart.file_stem(&results);
            let svg = chart.render_svg(&results, &dir.join(format!("{stem}.svg")))?;
            Ok(figure(&svg, &stem, &reading(chart, &results)))
        })
        .collect::<Result<_, _>>()?;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p class=\"muted\">A sweep of {} points \u{d7} {} strategies \u{d7} {} (money in {}, amortised view).</p>",
        results.n_points(),
        results.strategies.len(),
        escape(&results.replications()),
        escape(&results.meta.currency)
    );
    body += &question(&results.meta.scenario);
    body += "<h2 id=\"parameters\">What varies</h2>\n";
    body += &parameters_table(&results, &info).html();
    body += "<h2 id=\"best\">The cheapest point of each strategy</h2>\n";
    body += &best_table(&results).html();
    body += "<p class=\"muted\">Each point's own results (per workload and team too) are in <code>points/&lt;id&gt;/</code>; <code>fleetsim report points/&lt;id&gt;</code> writes a point's report. Every point and strategy is in <code>sweep.csv</code>.</p>\n";
    if results.meta.replications < 10 {
        let _ = writeln!(
            body,
            "<h2 id=\"warnings\">Notes</h2>\n<ul><li>note: {} give wide intervals; try --replications 30</li></ul>",
            escape(&results.replications())
        );
    }
    body += "<h2 id=\"charts\">Charts</h2>\n";
    for figure in &figures {
        body += figure;
    }
    body += &made(&results, &info);
    Ok(page(
        &format!("{}: fleetsim sweep report", results.meta.scenario_name),
        &body,
    ))
}

fn parameters_table(results: &SweepResults, info: &SweepInfo) -> Table {
    let mut table = Table::new(vec!["field".into(), "what it is".into(), "values".into()]);
    table.left = vec![0, 1, 2];
    for (parameter, meta) in results.parameters.iter().zip(&info.parameters) {
        let values: Vec<String> = parameter.levels.iter().map(|l| l.label()).collect();
        table.rows.push(vec![
            parameter.path.clone(),
            parameter.title(),
            format!("{} ({})", values.join(", "), meta.spec),
        ]);
    }
    table
}

/// A point's values of the parameters that matter to `strategy`, "the same at every point"
/// when none does.
fn values_at(results: &SweepResults, strategy: usize, point: usize) -> String {
    let parts: Vec<String> = results
        .parameters
        .iter()
        .enumerate()
        .filter(|(j, _)| results.relevant[strategy][*j])
        .map(|(_, p)| format!("{} = {}", p.name, p.levels[p.level_of[point]].label()))
        .collect();
    if parts.is_empty() {
        "the same at every point".into()
    } else {
        parts.join(", ")
    }
}

fn cheapest_of(results: &SweepResults, strategy: usize) -> Option<usize> {
    (0..results.n_points())
        .filter_map(|p| Some((p, results.stat(Metric::TotalCost, strategy, p)?.mean)))
        .filter(|(_, c)| c.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p)
}

fn best_table(results: &SweepResults) -> Table {
    let currency = &results.meta.currency;
    let mut table = Table::new(vec![
        "strategy".into(),
        "point".into(),
        "at".into(),
        format!("total cost ({currency})"),
        "95 % CI".into(),
        "p95 wait (h)".into(),
    ]);
    table.left = vec![0, 1, 2];
    for (s, strategy) in results.strategies.iter().enumerate() {
        let Some(point) = cheapest_of(results, s) else {
            continue;
        };
        let cost = results.stat(Metric::TotalCost, s, point);
        let wait = results.stat(Metric::WaitP95, s, point);
        table.rows.push(vec![
            strategy.clone(),
            results.meta.points[point].id.clone(),
            values_at(results, s, point),
            cost.map_or("-".into(), |c| thousands(c.mean, 0)),
            cost.filter(|c| c.ci95_low.is_finite())
                .map_or("-".into(), |c| {
                    format!(
                        "{} to {}",
                        thousands(c.ci95_low, 0),
                        thousands(c.ci95_high, 0)
                    )
                }),
            wait.map_or("-".into(), |w| thousands(w.mean, 2)),
        ]);
    }
    table
}

/// The one-line reading of a sweep chart.
fn reading(chart: SweepChart, results: &SweepResults) -> String {
    let currency = &results.meta.currency;
    match chart {
        SweepChart::Frontier => {
            let Some((point, strategy)) = results.cheapest() else {
                return "No point has a total cost.".into();
            };
            let wait = results
                .stat(Metric::WaitP95, strategy, point)
                .map_or(f64::NAN, |w| w.mean);
            let cost = results
                .stat(Metric::TotalCost, strategy, point)
                .map_or(f64::NAN, |c| c.mean);
            format!(
                "The cheapest of all: {} at {} (point {}), {} with a p95 wait of {} h.",
                results.strategies[strategy],
                values_at(results, strategy, point),
                results.meta.points[point].id,
                money(cost, currency),
                thousands(wait, 2)
            )
        }
        SweepChart::ByParameter { metric, parameter } => {
            let p = &results.parameters[parameter];
            let parts: Vec<String> = (0..results.strategies.len())
                .filter(|&s| results.relevant[s][parameter])
                .filter_map(|s| {
                    // Over the parameter's values, the best point of each value.
                    let by_level: Vec<(usize, f64)> = (0..p.levels.len())
                        .filter_map(|level| {
                            (0..results.n_points())
                                .filter(|&pt| p.level_of[pt] == level)
                                .filter_map(|pt| Some(results.stat(metric, s, pt)?.mean))
                                .filter(|v| v.is_finite())
                                .min_by(f64::total_cmp)
                                .map(|v| (level, v))
                        })
                        .collect();
                    let low = by_level.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
                    let high = by_level.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
                    let show = |v: f64| match metric {
                        Metric::TotalCost => money(v, currency),
                        _ => format!("{} h", thousands(v, 2)),
                    };
                    Some(format!(
                        "{} is lowest at {} = {} ({}) and highest at {} ({})",
                        results.strategies[s],
                        p.name,
                        p.levels[low.0].label(),
                        show(low.1),
                        p.levels[high.0].label(),
                        show(high.1)
                    ))
                })
                .collect();
            let what = match metric {
                Metric::TotalCost => "total cost",
                _ => "p95 wait",
            };
            if parts.is_empty() {
                format!("No strategy's {what} depends on {}.", p.name)
            } else {
                format!(
                    "Best {what} over the other parameters at each value: {}.",
                    parts.join("; ")
                )
            }
        }
        SweepChart::Heatmap { .. } => {
            let parts: Vec<String> = (0..results.strategies.len())
                .filter_map(|s| {
                    let point = cheapest_of(results, s)?;
                    let cost = results.stat(Metric::TotalCost, s, point)?.mean;
                    Some(format!(
                        "{}: {} at {}",
                        results.strategies[s],
                        money(cost, currency),
                        values_at(results, s, point)
                    ))
                })
                .collect();
            format!("Cheapest cell of each strategy: {}.", parts.join("; "))
        }
    }
}

/// What made the sweep, and the command that makes it again.
fn made(results: &SweepResults, info: &SweepInfo) -> String {
    let mut args: Vec<String> = vec![
        "fleetsim".into(),
        "sweep".into(),
        info.scenario_file.clone(),
    ];
    for set in &info.set {
        args.push("--set".into());
        args.push(set.clone());
    }
    for parameter in &info.parameters {
        args.push("--vary".into());
        args.push(format!("{}={}", parameter.path, parameter.spec));
    }
    if info.sampling.method != "grid" {
        args.push("--sample".into());
        let mut sample = info.sampling.method.clone();
        if let Some(n) = info.sampling.samples {
            sample.push_str(&format!(":{n}"));
        }
        if let Some(seed) = info.sampling.seed {
            sample.push_str(&format!(":{seed}"));
        }
        args.push(sample);
    }
    let mut table = Table::new(vec!["".into(), "".into()]);
    table.left.push(1);
    let mut row = |key: &str, value: String| table.rows.push(vec![key.to_string(), value]);
    row("fleetsim version", info.fleetsim_version.clone());
    row("scenario", info.scenario_name.clone());
    row("scenario file", info.scenario_file.clone());
    row("seed", info.seed.to_string());
    row(
        "replications per strategy and point",
        info.replications.to_string(),
    );
    row("points", results.n_points().to_string());
    row("sweep id", info.sweep_id.clone());
    format!(
        "<h2 id=\"made\">How this was made</h2>\n{}<p>The command that makes this sweep (from the folder of the scenario file; how it was run, sharded or not, is in <code>invocation*.json</code>):</p>\n<pre>{}</pre>\n",
        table.html(),
        escape(&shell_words(&args))
    )
}
