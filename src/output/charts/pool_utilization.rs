//! Utilisation per pool (busy / paid GPU-hours over the horizon, from `pools.csv`): a bar per
//! pool with the mean over the replications and a 5th..95th percentile whisker, grouped under
//! each strategy's name.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::input::Results;
use super::style::{self, DrawResult, IndexAxis, LegendItem, Swatch, bold, font, strategy_color};
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
    },
}

/// Average utilisation above which owned GPUs usually pay off (DESIGN.md's market facts).
const ON_PREM_PAYS_OFF: f64 = 0.6;

fn pool_type_label(pool_type: &str) -> String {
    pool_type.replace('_', "-")
}

fn slots(results: &Results) -> Vec<Slot> {
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
            slots.push(Slot::Pool {
                strategy_idx,
                label,
                utilization,
            });
        }
    }
    slots
}

/// Draws the chart on `area`, below its heading on `root` (labels go at pixel positions).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let has_on_prem = results.pools.iter().any(|r| r.pool_type == "on_prem");
    let mut items = Vec::new();
    if has_on_prem {
        items.push(LegendItem::new(
            "60 %: above it, owned GPUs usually pay off",
            Swatch::Dashed(style::MUTED),
        ));
    }
    let area = style::legend(area, &items)?;

    let slots = slots(results);
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
    let x_range = 0.0..1.13;
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

    if has_on_prem {
        chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(ON_PREM_PAYS_OFF, -0.5), (ON_PREM_PAYS_OFF, n as f64 - 0.5)],
            10,
            7,
            style::MUTED.stroke_width(2),
        )))?;
    }
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
                let right = u_mean.max(p95);
                chart.draw_series(std::iter::once(
                    EmptyElement::at((right, y))
                        + Text::new(format!("{:.0} %", u_mean * 100.0), (12, 0), note_style),
                ))?;
            }
        }
    }
    Ok(())
}
