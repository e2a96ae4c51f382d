//! Total cost over two varied parameters, a panel per strategy: where in the plane each
//! strategy is cheapest.
//!
//! A grid gives a heatmap, a cell per pair of values, coloured on a colour-blind-safe
//! sequential scale (viridis, light where cheap), the value written in each cell when it fits
//! and the cheapest cell outlined; further parameters are held at the cheapest point's values.
//! A sample has no cells: each point is a dot at its two values, coloured the same way.
//! Strategies whose cost is the same everywhere in the plane (they use neither parameter) get
//! no panel; the subtitle gives their cost instead.

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::super::style::{
    self, DrawResult, INK, IndexAxis, MUTED, MoneyAxis, font, strategy_color,
};
use super::axis::{ParamAxis, nice_ticks};
use super::input::{Metric, SweepResults};
use super::slices::{Slicing, join_and};

/// Room right of each panel's plot for its colour bar and labels, in pixels.
const BAR_AREA_PX: u32 = 170;
const BAR_W_PX: i32 = 26;

/// Viridis (matplotlib; van der Walt and Smith), sampled at nine even steps from dark purple
/// to yellow: perceptually uniform and readable with the common colour-vision deficiencies
/// and in grey.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x48, 0x28, 0x78),
    (0x3E, 0x4A, 0x89),
    (0x31, 0x68, 0x8E),
    (0x26, 0x82, 0x8E),
    (0x1F, 0x9E, 0x89),
    (0x35, 0xB7, 0x79),
    (0x6D, 0xCD, 0x59),
    (0xFD, 0xE7, 0x25),
];

/// Cells without a value.
const MISSING: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);

