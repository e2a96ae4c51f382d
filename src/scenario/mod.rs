//! Scenario files: reading, `--set` overrides, every check, and the trusted [`Config`].
//!
//! Only this module knows TOML. [`load`] is the one way to a `Config`: it parses the file
//! (syntax, unknown fields and wrong types are reported by line and column), applies
//! overrides (each one checked on its own, so an error names it), then runs every semantic
//! check and reports all problems at once with their line and field path.

mod check;
mod config;
pub mod economics;
pub mod file;
pub mod inputs;
mod lines;
mod overrides;
pub mod schema;
mod shapes;
pub mod templates;
pub mod vocabulary;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::trace::TraceFormat;
pub use check::{DISTRIBUTIONS, Issue, REPLICATIONS_MAX};
pub use config::*;
pub use config::{TraceDay, TraceReplay};
pub use file::Replay;
pub use file::{OptimizeFile, ScenarioFile, SweepFile};
pub use inputs::TraceCache;
pub use lines::Lines;
pub use overrides::{NAMED_ARRAYS, Override, did_you_mean, field_path, parse_value};

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
    #[error(
        "{}: is larger than {} MiB, the most a scenario file may be (a scenario is a few KiB of TOML; is this the right file?)",
        .path.display(), SCENARIO_BYTES_MAX >> 20
    )]
    TooLarge { path: PathBuf },
    #[error("{}: not a valid scenario file\n  {message}", .path.display())]
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

/// The largest scenario file read, bytes: more is not a scenario (`/dev/zero`, a trace given
/// by mistake), and reading it would only fill memory.
pub const SCENARIO_BYTES_MAX: u64 = 16 << 20;

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
    let source = Source::read(path)?;
    load_text(&source.text, path, &source.default_name, overrides)
}

/// Checks scenario text; `origin` names it in messages (and traces are found beside it).
pub fn load_text(
    text: &str,
    origin: &Path,
    default_name: &str,
    overrides: &[Override],
) -> Result<Loaded, ScenarioError> {
    load_text_with(
        text,
        origin,
        default_name,
        overrides,
        &TraceCache::default(),
    )
}

/// [`load_text`], reading traces through `traces` (shared by the loads of one [`Source`]).
pub fn load_text_with(
    text: &str,
    origin: &Path,
    default_name: &str,
    overrides: &[Override],
    traces: &TraceCache,
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
                .map_err(|e: toml::de::Error| fail(with_suggestion(e.message(), &o.path)))?;
        }
    }
    let overridden: BTreeSet<String> = overrides.iter().map(|o| o.path.clone()).collect();
    // Trace workloads: read their files, check, then check them against the rest.
    let prepared = inputs::replay::prepare(&file, origin, &lines, &overridden, traces);
    let invalid = |issues| ScenarioError::Invalid {
        path: path(),
        issues,
    };
    let mut checked = match check::check(&prepared.file, &lines, &overridden, default_name) {
        Ok(_) if !prepared.issues.is_empty() => return Err(invalid(prepared.issues)),
        Ok(checked) => checked,
        Err(mut issues) => {
            issues.extend(prepared.issues);
            return Err(invalid(issues));
        }
    };
    let mut issues = inputs::replay::attach(&mut checked, &prepared, &file, &lines, &overridden);
    issues.extend(inputs::demand::attach(
        &mut checked,
        &file,
        origin,
        &lines,
        &overridden,
    ));
    issues.extend(inputs::prices::attach(
        &mut checked,
        &file,
        origin,
        &lines,
        &overridden,
    ));
    issues.extend(inputs::availability::attach(
        &mut checked,
        &file,
        origin,
        &lines,
        &overridden,
    ));
    if !issues.is_empty() {
        return Err(invalid(issues));
    }
    // With the traces attached: a trace's own jobs against its deadline.
    check::warn_deadline_infeasible(&checked.config, &mut checked.warnings);
    if checked.resolved.description.is_none() {
        checked.resolved.description = leading_comment(text);
    }
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
        Path::new(DEFAULT_ORIGIN),
        DEFAULT_SCENARIO_NAME,
        overrides,
    )
}

/// How messages name the built-in default scenario.
pub const DEFAULT_ORIGIN: &str = "<built-in hybrid-vs-cloud.toml>";

