//! Utilisation per pool (busy / paid GPU-hours over the horizon, from `pools.csv`): a bar per
//! pool with the mean over the replications and a 5th..95th percentile whisker, grouped under
//! each strategy's name. Each owned or reserved pool carries its break-even utilisation (month
//! by month from the price curves, as run.json gives it, see [`crate::scenario::economics`]):
//! a dashed mark across its bar, named beside its value; when prices move it, a shaded band
//! from its lowest to its highest month with a dashed mark at each end, the note naming both
//! months.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::input::Results;
use super::style::{self, DrawResult, IndexAxis, LegendItem, Swatch, bold, font, strategy_color};
use crate::scenario::economics::{BreakEven, percent};
use crate::stats::{mean, quantile};

/// A row of the chart: a strategy's name, or one of its pools.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Strategy(usize),
    Pool {
        strategy_idx: usize,
        label: String,
        /// Mean, p5, p95 of the utilisation; None when the pool paid for no GPU-hours.
        utilization: Option<(f64, f64, f64)>,
        /// Owned and reserved pools: the utilisation above which the pool costs less than
        /// its GPU-hours on demand, month by month.
        break_even: Option<BreakEven>,
    },
}

/// Where the x axis ends: a little past 100 % for the value labels.
const X_END: f64 = 1.13;

fn pool_type_label(pool_type: &str) -> String {
    pool_type.replace('_', "-")
}

fn slots(results: &Results) -> Vec<Slot> {
    let break_evens = results.break_evens();
    let mut slots = Vec::new();
    for (strategy_idx, strategy) in results.strategies.iter().enumerate() {
        slots.push(Slot::Strategy(strategy_idx));
        for pool in results.pools_of(strategy) {
            let rows: Vec<_> = results
                .pools
                .iter()
                .filter(|r| &r.strategy == strategy && r.pool == pool)
                .collect();
            let pool_type = rows.first().map(|r| pool_type_label(&r.pool_type));
            let label = match pool_type {
                Some(t) => format!("{pool} ({t})"),
                None => pool.to_string(),
            };
            let values: Vec<f64> = rows
                .iter()
                .filter(|r| r.gpu_hours_paid > 0.0 && r.utilization.is_finite())
                .map(|r| r.utilization)
                .collect();
            let utilization = (!values.is_empty()).then(|| {
                (
                    mean(&values),
                    quantile(&values, 0.05),
                    quantile(&values, 0.95),
                )
            });
            let owned = rows
                .first()
                .is_some_and(|r| r.pool_type == "on_prem" || r.pool_type == "reserved");
            let break_even = break_evens
                .iter()
                .find(|b| b.pool == pool && !b.by_month.is_empty())
                .filter(|_| owned)
                .cloned();
            slots.push(Slot::Pool {
                strategy_idx,
                label,
                utilization,
                break_even,
            });
        }
    }
    slots
}

/// What follows a pool's utilisation: where it breaks even, and when prices move it, a
/// second line with the other end of the range.
fn break_even_note(break_even: &BreakEven) -> (String, Option<String>) {
    if break_even.never_pays_off() {
        return (" \u{b7} never pays off against on-demand".to_string(), None);
    }
    match break_even.range() {
        None => (
            format!(" \u{b7} break-even {}", percent(break_even.by_month[0])),
            None,
        ),
        Some(r) => (
            format!(
                " \u{b7} break-even {} (month {})",
                percent(r.low),
                r.low_month
            ),
            Some(format!("to {} (month {})", percent(r.high), r.high_month)),
        ),
    }
}

/// The lowest and highest month's break-even (the same when no price moves it).
fn lowest_and_highest(break_even: &BreakEven) -> (f64, f64) {
    match break_even.range() {
        Some(r) => (r.low, r.high),
        None => (break_even.by_month[0], break_even.by_month[0]),
    }
}

/// The dashed marks of a break-even at `low` (and `high`, when prices move it) on row `y`;
/// returns the rightmost mark inside the axis (0 if none), for the note to start after it.
fn draw_marks<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, IndexAxis>>,
    y: f64,
    low: f64,
    high: f64,
) -> DrawResult<f64, DB> {
    let marks = if high > low {
        vec![low, high]
    } else {
        vec![low]
    };
    let mut right: f64 = 0.0;
    for u in marks.into_iter().filter(|u| *u <= X_END) {
        right = right.max(u);
        chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(u, y - 0.45), (u, y + 0.45)],
            6,
            4,
            style::INK.stroke_width(3),
        )))?;
    }
    Ok(right)
}

