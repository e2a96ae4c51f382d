//! Scenario files: reading, `--set` overrides, every check, and the trusted [`Config`].
//!
//! Only this module knows TOML. [`load`] is the one way to a `Config`: it parses the file
//! (syntax, unknown fields and wrong types are reported by line and column), applies
//! overrides (each one checked on its own, so an error names it), then runs every semantic
//! check and reports all problems at once with their line and field path.

mod check;
mod config;
pub mod file;
mod lines;
mod overrides;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

pub use check::{DISTRIBUTIONS, Issue};
pub use config::*;
pub use file::{ScenarioFile, SweepFile};
pub use lines::Lines;
pub use overrides::{NAMED_ARRAYS, Override, did_you_mean, parse_value};

/// The built-in default scenario (`fleetsim run` without a file).
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/hybrid-vs-cloud.toml");
pub const DEFAULT_SCENARIO_NAME: &str = "hybrid-vs-cloud";

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{}: cannot read scenario file", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a valid scenario file: {message}", .path.display())]
    Parse { path: PathBuf, message: String },
    #[error("{}: --set {set}: {problem}", .path.display())]
    Override {
        path: PathBuf,
        set: String,
        problem: String,
    },
    #[error("{}: {} problem(s){}", .path.display(), .issues.len(), Bullets(.issues))]
    Invalid { path: PathBuf, issues: Vec<Issue> },
}

struct Bullets<'a>(&'a [Issue]);

impl fmt::Display for Bullets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for issue in self.0 {
            write!(f, "\n  {issue}")?;
        }
        Ok(())
    }
}

/// A checked scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    /// The file after overrides, with defaults filled in (for `run.json`).
    pub resolved: ScenarioFile,
    /// Legal but suspicious input, to print before running.
    pub warnings: Vec<String>,
}

/// Reads and checks a scenario file.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Loaded, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let default_name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    load_text(&text, path, &default_name, overrides)
}

/// Checks scenario text; `origin` names it in messages.
pub fn load_text(
    text: &str,
    origin: &Path,
    default_name: &str,
    overrides: &[Override],
) -> Result<Loaded, ScenarioError> {
    let path = || origin.to_path_buf();
    let lines = Lines::of(text);
    let mut file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Parse {
        path: path(),
        message: explain(&e, text, &lines),
    })?;
    if !overrides.is_empty() {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| ScenarioError::Parse {
            path: path(),
            message: explain(&e, text, &lines),
        })?;
        for o in overrides {
            let fail = |problem: String| ScenarioError::Override {
                path: path(),
                set: o.text.clone(),
                problem,
            };
            o.apply(&mut table).map_err(fail)?;
            file = toml::Value::Table(table.clone())
                .try_into()
                .map_err(|e: toml::de::Error| fail(with_suggestion(e.message())))?;
        }
    }
    let overridden: BTreeSet<String> = overrides.iter().map(|o| o.path.clone()).collect();
    let checked = check::check(&file, &lines, &overridden, default_name).map_err(|issues| {
        ScenarioError::Invalid {
            path: path(),
            issues,
        }
    })?;
    Ok(Loaded {
        config: checked.config,
        resolved: checked.resolved,
        warnings: checked.warnings,
    })
}

/// The built-in default scenario, checked.
pub fn load_default(overrides: &[Override]) -> Result<Loaded, ScenarioError> {
    load_text(
        DEFAULT_SCENARIO,
        Path::new("<built-in hybrid-vs-cloud.toml>"),
        DEFAULT_SCENARIO_NAME,
        overrides,
    )
}

/// What kind of value a field takes, as far as a sweep needs to know to type its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number (a count, a month, the seed): sweep values must be integers.
    Integer,
    /// A number; integers are accepted and stored as numbers.
    Number,
    /// Anything else (text, choices, booleans, fields of several shapes): values as written.
    AsWritten,
}

/// A scenario file's text, kept to load it many times (one sweep point after another) and to
/// look into it (field kinds, the order of the `[sweep]` table).
#[derive(Debug, Clone)]
pub struct Source {
    pub text: String,
    /// Names the text in messages.
    pub origin: PathBuf,
    /// The scenario's name when the file gives none (the file name without extension).
    pub default_name: String,
}

