//! The chart of `fleetsim optimize`, drawn from `optimize.csv` and `recommendation.json`
//! alone (so `fleetsim plot` redraws it): the objective of every candidate evaluated against
//! its binding constraint, the feasible side of the limit shaded, the chosen candidate ringed.
//!
//! The binding constraint is the one the chosen candidate is closest to (in tolerances);
//! without constraints, the x axis is the first varied parameter. Each dot has its 95 %
//! interval of the objective as a whisker, and its colour says how it ended: chosen,
//! runner-up, dropped as costlier, dropped as infeasible.

use crate::regular_file;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, DrawResult, INK, LegendItem, MUTED, Swatch, font};
use super::{ChartError, Drawing, render_png, render_svg};
use crate::files::optimize::{RECOMMENDATION_FILE, TABLE_FILE};

/// File stem of the chart.
pub const STEM: &str = "optimize_cost_vs_constraint";

/// One candidate as the chart reads it.
#[derive(Debug, Clone, PartialEq)]
struct Dot {
    x: f64,
    y: f64,
    low: f64,
    high: f64,
    status: String,
    infeasible: bool,
}

/// What the chart needs of an optimisation folder.
#[derive(Debug, Clone, PartialEq)]
pub struct OptimizeResults {
    scenario_name: String,
    minimize: String,
    currency: Option<String>,
    x_label: String,
    /// The binding constraint's limit and whether it bounds from above.
    limit: Option<(f64, bool)>,
    dots: Vec<Dot>,
    statement: String,
}

fn read_error(path: &Path) -> impl Fn(String) -> ChartError + '_ {
    move |message| ChartError::Cell {
        path: path.to_path_buf(),
        message,
    }
}

impl OptimizeResults {
    pub fn load(dir: &Path) -> Result<Self, ChartError> {
        let rec_path = dir.join(RECOMMENDATION_FILE);
        let bytes =
            regular_file::read(&rec_path, regular_file::JSON_BYTES_MAX).map_err(|source| {
                ChartError::Read {
                    path: rec_path.clone(),
                    source,
                }
            })?;
        let rec: crate::records::Recommendation =
            serde_json::from_slice(&bytes).map_err(|source| ChartError::Json {
                path: rec_path.clone(),
                source,
            })?;
        let table_path = dir.join(TABLE_FILE);
        let file = regular_file::open_at_most(&table_path, regular_file::TABLE_BYTES_MAX).map_err(
            |source| ChartError::Read {
                path: table_path.clone(),
                source,
            },
        )?;
        let mut reader = csv::Reader::from_reader(file);
        let header = reader
            .headers()
            .map_err(|source| ChartError::Csv {
                path: table_path.clone(),
                source,
            })?
            .clone();
        let column = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| read_error(&table_path)(format!("no column `{name}`")))
        };
        let (x_column, x_label, limit) = binding(&rec, &header, &table_path)?;
        let y = column(&format!("{}_mean", rec.minimize))?;
        let low = column(&format!("{}_ci95_low", rec.minimize))?;
        let high = column(&format!("{}_ci95_high", rec.minimize))?;
        let status = column("status")?;
        let reason = column("reason")?;
        let number = |cell: &str| cell.parse::<f64>().unwrap_or(f64::NAN);
        let mut dots = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|source| ChartError::Csv {
                path: table_path.clone(),
                source,
            })?;
            let dot = Dot {
                x: number(&record[x_column]),
                y: number(&record[y]),
                low: number(&record[low]),
                high: number(&record[high]),
                status: record[status].to_string(),
                infeasible: record[reason].starts_with("fails"),
            };
            if dot.x.is_finite() && dot.y.is_finite() {
                dots.push(dot);
            }
        }
        Ok(Self {
            scenario_name: rec.scenario_name.clone(),
            minimize: rec.minimize.clone(),
            currency: crate::records::is_money(&rec.minimize).then(|| rec.currency.clone()),
            x_label,
            limit,
            dots,
            statement: rec.statement.clone(),
        })
    }
}

/// The x axis: a column of optimize.csv, its label, and the binding constraint's limit
/// (with whether it bounds from above).
type Binding = (usize, String, Option<(f64, bool)>);

/// The x column: the mean of the constraint the chosen candidate is closest to, or the
/// first parameter.
fn binding(
    rec: &crate::records::Recommendation,
    header: &csv::StringRecord,
    path: &Path,
) -> Result<Binding, ChartError> {
    let parsed: Vec<(String, bool, f64)> = rec
        .subject_to
        .iter()
        .filter_map(|text| {
            let (metric, bound, rest) = if let Some((m, r)) = text.split_once("<=") {
                (m, true, r)
            } else {
                let (m, r) = text.split_once(">=")?;
                (m, false, r)
            };
            let limit = rest.split("+-").next()?.trim().parse::<f64>().ok()?;
            Some((metric.trim().to_string(), bound, limit))
        })
        .collect();
    let closest = rec.chosen.as_ref().and_then(|chosen| {
        (0..parsed.len()).min_by(|&a, &b| {
            let gap = |i: usize| {
                let value = chosen.constraints[i].value.mean;
                ((parsed[i].2 - value) / parsed[i].2.abs().max(1e-9)).abs()
            };
            gap(a).total_cmp(&gap(b))
        })
    });
    let pick = closest.or((!parsed.is_empty()).then_some(0));
    if let Some(i) = pick {
        let (metric, at_most, limit) = &parsed[i];
        let name = format!("{metric}_mean");
        let x = header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| read_error(path)(format!("no column `{name}`")))?;
        return Ok((x, format!("{metric} (mean)"), Some((*limit, *at_most))));
    }
    // No constraint: the first varied parameter is the column after `strategy`.
    Ok((2, header.get(2).unwrap_or("parameter").to_string(), None))
}

