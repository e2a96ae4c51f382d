//! Reads a sweep folder back for its charts: `sweep.json` (the strategies, the varied
//! parameters and their values at every point) and `sweep.csv` (the statistics of every point,
//! strategy and metric), and nothing else, so that merged or copied sweeps draw the same.

use crate::regular_file;
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::super::ChartError;
use super::axis::{Level, Scale, short_names, unit_of};
use crate::records::metric;
use crate::stats;

/// The part of `sweep.json` the charts need; other fields are ignored, so that a later
/// version's `sweep.json` still reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SweepMeta {
    pub scenario_name: String,
    pub currency: String,
    /// Replications per strategy at every point.
    pub replications: u32,
    pub strategies: Vec<String>,
    pub sampling: SamplingMeta,
    pub parameters: Vec<ParameterMeta>,
    pub points: Vec<PointMeta>,
    /// The resolved scenario (for the horizon in axis titles).
    #[serde(default)]
    pub scenario: serde_json::Value,
    /// For the charts' provenance line.
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub fleetsim_version: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SamplingMeta {
    /// "grid", "random" or "lhs".
    pub method: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ParameterMeta {
    pub path: String,
    /// The values of a grid or a sampled list, in the order written.
    #[serde(default)]
    pub values: Option<Vec<serde_json::Value>>,
    /// Spaced or sampled evenly in the logarithm.
    #[serde(default)]
    pub log: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PointMeta {
    pub index: usize,
    pub id: String,
    pub parameters: BTreeMap<String, serde_json::Value>,
}

/// The metrics of `sweep.csv` the charts read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// Amortised view, scenario currency.
    TotalCost,
    /// Hours from arrival to first start.
    WaitP95,
    JobsUnfinished,
    JobsArrived,
}

impl Metric {
    const ALL: [Metric; 4] = [
        Metric::TotalCost,
        Metric::WaitP95,
        Metric::JobsUnfinished,
        Metric::JobsArrived,
    ];

    /// The name in `sweep.csv`'s `metric` column.
    pub fn name(self) -> &'static str {
        match self {
            Metric::TotalCost => metric::TOTAL_COST,
            Metric::WaitP95 => metric::WAIT_P95_H,
            Metric::JobsUnfinished => metric::JOBS_UNFINISHED,
            Metric::JobsArrived => metric::JOBS_ARRIVED,
        }
    }

    fn idx(self) -> usize {
        self as usize
    }
}

/// A mean with its 95 % confidence interval (NaN bounds with one replication).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// A varied parameter as the charts use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The field path, as given to `--vary`.
    pub path: String,
    /// The shortest part of the path that still tells the parameters apart (`dgx.nodes`).
    pub name: String,
    /// "hours", "EUR per GPU-hour", ...; None for plain numbers and names.
    pub unit: Option<String>,
    /// What the field is, in words, from the schema's description and the table it belongs
    /// to: "Nodes in the pool dgx", "Mean time to preemption of a node, pool spot"; the
    /// path when the schema does not describe it.
    pub label: String,
    pub scale: Scale,
    /// The distinct values taken: numbers ascending, names in the order written.
    pub levels: Vec<Level>,
    /// The level of each point (by position in `sweep.json`).
    pub level_of: Vec<usize>,
    /// Its values were listed or stepped (a grid, or a sample drawn from a list), not drawn
    /// from an interval: the values themselves make the best ticks.
    pub listed: bool,
}

impl Parameter {
    /// Where level `level` lies on the parameter's axis: the value, its logarithm, or the
    /// level's index for names.
    pub fn coordinate(&self, level: usize) -> f64 {
        match (&self.scale, &self.levels[level]) {
            (Scale::Linear, Level::Number(x)) => *x,
            (Scale::Log, Level::Number(x)) => x.log10(),
            _ => level as f64,
        }
    }

    /// The axis title: what the field is, with its unit.
    pub fn title(&self) -> String {
        match &self.unit {
            Some(unit) => format!("{} ({unit})", self.label),
            None => self.label.clone(),
        }
    }

