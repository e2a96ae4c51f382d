//! What an optimisation found: every candidate with its replications and fate, each
//! strategy's choice, and the overall recommendation, as `optimize.csv`'s cells,
//! `recommendation.json` and the memo the terminal prints.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::select::{Holding, Reason, Status, Stop};
use super::space::Point;
use super::{Prepared, json};
use crate::files::Cell;
use crate::format::significant;
use crate::records::{Choice, ConstraintValue, Interval, Recommendation};
use crate::stats::{Estimate, estimate};

/// One candidate: a strategy at a point, its metric values per replication (objective, then
/// each constraint's metric) and where it ended.
#[derive(Debug, Clone)]
pub struct CandidateResult {
    pub strategy: usize,
    pub point: Point,
    pub rows: Vec<Vec<f64>>,
    pub status: Status,
    pub invalid: Option<String>,
}

/// One strategy's selection.
#[derive(Debug, Clone)]
pub struct StrategyResult {
    pub strategy: usize,
    /// Index into [`Outcome::candidates`].
    pub chosen: Option<usize>,
    pub stop: Stop,
    pub decision_level: f64,
    pub spent: u64,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub candidates: Vec<CandidateResult>,
    pub strategies: Vec<StrategyResult>,
    /// The cheapest of the strategies' choices (index into `candidates`).
    pub best: Option<usize>,
    pub simulated: u64,
    pub reused: u64,
}

/// A mean with its 95 % interval.
fn interval(e: Estimate) -> Interval {
    Interval {
        mean: e.mean,
        ci95_low: e.ci95_low,
        ci95_high: e.ci95_high,
    }
}

impl Outcome {
    pub fn new(
        candidates: Vec<CandidateResult>,
        strategies: Vec<StrategyResult>,
        simulated: u64,
        reused: u64,
    ) -> Self {
        let mean = |c: usize| estimate(&column(&candidates[c].rows, 0)).mean;
        let best = strategies
            .iter()
            .filter_map(|s| s.chosen)
            .min_by(|&a, &b| mean(a).total_cmp(&mean(b)));
        Self {
            candidates,
            strategies,
            best,
            simulated,
            reused,
        }
    }

    pub fn spent(&self) -> u64 {
        self.strategies.iter().map(|s| s.spent).sum()
    }

    /// Replications a grid over every point and strategy would spend at the precision of
    /// the chosen candidate (its final replications).
    pub fn grid_replications(&self, prepared: &Prepared) -> Option<u64> {
        let best = self.best?;
        let n = self.candidates[best].rows.len() as u64;
        Some(prepared.space.size() as u64 * prepared.strategies.len() as u64 * n)
    }
}

fn column(rows: &[Vec<f64>], j: usize) -> Vec<f64> {
    rows.iter().map(|r| r[j]).collect()
}

/// The paired difference of objectives `a - b` over their common replications.
pub fn difference(a: &CandidateResult, b: &CandidateResult) -> Interval {
    let n = a.rows.len().min(b.rows.len());
    let d: Vec<f64> = (0..n).map(|r| a.rows[r][0] - b.rows[r][0]).collect();
    interval(estimate(&d))
}

/// The probability that every constraint holds in the mean, from each one's t statistic
/// (taken as independent).
pub fn feasibility_probability(prepared: &Prepared, candidate: &CandidateResult) -> f64 {
    let mut p = 1.0;
    for (j, c) in prepared.constraints.iter().enumerate() {
        let excess: Vec<f64> = column(&candidate.rows, j + 1)
            .into_iter()
            .map(|v| c.excess(v))
            .collect();
        let e = estimate(&excess);
        let holds = if e.n < 2 || e.std.is_nan() {
            f64::NAN
        } else if e.std == 0.0 {
            if e.mean <= 0.0 { 1.0 } else { 0.0 }
        } else {
            let t = StudentsT::new(0.0, 1.0, f64::from(e.n - 1)).expect("df > 0");
            t.cdf(-e.mean / (e.std / f64::from(e.n).sqrt()))
        };
        p *= holds;
    }
    p
}

fn status_word(status: &Status, invalid: bool) -> &'static str {
    match status {
        _ if invalid => "invalid",
        Status::Chosen => "chosen",
        Status::RunnerUp { .. } => "runner_up",
        Status::Dropped(_) => "dropped",
        Status::Undecided => "undecided",
    }
}

