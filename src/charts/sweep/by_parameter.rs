//! A headline metric (total cost or p95 wait) against one varied parameter, one colour per
//! strategy.
//!
//! - A grid over numbers: the mean at each value as a line over its 95 % confidence band.
//!   Other parameters make panels (up to [`PANELS_MAX`]) or are held at the cheapest point's
//!   values, as the subtitle says.
//! - A grid over names (`fifo`, `backfill`): a dot with 95 % whiskers per strategy and name,
//!   side by side.
//! - A random or Latin hypercube sample has no two points that differ in one parameter only, so
//!   lines would join unrelated points: each point is a dot, and the trend is the mean of the
//!   dots in bins of the parameter (or per name).
//!
//! In a grid, a strategy the parameter cannot change (`SweepResults::relevant`) is drawn once,
//! as a dashed reference line with its value, not as a line of identical points. The total
//! cost chart of a one-row grid adds, under each panel, the question it is read for: how much
//! dearer each value is than the strategy's cheapest one, as the paired difference over the
//! same jobs (from the points' `replications.csv`) with its 95 % interval. The axis titles
//! say what the parameter is in the words of the scenario schema.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::super::style::{
    self, BAND_ALPHA, DrawResult, INK, LegendItem, MoneyAxis, Swatch, strategy_color,
};
use super::axis::{ParamAxis, Scale, TICK_SLOT_PX};
use super::input::{Metric, Stat, SweepResults, UNFINISHED_NOTED};
use super::slices::{PANELS_MAX, Slicing, join_and};

/// Bins of a sample's trend line: about the square root of the points, within these bounds.
const BINS_MIN: usize = 3;
const BINS_MAX: usize = 10;

/// One strategy's value at one point of a panel.
#[derive(Debug, Clone, Copy)]
struct Mark {
    /// Position of the point in `sweep.json`.
    point: usize,
    x: f64,
    stat: Stat,
    /// More than [`UNFINISHED_NOTED`] of the jobs unfinished: drawn hollow.
    unfinished: bool,
}

/// What a panel shows: its caption and, per strategy, its marks in order along the axis.
struct Panel {
    caption: String,
    marks: Vec<Vec<Mark>>,
}

pub fn title(metric: Metric) -> &'static str {
    match metric {
        Metric::TotalCost => "Total cost",
        _ => "p95 wait",
    }
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    metric: Metric,
    x: usize,
) -> DrawResult<(), DB> {
    let parameter = &results.parameters[x];
    let categorical = parameter.scale == Scale::Categorical;
    let (panels, what) = if results.grid {
        grid_panels(results, metric, x)
    } else {
        sample_panel(results, metric, x)
    };
    let any_unfinished = panels
        .iter()
        .flat_map(|p| p.marks.iter().flatten())
        .any(|m| m.unfinished);
    let mut subtitle = what;
    // Above a strip of paired differences the y axis is too short for the horizon.
    if metric == Metric::TotalCost && results.grid && style::panel_grid(panels.len()).0 == 1 {
        subtitle.push_str(&format!("; total cost {}, amortised", results.horizon()));
    }
    if any_unfinished {
        subtitle.push_str(
            "; hollow: more than 1 % of jobs unfinished at the end (waits of jobs never started count up to the end: lower bounds)",
        );
    }

    let area = style::header(
        root,
        &format!(
            "{} against {} — {} sweep",
            title(metric),
            lower_first(&parameter.label),
            results.meta.scenario_name
        ),
        &subtitle,
        &results.provenance(),
    )?;
    let swatch = |idx: usize| {
        let color = strategy_color(idx);
        match (results.grid, categorical) {
            (true, false) => Swatch::LineOnBand(color),
            (true, true) => Swatch::Block(color),
            (false, _) => Swatch::Line(color),
        }
    };
    let reference = |idx: usize| results.grid && !results.relevant[idx][x];
    let mut items: Vec<LegendItem> = results
        .strategies
        .iter()
        .enumerate()
        .map(|(idx, name)| {
            if reference(idx) {
                LegendItem::new(
                    format!("{name} (not changed by {})", parameter.name),
                    Swatch::Dashed(strategy_color(idx)),
                )
            } else {
                LegendItem::new(name, swatch(idx))
            }
        })
        .collect();
    if any_unfinished {
        items.push(LegendItem::new(
            "more than 1 % of jobs unfinished",
            Swatch::Ring(INK),
        ));
    }
    let area = style::legend(&area, &items)?;

    draw_panels(&area, results, metric, x, &panels)
}

