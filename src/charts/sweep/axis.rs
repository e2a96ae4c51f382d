//! How a varied parameter reads on a chart: its scale (linear, logarithmic or categorical), its
//! axis with ticks, its short name and its unit.

use std::ops::Range;

use plotters::coord::ranged1d::{
    KeyPointHint, KeyPointWeight, NoDefaultFormatting, Ranged, ValueFormatter,
};

use super::super::style::decimals_for_step;
use crate::format::thousands;

/// How a parameter's values are laid out along an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Positive numbers spaced in their logarithm (`1..1000:log:7`, `1..1000:log`, or a list
    /// of decades): decades take equal room.
    Log,
    /// Names (`fifo`, `backfill`; `never`) or `true`/`false`: one slot per value, in the order
    /// written.
    Categorical,
}

/// One value a parameter takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Level {
    Number(f64),
    Text(String),
}

impl Level {
    /// As people read it: `4`, `0.5`, `31.6228`, `12,000`, `backfill`.
    pub fn label(&self) -> String {
        match self {
            Level::Number(x) => number(*x),
            Level::Text(text) => text.clone(),
        }
    }
}

/// A number with thousands separators and exactly the decimals it has (`0.25`, `31.6228`,
/// `1,500`): values of a sweep are short already (6 significant digits at most).
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let text = x.abs().to_string();
    let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
    thousands(x, decimals)
}

/// The shortest ending of each path that tells the parameters apart, and at least the field
/// with its table's name for fields of sub-tables (`preemption.mean_h`, not `mean_h`):
/// `pool.dgx.nodes` is `nodes`, unless `pool.a100.nodes` varies too.
pub fn short_names(paths: &[String]) -> Vec<String> {
    let segments: Vec<Vec<&str>> = paths.iter().map(|p| p.split('.').collect()).collect();
    let ending = |s: &[&str], k: usize| s[s.len().saturating_sub(k)..].join(".");
    segments
        .iter()
        .map(|s| {
            // `pool.NAME.field` has 3 segments; deeper ones name a sub-table.
            let least = if s.len() >= 4 { 2 } else { 1 };
            (least..=s.len())
                .map(|k| ending(s, k))
                .find(|name| {
                    segments
                        .iter()
                        .filter(|other| ending(other, name.split('.').count()) == *name)
                        .count()
                        == 1
                })
                .unwrap_or_else(|| s.join("."))
        })
        .collect()
}

/// The unit of a field, from its name (see [`crate::scenario::schema::unit_of`], which the
/// scenario schema's `x-unit` uses too).
pub use crate::scenario::schema::unit_of;

/// The axis of a parameter: positions are [`super::input::Parameter::coordinate`]s (values,
/// their logarithms, or slot indices), ticks say the values.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamAxis {
    range: Range<f64>,
    /// (position, label)
    ticks: Vec<(f64, String)>,
}

impl ParamAxis {
    /// An axis over `levels` on `scale` with at most `ticks_max` ticks; `at_levels`: a grid,
    /// whose values make the best ticks when there are few enough of them.
    pub fn new(scale: Scale, levels: &[Level], ticks_max: usize, at_levels: bool) -> Self {
        let ticks_max = ticks_max.max(2);
        let numbers: Vec<f64> = levels
            .iter()
            .filter_map(|l| match l {
                Level::Number(x) => Some(*x),
                Level::Text(_) => None,
            })
            .collect();
        match scale {
            Scale::Categorical => {
                let step = levels.len().div_ceil(ticks_max).max(1);
                Self {
                    range: -0.5..(levels.len().max(1) as f64 - 0.5),
                    ticks: levels
                        .iter()
                        .enumerate()
                        .step_by(step)
                        .map(|(i, l)| (i as f64, l.label()))
                        .collect(),
                }
            }
            Scale::Linear => {
                let (lo, hi) = bounds(&numbers);
                let range = pad(lo..hi);
                let ticks = if at_levels && numbers.len() <= ticks_max {
                    spaced(
                        numbers.iter().map(|&x| (x, number(x))).collect(),
                        &range,
                        ticks_max,
                    )
                } else {
                    nice_ticks(&range, ticks_max)
                };
                Self { range, ticks }
            }
            Scale::Log => {
                let (lo, hi) = bounds(&numbers);
                let range = pad(lo.log10()..hi.log10());
                let ticks = if at_levels && numbers.len() <= ticks_max {
                    let ticks = numbers.iter().map(|&x| (x.log10(), number(x))).collect();
                    spaced(ticks, &range, ticks_max)
                } else {
                    log_ticks(&range, ticks_max)
                };
                Self { range, ticks }
            }
        }
    }

