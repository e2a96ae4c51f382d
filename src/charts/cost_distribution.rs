//! The risk view: how total cost spreads over the replications, per strategy, as box plots
//! with every replication as a dot, amortised view above cash view, on money axes that start
//! at zero (so that lengths compare). The baseline's median is a dashed line, and each box
//! gives its paired difference with the baseline (`total_cost_vs_baseline` and
//! `total_cost_cash_vs_baseline` of summary.csv: the mean of the per-replication differences,
//! over the same jobs) with its 95 % interval.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::input::Results;
use super::style::{
    self, CostView, DrawResult, IndexAxis, LegendItem, MoneyAxis, Swatch, font, strategy_color,
};
use crate::records::metric;
use crate::stats::quantile;

/// Half the height of a box, in slots (one slot per strategy).
const BOX_HALF: f64 = 0.26;

/// Space between a box's last dot and its note, in pixels.
const NOTE_GAP_PX: i32 = 14;

/// Draws the chart on `area`, below its heading on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let n_months = results.months.len();
    let baseline = &meta.baseline;
    let area = style::legend(
        area,
        &[LegendItem::new(
            format!("median of the baseline, {baseline}"),
            Swatch::Dashed(style::INK),
        )],
    )?;

    let n = results.strategies.len();
    let values: Vec<[Vec<f64>; 2]> = results
        .strategies
        .iter()
        .map(|strategy| {
            let rows = || {
                results
                    .replications
                    .iter()
                    .filter(|r| &r.strategy == strategy)
            };
            [
                rows().map(|r| r.total_cost).collect(),
                rows().map(|r| r.total_cost_cash).collect(),
            ]
        })
        .collect();
    let extent = style::extent(values.iter().flatten().flatten().copied());
    // From zero (a break in the axis made 4.4 M look like a fifth of 9.4 M), with
    // room on the right for the notes.
    let top = extent.end.max(1.0);
    let x_range = extent.start.min(0.0)..(top * 1.12);
    let money = MoneyAxis::new(&x_range, &meta.currency);

    // The first strategy at the top: slot n - 1 - idx.
    let labels: Vec<String> = results
        .strategies
        .iter()
        .rev()
        .map(|s| {
            if s == baseline {
                format!("{s} (baseline)")
            } else {
                s.clone()
            }
        })
        .collect();
    let tick_style = font(style::TICK_PX);
    let mut label_w = 0;
    for label in &labels {
        label_w = label_w.max(root.estimate_text_size(label, &tick_style)?.0);
    }
    let y_axis = IndexAxis::every(labels);
    let baseline_idx = results.strategies.iter().position(|s| s == baseline);

    let (_, height) = area.dim_in_pixel();
    let (upper, lower) = area.split_vertically(height / 2);
    for (panel, view) in [(upper, CostView::Amortised), (lower, CostView::Cash)] {
        let view_idx = usize::from(view == CostView::Cash);
        let mut chart = ChartBuilder::on(&panel)
            .caption(view.caption(), font(style::PANEL_PX))
            .margin_left(16)
            .margin_right(40)
            .margin_bottom(8)
            .x_label_area_size(70)
            .y_label_area_size(label_w + 30)
            .build_cartesian_2d(x_range.clone(), y_axis.clone())?;
        let mut mesh = chart.configure_mesh();
        style::style_mesh(&mut mesh);
        mesh.disable_y_mesh()
            .x_labels(10)
            .y_labels(n)
            .label_style(tick_style.clone())
            .x_label_formatter(&|amount| money.label(*amount))
            .y_label_formatter(&|slot| y_axis.label(*slot))
            .x_desc(format!(
                "Total cost over {n_months} months ({})",
                money.unit
            ))
            .draw()?;

        let baseline_median = baseline_idx.map(|b| quantile(&values[b][view_idx], 0.5));
        if let Some(median) = baseline_median.filter(|m| m.is_finite()) {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                vec![(median, -0.5), (median, n as f64 - 0.5)],
                10,
                7,
                style::INK.stroke_width(2),
            )))?;
        }
        let metric = match view {
            CostView::Amortised => metric::TOTAL_COST_VS_BASELINE,
            CostView::Cash => metric::TOTAL_COST_CASH_VS_BASELINE,
        };
        let total = match view {
            CostView::Amortised => metric::TOTAL_COST,
            CostView::Cash => metric::TOTAL_COST_CASH,
        };
        let baseline_mean = results.summary_of(baseline, total).map(|r| r.mean);
        for (idx, strategy_values) in values.iter().enumerate() {
            let slot = (n - 1 - idx) as f64;
            let strategy = &results.strategies[idx];
            let note = match results.summary_of(strategy, metric) {
                Some(row) if Some(idx) != baseline_idx => {
                    Some(difference_note(row, baseline_mean, &meta.currency))
                }
                _ => None,
            };
            draw_box(
                &mut chart,
                &strategy_values[view_idx],
                slot,
                strategy_color(idx),
                note,
                baseline_median,
            )?;
        }
    }
    Ok(())
}