/// "Nodes in the pool dgx" as it reads inside a sentence: "nodes in the pool dgx" (an
/// acronym such as "PUE" or "GPUs" keeps its capitals).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_string(),
    }
}

/// Per strategy, its marks at `points`, in order along the axis of parameter `x`.
fn marks(results: &SweepResults, metric: Metric, x: usize, points: &[usize]) -> Vec<Vec<Mark>> {
    let parameter = &results.parameters[x];
    (0..results.strategies.len())
        .map(|s| {
            let mut marks: Vec<Mark> = points
                .iter()
                .filter_map(|&p| {
                    Some(Mark {
                        point: p,
                        x: parameter.coordinate(parameter.level_of[p]),
                        stat: results.stat(metric, s, p)?,
                        unfinished: results.unfinished(s, p) > UNFINISHED_NOTED,
                    })
                })
                .collect();
            marks.sort_by(|a, b| a.x.total_cmp(&b.x));
            marks
        })
        .collect()
}

/// A grid's panels (one per combination of the parameters that make panels) and what the
/// subtitle says of them.
fn grid_panels(results: &SweepResults, metric: Metric, x: usize) -> (Vec<Panel>, String) {
    let categorical = results.parameters[x].scale == Scale::Categorical;
    let slicing = Slicing::new(results, &[x], PANELS_MAX);
    let panels: Vec<Panel> = slicing
        .panels(results)
        .iter()
        .map(|combination| Panel {
            caption: slicing.caption(results, combination),
            marks: marks(results, metric, x, &slicing.points(results, combination)),
        })
        .collect();
    let shape = if categorical {
        format!(
            "Dot: mean over {} at each point; whiskers: 95 % confidence interval",
            results.replications()
        )
    } else {
        format!(
            "Line: mean over {} at each point; band: 95 % confidence interval",
            results.replications()
        )
    };
    let mut what = vec![shape];
    if !slicing.panels_by.is_empty() {
        let names: Vec<String> = slicing
            .panels_by
            .iter()
            .map(|&j| results.parameters[j].name.clone())
            .collect();
        what.push(format!("a panel per value of {}", join_and(&names)));
    }
    let others = slicing.describe(results);
    if !others.is_empty() {
        what.push(others);
    }
    (panels, what.join("; "))
}

/// A sample's one panel of every point and what the subtitle says of it.
fn sample_panel(results: &SweepResults, metric: Metric, x: usize) -> (Vec<Panel>, String) {
    let parameter = &results.parameters[x];
    let categorical = parameter.scale == Scale::Categorical;
    let all: Vec<usize> = (0..results.n_points()).collect();
    let panel = Panel {
        caption: String::new(),
        marks: marks(results, metric, x, &all),
    };
    let bins = bins(parameter.levels.len(), results.n_points());
    let trend = if categorical || bins == parameter.levels.len() {
        format!("line: mean of the dots at each value of {}", parameter.name)
    } else {
        format!(
            "line: mean of the dots in each of {bins} equal bins of {}",
            parameter.name
        )
    };
    let others: Vec<String> = results
        .parameters
        .iter()
        .enumerate()
        .filter(|(j, p)| *j != x && p.levels.len() > 1)
        .map(|(_, p)| p.name.clone())
        .collect();
    let mut what = format!(
        "Dots: the {} points of {}, each the mean over {}; {trend}",
        results.n_points(),
        sample_name(&results.meta.sampling.method),
        results.replications()
    );
    if !others.is_empty() {
        what.push_str(&format!(
            "; {} {} from dot to dot too, so the spread about the line is partly {} effect",
            join_and(&others),
            if others.len() == 1 { "varies" } else { "vary" },
            if others.len() == 1 { "its" } else { "their" }
        ));
    }
    (vec![panel], what)
}