    /// The label of the tick at `position`, or nothing between ticks.
    pub fn label(&self, position: f64) -> String {
        let tolerance = (self.range.end - self.range.start).abs() * 1e-9;
        self.ticks
            .iter()
            .find(|(p, _)| (p - position).abs() <= tolerance)
            .map(|(_, label)| label.clone())
            .unwrap_or_default()
    }

    pub fn ticks(&self) -> &[(f64, String)] {
        &self.ticks
    }
}

/// The ticks whose labels have room beside the one before (taken from the left), so that
/// values bunched together (`0, 0.5, 1, 2, 4, ..., 24`) do not print over each other; the points
/// between keep their place, only their label goes. Callers allow [`TICK_SLOT_PX`] per tick of
/// `ticks_max`, so that is the axis' length in pixels.
fn spaced(ticks: Vec<(f64, String)>, range: &Range<f64>, ticks_max: usize) -> Vec<(f64, String)> {
    let px_per_unit = (ticks_max * TICK_SLOT_PX) as f64 / (range.end - range.start);
    let mut kept: Vec<(f64, String)> = Vec::new();
    for tick in ticks {
        let fits = kept.last().is_none_or(|last| {
            let chars = (last.1.chars().count() + tick.1.chars().count()) as f64 / 2.0;
            (tick.0 - last.0) * px_per_unit >= chars * CHAR_PX + 14.0
        });
        if fits {
            kept.push(tick);
        }
    }
    kept
}

/// Pixels of axis per tick that the charts allow when they work out `ticks_max`.
pub const TICK_SLOT_PX: usize = 120;

/// Width of a digit of a tick label, in pixels (DejaVu Sans at the tick size).
const CHAR_PX: f64 = 14.0;

fn bounds(numbers: &[f64]) -> (f64, f64) {
    let lo = numbers.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) }
}

/// `range` with 5 % room on each side, or a unit around a single value.
fn pad(range: Range<f64>) -> Range<f64> {
    let span = range.end - range.start;
    if span > 0.0 {
        (range.start - 0.05 * span)..(range.end + 0.05 * span)
    } else {
        (range.start - 0.5)..(range.end + 0.5)
    }
}

/// Ticks at round numbers (1, 2, 2.5 or 5 times a power of ten) inside `range`.
pub fn nice_ticks(range: &Range<f64>, ticks_max: usize) -> Vec<(f64, String)> {
    let span = range.end - range.start;
    if span.is_nan() || span <= 0.0 {
        return Vec::new();
    }
    let raw = span / ticks_max as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|step| span / step <= ticks_max as f64)
        .unwrap_or(10.0 * power);
    let decimals = decimals_for_step(step);
    let first = (range.start / step).ceil() as i64;
    let last = (range.end / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let x = k as f64 * step;
            // Avoid "-0".
            let x = if x == 0.0 { 0.0 } else { x };
            (x, thousands(x, decimals))
        })
        .collect()
}

