//! The trade-off over the whole sweep: mean total cost against mean p95 wait, a dot per point
//! and strategy, coloured by strategy. The non-dominated dots (no other dot is at least as
//! cheap and waits at most as long, and better in one of the two) are ringed, joined and
//! numbered; a list beside the plot says which strategy and parameter values each one is, so
//! long labels never cover the dots.
//!
//! Every dot has whiskers for both 95 % intervals (cost up, p95 wait across); dots that
//! coincide (a strategy the varied parameters cannot change gives the same dot at every point)
//! are drawn once with their count; and up to [`LABELLED_MAX`] distinct dots are labelled with
//! the values of the parameters that matter for their strategy.
//!
//! A dot whose strategy left more than [`UNFINISHED_NOTED`] of its jobs unfinished is hollow
//! and never on the frontier: the waits of jobs never started count up to the horizon, so its
//! wait is only a lower bound.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::super::style::{
    self, CostWaitPlane, DrawResult, INK, LegendItem, MUTED, MoneyAxis, Swatch, bold, font,
    strategy_color,
};
use super::input::{Metric, SweepResults, UNFINISHED_NOTED};

/// A strategy at a point, or at several points with the same result (`count`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Dot {
    point: usize,
    strategy: usize,
    wait_h: f64,
    cost: f64,
    unfinished: bool,
    /// 95 % intervals of the two means (NaN bounds with one replication).
    wait_ci: (f64, f64),
    cost_ci: (f64, f64),
    /// Points that gave exactly this dot.
    count: usize,
}

/// Above this many distinct dots, only the non-dominated ones are named (by number).
const LABELLED_MAX: usize = 40;

/// Width of the list of non-dominated points right of the plot, in pixels.
const LIST_W_PX: u32 = 560;
/// At most this many non-dominated points are numbered and listed (evenly spread along the
/// frontier when there are more).
const LISTED_MAX: usize = 12;
const LIST_PX: u32 = 22;

/// The non-dominated dots in order of increasing wait (and decreasing cost). Equal dots (a
/// strategy the parameters do not change gives the same dot at every point) count once, at
/// the earliest point.
fn frontier(dots: &[Dot]) -> Vec<Dot> {
    let mut order: Vec<&Dot> = dots.iter().filter(|d| !d.unfinished).collect();
    order.sort_by(|a, b| {
        a.wait_h
            .total_cmp(&b.wait_h)
            .then(a.cost.total_cmp(&b.cost))
            .then(a.point.cmp(&b.point))
            .then(a.strategy.cmp(&b.strategy))
    });
    let mut kept: Vec<Dot> = Vec::new();
    for dot in order {
        if kept.last().is_none_or(|last| dot.cost < last.cost) {
            kept.push(*dot);
        }
    }
    kept
}

/// Up to `n` of `items`, evenly spread, the first and last always among them.
fn spread<T: Copy>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    if n <= 1 {
        return items.iter().take(n).copied().collect();
    }
    let last = items.len() - 1;
    let mut picked: Vec<usize> = (0..n)
        .map(|k| ((k * last) as f64 / (n - 1) as f64).round() as usize)
        .collect();
    picked.dedup();
    picked.into_iter().map(|i| items[i]).collect()
}