    /// The axis title and its text size: the whole title in the axis font when it fits in
    /// `length_px`, else the short name with the unit, in a smaller font if need be (panels
    /// in a grid are narrow), and the short name alone as a last resort.
    pub fn title_within<DB: plotters::prelude::DrawingBackend>(
        &self,
        area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        length_px: u32,
    ) -> super::super::style::DrawResult<(String, u32), DB> {
        use super::super::style::{AXIS_PX, font};
        let short = match &self.unit {
            Some(unit) => format!("{} ({unit})", self.name),
            None => self.name.clone(),
        };
        let candidates = [
            (self.title(), AXIS_PX),
            (short.clone(), AXIS_PX),
            (short.clone(), AXIS_PX - 4),
            (short, AXIS_PX - 7),
        ];
        for (title, size_px) in candidates {
            if area.estimate_text_size(&title, &font(size_px))?.0 <= length_px {
                return Ok((title, size_px));
            }
        }
        Ok((self.name.clone(), AXIS_PX - 7))
    }

    /// "dgx.nodes = 4"
    pub fn at(&self, level: usize) -> String {
        format!("{} = {}", self.name, self.levels[level].label())
    }
}

/// Everything the sweep charts draw.
#[derive(Debug, Clone)]
pub struct SweepResults {
    pub meta: SweepMeta,
    /// Strategies in `sweep.json` order, then any only `sweep.csv` names: the index is the
    /// strategy's colour, the same as in the run charts of its points.
    pub strategies: Vec<String>,
    pub parameters: Vec<Parameter>,
    /// A full grid: every combination of the parameters' levels is a point.
    pub grid: bool,
    /// `relevant[strategy][parameter]`: whether the parameter can change the strategy's
    /// results (as the terminal's best points say: `strategy.S.*` only S's, `pool.P.*` only
    /// those of the strategies using pool P, any other field all).
    pub relevant: Vec<Vec<bool>>,
    /// `stats[metric][strategy][point]`.
    stats: Vec<Vec<Vec<Option<Stat>>>>,
    /// `costs[strategy][point]`: total cost (amortised) per replication, in replication order,
    /// from each point's `replications.csv` (empty when a point's folder has none): for the
    /// paired differences between points, which see the same jobs.
    costs: Vec<Vec<Vec<f64>>>,
}

/// The files a sweep folder must hold for its charts.
pub const SWEEP_INPUT_FILES: [&str; 2] = ["sweep.json", "sweep.csv"];

/// Above this share of unfinished jobs, a point's wait is not comparable: jobs never started
/// count with their waits up to the horizon, lower bounds (the run charts note it at the same
/// share).
pub const UNFINISHED_NOTED: f64 = 0.01;

impl SweepResults {
    /// Reads the sweep folder `dir`; a missing or unreadable file is an error naming it.
    pub fn load(dir: &Path) -> Result<Self, ChartError> {
        if !dir.is_dir() {
            return Err(ChartError::NoFolder {
                dir: dir.to_path_buf(),
            });
        }
        let meta_path = dir.join("sweep.json");
        let text = regular_file::read_to_string(&meta_path, regular_file::JSON_BYTES_MAX).map_err(
            |source| ChartError::Read {
                path: meta_path.clone(),
                source,
            },
        )?;
        let meta: SweepMeta =
            serde_json::from_str(&text).map_err(|source| ChartError::SweepJson {
                path: meta_path.clone(),
                source,
            })?;
        let csv_path = dir.join("sweep.csv");
        if !csv_path.exists() {
            return Err(ChartError::NoSweepCsv {
                dir: dir.to_path_buf(),
            });
        }
        let rows = read_sweep_csv(&csv_path)?;
        let mut results = Self::from_parts(meta, rows).map_err(|message| ChartError::SweepCsv {
            path: csv_path,
            message,
        })?;
        results.costs = replication_costs(dir, &results.meta, &results.strategies);
        Ok(results)
    }

