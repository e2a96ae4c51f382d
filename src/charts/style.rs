//! The look every chart shares: canvas size, the bundled font, palettes, headers and legends,
//! number labels with thousands separators and month ticks (YYYY-MM).
//!
//! Colours: strategies use the Okabe-Ito palette (safe for the common colour-vision
//! deficiencies), by the strategy's index in `run.json`, so a strategy has the same colour in
//! every chart. Cost categories and pools, which never share a chart with each other, use
//! Paul Tol's colour-blind-safe "muted" and "bright" sets, chosen to differ from each other.

use std::ops::Range;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    KeyPointHint, KeyPointWeight, NoDefaultFormatting, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use crate::format::thousands;

/// Canvas of every chart, in pixels (PNG) and user units (SVG).
pub const WIDTH_PX: u32 = 1600;
pub const HEIGHT_PX: u32 = 1000;

/// The bundled DejaVu Sans, registered under this family name. The SVG files name it as their
/// CSS `font-family`, so a viewer uses DejaVu Sans where installed and its sans-serif elsewhere.
pub const FONT: &str = "DejaVu Sans, sans-serif";

static REGULAR_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

/// Makes the bundled font known to plotters (once per process): no system font is ever read.
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let regular = register_font(FONT, FontStyle::Normal, REGULAR_TTF).is_ok();
        assert!(regular, "the bundled DejaVuSans.ttf is not a valid font");
        let bold = register_font(FONT, FontStyle::Bold, BOLD_TTF).is_ok();
        assert!(bold, "the bundled DejaVuSans-Bold.ttf is not a valid font");
    });
}

/// Text sizes in pixels, for a 1600 x 1000 canvas seen on a slide.
pub const TITLE_PX: u32 = 44;
pub const SUBTITLE_PX: u32 = 26;
pub const PANEL_PX: u32 = 30;
pub const AXIS_PX: u32 = 27;
pub const TICK_PX: u32 = 24;
pub const LEGEND_PX: u32 = 26;
pub const NOTE_PX: u32 = 23;
/// The provenance line at the bottom of every chart.
pub const FOOTER_PX: u32 = 18;
/// Height kept free at the bottom for it.
const FOOTER_ROOM_PX: i32 = 34;

pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub const MUTED: RGBColor = RGBColor(0x5F, 0x5F, 0x5F);
pub const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);

/// Okabe & Ito (2008), ordered so that the first strategies get the most distinct colours and
/// yellow, weak on white, comes last.
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
];

/// The colour of the strategy at `strategy_idx` (its position in `run.json`).
pub fn strategy_color(strategy_idx: usize) -> RGBColor {
    OKABE_ITO[strategy_idx % OKABE_ITO.len()]
}

/// Paul Tol's "bright" set, for pools (by order of first appearance).
const TOL_BRIGHT: [RGBColor; 7] = [
    RGBColor(0x44, 0x77, 0xAA),
    RGBColor(0xEE, 0x66, 0x77),
    RGBColor(0x22, 0x88, 0x33),
    RGBColor(0xCC, 0xBB, 0x44),
    RGBColor(0x66, 0xCC, 0xEE),
    RGBColor(0xAA, 0x33, 0x77),
    RGBColor(0xBB, 0xBB, 0xBB),
];

pub fn pool_color(pool_idx: usize) -> RGBColor {
    TOL_BRIGHT[pool_idx % TOL_BRIGHT.len()]
}

/// Paul Tol's "muted" set, for cost categories in the order capital, energy, operations,
/// reserved, on-demand, spot.
pub const CATEGORY_COLORS: [RGBColor; 8] = [
    RGBColor(0x33, 0x22, 0x88), // indigo
    RGBColor(0xDD, 0xCC, 0x77), // sand
    RGBColor(0x44, 0xAA, 0x99), // teal
    RGBColor(0x88, 0x22, 0x55), // wine
    RGBColor(0xCC, 0x66, 0x77), // rose
    RGBColor(0x88, 0xCC, 0xEE), // cyan
    RGBColor(0x11, 0x77, 0x33), // green
    RGBColor(0xAA, 0x44, 0x99), // purple
];