/// Candidate numbers as `optimize.csv` writes them: `007`.
pub fn candidate_id(outcome: &Outcome, index: usize) -> String {
    let width = outcome
        .candidates
        .len()
        .saturating_sub(1)
        .to_string()
        .len()
        .max(3);
    format!("{index:0width$}")
}

/// Why a candidate ended where it did, in words.
pub fn reason(prepared: &Prepared, outcome: &Outcome, index: usize) -> String {
    let candidate = &outcome.candidates[index];
    let n = candidate.rows.len();
    let indifference = format!(
        "{} %",
        significant(prepared.settings.indifference * 100.0, 3)
    );
    match &candidate.status {
        Status::Chosen => {
            let mut text = "the lowest mean objective of the candidates that meet every constraint"
                .to_string();
            if outcome.best == Some(index) && prepared.strategies.len() > 1 {
                text.push_str(", and of the strategies compared");
            } else if prepared.strategies.len() > 1 {
                text.push_str(" for its strategy (another strategy's choice is cheaper)");
            }
            text
        }
        Status::RunnerUp { separated: true } => {
            format!("within the indifference zone ({indifference}) of the chosen candidate")
        }
        Status::RunnerUp { separated: false } => {
            format!("not separated from the chosen candidate at {n} replications")
        }
        Status::Undecided => format!("undecided at {n} replications"),
        Status::Dropped(Reason::Invalid(why)) => why.clone(),
        Status::Dropped(Reason::Infeasible { constraint, sure }) => {
            let text = &prepared.constraints[*constraint].text;
            if *sure {
                format!("fails `{text}`")
            } else {
                format!("fails `{text}` by its mean at {n} replications")
            }
        }
        Status::Dropped(Reason::Costlier { than }) => {
            let d = difference(candidate, &outcome.candidates[*than]);
            let money = prepared.objective.is_money();
            format!(
                "costlier than candidate {} by {} (95 % CI {} to {})",
                candidate_id(outcome, *than),
                amount(prepared, money, d.mean),
                amount(prepared, money, d.ci95_low),
                amount(prepared, money, d.ci95_high)
            )
        }
    }
}

/// `x` with 3 significant digits, small numbers too (0.00625, not 0.01).
fn significant_signed(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let text = if x.abs() >= 1.0 || x == 0.0 {
        significant(x.abs(), 3)
    } else {
        let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
        let fixed = format!("{:.decimals$}", x.abs());
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    if x < 0.0 {
        format!("\u{2212}{text}")
    } else {
        text
    }
}

/// The metrics with columns in `optimize.csv`: the objective, then each constraint's metric
/// once.
pub fn metric_columns(prepared: &Prepared) -> Vec<(usize, String)> {
    let mut columns: Vec<(usize, String)> = vec![(0, prepared.objective.text.clone())];
    for (j, c) in prepared.constraints.iter().enumerate() {
        if !columns.iter().any(|(_, t)| *t == c.metric.text) {
            columns.push((j + 1, c.metric.text.clone()));
        }
    }
    columns
}

/// The header and rows of `optimize.csv`.
pub fn table(prepared: &Prepared, outcome: &Outcome) -> (Vec<String>, Vec<Vec<Cell>>) {
    let mut header: Vec<String> = vec!["candidate".into(), "strategy".into()];
    header.extend(prepared.space.paths.iter().cloned());
    header.extend(["status", "reason", "replications"].map(String::from));
    let metrics = metric_columns(prepared);
    for (_, text) in &metrics {
        for suffix in ["mean", "ci95_low", "ci95_high"] {
            header.push(format!("{text}_{suffix}"));
        }
    }
    header.extend(
        [
            "feasibility_probability",
            "difference_vs_chosen",
            "difference_vs_chosen_ci95_low",
            "difference_vs_chosen_ci95_high",
            "currency",
        ]
        .map(String::from),
    );
    let config = prepared.config();
    let rows = outcome
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![
                Cell::Text(candidate_id(outcome, i)),
                Cell::Text(config.strategies[c.strategy].name.clone()),
            ];
            row.extend(
                prepared
                    .space
                    .assignments(&c.point)
                    .iter()
                    .map(|(_, v)| cell(v)),
            );
            row.push(Cell::Text(
                status_word(&c.status, c.invalid.is_some()).into(),
            ));
            row.push(Cell::Text(reason(prepared, outcome, i)));
            row.push(Cell::Count(c.rows.len() as u64));
            for (j, _) in &metrics {
                let e = estimate(&column(&c.rows, *j));
                row.extend([e.mean, e.ci95_low, e.ci95_high].map(Cell::Number));
            }
            row.push(Cell::Number(if c.rows.is_empty() {
                f64::NAN
            } else {
                feasibility_probability(prepared, c)
            }));
            let chosen = outcome
                .strategies
                .iter()
                .find(|s| s.strategy == c.strategy)
                .and_then(|s| s.chosen);
            let d = match chosen {
                Some(k) if !c.rows.is_empty() => difference(c, &outcome.candidates[k]),
                _ => Interval {
                    mean: f64::NAN,
                    ci95_low: f64::NAN,
                    ci95_high: f64::NAN,
                },
            };
            row.extend([d.mean, d.ci95_low, d.ci95_high].map(Cell::Number));
            row.push(if prepared.objective.is_money() {
                Cell::Text(config.currency.clone())
            } else {
                Cell::Empty
            });
            row
        })
        .collect();
    (header, rows)
}