    /// Builds the results from `sweep.json` and the rows of `sweep.csv`; the error says what
    /// in `sweep.csv` does not fit `sweep.json`.
    fn from_parts(meta: SweepMeta, rows: Vec<CsvRow>) -> Result<Self, String> {
        if rows.is_empty() {
            return Err("has no rows".into());
        }
        let position: BTreeMap<usize, usize> = meta
            .points
            .iter()
            .enumerate()
            .map(|(pos, p)| (p.index, pos))
            .collect();
        let mut strategies = meta.strategies.clone();
        for row in &rows {
            if !strategies.contains(&row.strategy) {
                strategies.push(row.strategy.clone());
            }
        }
        let n_points = meta.points.len();
        let mut stats = vec![vec![vec![None; n_points]; strategies.len()]; Metric::ALL.len()];
        for row in rows {
            let Some(&pos) = position.get(&row.point) else {
                return Err(format!(
                    "names point {}, which sweep.json does not list",
                    row.point
                ));
            };
            let strategy = strategies
                .iter()
                .position(|s| *s == row.strategy)
                .expect("every strategy was added above");
            stats[row.metric.idx()][strategy][pos] = Some(row.stat);
        }
        missing_rows(&meta, &stats)?;
        let paths: Vec<String> = meta.parameters.iter().map(|p| p.path.clone()).collect();
        let names = short_names(&paths);
        let mut parameters = Vec::with_capacity(paths.len());
        for (parameter, name) in meta.parameters.iter().zip(names) {
            let values: Vec<&serde_json::Value> = meta
                .points
                .iter()
                .map(|p| {
                    p.parameters
                        .get(&parameter.path)
                        .unwrap_or(&serde_json::Value::Null)
                })
                .collect();
            let (scale, levels, level_of) = levels(parameter, &values);
            parameters.push(Parameter {
                unit: unit_of(&parameter.path, &meta.currency),
                label: label_of(&parameter.path),
                path: parameter.path.clone(),
                name,
                scale,
                levels,
                level_of,
                listed: parameter.values.is_some(),
            });
        }
        let combinations: usize = parameters.iter().map(|p| p.levels.len()).product();
        let grid = meta.sampling.method == "grid" && combinations == n_points;
        let relevant = relevance(&meta.scenario, &strategies, &paths);
        Ok(Self {
            meta,
            strategies,
            parameters,
            grid,
            relevant,
            stats,
            costs: Vec::new(),
        })
    }

    /// The paired difference of total cost between points `point` and `reference` for a
    /// strategy (mean of the per-replication differences, with its 95 % interval), when both
    /// points' replications are known and match.
    pub fn paired_cost_difference(
        &self,
        strategy: usize,
        point: usize,
        reference: usize,
    ) -> Option<Stat> {
        let a = self.costs.get(strategy)?.get(point)?;
        let b = self.costs.get(strategy)?.get(reference)?;
        if a.is_empty() || a.len() != b.len() {
            return None;
        }
        let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        let estimate = stats::estimate(&differences);
        estimate.mean.is_finite().then_some(Stat {
            mean: estimate.mean,
            ci95_low: estimate.ci95_low,
            ci95_high: estimate.ci95_high,
        })
    }

    /// The number of points.
    pub fn n_points(&self) -> usize {
        self.meta.points.len()
    }

    /// The statistic of `metric` for strategy `strategy` at the point at position `point`, if
    /// `sweep.csv` has a finite mean for it.
    pub fn stat(&self, metric: Metric, strategy: usize, point: usize) -> Option<Stat> {
        self.stats[metric.idx()][strategy][point].filter(|s| s.mean.is_finite())
    }

    /// The mean share of arrived jobs still queued or running at the horizon's end.
    pub fn unfinished(&self, strategy: usize, point: usize) -> f64 {
        match (
            self.stat(Metric::JobsUnfinished, strategy, point),
            self.stat(Metric::JobsArrived, strategy, point),
        ) {
            (Some(unfinished), Some(arrived)) if arrived.mean > 0.0 => {
                unfinished.mean / arrived.mean
            }
            _ => 0.0,
        }
    }

