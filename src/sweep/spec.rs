//! The little languages of sweeps: `--vary PATH=SPEC`, `--sample METHOD` and `--shard K/N`,
//! and how a spec's values are typed for the field they go to.
//!
//! SPEC is one of:
//! - a list `0,2,4,8` (each value read as `--set` reads it: `0.5`, `true`, `backfill`);
//! - a range `START..END:STEP`: START, START+STEP, ... up to END (END included when a step
//!   lands on it);
//! - N points `START..END:lin:N` (evenly spaced) or `START..END:log:N` (evenly spaced in the
//!   logarithm), both ends included;
//! - with `--sample` only, an interval `START..END` or `START..END:log`, sampled as a whole.
//!
//! With `--sample`, a spec that lists values (all but the interval) is sampled over its values.

use toml::Value;

use crate::scenario::{FieldKind, field_path, parse_value};

/// What a spec may look like, for messages.
pub const ACCEPTED: &str = "a list `0,2,4,8`, a range `START..END:STEP` (`0..16:2`), N points \
     `START..END:lin:N` or `START..END:log:N` (`1..1000:log:7`), or with --sample an interval \
     `START..END` or `START..END:log`";

/// More values than this in one spec is a typo (`0..1000000:1`), not a sweep.
pub const VALUES_MAX: usize = 10_000;

/// Significant digits kept of values computed by `lin:N`, `log:N` and sampling, so that
/// `1..1000:log:7` reads 1, 10, 31.6228, ... rather than 31.622776601683793.
const SIGNIFICANT_DIGITS: i32 = 6;

/// A number as written: whether it was written as an integer matters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn parse(text: &str, what: &str) -> Result<Self, String> {
        match parse_value(text.trim()) {
            Value::Integer(n) => Ok(Num::Int(n)),
            Value::Float(x) if x.is_finite() => Ok(Num::Float(x)),
            _ => Err(format!(
                "{what} `{}` is not a number; expected {ACCEPTED}",
                text.trim()
            )),
        }
    }
    pub fn value(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Float(x) => x,
        }
    }
}

/// One parameter's spec, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Values as written.
    List(Vec<Value>),
    /// `START..END:STEP`.
    Step { start: Num, end: Num, step: Num },
    /// `START..END:lin:N` or `START..END:log:N`.
    Count {
        start: f64,
        end: f64,
        n: usize,
        log: bool,
    },
    /// `START..END` or `START..END:log`: only for `--sample`.
    Interval { start: Num, end: Num, log: bool },
}

/// What a parameter can take once typed for its field.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    /// These values (a grid walks them; a sample picks among them, each equally likely).
    Finite(Vec<Value>),
    /// Any value in `[start, end]`, uniformly or uniformly in the logarithm; `integer`: whole
    /// numbers only.
    Interval {
        start: f64,
        end: f64,
        log: bool,
        integer: bool,
    },
}

/// `--vary PATH=SPEC` (or one entry of `[sweep] vary`).
#[derive(Debug, Clone, PartialEq)]
pub struct Vary {
    pub path: String,
    pub spec: Spec,
    /// The spec as written, for `sweep.json` and messages.
    pub text: String,
}

impl Vary {
    /// Parses `PATH=SPEC`.
    pub fn parse(arg: &str) -> Result<Self, String> {
        let (path, spec) = arg.split_once('=').ok_or_else(|| {
            format!(
                "`{arg}` is not PATH=SPEC (e.g. pool.dgx.nodes=0..16:2 or pool.dgx.nodes=0,2,4)"
            )
        })?;
        Ok(Self {
            path: field_path(path)?,
            spec: Spec::parse(spec)?,
            text: spec.trim().to_string(),
        })
    }
}