/// Ticks at powers of ten inside a range of logarithms, with 2 and 5 times them when there
/// are few decades.
fn log_ticks(range: &Range<f64>, ticks_max: usize) -> Vec<(f64, String)> {
    let first = range.start.ceil() as i32;
    let last = range.end.floor() as i32;
    let decades = (last - first + 1).max(0) as usize;
    let multiples: &[f64] = if decades * 3 <= ticks_max {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let step = decades.div_ceil(ticks_max).max(1);
    let mut ticks = Vec::new();
    for power in (range.start.floor() as i32)..=(range.end.ceil() as i32) {
        if multiples.len() == 1 && (power - first).rem_euclid(step as i32) != 0 {
            continue;
        }
        for m in multiples {
            let x = m * 10f64.powi(power);
            let position = x.log10();
            if range.contains(&position) {
                ticks.push((position, number(round_significant(x))));
            }
        }
    }
    if ticks.len() < 2 {
        // Less than a decade: round numbers on the logarithmic axis.
        let linear = 10f64.powf(range.start)..10f64.powf(range.end);
        return nice_ticks(&linear, ticks_max)
            .into_iter()
            .filter(|(x, _)| *x > 0.0)
            .map(|(x, label)| (x.log10(), label))
            .collect();
    }
    ticks
}

fn round_significant(x: f64) -> f64 {
    let magnitude = 10f64.powi(x.abs().log10().floor() as i32 - 5);
    (x / magnitude).round() * magnitude
}

impl Ranged for ParamAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines at the ticks only; `x_labels(0)` hides them.
        if matches!(hint.weight(), KeyPointWeight::Any) || hint.max_num_points() == 0 {
            return Vec::new();
        }
        self.ticks.iter().map(|(p, _)| *p).collect()
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

impl ValueFormatter<f64> for ParamAxis {
    fn format_ext(&self, position: &f64) -> String {
        self.label(*position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_decimals_and_get_separators() {
        assert_eq!(number(4.0), "4");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(31.6228), "31.6228");
        assert_eq!(number(12000.0), "12,000");
        assert_eq!(number(-1500.5), "-1,500.5");
    }

    #[test]
    fn short_names_tell_parameters_apart() {
        let paths = |ps: &[&str]| ps.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(
            short_names(&paths(&[
                "pool.dgx.nodes",
                "strategy.hybrid-dgx-spot.burst_after_wait_h",
                "horizon_months",
                "pool.spot.preemption.mean_h",
            ])),
            [
                "nodes",
                "burst_after_wait_h",
                "horizon_months",
                "preemption.mean_h"
            ]
        );
        assert_eq!(
            short_names(&paths(&["pool.dgx.nodes", "pool.a100.nodes"])),
            ["dgx.nodes", "a100.nodes"]
        );
    }

    #[test]
    fn units_come_from_field_names() {
        let unit = |path: &str| unit_of(path, "EUR");
        assert_eq!(unit("pool.dgx.nodes").as_deref(), Some("nodes"));
        assert_eq!(
            unit("pool.spot.price_per_gpu_h").as_deref(),
            Some("EUR per GPU-hour")
        );
        assert_eq!(
            unit("strategy.s.burst_after_wait_h").as_deref(),
            Some("hours")
        );
        assert_eq!(unit("horizon_months").as_deref(), Some("months"));
        assert_eq!(
            unit("workload.w.duration_h.median").as_deref(),
            Some("hours")
        );
        assert_eq!(unit("strategy.s.queue"), None);
        assert_eq!(unit("pool.dgx.pue"), None);
    }

    #[test]
    fn grid_values_are_the_ticks_when_few() {
        let levels: Vec<Level> = [0.0, 2.0, 4.0, 8.0].map(Level::Number).to_vec();
        let axis = ParamAxis::new(Scale::Linear, &levels, 10, true);
        assert_eq!(
            axis.ticks()
                .iter()
                .map(|t| t.1.as_str())
                .collect::<Vec<_>>(),
            ["0", "2", "4", "8"]
        );
        assert_eq!(axis.label(4.0), "4");
        assert_eq!(axis.label(3.0), "");
        let axis = ParamAxis::new(Scale::Linear, &levels, 10, false);
        assert_eq!(axis.ticks().len(), 9, "every whole number from 0 to 8");
        // Values bunched at one end keep only the labels that have room.
        let bunched: Vec<Level> = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 20.0, 24.0]
            .map(Level::Number)
            .to_vec();
        let axis = ParamAxis::new(Scale::Linear, &bunched, 12, true);
        assert_eq!(
            axis.ticks()
                .iter()
                .map(|t| t.1.as_str())
                .collect::<Vec<_>>(),
            ["0", "1", "2", "4", "8", "12", "16", "20", "24"]
        );
    }

    #[test]
    fn log_axes_tick_at_decades() {
        let levels: Vec<Level> = [1.0, 3.5, 20.0, 700.0, 1000.0].map(Level::Number).to_vec();
        let axis = ParamAxis::new(Scale::Log, &levels, 8, false);
        assert_eq!(
            axis.ticks()
                .iter()
                .map(|t| t.1.as_str())
                .collect::<Vec<_>>(),
            ["1", "10", "100", "1,000"]
        );
        let axis = ParamAxis::new(Scale::Log, &levels, 12, false);
        assert_eq!(axis.ticks()[1].1, "2", "few decades get 2 and 5 too");
        let narrow: Vec<Level> = [2.0, 7.0].map(Level::Number).to_vec();
        let axis = ParamAxis::new(Scale::Log, &narrow, 6, false);
        assert!(axis.ticks().len() >= 2, "{:?}", axis.ticks());
    }

    #[test]
    fn categories_take_one_slot_each() {
        let levels = vec![
            Level::Text("fifo".into()),
            Level::Text("backfill".into()),
            Level::Text("priority".into()),
        ];
        let axis = ParamAxis::new(Scale::Categorical, &levels, 10, true);
        assert_eq!(axis.range(), -0.5..2.5);
        assert_eq!(axis.label(1.0), "backfill");
    }
}