/// A text style in the bundled font.
pub fn font(size_px: u32) -> TextStyle<'static> {
    (FONT, size_px).into_font().color(&INK)
}

pub fn bold(size_px: u32) -> TextStyle<'static> {
    (FONT, size_px, FontStyle::Bold).into_font().color(&INK)
}

/// Result of drawing on a backend.
pub type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Left and right margin of headers and legends, in pixels.
pub const MARGIN_PX: i32 = 36;

/// Fills the canvas white, draws the title (smaller when a long scenario name would not fit),
/// the subtitle (wrapped onto more lines when needed) and the provenance `footer` in small
/// muted type at the bottom, and returns the area between them.
pub fn header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
    footer: &str,
) -> DrawResult<DrawingArea<DB, Shift>, DB> {
    root.fill(&WHITE)?;
    let (_, height) = root.dim_in_pixel();
    root.draw(&Text::new(
        footer.to_string(),
        (MARGIN_PX, height as i32 - 10),
        font(FOOTER_PX)
            .color(&MUTED)
            .pos(Pos::new(HPos::Left, VPos::Bottom)),
    ))?;
    let (root, _) = root.split_vertically(height as i32 - FOOTER_ROOM_PX);
    let root = &root;
    let (width, _) = root.dim_in_pixel();
    let width_max = width - 2 * MARGIN_PX as u32;
    let mut title_px = TITLE_PX;
    while title_px > TITLE_MIN_PX && root.estimate_text_size(title, &bold(title_px))?.0 > width_max
    {
        title_px -= 2;
    }
    let mut y = 22;
    root.draw(&Text::new(
        title.to_string(),
        (MARGIN_PX, y),
        bold(title_px),
    ))?;
    y += title_px as i32 + 14;
    let subtitle_style = font(SUBTITLE_PX).color(&MUTED);
    for line in wrap(root, subtitle, &subtitle_style, width_max)? {
        root.draw(&Text::new(line, (MARGIN_PX, y), subtitle_style.clone()))?;
        y += SUBTITLE_PX as i32 + 8;
    }
    let (_, rest) = root.split_vertically(y + 10);
    Ok(rest)
}

/// A panel's caption in bold `color`, as large as fits the panel's width (at least
/// [`CAPTION_MIN_PX`]), shortened with an ellipsis beyond that.
pub fn panel_caption<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    text: &str,
    color: RGBColor,
) -> DrawResult<(String, TextStyle<'static>), DB> {
    let width_max = panel.dim_in_pixel().0.saturating_sub(40);
    let mut size_px = PANEL_PX;
    while size_px > CAPTION_MIN_PX && panel.estimate_text_size(text, &bold(size_px))?.0 > width_max
    {
        size_px -= 2;
    }
    let mut style = bold(size_px);
    style.color = color.to_backend_color();
    let mut chars: Vec<char> = text.chars().collect();
    let mut caption = text.to_string();
    while chars.len() > 4 && panel.estimate_text_size(&caption, &style)?.0 > width_max {
        chars.pop();
        caption = format!("{}\u{2026}", chars.iter().collect::<String>());
    }
    Ok((caption, style))
}

/// The smallest a panel caption gets before it is shortened.
pub const CAPTION_MIN_PX: u32 = 20;

/// The smallest a title gets to fit a long scenario name.
const TITLE_MIN_PX: u32 = 30;

/// `text` in lines no wider than `width_max` pixels, broken between words.
pub fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    width_max: u32,
) -> DrawResult<Vec<String>, DB> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && area.estimate_text_size(&candidate, style)?.0 > width_max {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    lines.push(line);
    Ok(lines)
}

