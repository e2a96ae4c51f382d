//! The polymorphic workload fields: `gpus` (a count or a table of probabilities) and
//! `duration_h` (hours, or a distribution with its parameters, each checked by name).

use toml::Value;

use super::{Checker, DISTRIBUTIONS, GPUS_PER_NODE_MAX, describe, number_of};
use crate::scenario::config::*;
use crate::scenario::overrides::did_you_mean;

pub(super) fn gpu_mix(c: &mut Checker<'_>, value: &Value, field: &str) -> Option<GpuMix> {
    match value {
        Value::Integer(n) => {
            if *n < 1 || *n > i64::from(GPUS_PER_NODE_MAX * 1024) {
                c.push(field, format!("must be a GPU count of at least 1, got {n}"));
                return None;
            }
            Some(GpuMix::fixed(*n as u32))
        }
        Value::Table(table) => {
            let mut entries = Vec::new();
            for (key, p) in table {
                let Ok(gpus) = key.parse::<u32>() else {
                    c.push(&format!("{field}.{key}"), format!("`{key}` is not a GPU count; keys are counts and values probabilities, e.g. {{ 1 = 0.6, 8 = 0.4 }}"));
                    continue;
                };
                if gpus == 0 {
                    c.push(&format!("{field}.{key}"), "a job needs at least 1 GPU");
                    continue;
                }
                let Some(p) = number_of(p) else {
                    c.push(
                        &format!("{field}.{key}"),
                        format!("must be a probability, got {}", describe(p)),
                    );
                    continue;
                };
                entries.push((gpus, c.fraction(p, &format!("{field}.{key}"))));
            }
            if entries.is_empty() {
                c.push(
                    field,
                    "must give at least one GPU count with its probability",
                );
                return None;
            }
            entries.sort_by_key(|(g, _)| *g);
            let total: f64 = entries.iter().map(|(_, p)| p).sum();
            if (total - 1.0).abs() > 1e-6 {
                c.push(field, format!("probabilities must sum to 1, got {total}"));
                return None;
            }
            let mut cumulative = 0.0;
            let mut points: Vec<(u32, f64)> = entries
                .into_iter()
                .filter(|(_, p)| *p > 0.0)
                .map(|(g, p)| {
                    cumulative += p / total;
                    (g, cumulative)
                })
                .collect();
            if let Some(last) = points.last_mut() {
                last.1 = 1.0;
            }
            Some(GpuMix { cumulative: points })
        }
        other => {
            c.push(
                field,
                format!(
                    "must be a GPU count or a table like {{ 1 = 0.6, 8 = 0.4 }}, got {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// Parameters each distribution takes (beyond `dist`).
fn parameters(dist: &str) -> &'static [&'static str] {
    match dist {
        "fixed" => &["value"],
        "exponential" => &["mean"],
        "lognormal" => &["median", "p95", "mu", "sigma"],
        "gamma" => &["mean", "cv"],
        "weibull" => &["shape", "scale"],
        "uniform" => &["min", "max"],
        "empirical" => &["points"],
        _ => &[],
    }
}

/// The parameters of a `duration_h` table with its `dist`: each is read as a number, and a
/// problem with any of them makes the distribution unusable (`ok` false).
struct Parameters<'a> {
    table: &'a toml::Table,
    field: &'a str,
    dist: &'a str,
    allowed: &'static [&'static str],
    ok: bool,
}

impl Parameters<'_> {
    /// The parameter `key` if written (a finite number, or reported).
    fn get(&mut self, c: &mut Checker<'_>, key: &str) -> Option<f64> {
        let path = format!("{}.{key}", self.field);
        match self.table.get(key) {
            None => None,
            Some(v) => match number_of(v) {
                Some(n) if n.is_finite() => Some(n),
                _ => {
                    c.push(&path, format!("must be a number, got {}", describe(v)));
                    self.ok = false;
                    None
                }
            },
        }
    }

    /// `value`, reported as missing when it is not there.
    fn need(&self, c: &mut Checker<'_>, value: Option<f64>, key: &str) -> Option<f64> {
        if value.is_none() {
            c.push(
                &format!("{}.{key}", self.field),
                format!(
                    "is missing: dist = \"{}\" takes {}",
                    self.dist,
                    self.allowed.join(" and ")
                ),
            );
        }
        value
    }
}

pub(super) fn duration_dist(
    c: &mut Checker<'_>,
    value: &Value,
    field: &str,
) -> Option<DurationDist> {
    let table = match value {
        Value::Integer(_) | Value::Float(_) => {
            let hours = c.positive(number_of(value)?, field);
            return Some(DurationDist::Fixed { value_h: hours });
        }
        Value::Table(table) => table,
        other => {
            c.push(field, format!("must be hours or a table like {{ dist = \"lognormal\", median = 3, p95 = 24 }}, got {}", describe(other)));
            return None;
        }
    };
    let Some(dist) = table.get("dist") else {
        c.push(
            field,
            format!("needs `dist`, one of: {}", DISTRIBUTIONS.join(", ")),
        );
        return None;
    };
    let Some(dist) = dist.as_str().filter(|d| DISTRIBUTIONS.contains(d)) else {
        let shown = describe(dist);
        let text = dist.as_str().unwrap_or_default();
        c.push(
            &format!("{field}.dist"),
            format!(
                "names an unknown distribution {shown}{}; use one of: {}",
                did_you_mean(text, DISTRIBUTIONS.iter().copied()),
                DISTRIBUTIONS.join(", ")
            ),
        );
        return None;
    };
    let allowed = parameters(dist);
    let mut p = Parameters {
        table,
        field,
        dist,
        allowed,
        ok: true,
    };
    for key in table.keys().filter(|k| k.as_str() != "dist") {
        if !allowed.contains(&key.as_str()) {
            c.push(
                &format!("{field}.{key}"),
                format!(
                    "does not apply to dist = \"{dist}\"{}; it takes: {}",
                    did_you_mean(key, allowed.iter().copied()),
                    allowed.join(", ")
                ),
            );
            p.ok = false;
        }
    }
    let dist = match dist {
        "fixed" => {
            let v = p.get(c, "value");
            let v = p.need(c, v, "value")?;
            DurationDist::Fixed {
                value_h: c.positive(v, &format!("{field}.value")),
            }
        }
        "exponential" => {
            let v = p.get(c, "mean");
            let v = p.need(c, v, "mean")?;
            DurationDist::Exponential {
                mean_h: c.positive(v, &format!("{field}.mean")),
            }
        }
        "lognormal" => lognormal(c, &mut p)?,
        "gamma" => gamma(c, &mut p)?,
        "weibull" => {
            let (shape, scale) = (p.get(c, "shape"), p.get(c, "scale"));
            let (shape, scale) = (p.need(c, shape, "shape")?, p.need(c, scale, "scale")?);
            DurationDist::Weibull {
                shape: c.positive(shape, &format!("{field}.shape")),
                scale_h: c.positive(scale, &format!("{field}.scale")),
            }
        }
        "uniform" => {
            let (min, max) = (p.get(c, "min"), p.get(c, "max"));
            let (min, max) = (p.need(c, min, "min")?, p.need(c, max, "max")?);
            let min = c.non_negative(min, &format!("{field}.min"));
            if max <= min {
                c.push(
                    &format!("{field}.max"),
                    format!("must be above min ({min}), got {max}"),
                );
                return None;
            }
            DurationDist::Uniform {
                min_h: min,
                max_h: max,
            }
        }
        "empirical" => empirical(c, table.get("points"), &format!("{field}.points"))?,
        _ => unreachable!("checked against DISTRIBUTIONS"),
    };
    p.ok.then_some(dist)
}

/// `median` and `p95` (hours), or `mu` and `sigma` (of log-hours).
fn lognormal(c: &mut Checker<'_>, p: &mut Parameters<'_>) -> Option<DurationDist> {
    let field = p.field;
    let (median, p95, mu, sigma) = (
        p.get(c, "median"),
        p.get(c, "p95"),
        p.get(c, "mu"),
        p.get(c, "sigma"),
    );
    match (median, p95, mu, sigma) {
        (Some(median), Some(p95), None, None) => {
            let median = c.positive(median, &format!("{field}.median"));
            if p95 <= median {
                c.push(
                    &format!("{field}.p95"),
                    format!("must be above the median ({median}), got {p95}"),
                );
                return None;
            }
            // z of the 95th percentile of the standard normal.
            const Z95: f64 = 1.644_853_626_951_472_2;
            Some(DurationDist::LogNormal {
                mu: median.ln(),
                sigma: (p95 / median).ln() / Z95,
            })
        }
        (None, None, Some(mu), Some(sigma)) => Some(DurationDist::LogNormal {
            mu,
            sigma: c.positive(sigma, &format!("{field}.sigma")),
        }),
        _ => {
            c.push(field, "dist = \"lognormal\" takes `median` and `p95` (hours), or `mu` and `sigma` (of log-hours)");
            None
        }
    }
}

/// `mean` (hours) and `cv` (coefficient of variation): shape 1/cv², scale mean cv².
fn gamma(c: &mut Checker<'_>, p: &mut Parameters<'_>) -> Option<DurationDist> {
    let field = p.field;
    let (mean, cv) = (p.get(c, "mean"), p.get(c, "cv"));
    let (mean, cv) = (p.need(c, mean, "mean")?, p.need(c, cv, "cv")?);
    let mean = c.positive(mean, &format!("{field}.mean"));
    let cv = c.positive(cv, &format!("{field}.cv"));
    let (shape, scale_h) = (1.0 / (cv * cv), mean * cv * cv);
    let representable = |x: f64| x.is_finite() && x > 0.0;
    if cv > 0.0 && !(representable(shape) && representable(scale_h)) {
        c.push(
            &format!("{field}.cv"),
            format!("{cv:e} is too extreme for a gamma distribution (its shape would be {shape:e}); use dist = \"fixed\" for durations that do not vary"),
        );
        return None;
    }
    Some(DurationDist::Gamma { shape, scale_h })
}

fn empirical(c: &mut Checker<'_>, points: Option<&Value>, field: &str) -> Option<DurationDist> {
    const SHAPE: &str =
        "a list of [hours, cumulative probability] pairs, e.g. [[0.5, 0.2], [2, 0.7], [24, 1.0]]";
    let Some(Value::Array(items)) = points else {
        c.push(
            field,
            format!("is missing or not a list: dist = \"empirical\" takes points, {SHAPE}"),
        );
        return None;
    };
    let mut parsed = Vec::new();
    for item in items {
        let pair = item
            .as_array()
            .filter(|p| p.len() == 2)
            .and_then(|p| Some((number_of(&p[0])?, number_of(&p[1])?)));
        let Some((hours, probability)) = pair else {
            c.push(field, format!("must be {SHAPE}, got {item}"));
            return None;
        };
        parsed.push((c.non_negative(hours, field), c.fraction(probability, field)));
    }
    if parsed.is_empty() {
        c.push(field, format!("must not be empty: {SHAPE}"));
        return None;
    }
    if parsed
        .windows(2)
        .any(|w| w[1].0 < w[0].0 || w[1].1 < w[0].1)
    {
        c.push(field, "hours and probabilities must both be non-decreasing");
        return None;
    }
    let last = parsed[parsed.len() - 1];
    if (last.1 - 1.0).abs() > 1e-9 {
        c.push(
            field,
            format!("the last cumulative probability must be 1, got {}", last.1),
        );
        return None;
    }
    if last.0 <= 0.0 {
        c.push(field, "must reach a duration above 0 hours");
        return None;
    }
    Some(DurationDist::Empirical { points: parsed })
}
