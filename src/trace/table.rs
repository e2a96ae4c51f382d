//! Delimited text with a header (CSV, `sacct --parsable2`): columns found by name in any
//! order, rows streamed one at a time with their line numbers, values read with messages that
//! name the file, line, column and field.

use std::path::{Path, PathBuf};

use csv::{ByteRecord, ReaderBuilder};

use super::{Column, Input, TraceError, io_error, open};

/// Whether the first line is a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// The first line names the columns.
    Required,
    /// PAI's tables come without one: when the first line does not start with `first`, the
    /// columns are `names` in this order.
    Optional {
        first: &'static str,
        names: &'static [&'static str],
    },
}

/// Whether the header name `name` is close enough to the column `wanted` to be a typo of it:
/// a few edits apart, ignoring case, or one inside the other.
fn is_close(name: &str, wanted: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let near = strsim::levenshtein(&name, wanted) <= wanted.len().div_ceil(4).max(1);
    let inside = name.len() >= 3 && (name.contains(wanted) || wanted.contains(name.as_str()));
    name.len() <= 64 && (near || inside)
}

/// A delimited file being read.
pub struct Table {
    path: PathBuf,
    reader: csv::Reader<Input>,
    header: Vec<String>,
    record: ByteRecord,
    /// The first row when the file had no header line (PAI), to return first.
    pending: Option<ByteRecord>,
}

/// One row: its values by column number, with the line it starts on.
pub struct Row<'a> {
    pub path: &'a Path,
    pub line: u64,
    record: &'a ByteRecord,
    header: &'a [String],
}

impl Table {
    /// Opens `path`, a file of `delimiter`-separated values (`quoting`: `"` quotes values).
    pub fn open(
        path: &Path,
        delimiter: u8,
        quoting: bool,
        header: Header,
    ) -> Result<Self, TraceError> {
        let input = open(path, true)?;
        let reader = ReaderBuilder::new()
            .delimiter(delimiter)
            .quoting(quoting)
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(1 << 18)
            .from_reader(input);
        let mut table = Table {
            path: path.to_path_buf(),
            reader,
            header: Vec::new(),
            record: ByteRecord::new(),
            pending: None,
        };
        let mut first = ByteRecord::new();
        let has_first = table.read_into(&mut first)?;
        if !has_first {
            return Err(TraceError::file(
                path,
                "is empty: a trace starts with a header line naming its columns",
            ));
        }
        let names: Vec<String> = first
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let field = if i == 0 {
                    field.strip_prefix(b"\xef\xbb\xbf").unwrap_or(field)
                } else {
                    field
                };
                String::from_utf8_lossy(field).trim().to_string()
            })
            .collect();
        match header {
            Header::Optional {
                first: name,
                names: fixed,
            } if names.first().map(String::as_str) != Some(name) => {
                table.header = fixed.iter().map(|n| (*n).to_string()).collect();
                table.pending = Some(first);
            }
            _ => table.header = names,
        }
        Ok(table)
    }

    fn read_into(&mut self, record: &mut ByteRecord) -> Result<bool, TraceError> {
        // Blank lines are skipped by the csv reader.
        self.reader
            .read_byte_record(record)
            .map_err(|e| csv_error(&self.path, e))
    }

    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The column named `name` (exactly, else ignoring case), numbered from 0.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name).or_else(|| {
            self.header
                .iter()
                .position(|h| h.eq_ignore_ascii_case(name))
        })
    }

    /// The columns a format needs: an error naming every missing one and the header found.
    pub fn require<const N: usize>(
        &self,
        names: [&str; N],
        hint: &str,
    ) -> Result<[usize; N], TraceError> {
        let found: Vec<Option<usize>> = names.iter().map(|n| self.find(n)).collect();
        let missing: Vec<&str> = names
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(n, _)| *n)
            .collect();
        if !missing.is_empty() {
            return Err(self.missing(&missing, hint));
        }
        Ok(std::array::from_fn(|i| found[i].expect("checked")))
    }

    /// An error: `missing` columns are not in the header. The header is not quoted: the
    /// file may be anything (a link to a file of secrets), so only a name close to a missing
    /// one is shown, as the likely typo.
    pub fn missing(&self, missing: &[&str], hint: &str) -> TraceError {
        let close: Vec<String> = missing
            .iter()
            .filter_map(|wanted| {
                let name = self.header.iter().find(|name| is_close(name, wanted))?;
                Some(format!(
                    "`{}` (for `{wanted}`?)",
                    super::time::shorten(name)
                ))
            })
            .collect();
        let names = self.header.len();
        let seen = match close.is_empty() {
            true => format!(
                "none of the {names} name(s) on its first line is close to one (they are not shown: see them with `head -1`)"
            ),
            false => format!(
                "of the {names} name(s) on its first line, it has {}",
                close.join(", ")
            ),
        };
        TraceError::file(
            &self.path,
            format!(
                "line 1: the header lacks the column{} {}{hint}; {seen}",
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        )
    }

    pub fn column(&self, index: usize) -> Column {
        Column::new(index + 1, &self.header[index])
    }

    /// The next row, or `None` at the end of the file.
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>, TraceError> {
        if let Some(first) = self.pending.take() {
            self.record = first;
        } else {
            let mut record = std::mem::take(&mut self.record);
            let more = self.read_into(&mut record);
            self.record = record;
            if !more? {
                return Ok(None);
            }
        }
        let line = self.record.position().map_or(0, |p| p.line());
        Ok(Some(Row {
            path: &self.path,
            line,
            record: &self.record,
            header: &self.header,
        }))
    }
}