/// "−4.91 M EUR (95 % CI −4.93 to −4.88 M), −52 %": the paired difference with the
/// baseline, its interval and its share of the baseline's mean; "not significant" when the
/// interval holds zero.
fn difference_note(
    row: &crate::records::SummaryRow,
    baseline_mean: Option<f64>,
    currency: &str,
) -> String {
    let mut note = crate::format::money_difference(row.mean, row.ci95_low, row.ci95_high, currency);
    if !note.starts_with('\u{2212}') && row.mean > 0.0 {
        note.insert(0, '+');
    }
    if let Some(base) = baseline_mean.filter(|b| *b > 0.0) {
        let change = row.mean / base * 100.0;
        if change.is_finite() {
            let sign = if change.round() < 0.0 {
                "\u{2212}"
            } else {
                "+"
            };
            note.push_str(&format!(", {sign}{:.0} %", change.abs()));
        }
    }
    if row.ci95_low <= 0.0 && row.ci95_high >= 0.0 {
        note.push_str(", not significant");
    }
    note
}

fn draw_box<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, IndexAxis>>,
    values: &[f64],
    slot: f64,
    color: RGBColor,
    note: Option<String>,
    avoid: Option<f64>,
) -> DrawResult<(), DB> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return Ok(());
    }
    let [p5, p25, p50, p75, p95] = [0.05, 0.25, 0.5, 0.75, 0.95].map(|q| quantile(&finite, q));
    // Replications as dots, spread over the box's height in a fixed pattern (golden-ratio
    // steps) so that equal values do not hide each other and the picture is reproducible.
    let dots = finite.iter().enumerate().map(|(k, &value)| {
        let offset = ((k as f64 * 0.618_034).fract() - 0.5) * 2.0 * BOX_HALF * 0.85;
        Circle::new((value, slot + offset), 4, color.mix(0.55).filled())
    });
    chart.draw_series(dots)?;
    let whisker = color.stroke_width(3);
    chart.draw_series([
        PathElement::new(vec![(p5, slot), (p25, slot)], whisker),
        PathElement::new(vec![(p75, slot), (p95, slot)], whisker),
        PathElement::new(vec![(p5, slot - 0.12), (p5, slot + 0.12)], whisker),
        PathElement::new(vec![(p95, slot - 0.12), (p95, slot + 0.12)], whisker),
    ])?;
    chart.draw_series([
        Rectangle::new(
            [(p25, slot - BOX_HALF), (p75, slot + BOX_HALF)],
            color.mix(0.22).filled(),
        ),
        Rectangle::new(
            [(p25, slot - BOX_HALF), (p75, slot + BOX_HALF)],
            color.stroke_width(3),
        ),
    ])?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(p50, slot - BOX_HALF), (p50, slot + BOX_HALF)],
        color.stroke_width(6),
    )))?;
    if let Some(note) = note {
        // Right of the box, unless the text would cross the baseline's line: then left of it.
        let style = font(style::NOTE_PX);
        let (text_w, _) = chart.plotting_area().estimate_text_size(&note, &style)?;
        let text_w = text_w as i32 + NOTE_GAP_PX;
        let low = finite.iter().copied().fold(p5, f64::min);
        let high = finite.iter().copied().fold(p95, f64::max);
        let (low_px, _) = chart.backend_coord(&(low, slot));
        let (high_px, _) = chart.backend_coord(&(high, slot));
        let (plot_x, _) = chart.plotting_area().get_pixel_range();
        let crosses = |x0: i32, x1: i32| {
            avoid.is_some_and(|a| (x0 - 6..=x1 + 6).contains(&chart.backend_coord(&(a, slot)).0))
        };
        let fits_left = low_px - text_w >= plot_x.start && !crosses(low_px - text_w, low_px);
        let element = if crosses(high_px, high_px + text_w) && fits_left {
            EmptyElement::at((low, slot))
                + Text::new(
                    note,
                    (-NOTE_GAP_PX, 0),
                    style.pos(Pos::new(HPos::Right, VPos::Center)),
                )
        } else {
            EmptyElement::at((high, slot))
                + Text::new(
                    note,
                    (NOTE_GAP_PX, 0),
                    style.pos(Pos::new(HPos::Left, VPos::Center)),
                )
        };
        chart.draw_series(std::iter::once(element))?;
    }
    Ok(())
}