    /// The point (position) with the lowest mean total cost of any strategy (the earlier on a
    /// tie), with that strategy: where the charts fix the parameters they cannot show.
    pub fn cheapest(&self) -> Option<(usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for point in 0..self.n_points() {
            for strategy in 0..self.strategies.len() {
                if let Some(stat) = self.stat(Metric::TotalCost, strategy, point)
                    && best.is_none_or(|(cost, _, _)| stat.mean < cost)
                {
                    best = Some((stat.mean, point, strategy));
                }
            }
        }
        best.map(|(_, point, strategy)| (point, strategy))
    }

    /// "over 24 months", or "over the horizon" when the horizon is varied or unknown.
    pub fn horizon(&self) -> String {
        let varied = self.parameters.iter().any(|p| p.path == "horizon_months");
        match self
            .meta
            .scenario
            .get("horizon_months")
            .and_then(|m| m.as_u64())
        {
            Some(1) if !varied => "over 1 month".to_string(),
            Some(months) if !varied => format!("over {months} months"),
            _ => "over the horizon".to_string(),
        }
    }

    /// The provenance line at the foot of every chart ("sweep of ...").
    pub fn provenance(&self) -> String {
        super::super::style::provenance(
            &format!(
                "{} (sweep, {} points)",
                self.meta.scenario_name,
                self.n_points()
            ),
            self.meta.seed,
            self.meta.replications,
            &self.meta.fleetsim_version,
        )
    }

    /// "5 replications" or "1 replication".
    pub fn replications(&self) -> String {
        super::super::style::replications(self.meta.replications)
    }
}

/// Points `sweep.json` lists of which `sweep.csv` lacks a row the charts need (a file cut
/// short at a row's end reads as a smaller sweep): the error names them, since a chart drawn
/// without them would silently leave points out.
fn missing_rows(meta: &SweepMeta, stats: &[Vec<Vec<Option<Stat>>>]) -> Result<(), String> {
    let lacking: Vec<&str> = meta
        .points
        .iter()
        .enumerate()
        .filter(|&(pos, _)| {
            (0..meta.strategies.len()).any(|strategy| {
                Metric::ALL
                    .iter()
                    .any(|m| stats[m.idx()][strategy][pos].is_none())
            })
        })
        .map(|(_, point)| point.id.as_str())
        .collect();
    if lacking.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 5;
    let listed = lacking[..lacking.len().min(SHOWN)].join(", ");
    let more = if lacking.len() > SHOWN { ", ..." } else { "" };
    Err(format!(
        "lacks rows of {} of the {} points sweep.json lists ({listed}{more}): it is cut short \
         or from another sweep; write it again with `fleetsim sweep --resume` (or `fleetsim \
         merge` for a sharded sweep)",
        lacking.len(),
        meta.points.len()
    ))
}

/// Per strategy, whether each parameter can change its results, from the strategies' pools in
/// the resolved scenario (the rule of `sweep::plan::relevance`, which works on the whole
/// `sweep.json`; the charts read only the part they need).
fn relevance(
    scenario: &serde_json::Value,
    strategies: &[String],
    paths: &[String],
) -> Vec<Vec<bool>> {
    let defined = scenario["strategy"].as_array().cloned().unwrap_or_default();
    strategies
        .iter()
        .map(|name| {
            let pools: Vec<&str> = defined
                .iter()
                .find(|s| s["name"].as_str() == Some(name))
                .and_then(|s| s["pools"].as_array())
                .map(|pools| pools.iter().filter_map(|p| p.as_str()).collect())
                .unwrap_or_default();
            paths
                .iter()
                .map(|path| {
                    let mut parts = path.splitn(3, '.');
                    match (parts.next(), parts.next(), parts.next()) {
                        (Some("strategy"), Some(strategy), Some(_)) => strategy == name,
                        // Unknown pools (a sweep.json without the scenario): assume it matters.
                        (Some("pool"), Some(pool), Some(_)) => {
                            pools.is_empty() || pools.contains(&pool)
                        }
                        _ => true,
                    }
                })
                .collect()
        })
        .collect()
}

