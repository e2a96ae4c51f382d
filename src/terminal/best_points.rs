//! What a sweep shows at the end on the terminal: the best point per strategy for the headline
//! metrics.

use std::fmt::Write;

use crate::files::{Cell, PointSummary};
use crate::format::thousands;
use crate::records::SummaryRow;
use crate::records::metric;

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
            metric::TOTAL_COST,
            format!("lowest total cost ({currency}, mean ± 95% CI)"),
            0,
        ),
        (
            metric::WAIT_P95_H,
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
                Some(found) if metric == metric::WAIT_P95_H => format!(
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
    use crate::files::sweep_table::tests::points;

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
