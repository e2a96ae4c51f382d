//! Charts for capacity planning, drawn from a result folder's CSV files and `run.json` alone.
//!
//! Each chart has a small module that draws on any plotters backend; this module renders each
//! one twice, as PNG (1600 x 1000) and SVG, and writes them beside the CSV files under
//! temporary names, renaming them into place once all are drawn. Text uses the DejaVu Sans
//! bundled in the binary (assets/fonts/), never a system font. The look shared by all charts
//! (palette, fonts, number and month labels) lives in [`style`].

mod cost_distribution;
mod cost_vs_wait;
mod cumulative_cost;
mod input;
mod monthly_cost;
pub mod optimize;
mod panels;
mod pool_gpus;
mod pool_utilization;
mod service_demand;
pub mod style;
pub mod sweep;
mod wait_by_workload;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use plotters::coord::Shift;
use plotters::prelude::*;
use rayon::prelude::*;

/// The break-even utilisations the utilisation chart draws, for the report to say in words.
pub use crate::scenario::economics::{BreakEven, Standing, percent};
pub(crate) use input::read_csv;
pub use input::{INPUT_FILES, Results, RunMeta};
use style::{DrawResult, HEIGHT_PX, WIDTH_PX};

use crate::files::{OutputError, Staged, write_bytes};

#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("{}: no such folder; give a folder that `fleetsim run` wrote", .dir.display())]
    NoFolder { dir: PathBuf },
    #[error(
        "{}: missing {}; charts are drawn from the files `fleetsim run` writes ({})",
        .dir.display(),
        .files.join(", "),
        INPUT_FILES.join(", ")
    )]
    Missing { dir: PathBuf, files: Vec<String> },
    #[error("{}: cannot read", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a fleetsim run.json", .path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: not a fleetsim result CSV (the columns `fleetsim run` writes)", .path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error("{}: not a fleetsim result CSV (the columns `fleetsim run` writes): {message}", .path.display())]
    Cell { path: PathBuf, message: String },
    #[error("{}: not a fleetsim sweep.json", .path.display())]
    SweepJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(
        "{}: has no sweep.csv; a shard's folder has none until `fleetsim merge` combines the shards",
        .dir.display()
    )]
    NoSweepCsv { dir: PathBuf },
    #[error("{}: not a fleetsim sweep.csv: {message}", .path.display())]
    SweepCsv { path: PathBuf, message: String },
    #[error("{}: has no rows", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: cannot draw this chart: {message}", .path.display())]
    Draw { path: PathBuf, message: String },
    #[error("{}: {}", .dir.display(), skipped(*.strategies).unwrap_or_default())]
    TooManyStrategies { dir: PathBuf, strategies: usize },
    #[error("{}: stopped while drawing the charts; no chart file was written", .dir.display())]
    Interrupted { dir: PathBuf },
    #[error("{}: stopped while writing report.html; it was not written", .dir.display())]
    ReportInterrupted { dir: PathBuf },
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The charts fleetsim draws: a closed set, each with its own module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chart {
    /// Cumulative cost by month, mean with a 90 % band, amortised and cash views.
    CumulativeCost,
    /// Monthly cost per strategy, stacked by category.
    MonthlyCost,
    /// Total cost over the replications, per strategy: the risk view.
    CostDistribution,
    /// Total cost against p95 wait, with 95 % confidence whiskers: the trade-off view.
    CostVsWait,
    /// Mean busy and paid GPUs per pool, month by month.
    PoolGpus,
    /// Utilisation per pool over the replications.
    PoolUtilization,
    /// p95 wait per workload and strategy: who waits.
    WaitByWorkload,
    /// GPUs demanded, served and held per service, by month and hour of day (with services).
    ServiceDemand,
}

impl Chart {
    pub const ALL: [Chart; 7] = [
        Chart::CumulativeCost,
        Chart::MonthlyCost,
        Chart::CostDistribution,
        Chart::CostVsWait,
        Chart::PoolGpus,
        Chart::PoolUtilization,
        Chart::WaitByWorkload,
    ];

    /// The charts of a result folder: [`Chart::ALL`], and with services [`Chart::ServiceDemand`].
    pub fn drawn(services: bool) -> Vec<Chart> {
        let mut charts = Chart::ALL.to_vec();
        if services {
            charts.push(Chart::ServiceDemand);
        }
        charts
    }

