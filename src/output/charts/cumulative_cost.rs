//! Cumulative cost by month per strategy: the mean line over a band holding 90 % of the
//! replications (p5..p95), amortised view beside cash view, break-even months (from
//! `run.json`) marked on the cash curves and named in the legend.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::input::Results;
use super::style::{
    self, BAND_ALPHA, DrawResult, IndexAxis, LegendItem, MoneyAxis, Swatch, font, strategy_color,
};
use crate::records::MonthlyRow;

/// Which cost view a panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Amortised,
    Cash,
}

impl View {
    fn caption(self) -> &'static str {
        match self {
            View::Amortised => "Amortised view: capital spread over its amortisation",
            View::Cash => "Cash view: capital counted when it is paid",
        }
    }

    /// (mean, p5, p95) of the cumulative cost in this view.
    fn values(self, row: &MonthlyRow) -> (f64, f64, f64) {
        match self {
            View::Amortised => (
                row.cumulative_cost,
                row.cumulative_cost_p5,
                row.cumulative_cost_p95,
            ),
            View::Cash => (
                row.cumulative_cost_cash,
                row.cumulative_cost_cash_p5,
                row.cumulative_cost_cash_p95,
            ),
        }
    }
}

/// One strategy's curve: (month index, mean, p5, p95).
type Curve = Vec<(f64, f64, f64, f64)>;

fn curve(results: &Results, strategy: &str, view: View) -> Curve {
    let mut points: Curve = results
        .monthly
        .iter()
        .filter(|row| row.strategy == strategy)
        .filter_map(|row| {
            let idx = results.month_idx(&row.month)? as f64;
            let (mean, p5, p95) = view.values(row);
            Some((idx, mean, p5, p95))
        })
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let area = style::header(
        root,
        &format!("Cumulative cost by month — {}", meta.scenario_name),
        &format!(
            "Line: mean over {}; band: 5th to 95th percentile of the replications",
            style::replications(meta.replications)
        ),
    )?;
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
    let area = style::legend(&area, &items)?;

    let curves: Vec<[Curve; 2]> = results
        .strategies
        .iter()
        .map(|s| {
            [
                curve(results, s, View::Amortised),
                curve(results, s, View::Cash),
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
    for (panel, view) in [(left, View::Amortised), (right, View::Cash)] {
        let view_idx = usize::from(view == View::Cash);
        let mut chart = ChartBuilder::on(&panel)
            .caption(view.caption(), font(style::PANEL_PX))
            .margin_left(16)
            .margin_right(36)
            .margin_bottom(12)
            .x_label_area_size(58)
            .y_label_area_size(128)
            .build_cartesian_2d(
                IndexAxis::months(results.months.clone(), 7),
                y_range.clone(),
            )?;
        let x_axis = IndexAxis::months(results.months.clone(), 7);
        let mut mesh = chart.configure_mesh();
        style::style_mesh(&mut mesh);
        mesh.x_labels(12)
            .y_labels(8)
            .x_label_formatter(&|idx| x_axis.label(*idx))
            .y_label_formatter(&|amount| money.label(*amount))
            .y_desc(format!("Cumulative cost ({})", money.unit))
            .x_desc("Month")
            .draw()?;

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
        if view == View::Cash {
            break_even_marks(&mut chart, results, &curves)?;
        }
    }
    Ok(())
}

/// Marks each strategy's break-even month on its cash curve: a circle on the curve and a
/// dashed drop line to the month axis.
fn break_even_marks<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<IndexAxis, RangedCoordf64>>,
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