/// The panels on `area`, on one y scale so that they compare at a glance.
fn draw_panels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    metric: Metric,
    x: usize,
    panels: &[Panel],
) -> DrawResult<(), DB> {
    let parameter = &results.parameters[x];
    let categorical = parameter.scale == Scale::Categorical;
    // One scale for every panel, so that panels compare at a glance.
    let values = panels
        .iter()
        .flat_map(|p| p.marks.iter().flatten())
        .flat_map(|m| {
            if results.grid {
                vec![m.stat.mean, m.stat.ci95_low, m.stat.ci95_high]
            } else {
                vec![m.stat.mean]
            }
        });
    let extent = style::extent(values);
    let y_range = match metric {
        // Waits start at zero, no wait being the reference, with a little room below so that
        // dots at zero are not cut by the axis.
        Metric::WaitP95 => {
            let top = extent.end.max(0.1) * 1.08;
            (-0.03 * top)..top
        }
        _ => style::padded(extent, 0.08),
    };
    let money = MoneyAxis::new(&y_range, &results.meta.currency);
    let y_title = match metric {
        Metric::TotalCost => format!(
            "Total cost {}, amortised ({})",
            results.horizon(),
            money.unit
        ),
        _ => "p95 wait from arrival to first start (hours)".to_string(),
    };
    let y_label = |y: f64| match metric {
        Metric::TotalCost => money.label(y),
        // No tick in the room below zero.
        _ if y < 0.0 => String::new(),
        _ => style::number_label(y, &y_range),
    };

    let (rows, cols) = style::panel_grid(panels.len());
    let cells = area.split_evenly((rows, cols));
    let ticks_max = (style::WIDTH_PX as usize / cols / TICK_SLOT_PX).max(3);
    let axis = ParamAxis::new(
        parameter.scale,
        &parameter.levels,
        ticks_max,
        parameter.listed,
    );
    let (x_title, desc_px) = match cells.first() {
        Some(cell) => parameter.title_within(cell, cell.dim_in_pixel().0.saturating_sub(160))?,
        None => (parameter.title(), style::AXIS_PX),
    };
    let references: Vec<bool> = (0..results.strategies.len())
        .map(|s| results.grid && !results.relevant[s][x])
        .collect();
    for (panel, cell) in panels.iter().zip(&cells) {
        let paired = (metric == Metric::TotalCost && results.grid && rows == 1)
            .then(|| paired_differences(results, panel, &references))
            .flatten();
        let (cell, strip) = match &paired {
            Some(_) => {
                let height = cell.dim_in_pixel().1;
                let (upper, lower) = cell.split_vertically(height * 62 / 100);
                (upper, Some(lower))
            }
            None => (cell.clone(), None),
        };
        let cell = &cell;
        let mut builder = ChartBuilder::on(cell);
        if !panel.caption.is_empty() {
            let (caption, caption_style) = style::panel_caption(cell, &panel.caption, INK)?;
            builder.caption(caption, caption_style);
        }
        let mut chart = builder
            .margin_left(16)
            .margin_right(36)
            .margin_top(6)
            .margin_bottom(8)
            .x_label_area_size(if rows > 1 { 66 } else { 76 })
            .y_label_area_size(if rows > 1 { 112 } else { 128 })
            .build_cartesian_2d(axis.clone(), y_range.clone())?;
        let mut mesh = chart.configure_mesh();
        style::style_mesh(&mut mesh);
        mesh.axis_desc_style(style::font(desc_px))
            .x_labels(ticks_max)
            .y_labels(if rows > 1 { 6 } else { 9 })
            .x_label_formatter(&|position| axis.label(*position))
            .y_label_formatter(&|y| y_label(*y))
            // With the paired strip below, it carries the parameter's title.
            .x_desc(if strip.is_some() {
                String::new()
            } else {
                x_title.clone()
            })
            // A long rotated title would not fit the height of a panel in a grid.
            .y_desc(if rows == 1 && strip.is_none() {
                y_title.clone()
            } else if rows == 1 {
                format!("{} ({})", title(metric), money.unit)
            } else {
                match metric {
                    Metric::TotalCost => money.unit.clone(),
                    _ => "hours".to_string(),
                }
            })
            .draw()?;
        let n_strategies = results.strategies.len();
        if results.grid {
            draw_references(
                &mut chart,
                results,
                &panel.marks,
                &references,
                |y| match metric {
                    Metric::TotalCost => crate::format::money(y, &results.meta.currency),
                    _ => format!("{} h", style::number_label(y, &y_range)),
                },
            )?;
        }
        let shown: Vec<Vec<Mark>> = panel
            .marks
            .iter()
            .zip(&references)
            .map(|(marks, &reference)| if reference { Vec::new() } else { marks.clone() })
            .collect();
        match (results.grid, categorical) {
            (true, false) => draw_lines(&mut chart, &shown)?,
            (true, true) => draw_whiskers(&mut chart, &shown, n_strategies)?,
            (false, _) => {
                let bins = bins(parameter.levels.len(), results.n_points());
                let range = axis_range(&chart);
                draw_sample(&mut chart, &panel.marks, categorical, bins, range)?;
            }
        }
        if let (Some(strip), Some(paired)) = (strip, &paired) {
            draw_paired(&strip, results, &axis, ticks_max, &x_title, paired)?;
        }
    }
    Ok(())
}

