//! What a sweep writes beside its points: the rows of `sweep.csv`.

use super::Cell;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::records::metric;

    pub(crate) fn row(strategy: &str, metric: &str, mean: f64) -> SummaryRow {
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

    pub(crate) fn points() -> Vec<PointSummary> {
        (0..3)
            .map(|i| PointSummary {
                index: i,
                values: vec![Cell::Integer(2 * i as i64), Cell::Text("fifo".into())],
                summary: vec![
                    row("cloud", metric::TOTAL_COST, 100.0),
                    row(
                        "hybrid",
                        metric::TOTAL_COST,
                        100.0 - (i as f64 - 1.0).powi(2),
                    ),
                    row("cloud", metric::WAIT_P95_H, 0.5),
                    row("hybrid", metric::WAIT_P95_H, 3.0 - i as f64),
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
}
