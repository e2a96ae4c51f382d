//! Busy and paid GPUs per pool, month by month (mean over replications, from
//! `pools_monthly.csv`): one panel per strategy on a shared scale, a colour per pool.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::panels::{self, YAxis};
use super::style::{self, DrawResult, LegendItem, Swatch, pool_color};

/// Draws the chart on `area`, below its heading.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let all_pools = results.all_pools();
    let mut items = vec![
        LegendItem::new("busy", Swatch::Line(style::INK)),
        LegendItem::new("paid for", Swatch::Dashed(style::INK)),
    ];
    items.extend(
        all_pools
            .iter()
            .enumerate()
            .map(|(idx, pool)| LegendItem::new(*pool, Swatch::Block(pool_color(idx)))),
    );
    let area = style::legend(area, &items)?;

    let top = style::extent(
        results
            .pools_monthly
            .iter()
            .flat_map(|r| [r.gpus_busy, r.gpus_paid]),
    )
    .end;
    let y_range = 0.0..(top.max(1.0) * 1.08);
    let y = YAxis {
        range: y_range.clone(),
        label_px: 100,
        label: &|gpus| style::number_label(gpus, &y_range),
        desc: "GPUs".to_string(),
        desc_in_grid: "GPUs".to_string(),
    };
    panels::strategy_panels(&area, results, &y, true, |chart, strategy| {
        for pool in results.pools_of(strategy) {
            let color = pool_color(all_pools.iter().position(|p| *p == pool).unwrap_or(0));
            let mut points: Vec<(f64, f64, f64)> = results
                .pools_monthly
                .iter()
                .filter(|r| r.strategy == strategy && r.pool == pool)
                .filter_map(|r| {
                    let month_idx = results.month_idx(&r.month)?;
                    Some((month_idx as f64, r.gpus_busy, r.gpus_paid))
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            // A pool draws only over the months it paid for GPUs (a reservation's term, a
            // purchase onwards), so that its lines stop rather than fall to zero.
            for run in points.split(|&(_, _, paid)| paid.is_nan() || paid <= 0.0) {
                // A single month has no line to draw: a short level segment shows it.
                let run: Vec<(f64, f64, f64)> = match run {
                    [] => continue,
                    [(x, busy, paid)] => vec![(x - 0.3, *busy, *paid), (x + 0.3, *busy, *paid)],
                    _ => run.to_vec(),
                };
                chart.draw_series(DashedLineSeries::new(
                    run.iter().map(|&(x, _, paid)| (x, paid)),
                    10,
                    7,
                    color.stroke_width(3),
                ))?;
                chart.draw_series(LineSeries::new(
                    run.iter().map(|&(x, busy, _)| (x, busy)),
                    color.stroke_width(4),
                ))?;
            }
        }
        Ok(())
    })
}
