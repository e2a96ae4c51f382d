//! One optimisation: for each strategy, find the candidates (the grid, or a coordinate
//! search scored on the first replications), select among them, then compare the
//! strategies' choices.

use super::evaluate::{Evaluator, Hooks};
use super::result::{CandidateResult, Outcome, StrategyResult};
use super::select::{self, Limit, Need, Observations, Settings};
use super::space::{Point, Score, coordinate_search};
use super::{OptimizeError, Prepared};
use crate::sweep::design::lhs_unit;

impl Prepared {
    /// Answers the question. Interrupted (the stop flag), it returns
    /// [`OptimizeError::Interrupted`]; what was simulated is in the journal (`hooks.record`).
    pub fn run(&self, hooks: &Hooks<'_>) -> Result<Outcome, OptimizeError> {
        let mut evaluator = Evaluator::new(self, hooks);
        let mut candidates = Vec::new();
        let mut strategies = Vec::new();
        let share = self
            .settings
            .budget
            .map(|b| b / self.strategies.len() as u64);
        for &strategy in &self.strategies {
            let settings = Settings {
                budget: share,
                ..self.settings
            };
            let found = self.one_strategy(strategy, settings, &mut evaluator)?;
            let first = candidates.len();
            strategies.push(StrategyResult {
                strategy,
                chosen: found.1.chosen.map(|c| first + c),
                stop: found.1.stop,
                decision_level: found.1.decision_level,
                spent: found.1.spent,
            });
            for (point, status) in found.0.into_iter().zip(found.1.status) {
                let rows = evaluator
                    .rows
                    .remove(&(strategy, point.clone()))
                    .unwrap_or_default();
                let invalid = evaluator.invalid(&point);
                candidates.push(CandidateResult {
                    strategy,
                    point,
                    rows,
                    status,
                    invalid,
                });
            }
        }
        Ok(Outcome::new(
            candidates,
            strategies,
            evaluator.simulated,
            evaluator.reused,
        ))
    }

    /// The candidates of one strategy and the selection among them.
    fn one_strategy(
        &self,
        strategy: usize,
        settings: Settings,
        evaluator: &mut Evaluator<'_>,
    ) -> Result<(Vec<Point>, select::Selection), OptimizeError> {
        let points = if self.coordinate {
            self.search(strategy, settings.initial, evaluator)?
        } else {
            self.space.all()
        };
        let invalid: Vec<Option<String>> = points.iter().map(|p| evaluator.invalid(p)).collect();
        let observed: Vec<Observations> = points
            .iter()
            .map(|p| {
                evaluator
                    .rows
                    .get(&(strategy, p.clone()))
                    .map_or_else(Vec::new, |rows| {
                        rows.iter().map(|r| self.excesses(r)).collect()
                    })
            })
            .collect();
        let limits: Vec<Limit> = self
            .constraints
            .iter()
            .map(|c| Limit {
                tolerance: c.tolerance,
            })
            .collect();
        let mut simulate = |needs: &[Need]| -> Result<Vec<Vec<f64>>, OptimizeError> {
            let jobs: Vec<(Point, u32, u32)> = needs
                .iter()
                .map(|n| (points[n.candidate].clone(), n.from, n.to))
                .collect();
            let rows = evaluator.evaluate(strategy, &jobs)?;
            Ok(rows.iter().map(|r| self.excesses(r)).collect())
        };
        let selection = select::select(observed, &invalid, &limits, settings, &mut simulate)?;
        Ok((points, selection))
    }

    /// A replication's metric values as the selection reads them: the objective, then each
    /// constraint's excess over its limit.
    fn excesses(&self, row: &[f64]) -> Vec<f64> {
        std::iter::once(row[0])
            .chain(
                self.constraints
                    .iter()
                    .zip(&row[1..])
                    .map(|(c, &v)| c.excess(v)),
            )
            .collect()
    }

    /// Coordinate search from the centre and `restarts` Latin hypercube starts, each point
    /// scored on its first `initial` replications.
    fn search(
        &self,
        strategy: usize,
        initial: u32,
        evaluator: &mut Evaluator<'_>,
    ) -> Result<Vec<Point>, OptimizeError> {
        let mut starts = vec![self.space.centre()];
        let seed = self.config().seed.wrapping_add(strategy as u64);
        for u in lhs_unit(self.restarts as usize, self.space.paths.len(), seed) {
            let start = self.space.at_unit(&u);
            if !starts.contains(&start) {
                starts.push(start);
            }
        }
        let mut score = |points: &[Point]| -> Result<Vec<Score>, OptimizeError> {
            let valid: Vec<Point> = points
                .iter()
                .filter(|p| evaluator.invalid(p).is_none())
                .cloned()
                .collect();
            let jobs: Vec<(Point, u32, u32)> =
                valid.iter().map(|p| (p.clone(), 0, initial)).collect();
            evaluator.evaluate(strategy, &jobs)?;
            Ok(points
                .iter()
                .map(|p| match evaluator.rows.get(&(strategy, p.clone())) {
                    Some(rows) => self.score(rows),
                    None => Score::INVALID,
                })
                .collect())
        };
        coordinate_search(&self.space, &starts, &mut score)
    }

    /// A point's score from its replications: how far its mean misses each constraint
    /// (in tolerances, or in limits where the tolerance is 0), and its mean objective.
    fn score(&self, rows: &[Vec<f64>]) -> Score {
        let mean = |j: usize| crate::stats::mean(&rows.iter().map(|r| r[j]).collect::<Vec<_>>());
        let violation = self
            .constraints
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let excess = c.excess(mean(j + 1));
                let scale = if c.tolerance > 0.0 {
                    c.tolerance
                } else {
                    c.limit.abs().max(1e-9)
                };
                if excess.is_nan() {
                    f64::INFINITY
                } else {
                    (excess / scale).max(0.0)
                }
            })
            .sum();
        let objective = mean(0);
        Score {
            violation,
            objective: if objective.is_nan() {
                f64::INFINITY
            } else {
                objective
            },
        }
    }
}
