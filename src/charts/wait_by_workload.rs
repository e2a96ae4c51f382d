//! Who waits: the p95 wait of each workload under each strategy, a group of bars per workload
//! with 95 % confidence whiskers. A bar whose p95 is only a lower bound in some replication
//! (jobs never started count with their waits up to the end) is hatched and labelled `>=`.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::style::{self, DrawResult, IndexAxis, LegendItem, Swatch, font, strategy_color};
use crate::records::metric;

/// Share of a workload's slot the bars of one group fill.
const GROUP_WIDTH: f64 = 0.8;

/// One bar: a strategy's p95 wait for a workload.
#[derive(Debug, Clone, Copy)]
struct Bar {
    workload: usize,
    strategy: usize,
    mean_h: f64,
    low_h: f64,
    high_h: f64,
    lower_bound: bool,
}

/// Draws below the heading (`area`); value labels go on `root`, in pixels.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let workloads = results.workload_names();
    let items: Vec<LegendItem> = results
        .strategies
        .iter()
        .enumerate()
        .map(|(idx, name)| LegendItem::new(name, Swatch::Block(strategy_color(idx))))
        .collect();
    let area = style::legend(area, &items)?;
    let bars = bars(results, &workloads);
    if bars.is_empty() {
        area.draw(&Text::new(
            "workloads.csv has no wait_p95_h rows",
            (style::MARGIN_PX, 300),
            font(style::AXIS_PX),
        ))?;
        return Ok(());
    }
    let top_h = bars
        .iter()
        .map(|b| b.high_h.max(b.mean_h))
        .fold(0.0, f64::max);
    let y_range = 0.0..(if top_h > 0.0 { top_h * 1.15 } else { 1.0 });
    let x_axis = IndexAxis::every(workloads.clone());
    let mut chart = ChartBuilder::on(&area)
        .margin_left(20)
        .margin_right(40)
        .margin_top(10)
        .margin_bottom(16)
        .x_label_area_size(70)
        .y_label_area_size(130)
        .build_cartesian_2d(x_axis.clone(), y_range.clone())?;
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    mesh.x_labels(workloads.len())
        .y_labels(10)
        .x_label_formatter(&|idx| x_axis.label(*idx))
        .y_label_formatter(&|hours| style::number_label(*hours, &y_range))
        .x_desc("workload")
        .y_desc("p95 wait from arrival to first start (hours)")
        .disable_x_mesh()
        .draw()?;

    let strategies = results.strategies.len().max(1) as f64;
    let width = GROUP_WIDTH / strategies;
    let label_style = font(style::NOTE_PX);
    for bar in &bars {
        let color = strategy_color(bar.strategy);
        let x0 = bar.workload as f64 - GROUP_WIDTH / 2.0 + width * bar.strategy as f64;
        let x1 = x0 + width * 0.9;
        chart.draw_series([Rectangle::new(
            [(x0, 0.0), (x1, bar.mean_h)],
            if bar.lower_bound {
                color.mix(0.35).filled()
            } else {
                color.filled()
            },
        )])?;
        if bar.lower_bound {
            hatch(&mut chart, x0, x1, bar.mean_h, &color)?;
        }
        let middle = (x0 + x1) / 2.0;
        if bar.high_h > bar.low_h {
            chart.draw_series([PathElement::new(
                vec![(middle, bar.low_h), (middle, bar.high_h)],
                style::INK.stroke_width(2),
            )])?;
        }
        let text = format!(
            "{}{}",
            if bar.lower_bound { ">=" } else { "" },
            hours(bar.mean_h)
        );
        let (bar_px, _) = chart.backend_coord(&(x1, 0.0));
        let (start_px, top_px) = chart.backend_coord(&(x0, bar.high_h.max(bar.mean_h)));
        let (text_w, text_h) = root.estimate_text_size(&text, &label_style)?;
        // Values above the bars where they fit.
        if text_w as i32 <= (bar_px - start_px) + 24 {
            let x = (start_px + bar_px) / 2 - text_w as i32 / 2;
            root.draw(&Text::new(
                text,
                (x, top_px - text_h as i32 - 4),
                label_style.clone(),
            ))?;
        }
    }
    Ok(())
}

fn bars(results: &Results, workloads: &[String]) -> Vec<Bar> {
    let mut bars = Vec::new();
    for (strategy, name) in results.strategies.iter().enumerate() {
        for (workload, w) in workloads.iter().enumerate() {
            let Some(row) = results.workload_of(name, w, metric::WAIT_P95_H) else {
                continue;
            };
            if !row.mean.is_finite() {
                continue;
            }
            let bound = |b: f64| if b.is_finite() { b.max(0.0) } else { row.mean };
            let lower_bound = results
                .workload_of(name, w, metric::WAIT_P95_LOWER_BOUND)
                .is_some_and(|r| r.mean > 0.0);
            bars.push(Bar {
                workload,
                strategy,
                mean_h: row.mean,
                low_h: bound(row.ci95_low),
                high_h: bound(row.ci95_high),
                lower_bound,
            });
        }
    }
    bars
}

/// Diagonal lines over a bar that is only a lower bound.
fn hatch<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<IndexAxis, plotters::coord::types::RangedCoordf64>,
    >,
    x0: f64,
    x1: f64,
    top_h: f64,
    color: &RGBColor,
) -> DrawResult<(), DB> {
    let (left, bottom) = chart.backend_coord(&(x0, 0.0));
    let (right, top) = chart.backend_coord(&(x1, top_h));
    let step = 14;
    let mut lines = Vec::new();
    let mut start = left - (bottom - top);
    while start < right {
        // A 45-degree line from the bottom edge up, clipped to the bar.
        let (mut ax, mut ay) = (start, bottom);
        let (mut bx, mut by) = (start + (bottom - top), top);
        if ax < left {
            ay -= left - ax;
            ax = left;
        }
        if bx > right {
            by += bx - right;
            bx = right;
        }
        if ax < bx {
            lines.push(((ax, ay), (bx, by)));
        }
        start += step;
    }
    let area = chart.plotting_area().strip_coord_spec();
    let (offset_x, offset_y) = (area.get_base_pixel().0, area.get_base_pixel().1);
    for ((ax, ay), (bx, by)) in lines {
        area.draw(&PathElement::new(
            vec![
                (ax - offset_x, ay - offset_y),
                (bx - offset_x, by - offset_y),
            ],
            color.stroke_width(3),
        ))?;
    }
    Ok(())
}

fn hours(value_h: f64) -> String {
    if value_h < 10.0 {
        format!("{value_h:.2} h")
    } else {
        format!("{} h", crate::format::thousands(value_h, 0))
    }
}
