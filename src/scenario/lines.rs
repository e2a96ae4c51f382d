//! Where each field of a scenario file is written: field path -> line and column.
//!
//! Paths use names for arrays of tables, as `--set` does: `pool.dgx.nodes`,
//! `workload.experiments.duration_h.median`. Elements are also reachable by position
//! (`pool[2].name`), which is how duplicate or missing names are reported.

use std::collections::BTreeMap;

use toml::de::{DeTable, DeValue};

#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// Field path -> (line, column), both 1-based; the column is that of the key.
    lines: BTreeMap<String, (usize, usize)>,
}

impl Lines {
    /// Maps every field of `text`; an unparsable text gives an empty map.
    pub fn of(text: &str) -> Self {
        let mut lines = Self::default();
        if let Ok(table) = DeTable::parse(text) {
            let starts = LineStarts::new(text);
            lines.walk("", table.get_ref(), &starts);
        }
        lines
    }

    /// The line of `path`, else of its nearest written parent (1-based).
    pub fn line(&self, path: &str) -> Option<usize> {
        self.position(path).map(|(line, _)| line)
    }

    /// The line and column of `path`, else of its nearest written parent (1-based).
    pub fn position(&self, path: &str) -> Option<(usize, usize)> {
        let mut path = path;
        loop {
            if let Some(position) = self.lines.get(path) {
                return Some(*position);
            }
            let cut = path.rfind(['.', '['])?;
            path = &path[..cut];
        }
    }

    /// The field written on `line` at or before `column` (the nearest, then the most
    /// specific), named by names rather than positions.
    pub fn path_at(&self, line: usize, column: usize) -> Option<&str> {
        self.lines
            .iter()
            .filter(|(path, (l, c))| *l == line && *c <= column && !path.contains('['))
            .max_by_key(|(path, (_, c))| (*c, path.len()))
            .map(|(path, _)| path.as_str())
    }

    /// The 1-based line of a byte offset in `text`.
    pub fn line_of_offset(text: &str, offset: usize) -> usize {
        LineStarts::new(text).line(offset)
    }

    /// The 1-based line and column (in characters) of a byte offset in `text`.
    pub fn position_of_offset(text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let starts = LineStarts::new(text);
        let line = starts.line(offset);
        let start = starts.0[line - 1];
        let column = text
            .get(start..offset)
            .map_or(offset - start, |before| before.chars().count());
        (line, column + 1)
    }

    fn walk(&mut self, prefix: &str, table: &DeTable<'_>, starts: &LineStarts) {
        for (key, value) in table {
            let path = format!("{prefix}{}", key.get_ref());
            self.lines
                .entry(path.clone())
                .or_insert(starts.position(key.span().start));
            match value.get_ref() {
                DeValue::Table(inner) => self.walk(&format!("{path}."), inner, starts),
                DeValue::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let DeValue::Table(inner) = item.get_ref() else {
                            continue;
                        };
                        let line = starts.position(item.span().start);
                        let by_index = format!("{path}[{i}]");
                        self.lines.entry(by_index.clone()).or_insert(line);
                        self.walk(&format!("{by_index}."), inner, starts);
                        if let Some(name) = inner.get("name").and_then(|n| n.get_ref().as_str()) {
                            let by_name = format!("{path}.{name}");
                            if !self.lines.contains_key(&by_name) {
                                self.lines.insert(by_name.clone(), line);
                                self.walk(&format!("{by_name}."), inner, starts);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> Self {
        Self(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }
    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|start| *start <= offset)
    }
    /// 1-based line and column (in bytes) of an offset.
    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        (line, offset - self.0[line - 1] + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"name = "x"
horizon_months = 12

[[pool]]
name = "dgx"
nodes = 4
failures = { mtbf_h = 100, repair_h = 2 }

[[pool]]
name = "cloud"
price_per_gpu_h = 3.0
[pool.preemption]
mean_h = 10
"#;

    #[test]
    fn fields_are_found_by_name_and_position() {
        let lines = Lines::of(TEXT);
        assert_eq!(lines.line("horizon_months"), Some(2));
        assert_eq!(lines.line("pool.dgx"), Some(4));
        assert_eq!(lines.line("pool.dgx.nodes"), Some(6));
        assert_eq!(lines.line("pool[0].nodes"), Some(6));
        assert_eq!(lines.line("pool.dgx.failures.repair_h"), Some(7));
        assert_eq!(lines.line("pool.cloud.price_per_gpu_h"), Some(11));
        assert_eq!(lines.line("pool.cloud.preemption.mean_h"), Some(13));
        // Unwritten fields fall back to their table.
        assert_eq!(lines.line("pool.cloud.max_nodes"), Some(9));
        assert_eq!(lines.line("nothing"), None);
        assert_eq!(lines.position("pool.dgx.failures.repair_h"), Some((7, 28)));
        assert_eq!(lines.position("pool.dgx.nodes"), Some((6, 1)));
        assert_eq!(lines.path_at(6, 9), Some("pool.dgx.nodes"));
        assert_eq!(lines.path_at(7, 40), Some("pool.dgx.failures.repair_h"));
        assert_eq!(lines.path_at(7, 14), Some("pool.dgx.failures.mtbf_h"));
        assert_eq!(lines.path_at(7, 1), Some("pool.dgx.failures"));
    }
}