impl Spec {
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("no values given; expected {ACCEPTED}"));
        }
        let Some((start, rest)) = text.split_once("..") else {
            let values = text
                .split(',')
                .map(|item| {
                    let item = item.trim();
                    if item.is_empty() {
                        Err(format!("`{text}` has an empty value; expected {ACCEPTED}"))
                    } else {
                        Ok(parse_value(item))
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() > VALUES_MAX {
                return Err(format!(
                    "{} values; at most {VALUES_MAX} are allowed",
                    values.len()
                ));
            }
            return Ok(Spec::List(values));
        };
        let start = Num::parse(start, "START")?;
        let mut parts = rest.split(':');
        let end = Num::parse(parts.next().unwrap_or_default(), "END")?;
        let parts: Vec<&str> = parts.map(str::trim).collect();
        if start.value() > end.value() {
            return Err(format!(
                "`{text}`: START must not be above END (write the range upwards)"
            ));
        }
        let spec = match parts.as_slice() {
            [] => Spec::Interval {
                start,
                end,
                log: false,
            },
            ["log"] => Spec::Interval {
                start,
                end,
                log: true,
            },
            [kind @ ("lin" | "log"), n] => {
                let n: usize = n.parse().map_err(|_| {
                    format!("`{text}`: N `{n}` is not a whole number of points (e.g. {start}..{end}:{kind}:5)", start = start.value(), end = end.value())
                })?;
                if !(2..=VALUES_MAX).contains(&n) {
                    return Err(format!(
                        "`{text}`: N must be between 2 and {VALUES_MAX}, got {n}"
                    ));
                }
                Spec::Count {
                    start: start.value(),
                    end: end.value(),
                    n,
                    log: *kind == "log",
                }
            }
            [step] => {
                let step = Num::parse(step, "STEP")?;
                if step.value() <= 0.0 {
                    return Err(format!("`{text}`: STEP must be above 0"));
                }
                let n = ((end.value() - start.value()) / step.value() + 1e-9).floor() + 1.0;
                if n > VALUES_MAX as f64 {
                    return Err(format!(
                        "`{text}` gives {n} values; at most {VALUES_MAX} are allowed (use a larger STEP)"
                    ));
                }
                Spec::Step { start, end, step }
            }
            _ => return Err(format!("`{text}` is not a spec; expected {ACCEPTED}")),
        };
        if let Spec::Interval { log: true, .. } | Spec::Count { log: true, .. } = spec
            && start.value() <= 0.0
        {
            return Err(format!(
                "`{text}`: a log range needs START above 0 (e.g. 1..1000:log:7)"
            ));
        }
        Ok(spec)
    }

    /// A spec from `[sweep] vary`: a TOML array of values, or a spec string.
    pub fn from_toml(value: &Value) -> Result<(Self, String), String> {
        match value {
            Value::Array(items) if items.is_empty() => {
                Err("is an empty list; give values, e.g. [0, 2, 4]".to_string())
            }
            Value::Array(items) => {
                let text = items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                Ok((Spec::List(items.clone()), text))
            }
            Value::String(text) => Ok((Spec::parse(text)?, text.clone())),
            other => Err(format!(
                "must be a list of values ([0, 2, 4]) or a spec string (\"0..16:2\"), got {other}"
            )),
        }
    }

    /// A value the spec gives, to find out what kind of field it goes to.
    pub fn example(&self) -> Value {
        match self {
            Spec::List(values) => values[0].clone(),
            Spec::Step { start, .. } | Spec::Interval { start, .. } => match start {
                Num::Int(n) => Value::Integer(*n),
                Num::Float(x) => Value::Float(*x),
            },
            Spec::Count { start, .. } => Value::Float(*start),
        }
    }

    /// The spec's values typed for a field of `kind`: integer fields get integers (computed
    /// values are rounded; values written as fractions are an error), number fields get
    /// numbers. Returns notes about rounding.
    pub fn domain(&self, kind: FieldKind, path: &str) -> Result<(Domain, Vec<String>), String> {
        let mut notes = Vec::new();
        let domain = match self {
            Spec::List(values) => Domain::Finite(
                values
                    .iter()
                    .map(|v| typed(v.clone(), kind, path, false))
                    .collect::<Result<_, _>>()?,
            ),
            Spec::Step { start, end, step } => {
                let values: Vec<Value> = match (start, end, step) {
                    (Num::Int(start), Num::Int(end), Num::Int(step)) => (0..)
                        .map(|i| start + i * step)
                        .take_while(|v| v <= end)
                        .map(Value::Integer)
                        .collect(),
                    _ => {
                        let (start, end, step) = (start.value(), end.value(), step.value());
                        let decimals = decimals(start).max(decimals(step));
                        let n = ((end - start) / step + 1e-9).floor() as usize + 1;
                        (0..n)
                            .map(|i| {
                                Value::Float(round_decimals(start + i as f64 * step, decimals))
                            })
                            .collect()
                    }
                };
                Domain::Finite(
                    values
                        .into_iter()
                        .map(|v| typed(v, kind, path, false))
                        .collect::<Result<_, _>>()?,
                )
            }
            Spec::Count { start, end, n, log } => {
                let values: Vec<Value> = (0..*n)
                    .map(|i| {
                        let f = i as f64 / (*n - 1) as f64;
                        let x = if i == 0 {
                            *start
                        } else if i == n - 1 {
                            *end
                        } else if *log {
                            round_significant(start * (end / start).powf(f))
                        } else {
                            round_significant(start + (end - start) * f)
                        };
                        typed(Value::Float(x), kind, path, true)
                    })
                    .collect::<Result<_, _>>()?;
                let mut distinct: Vec<Value> = Vec::with_capacity(values.len());
                for value in values {
                    if !distinct.contains(&value) {
                        distinct.push(value);
                    }
                }
                if distinct.len() < *n {
                    notes.push(format!(
                        "`{path}` takes whole numbers: its {n} points round to {} distinct values",
                        distinct.len()
                    ));
                }
                Domain::Finite(distinct)
            }
            Spec::Interval { start, end, log } => {
                let integer = kind == FieldKind::Integer;
                let (mut low, mut high) = (start.value(), end.value());
                if integer && !log {
                    (low, high) = (low.ceil(), high.floor());
                    if low > high {
                        return Err(format!(
                            "`{path}` takes whole numbers, and there is none in {}..{}",
                            start.value(),
                            end.value()
                        ));
                    }
                }
                Domain::Interval {
                    start: low,
                    end: high,
                    log: *log,
                    integer,
                }
            }
        };
        Ok((domain, notes))
    }
}

/// A value typed for a field of `kind`. `computed`: the value was computed (not written by the
/// user), so an integer field rounds it rather than refusing it.
pub fn typed(value: Value, kind: FieldKind, path: &str, computed: bool) -> Result<Value, String> {
    match (kind, value) {
        (FieldKind::Integer, Value::Float(x)) if x.fract() == 0.0 && x.abs() < 9.0e15 => {
            Ok(Value::Integer(x as i64))
        }
        (FieldKind::Integer, Value::Float(x)) if computed && x.is_finite() => {
            Ok(Value::Integer(x.round() as i64))
        }
        (FieldKind::Integer, Value::Float(x)) => Err(format!(
            "`{path}` takes whole numbers, but the sweep gives {x}; use whole values (e.g. an integer STEP)"
        )),
        (FieldKind::Number, Value::Integer(n)) => Ok(Value::Float(n as f64)),
        (_, value) => Ok(value),
    }
}

/// The fewest decimals (up to 12) that write `x` exactly, so that `0..1:0.1` gives 0.3 rather
/// than 0.30000000000000004.
fn decimals(x: f64) -> i32 {
    (0..=12).find(|&d| round_decimals(x, d) == x).unwrap_or(12)
}

fn round_decimals(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

/// `x` to 6 significant digits (`SIGNIFICANT_DIGITS`).
pub fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = SIGNIFICANT_DIGITS - 1 - magnitude;
    if decimals >= 0 {
        round_decimals(x, decimals)
    } else {
        let scale = 10f64.powi(-decimals);
        (x / scale).round() * scale
    }
}

/// How a sweep picks its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Every combination of the parameters' values.
    Grid,
    /// `samples` points drawn independently.
    Random { samples: u32, seed: Option<u64> },
    /// A Latin hypercube of `samples` points: each parameter's range is cut into `samples`
    /// strata of equal probability, and each stratum holds exactly one point.
    Lhs { samples: u32, seed: Option<u64> },
}