/// The parameter values that matter for a dot's strategy: "nodes = 8, burst_after_wait_h =
/// 4", or "the same at every point" when none of the varied parameters can change it.
fn values_of(results: &SweepResults, dot: &Dot) -> String {
    let values: Vec<String> = results
        .parameters
        .iter()
        .enumerate()
        .filter(|(j, p)| p.levels.len() > 1 && results.relevant[dot.strategy][*j])
        .map(|(_, p)| p.at(p.level_of[dot.point]))
        .collect();
    if values.is_empty() {
        "the same at every point".to_string()
    } else {
        values.join(", ")
    }
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &SweepResults,
) -> DrawResult<(), DB> {
    let meta = &results.meta;
    let (dots, missing) = dots(results);
    let best = frontier(&dots);
    let any_unfinished = dots.iter().any(|d| d.unfinished);

    let coincident = dots.iter().any(|d| d.count > 1);
    let mut subtitle = format!(
        "A dot per point and strategy ({} points), each the mean over {}, whiskers: 95 % confidence intervals; ringed and joined: the non-dominated dots (none other is both cheaper and quicker), numbered as listed at right; lower left is better",
        results.n_points(),
        results.replications()
    );
    if coincident {
        subtitle.push_str("; \u{d7}N: the same result at N points, drawn once");
    }
    let labelled = dots.len() <= LABELLED_MAX && label_names(results).is_some();
    if labelled && let Some(names) = label_names(results) {
        subtitle.push_str(&format!("; beside each dot: {names}"));
    }
    if any_unfinished {
        subtitle.push_str("; hollow: more than 1 % of jobs unfinished at the end (waits of jobs never started count up to the end: lower bounds), never on the frontier");
    }
    if missing > 0 {
        subtitle.push_str(&format!(
            "; not shown: {missing} point-strategy pair{} without a p95 wait (no job counted)",
            if missing == 1 { "" } else { "s" }
        ));
    }
    let area = style::header(
        root,
        &format!(
            "Cost against p95 wait over the sweep — {}",
            meta.scenario_name
        ),
        &subtitle,
        &results.provenance(),
    )?;
    let mut items: Vec<LegendItem> = results
        .strategies
        .iter()
        .enumerate()
        .map(|(idx, name)| LegendItem::new(name, Swatch::Block(strategy_color(idx))))
        .collect();
    items.push(LegendItem::new("non-dominated", Swatch::Ring(INK)));
    if any_unfinished {
        items.push(LegendItem::new(
            "more than 1 % of jobs unfinished",
            Swatch::Ring(MUTED),
        ));
    }
    let area = style::legend(&area, &items)?;
    let (width, _) = area.dim_in_pixel();
    let (plot_area, list_area) = area.split_horizontally(width.saturating_sub(LIST_W_PX));

    let waits = style::extent(dots.iter().map(|d| d.wait_h));
    // Waits start at zero, no wait being the reference, with a little room left of it so that
    // dots at zero are not cut by the axis.
    let wait_top = if waits.end > 0.0 { waits.end } else { 1.0 };
    let x_range = (waits.start.min(0.0) - 0.03 * wait_top)..(wait_top * 1.06);
    let y_range = style::padded(style::extent(dots.iter().map(|d| d.cost)), 0.06);
    let money = MoneyAxis::new(&y_range, &meta.currency);
    let list = List::fit(&list_area, results, &best, &meta.currency)?;
    let listed: Vec<Dot> = list.entries.iter().map(|e| e.dot).collect();
    let mut chart = style::cost_wait_chart(
        &plot_area,
        CostWaitPlane {
            x_range: x_range.clone(),
            y_range: y_range.clone(),
            margin_right_px: 30,
            x_ticks: 8,
            x_label: &|hours| {
                // No tick in the room left of zero.
                if hours < 0.0 {
                    String::new()
                } else {
                    style::number_label(hours, &x_range)
                }
            },
            money: &money,
            cost_over: results.horizon(),
        },
    )?;

    let radius = if dots.len() > 200 { 5 } else { 7 };
    draw_whiskers(&mut chart, &dots, radius)?;
    draw_dots(&mut chart, &dots, &best, radius)?;
    let mut placed = number_listed(root, &chart, &listed, radius)?;
    label_dots(
        root,
        &chart,
        results,
        (&dots, &best),
        labelled,
        radius,
        &mut placed,
    )?;
    list.draw(&list_area, best.len())?;
    if dots.is_empty() {
        plot_area.draw(&Text::new(
            "sweep.csv has no total_cost and wait_p95_h rows",
            (style::MARGIN_PX, 200),
            font(style::AXIS_PX),
        ))?;
    }
    Ok(())
}