/// The colour of `t` in 0..=1 on viridis, interpolated between its steps.
pub fn viridis(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let scaled = t * (VIRIDIS.len() - 1) as f64;
    let below = (scaled.floor() as usize).min(VIRIDIS.len() - 2);
    let f = scaled - below as f64;
    let (a, b) = (VIRIDIS[below], VIRIDIS[below + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Cost `value` within `lo..=hi` as a colour: the cheapest light (yellow), the dearest dark.
fn cost_color(value: f64, lo: f64, hi: f64) -> RGBColor {
    if hi > lo {
        viridis(1.0 - (value - lo) / (hi - lo))
    } else {
        viridis(1.0)
    }
}

/// Dark text on light cells, white on dark ones.
fn text_color(cell: RGBColor) -> RGBColor {
    let luminance =
        0.2126 * f64::from(cell.0) + 0.7152 * f64::from(cell.1) + 0.0722 * f64::from(cell.2);
    if luminance > 120.0 { INK } else { WHITE }
}

/// A strategy's costs at the points shown: (point, cost) where known.
struct Costs {
    strategy: usize,
    values: Vec<(usize, f64)>,
}

impl Costs {
    fn extent(&self) -> (f64, f64) {
        let lo = self
            .values
            .iter()
            .map(|v| v.1)
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .values
            .iter()
            .map(|v| v.1)
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// The cheapest point (the earlier on a tie).
    fn best(&self) -> Option<usize> {
        self.values
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .map(|v| v.0)
    }
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    x: usize,
    y: usize,
) -> DrawResult<(), DB> {
    let (px, py) = (&results.parameters[x], &results.parameters[y]);
    let slicing = Slicing::new(results, &[x, y], 1);
    let points: Vec<usize> = if results.grid {
        slicing.points(results, &[])
    } else {
        (0..results.n_points()).collect()
    };
    let all: Vec<Costs> = (0..results.strategies.len())
        .map(|strategy| Costs {
            strategy,
            values: points
                .iter()
                .filter_map(|&p| Some((p, results.stat(Metric::TotalCost, strategy, p)?.mean)))
                .collect(),
        })
        .collect();
    let (mut shown, flat): (Vec<&Costs>, Vec<&Costs>) = all.iter().partition(|c| {
        let (lo, hi) = c.extent();
        hi > lo
    });
    if shown.is_empty() {
        shown = all.iter().filter(|c| !c.values.is_empty()).collect();
    }
    let flat: Vec<&Costs> = flat
        .into_iter()
        .filter(|c| !c.values.is_empty() && !shown.iter().any(|s| s.strategy == c.strategy))
        .collect();

    let mut what = if results.grid {
        vec![
            format!(
                "Mean total cost {}, amortised, over {} at each point",
                results.horizon(),
                results.replications()
            ),
            "light is cheaper, on each panel's own scale".to_string(),
            "outlined: the strategy's cheapest cell".to_string(),
        ]
    } else {
        let mut parts = vec![
            format!(
                "Each dot a point of {}, coloured by its mean total cost {}, amortised, over {}",
                if results.meta.sampling.method == "lhs" {
                    "a Latin hypercube sample".to_string()
                } else {
                    format!("a {} sample", results.meta.sampling.method)
                },
                results.horizon(),
                results.replications()
            ),
            "light is cheaper, on each panel's own scale".to_string(),
            "ringed: the strategy's cheapest point".to_string(),
        ];
        let others: Vec<String> = results
            .parameters
            .iter()
            .enumerate()
            .filter(|(j, p)| *j != x && *j != y && p.levels.len() > 1)
            .map(|(_, p)| p.name.clone())
            .collect();
        if !others.is_empty() {
            let verb = if others.len() == 1 { "varies" } else { "vary" };
            parts.push(format!("{} {verb} from dot to dot too", join_and(&others)));
        }
        parts
    };
    if results.grid {
        let fixed = slicing.describe(results);
        if !fixed.is_empty() {
            what.push(fixed);
        }
    }
    if !flat.is_empty() {
        let all_values: Vec<f64> = flat.iter().map(|c| c.values[0].1).collect();
        let money = MoneyAxis::new(&style::extent(all_values), &results.meta.currency);
        let listed: Vec<String> = flat
            .iter()
            .map(|c| {
                format!(
                    "{} {} {}",
                    results.strategies[c.strategy],
                    money.label(c.values[0].1),
                    money.unit
                )
            })
            .collect();
        what.push(format!(
            "not shown, the same everywhere here: {}",
            join_and(&listed)
        ));
    }
    let area = style::header(
        root,
        &format!(
            "Total cost over {} and {} — {} sweep",
            px.name, py.name, results.meta.scenario_name
        ),
        &what.join("; "),
        &results.provenance(),
    )?;

    let (rows, cols) = if results.grid {
        layout(&area, shown.len(), px.levels.len(), py.levels.len())
    } else {
        style::panel_grid(shown.len())
    };
    let cells = area.split_evenly((rows, cols));
    for (costs, cell) in shown.iter().zip(&cells) {
        let (caption, caption_style) = style::panel_caption(
            cell,
            &results.strategies[costs.strategy],
            strategy_color(costs.strategy),
        )?;
        if results.grid {
            draw_cells(
                cell,
                results,
                costs,
                x,
                y,
                (rows, cols),
                (caption, caption_style),
            )?;
        } else {
            draw_dots(cell, results, costs, x, y, rows, (caption, caption_style))?;
        }
    }
    Ok(())
}

/// The smallest text for the values in the cells; below it, cells stay without values.
const VALUE_MIN_PX: u32 = 13;

/// Rows and columns of `n` panels of `nx` x `ny` cells on `area`: the usual grid, or panels
/// side by side or stacked when that gives cells more room for their values (many columns of
/// cells in narrow panels leave no room for a number such as `9,526`).
fn layout<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    n: usize,
    nx: usize,
    ny: usize,
) -> (usize, usize) {
    let (width, height) = area.dim_in_pixel();
    // Room a value needs at a readable size, and what axes, caption and colour bar take.
    let (value_w, value_h) = (70.0, 28.0);
    let room = |(rows, cols): (usize, usize)| {
        let cell_w =
            (f64::from(width) / cols as f64 - f64::from(BAR_AREA_PX) - 130.0) / nx.max(1) as f64;
        let cell_h = (f64::from(height) / rows as f64 - 140.0) / ny.max(1) as f64;
        (cell_w / value_w).min(cell_h / value_h)
    };
    let usual = style::panel_grid(n);
    let mut best = usual;
    if n <= 3 {
        for candidate in [(n, 1), (1, n)] {
            if room(candidate) > room(best) * 1.2 {
                best = candidate;
            }
        }
    }
    best
}

/// The titles of a panel's axes and their common text size.
fn axis_titles<DB: DrawingBackend>(
    cell: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    x: usize,
    y: usize,
) -> DrawResult<(String, String, u32), DB> {
    let (width, height) = cell.dim_in_pixel();
    let (x_title, x_px) =
        results.parameters[x].title_within(cell, width.saturating_sub(BAR_AREA_PX + 120))?;
    let (y_title, y_px) = results.parameters[y].title_within(cell, height.saturating_sub(120))?;
    Ok((x_title, y_title, x_px.min(y_px)))
}

/// Room for the tick labels of a categorical axis: its widest label plus a margin.
fn label_room<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &[String],
) -> DrawResult<u32, DB> {
    let mut widest = 0;
    for label in labels {
        widest = widest.max(area.estimate_text_size(label, &font(style::TICK_PX))?.0);
    }
    Ok(widest + 24 + style::AXIS_PX + 16)
}

/// The axes of a heatmap panel: the parameters' axes, their tick labels, how many ticks and
/// whether grid lines run across the plane.
struct CellAxes<'a, X, Y> {
    x: &'a X,
    y: &'a Y,
    x_label: &'a dyn Fn(f64) -> String,
    y_label: &'a dyn Fn(f64) -> String,
    /// Every y tick label, to make room for the widest.
    y_labels: &'a [String],
    ticks: (usize, usize),
    grid: bool,
}

/// A heatmap panel's chart on `cell`: its caption, room on the right for the colour bar, the
/// axes of parameters `x` and `y` with their titles, drawn.
fn cell_chart<'a, DB, X, Y>(
    cell: &'a DrawingArea<DB, Shift>,
    results: &SweepResults,
    (x, y): (usize, usize),
    rows: usize,
    (caption, caption_style): (String, TextStyle<'static>),
    axes: CellAxes<'_, X, Y>,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<X, Y>>, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64> + Clone,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64> + Clone,
{
    let mut chart = ChartBuilder::on(cell)
        .caption(caption, caption_style)
        .margin_left(16)
        .margin_right(BAR_AREA_PX)
        .margin_top(6)
        .margin_bottom(8)
        .x_label_area_size(if rows > 1 { 66 } else { 76 })
        .y_label_area_size(label_room(cell, axes.y_labels)?)
        .build_cartesian_2d(axes.x.clone(), axes.y.clone())?;
    let (x_title, y_title, desc_px) = axis_titles(cell, results, x, y)?;
    let mut mesh = chart.configure_mesh();
    style::style_mesh(&mut mesh);
    if !axes.grid {
        mesh.disable_mesh();
    }
    mesh.x_labels(axes.ticks.0)
        .y_labels(axes.ticks.1)
        .x_label_formatter(&|p| (axes.x_label)(*p))
        .y_label_formatter(&|p| (axes.y_label)(*p))
        .x_desc(x_title)
        .y_desc(y_title)
        .axis_desc_style(font(desc_px))
        .draw()?;
    Ok(chart)
}

#[allow(clippy::too_many_arguments)]
fn draw_cells<DB: DrawingBackend>(
    cell: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    costs: &Costs,
    x: usize,
    y: usize,
    (rows, _cols): (usize, usize),
    caption: (String, TextStyle<'static>),
) -> DrawResult<(), DB> {
    let (px, py) = (&results.parameters[x], &results.parameters[y]);
    let x_labels: Vec<String> = px.levels.iter().map(|l| l.label()).collect();
    let y_labels: Vec<String> = py.levels.iter().map(|l| l.label()).collect();
    // As many tick labels as have room: every value when there are few.
    let (width, height) = cell.dim_in_pixel();
    let mut x_widest = 0;
    for label in &x_labels {
        x_widest = x_widest.max(cell.estimate_text_size(label, &font(style::TICK_PX))?.0);
    }
    let x_room = width.saturating_sub(BAR_AREA_PX + label_room(cell, &y_labels)? + 40);
    let x_ticks = (x_room / (x_widest + 16).max(1)).max(2) as usize;
    let y_ticks = (height.saturating_sub(160) / (style::TICK_PX + 10)).max(2) as usize;
    let x_step = x_labels.len().div_ceil(x_ticks);
    let y_step = y_labels.len().div_ceil(y_ticks);
    let (x_axis, y_axis) = (
        IndexAxis::every_nth(x_labels.clone(), x_step),
        IndexAxis::every_nth(y_labels.clone(), y_step),
    );
    let mut chart = cell_chart(
        cell,
        results,
        (x, y),
        rows,
        caption,
        CellAxes {
            x: &x_axis,
            y: &y_axis,
            x_label: &|i| x_axis.label(i),
            y_label: &|i| y_axis.label(i),
            y_labels: &y_labels,
            ticks: (x_labels.len(), y_labels.len()),
            grid: false,
        },
    )?;

    let (lo, hi) = costs.extent();
    let money = MoneyAxis::new(&(lo..hi), &results.meta.currency);
    let best = costs.best();
    let (x_px, y_px) = chart.plotting_area().get_pixel_range();
    let cell_w = (x_px.end - x_px.start) / px.levels.len().max(1) as i32;
    let cell_h = (y_px.end - y_px.start) / py.levels.len().max(1) as i32;
    // One size for every cell's value: the largest at which the widest value fits a cell.
    let mut widest = String::new();
    for &(_, cost) in &costs.values {
        let label = money.label(cost);
        if label.len() > widest.len() {
            widest = label;
        }
    }
    let mut text_px = style::LEGEND_PX;
    while text_px > VALUE_MIN_PX {
        let (w, h) = cell.estimate_text_size(&widest, &font(text_px))?;
        if (w as i32) + 8 <= cell_w && (h as i32) + 4 <= cell_h {
            break;
        }
        text_px -= 1;
    }
    let value_style = font(text_px);

    // Every cell of the plane, grey where the sweep has no value.
    for (i, _) in px.levels.iter().enumerate() {
        for (j, _) in py.levels.iter().enumerate() {
            let corners = [
                (i as f64 - 0.5, j as f64 - 0.5),
                (i as f64 + 0.5, j as f64 + 0.5),
            ];
            let point = costs
                .values
                .iter()
                .find(|(p, _)| px.level_of[*p] == i && py.level_of[*p] == j);
            let (fill, label) = match point {
                Some(&(_, cost)) => (cost_color(cost, lo, hi), money.label(cost)),
                None => (MISSING, "–".to_string()),
            };
            chart.draw_series([
                Rectangle::new(corners, fill.filled()),
                // White gaps between cells, unless cells are so small that gaps would hide them.
                Rectangle::new(
                    corners,
                    WHITE.stroke_width(u32::from(cell_w.min(cell_h) >= 14) * 2),
                ),
            ])?;
            let (w, h) = cell.estimate_text_size(&label, &value_style)?;
            if (w as i32) + 8 <= cell_w && (h as i32) + 4 <= cell_h {
                chart.draw_series(std::iter::once(Text::new(
                    label,
                    (i as f64, j as f64),
                    value_style
                        .color(&text_color(fill))
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                )))?;
            }
        }
    }
    if let Some(best) = best {
        let (i, j) = (px.level_of[best] as f64, py.level_of[best] as f64);
        let half = 0.47;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(i - half, j - half), (i + half, j + half)],
            INK.stroke_width(5),
        )))?;
    }
    color_bar(cell, (x_px.end, y_px.clone()), lo, hi, &money)
}