/// How a legend entry shows its colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    Line(RGBColor),
    Dashed(RGBColor),
    /// A filled square (bars, bands, boxes).
    Block(RGBColor),
    /// A thick line over a light band: a mean with its spread.
    LineOnBand(RGBColor),
    /// A ring: a marked point.
    Ring(RGBColor),
    /// A vertical line with caps: a range (p5 to p95) on a bar.
    Whisker(RGBColor),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LegendItem {
    pub label: String,
    pub swatch: Swatch,
}

impl LegendItem {
    pub fn new(label: impl Into<String>, swatch: Swatch) -> Self {
        Self {
            label: label.into(),
            swatch,
        }
    }
}

const SWATCH_W_PX: i32 = 44;
const LEGEND_ROW_PX: i32 = 40;

/// Draws a legend as rows of entries above the plots (so it never hides data) and returns the
/// area below it.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[LegendItem],
) -> DrawResult<DrawingArea<DB, Shift>, DB> {
    let (width, _) = area.dim_in_pixel();
    let style = font(LEGEND_PX);
    let right = width as i32 - MARGIN_PX;
    let mut x = MARGIN_PX;
    let mut row = 0;
    for item in items {
        let (text_w, _) = area.estimate_text_size(&item.label, &style)?;
        let item_w = SWATCH_W_PX + 10 + text_w as i32;
        if x > MARGIN_PX && x + item_w > right {
            row += 1;
            x = MARGIN_PX;
        }
        let mid_y = row * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
        draw_swatch(area, item.swatch, x, mid_y)?;
        area.draw(&Text::new(
            item.label.clone(),
            (x + SWATCH_W_PX + 10, mid_y),
            style.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += item_w + 36;
    }
    let used = if items.is_empty() {
        0
    } else {
        (row + 1) * LEGEND_ROW_PX + 8
    };
    let (_, rest) = area.split_vertically(used);
    Ok(rest)
}

fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    x: i32,
    mid_y: i32,
) -> DrawResult<(), DB> {
    let line = || vec![(x, mid_y), (x + SWATCH_W_PX, mid_y)];
    match swatch {
        Swatch::Line(color) => {
            area.draw(&PathElement::new(line(), color.stroke_width(5)))?;
        }
        Swatch::Dashed(color) => {
            area.draw(&DashedPathElement::new(line(), 9, 6, color.stroke_width(4)))?;
        }
        Swatch::Block(color) => {
            area.draw(&Rectangle::new(
                [(x + 8, mid_y - 13), (x + SWATCH_W_PX - 8, mid_y + 13)],
                color.filled(),
            ))?;
        }
        Swatch::LineOnBand(color) => {
            area.draw(&Rectangle::new(
                [(x, mid_y - 13), (x + SWATCH_W_PX, mid_y + 13)],
                color.mix(BAND_ALPHA).filled(),
            ))?;
            area.draw(&PathElement::new(line(), color.stroke_width(5)))?;
        }
        Swatch::Ring(color) => {
            let center = (x + SWATCH_W_PX / 2, mid_y);
            area.draw(&Circle::new(center, 9, WHITE.filled()))?;
            area.draw(&Circle::new(center, 9, color.stroke_width(4)))?;
        }
        Swatch::Whisker(color) => {
            let mid_x = x + SWATCH_W_PX / 2;
            let stroke = color.stroke_width(3);
            area.draw(&PathElement::new(
                vec![(mid_x, mid_y - 14), (mid_x, mid_y + 14)],
                stroke,
            ))?;
            for cap_y in [mid_y - 14, mid_y + 14] {
                area.draw(&PathElement::new(
                    vec![(mid_x - 8, cap_y), (mid_x + 8, cap_y)],
                    stroke,
                ))?;
            }
        }
    }
    Ok(())
}

/// Opacity of bands (90 % ranges) and box fills: light enough that lines show through.
pub const BAND_ALPHA: f64 = 0.16;

/// Styles a mesh the same way everywhere: light grid on bold ticks only, muted axes, the
/// bundled font.
pub fn style_mesh<X, Y, DB>(mesh: &mut plotters::chart::MeshStyle<'_, '_, X, Y, DB>)
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.bold_line_style(GRID.stroke_width(1))
        .light_line_style(TRANSPARENT)
        .axis_style(MUTED.stroke_width(2))
        .label_style(font(TICK_PX).color(&MUTED))
        .axis_desc_style(font(AXIS_PX))
        .set_all_tick_mark_size(6);
}