/// A field's words for a chart: the first phrase of its description in the scenario schema,
/// and the named table it is in ("Nodes in the pool, dgx"); the path itself for a field the
/// schema does not describe.
fn label_of(path: &str) -> String {
    let Some(doc) = crate::scenario::schema::field_doc(path) else {
        return path.to_string();
    };
    let segments: Vec<&str> = path.split('.').collect();
    let owner = match segments.as_slice() {
        [
            table @ ("pool" | "workload" | "strategy" | "service"),
            name,
            _,
            ..,
        ] => Some((*table, *name)),
        _ => None,
    };
    // A distribution's parameter (`duration_h.median`) is named after its field.
    let mut label = doc.title;
    if let Some(rest) = doc.rest {
        label = format!("{label}, {rest}");
    }
    match owner {
        // "Nodes in the pool" names its table already: "Nodes in the pool dgx".
        Some((table, name)) if label.ends_with(&format!(" {table}")) => format!("{label} {name}"),
        Some((table, name)) => format!("{label}, {table} {name}"),
        None => label,
    }
}

/// Per strategy and point, the total cost of each replication from the points' own
/// `replications.csv` (a folder written by `sweep` or `merge` has them; one that lacks them
/// gets no paired differences).
fn replication_costs(dir: &Path, meta: &SweepMeta, strategies: &[String]) -> Vec<Vec<Vec<f64>>> {
    #[derive(Deserialize)]
    struct Row {
        strategy: String,
        replication: u32,
        total_cost: f64,
    }
    let mut costs = vec![vec![Vec::new(); meta.points.len()]; strategies.len()];
    for (position, point) in meta.points.iter().enumerate() {
        let path = dir.join("points").join(&point.id).join("replications.csv");
        let Ok(file) = regular_file::open_at_most(&path, regular_file::TABLE_BYTES_MAX) else {
            continue;
        };
        let mut reader = csv::Reader::from_reader(file);
        let mut rows: Vec<Row> = reader.deserialize().filter_map(Result::ok).collect();
        rows.sort_by_key(|r| r.replication);
        for row in rows {
            if let Some(s) = strategies.iter().position(|name| *name == row.strategy) {
                costs[s][position].push(row.total_cost);
            }
        }
    }
    costs
}

/// One row of `sweep.csv` that the charts use.
#[derive(Debug, Clone, PartialEq)]
struct CsvRow {
    point: usize,
    strategy: String,
    metric: Metric,
    stat: Stat,
}

/// The rows of the metrics the charts use. Columns are found by name: the parameters' columns
/// between `point` and `strategy` are not needed (their values come from `sweep.json`).
fn read_sweep_csv(path: &Path) -> Result<Vec<CsvRow>, ChartError> {
    let fail = |message: String| ChartError::SweepCsv {
        path: path.to_path_buf(),
        message,
    };
    let file = regular_file::open_at_most(path, regular_file::TABLE_BYTES_MAX)
        .map_err(|error| fail(error.to_string()))?;
    let mut reader = csv::Reader::from_reader(file);
    let header = reader
        .headers()
        .map_err(|error| fail(error.to_string()))?
        .clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| fail(format!("has no `{name}` column")))
    };
    let point = column("point")?;
    let strategy = column("strategy")?;
    let metric = column("metric")?;
    let mean = column("mean")?;
    let low = column("ci95_low")?;
    let high = column("ci95_high")?;
    let mut rows = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|error| fail(error.to_string()))?;
        let Some(metric) = Metric::ALL
            .into_iter()
            .find(|m| m.name() == &record[metric])
        else {
            continue;
        };
        // Line 1 is the header.
        // An empty cell is an undefined number.
        let number = |column: usize| {
            if record[column].is_empty() {
                return Ok(f64::NAN);
            }
            record[column].parse::<f64>().map_err(|_| {
                fail(format!(
                    "line {}: `{}` is not a number in column `{}`",
                    line + 2,
                    &record[column],
                    &header[column]
                ))
            })
        };
        let point_idx = record[point].parse::<usize>().map_err(|_| {
            fail(format!(
                "line {}: `{}` is not a point number",
                line + 2,
                &record[point]
            ))
        })?;
        rows.push(CsvRow {
            point: point_idx,
            strategy: record[strategy].to_string(),
            metric,
            stat: Stat {
                mean: number(mean)?,
                ci95_low: number(low)?,
                ci95_high: number(high)?,
            },
        });
    }
    Ok(rows)
}