fn draw_dots<DB: DrawingBackend>(
    cell: &DrawingArea<DB, Shift>,
    results: &SweepResults,
    costs: &Costs,
    x: usize,
    y: usize,
    rows: usize,
    caption: (String, TextStyle<'static>),
) -> DrawResult<(), DB> {
    let (px, py) = (&results.parameters[x], &results.parameters[y]);
    let x_axis = ParamAxis::new(px.scale, &px.levels, 6, px.listed);
    let y_axis = ParamAxis::new(py.scale, &py.levels, 6, py.listed);
    let y_labels: Vec<String> = y_axis.ticks().iter().map(|t| t.1.clone()).collect();
    let mut chart = cell_chart(
        cell,
        results,
        (x, y),
        rows,
        caption,
        CellAxes {
            x: &x_axis,
            y: &y_axis,
            x_label: &|p| x_axis.label(p),
            y_label: &|p| y_axis.label(p),
            y_labels: &y_labels,
            ticks: (6, 6),
            grid: true,
        },
    )?;
    let (lo, hi) = costs.extent();
    let money = MoneyAxis::new(&(lo..hi), &results.meta.currency);
    let (x_px, y_px) = chart.plotting_area().get_pixel_range();
    let radius = ((x_px.end - x_px.start).min(y_px.end - y_px.start) / 40).clamp(7, 14);
    let at = |p: usize| (px.coordinate(px.level_of[p]), py.coordinate(py.level_of[p]));
    // Dearest first, so that the cheap end of the plane is drawn on top.
    let mut order: Vec<&(usize, f64)> = costs.values.iter().collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for &&(p, cost) in &order {
        chart.draw_series([
            Circle::new(at(p), radius, cost_color(cost, lo, hi).filled()),
            Circle::new(at(p), radius, MUTED.stroke_width(1)),
        ])?;
    }
    if let Some(best) = costs.best() {
        chart.draw_series(std::iter::once(Circle::new(
            at(best),
            radius + 7,
            INK.stroke_width(4),
        )))?;
    }
    color_bar(cell, (x_px.end, y_px.clone()), lo, hi, &money)
}

/// The colour scale right of a plot whose right edge is at `right` and which spans `rows`
/// (absolute pixels): a bar, cheap at the bottom, with money ticks and the unit above.
fn color_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (right, rows): (i32, std::ops::Range<i32>),
    lo: f64,
    hi: f64,
    money: &MoneyAxis,
) -> DrawResult<(), DB> {
    let base = area.get_base_pixel();
    let left = right - base.0 + 28;
    let (top, bottom) = (rows.start - base.1, rows.end - base.1);
    let steps = 64;
    let height = f64::from(bottom - top);
    for k in 0..steps {
        // From the bottom (cheap, light) to the top (dear, dark).
        let y0 = bottom - (height * f64::from(k) / f64::from(steps)).round() as i32;
        let y1 = bottom - (height * f64::from(k + 1) / f64::from(steps)).round() as i32;
        let t = f64::from(k) / f64::from(steps - 1);
        area.draw(&Rectangle::new(
            [(left, y1), (left + BAR_W_PX, y0)],
            viridis(1.0 - t).filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(left, top), (left + BAR_W_PX, bottom)],
        MUTED.stroke_width(1),
    ))?;
    let tick_style = font(style::TICK_PX - 2)
        .color(&MUTED)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let y_of = |v: f64| {
        if hi > lo {
            bottom - ((v - lo) / (hi - lo) * height).round() as i32
        } else {
            (top + bottom) / 2
        }
    };
    let ticks: Vec<f64> = if hi > lo {
        nice_ticks(&(lo..hi), 5).into_iter().map(|t| t.0).collect()
    } else {
        vec![lo]
    };
    for v in ticks {
        let y = y_of(v);
        area.draw(&PathElement::new(
            vec![(left + BAR_W_PX, y), (left + BAR_W_PX + 6, y)],
            MUTED.stroke_width(1),
        ))?;
        area.draw(&Text::new(
            money.label(v),
            (left + BAR_W_PX + 10, y),
            tick_style.clone(),
        ))?;
    }
    area.draw(&Text::new(
        money.unit.clone(),
        (left - 6, top - 12),
        font(style::TICK_PX - 2)
            .color(&MUTED)
            .pos(Pos::new(HPos::Left, VPos::Bottom)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_runs_from_purple_to_yellow() {
        assert_eq!(viridis(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), RGBColor(0xFD, 0xE7, 0x25));
        assert_eq!(viridis(0.5), RGBColor(0x26, 0x82, 0x8E));
        // The cheapest is the lightest.
        assert_eq!(cost_color(10.0, 10.0, 20.0), viridis(1.0));
        assert_eq!(text_color(viridis(1.0)), INK);
        assert_eq!(text_color(viridis(0.0)), WHITE);
    }
}