/// One strategy's paired differences to its cheapest point in a panel: (position on the axis,
/// difference) per point, and the cheapest point's position.
struct Paired {
    strategy: usize,
    differences: Vec<(f64, Stat)>,
    cheapest_x: f64,
}

/// The paired differences of every strategy the parameter changes, or None when some point's
/// replications are unknown (a folder without the points' files) or no strategy varies.
fn paired_differences(
    results: &SweepResults,
    panel: &Panel,
    references: &[bool],
) -> Option<Vec<Paired>> {
    let mut all = Vec::new();
    for (strategy, marks) in panel.marks.iter().enumerate() {
        if references[strategy] || marks.len() < 2 {
            continue;
        }
        let cheapest = marks
            .iter()
            .min_by(|a, b| a.stat.mean.total_cmp(&b.stat.mean))?;
        let mut differences = Vec::new();
        for mark in marks {
            let stat = results.paired_cost_difference(strategy, mark.point, cheapest.point)?;
            differences.push((mark.x, stat));
        }
        all.push(Paired {
            strategy,
            differences,
            cheapest_x: cheapest.x,
        });
    }
    (!all.is_empty()).then_some(all)
}

/// The strip under a total cost panel: per strategy, how much dearer each value is than its
/// cheapest, paired, with 95 % whiskers; zero is the cheapest.
fn draw_paired<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    axis: &ParamAxis,
    ticks_max: usize,
    x_title: &str,
    paired: &[Paired],
) -> DrawResult<(), DB> {
    let values = paired.iter().flat_map(|p| {
        p.differences
            .iter()
            .flat_map(|(_, d)| [d.mean, d.ci95_low, d.ci95_high])
    });
    let extent = style::extent(values.chain([0.0]));
    let y_range = style::padded(extent, 0.1);
    let money = MoneyAxis::new(&y_range, &results.meta.currency);
    let mut chart = ChartBuilder::on(strip)
        .caption(
            "Paired difference to each strategy's cheapest value (the same jobs at every point), 95 % interval",
            style::font(style::NOTE_PX),
        )
        .margin_left(16)
        .margin_right(36)
        .margin_top(4)
        .margin_bottom(6)
        .x_label_area_size(56)
        .y_label_area_size(128)
        .build_cartesian_2d(axis.clone(), y_range.clone())?;
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    mesh.x_labels(ticks_max)
        .y_labels(5)
        .x_label_formatter(&|position| axis.label(*position))
        .y_label_formatter(&|y| money.label(*y))
        .x_desc(x_title)
        .y_desc(format!("vs cheapest ({})", money.unit))
        .draw()?;
    let std::ops::Range {
        start: left,
        end: right,
    } = axis_range(&chart);
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(left, 0.0), (right, 0.0)],
        INK.stroke_width(1),
    )))?;
    let n = paired.len();
    let span = right - left;
    for (k, p) in paired.iter().enumerate() {
        let color = strategy_color(p.strategy);
        let shift = (k as f64 - (n as f64 - 1.0) / 2.0) * span * 0.012;
        for (x, d) in &p.differences {
            let x = x + shift;
            if d.ci95_low.is_finite() && d.ci95_high.is_finite() {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x, d.ci95_low), (x, d.ci95_high)],
                    color.stroke_width(3),
                )))?;
            }
            chart.draw_series(marker((x, d.mean), 6, color, false))?;
        }
        chart.draw_series(marker((p.cheapest_x + shift, 0.0), 9, color, true))?;
    }
    Ok(())
}