    /// File name without extension: `cumulative_cost.png`, `cumulative_cost.svg`.
    pub fn file_stem(self) -> &'static str {
        match self {
            Chart::CumulativeCost => "cumulative_cost",
            Chart::MonthlyCost => "monthly_cost",
            Chart::CostDistribution => "cost_distribution",
            Chart::CostVsWait => "cost_vs_wait",
            Chart::PoolGpus => "pool_gpus",
            Chart::PoolUtilization => "pool_utilization",
            Chart::WaitByWorkload => "wait_by_workload",
            Chart::ServiceDemand => "service_demand",
        }
    }

    /// The chart's title (the scenario's name follows it) and subtitle.
    pub fn heading(self, results: &Results) -> (String, String) {
        let replications = style::replications(results.meta.replications);
        let months = results.months.len();
        match self {
            Chart::CumulativeCost => (
                "Cumulative cost by month".to_string(),
                if months == 1 {
                    format!(
                        "Dot: mean over {replications}; bar: 5th to 95th percentile of the replications"
                    )
                } else {
                    format!(
                        "Line: mean over {replications}; band: 5th to 95th percentile of the replications"
                    )
                },
            ),
            Chart::MonthlyCost => (
                "Monthly cost by category".to_string(),
                format!(
                    "Cost per month, mean over {replications}; amortised view (capital spread over its amortisation); {}",
                    results.meta.currency
                ),
            ),
            Chart::CostDistribution => (
                format!(
                    "Total cost over {} across replications",
                    style::months(months)
                ),
                format!(
                    "Box: 25th to 75th percentile; thick line: median; whiskers: 5th to 95th percentile; dots: the {replications}. Beside each box: its paired difference with the baseline (mean over the same jobs) and 95 % interval"
                ),
            ),
            Chart::CostVsWait => (
                "Cost against wait".to_string(),
                format!(
                    "Means over {replications}; whiskers: 95 % confidence intervals (hidden when narrower than the dot); lower left is better"
                ),
            ),
            Chart::PoolGpus => (
                "Busy and paid GPUs by pool".to_string(),
                format!(
                    "Monthly mean over {replications}: GPU-hours divided by the hours in the month"
                ),
            ),
            Chart::PoolUtilization => (
                "GPU utilisation by pool".to_string(),
                format!(
                    "Busy / paid GPU-hours over {}. Bar: mean over {replications}; whisker: 5th to 95th percentile",
                    style::months(months)
                ),
            ),
            Chart::ServiceDemand => (
                "Service demand and what served it".to_string(),
                format!(
                    "Mean GPUs over {replications}, of each service's GPU type: demanded (black), served (solid) and held by its replicas (dashed, pool GPUs){}",
                    match results.service_names().len() {
                        n if n > service_demand::SERVICES_MAX => format!(
                            "; the first {} of {n} services (all are in services.csv)",
                            service_demand::SERVICES_MAX
                        ),
                        _ => String::new(),
                    }
                ),
            ),
            Chart::WaitByWorkload => (
                "p95 wait by workload".to_string(),
                format!(
                    "Means over {replications}; whiskers: 95 % confidence intervals; hatched, >=: a lower bound (jobs never started count with their waits up to the end)"
                ),
            ),
        }
    }

    /// Draws the chart on `root`, a canvas of [`WIDTH_PX`] x [`HEIGHT_PX`]: the heading here,
    /// the rest in the chart's module.
    pub fn draw<DB: DrawingBackend>(
        self,
        root: &DrawingArea<DB, Shift>,
        results: &Results,
    ) -> DrawResult<(), DB> {
        let (title, subtitle) = self.heading(results);
        let title = format!("{title} — {}", results.meta.scenario_name);
        let area = style::header(root, &title, &subtitle, &results.provenance())?;
        match self {
            Chart::CumulativeCost => cumulative_cost::draw(&area, results),
            Chart::MonthlyCost => monthly_cost::draw(&area, results),
            Chart::CostDistribution => cost_distribution::draw(root, &area, results),
            Chart::CostVsWait => cost_vs_wait::draw(root, &area, results),
            Chart::PoolGpus => pool_gpus::draw(&area, results),
            Chart::PoolUtilization => pool_utilization::draw(root, &area, results),
            Chart::WaitByWorkload => wait_by_workload::draw(root, &area, results),
            Chart::ServiceDemand => service_demand::draw(&area, results),
        }
    }

    /// The chart as a PNG file's bytes.
    pub fn render_png(self, results: &Results, path: &Path) -> Result<Vec<u8>, ChartError> {
        render_png(&(self, results), path)
    }

    /// The chart as SVG text.
    pub fn render_svg(self, results: &Results, path: &Path) -> Result<String, ChartError> {
        render_svg(&(self, results), path)
    }
}

impl Drawing for (Chart, &Results) {
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        self.0.draw(root, self.1)
    }
}

/// A chart with its data, drawable on any plotters backend (run and sweep charts alike).
pub(crate) trait Drawing {
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB>;
}

