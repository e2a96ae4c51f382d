//! Cumulative cost by month per strategy: the mean line over a band holding 90 % of the
//! replications (p5..p95), amortised view beside cash view, break-even months (from
//! `run.json`) marked on the cash curves and named in the legend.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::input::Results;
use super::panels::{self, MonthChart, MonthPanel};
use super::style::{
    self, BAND_ALPHA, CostView, DrawResult, IndexAxis, LegendItem, MoneyAxis, Swatch, font,
    strategy_color,
};
use crate::records::MonthlyRow;

/// (mean, p5, p95) of the cumulative cost in `view`.
fn cumulative(view: CostView, row: &MonthlyRow) -> (f64, f64, f64) {
    match view {
        CostView::Amortised => (
            row.cumulative_cost,
            row.cumulative_cost_p5,
            row.cumulative_cost_p95,
        ),
        CostView::Cash => (
            row.cumulative_cost_cash,
            row.cumulative_cost_cash_p5,
            row.cumulative_cost_cash_p95,
        ),
    }
}

/// One strategy's curve: (month index, mean, p5, p95).
type Curve = Vec<(f64, f64, f64, f64)>;

fn curve(results: &Results, strategy: &str, view: CostView) -> Curve {
    let mut points: Curve = results
        .monthly
        .iter()
        .filter(|row| row.strategy == strategy)
        .filter_map(|row| {
            let idx = results.month_idx(&row.month)? as f64;
            let (mean, p5, p95) = cumulative(view, row);
            Some((idx, mean, p5, p95))
        })
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

/// Draws the chart on `area`, below its heading.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let items: Vec<LegendItem> = results
        .strategies
        .iter()
        .enumerate()
        .map(|(idx, name)| {
            LegendItem::new(
                legend_label(results, name),
                Swatch::LineOnBand(strategy_color(idx)),
            )
        })
        .chain(std::iter::once(LegendItem::new(
            "break-even: cash cost below the baseline's from then on",
            Swatch::Ring(style::INK),
        )))
        .collect();
    let area = style::legend(area, &items)?;

    let curves: Vec<[Curve; 2]> = results
        .strategies
        .iter()
        .map(|s| {
            [
                curve(results, s, CostView::Amortised),
                curve(results, s, CostView::Cash),
            ]
        })
        .collect();
    // Both panels share the y axis so that the views compare at a glance.
    let top = style::extent(
        curves
            .iter()
            .flatten()
            .flatten()
            .flat_map(|&(_, mean, _, p95)| [mean, p95]),
    )
    .end;
    let y_range = 0.0..(top.max(1.0) * 1.04);
    let money = MoneyAxis::new(&y_range, &meta.currency);

    let (width, _) = area.dim_in_pixel();
    let (left, right) = area.split_horizontally(width / 2);
    for (panel, view) in [(left, CostView::Amortised), (right, CostView::Cash)] {
        let view_idx = usize::from(view == CostView::Cash);
        let mut chart = panels::month_chart(
            &panel,
            MonthPanel {
                caption: (view.caption().to_string(), font(style::PANEL_PX)),
                margin_right_px: 36,
                margin_bottom_px: 12,
                x_label_px: 58,
                months: IndexAxis::months(results.months.clone(), 7),
                y_range: y_range.clone(),
                y_ticks: 8,
                y_label: &|amount| money.label(amount),
                y_desc: format!("Cumulative cost ({})", money.unit),
                x_desc: "Month",
                y_label_px: 128,
                month_lines: true,
            },
        )?;

        if results.months.len() == 1 {
            // One month: a line of one point shows nothing, so each strategy gets a bar of its
            // band and a dot for its mean, side by side.
            single_month(&mut chart, &curves, view_idx)?;
            if view == CostView::Cash {
                break_even_marks(&mut chart, results, &curves)?;
            }
            continue;
        }
        // Bands first, then every line over them, so that no band hides a line.
        for (idx, curves) in curves.iter().enumerate() {
            let points = &curves[view_idx];
            if points.is_empty() {
                continue;
            }
            let color = strategy_color(idx);
            let outline: Vec<(f64, f64)> = points
                .iter()
                .map(|&(x, _, p5, _)| (x, p5))
                .chain(points.iter().rev().map(|&(x, _, _, p95)| (x, p95)))
                .filter(|&(_, y)| y.is_finite())
                .collect();
            chart.draw_series(std::iter::once(Polygon::new(
                outline,
                color.mix(BAND_ALPHA).filled(),
            )))?;
        }
        for (idx, curves) in curves.iter().enumerate() {
            let color = strategy_color(idx);
            let line = curves[view_idx]
                .iter()
                .map(|&(x, mean, _, _)| (x, mean))
                .filter(|&(_, y)| y.is_finite());
            chart.draw_series(LineSeries::new(line, color.stroke_width(4)))?;
        }
        if view == CostView::Cash {
            break_even_marks(&mut chart, results, &curves)?;
        }
    }
    Ok(())
}