/// A dot per point and strategy with a cost and a wait, and how many pairs have none (no job
/// started).
fn dots(results: &SweepResults) -> (Vec<Dot>, usize) {
    let mut dots: Vec<Dot> = Vec::new();
    let mut missing = 0;
    for point in 0..results.n_points() {
        for strategy in 0..results.strategies.len() {
            let (Some(cost), Some(wait)) = (
                results.stat(Metric::TotalCost, strategy, point),
                results.stat(Metric::WaitP95, strategy, point),
            ) else {
                missing += 1;
                continue;
            };
            let same = dots.iter_mut().find(|d| {
                d.strategy == strategy
                    && d.wait_h.to_bits() == wait.mean.to_bits()
                    && d.cost.to_bits() == cost.mean.to_bits()
            });
            match same {
                Some(dot) => dot.count += 1,
                None => dots.push(Dot {
                    point,
                    strategy,
                    wait_h: wait.mean,
                    cost: cost.mean,
                    unfinished: results.unfinished(strategy, point) > UNFINISHED_NOTED,
                    wait_ci: (wait.ci95_low, wait.ci95_high),
                    cost_ci: (cost.ci95_low, cost.ci95_high),
                    count: 1,
                }),
            }
        }
    }
    (dots, missing)
}

/// Both 95 % intervals of every dot, thin in its strategy's colour, under the dots.
fn draw_whiskers<DB: DrawingBackend>(
    chart: &mut Plane<'_, DB>,
    dots: &[Dot],
    radius: i32,
) -> DrawResult<(), DB> {
    let cap_px = radius - 1;
    for dot in dots {
        let color = strategy_color(dot.strategy).mix(0.8);
        let style = color.stroke_width(2);
        let (x, y) = chart.backend_coord(&(dot.wait_h, dot.cost));
        let (low, high) = dot.cost_ci;
        if low.is_finite() && high.is_finite() {
            let (_, y_low) = chart.backend_coord(&(dot.wait_h, low));
            let (_, y_high) = chart.backend_coord(&(dot.wait_h, high));
            chart.plotting_area().draw(&PathElement::new(
                vec![(dot.wait_h, low), (dot.wait_h, high)],
                style,
            ))?;
            let root = chart.plotting_area().strip_coord_spec();
            let (ox, oy) = chart.plotting_area().get_base_pixel();
            for cap in [y_low, y_high] {
                root.draw(&PathElement::new(
                    vec![(x - cap_px - ox, cap - oy), (x + cap_px - ox, cap - oy)],
                    style,
                ))?;
            }
        }
        let (low, high) = dot.wait_ci;
        if low.is_finite() && high.is_finite() {
            let (x_low, _) = chart.backend_coord(&(low, dot.cost));
            let (x_high, _) = chart.backend_coord(&(high, dot.cost));
            chart.plotting_area().draw(&PathElement::new(
                vec![(low, dot.cost), (high, dot.cost)],
                style,
            ))?;
            let root = chart.plotting_area().strip_coord_spec();
            let (ox, oy) = chart.plotting_area().get_base_pixel();
            for cap in [x_low, x_high] {
                root.draw(&PathElement::new(
                    vec![(cap - ox, y - cap_px - oy), (cap - ox, y + cap_px - oy)],
                    style,
                ))?;
            }
        }
    }
    Ok(())
}

