//! Panels over calendar months: the scaffold of the charts that draw something per month
//! (cumulative cost, monthly cost, GPUs by pool). A panel is built, captioned and given its
//! month axis, y axis and grid here, the same way in every chart; the chart's module draws
//! its data on it.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::input::Results;
use super::style::{self, DrawResult, IndexAxis, strategy_color};

/// A panel's chart: months (by index) across, a number up.
pub type MonthChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<IndexAxis, RangedCoordf64>>;

/// The y axis of month panels.
pub struct YAxis<'a> {
    pub range: Range<f64>,
    /// Width of the tick labels' area, in pixels.
    pub label_px: i32,
    pub label: &'a dyn Fn(f64) -> String,
    /// The axis' description; in a grid of several rows, `desc_in_grid` (a long rotated
    /// description would not fit the height of a panel).
    pub desc: String,
    pub desc_in_grid: String,
}

/// One month panel: its caption, room around it and its axes.
pub struct MonthPanel<'a> {
    pub caption: (String, TextStyle<'static>),
    pub margin_right_px: i32,
    pub margin_bottom_px: i32,
    pub x_label_px: i32,
    pub months: IndexAxis,
    pub y_range: Range<f64>,
    pub y_ticks: usize,
    pub y_label: &'a dyn Fn(f64) -> String,
    pub y_desc: String,
    pub x_desc: &'a str,
    pub y_label_px: i32,
    /// Vertical grid lines at the month ticks (bar charts go without).
    pub month_lines: bool,
}

/// Builds the panel's chart on `area` and draws its caption, axes and grid.
pub fn month_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    panel: MonthPanel<'_>,
) -> DrawResult<MonthChart<'a, DB>, DB> {
    let (caption, caption_style) = panel.caption;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, caption_style)
        .margin_left(16)
        .margin_right(panel.margin_right_px)
        .margin_bottom(panel.margin_bottom_px)
        .x_label_area_size(panel.x_label_px)
        .y_label_area_size(panel.y_label_px)
        .build_cartesian_2d(panel.months.clone(), panel.y_range.clone())?;
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    if !panel.month_lines {
        mesh.disable_x_mesh();
    }
    mesh.x_labels(12)
        .y_labels(panel.y_ticks)
        .x_label_formatter(&|idx| panel.months.label(*idx))
        .y_label_formatter(&|y| (panel.y_label)(*y))
        .y_desc(panel.y_desc)
        .x_desc(panel.x_desc)
        .draw()?;
    Ok(chart)
}

/// A grid of month panels, one per strategy (captioned with its name in its colour), all on
/// the same axes; `fill` draws a strategy's data on its panel.
pub fn strategy_panels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &Results,
    y: &YAxis<'_>,
    month_lines: bool,
    mut fill: impl FnMut(&mut MonthChart<'_, DB>, &str) -> DrawResult<(), DB>,
) -> DrawResult<(), DB> {
    let (rows, cols) = style::panel_grid(results.strategies.len());
    let panels = area.split_evenly((rows, cols));
    let ticks_max = (style::WIDTH_PX as usize / cols / 170).max(2);
    let months = IndexAxis::months(results.months.clone(), ticks_max);
    for (idx, (strategy, panel)) in results.strategies.iter().zip(&panels).enumerate() {
        let mut chart = month_chart(
            panel,
            MonthPanel {
                caption: style::panel_caption(panel, strategy, strategy_color(idx))?,
                margin_right_px: 30,
                margin_bottom_px: 6,
                x_label_px: if rows > 1 { 40 } else { 58 },
                months: months.clone(),
                y_range: y.range.clone(),
                y_ticks: if rows > 1 { 6 } else { 8 },
                y_label: y.label,
                y_desc: if rows == 1 {
                    y.desc.clone()
                } else {
                    y.desc_in_grid.clone()
                },
                x_desc: if rows == 1 { "Month" } else { "" },
                y_label_px: y.label_px,
                month_lines,
            },
        )?;
        fill(&mut chart, strategy)?;
    }
    Ok(())
}