/// Rows and columns of a grid of `n` panels on a wide canvas.
pub fn panel_grid(n: usize) -> (usize, usize) {
    match n {
        0 | 1 => (1, 1),
        2 => (1, 2),
        3 | 4 => (2, 2),
        5 | 6 => (2, 3),
        7..=9 => (3, 3),
        _ => (n.div_ceil(4), 4),
    }
}

/// A money axis: amounts shown in millions (M) or thousands (k) of the currency once they
/// are large, the same scale on every tick and in the unit ("8 M EUR", never "8,000 thousand
/// EUR"), with as many decimals as the tick step needs.
#[derive(Debug, Clone, PartialEq)]
pub struct MoneyAxis {
    divisor: f64,
    decimals: usize,
    /// "M EUR", "k EUR" or "EUR".
    pub unit: String,
}

impl MoneyAxis {
    /// For an axis over `range` (in the currency) with about ten ticks.
    pub fn new(range: &Range<f64>, currency: &str) -> Self {
        let largest = range.start.abs().max(range.end.abs());
        let (divisor, scale) = if largest >= 1e6 {
            (1e6, "M ")
        } else if largest >= 1e4 {
            (1e3, "k ")
        } else {
            (1.0, "")
        };
        Self {
            divisor,
            decimals: decimals_for_step((range.end - range.start) / divisor / 10.0),
            unit: format!("{scale}{currency}"),
        }
    }

    pub fn label(&self, amount: f64) -> String {
        thousands(amount / self.divisor, self.decimals)
    }
}

/// Decimals that show a tick step of `step` without noise (`0.25` needs 2, `20` needs 0).
pub fn decimals_for_step(step: f64) -> usize {
    if !step.is_finite() || step <= 0.0 || step >= 1.0 {
        return 0;
    }
    (-step.log10().floor()).clamp(0.0, 6.0) as usize
}

/// A plain number with thousands separators and the decimals its axis needs.
pub fn number_label(value: f64, range: &Range<f64>) -> String {
    thousands(value, decimals_for_step((range.end - range.start) / 10.0))
}

/// `range` widened by `fraction` of its span on both sides (or by 1 when it is a point), so
/// that markers at the ends are not cut.
pub fn padded(range: Range<f64>, fraction: f64) -> Range<f64> {
    let span = range.end - range.start;
    if !span.is_finite() || span <= 0.0 {
        let pad = range.start.abs().max(1.0) * 0.1;
        return (range.start - pad)..(range.end + pad);
    }
    (range.start - span * fraction)..(range.end + span * fraction)
}

/// The smallest and largest finite values, or `0..1` when there is none.
pub fn extent(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() { lo..hi } else { 0.0..1.0 }
}

/// A categorical axis over indices `0..labels.len()` (months or strategies), each index in the
/// middle of its slot, with a tick and label every `step` indices.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexAxis {
    labels: Vec<String>,
    step: usize,
}

/// Month tick steps, in months: quarters, half years or whole years once there is no room
/// for every month.
const MONTH_STEPS: [usize; 9] = [1, 2, 3, 6, 12, 24, 36, 60, 120];

impl IndexAxis {
    /// Every label gets a tick.
    pub fn every(labels: Vec<String>) -> Self {
        Self { labels, step: 1 }
    }