impl Source {
    pub fn read(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let default_name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            text,
            origin: path.to_path_buf(),
            default_name,
        })
    }

    /// Checks the scenario with `overrides` applied (see [`load_text`]).
    pub fn load(&self, overrides: &[Override]) -> Result<Loaded, ScenarioError> {
        load_text(&self.text, &self.origin, &self.default_name, overrides)
    }

    /// The kind of the field at `path` once `overrides` are applied, found by trying values of
    /// each kind against the file's types. `example` is one value the sweep will set: a path
    /// that does not exist, or a field that accepts none of the kinds, is reported with it.
    pub fn field_kind(
        &self,
        overrides: &[Override],
        path: &str,
        example: &toml::Value,
    ) -> Result<FieldKind, String> {
        let mut base: toml::Table = toml::from_str(&self.text).map_err(|e| e.to_string())?;
        for o in overrides {
            o.apply(&mut base)?;
        }
        let with = |value: toml::Value| -> Result<ScenarioFile, String> {
            let mut table = base.clone();
            Override::new(path, value).apply(&mut table)?;
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| with_suggestion(e.message()))
        };
        // The example first: a wrong path is reported as such, whatever the kind.
        let example_fits = with(example.clone());
        if let Err(problem) = &example_fits
            && Override::new(path, example.clone())
                .apply(&mut base.clone())
                .is_err()
        {
            return Err(problem.clone());
        }
        if with(toml::Value::Float(0.5)).is_ok() {
            return Ok(if with(toml::Value::String("x".into())).is_ok() {
                FieldKind::AsWritten
            } else {
                FieldKind::Number
            });
        }
        if with(toml::Value::Integer(1)).is_ok() {
            return Ok(FieldKind::Integer);
        }
        example_fits.map(|_| FieldKind::AsWritten)
    }

    /// The paths of `[sweep] vary`, in the order the file writes them (the table itself is
    /// sorted by key); empty when the file has no such table.
    pub fn sweep_vary_order(&self) -> Vec<String> {
        let Ok(table) = toml::de::DeTable::parse(&self.text) else {
            return Vec::new();
        };
        let Some(toml::de::DeValue::Table(sweep)) =
            table.get_ref().get("sweep").map(|v| v.get_ref())
        else {
            return Vec::new();
        };
        let Some(toml::de::DeValue::Table(vary)) = sweep.get("vary").map(|v| v.get_ref()) else {
            return Vec::new();
        };
        let mut keys: Vec<(usize, String)> = vary
            .iter()
            .map(|(key, _)| (key.span().start, key.get_ref().to_string()))
            .collect();
        keys.sort();
        keys.into_iter().map(|(_, key)| key).collect()
    }

    /// The line of a field path in the file (see [`Lines::line`]).
    pub fn line(&self, path: &str) -> Option<usize> {
        Lines::of(&self.text).line(path)
    }
}

/// A TOML error with its field path (when the line names one) and a did-you-mean.
fn explain(error: &toml::de::Error, text: &str, lines: &Lines) -> String {
    let mut message = error.to_string().trim_end().to_string();
    message.push_str(&suggestion(error.message()));
    let field = error
        .span()
        .and_then(|span| lines.path_at(Lines::line_of_offset(text, span.start)));
    match field {
        Some(field) => format!("`{field}`: {message}"),
        None => message,
    }
}

fn with_suggestion(message: &str) -> String {
    format!("{}{}", message.trim_end(), suggestion(message))
}

/// For "unknown field `x`, expected one of `a`, `b`" (or variant): " (did you mean `a`?)".
fn suggestion(message: &str) -> String {
    let Some(rest) = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))
    else {
        return String::new();
    };
    let Some((word, rest)) = rest.split_once('`') else {
        return String::new();
    };
    let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    did_you_mean(word, candidates.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_scenario_is_valid() {
        let loaded = load_default(&[]).unwrap();
        assert_eq!(loaded.config.name, DEFAULT_SCENARIO_NAME);
        assert!(loaded.config.strategies.len() >= 2);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }

    fn source(text: &str) -> Source {
        Source {
            text: text.to_string(),
            origin: PathBuf::from("<test>"),
            default_name: "test".into(),
        }
    }

    #[test]
    fn field_kinds_come_from_the_file_types() {
        let source = source(DEFAULT_SCENARIO);
        let kind = |path: &str, example: toml::Value| source.field_kind(&[], path, &example);
        let two = toml::Value::Integer(2);
        assert_eq!(kind("pool.dgx.nodes", two.clone()), Ok(FieldKind::Integer));
        assert_eq!(kind("seed", two.clone()), Ok(FieldKind::Integer));
        assert_eq!(
            kind("pool.dgx.capex_per_node", two.clone()),
            Ok(FieldKind::Number)
        );
        // Unwritten fields have kinds too.
        assert_eq!(
            kind("pool.aws-p5-spot.availability.shortfall", two.clone()),
            Ok(FieldKind::Number)
        );
        // Fields of several shapes (a number or "never") take values as written.
        assert_eq!(
            kind("strategy.hybrid-dgx-spot.burst_after_wait_h", two.clone()),
            Ok(FieldKind::AsWritten)
        );
        let backfill = toml::Value::String("backfill".into());
        assert_eq!(
            kind("strategy.hybrid-dgx-spot.queue", backfill),
            Ok(FieldKind::AsWritten)
        );
        let error = kind("pool.dgz.nodes", two.clone()).unwrap_err();
        assert!(error.contains("no pool is named `dgz`"), "{error}");
        let error = kind("pool.dgx.nods", two).unwrap_err();
        assert!(error.contains("did you mean `nodes`"), "{error}");
    }

    #[test]
    fn sweep_keys_keep_the_file_order() {
        let text = "[sweep]\nvary = { \"z.b\" = [1], \"a.c\" = \"0..2:1\" }\n";
        assert_eq!(source(text).sweep_vary_order(), ["z.b", "a.c"]);
        let text = "[sweep.vary]\n\"z\" = [1]\n\"a\" = [2]\n";
        assert_eq!(source(text).sweep_vary_order(), ["z", "a"]);
        assert!(source("x = 1").sweep_vary_order().is_empty());
    }

    #[test]
    fn unknown_fields_get_a_suggestion() {
        assert_eq!(
            suggestion("unknown field `nods`, expected one of `name`, `nodes`, `gpu`"),
            " (did you mean `nodes`?)"
        );
        assert_eq!(
            suggestion("unknown variant `lifo`, expected one of `fifo`, `backfill`, `priority`"),
            " (did you mean `fifo`?)"
        );
        assert_eq!(suggestion("invalid type: string"), "");
    }
}
