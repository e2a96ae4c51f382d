//! The trade-off view: mean total cost against mean p95 wait per strategy, each with its 95 %
//! confidence interval as whiskers (from `summary.csv`), names beside the points.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::style::{
    self, CostWaitPlane, DrawResult, LegendItem, MoneyAxis, Swatch, bold, font, strategy_color,
};
use crate::records::metric;

/// A strategy's point: (mean, ci95 low, ci95 high) on each axis.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Point {
    strategy_idx: usize,
    wait: (f64, f64, f64),
    cost: (f64, f64, f64),
    /// Mean share of the arrived jobs still queued or running at the horizon's end.
    unfinished: f64,
    /// Mean share of the arrived jobs late for their deadline (finished late, or unfinished
    /// past it).
    late: f64,
}

/// Above this share of unfinished (or late) jobs a point's name says so (as the summary table
/// does): the waits of jobs never started count up to the horizon, so its wait is only a lower
/// bound, and a cheap strategy that misses deadlines is not cheap.
const UNFINISHED_NOTED: f64 = 0.01;

const POINT_PX: i32 = 11;

/// Draws the chart on `area`, below its heading on `root` (names go at pixel positions).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let items: Vec<LegendItem> = results
        .strategies
        .iter()
        .enumerate()
        .map(|(idx, name)| LegendItem::new(name, Swatch::Block(strategy_color(idx))))
        .collect();
    let area = style::legend(area, &items)?;

    let points = points(results);

    let waits = style::extent(points.iter().flat_map(|p| [p.wait.0, p.wait.1, p.wait.2]));
    // Waits start at zero: no wait is the reference. Extra room on the right for names.
    let wait_top = if waits.end > 0.0 { waits.end } else { 1.0 };
    let x_range = waits.start.min(0.0)..(wait_top * 1.3);
    let costs = style::extent(points.iter().flat_map(|p| [p.cost.0, p.cost.1, p.cost.2]));
    let y_range = style::padded(costs, 0.12);
    let money = MoneyAxis::new(&y_range, &meta.currency);

    let mut chart = style::cost_wait_chart(
        &area,
        CostWaitPlane {
            x_range: x_range.clone(),
            y_range: y_range.clone(),
            margin_right_px: 50,
            x_ticks: 10,
            x_label: &|hours| style::number_label(hours, &x_range),
            money: &money,
            cost_over: format!("over {} months", results.months.len()),
        },
    )?;

    for point in &points {
        let color = strategy_color(point.strategy_idx);
        let (wait, wait_low, wait_high) = point.wait;
        let (cost, cost_low, cost_high) = point.cost;
        let whisker = color.stroke_width(3);
        let cap_x = (x_range.end - x_range.start) * 0.006;
        let cap_y = (y_range.end - y_range.start) * 0.01;
        chart.draw_series([
            PathElement::new(vec![(wait_low, cost), (wait_high, cost)], whisker),
            PathElement::new(vec![(wait, cost_low), (wait, cost_high)], whisker),
            PathElement::new(
                vec![(wait_low, cost - cap_y), (wait_low, cost + cap_y)],
                whisker,
            ),
            PathElement::new(
                vec![(wait_high, cost - cap_y), (wait_high, cost + cap_y)],
                whisker,
            ),
            PathElement::new(
                vec![(wait - cap_x, cost_low), (wait + cap_x, cost_low)],
                whisker,
            ),
            PathElement::new(
                vec![(wait - cap_x, cost_high), (wait + cap_x, cost_high)],
                whisker,
            ),
        ])?;
        chart.draw_series([
            Circle::new((wait, cost), POINT_PX, color.filled()),
            Circle::new((wait, cost), POINT_PX, WHITE.stroke_width(2)),
        ])?;
    }

    // Names to the right of their points, moved down when they would overlap.
    let label_style = bold(style::LEGEND_PX);
    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    let mut order: Vec<&Point> = points.iter().collect();
    order.sort_by_key(|p| chart.backend_coord(&(p.wait.0, p.cost.0)).1);
    for point in order {
        let mut name = results.strategies[point.strategy_idx].clone();
        let noted: Vec<String> = [(point.unfinished, "unfinished"), (point.late, "late")]
            .into_iter()
            .filter(|(share, _)| *share > UNFINISHED_NOTED)
            .map(|(share, what)| {
                let percent = share * 100.0;
                let decimals = usize::from(percent < 10.0);
                format!("{percent:.decimals$} % {what}")
            })
            .collect();
        if !noted.is_empty() {
            name = format!("{name} ({} of jobs)", noted.join(", "));
        }
        let (w, h) = root.estimate_text_size(&name, &label_style)?;
        let (w, h) = (w as i32, h as i32);
        let (px, py) = chart.backend_coord(&(point.wait.0, point.cost.0));
        let x0 = if px + POINT_PX + 12 + w <= plot_x.end {
            px + POINT_PX + 12
        } else {
            px - POINT_PX - 12 - w
        };
        let mut y0 = py - h / 2;
        while let Some(&(_, oy, _, oh)) = placed
            .iter()
            .find(|&&(ox, oy, ow, oh)| x0 < ox + ow && ox < x0 + w && y0 < oy + oh && oy < y0 + h)
        {
            y0 = oy + oh + 4;
        }
        placed.push((x0, y0, w, h));
        root.draw(&Text::new(
            name,
            (x0, y0),
            label_style.color(&strategy_color(point.strategy_idx)),
        ))?;
    }
    if points.is_empty() {
        root.draw(&Text::new(
            "summary.csv has no total_cost and wait_p95_h rows",
            (style::MARGIN_PX, 300),
            font(style::AXIS_PX),
        ))?;
    }
    Ok(())
}

/// Each strategy's point: its p95 wait and total cost with their intervals, and the shares of
/// its jobs unfinished and late. Strategies without both figures have none.
fn points(results: &Results) -> Vec<Point> {
    // One replication has no interval (NaN bounds): its whiskers shrink to the point.
    let triple = |strategy: &str, metric: &str| {
        results.summary_of(strategy, metric).map(|r| {
            let bound = |b: f64| if b.is_finite() { b } else { r.mean };
            (r.mean, bound(r.ci95_low), bound(r.ci95_high))
        })
    };
    results
        .strategies
        .iter()
        .enumerate()
        .filter_map(|(strategy_idx, s)| {
            let wait = triple(s, metric::WAIT_P95_H)?;
            let cost = triple(s, metric::TOTAL_COST)?;
            let share_of_arrived =
                |metric: &str| match (triple(s, metric), triple(s, metric::JOBS_ARRIVED)) {
                    (Some((count, _, _)), Some((arrived, _, _))) if arrived > 0.0 => {
                        count / arrived
                    }
                    _ => 0.0,
                };
            let (unfinished, late) = (
                share_of_arrived(metric::JOBS_UNFINISHED),
                share_of_arrived(metric::DEADLINE_MISSES),
            );
            (wait.0.is_finite() && cost.0.is_finite()).then_some(Point {
                strategy_idx,
                wait,
                cost,
                unfinished,
                late,
            })
        })
        .collect()
}