    /// Every `step`-th label gets a tick, from the first: for more labels than have room.
    pub fn every_nth(labels: Vec<String>, step: usize) -> Self {
        Self {
            labels,
            step: step.max(1),
        }
    }

    /// Months (YYYY-MM) with at most `ticks_max` labels, at a step that divides a year.
    pub fn months(labels: Vec<String>, ticks_max: usize) -> Self {
        let n = labels.len();
        let ticks_max = ticks_max.max(2);
        let step = MONTH_STEPS
            .iter()
            .copied()
            .find(|step| n.div_ceil(*step) <= ticks_max)
            .unwrap_or(n.max(1));
        Self { labels, step }
    }

    /// The label at index `idx` (rounded), or nothing off the axis.
    pub fn label(&self, idx: f64) -> String {
        let rounded = idx.round();
        if rounded < 0.0 || (rounded as usize) >= self.labels.len() {
            return String::new();
        }
        self.labels[rounded as usize].clone()
    }
}

impl Ranged for IndexAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let range = self.range();
        let fraction = (value - range.start) / (range.end - range.start);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // No light grid lines between ticks; `x_labels(0)` hides the ticks.
        if matches!(hint.weight(), KeyPointWeight::Any) || hint.max_num_points() == 0 {
            return Vec::new();
        }
        (0..self.labels.len())
            .step_by(self.step)
            .map(|idx| idx as f64)
            .collect()
    }

    fn range(&self) -> Range<f64> {
        -0.5..(self.labels.len().max(1) as f64 - 0.5)
    }
}

impl ValueFormatter<f64> for IndexAxis {
    fn format_ext(&self, idx: &f64) -> String {
        self.label(*idx)
    }
}

/// The plane of the trade-off charts (a run's and a sweep's): p95 wait across, total cost
/// (amortised) up.
pub struct CostWaitPlane<'a> {
    pub x_range: Range<f64>,
    pub y_range: Range<f64>,
    pub margin_right_px: i32,
    pub x_ticks: usize,
    pub x_label: &'a dyn Fn(f64) -> String,
    pub money: &'a MoneyAxis,
    /// What the cost covers, in the y axis' description ("over 12 months").
    pub cost_over: String,
}

/// The chart of a [`CostWaitPlane`] on `area`, its axes and grid drawn.
pub fn cost_wait_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    plane: CostWaitPlane<'_>,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, DB> {
    let mut chart = ChartBuilder::on(area)
        .margin_left(20)
        .margin_right(plane.margin_right_px)
        .margin_top(10)
        .margin_bottom(16)
        .x_label_area_size(70)
        .y_label_area_size(140)
        .build_cartesian_2d(plane.x_range.clone(), plane.y_range.clone())?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.x_labels(plane.x_ticks)
        .y_labels(10)
        .x_label_formatter(&|hours| (plane.x_label)(*hours))
        .y_label_formatter(&|amount| plane.money.label(*amount))
        .x_desc("p95 wait from arrival to first start (hours)")
        .y_desc(format!(
            "Total cost {}, amortised ({})",
            plane.cost_over, plane.money.unit
        ))
        .draw()?;
    Ok(chart)
}

/// Which cost view a panel shows: capital spread over its amortisation, or counted in its
/// purchase month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostView {
    Amortised,
    Cash,
}

impl CostView {
    pub fn caption(self) -> &'static str {
        match self {
            CostView::Amortised => "Amortised view: capital spread over its amortisation",
            CostView::Cash => "Cash view: capital counted when it is paid",
        }
    }
}

/// The provenance line of a chart: "hybrid-vs-cloud · seed 42 · 30 replications · fleetsim
/// 0.1.0" (parts that are not known are left out).
pub fn provenance(scenario: &str, seed: Option<u64>, replications: u32, version: &str) -> String {
    let mut parts = vec![format!("Scenario {scenario}")];
    if let Some(seed) = seed {
        parts.push(format!("seed {seed}"));
    }
    parts.push(self::replications(replications));
    if !version.is_empty() {
        parts.push(format!("fleetsim {version}"));
    }
    parts.join(" \u{b7} ")
}