/// The overrides of a `run` or `sweep`: `set`, then `replications` and `seed` as overrides of
/// those fields (a seed above `i64::MAX` as a string, as a file writes it).
pub fn run_overrides(
    set: &[Override],
    replications: Option<u32>,
    seed: Option<u64>,
) -> Vec<Override> {
    let mut overrides = set.to_vec();
    if let Some(n) = replications {
        overrides.push(Override::new(
            "replications",
            toml::Value::Integer(i64::from(n)),
        ));
    }
    if let Some(seed) = seed {
        overrides.push(Override::new("seed", file::Seed(seed).to_toml()));
    }
    overrides
}

/// What `fleetsim validate` says of a valid scenario, after `ORIGIN: valid: `: its workloads,
/// pools, strategies, horizon and replications.
pub fn describe(config: &Config) -> String {
    let sizes = config.pools.iter().filter(|p| p.shape.is_some()).count();
    let declared = config
        .pools
        .iter()
        .filter(|p| p.shape.as_ref().is_none_or(|s| s.largest))
        .count();
    let pools = if sizes == 0 {
        format!("{declared} pool(s)")
    } else {
        format!(
            "{declared} pool(s) ({} with their instance sizes)",
            config.pools.len()
        )
    };
    format!(
        "{} workload(s), {pools}, {} strateg{} over {} months from {}, {} replications",
        config.workloads.len(),
        config.strategies.len(),
        if config.strategies.len() == 1 {
            "y"
        } else {
            "ies"
        },
        config.horizon_months,
        config.calendar.month_label(0),
        config.replications,
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
    /// Traces read by earlier loads of this source: a sweep's points share one copy.
    pub traces: TraceCache,
}

impl Source {
    /// Reads the file once (a fifo or a process substitution can be read only once), at most
    /// [`SCENARIO_BYTES_MAX`] bytes of it.
    pub fn read(path: &Path) -> Result<Self, ScenarioError> {
        use std::io::Read as _;
        let failed = |source| ScenarioError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(failed)?;
        let mut bytes = Vec::new();
        file.take(SCENARIO_BYTES_MAX + 1)
            .read_to_end(&mut bytes)
            .map_err(failed)?;
        if bytes.len() as u64 > SCENARIO_BYTES_MAX {
            return Err(ScenarioError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        let text = String::from_utf8(bytes).map_err(|error| {
            failed(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text (byte {})", error.utf8_error().valid_up_to()),
            ))
        })?;
        let default_name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            text,
            origin: path.to_path_buf(),
            default_name,
            traces: TraceCache::default(),
        })
    }

    /// Scenario text that comes from no file (the Python package's `fleetsim.run(text)`):
    /// `origin` names it in messages, and relative trace paths are found beside it.
    pub fn from_text(text: &str, origin: &Path, default_name: &str) -> Self {
        Self {
            text: text.to_string(),
            origin: origin.to_path_buf(),
            default_name: default_name.to_string(),
            traces: TraceCache::default(),
        }
    }

    /// The built-in default scenario (`fleetsim run` without a file).
    pub fn built_in() -> Self {
        Self::from_text(
            DEFAULT_SCENARIO,
            Path::new(DEFAULT_ORIGIN),
            DEFAULT_SCENARIO_NAME,
        )
    }

    /// Checks the scenario with `overrides` applied (see [`load_text`]).
    pub fn load(&self, overrides: &[Override]) -> Result<Loaded, ScenarioError> {
        load_text_with(
            &self.text,
            &self.origin,
            &self.default_name,
            overrides,
            &self.traces,
        )
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
                .map_err(|e: toml::de::Error| with_suggestion(e.message(), path))
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
        self.vary_order("sweep")
    }

    /// The same for the `[optimize]` table (or any table `name` with a `vary` table).
    pub fn vary_order(&self, name: &str) -> Vec<String> {
        let Ok(table) = toml::de::DeTable::parse(&self.text) else {
            return Vec::new();
        };
        let Some(toml::de::DeValue::Table(sweep)) = table.get_ref().get(name).map(|v| v.get_ref())
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

/// A TOML error in planner's words: where (line, column, field path), what was found, what is
/// accepted, a did-you-mean, and the offending line with a caret under it.
fn explain(error: &toml::de::Error, text: &str, lines: &Lines) -> String {
    let Some(span) = error.span() else {
        if error.message().contains("recursion limit") {
            return too_deep(text);
        }
        return plain_message(error.message(), None, "");
    };
    let (line, column) = Lines::position_of_offset(text, span.start);
    let field = lines.path_at(line, column).unwrap_or_default();
    let written = text.get(span.clone()).unwrap_or_default();
    let message = plain_message(
        error.message(),
        Some(field).filter(|f| !f.is_empty()),
        written,
    );
    format!(
        "line {line}, column {column}: {message}\n{}",
        snippet(text, line, column, written)
    )
}

/// An error of a `--set` value of the field `path`, in the same words as errors in the file
/// (the path is not repeated: the message names the override).
fn with_suggestion(message: &str, path: &str) -> String {
    if !message.starts_with("invalid ") {
        return plain_message(message, None, "");
    }
    let named = format!("`{path}` ");
    let message = plain_message(message, Some(path), "");
    message
        .strip_prefix(&named)
        .map_or(message.clone(), str::to_string)
}

/// Rewrites serde's messages ("invalid type: string \"x\", expected u32") for planners.
/// `field` is the path of the field on the error's line, `written` the text the error points at.
fn plain_message(message: &str, field: Option<&str>, written: &str) -> String {
    let message = message.trim_end();
    let named = |text: &str| match field {
        Some(field) => format!("`{field}` {text}"),
        None => text.to_string(),
    };
    if message.starts_with("cannot recurse further") {
        return "arrays or inline tables nest too deeply: a scenario nests a few levels at most"
            .to_string();
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (word, accepted) = rest.split_once('`').unwrap_or((rest, ""));
        let candidates: Vec<&str> = accepted.split('`').skip(1).step_by(2).collect();
        let what = match field {
            Some(field) if field.ends_with(word) => format!("unknown field `{field}`"),
            _ => format!("unknown field `{word}`"),
        };
        return format!(
            "{what}{}; accepted here: {}",
            did_you_mean(word, candidates.iter().copied()),
            candidates.join(", ")
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (word, accepted) = rest.split_once('`').unwrap_or((rest, ""));
        let candidates: Vec<&str> = accepted.split('`').skip(1).step_by(2).collect();
        return named(&format!(
            "cannot be \"{word}\"{}; use one of: {}",
            did_you_mean(word, candidates.iter().copied()),
            candidates.join(", ")
        ));
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let name = rest.trim_end_matches('`');
        let table = match field {
            Some(field) => format!("`{field}`"),
            None => format!("this {}", written.trim()),
        };
        return format!("{table} is missing the field `{name}`, which is required");
    }
    if message == "wanted string or table" {
        // An enum given a number or a list.
        let accepted = match field.and_then(|f| f.rsplit('.').next()) {
            Some("type") => "\"on_prem\", \"reserved\", \"on_demand\" or \"spot\"",
            Some("queue") => "\"fifo\", \"backfill\", \"priority\" or \"first_fit\"",
            Some("placement") => "\"node_local\" or \"spread\"",
            Some("idle_cost") => "\"unallocated\" or \"proportional\"",
            _ => "one of the names accepted here, in quotes",
        };
        return named(&format!("must be {accepted}, got {}", written.trim()));
    }
    if message == "duplicate key" {
        let key = written.trim();
        return format!("`{key}` is set twice; TOML allows each key once per table, so keep one");
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((found, expected)) = rest.rsplit_once(", expected ")
        {
            let found = found
                .replacen("string", "the string", 1)
                .replace("floating point", "the number")
                .replace("integer", "the whole number")
                .replace("boolean", "the boolean")
                .replace("sequence", "a list")
                .replace("map", "a table");
            return named(&format!(
                "must be {}, got {found}",
                expected_in_words(expected, field)
            ));
        }
    }
    named(message)
}

/// serde's name of an expected type, in words; for a count of `field`, the range its check
/// accepts, so that `-1`, `1.5` and `0` get the same advice.
fn expected_in_words(expected: &str, field: Option<&str>) -> String {
    let last = field.and_then(|f| f.rsplit('.').next()).unwrap_or_default();
    match expected {
        "u32" | "u64" => match check::count_range(last) {
            Some((min, max)) => format!("a whole number from {min} to {max}"),
            None if expected == "u32" => "a whole number from 0 to 4294967295".to_string(),
            None => "a whole number of at least 0".to_string(),
        },
        "i64" => "a whole number".to_string(),
        "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" => "a string in quotes".to_string(),
        "a sequence" => "a list [...]".to_string(),
        "a map" => "a table { ... }".to_string(),
        other if other.starts_with("struct ") => "a table { ... }".to_string(),
        other => other.to_string(),
    }
}

/// The line the error is on, with a caret under what it points at.
fn snippet(text: &str, line: usize, column: usize, written: &str) -> String {
    let source = text.lines().nth(line - 1).unwrap_or_default();
    let (shown, column) = window(source, column);
    let gutter = " ".repeat(line.to_string().len());
    let width = written
        .lines()
        .next()
        .map_or(1, |first| first.chars().count().max(1));
    let available = shown.chars().count().saturating_sub(column - 1).max(1);
    format!(
        "  {gutter} |\n  {line} | {shown}\n  {gutter} | {}{}",
        " ".repeat(column - 1),
        "^".repeat(width.min(available))
    )
}

/// Characters of the offending line an error shows, at most: a generated file's line can be
/// megabytes long, and the terminal needs only the part around the column.
const SNIPPET_CHARS_MAX: usize = 100;

/// Characters shown before the column of a line that is cut.
const SNIPPET_LEAD_CHARS: usize = 30;

/// The part of `source` shown around `column` (1-based, in characters), with `…` where it is
/// cut, and the column within that part.
fn window(source: &str, column: usize) -> (String, usize) {
    let chars = source.chars().count();
    if chars <= SNIPPET_CHARS_MAX {
        return (source.to_string(), column);
    }
    let skip = (column - 1).saturating_sub(SNIPPET_LEAD_CHARS);
    let mut shown: String = source.chars().skip(skip).take(SNIPPET_CHARS_MAX).collect();
    if skip + SNIPPET_CHARS_MAX < chars {
        shown.push('…');
    }
    if skip == 0 {
        return (shown, column);
    }
    (format!("…{shown}"), column - skip + 1)
}

/// The message of a file whose keys nest deeper than the TOML reader goes (`a.a.a…b = 1` or
/// `[a.a.a…b]`): the reader gives no position, so the line is the one with the deepest key.
fn too_deep(text: &str) -> String {
    let deepest = text
        .lines()
        .enumerate()
        .map(|(index, line)| (key_depth(line), std::cmp::Reverse(index)))
        .max();
    let reason = "the keys nest too deeply: a scenario nests a few levels at most";
    match deepest {
        Some((depth, std::cmp::Reverse(index))) if depth > 1 => format!(
            "line {}: {reason} (this key has {depth} levels)\n{}",
            index + 1,
            snippet(text, index + 1, 1, "")
        ),
        _ => reason.to_string(),
    }
}

/// Levels of the key a TOML line defines (`a.b = 1` and `[a.b]` have 2), counting dots outside
/// quotes; 0 for a line that defines no key.
fn key_depth(line: &str) -> usize {
    let line = line.trim_start();
    let key = if let Some(header) = line.strip_prefix('[') {
        header.trim_start_matches('[')
    } else if line.contains('=') && !line.starts_with('#') {
        line
    } else {
        return 0;
    };
    let mut quote = None;
    let mut depth = 1;
    for c in key.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '.') => depth += 1,
            (None, ']' | '=') => break,
            _ => {}
        }
    }
    depth
}

