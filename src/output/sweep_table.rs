//! What a sweep writes beside its points and shows at the end: the rows of `sweep.csv` and
//! the best point per strategy for the headline metrics.

use std::fmt::Write;

use super::Cell;
use crate::format::thousands;
use crate::records::SummaryRow;

/// One point's `summary.csv` rows with the values of the varied parameters.
#[derive(Debug, Clone)]
pub struct PointSummary {
    pub index: usize,
    /// One cell per varied parameter, in the sweep's order.
    pub values: Vec<Cell>,
    pub summary: Vec<SummaryRow>,
}

/// The columns of `sweep.csv` after the varied parameters'.
pub(super) const STAT_COLUMNS: [&str; 10] = [
    "strategy",
    "metric",
    "mean",
    "std",
    "ci95_low",
    "ci95_high",
    "p5",
    "p50",
    "p95",
    "n",
];

/// `sweep.csv`, tidy: one row per point, strategy and metric; the point's index, then one
/// column per varied parameter (named by its path), then the statistics of `summary.csv` and
/// the `currency` of money metrics (empty for the others), as in `summary.csv`.
pub fn sweep_rows(
    parameters: &[String],
    points: &[PointSummary],
    currency: &str,
) -> (Vec<String>, Vec<Vec<Cell>>) {
    let header: Vec<String> = std::iter::once("point".to_string())
        .chain(parameters.iter().cloned())
        .chain(STAT_COLUMNS.iter().map(|c| c.to_string()))
        .chain(["currency".to_string()])
        .collect();
    let mut rows = Vec::new();
    for point in points {
        assert_eq!(
            point.values.len(),
            parameters.len(),
            "a value per parameter"
        );
        for row in &point.summary {
            let mut cells = Vec::with_capacity(header.len());
            cells.push(Cell::Count(point.index as u64));
            cells.extend(point.values.iter().cloned());
            cells.extend([
                Cell::Text(row.strategy.clone()),
                Cell::Text(row.metric.clone()),
                Cell::Number(row.mean),
                Cell::Number(row.std),
                Cell::Number(row.ci95_low),
                Cell::Number(row.ci95_high),
                Cell::Number(row.p5),
                Cell::Number(row.p50),
                Cell::Number(row.p95),
                Cell::Count(u64::from(row.n)),
                if crate::records::is_money(&row.metric) {
                    Cell::Text(currency.to_string())
                } else {
                    Cell::Empty
                },
            ]);
            rows.push(cells);
        }
    }
    (header, rows)
}

/// A cell as a person reads it in the terminal.
fn show(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) => text.clone(),
        Cell::Integer(n) => n.to_string(),
        Cell::Count(n) => n.to_string(),
        Cell::Number(x) => x.to_string(),
        Cell::Bool(b) => b.to_string(),
        Cell::Empty => String::new(),
    }
}