/// What the labels beside the dots give: "nodes", "nodes, burst_after_wait_h" (the short
/// names of the parameters that take several values), None when there is none.
fn label_names(results: &SweepResults) -> Option<String> {
    let names: Vec<&str> = results
        .parameters
        .iter()
        .filter(|p| p.levels.len() > 1)
        .map(|p| p.name.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// A dot's label: the values (in the order of [`label_names`]) of the parameters that matter
/// for its strategy, "\u{d7}N" for a dot of N points; empty when neither applies.
fn dot_label(results: &SweepResults, dot: &Dot, values: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if values {
        let shown: Vec<String> = results
            .parameters
            .iter()
            .enumerate()
            .filter(|(_, p)| p.levels.len() > 1)
            .map(|(j, p)| {
                if results.relevant[dot.strategy][j] {
                    p.levels[p.level_of[dot.point]].label()
                } else {
                    "any".to_string()
                }
            })
            .collect();
        if shown.iter().any(|v| v != "any") {
            parts.push(shown.join(", "));
        }
    }
    if dot.count > 1 {
        // Without the values of every dot, a dot of several points still says which values
        // it stands for ("nodes = 4 ×10"); one the parameters do not change is named, since
        // another strategy's dot may sit inside it.
        if parts.is_empty() {
            let named: Vec<String> = results
                .parameters
                .iter()
                .enumerate()
                .filter(|(j, p)| p.levels.len() > 1 && results.relevant[dot.strategy][*j])
                .map(|(_, p)| format!("{} = {}", p.name, p.levels[p.level_of[dot.point]].label()))
                .collect();
            if named.is_empty() {
                parts.push(results.strategies[dot.strategy].clone());
            } else {
                parts.push(named.join(", "));
            }
        }
        parts.push(format!("\u{d7}{}", dot.count));
    }
    parts.join(" ")
}

/// Labels beside the dots (on `root`, at pixel positions), each where it covers no number or
/// other label; a label with no free place is left out rather than drawn over another.
fn label_dots<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Plane<'_, DB>,
    results: &SweepResults,
    (dots, best): (&[Dot], &[Dot]),
    values: bool,
    radius: i32,
    placed: &mut Vec<(i32, i32, i32, i32)>,
) -> DrawResult<(), DB> {
    let label_style = font(LIST_PX - 2).color(&MUTED);
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    // Ringed dots are larger (see `draw_dots`).
    let size = |dot: &Dot| {
        if best.contains(dot) {
            radius + 9
        } else {
            dot_radius(dot, radius)
        }
    };
    // The dots themselves are in the way too.
    for dot in dots {
        let (px, py) = chart.backend_coord(&(dot.wait_h, dot.cost));
        let r = size(dot);
        placed.push((px - r, py - r, 2 * r, 2 * r));
    }
    for dot in dots {
        let label = dot_label(results, dot, values);
        if label.is_empty() {
            continue;
        }
        let (w, h) = root.estimate_text_size(&label, &label_style)?;
        let (w, h) = (w as i32, h as i32);
        let (px, py) = chart.backend_coord(&(dot.wait_h, dot.cost));
        let gap = size(dot) + 4;
        let candidates = [
            (px + gap, py - h / 2),
            (px - gap - w, py - h / 2),
            (px + gap, py - gap - h),
            (px + gap, py + gap),
            (px - gap - w, py - gap - h),
            (px - gap - w, py + gap),
        ];
        let inside = |&(x, y): &(i32, i32)| {
            x >= plot_x.start && x + w <= plot_x.end && y >= plot_y.start && y + h <= plot_y.end
        };
        let free = |&(x, y): &(i32, i32)| {
            placed
                .iter()
                .all(|&(ox, oy, ow, oh)| x >= ox + ow || ox >= x + w || y >= oy + oh || oy >= y + h)
        };
        if let Some((x, y)) = candidates.iter().copied().find(|c| inside(c) && free(c)) {
            placed.push((x, y, w, h));
            root.draw(&Text::new(label, (x, y), label_style.clone()))?;
        }
    }
    Ok(())
}

/// The frontier's line, then every dot over it (hollow when jobs were left unfinished), then
/// the rings of the non-dominated ones.
fn draw_dots<DB: DrawingBackend>(
    chart: &mut Plane<'_, DB>,
    dots: &[Dot],
    best: &[Dot],
    radius: i32,
) -> DrawResult<(), DB> {
    // The frontier's line under the dots, so that every dot stays visible.
    chart.draw_series(std::iter::once(PathElement::new(
        best.iter().map(|d| (d.wait_h, d.cost)).collect::<Vec<_>>(),
        INK.stroke_width(2),
    )))?;
    // A dot of several points is larger and drawn first, so that another strategy's dot at
    // the same place stays visible inside it.
    let mut order: Vec<&Dot> = dots.iter().collect();
    order.sort_by_key(|d| std::cmp::Reverse(d.count));
    for dot in order {
        let color = strategy_color(dot.strategy);
        let at = (dot.wait_h, dot.cost);
        let radius = dot_radius(dot, radius);
        if dot.unfinished {
            chart.draw_series([
                Circle::new(at, radius, WHITE.filled()),
                Circle::new(at, radius, color.stroke_width(2)),
            ])?;
        } else {
            chart.draw_series([
                Circle::new(at, radius, color.filled()),
                Circle::new(at, radius, WHITE.stroke_width(1)),
            ])?;
        }
    }
    for dot in best {
        let at = (dot.wait_h, dot.cost);
        chart.draw_series([
            Circle::new(at, radius + 2, strategy_color(dot.strategy).filled()),
            Circle::new(at, radius + 6, INK.stroke_width(3)),
        ])?;
    }
    Ok(())
}

/// A dot's radius: larger for a dot that stands for several points.
fn dot_radius(dot: &Dot, radius: i32) -> i32 {
    if dot.count > 1 { radius + 5 } else { radius }
}

/// Numbers beside the listed dots (on `root`, at pixel positions), each where it covers no
/// other number; returns the boxes they take.
fn number_listed<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Plane<'_, DB>,
    listed: &[Dot],
    radius: i32,
) -> DrawResult<Vec<(i32, i32, i32, i32)>, DB> {
    let number_style = bold(style::NOTE_PX);
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    for (k, dot) in listed.iter().enumerate() {
        let label = (k + 1).to_string();
        let (w, h) = root.estimate_text_size(&label, &number_style)?;
        let (w, h) = (w as i32, h as i32);
        let (px, py) = chart.backend_coord(&(dot.wait_h, dot.cost));
        let gap = radius + 8;
        let candidates = [
            (px + gap, py - gap - h),
            (px + gap, py + gap),
            (px - gap - w, py - gap - h),
            (px - gap - w, py + gap),
            (px + gap, py - h / 2),
            (px - gap - w, py - h / 2),
        ];
        let inside = |&(x, y): &(i32, i32)| {
            x >= plot_x.start && x + w <= plot_x.end && y >= plot_y.start && y + h <= plot_y.end
        };
        let free = |&(x, y): &(i32, i32)| {
            placed
                .iter()
                .all(|&(ox, oy, ow, oh)| x >= ox + ow || ox >= x + w || y >= oy + oh || oy >= y + h)
        };
        let (x, y) = candidates
            .iter()
            .copied()
            .find(|c| inside(c) && free(c))
            .or_else(|| candidates.iter().copied().find(inside))
            .unwrap_or(candidates[0]);
        placed.push((x, y, w, h));
        root.draw(&Rectangle::new(
            [(x - 3, y - 1), (x + w + 3, y + h + 1)],
            WHITE.mix(0.85).filled(),
        ))?;
        root.draw(&Text::new(label, (x, y), number_style.clone()))?;
    }
    Ok(placed)
}

