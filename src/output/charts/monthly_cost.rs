//! Monthly cost per strategy, stacked by category (capital, energy, operations, reserved,
//! on-demand, spot): one panel per strategy, on a shared scale.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::style::{
    self, CATEGORY_COLORS, DrawResult, IndexAxis, LegendItem, MoneyAxis, Swatch, strategy_color,
};
use crate::records::MonthlyRow;

type Category = (&'static str, fn(&MonthlyRow) -> f64);

/// Stacked bottom to top in this order; colours by position in [`CATEGORY_COLORS`].
const CATEGORIES: [Category; 6] = [
    ("capital (amortised)", |r| r.cost_capital),
    ("energy", |r| r.cost_energy),
    ("operations", |r| r.cost_operations),
    ("reserved", |r| r.cost_reserved),
    ("on-demand", |r| r.cost_on_demand),
    ("spot", |r| r.cost_spot),
];

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let area = style::header(
        root,
        &format!("Monthly cost by category — {}", meta.scenario_name),
        &format!(
            "Cost per month, mean over {}; amortised view (capital spread over its amortisation); {}",
            style::replications(meta.replications),
            meta.currency
        ),
    )?;
    // Only categories some strategy pays for get a legend entry.
    let used: Vec<usize> = (0..CATEGORIES.len())
        .filter(|&c| results.monthly.iter().any(|r| CATEGORIES[c].1(r) > 0.0))
        .collect();
    let items: Vec<LegendItem> = used
        .iter()
        .map(|&c| LegendItem::new(CATEGORIES[c].0, Swatch::Block(CATEGORY_COLORS[c])))
        .collect();
    let area = style::legend(&area, &items)?;

    let top = style::extent(results.monthly.iter().map(|r| {
        CATEGORIES
            .iter()
            .map(|(_, value)| value(r).max(0.0))
            .sum::<f64>()
    }))
    .end;
    let y_range = 0.0..(top.max(1.0) * 1.06);
    let money = MoneyAxis::new(&y_range, &meta.currency);
    let (rows, cols) = style::panel_grid(results.strategies.len());
    let panels = area.split_evenly((rows, cols));
    let ticks_max = (style::WIDTH_PX as usize / cols / 170).max(2);
    let x_axis = IndexAxis::months(results.months.clone(), ticks_max);

    for (idx, (strategy, panel)) in results.strategies.iter().zip(&panels).enumerate() {
        let (caption, caption_style) = style::panel_caption(panel, strategy, strategy_color(idx))?;
        let mut chart = ChartBuilder::on(panel)
            .caption(caption, caption_style)
            .margin_left(16)
            .margin_right(30)
            .margin_bottom(6)
            .x_label_area_size(if rows > 1 { 40 } else { 58 })
            .y_label_area_size(128)
            .build_cartesian_2d(x_axis.clone(), y_range.clone())?;
        let mut mesh = chart.configure_mesh();
        style::style_mesh(&mut mesh);
        mesh.disable_x_mesh()
            .x_labels(12)
            .y_labels(if rows > 1 { 6 } else { 8 })
            .x_label_formatter(&|i| x_axis.label(*i))
            .y_label_formatter(&|amount| money.label(*amount))
            // A long rotated label would not fit the height of a panel in a grid.
            .y_desc(if rows == 1 {
                format!("Cost per month ({})", money.unit)
            } else {
                money.unit.clone()
            })
            .x_desc(if rows == 1 { "Month" } else { "" })
            .draw()?;

        let mut bars = Vec::new();
        for row in results.monthly.iter().filter(|r| &r.strategy == strategy) {
            let Some(month_idx) = results.month_idx(&row.month) else {
                continue;
            };
            let x = month_idx as f64;
            let mut base = 0.0;
            for (c, (_, value)) in CATEGORIES.iter().enumerate() {
                let amount = value(row);
                if amount.is_nan() || amount <= 0.0 {
                    continue;
                }
                bars.push(Rectangle::new(
                    [(x - 0.38, base), (x + 0.38, base + amount)],
                    CATEGORY_COLORS[c].filled(),
                ));
                base += amount;
            }
        }
        chart.draw_series(bars)?;
    }
    Ok(())
}