fn cell(value: &toml::Value) -> Cell {
    match value {
        toml::Value::Integer(n) => Cell::Integer(*n),
        toml::Value::Float(x) => Cell::Number(*x),
        toml::Value::Boolean(b) => Cell::Bool(*b),
        toml::Value::String(s) => Cell::Text(s.clone()),
        other => Cell::Text(other.to_string()),
    }
}

fn choice(prepared: &Prepared, outcome: &Outcome, index: usize) -> Choice {
    let c = &outcome.candidates[index];
    let parameters = prepared
        .space
        .assignments(&c.point)
        .into_iter()
        .map(|(path, value)| (path, json(&value)))
        .collect();
    let constraints = prepared
        .constraints
        .iter()
        .enumerate()
        .map(|(j, constraint)| {
            let value = interval(estimate(&column(&c.rows, j + 1)));
            let bound = match (prepared.settings.holding, constraint.bound) {
                (Holding::Mean, _) => value.mean,
                (Holding::Upper(_), super::Bound::AtMost) => upper(&c.rows, j + 1, prepared),
                (Holding::Upper(_), super::Bound::AtLeast) => lower(&c.rows, j + 1, prepared),
            };
            ConstraintValue {
                constraint: constraint.text.clone(),
                value,
                holds: constraint.excess(bound) <= 0.0,
            }
        })
        .collect();
    let difference_vs_chosen = outcome
        .best
        .filter(|&b| b != index)
        .map(|b| difference(c, &outcome.candidates[b]));
    Choice {
        candidate: candidate_id(outcome, index),
        strategy: prepared.config().strategies[c.strategy].name.clone(),
        parameters,
        replications: c.rows.len(),
        objective: interval(estimate(&column(&c.rows, 0))),
        constraints,
        feasibility_probability: feasibility_probability(prepared, c),
        difference_vs_chosen,
        status: status_word(&c.status, c.invalid.is_some()).into(),
        reason: reason(prepared, outcome, index),
    }
}

fn stated(rows: &[Vec<f64>], j: usize, prepared: &Prepared) -> Estimate {
    let level = match prepared.settings.holding {
        Holding::Upper(c) => c,
        Holding::Mean => 0.95,
    };
    crate::stats::estimate_at(&column(rows, j), level)
}

fn upper(rows: &[Vec<f64>], j: usize, prepared: &Prepared) -> f64 {
    stated(rows, j, prepared).ci95_high
}

fn lower(rows: &[Vec<f64>], j: usize, prepared: &Prepared) -> f64 {
    stated(rows, j, prepared).ci95_low
}

fn stop_word(stop: Stop) -> &'static str {
    match stop {
        Stop::Decided => "decided",
        Stop::MaxReplications => "max_replications",
        Stop::Budget => "budget",
        Stop::NoneFeasible => "none_feasible",
    }
}