/// Where strategy `idx` of `n` is drawn in month `x` of a one-month chart: side by side
/// across the month's slot.
fn single_month_x(x: f64, idx: usize, n: usize) -> f64 {
    let width = 0.6 / n.max(1) as f64;
    x + (idx as f64 - (n as f64 - 1.0) / 2.0) * width
}

/// A one-month horizon: per strategy, its p5..p95 band as a bar and its mean as a dot.
fn single_month<DB: DrawingBackend>(
    chart: &mut MonthChart<'_, DB>,
    curves: &[[Curve; 2]],
    view_idx: usize,
) -> DrawResult<(), DB> {
    let n = curves.len();
    let half = 0.6 / n.max(1) as f64 * 0.3;
    for (idx, curves) in curves.iter().enumerate() {
        let color = strategy_color(idx);
        for &(x, mean, p5, p95) in &curves[view_idx] {
            let x = single_month_x(x, idx, n);
            if p5.is_finite() && p95.is_finite() {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x - half, p5), (x + half, p95)],
                    color.mix(BAND_ALPHA * 2.0).filled(),
                )))?;
            }
            if mean.is_finite() {
                chart.draw_series([
                    Circle::new((x, mean), 9, color.filled()),
                    Circle::new((x, mean), 9, WHITE.stroke_width(2)),
                ])?;
            }
        }
    }
    Ok(())
}

/// Marks each strategy's break-even month on its cash curve: a circle on the curve and a
/// dashed drop line to the month axis.
fn break_even_marks<DB: DrawingBackend>(
    chart: &mut MonthChart<'_, DB>,
    results: &Results,
    curves: &[[Curve; 2]],
) -> DrawResult<(), DB> {
    for (idx, strategy) in results.strategies.iter().enumerate() {
        let Some(month_idx) = results
            .break_even_month(strategy)
            .and_then(|month| results.month_idx(month))
        else {
            continue;
        };
        let x = month_idx as f64;
        let Some(&(_, mean, _, _)) = curves[idx][1].iter().find(|p| p.0 == x) else {
            continue;
        };
        let x = if results.months.len() == 1 {
            single_month_x(x, idx, curves.len())
        } else {
            x
        };
        let color = strategy_color(idx);
        chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(x, 0.0), (x, mean)],
            8,
            6,
            color.stroke_width(2),
        )))?;
        chart.draw_series([
            Circle::new((x, mean), 9, WHITE.filled()),
            Circle::new((x, mean), 9, color.stroke_width(4)),
        ])?;
    }
    Ok(())
}

/// A strategy's legend entry: its name and, since the legend is the one place that cannot hide
/// a curve, its break-even month.
fn legend_label(results: &Results, strategy: &str) -> String {
    if strategy == results.meta.baseline {
        return format!("{strategy} (baseline)");
    }
    match results.break_even_month(strategy) {
        Some(month) => format!("{strategy}: break-even {month}"),
        None => format!("{strategy}: no break-even"),
    }
}
