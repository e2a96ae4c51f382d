//! `--set PATH=VALUE`: change one scalar (or any value) of a scenario by its path.
//!
//! Paths name arrays of tables by their elements' names: `pool.dgx.nodes`,
//! `workload.experiments.arrivals_per_day`, `strategy.hybrid.burst_after_wait_h`,
//! `pool.spot.preemption.mean_h`, `gpu_speed.A100`. Values are TOML (`2`, `0.5`, `true`,
//! `[1, 2]`, `"text"`); a bare word that is not TOML is taken as a string (`queue=backfill`).

use std::fmt;

use toml::{Table, Value};

/// One `PATH=VALUE` override.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub path: String,
    pub value: Value,
    /// As the user wrote it, for messages.
    pub text: String,
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The arrays of tables whose elements paths name by `name`.
pub const NAMED_ARRAYS: [&str; 4] = ["workload", "service", "pool", "strategy"];

/// `path` trimmed, if it is a dotted field path with no empty part (`pool.dgx.nodes`).
pub fn field_path(path: &str) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(format!(
            "`{path}` is not a field path (e.g. pool.dgx.nodes)"
        ));
    }
    Ok(path.to_string())
}

impl Override {
    /// Parses `PATH=VALUE`.
    pub fn parse(text: &str) -> Result<Self, String> {
        // `value = 1\nseed = 2` would set a second field behind the first one's back.
        if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\t') {
            return Err(format!(
                "`{}` holds a line break or another control character ({c:?}); give one PATH=VALUE per --set, on one line",
                crate::names::without_controls(text)
            ));
        }
        let (path, value) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}` is not PATH=VALUE (e.g. pool.dgx.nodes=6)"))?;
        Ok(Self {
            path: field_path(path)?,
            value: parse_value(value.trim()),
            text: text.to_string(),
        })
    }

    /// An override of `path` with an already typed value (sweeps).
    pub fn new(path: &str, value: Value) -> Self {
        let text = format!("{path}={value}");
        Self {
            path: path.to_string(),
            value,
            text,
        }
    }

    /// Applies the override to a parsed scenario table.
    pub fn apply(&self, table: &mut Table) -> Result<(), String> {
        let parts: Vec<&str> = self.path.split('.').collect();
        let mut current = table;
        let mut i = 0;
        while i + 1 < parts.len() {
            let key = parts[i];
            if NAMED_ARRAYS.contains(&key) {
                let name = parts[i + 1];
                let Some(Value::Array(items)) = current.get_mut(key) else {
                    return Err(format!("the scenario has no `[[{key}]]` named `{name}`"));
                };
                let names: Vec<String> = items
                    .iter()
                    .filter_map(|item| item.get("name").and_then(Value::as_str).map(String::from))
                    .collect();
                let Some(item) = items
                    .iter_mut()
                    .find(|item| item.get("name").and_then(Value::as_str) == Some(name))
                else {
                    return Err(format!(
                        "no {key} is named `{name}`{}; {key}s are: {}",
                        did_you_mean(name, names.iter().map(String::as_str)),
                        names.join(", ")
                    ));
                };
                let Value::Table(inner) = item else {
                    return Err(format!("`{key}.{name}` is not a table"));
                };
                if i + 2 == parts.len() {
                    return Err(format!(
                        "`{}` names a whole {key}; add a field, e.g. `{}.nodes`",
                        self.path, self.path
                    ));
                }
                current = inner;
                i += 2;
                continue;
            }
            let entry = current
                .entry(key.to_string())
                .or_insert_with(|| Value::Table(Table::new()));
            let Value::Table(inner) = entry else {
                return Err(format!(
                    "`{}` is a value, not a table",
                    parts[..=i].join(".")
                ));
            };
            current = inner;
            i += 1;
        }
        let last = parts[parts.len() - 1];
        if NAMED_ARRAYS.contains(&last) {
            return Err(format!(
                "`{}` names a list of tables; set one field, e.g. `{last}.NAME.FIELD`",
                self.path
            ));
        }
        current.insert(last.to_string(), self.value.clone());
        Ok(())
    }
}

/// A value as `--set` reads it: TOML (`2`, `0.5`, `true`, `"text"`), else a bare string.
pub fn parse_value(text: &str) -> Value {
    let document = format!("value = {text}");
    match document.parse::<Table>() {
        Ok(mut table) => table
            .remove("value")
            .unwrap_or_else(|| Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

/// `" (did you mean `x`?)"` for the closest of `candidates`, if one is close enough.
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    candidates
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Table {
        r#"
horizon_months = 12
[[pool]]
name = "dgx"
nodes = 4
[[strategy]]
name = "s"
queue = "fifo"
"#
        .parse()
        .unwrap()
    }

    fn apply(text: &str) -> Result<Table, String> {
        let mut table = scenario();
        Override::parse(text)?.apply(&mut table)?;
        Ok(table)
    }

    #[test]
    fn scalars_by_path() {
        let table = apply("horizon_months=36").unwrap();
        assert_eq!(table["horizon_months"].as_integer(), Some(36));
        let table = apply("pool.dgx.nodes=6").unwrap();
        assert_eq!(table["pool"][0]["nodes"].as_integer(), Some(6));
        let table = apply("strategy.s.queue=backfill").unwrap();
        assert_eq!(table["strategy"][0]["queue"].as_str(), Some("backfill"));
        let table = apply("pool.dgx.failures.mtbf_h=100.5").unwrap();
        assert_eq!(
            table["pool"][0]["failures"]["mtbf_h"].as_float(),
            Some(100.5)
        );
        let table = apply("gpu_speed.A100=0.5").unwrap();
        assert_eq!(table["gpu_speed"]["A100"].as_float(), Some(0.5));
    }

    #[test]
    fn bad_paths_say_what_exists() {
        let error = apply("pool.dgz.nodes=6").unwrap_err();
        assert!(
            error.contains("no pool is named `dgz` (did you mean `dgx`?)"),
            "{error}"
        );
        assert!(apply("nodes").unwrap_err().contains("is not PATH=VALUE"));
        assert!(
            apply("pool..nodes=1")
                .unwrap_err()
                .contains("is not a field path")
        );
        assert!(
            apply("horizon_months.x=1")
                .unwrap_err()
                .contains("is a value, not a table")
        );
        assert!(
            apply("workload.w.gpus=1")
                .unwrap_err()
                .contains("has no `[[workload]]`")
        );
        assert!(
            apply("pool.dgx=1")
                .unwrap_err()
                .contains("names a whole pool")
        );
    }
}