/// The overall stop: the chosen strategy's, or the first that did not decide.
fn overall_stop(outcome: &Outcome) -> Stop {
    let of_best = outcome
        .strategies
        .iter()
        .find(|s| s.chosen.is_some() && s.chosen == outcome.best);
    match of_best {
        Some(s) => s.stop,
        None => Stop::NoneFeasible,
    }
}

/// How sure the answer is.
pub fn statement(prepared: &Prepared, outcome: &Outcome) -> String {
    let confidence = format!("{} %", significant(prepared.settings.confidence * 100.0, 3));
    let indifference = format!(
        "{} %",
        significant(prepared.settings.indifference * 100.0, 3)
    );
    let evaluated = outcome.candidates.len();
    let scope = if prepared.coordinate {
        format!(
            " The coordinate search evaluated {evaluated} of {} candidates (strategies x grid points); the statement covers those, not the points it never visited.",
            prepared.space.size() * prepared.strategies.len()
        )
    } else {
        String::new()
    };
    let holds = match prepared.settings.holding {
        Holding::Mean => "meets every constraint in the mean (within its tolerance)".to_string(),
        Holding::Upper(c) => format!(
            "meets every constraint at the bound of its {} % interval",
            significant(c * 100.0, 3)
        ),
    };
    let holds_by_mean = match prepared.settings.holding {
        Holding::Mean => "meets every constraint by its mean".to_string(),
        Holding::Upper(_) => holds.clone(),
    };
    let body = match overall_stop(outcome) {
        Stop::Decided => format!(
            "Decided: with probability at least {confidence} (every decision at a Bonferroni-corrected level, normal approximation of the means), the chosen candidate {holds} and costs at most {indifference} more than the best candidate evaluated that does."
        ),
        Stop::MaxReplications => format!(
            "Not fully decided: at the most replications allowed, the runner-ups could not be told apart from the chosen candidate (at the run's corrected level); it {holds_by_mean} and has the lowest mean objective among them. Raise --max-replications to separate them."
        ),
        Stop::Budget => format!(
            "Not fully decided: the replication budget ran out; the chosen candidate {holds_by_mean} and has the lowest mean objective of those still in play. Raise --budget to decide."
        ),
        Stop::NoneFeasible => "No candidate meets the constraints: relax them, or widen the ranges searched. optimize.csv says by how much each candidate misses.".to_string(),
    };
    format!("{body}{scope}")
}

pub fn recommendation(prepared: &Prepared, outcome: &Outcome) -> Recommendation {
    let info = &prepared.info;
    let chosen = outcome.best.map(|b| choice(prepared, outcome, b));
    let runner_ups = outcome
        .candidates
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            matches!(c.status, Status::RunnerUp { .. })
                && outcome
                    .best
                    .is_some_and(|b| outcome.candidates[b].strategy == c.strategy)
                && Some(*i) != outcome.best
        })
        .map(|(i, _)| choice(prepared, outcome, i))
        .collect();
    let strategies = if prepared.strategies.len() > 1 {
        outcome
            .strategies
            .iter()
            .filter_map(|s| s.chosen)
            .map(|c| choice(prepared, outcome, c))
            .collect()
    } else {
        Vec::new()
    };
    Recommendation {
        scenario_name: info.scenario_name.clone(),
        optimize_id: info.optimize_id.clone(),
        minimize: info.minimize.clone(),
        subject_to: info.subject_to.clone(),
        constraints_hold: info.constraints_hold.clone(),
        confidence: info.confidence,
        currency: info.currency.clone(),
        stop: stop_word(overall_stop(outcome)).into(),
        statement: statement(prepared, outcome),
        chosen,
        runner_ups,
        strategies,
        candidates_evaluated: outcome.candidates.len(),
        grid_points: prepared.space.size(),
        replications_spent: outcome.spent(),
        grid_replications_at_final_precision: outcome.grid_replications(prepared),
    }
}

/// A number for the memo: money with its currency, others with 3 significant digits.
fn amount(prepared: &Prepared, metric_is_money: bool, x: f64) -> String {
    if metric_is_money {
        crate::format::money(x, &prepared.config().currency)
    } else if x.is_finite() {
        significant_signed(x)
    } else {
        "-".into()
    }
}