impl Row<'_> {
    /// The value in column `index` (from 0), trimmed; empty when the row is shorter.
    pub fn get(&self, index: usize) -> Result<&str, TraceError> {
        let Some(bytes) = self.record.get(index) else {
            return Ok("");
        };
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.trim()),
            Err(e) => Err(TraceError::value(
                self.path,
                self.line,
                &self.column(index),
                format!(
                    "is not UTF-8 text (an invalid byte after {} bytes): is this a binary file?",
                    e.valid_up_to()
                ),
            )),
        }
    }

    /// The value of an optional column.
    pub fn get_opt(&self, index: Option<usize>) -> Result<&str, TraceError> {
        match index {
            Some(index) => self.get(index),
            None => Ok(""),
        }
    }

    pub fn column(&self, index: usize) -> Column {
        let name = self.header.get(index).map_or("", String::as_str);
        Column::new(index + 1, name)
    }

    /// A problem with the value in column `index`.
    pub fn fail(&self, index: usize, problem: impl Into<String>) -> TraceError {
        TraceError::value(self.path, self.line, &self.column(index), problem)
    }

    /// "line 3, column 2 (`submit_time`)".
    pub fn at(&self, index: usize) -> String {
        let column = self.column(index);
        format!(
            "line {}, column {} (`{}`)",
            self.line, column.number, column.name
        )
    }

    /// A required value: empty is an error.
    pub fn required(&self, index: usize) -> Result<&str, TraceError> {
        let value = self.get(index)?;
        if value.is_empty() {
            let fields = self.record.len();
            let problem = if fields <= index {
                format!(
                    "is missing: the row has {fields} value(s), the header {}",
                    self.header.len()
                )
            } else {
                "is empty; every job needs one".to_string()
            };
            return Err(self.fail(index, problem));
        }
        Ok(value)
    }

    /// A GPU count: a whole number of at least 0.
    pub fn gpu_count(&self, index: usize) -> Result<u32, TraceError> {
        let text = self.required(index)?;
        parse_count(text).ok_or_else(|| {
            self.fail(
                index,
                format!(
                    "must be a whole number of GPUs, got \"{}\"",
                    super::time::shorten(text)
                ),
            )
        })
    }

    /// A number of seconds or hours, at least 0.
    pub fn duration(&self, index: usize, unit: &str) -> Result<f64, TraceError> {
        let text = self.required(index)?;
        let value: f64 = text.parse().map_err(|_| {
            self.fail(
                index,
                format!(
                    "must be a number of {unit}, got \"{}\"",
                    super::time::shorten(text)
                ),
            )
        })?;
        if !value.is_finite() || value < 0.0 {
            return Err(self.fail(
                index,
                format!("must be a duration of at least 0 {unit}, got {text}"),
            ));
        }
        Ok(value)
    }
}

/// A whole number ("8", "8.0"); `None` for anything else.
pub fn parse_count(text: &str) -> Option<u32> {
    if let Ok(n) = text.parse::<u32>() {
        return Some(n);
    }
    let value: f64 = text.parse().ok()?;
    (value.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&value)).then_some(value as u32)
}

fn csv_error(path: &Path, error: csv::Error) -> TraceError {
    let line = error.position().map(|p| p.line());
    match error.into_kind() {
        csv::ErrorKind::Io(io) => io_error(path, io),
        other => TraceError::file(
            path,
            match line {
                Some(line) => format!("line {line}: cannot be read: {other:?}"),
                None => format!("cannot be read: {other:?}"),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_whole_numbers_only() {
        assert_eq!(parse_count("8"), Some(8));
        assert_eq!(parse_count("8.0"), Some(8));
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("2.5"), None);
        assert_eq!(parse_count("-1"), None);
        assert_eq!(parse_count("eight"), None);
        assert_eq!(parse_count("nan"), None);
    }
}