impl Sampling {
    pub const ACCEPTED: &str =
        "`grid`, `random:N` or `lhs:N` (N points; optionally `:SEED`, e.g. `lhs:20:7`)";

    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let parts: Vec<&str> = text.split(':').map(str::trim).collect();
        let samples = |n: &str| -> Result<u32, String> {
            match n.parse::<u32>() {
                Ok(n) if (1..=super::POINTS_MAX as u32).contains(&n) => Ok(n),
                _ => Err(format!(
                    "`{text}`: N must be a whole number from 1 to {}, got `{n}`",
                    super::POINTS_MAX
                )),
            }
        };
        let seed = |s: Option<&&str>| -> Result<Option<u64>, String> {
            s.map(|s| {
                s.parse::<u64>()
                    .map_err(|_| format!("`{text}`: SEED `{s}` is not a whole number"))
            })
            .transpose()
        };
        match parts.as_slice() {
            ["grid"] => Ok(Sampling::Grid),
            ["random", n, rest @ ..] if rest.len() <= 1 => Ok(Sampling::Random {
                samples: samples(n)?,
                seed: seed(rest.first())?,
            }),
            ["lhs", n, rest @ ..] if rest.len() <= 1 => Ok(Sampling::Lhs {
                samples: samples(n)?,
                seed: seed(rest.first())?,
            }),
            _ => Err(format!(
                "`{text}` is not a sampling method; expected {}",
                Self::ACCEPTED
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(spec: &str, kind: FieldKind) -> Result<Vec<Value>, String> {
        match Spec::parse(spec)?.domain(kind, "p")?.0 {
            Domain::Finite(values) => Ok(values),
            other => panic!("not finite: {other:?}"),
        }
    }

    fn ints(list: &[i64]) -> Vec<Value> {
        list.iter().map(|n| Value::Integer(*n)).collect()
    }

    fn floats(list: &[f64]) -> Vec<Value> {
        list.iter().map(|x| Value::Float(*x)).collect()
    }

    #[test]
    fn lists_keep_what_was_written() {
        assert_eq!(
            values("0,2,4,8", FieldKind::Integer).unwrap(),
            ints(&[0, 2, 4, 8])
        );
        assert_eq!(
            values("fifo, backfill", FieldKind::AsWritten).unwrap(),
            [
                Value::String("fifo".into()),
                Value::String("backfill".into())
            ]
        );
        assert_eq!(
            values("1, 0.5", FieldKind::Number).unwrap(),
            floats(&[1.0, 0.5])
        );
        assert_eq!(values("4.0", FieldKind::Integer).unwrap(), ints(&[4]));
        let error = values("1,2.5", FieldKind::Integer).unwrap_err();
        assert!(
            error.contains("`p` takes whole numbers, but the sweep gives 2.5"),
            "{error}"
        );
        assert!(Spec::parse("1,,2").unwrap_err().contains("empty value"));
    }

    #[test]
    fn ranges_include_their_end() {
        assert_eq!(
            values("0..16:2", FieldKind::Integer).unwrap(),
            ints(&[0, 2, 4, 6, 8, 10, 12, 14, 16])
        );
        assert_eq!(
            values("0..5:2", FieldKind::Integer).unwrap(),
            ints(&[0, 2, 4])
        );
        // Integers written, float field: numbers.
        assert_eq!(
            values("0..2:1", FieldKind::Number).unwrap(),
            floats(&[0.0, 1.0, 2.0])
        );
        // No 0.30000000000000004.
        assert_eq!(
            values("0..0.5:0.1", FieldKind::Number).unwrap(),
            floats(&[0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
        );
        // A float range on an integer field is fine while its values are whole.
        assert_eq!(
            values("0..4.0:2.0", FieldKind::Integer).unwrap(),
            ints(&[0, 2, 4])
        );
        let error = values("0..16:2.5", FieldKind::Integer).unwrap_err();
        assert!(error.contains("takes whole numbers"), "{error}");
        assert_eq!(
            values("-2..2:2", FieldKind::Integer).unwrap(),
            ints(&[-2, 0, 2])
        );
    }

    #[test]
    fn counted_ranges() {
        assert_eq!(
            values("1..1000:log:7", FieldKind::Number).unwrap(),
            floats(&[1.0, 3.16228, 10.0, 31.6228, 100.0, 316.228, 1000.0])
        );
        assert_eq!(
            values("1..1000:log:7", FieldKind::Integer).unwrap(),
            ints(&[1, 3, 10, 32, 100, 316, 1000])
        );
        assert_eq!(
            values("0..1:lin:5", FieldKind::Number).unwrap(),
            floats(&[0.0, 0.25, 0.5, 0.75, 1.0])
        );
        let (domain, notes) = Spec::parse("1..4:log:10")
            .unwrap()
            .domain(FieldKind::Integer, "p")
            .unwrap();
        assert_eq!(domain, Domain::Finite(ints(&[1, 2, 3, 4])));
        assert!(notes[0].contains("round to 4 distinct values"), "{notes:?}");
    }

    #[test]
    fn intervals_are_for_sampling() {
        let (domain, _) = Spec::parse("0.5..10.5")
            .unwrap()
            .domain(FieldKind::Integer, "p")
            .unwrap();
        assert_eq!(
            domain,
            Domain::Interval {
                start: 1.0,
                end: 10.0,
                log: false,
                integer: true
            }
        );
        let (domain, _) = Spec::parse("1..100:log")
            .unwrap()
            .domain(FieldKind::Number, "p")
            .unwrap();
        assert_eq!(
            domain,
            Domain::Interval {
                start: 1.0,
                end: 100.0,
                log: true,
                integer: false
            }
        );
    }

    #[test]
    fn bad_specs_say_what_is_accepted() {
        for (spec, message) in [
            ("0..16:x", "STEP `x` is not a number"),
            ("0..x:2", "END `x` is not a number"),
            ("16..0:2", "START must not be above END"),
            ("0..16:0", "STEP must be above 0"),
            ("0..16:-1", "STEP must be above 0"),
            ("0..1000000:1", "at most 10000"),
            ("0..100:log:5", "START above 0"),
            ("1..100:log:1", "N must be between 2"),
            ("1..100:log:x", "is not a whole number of points"),
            ("1..100:cubic:3", "is not a spec"),
            ("", "no values"),
        ] {
            let error = Spec::parse(spec).unwrap_err();
            assert!(error.contains(message), "{spec}: {error}");
        }
        assert!(
            Vary::parse("pool.dgx.nodes")
                .unwrap_err()
                .contains("PATH=SPEC")
        );
        assert!(
            Vary::parse("pool..nodes=1")
                .unwrap_err()
                .contains("not a field path")
        );
        let vary = Vary::parse("pool.dgx.nodes = 0..4:2").unwrap();
        assert_eq!(
            (vary.path.as_str(), vary.text.as_str()),
            ("pool.dgx.nodes", "0..4:2")
        );
    }

    #[test]
    fn sweep_tables_take_arrays_and_strings() {
        let (spec, text) = Spec::from_toml(&Value::Array(ints(&[0, 2]))).unwrap();
        assert_eq!((spec, text.as_str()), (Spec::List(ints(&[0, 2])), "0,2"));
        let (spec, _) = Spec::from_toml(&Value::String("0..4:2".into())).unwrap();
        assert!(matches!(spec, Spec::Step { .. }));
        assert!(
            Spec::from_toml(&Value::Integer(3))
                .unwrap_err()
                .contains("must be a list")
        );
        assert!(
            Spec::from_toml(&Value::Array(vec![]))
                .unwrap_err()
                .contains("empty list")
        );
    }

    #[test]
    fn sampling_methods() {
        assert_eq!(Sampling::parse("grid"), Ok(Sampling::Grid));
        assert_eq!(
            Sampling::parse("lhs:20"),
            Ok(Sampling::Lhs {
                samples: 20,
                seed: None
            })
        );
        assert_eq!(
            Sampling::parse("random:5:9"),
            Ok(Sampling::Random {
                samples: 5,
                seed: Some(9)
            })
        );
        assert!(
            Sampling::parse("lhs:0")
                .unwrap_err()
                .contains("N must be a whole number from 1")
        );
        assert!(
            Sampling::parse("sobol:8")
                .unwrap_err()
                .contains("expected `grid`")
        );
        assert!(Sampling::parse("lhs:4:x").unwrap_err().contains("SEED `x`"));
    }

    #[test]
    fn significant_digits() {
        assert_eq!(round_significant(31.622776601683793), 31.6228);
        assert_eq!(round_significant(123_456_789.0), 123_457_000.0);
        assert_eq!(round_significant(-0.000123456789), -0.000123457);
    }
}
