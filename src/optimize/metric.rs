//! What the optimizer reads from a replication: the objective (`--minimize`) and the
//! constraints (`--subject-to 'METRIC <= LIMIT'`), each a metric of `summary.csv` (a
//! replication's row), of one workload, team or service (`workload.NAME.METRIC`,
//! `team.NAME.METRIC`, `service.NAME.METRIC`), or a share derived from job counts.

use crate::records::metric;
use crate::records::{GroupRow, ReplicationRow, ServiceRow, UnitResult};
use crate::scenario::Config;

/// Shares derived from job counts: a constraint such as "at most 1 % unfinished" reads better
/// than a count that grows with the load.
const DERIVED: [&str; 2] = ["jobs_unfinished_share", "jobs_unstarted_share"];

/// Summary metrics that need the baseline's replication (`break_even_*`) or are not a
/// result at all: a unit alone does not give them.
const NOT_PER_UNIT: [&str; 3] = [
    metric::BREAK_EVEN_MONTHS,
    metric::BREAK_EVEN_MONTHS_NPV,
    metric::WAIT_P95_LOWER_BOUND,
];

/// Where a metric is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Summary,
    Workload(usize),
    Team(usize),
    Service(usize),
}

/// A metric resolved against a scenario: read from any of its units.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRef {
    /// As written (`workload.training.wait_p95_h`): the column names of `optimize.csv`.
    pub text: String,
    scope: Scope,
    name: String,
}

impl MetricRef {
    /// Resolves `text` for `config`: an unknown metric, workload, team or service is an error
    /// that lists what is accepted.
    pub fn parse(text: &str, config: &Config) -> Result<Self, String> {
        let text = text.trim();
        let parts: Vec<&str> = text.splitn(3, '.').collect();
        let (scope, name) = match parts.as_slice() {
            [name] => (Scope::Summary, *name),
            [kind @ ("workload" | "team" | "service"), group, name] => {
                (group_scope(kind, group, config)?, *name)
            }
            _ => {
                return Err(format!(
                    "`{text}` is not a metric: give a metric of summary.csv (`wait_p95_h`), or `workload.NAME.METRIC`, `team.NAME.METRIC` or `service.NAME.METRIC`"
                ));
            }
        };
        let accepted = accepted(scope);
        if !accepted.contains(&name) {
            return Err(format!(
                "`{text}`: `{name}` is not a metric {}; accepted: {}",
                scope_words(scope),
                accepted.join(", ")
            ));
        }
        Ok(Self {
            text: text.to_string(),
            scope,
            name: name.to_string(),
        })
    }

    /// Whether the metric is an amount of money (its column carries the currency).
    pub fn is_money(&self) -> bool {
        crate::records::is_money(&self.name)
    }

    /// The metric in one unit's result (NaN where it has no value, e.g. a p95 wait without
    /// jobs).
    pub fn value(&self, unit: &UnitResult) -> f64 {
        match self.scope {
            Scope::Summary => summary_value(&unit.row, &self.name),
            Scope::Workload(i) => group_value(&unit.workloads[i], &self.name),
            Scope::Team(i) => group_value(&unit.teams[i], &self.name),
            Scope::Service(i) => service_value(&unit.services[i], &self.name),
        }
    }
}

fn group_scope(kind: &str, group: &str, config: &Config) -> Result<Scope, String> {
    let names: Vec<&str> = match kind {
        "workload" => config.workloads.iter().map(|w| w.name.as_str()).collect(),
        "team" => config.teams.iter().map(String::as_str).collect(),
        _ => config.services.iter().map(|s| s.name.as_str()).collect(),
    };
    let Some(index) = names.iter().position(|n| *n == group) else {
        let known = if names.is_empty() {
            "it has none".to_string()
        } else {
            format!("it has {}", names.join(", "))
        };
        return Err(format!(
            "`{kind}.{group}`: the scenario has no {kind} `{group}` ({known})"
        ));
    };
    Ok(match kind {
        "workload" => Scope::Workload(index),
        "team" => Scope::Team(index),
        _ => Scope::Service(index),
    })
}

fn scope_words(scope: Scope) -> &'static str {
    match scope {
        Scope::Summary => "of summary.csv",
        Scope::Workload(_) => "of a workload",
        Scope::Team(_) => "of a team",
        Scope::Service(_) => "of a service",
    }
}