/// A parameter's scale, its distinct values in axis order, and the level of each point.
fn levels(
    parameter: &ParameterMeta,
    values: &[&serde_json::Value],
) -> (Scale, Vec<Level>, Vec<usize>) {
    let numeric = values.iter().all(|v| v.is_number());
    if numeric {
        let mut numbers: Vec<f64> = values.iter().filter_map(|v| v.as_f64()).collect();
        numbers.sort_by(f64::total_cmp);
        numbers.dedup();
        let log = numbers.first().is_some_and(|&lo| lo > 0.0)
            && (parameter.log || looks_logarithmic(&numbers));
        let level_of = values
            .iter()
            .map(|v| {
                let x = v.as_f64().unwrap_or(f64::NAN);
                numbers
                    .iter()
                    .position(|n| *n == x)
                    .expect("every value is a level")
            })
            .collect();
        let scale = if log { Scale::Log } else { Scale::Linear };
        return (
            scale,
            numbers.into_iter().map(Level::Number).collect(),
            level_of,
        );
    }
    // Names (or names and numbers mixed, like `0,1,4,never`): in the order written, then any
    // other value in the order of the points.
    let mut order: Vec<serde_json::Value> = Vec::new();
    for value in parameter
        .values
        .iter()
        .flatten()
        .chain(values.iter().copied())
    {
        if !order.contains(value) {
            order.push(value.clone());
        }
    }
    let level_of = values
        .iter()
        .map(|v| {
            order
                .iter()
                .position(|o| o == *v)
                .expect("every value is a level")
        })
        .collect();
    let levels = order
        .iter()
        .map(|v| match v {
            serde_json::Value::String(s) => Level::Text(s.clone()),
            serde_json::Value::Number(n) => Level::Number(n.as_f64().unwrap_or(f64::NAN)),
            other => Level::Text(other.to_string()),
        })
        .collect();
    (Scale::Categorical, levels, level_of)
}