/// The strategies the parameter cannot change, each once: a dashed line at its mean over the
/// panel with its 95 % band, and its value written at the right.
fn draw_references<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    results: &SweepResults,
    marks: &[Vec<Mark>],
    references: &[bool],
    value: impl Fn(f64) -> String,
) -> DrawResult<(), DB> {
    use plotters::element::DashedPathElement;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let std::ops::Range {
        start: left,
        end: right,
    } = axis_range(chart);
    for (idx, marks) in marks.iter().enumerate() {
        if !references[idx] || marks.is_empty() {
            continue;
        }
        let color = strategy_color(idx);
        let means: Vec<f64> = marks.iter().map(|m| m.stat.mean).collect();
        let mean = crate::stats::mean(&means);
        let (low, high) = (marks[0].stat.ci95_low, marks[0].stat.ci95_high);
        if low.is_finite() && high.is_finite() {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(left, low), (right, high)],
                color.mix(BAND_ALPHA).filled(),
            )))?;
        }
        chart.draw_series(std::iter::once(DashedPathElement::new(
            vec![(left, mean), (right, mean)],
            12,
            8,
            color.stroke_width(3),
        )))?;
        let mut text_style = style::bold(style::NOTE_PX);
        text_style.color = color.to_backend_color();
        chart.draw_series(std::iter::once(
            EmptyElement::at((right, mean))
                + Text::new(
                    format!("{}: {}", results.strategies[idx], value(mean)),
                    (-8, -6),
                    text_style.pos(Pos::new(HPos::Right, VPos::Bottom)),
                ),
        ))?;
    }
    Ok(())
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<ParamAxis, RangedCoordf64>>;

fn axis_range<DB: DrawingBackend>(chart: &Chart<'_, DB>) -> std::ops::Range<f64> {
    let (left, right) = (chart.x_range().start, chart.x_range().end);
    left..right
}

/// "a Latin hypercube sample", "a random sample".
fn sample_name(method: &str) -> String {
    match method {
        "lhs" => "a Latin hypercube sample".to_string(),
        "grid" => "a grid".to_string(),
        other => format!("a {other} sample"),
    }
}

