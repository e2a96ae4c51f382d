//! Charts of a sweep, drawn from its `sweep.json` and `sweep.csv` alone (so that a merged or
//! copied sweep draws the same bytes as the sweep that ran):
//!
//! - `sweep_frontier`: mean total cost against mean p95 wait at every point and strategy, the
//!   non-dominated points joined and labelled with their parameter values;
//! - `sweep_total_cost_by_PATH` and `sweep_wait_p95_h_by_PATH`: the metric against each varied
//!   parameter, a line with its 95 % band per strategy (`by_parameter.rs`);
//! - `sweep_total_cost_heatmap`: total cost over the first two varied parameters (numbers
//!   first), a panel per strategy (`heatmap.rs`).
//!
//! Each is rendered as PNG (1600 x 1000) and SVG beside `sweep.csv`, written under temporary
//! names and renamed into place once all are drawn, like the charts of a run. The `sweep_`
//! prefix tells them from anything else in the folder, so that `--force` can remove another
//! sweep's charts and nothing more.

mod axis;
mod by_parameter;
mod frontier;
mod heatmap;
mod input;
mod slices;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use plotters::coord::Shift;
use plotters::prelude::*;

pub use input::{Metric, SWEEP_INPUT_FILES, SweepResults};

use super::style::DrawResult;
use super::{ChartError, Drawing, render_png, render_svg};

/// Every sweep chart file starts with this, and nothing else fleetsim writes into a sweep
/// folder does.
pub const PREFIX: &str = "sweep_";

/// Longest file stem, in bytes: field paths name pools and strategies, whose names may be long.
const STEM_MAX: usize = 120;

/// A chart of a sweep: a closed set, each kind with its own module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepChart {
    /// Total cost against p95 wait over every point and strategy.
    Frontier,
    /// `metric` against the parameter at index `parameter` of `sweep.json`.
    ByParameter { metric: Metric, parameter: usize },
    /// Total cost over the parameters at indices `x` and `y`, a panel per strategy.
    Heatmap { x: usize, y: usize },
}

impl SweepChart {
    /// The charts a sweep gets: the frontier; total cost and p95 wait against every parameter
    /// that takes more than one value; and, when two or more do, the heatmap over the first
    /// two of them (numeric parameters before named ones, as numbers make the better axes).
    pub fn all(results: &SweepResults) -> Vec<SweepChart> {
        let mut charts = vec![SweepChart::Frontier];
        let varied: Vec<usize> = (0..results.parameters.len())
            .filter(|&j| results.parameters[j].levels.len() > 1)
            .collect();
        for metric in [Metric::TotalCost, Metric::WaitP95] {
            for &parameter in &varied {
                charts.push(SweepChart::ByParameter { metric, parameter });
            }
        }
        let mut by_kind = varied.clone();
        by_kind.sort_by_key(|&j| results.parameters[j].scale == axis::Scale::Categorical);
        if let [x, y, ..] = by_kind[..] {
            // Keep the sweep's order on the axes: the first parameter across.
            let (x, y) = (x.min(y), x.max(y));
            charts.push(SweepChart::Heatmap { x, y });
        }
        charts
    }

    /// File name without extension: `sweep_frontier`, `sweep_total_cost_by_pool.dgx.nodes`,
    /// `sweep_wait_p95_h_by_strategy.hybrid.queue`, `sweep_total_cost_heatmap`.
    pub fn file_stem(self, results: &SweepResults) -> String {
        match self {
            SweepChart::Frontier => format!("{PREFIX}frontier"),
            SweepChart::ByParameter { metric, parameter } => {
                let path = &results.parameters[parameter].path;
                let stem = format!("{PREFIX}{}_by_{}", metric.name(), file_safe(path));
                shorten(stem)
            }
            SweepChart::Heatmap { .. } => format!("{PREFIX}total_cost_heatmap"),
        }
    }

    /// Draws the chart on `root`, a canvas of [`WIDTH_PX`](super::style::WIDTH_PX) x
    /// [`HEIGHT_PX`](super::style::HEIGHT_PX).
    pub fn draw<DB: DrawingBackend>(
        self,
        root: &DrawingArea<DB, Shift>,
        results: &SweepResults,
    ) -> DrawResult<(), DB> {
        match self {
            SweepChart::Frontier => frontier::draw(root, results),
            SweepChart::ByParameter { metric, parameter } => {
                by_parameter::draw(root, results, metric, parameter)
            }
            SweepChart::Heatmap { x, y } => heatmap::draw(root, results, x, y),
        }
    }

    /// The chart as a PNG file's bytes.
    pub fn render_png(self, results: &SweepResults, path: &Path) -> Result<Vec<u8>, ChartError> {
        render_png(&(self, results), path)
    }

    /// The chart as SVG text.
    pub fn render_svg(self, results: &SweepResults, path: &Path) -> Result<String, ChartError> {
        render_svg(&(self, results), path)
    }
}

impl Drawing for (SweepChart, &SweepResults) {
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        self.0.draw(root, self.1)
    }
}

/// A field path as part of a file name: letters, digits, `.`, `-` and `_` stay, anything
/// else becomes `_`.
fn file_safe(path: &str) -> String {
    path.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `stem` cut to [`STEM_MAX`] bytes (it is ASCII after [`file_safe`]).
fn shorten(mut stem: String) -> String {
    stem.truncate(STEM_MAX);
    stem
}

/// Whether `name` is a sweep chart file (for removing another sweep's files).
pub fn is_chart_file(name: &str) -> bool {
    name.starts_with(PREFIX) && (name.ends_with(".png") || name.ends_with(".svg"))
}

/// Draws every chart of the sweep folder `dir` as PNG and SVG beside its `sweep.csv` and
/// returns the paths written. Nothing is renamed into place until every chart is drawn.
pub fn draw_all(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    draw_all_until(dir, &AtomicBool::new(false))
}

/// [`draw_all`], stopped (with no chart file written) once `stop` is set.
pub fn draw_all_until(dir: &Path, stop: &AtomicBool) -> Result<Vec<PathBuf>, ChartError> {
    let results = SweepResults::load(dir)?;
    let charts = SweepChart::all(&results);
    let mut stems: Vec<String> = Vec::new();
    let mut files = Vec::new();
    for chart in &charts {
        let mut stem = chart.file_stem(&results);
        // Two paths may only differ in characters a file name cannot hold.
        if stems.contains(&stem) {
            stem = format!("{stem}_{}", stems.len());
        }
        stems.push(stem.clone());
        files.push((chart, format!("{stem}.png"), true));
        files.push((chart, format!("{stem}.svg"), false));
    }
    let names: Vec<String> = files.iter().map(|(_, name, _)| name.clone()).collect();
    super::draw_files(dir, &names, stop, |i| {
        let (chart, name, png) = &files[i];
        let path = dir.join(name);
        if *png {
            chart.render_png(&results, &path)
        } else {
            chart.render_svg(&results, &path).map(String::into_bytes)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_recognised() {
        assert_eq!(file_safe("pool.dgx.nodes"), "pool.dgx.nodes");
        assert_eq!(file_safe("pool.a/b c.nodes"), "pool.a_b_c.nodes");
        assert_eq!(shorten("x".repeat(300)).len(), STEM_MAX);
        assert!(is_chart_file("sweep_frontier.png"));
        assert!(is_chart_file("sweep_total_cost_by_pool.dgx.nodes.svg"));
        assert!(!is_chart_file("sweep.csv"));
        assert!(!is_chart_file("sweep.json"));
        assert!(!is_chart_file("frontier.png"));
    }
}