/// "1 replication", "30 replications".
pub fn replications(n: u32) -> String {
    if n == 1 {
        "1 replication".to_string()
    } else {
        format!("{n} replications")
    }
}

/// "1 month", "24 months".
pub fn months(n: usize) -> String {
    if n == 1 {
        "1 month".to_string()
    } else {
        format!("{n} months")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::coord::ranged1d::{BoldPoints, LightPoints};

    #[test]
    fn money_is_shown_in_millions_or_thousands_on_one_scale() {
        // "8 M EUR", not "8,000 thousand EUR".
        let axis = MoneyAxis::new(&(0.0..12_000_000.0), "EUR");
        assert_eq!(axis.unit, "M EUR");
        assert_eq!(axis.label(8_000_000.0), "8");
        assert_eq!(axis.label(9_500_000.0), "10");
        let axis = MoneyAxis::new(&(0.0..2_500_000_000.0), "USD");
        assert_eq!(axis.unit, "M USD");
        assert_eq!(axis.label(1_250_000_000.0), "1,250");
        let axis = MoneyAxis::new(&(0.0..500_000.0), "EUR");
        assert_eq!(
            (axis.unit.as_str(), axis.label(350_000.0)),
            ("k EUR", "350".into())
        );
        let axis = MoneyAxis::new(&(0.0..5_000.0), "EUR");
        assert_eq!(
            (axis.unit.as_str(), axis.label(4_500.0)),
            ("EUR", "4,500".into())
        );
        // A narrow range needs decimals to tell its ticks apart.
        let axis = MoneyAxis::new(&(4_400_000.0..4_405_000.0), "EUR");
        assert_eq!(axis.label(4_402_500.0), "4.4025");
        let axis = MoneyAxis::new(&(0.0..9_000_000.0), "EUR");
        assert_eq!(axis.label(4_500_000.0), "4.5");
    }

    #[test]
    fn decimals_follow_the_tick_step() {
        assert_eq!(decimals_for_step(20.0), 0);
        assert_eq!(decimals_for_step(1.0), 0);
        assert_eq!(decimals_for_step(0.5), 1);
        assert_eq!(decimals_for_step(0.05), 2);
        assert_eq!(decimals_for_step(f64::NAN), 0);
    }

    #[test]
    fn month_ticks_divide_a_year_and_fit() {
        let months = |n: usize| (0..n).map(|i| format!("m{i}")).collect::<Vec<_>>();
        let axis = IndexAxis::months(months(24), 10);
        assert_eq!(axis.step, 3);
        assert_eq!(
            axis.key_points(BoldPoints(10)),
            [0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]
        );
        assert_eq!(IndexAxis::months(months(6), 10).step, 1);
        assert_eq!(IndexAxis::months(months(120), 8).step, 24);
        assert_eq!(axis.label(2.6), "m3");
        assert_eq!(axis.label(-3.0), "");
        assert!(axis.key_points(LightPoints::new(10, 20)).is_empty());
    }

    #[test]
    fn panels_fill_a_wide_grid() {
        assert_eq!(panel_grid(1), (1, 1));
        assert_eq!(panel_grid(4), (2, 2));
        assert_eq!(panel_grid(5), (2, 3));
        assert_eq!(panel_grid(13), (4, 4));
    }

    #[test]
    fn padding_a_point_gives_a_range() {
        let range = padded(5.0..5.0, 0.1);
        assert!(range.start < 5.0 && range.end > 5.0);
        assert_eq!(padded(0.0..10.0, 0.1), -1.0..11.0);
        assert_eq!(extent([f64::NAN, 3.0, -1.0]), -1.0..3.0);
        assert_eq!(extent([f64::NAN]), 0.0..1.0);
    }
}