/// Bins of a sample's trend: one per value when there are few values, else about the square
/// root of the number of points.
fn bins(levels: usize, points: usize) -> usize {
    let by_points = ((points as f64).sqrt().round() as usize).clamp(BINS_MIN, BINS_MAX);
    if levels <= by_points {
        levels
    } else {
        by_points
    }
}

/// A marker at (x, y): filled, or hollow for a point with unfinished jobs.
fn marker(
    at: (f64, f64),
    radius: i32,
    color: RGBColor,
    hollow: bool,
) -> [Circle<(f64, f64), i32>; 2] {
    if hollow {
        [
            Circle::new(at, radius, WHITE.filled()),
            Circle::new(at, radius, color.stroke_width(3)),
        ]
    } else {
        [
            Circle::new(at, radius, color.filled()),
            Circle::new(at, radius, WHITE.stroke_width(1)),
        ]
    }
}

/// Bands first, then every line over them, so that no band hides a line.
fn draw_lines<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    marks: &[Vec<Mark>],
) -> DrawResult<(), DB> {
    for (idx, marks) in marks.iter().enumerate() {
        let banded: Vec<&Mark> = marks
            .iter()
            .filter(|m| m.stat.ci95_low.is_finite() && m.stat.ci95_high.is_finite())
            .collect();
        if banded.len() < 2 {
            continue;
        }
        let outline: Vec<(f64, f64)> = banded
            .iter()
            .map(|m| (m.x, m.stat.ci95_low))
            .chain(banded.iter().rev().map(|m| (m.x, m.stat.ci95_high)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(
            outline,
            strategy_color(idx).mix(BAND_ALPHA).filled(),
        )))?;
    }
    // Strategies often coincide (the parameter changes neither, or both wait as long): the
    // earlier ones are drawn wider underneath, so that each shows as a stripe of its colour.
    // Dots likewise, larger underneath.
    let n = marks.len();
    let wider = |idx: usize| (n - 1 - idx).min(3) as u32;
    for (idx, marks) in marks.iter().enumerate() {
        chart.draw_series(LineSeries::new(
            marks.iter().map(|m| (m.x, m.stat.mean)),
            strategy_color(idx).stroke_width(3 + 2 * wider(idx)),
        ))?;
    }
    for (idx, marks) in marks.iter().enumerate() {
        let radius = 6 + 2 * wider(idx) as i32;
        for m in marks {
            chart.draw_series(marker(
                (m.x, m.stat.mean),
                radius,
                strategy_color(idx),
                m.unfinished,
            ))?;
        }
    }
    Ok(())
}

/// Offset of strategy `idx` of `n` within a category's slot, so that strategies stand side by
/// side instead of on top of each other.
fn dodge(idx: usize, n: usize) -> f64 {
    let width = (0.7 / n.max(1) as f64).min(0.16);
    (idx as f64 - (n as f64 - 1.0) / 2.0) * width
}

fn draw_whiskers<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    marks: &[Vec<Mark>],
    n: usize,
) -> DrawResult<(), DB> {
    for (idx, marks) in marks.iter().enumerate() {
        let color = strategy_color(idx);
        let cap = 0.03;
        for m in marks {
            let x = m.x + dodge(idx, n);
            let (low, high) = (m.stat.ci95_low, m.stat.ci95_high);
            if low.is_finite() && high.is_finite() {
                let whisker = color.stroke_width(3);
                chart.draw_series([
                    PathElement::new(vec![(x, low), (x, high)], whisker),
                    PathElement::new(vec![(x - cap, low), (x + cap, low)], whisker),
                    PathElement::new(vec![(x - cap, high), (x + cap, high)], whisker),
                ])?;
            }
            chart.draw_series(marker((x, m.stat.mean), 9, color, m.unfinished))?;
        }
    }
    Ok(())
}