/// Renders a chart as a PNG file's bytes (1600 x 1000, the bundled font).
pub(crate) fn render_png(chart: &impl Drawing, path: &Path) -> Result<Vec<u8>, ChartError> {
    style::register_fonts();
    let mut rgb = vec![0u8; (WIDTH_PX * HEIGHT_PX * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH_PX, HEIGHT_PX)).into_drawing_area();
        chart
            .draw_on(&root)
            .and_then(|()| root.present())
            .map_err(|error| draw_error(path, &error))?;
    }
    encode_png(&rgb, WIDTH_PX, HEIGHT_PX).map_err(|error| draw_error(path, &error))
}

/// Renders a chart as SVG text.
pub(crate) fn render_svg(chart: &impl Drawing, path: &Path) -> Result<String, ChartError> {
    style::register_fonts();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, HEIGHT_PX)).into_drawing_area();
        chart
            .draw_on(&root)
            .and_then(|()| root.present())
            .map_err(|error| draw_error(path, &error))?;
    }
    Ok(svg)
}

fn draw_error(path: &Path, error: &dyn std::error::Error) -> ChartError {
    ChartError::Draw {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// RGB pixels as a PNG file.
fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// The most strategies the charts show: every chart has a colour, a legend entry or a panel
/// per strategy, which stop being legible (and drawing them grows faster than linearly) beyond
/// this many.
pub const STRATEGIES_MAX: usize = 50;

/// Why no chart is drawn for `strategies` strategies, if that is so.
pub fn skipped(strategies: usize) -> Option<String> {
    (strategies > STRATEGIES_MAX).then(|| {
        format!(
            "no chart is drawn: {} strategies are more than the {STRATEGIES_MAX} a chart shows legibly (every chart has a colour, legend entry or panel per strategy); the CSV files hold every strategy, or compare fewer strategies at once",
            crate::format::thousands(strategies as f64, 0)
        )
    })
}

/// The names of the files [`draw_all`] writes, PNG and SVG of every chart (`services`: the
/// results have services).
pub fn file_names(services: bool) -> Vec<String> {
    Chart::drawn(services)
        .iter()
        .flat_map(|chart| ["png", "svg"].map(|ext| format!("{}.{ext}", chart.file_stem())))
        .collect()
}

/// Draws every chart of the result folder `dir` as PNG and SVG beside its CSV files and returns
/// the paths written. Nothing is renamed into place until every chart is drawn.
pub fn draw_all(dir: &Path) -> Result<Vec<PathBuf>, ChartError> {
    draw_all_until(dir, &AtomicBool::new(false))
}

/// [`draw_all`], stopped (with no chart file written) once `stop` is set: it is looked at
/// before each file is drawn and again before they are written.
pub fn draw_all_until(dir: &Path, stop: &AtomicBool) -> Result<Vec<PathBuf>, ChartError> {
    let results = Results::load(dir)?;
    let services = !results.services_monthly.is_empty();
    let files: Vec<(Chart, bool)> = Chart::drawn(services)
        .iter()
        .flat_map(|chart| [(*chart, true), (*chart, false)])
        .collect();
    let names = file_names(services);
    draw_files(dir, &names, stop, |i| {
        let (chart, png) = files[i];
        let path = dir.join(&names[i]);
        if png {
            chart.render_png(&results, &path)
        } else {
            chart.render_svg(&results, &path).map(String::into_bytes)
        }
    })
}

/// Renders the files `names` of `dir` in parallel on the current rayon pool (`render(i)` gives
/// the bytes of `names[i]`; each file is drawn by one thread, so the bytes are those of a
/// sequential drawing), then writes them under temporary names and renames them into place
/// together. Stops with [`ChartError::Interrupted`] once `stop` is set; on any error no chart
/// file is written and no `.partial` stays.
pub(crate) fn draw_files(
    dir: &Path,
    names: &[String],
    stop: &AtomicBool,
    render: impl Fn(usize) -> Result<Vec<u8>, ChartError> + Sync,
) -> Result<Vec<PathBuf>, ChartError> {
    let interrupted = || ChartError::Interrupted {
        dir: dir.to_path_buf(),
    };
    let rendered: Vec<Vec<u8>> = (0..names.len())
        .into_par_iter()
        .map(|i| {
            if stop.load(Ordering::SeqCst) {
                return Err(interrupted());
            }
            render(i)
        })
        .collect::<Result<_, _>>()?;
    // Dropped on an error: the charts written so far go, no `.partial` stays.
    let mut pending = Staged::default();
    for (name, bytes) in names.iter().zip(&rendered) {
        if stop.load(Ordering::SeqCst) {
            return Err(interrupted());
        }
        pending.push(write_bytes(dir, name, bytes)?);
    }
    if stop.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    Ok(pending.commit_all()?)
}
