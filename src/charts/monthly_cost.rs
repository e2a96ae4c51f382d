//! Monthly cost per strategy, stacked by category (capital, energy, operations, reserved,
//! on-demand, spot, storage, network), with the p5-p95 range of the month's total over
//! replications as a whisker on each bar (the budget band): one panel per
//! strategy, on a shared scale.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::panels::{self, YAxis};
use super::style::{self, CATEGORY_COLORS, DrawResult, LegendItem, MoneyAxis, Swatch};
use crate::records::MonthlyRow;

type Category = (&'static str, fn(&MonthlyRow) -> f64);

/// Stacked bottom to top in this order; colours by position in [`CATEGORY_COLORS`].
const CATEGORIES: [Category; 8] = [
    ("capital (amortised)", |r| r.cost_capital),
    ("energy", |r| r.cost_energy),
    ("operations", |r| r.cost_operations),
    ("reserved", |r| r.cost_reserved),
    ("on-demand", |r| r.cost_on_demand),
    ("spot", |r| r.cost_spot),
    // Unknown (NaN) in folders written before these existed: nothing to stack.
    ("storage", |r| r.cost_storage.max(0.0)),
    ("network", |r| r.cost_network.max(0.0)),
];

/// Draws the chart on `area`, below its heading.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    // Only categories some strategy pays for get a legend entry.
    let used: Vec<usize> = (0..CATEGORIES.len())
        .filter(|&c| results.monthly.iter().any(|r| CATEGORIES[c].1(r) > 0.0))
        .collect();
    let mut items: Vec<LegendItem> = used
        .iter()
        .map(|&c| LegendItem::new(CATEGORIES[c].0, Swatch::Block(CATEGORY_COLORS[c])))
        .collect();
    // Folders of earlier versions, and runs of one replication, have no range to show.
    let has_band = results.monthly.iter().any(|r| band(r).is_some());
    if has_band {
        items.push(LegendItem::new(
            "total, p5-p95 over replications",
            Swatch::Whisker(style::INK),
        ));
    }
    let area = style::legend(area, &items)?;

    let top = style::extent(results.monthly.iter().map(|r| {
        let stacked = CATEGORIES
            .iter()
            .map(|(_, value)| value(r).max(0.0))
            .sum::<f64>();
        band(r).map_or(stacked, |(_, p95)| stacked.max(p95))
    }))
    .end;
    let y_range = 0.0..(top.max(1.0) * 1.06);
    let money = MoneyAxis::new(&y_range, &meta.currency);
    let y = YAxis {
        range: y_range,
        label_px: 128,
        label: &|amount| money.label(amount),
        desc: format!("Cost per month ({})", money.unit),
        desc_in_grid: money.unit.clone(),
    };
    panels::strategy_panels(&area, results, &y, false, |chart, strategy| {
        let mut bars = Vec::new();
        for row in results.monthly.iter().filter(|r| r.strategy == strategy) {
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
        let mut whiskers = Vec::new();
        for row in results.monthly.iter().filter(|r| r.strategy == strategy) {
            let (Some(month_idx), Some((p5, p95))) = (results.month_idx(&row.month), band(row))
            else {
                continue;
            };
            let x = month_idx as f64;
            let stroke = style::INK.stroke_width(2);
            whiskers.push(PathElement::new(vec![(x, p5), (x, p95)], stroke));
            for y in [p5, p95] {
                whiskers.push(PathElement::new(vec![(x - 0.16, y), (x + 0.16, y)], stroke));
            }
        }
        chart.draw_series(whiskers)?;
        Ok(())
    })
}

/// The p5 and p95 of a month's total (amortised) cost over replications, when they span a
/// range.
fn band(row: &MonthlyRow) -> Option<(f64, f64)> {
    let (p5, p95) = (row.cost_p5, row.cost_p95);
    (p5.is_finite() && p95.is_finite() && p95 > p5).then_some((p5, p95))
}