/// Dots for every point, then per strategy the trend: the mean of its dots per bin (numbers,
/// equal bins along the axis) or per value (names, a short bar at the value).
fn draw_sample<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    marks: &[Vec<Mark>],
    categorical: bool,
    bins: usize,
    range: std::ops::Range<f64>,
) -> DrawResult<(), DB> {
    let n = marks.len();
    for (idx, marks) in marks.iter().enumerate() {
        let color = strategy_color(idx);
        let shift = if categorical { dodge(idx, n) } else { 0.0 };
        for m in marks {
            let at = (m.x + shift, m.stat.mean);
            if m.unfinished {
                chart.draw_series(marker(at, 6, color, true))?;
            } else {
                chart.draw_series(std::iter::once(Circle::new(
                    at,
                    6,
                    color.mix(0.55).filled(),
                )))?;
            }
        }
    }
    for (idx, marks) in marks.iter().enumerate() {
        let color = strategy_color(idx);
        let trend = trend(marks, categorical, bins, &range);
        if categorical {
            let half = dodge(1, 2).abs().max(0.05);
            for (x, y) in trend {
                let x = x + dodge(idx, n);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x - half, y), (x + half, y)],
                    color.stroke_width(5),
                )))?;
            }
        } else {
            chart.draw_series(LineSeries::new(trend, color.stroke_width(4)))?;
        }
    }
    Ok(())
}

/// The mean position and mean value of the marks in each non-empty bin: one bin per distinct
/// position for names or when `bins` equals the positions, else `bins` equal slices of the
/// axis' `range`.
fn trend(
    marks: &[Mark],
    categorical: bool,
    bins: usize,
    range: &std::ops::Range<f64>,
) -> Vec<(f64, f64)> {
    let mut positions: Vec<f64> = marks.iter().map(|m| m.x).collect();
    positions.sort_by(f64::total_cmp);
    positions.dedup();
    let per_value = categorical || positions.len() <= bins;
    let bin_of = |x: f64| -> usize {
        if per_value {
            positions
                .iter()
                .position(|p| *p == x)
                .expect("every position is listed")
        } else {
            let fraction = (x - range.start) / (range.end - range.start);
            ((fraction * bins as f64) as usize).min(bins - 1)
        }
    };
    let n_bins = if per_value { positions.len() } else { bins };
    let mut sums = vec![(0.0, 0.0, 0usize); n_bins];
    for m in marks {
        let bin = &mut sums[bin_of(m.x)];
        bin.0 += m.x;
        bin.1 += m.stat.mean;
        bin.2 += 1;
    }
    sums.into_iter()
        .filter(|b| b.2 > 0)
        .map(|(x, y, n)| (x / n as f64, y / n as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(x: f64, mean: f64) -> Mark {
        Mark {
            point: 0,
            x,
            stat: Stat {
                mean,
                ci95_low: mean,
                ci95_high: mean,
            },
            unfinished: false,
        }
    }

    #[test]
    fn a_trend_averages_the_dots_of_each_bin() {
        let marks = [
            mark(0.0, 1.0),
            mark(1.0, 3.0),
            mark(9.0, 10.0),
            mark(10.0, 20.0),
        ];
        // Two bins of 0..10: [0, 5) and [5, 10].
        assert_eq!(
            trend(&marks, false, 2, &(0.0..10.0)),
            [(0.5, 2.0), (9.5, 15.0)]
        );
        // Few distinct values: one bin each.
        assert_eq!(trend(&marks, false, 4, &(0.0..10.0)).len(), 4);
        assert_eq!(bins(4, 100), 4);
        assert_eq!(bins(50, 20), 4);
        assert_eq!(bins(50, 4), 3);
    }

    #[test]
    fn strategies_stand_side_by_side_in_a_slot() {
        assert_eq!(dodge(0, 1), 0.0);
        assert!(dodge(0, 4) < 0.0 && dodge(3, 4) > 0.0);
        assert!((dodge(0, 4) + dodge(3, 4)).abs() < 1e-12);
    }
}