/// `path = value` of each parameter, in the order they were given.
fn in_order(
    prepared: &Prepared,
    values: &serde_json::Map<String, serde_json::Value>,
) -> Vec<String> {
    prepared
        .space
        .paths
        .iter()
        .filter_map(|path| values.get(path).map(|v| format!("{path} = {v}")))
        .collect()
}

/// The terminal summary: what to buy, how sure, and at what cost in replications.
pub fn memo(prepared: &Prepared, outcome: &Outcome, recommendation: &Recommendation) -> String {
    let mut text = format!(
        "fleetsim optimize: {}, minimize {}",
        recommendation.scenario_name, recommendation.minimize
    );
    if !recommendation.subject_to.is_empty() {
        text.push_str(&format!(
            " subject to {} ({})",
            recommendation.subject_to.join(", "),
            recommendation.constraints_hold
        ));
    }
    text.push('\n');
    let money = prepared.objective.is_money();
    if let Some(chosen) = &recommendation.chosen {
        let values = in_order(prepared, &chosen.parameters);
        text.push_str(&format!(
            "\nRecommendation: strategy {}, {}\n",
            chosen.strategy,
            values.join(", ")
        ));
        let o = &chosen.objective;
        text.push_str(&format!(
            "  {} {} (95 % CI {} to {}), {} replications\n",
            recommendation.minimize,
            amount(prepared, money, o.mean),
            amount(prepared, money, o.ci95_low),
            amount(prepared, money, o.ci95_high),
            chosen.replications
        ));
        for (c, constraint) in chosen.constraints.iter().zip(&prepared.constraints) {
            let m = constraint.metric.is_money();
            text.push_str(&format!(
                "  {}: {} (95 % CI {} to {}): {}\n",
                c.constraint,
                amount(prepared, m, c.value.mean),
                amount(prepared, m, c.value.ci95_low),
                amount(prepared, m, c.value.ci95_high),
                if c.holds { "holds" } else { "does not hold" }
            ));
        }
    }
    for r in &recommendation.runner_ups {
        let values = in_order(prepared, &r.parameters);
        let d = r.difference_vs_chosen.unwrap_or(Interval {
            mean: f64::NAN,
            ci95_low: f64::NAN,
            ci95_high: f64::NAN,
        });
        text.push_str(&format!(
            "  runner-up {}: {} ({} more, 95 % CI {} to {})\n",
            r.candidate,
            values.join(", "),
            amount(prepared, money, d.mean),
            amount(prepared, money, d.ci95_low),
            amount(prepared, money, d.ci95_high)
        ));
    }
    for s in &recommendation.strategies {
        text.push_str(&format!(
            "  strategy {}: its best is candidate {} at {}\n",
            s.strategy,
            s.candidate,
            amount(prepared, money, s.objective.mean)
        ));
    }
    text.push_str(&format!("\n{}\n", recommendation.statement));
    let mut spent = format!(
        "\nEvaluated {} candidates with {} replications",
        outcome.candidates.len(),
        crate::format::thousands(recommendation.replications_spent as f64, 0)
    );
    if let Some(grid) = recommendation.grid_replications_at_final_precision {
        let ratio = grid as f64 / recommendation.replications_spent.max(1) as f64;
        spent.push_str(&format!(
            "; a grid over all {} points at the chosen candidate's precision would take {} ({}x as many)",
            prepared.space.size() * prepared.strategies.len(),
            crate::format::thousands(grid as f64, 0),
            significant(ratio, 2)
        ));
    }
    text.push_str(&spent);
    if outcome.reused > 0 {
        text.push_str(&format!(
            "; {} of them from the journal of an earlier run",
            crate::format::thousands(outcome.reused as f64, 0)
        ));
    }
    text.push_str(".\n");
    text
}

#[cfg(test)]
mod tests {
    use super::significant_signed;

    #[test]
    fn figures_keep_three_significant_digits() {
        assert_eq!(significant_signed(0.006252), "0.00625");
        assert_eq!(significant_signed(0.99), "0.99");
        assert_eq!(significant_signed(1.1), "1.1");
        assert_eq!(significant_signed(-21_900.0), "\u{2212}21,900");
        assert_eq!(significant_signed(0.0), "0");
        assert_eq!(significant_signed(f64::NAN), "-");
    }
}