/// Draws the chart on `area`, below its heading on `root` (labels go at pixel positions).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let slots = slots(results);
    let any_break_even = slots.iter().any(|s| {
        matches!(
            s,
            Slot::Pool {
                break_even: Some(_),
                ..
            }
        )
    });
    let mut items = Vec::new();
    if any_break_even {
        let moves = slots
            .iter()
            .any(|s| matches!(s, Slot::Pool { break_even: Some(b), .. } if b.range().is_some()));
        let prices = if moves {
            "grey band: its range as the scenario's prices move"
        } else {
            "at the scenario's prices"
        };
        items.push(LegendItem::new(
            format!("break-even: above it, cheaper than its busy GPU-hours on demand ({prices})"),
            Swatch::Dashed(style::INK),
        ));
    }
    let area = style::legend(area, &items)?;

    let n = slots.len();
    let tick_style = font(style::TICK_PX);
    let mut label_w = 0;
    for slot in &slots {
        if let Slot::Pool { label, .. } = slot {
            label_w = label_w.max(root.estimate_text_size(label, &tick_style)?.0 as i32);
        }
    }
    // Slot k from the top sits at n - 1 - k on the axis.
    let y_axis = IndexAxis::every(vec![String::new(); n]);
    let x_range = 0.0..X_END;
    let mut chart = ChartBuilder::on(&area)
        .margin_left(16)
        .margin_right(50)
        .margin_bottom(16)
        .x_label_area_size(70)
        .y_label_area_size(label_w + 40)
        .build_cartesian_2d(x_range.clone(), y_axis)?;
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    mesh.disable_y_mesh()
        .x_labels(7)
        .y_labels(0)
        .x_label_formatter(&|u| {
            if *u <= 1.0 + 1e-9 {
                format!("{:.0} %", u * 100.0)
            } else {
                String::new()
            }
        })
        .x_desc("Utilisation: busy / paid GPU-hours")
        .draw()?;

    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let panel_left = area.get_base_pixel().0 + 16;
    for (k, slot) in slots.iter().enumerate() {
        let y = (n - 1 - k) as f64;
        let (_, y_px) = chart.backend_coord(&(0.0, y));
        match slot {
            Slot::Strategy(idx) => {
                root.draw(&Text::new(
                    results.strategies[*idx].clone(),
                    (panel_left, y_px),
                    bold(style::LEGEND_PX)
                        .color(&strategy_color(*idx))
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
            }
            Slot::Pool {
                strategy_idx,
                label,
                utilization,
                break_even,
            } => {
                root.draw(&Text::new(
                    label.clone(),
                    (plot_x.start - 14, y_px),
                    tick_style.pos(Pos::new(HPos::Right, VPos::Center)),
                ))?;
                let note_style = font(style::NOTE_PX).pos(Pos::new(HPos::Left, VPos::Center));
                let Some((u_mean, p5, p95)) = *utilization else {
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((0.0, y))
                            + Text::new(
                                "no GPU-hours paid",
                                (10, 0),
                                note_style.color(&style::MUTED),
                            ),
                    ))?;
                    continue;
                };
                // Where the break-even lies: one value, or the band prices move it through.
                let ends = break_even.as_ref().map(lowest_and_highest);
                if let Some((low, high)) = ends
                    && high > low
                    && low <= X_END
                {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(low, y - 0.45), (high.min(X_END), y + 0.45)],
                        style::INK.mix(0.14).filled(),
                    )))?;
                }
                let color = strategy_color(*strategy_idx);
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - 0.32), (u_mean.max(0.0), y + 0.32)],
                    color.filled(),
                )))?;
                let whisker = style::INK.stroke_width(2);
                chart.draw_series([
                    PathElement::new(vec![(p5, y), (p95, y)], whisker),
                    PathElement::new(vec![(p5, y - 0.16), (p5, y + 0.16)], whisker),
                    PathElement::new(vec![(p95, y - 0.16), (p95, y + 0.16)], whisker),
                ])?;
                let mut right = u_mean.max(p95);
                let mut note = format!("{:.0} %", u_mean * 100.0);
                let mut second_line = None;
                if let (Some(break_even), Some((low, high))) = (break_even, ends) {
                    right = right.max(draw_marks(&mut chart, y, low, high)?);
                    let (first, second) = break_even_note(break_even);
                    note.push_str(&first);
                    second_line = second;
                }
                match second_line {
                    None => chart.draw_series(std::iter::once(
                        EmptyElement::at((right, y)) + Text::new(note, (12, 0), note_style),
                    ))?,
                    Some(second) => chart.draw_series(std::iter::once(
                        EmptyElement::at((right, y))
                            + Text::new(note, (12, -10), note_style.clone())
                            + Text::new(second, (12, 10), note_style),
                    ))?,
                };
            }
        }
    }
    Ok(())
}