/// The frontier's chart: p95 wait across, cost up.
type Plane<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A listed non-dominated dot and the lines that describe it.
struct Entry {
    dot: Dot,
    /// Number and strategy, in the strategy's colour.
    head: String,
    /// The parameter values, wrapped to the list's width.
    values: Vec<String>,
    /// Cost and wait.
    numbers: String,
}

/// The non-dominated dots listed beside the plot: as many as fit (at most [`LISTED_MAX`]),
/// spread evenly along the frontier, numbered in order of increasing wait.
struct List {
    entries: Vec<Entry>,
}

const LINE_PX: i32 = LIST_PX as i32 + 5;
const ENTRY_GAP_PX: i32 = 7;
const LIST_TOP_PX: i32 = 14;
const LIST_X_PX: i32 = 10;
const INDENT_PX: i32 = 30;

impl List {
    fn fit<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        results: &SweepResults,
        best: &[Dot],
        currency: &str,
    ) -> DrawResult<Self, DB> {
        let (width, height) = area.dim_in_pixel();
        let width_max = width.saturating_sub((LIST_X_PX + INDENT_PX + 20) as u32);
        // Below the heading, less a line for the note on the dots not listed.
        let room = height as i32 - LIST_TOP_PX - style::LEGEND_PX as i32 - 14 - LINE_PX - 10;
        let mut n = best.len().min(LISTED_MAX);
        loop {
            let mut entries = Vec::new();
            for (k, dot) in spread(best, n).into_iter().enumerate() {
                let wait_decimals = if dot.wait_h < 10.0 { 2 } else { 1 };
                entries.push(Entry {
                    dot,
                    head: format!("{}  {}", k + 1, results.strategies[dot.strategy]),
                    values: style::wrap(
                        area,
                        &values_of(results, &dot),
                        &font(LIST_PX),
                        width_max,
                    )?,
                    numbers: format!(
                        "{}, p95 wait {} h{}",
                        crate::format::money(dot.cost, currency),
                        crate::format::thousands(dot.wait_h, wait_decimals),
                        if dot.count > 1 {
                            format!(" (at {} points)", dot.count)
                        } else {
                            String::new()
                        }
                    ),
                });
            }
            let used: i32 = entries
                .iter()
                .map(|e| (2 + e.values.len() as i32) * LINE_PX + ENTRY_GAP_PX)
                .sum();
            if used <= room || n <= 2 {
                return Ok(Self { entries });
            }
            n -= 1;
        }
    }

    /// Draws the list; `n_best` non-dominated dots exist in all.
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        n_best: usize,
    ) -> DrawResult<(), DB> {
        let x = LIST_X_PX;
        let mut y = LIST_TOP_PX;
        area.draw(&Text::new(
            "Non-dominated points",
            (x, y),
            bold(style::LEGEND_PX),
        ))?;
        y += style::LEGEND_PX as i32 + 14;
        let text_style = font(LIST_PX);
        let muted_style = font(LIST_PX).color(&MUTED);
        for entry in &self.entries {
            let mut head_style = bold(LIST_PX);
            head_style.color = strategy_color(entry.dot.strategy).to_backend_color();
            area.draw(&Text::new(entry.head.clone(), (x, y), head_style))?;
            y += LINE_PX;
            for line in &entry.values {
                area.draw(&Text::new(
                    line.clone(),
                    (x + INDENT_PX, y),
                    text_style.clone(),
                ))?;
                y += LINE_PX;
            }
            area.draw(&Text::new(
                entry.numbers.clone(),
                (x + INDENT_PX, y),
                muted_style.clone(),
            ))?;
            y += LINE_PX + ENTRY_GAP_PX;
        }
        if n_best > self.entries.len() {
            area.draw(&Text::new(
                format!(
                    "{} of {}, spread along the frontier",
                    self.entries.len(),
                    n_best
                ),
                (x, y),
                muted_style,
            ))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(point: usize, wait_h: f64, cost: f64) -> Dot {
        Dot {
            point,
            strategy: 0,
            wait_h,
            cost,
            unfinished: false,
            wait_ci: (f64::NAN, f64::NAN),
            cost_ci: (f64::NAN, f64::NAN),
            count: 1,
        }
    }

    #[test]
    fn the_frontier_keeps_only_non_dominated_dots() {
        let dots = [
            dot(0, 0.0, 10.0),
            dot(1, 1.0, 8.0),
            dot(2, 1.0, 9.0), // Dominated by point 1.
            dot(3, 2.0, 8.0), // Waits longer for the same cost.
            dot(4, 5.0, 3.0),
            dot(5, 0.0, 10.0), // The same as point 0: counted once.
            Dot {
                unfinished: true,
                ..dot(6, 0.0, 1.0)
            },
        ];
        let points: Vec<usize> = frontier(&dots).iter().map(|d| d.point).collect();
        assert_eq!(points, [0, 1, 4]);
    }

    #[test]
    fn a_long_frontier_is_thinned_evenly_keeping_its_ends() {
        let items: Vec<usize> = (0..30).collect();
        let picked = spread(&items, 4);
        assert_eq!(picked, [0, 10, 19, 29]);
        assert_eq!(spread(&items[..3], 4), [0, 1, 2]);
    }
}