/// Positive values spanning two decades or more that are spaced more evenly in their
/// logarithm than in themselves (`1,10,100,1000`, but not `1,50,100,150`), as a list written
/// by hand rather than as `1..1000:log:4`.
fn looks_logarithmic(sorted: &[f64]) -> bool {
    if sorted.len() < 3 || sorted[0] <= 0.0 || sorted[sorted.len() - 1] / sorted[0] < 100.0 {
        return false;
    }
    let spread = |xs: Vec<f64>| {
        let steps: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = steps.iter().sum::<f64>() / steps.len() as f64;
        let var = steps.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / steps.len() as f64;
        var.sqrt() / mean
    };
    spread(sorted.iter().map(|x| x.log10()).collect()) < spread(sorted.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(method: &str, parameters: serde_json::Value, points: serde_json::Value) -> SweepMeta {
        serde_json::from_value(json!({
            "scenario_name": "s",
            "currency": "EUR",
            "replications": 3,
            "strategies": ["cloud", "hybrid"],
            "sampling": {"method": method},
            "parameters": parameters,
            "points": points,
            "scenario": {"horizon_months": 12},
        }))
        .unwrap()
    }

    fn row(point: usize, strategy: &str, metric: Metric, mean: f64) -> CsvRow {
        CsvRow {
            point,
            strategy: strategy.into(),
            metric,
            stat: Stat {
                mean,
                ci95_low: mean - 1.0,
                ci95_high: mean + 1.0,
            },
        }
    }

    /// A row of every metric, strategy and point with an undefined mean (as `sweep.csv` has
    /// where a figure is undefined), for tests to add their figures to.
    fn every_row_undefined(points: usize) -> Vec<CsvRow> {
        let mut rows = Vec::new();
        for point in 0..points {
            for strategy in ["cloud", "hybrid"] {
                for metric in Metric::ALL {
                    rows.push(row(point, strategy, metric, f64::NAN));
                }
            }
        }
        rows
    }

    #[test]
    fn a_sweep_csv_lacking_a_row_of_a_point_is_refused_naming_the_point() {
        let points = json!([
            {"index": 0, "id": "000", "parameters": {"a": 1}},
            {"index": 1, "id": "001", "parameters": {"a": 2}},
        ]);
        let parameters = json!([{"path": "a", "values": [1, 2], "log": false}]);
        let mut rows = every_row_undefined(2);
        assert!(
            SweepResults::from_parts(
                meta("grid", parameters.clone(), points.clone()),
                rows.clone()
            )
            .is_ok()
        );
        rows.pop();
        let error = SweepResults::from_parts(meta("grid", parameters, points), rows).unwrap_err();
        assert!(
            error.starts_with("lacks rows of 1 of the 2 points sweep.json lists (001)"),
            "{error}"
        );
    }

    #[test]
    fn levels_are_ordered_and_scaled() {
        const A: &str = "pool.spot.preemption.mean_h";
        const Q: &str = "strategy.hybrid.burst_after_wait_h";
        let points = json!([
            {"index": 0, "id": "0", "parameters": {A: 100, Q: "never"}},
            {"index": 1, "id": "1", "parameters": {A: 1, Q: 4}},
            {"index": 2, "id": "2", "parameters": {A: 10, Q: 0}},
        ]);
        let parameters = json!([
            {"path": "pool.spot.preemption.mean_h", "values": [1, 10, 100], "log": false},
            {"path": "strategy.hybrid.burst_after_wait_h", "values": [0, 4, "never"], "log": false},
        ]);
        let mut rows = every_row_undefined(3);
        rows.extend([
            row(0, "cloud", Metric::TotalCost, 5.0),
            row(2, "hybrid", Metric::TotalCost, 3.0),
            row(2, "hybrid", Metric::JobsArrived, 100.0),
            row(2, "hybrid", Metric::JobsUnfinished, 2.0),
        ]);
        let results = SweepResults::from_parts(meta("random", parameters, points), rows).unwrap();
        let [a, q] = &results.parameters[..] else {
            panic!("two parameters")
        };
        assert_eq!(a.scale, Scale::Log, "1, 10, 100 reads best on a log axis");
        assert_eq!(a.name, "preemption.mean_h");
        assert_eq!(
            a.title(),
            "Mean time to preemption of a node, pool spot (hours)"
        );
        assert_eq!(a.level_of, [2, 0, 1]);
        assert_eq!(a.coordinate(2), 2.0);
        assert_eq!(q.scale, Scale::Categorical);
        assert_eq!(
            q.levels,
            [
                Level::Number(0.0),
                Level::Number(4.0),
                Level::Text("never".into())
            ]
        );
        assert_eq!(q.at(2), "burst_after_wait_h = never");
        assert!(!results.grid);
        assert_eq!(results.cheapest(), Some((2, 1)));
        assert_eq!(results.unfinished(1, 2), 0.02);
        assert_eq!(results.stat(Metric::TotalCost, 0, 2), None);
        assert_eq!(results.horizon(), "over 12 months");
    }

    #[test]
    fn a_point_sweep_json_does_not_list_is_named() {
        let points = json!([{"index": 0, "id": "0", "parameters": {"a": 1}}]);
        let parameters = json!([{"path": "a", "values": [1], "log": false}]);
        let error = SweepResults::from_parts(
            meta("grid", parameters, points),
            vec![row(3, "cloud", Metric::TotalCost, 5.0)],
        )
        .unwrap_err();
        assert_eq!(error, "names point 3, which sweep.json does not list");
    }

    #[test]
    fn hand_written_decades_are_logarithmic() {
        assert!(looks_logarithmic(&[1.0, 10.0, 100.0, 1000.0]));
        assert!(looks_logarithmic(&[1.0, 3.0, 10.0, 30.0, 100.0]));
        assert!(!looks_logarithmic(&[1.0, 50.0, 100.0, 150.0]));
        assert!(
            !looks_logarithmic(&[2.0, 4.0, 8.0]),
            "less than two decades"
        );
        assert!(!looks_logarithmic(&[0.0, 10.0, 100.0]));
    }
}