fn accepted(scope: Scope) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = match scope {
        Scope::Summary => ReplicationRow::METRICS
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| !NOT_PER_UNIT.contains(name))
            .collect(),
        Scope::Workload(_) | Scope::Team(_) => GroupRow::METRICS
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| !NOT_PER_UNIT.contains(name))
            .collect(),
        Scope::Service(_) => ServiceRow::METRICS.iter().map(|(name, _)| *name).collect(),
    };
    if !matches!(scope, Scope::Service(_)) {
        names.extend(DERIVED);
    }
    names
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        f64::NAN
    } else {
        part as f64 / whole as f64
    }
}

fn summary_value(row: &ReplicationRow, name: &str) -> f64 {
    match name {
        "jobs_unfinished_share" => share(row.jobs_unfinished, row.jobs_arrived),
        "jobs_unstarted_share" => share(row.jobs_unstarted, row.jobs_arrived),
        _ => ReplicationRow::METRICS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(f64::NAN, |(_, value)| value(row)),
    }
}

fn group_value(row: &GroupRow, name: &str) -> f64 {
    match name {
        "jobs_unfinished_share" => share(row.jobs_unfinished, row.jobs_arrived),
        "jobs_unstarted_share" => share(row.jobs_unstarted, row.jobs_arrived),
        _ => GroupRow::METRICS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(f64::NAN, |(_, value)| value(row)),
    }
}

fn service_value(row: &ServiceRow, name: &str) -> f64 {
    ServiceRow::METRICS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(f64::NAN, |(_, value)| value(row))
}

/// Which way a constraint bounds its metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    AtMost,
    AtLeast,
}

/// `METRIC <= LIMIT` or `METRIC >= LIMIT`, optionally `+- TOLERANCE`: the band around the
/// limit within which either verdict is acceptable (default: 5 % of the limit).
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub metric: MetricRef,
    pub bound: Bound,
    pub limit: f64,
    pub tolerance: f64,
    /// As written, normalised (`wait_p95_h <= 2`).
    pub text: String,
}

/// The tolerance of a constraint that does not give one, as a share of its limit.
pub const TOLERANCE_DEFAULT: f64 = 0.05;

impl Constraint {
    pub fn parse(text: &str, config: &Config) -> Result<Self, String> {
        let accepted = "expected `METRIC <= LIMIT` or `METRIC >= LIMIT`, optionally followed by `+- TOLERANCE` (e.g. `wait_p95_h <= 2`, `service.chat.unserved_share <= 0.001 +- 0.0005`)";
        let (metric, bound, rest) = if let Some((m, r)) = text.split_once("<=") {
            (m, Bound::AtMost, r)
        } else if let Some((m, r)) = text.split_once(">=") {
            (m, Bound::AtLeast, r)
        } else if let Some((m, r)) = text.split_once('<') {
            (m, Bound::AtMost, r)
        } else if let Some((m, r)) = text.split_once('>') {
            (m, Bound::AtLeast, r)
        } else {
            return Err(format!("`{text}`: no comparison; {accepted}"));
        };
        let (limit_text, tolerance_text) = match rest.split_once("+-").or(rest.split_once('±')) {
            Some((l, t)) => (l, Some(t)),
            None => (rest, None),
        };
        let number = |t: &str, what: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    format!(
                        "`{text}`: {what} `{}` is not a number; {accepted}",
                        t.trim()
                    )
                })
        };
        let limit = number(limit_text, "the limit")?;
        let tolerance = match tolerance_text {
            Some(t) => number(t, "the tolerance")?,
            None => TOLERANCE_DEFAULT * limit.abs(),
        };
        if tolerance < 0.0 {
            return Err(format!("`{text}`: the tolerance must not be negative"));
        }
        let metric = MetricRef::parse(metric, config)?;
        let sign = match bound {
            Bound::AtMost => "<=",
            Bound::AtLeast => ">=",
        };
        let mut normalised = format!("{} {sign} {}", metric.text, limit);
        if tolerance_text.is_some() {
            normalised.push_str(&format!(" +- {}", tolerance));
        }
        Ok(Self {
            metric,
            bound,
            limit,
            tolerance,
            text: normalised,
        })
    }

    /// By how much `value` exceeds the limit (negative: by how much it is inside), in the
    /// metric's units: the constraint holds where this is <= 0.
    pub fn excess(&self, value: f64) -> f64 {
        match self.bound {
            Bound::AtMost => value - self.limit,
            Bound::AtLeast => self.limit - value,
        }
    }
}
