//! Inference services: GPUs demanded against GPUs served and held, by month and by
//! hour of the day (means over replications, from `services_monthly.csv` and
//! `services_hourly.csv`). A row of two panels per service; demand in black, each strategy's
//! served GPUs as a line in its colour, the GPUs its replicas held dashed.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::input::Results;
use super::panels::{MonthPanel, month_chart};
use super::style::{self, DrawResult, IndexAxis, LegendItem, Swatch, strategy_color};
use crate::records::ServicePeriodRow;

/// The most services drawn (a row of panels each); the CSV files hold them all.
pub const SERVICES_MAX: usize = 4;

/// Draws the chart on `area`, below its heading.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &Results,
) -> DrawResult<(), DB> {
    let mut items = vec![
        LegendItem::new("demanded", Swatch::Line(style::INK)),
        LegendItem::new("held by replicas", Swatch::Dashed(style::INK)),
    ];
    items.extend(
        results
            .strategies
            .iter()
            .enumerate()
            .map(|(idx, s)| LegendItem::new(s.as_str(), Swatch::Line(strategy_color(idx)))),
    );
    let area = style::legend(area, &items)?;
    let services = results.service_names();
    let shown = &services[..services.len().min(SERVICES_MAX)];
    let rows = area.split_evenly((shown.len().max(1), 2));
    let hours: Vec<String> = (0..24).map(|h| format!("{h:02}")).collect();
    for (s, service) in shown.iter().enumerate() {
        let months = IndexAxis::months(results.months.clone(), 4);
        let monthly = period_rows(&results.services_monthly, service);
        let hourly = period_rows(&results.services_hourly, service);
        let top = style::extent(
            monthly
                .iter()
                .chain(&hourly)
                .flat_map(|r| [r.gpus_demanded, r.gpus_served, r.gpus_allocated]),
        )
        .end;
        let y_range = 0.0..(top.max(1.0) * 1.08);
        let label = |gpus: f64| style::number_label(gpus, &y_range);
        for (panel, axis, rows_of, x_desc, index) in [
            (&rows[2 * s], months, &monthly, "Month", Index::Month),
            (
                &rows[2 * s + 1],
                IndexAxis::every_nth(hours.clone(), 3),
                &hourly,
                "Hour of the day (UTC)",
                Index::Hour,
            ),
        ] {
            let caption = match index {
                Index::Month => format!("{service}: by month"),
                Index::Hour => format!("{service}: by hour of the day"),
            };
            let mut chart = month_chart(
                panel,
                MonthPanel {
                    caption: (caption, style::bold(26)),
                    margin_right_px: 30,
                    margin_bottom_px: 6,
                    x_label_px: 50,
                    months: axis,
                    y_range: y_range.clone(),
                    y_ticks: 6,
                    y_label: &label,
                    y_desc: "GPUs".to_string(),
                    x_desc,
                    y_label_px: 90,
                    month_lines: true,
                },
            )?;
            let x_of = |row: &ServicePeriodRow| -> Option<f64> {
                match index {
                    Index::Month => results.month_idx(&row.period).map(|m| m as f64),
                    Index::Hour => row.period.parse::<f64>().ok(),
                }
            };
            for (idx, strategy) in results.strategies.iter().enumerate() {
                let color = strategy_color(idx);
                let mut points: Vec<(f64, &ServicePeriodRow)> = rows_of
                    .iter()
                    .filter(|r| &r.strategy == strategy)
                    .filter_map(|r| Some((x_of(r)?, *r)))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                let points = widen(points);
                // Demand is the same under every strategy (common random numbers): drawn once,
                // broad and underneath, so that served lines show where they fall short.
                if idx == 0 {
                    chart.draw_series(LineSeries::new(
                        points.iter().map(|(x, r)| (*x, r.gpus_demanded)),
                        style::INK.stroke_width(7),
                    ))?;
                }
                chart.draw_series(DashedLineSeries::new(
                    points.iter().map(|(x, r)| (*x, r.gpus_allocated)),
                    10,
                    7,
                    color.stroke_width(2),
                ))?;
                chart.draw_series(LineSeries::new(
                    points.iter().map(|(x, r)| (*x, r.gpus_served)),
                    color.stroke_width(2),
                ))?;
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Index {
    Month,
    Hour,
}

fn period_rows<'a>(rows: &'a [ServicePeriodRow], service: &str) -> Vec<&'a ServicePeriodRow> {
    rows.iter().filter(|r| r.service == service).collect()
}

/// A single point has no line to draw: a short level segment shows it.
fn widen(points: Vec<(f64, &ServicePeriodRow)>) -> Vec<(f64, &ServicePeriodRow)> {
    match points.as_slice() {
        [(x, row)] => vec![(x - 0.3, *row), (x + 0.3, *row)],
        _ => points,
    }
}
