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
pub use file::ScenarioFile;
pub use lines::Lines;
pub use overrides::{NAMED_ARRAYS, Override, did_you_mean};

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