fn colour(dot: &Dot) -> RGBColor {
    match dot.status.as_str() {
        "chosen" => INK,
        "runner_up" => style::OKABE_ITO[0],
        _ if dot.infeasible => style::OKABE_ITO[3],
        _ => MUTED,
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &OptimizeResults,
) -> DrawResult<(), DB> {
    let area = style::header(
        root,
        &format!(
            "{} against {} — {}",
            results.minimize, results.x_label, results.scenario_name
        ),
        &format!(
            "Every candidate evaluated: the mean {} with its 95 % interval against the mean of the constraint the chosen candidate is closest to; shaded: where that constraint holds. {}",
            results.minimize, results.statement
        ),
        &format!("fleetsim optimize, {}", results.scenario_name),
    )?;
    let items = [
        LegendItem::new("chosen", Swatch::Ring(INK)),
        LegendItem::new("runner-up", Swatch::Block(style::OKABE_ITO[0])),
        LegendItem::new("fails a constraint", Swatch::Block(style::OKABE_ITO[3])),
        LegendItem::new("surely costlier", Swatch::Block(MUTED)),
    ];
    let area = style::legend(&area, &items)?;
    let xs = style::padded(
        style::extent(
            results
                .dots
                .iter()
                .map(|d| d.x)
                .chain(results.limit.map(|l| l.0)),
        ),
        0.05,
    );
    let ys = style::padded(
        style::extent(results.dots.iter().flat_map(|d| [d.low, d.high, d.y])),
        0.06,
    );
    let money = results
        .currency
        .as_ref()
        .map(|c| style::MoneyAxis::new(&ys, c));
    let mut chart = ChartBuilder::on(&area)
        .margin(style::MARGIN_PX as u32)
        .x_label_area_size(70)
        .y_label_area_size(130)
        .build_cartesian_2d(xs.clone(), ys.clone())?;
    let y_desc = match &money {
        Some(m) => format!("{} ({})", results.minimize, m.unit),
        None => results.minimize.clone(),
    };
    let y_label = |v: &f64| match &money {
        Some(m) => m.label(*v),
        None => style::number_label(*v, &ys),
    };
    let x_label = |v: &f64| style::number_label(*v, &xs);
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    mesh.x_desc(results.x_label.clone())
        .y_desc(y_desc)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .draw()?;
    if let Some((limit, at_most)) = results.limit {
        let (from, to) = if at_most {
            (xs.start, limit)
        } else {
            (limit, xs.end)
        };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(from, ys.start), (to, ys.end)],
            style::OKABE_ITO[2].mix(0.10).filled(),
        )))?;
        chart.draw_series(DashedLineSeries::new(
            [(limit, ys.start), (limit, ys.end)],
            8,
            6,
            INK.stroke_width(2),
        ))?;
    }
    for dot in &results.dots {
        let c = colour(dot);
        if dot.low.is_finite() && dot.high.is_finite() {
            chart.draw_series(std::iter::once(PathElement::new(
                [(dot.x, dot.low), (dot.x, dot.high)],
                c.mix(0.7).stroke_width(2),
            )))?;
        }
        chart.draw_series(std::iter::once(Circle::new((dot.x, dot.y), 6, c.filled())))?;
        if dot.status == "chosen" {
            chart.draw_series(std::iter::once(Circle::new(
                (dot.x, dot.y),
                14,
                INK.stroke_width(3),
            )))?;
        }
    }
    if results.dots.is_empty() {
        area.draw(&Text::new(
            "no candidate has values to show",
            (style::MARGIN_PX, 200),
            font(style::AXIS_PX),
        ))?;
    }
    Ok(())
}

impl Drawing for OptimizeResults {
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw(root, self)
    }
}

/// Draws the chart of the optimisation folder `dir` (PNG and SVG); nothing is renamed into
/// place until both are drawn, and nothing is written once `stop` is set.
pub fn draw_all_until(dir: &Path, stop: &AtomicBool) -> Result<Vec<PathBuf>, ChartError> {
    let results = OptimizeResults::load(dir)?;
    let names = vec![format!("{STEM}.png"), format!("{STEM}.svg")];
    super::draw_files(dir, &names, stop, |i| {
        let path = dir.join(&names[i]);
        if i == 0 {
            render_png(&results, &path)
        } else {
            render_svg(&results, &path).map(String::into_bytes)
        }
    })
}