/// The terminal's answer to "which point is best?": per strategy, the point with the lowest
/// mean total cost and the one with the lowest mean p95 wait (ties go to the earlier point).
/// `relevant[s][j]`: whether parameter `j` can change strategy `s`'s results; the others are
/// left out of its line (a tie between points differing only in them is no information).
pub fn best_points(
    currency: &str,
    strategies: &[String],
    parameters: &[String],
    relevant: &[Vec<bool>],
    points: &[PointSummary],
) -> String {
    assert_eq!(relevant.len(), strategies.len(), "relevance per strategy");
    let width = strategies.iter().map(String::len).max().unwrap_or(8).max(8);
    let mut text = String::new();
    let headlines = [
        (
            "total_cost",
            format!("lowest total cost ({currency}, mean ± 95% CI)"),
            0,
        ),
        (
            "wait_p95_h",
            "lowest p95 wait (hours, mean ± 95% CI)".to_string(),
            2,
        ),
    ];
    for (metric, title, decimals) in headlines {
        let _ = writeln!(text, "{title}");
        for (s, strategy) in strategies.iter().enumerate() {
            let found: Vec<(&PointSummary, &SummaryRow)> = points
                .iter()
                .filter_map(|p| {
                    p.summary
                        .iter()
                        .find(|r| &r.strategy == strategy && r.metric == metric)
                        .map(|r| (p, r))
                })
                .filter(|(_, r)| !r.mean.is_nan())
                .collect();
            let Some(&(best, row)) = found.iter().min_by(|a, b| {
                a.1.mean
                    .total_cmp(&b.1.mean)
                    .then(a.0.index.cmp(&b.0.index))
            }) else {
                let _ = writeln!(text, "  {strategy:width$}  -");
                continue;
            };
            let value = if row.n > 1 {
                format!(
                    "{} ± {}",
                    thousands(row.mean, decimals),
                    thousands((row.ci95_high - row.ci95_low) / 2.0, decimals)
                )
            } else {
                thousands(row.mean, decimals)
            };
            let all_equal = found.iter().all(|(_, r)| r.mean == row.mean);
            let at = if all_equal && found.len() > 1 {
                "the same at every point".to_string()
            } else {
                let values: Vec<String> = parameters
                    .iter()
                    .zip(&best.values)
                    .zip(&relevant[s])
                    .filter(|(_, relevant)| **relevant)
                    .map(|((path, cell), _)| format!("{path}={}", show(cell)))
                    .collect();
                format!("point {}: {}", best.index, values.join(", "))
            };
            // A low p95 that hides jobs starving is no answer to "which point waits least".
            let warning = match super::summary_table::starving(&best.summary, strategy) {
                Some(found) if metric == "wait_p95_h" => format!(
                    "  (but {} job(s) per replication never started, longest wait {} h)",
                    thousands(found.jobs_unstarted.max(1.0), 0),
                    thousands(found.wait_max_h, 0)
                ),
                _ => String::new(),
            };
            let _ = writeln!(text, "  {strategy:width$}  {value:>22}  {at}{warning}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(strategy: &str, metric: &str, mean: f64) -> SummaryRow {
        SummaryRow {
            strategy: strategy.into(),
            metric: metric.into(),
            mean,
            std: 1.0,
            ci95_low: mean - 1.0,
            ci95_high: mean + 1.0,
            p5: mean,
            p50: mean,
            p95: mean,
            n: 3,
        }
    }

    fn points() -> Vec<PointSummary> {
        (0..3)
            .map(|i| PointSummary {
                index: i,
                values: vec![Cell::Integer(2 * i as i64), Cell::Text("fifo".into())],
                summary: vec![
                    row("cloud", "total_cost", 100.0),
                    row("hybrid", "total_cost", 100.0 - (i as f64 - 1.0).powi(2)),
                    row("cloud", "wait_p95_h", 0.5),
                    row("hybrid", "wait_p95_h", 3.0 - i as f64),
                ],
            })
            .collect()
    }

    #[test]
    fn rows_are_tidy() {
        let (header, rows) = sweep_rows(
            &["pool.dgx.nodes".into(), "strategy.cloud.queue".into()],
            &points(),
            "EUR",
        );
        assert_eq!(
            header[..4],
            [
                "point",
                "pool.dgx.nodes",
                "strategy.cloud.queue",
                "strategy"
            ]
        );
        assert_eq!(header.len(), 14);
        assert_eq!(header[13], "currency");
        assert_eq!(rows.len(), 12);
        // Money metrics say their currency; a wait does not.
        assert_eq!(rows[0][13], Cell::Text("EUR".into()));
        assert_eq!(rows[2][13], Cell::Empty);
        assert_eq!(
            rows[5][..4],
            [
                Cell::Count(1),
                Cell::Integer(2),
                Cell::Text("fifo".into()),
                Cell::Text("hybrid".into())
            ]
        );
    }

    #[test]
    fn the_best_point_per_strategy_is_named() {
        let strategies = ["cloud".to_string(), "hybrid".to_string()];
        let parameters = [
            "pool.dgx.nodes".to_string(),
            "strategy.cloud.queue".to_string(),
        ];
        let relevant = [vec![false, true], vec![true, false]];
        let text = best_points("EUR", &strategies, &parameters, &relevant, &points());
        // Cost: hybrid is lowest at points 0 and 2 (99): the earlier wins.
        assert!(text.contains("99 ± 1  point 0: pool.dgx.nodes=0"), "{text}");
        assert!(text.contains("the same at every point"), "{text}");
        assert!(
            text.contains("1.00 ± 1.00  point 2: pool.dgx.nodes=4"),
            "{text}"
        );
    }
}