/// Characters of a description taken from a file's comments, at most.
const DESCRIPTION_CHARS_MAX: usize = 4000;

/// The comment block a scenario file starts with (its `#:schema` line left out), without the
/// `#` marks: the default `description`, the question the scenario answers. None when the
/// file starts with no comment.
fn leading_comment(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("#:schema"))
        .take_while(|line| line.starts_with('#'))
        .map(|line| {
            let line = line.trim_start_matches('#');
            line.strip_prefix(' ').unwrap_or(line).trim_end()
        })
        .collect();
    let block = lines.join("\n").trim().to_string();
    if block.is_empty() {
        return None;
    }
    Some(block.chars().take(DESCRIPTION_CHARS_MAX).collect())
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
            traces: TraceCache::default(),
        }
    }

    #[test]
    fn a_long_line_is_shown_around_its_column_with_the_caret_on_it() {
        let short = "price = x";
        assert_eq!(window(short, 9), (short.to_string(), 9));
        let long = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let (shown, column) = window(&long, 501);
        assert_eq!(shown.chars().count(), 1 + SNIPPET_CHARS_MAX + 1);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().nth(column - 1), Some('X'));
        let (start, column) = window(&long, 3);
        assert_eq!((start.chars().next(), column), (Some('a'), 3));
    }

    #[test]
    fn the_deepest_key_is_found_outside_quotes() {
        assert_eq!(key_depth("a.b.c = 1"), 3);
        assert_eq!(key_depth("[pool.dgx]"), 2);
        assert_eq!(key_depth("[[strategy]]"), 1);
        assert_eq!(key_depth("\"a.b\".c = \"x.y\""), 2);
        assert_eq!(key_depth("# a.b.c = 1"), 0);
        let text = "x = 1\na.b.c.d = 2\n[e.f]\n";
        assert!(too_deep(text).starts_with("line 2: the keys nest too deeply"));
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
            plain_message(
                "unknown field `nods`, expected one of `name`, `nodes`, `gpu`",
                Some("pool.dgx.nods"),
                "nods"
            ),
            "unknown field `pool.dgx.nods` (did you mean `nodes`?); accepted here: name, nodes, gpu"
        );
        assert_eq!(
            plain_message(
                "unknown variant `lifo`, expected one of `fifo`, `backfill`, `priority`",
                Some("strategy.s.queue"),
                "\"lifo\""
            ),
            "`strategy.s.queue` cannot be \"lifo\" (did you mean `fifo`?); use one of: fifo, backfill, priority"
        );
    }

    #[test]
    fn serde_types_are_said_in_words() {
        assert_eq!(
            plain_message(
                "invalid type: string \"two\", expected u32",
                Some("pool.dgx.nodes"),
                ""
            ),
            "`pool.dgx.nodes` must be a whole number from 0 to 1000000, got the string \"two\""
        );
        // The range the check accepts, not the type's.
        assert_eq!(
            plain_message(
                "invalid value: integer `-1`, expected u32",
                Some("horizon_months"),
                ""
            ),
            "`horizon_months` must be a whole number from 1 to 1200, got the whole number `-1`"
        );
        assert_eq!(
            plain_message("invalid value: integer `-2`, expected u32", None, ""),
            "must be a whole number from 0 to 4294967295, got the whole number `-2`"
        );
        assert_eq!(
            plain_message("duplicate key", Some("seed"), "seed"),
            "`seed` is set twice; TOML allows each key once per table, so keep one"
        );
    }

    #[test]
    fn parse_errors_point_at_line_and_column() {
        let error = load_text(
            "seed = 1\nhorizon_months = 1 2\n",
            Path::new("x.toml"),
            "x",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("x.toml: not a valid scenario file\n  line 2, column 18: "),
            "{error}"
        );
        assert!(
            error.contains("  2 | horizon_months = 1 2\n    |                  ^"),
            "{error}"
        );
    }

    #[test]
    fn the_leading_comment_is_the_default_description() {
        let text = "#:schema ../docs/scenario.schema.json\n# q: buy or rent?\n#\n#   - a list\nname = \"x\"\n# not this\n";
        assert_eq!(
            leading_comment(text).as_deref(),
            Some("q: buy or rent?\n\n  - a list")
        );
        assert_eq!(leading_comment("name = \"x\"\n# late\n"), None);
        assert_eq!(leading_comment("#\n#\n"), None);
        let loaded = load_default(&[]).unwrap();
        let description = loaded.resolved.description.unwrap();
        assert!(
            description.starts_with("hybrid-vs-cloud: the built-in default"),
            "{description}"
        );
        assert!(description.contains("A mid-size ML team"), "{description}");
    }
}
