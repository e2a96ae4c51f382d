//! The folder of `fleetsim optimize`: `optimize.json` (the question), the journal of
//! evaluations that makes `--resume` possible, and the answer's files.
//!
//! The journal `evaluations.csv` gets a line per replication as soon as it is simulated,
//! each ending in a hash of the line: a line cut by a crash, or damaged later, fails its hash
//! and is simulated again, never trusted. When the optimisation ends the journal is written
//! again sorted, so the folder's bytes do not depend on the threads' order.

use crate::regular_file;
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use super::manifest::Fnv1a;
use super::{Cell, OutputError, Staged, io, read_json, write_json, write_table};
use crate::records::OptimizeInfo;

pub const INFO_FILE: &str = "optimize.json";
pub const JOURNAL_FILE: &str = "evaluations.csv";
pub const TABLE_FILE: &str = "optimize.csv";
pub const RECOMMENDATION_FILE: &str = "recommendation.json";
/// The chosen candidate's full run folder.
pub const BEST_DIR: &str = "best";

/// The first fields of a journal line: strategy, point, replication.
const KEY_FIELDS: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(
        "{}: holds another optimisation ({what}); choose another folder with --out, or pass --force to replace it",
        .dir.display()
    )]
    Other { dir: PathBuf, what: String },
    #[error(
        "{}: holds this optimisation already; pass --resume to go on from (or reuse) what it simulated, or --force to start over",
        .dir.display()
    )]
    Same { dir: PathBuf },
    #[error(
        "{}: is not empty and holds no optimisation; choose another folder with --out, or pass --force",
        .dir.display()
    )]
    NotEmpty { dir: PathBuf },
}

/// The journal, open for appending.
pub struct Journal {
    path: PathBuf,
    file: Mutex<fs::File>,
    header: Vec<String>,
    /// The question's `optimize_id`, in every line's hash.
    question: String,
}

/// What an earlier run of the same question left.
#[derive(Debug, Default)]
pub struct Earlier {
    /// Metric values by key (strategy, point, replication, tab-separated).
    pub evaluations: HashMap<String, Vec<f64>>,
    /// Lines that failed their hash or did not parse: simulated again.
    pub damaged: usize,
}

/// Makes `dir` ready for the optimisation `info`, whose journal has the metric columns
/// `metrics`: a new or empty folder, the same question with `resume` (its journal is read),
/// or anything with `force` (cleared). The caller holds the folder's lock.
pub fn open(
    dir: &Path,
    info: &OptimizeInfo,
    metrics: &[String],
    resume: bool,
    force: bool,
) -> Result<(Journal, Earlier), FolderError> {
    fs::create_dir_all(dir).map_err(io(dir))?;
    let existing: Option<OptimizeInfo> =
        read_json(&dir.join(INFO_FILE)).or_else(|e| if force { Ok(None) } else { Err(e) })?;
    let entries = listing(dir)?;
    let mut earlier = Earlier::default();
    let header = journal_header(metrics);
    match existing {
        Some(old) if old.optimize_id == info.optimize_id && resume => {
            earlier = read_journal(&dir.join(JOURNAL_FILE), &header, &info.optimize_id)?;
        }
        Some(_) if force => clear(&entries)?,
        None if force => clear(&entries)?,
        Some(old) if old.optimize_id == info.optimize_id => {
            return Err(FolderError::Same {
                dir: dir.to_path_buf(),
            });
        }
        Some(old) => {
            return Err(FolderError::Other {
                dir: dir.to_path_buf(),
                what: format!("of `{}`, id {}", old.scenario_name, old.optimize_id),
            });
        }
        None if !entries.is_empty() => {
            return Err(FolderError::NotEmpty {
                dir: dir.to_path_buf(),
            });
        }
        None => {}
    }
    let mut staged = Staged::default();
    staged.push(write_json(dir, INFO_FILE, info)?);
    staged.commit_all()?;
    let journal = Journal::start(&dir.join(JOURNAL_FILE), header, &info.optimize_id, &earlier)?;
    Ok((journal, earlier))
}

/// The folder's entries other than its lock.
fn listing(dir: &Path) -> Result<Vec<PathBuf>, OutputError> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !super::lock::is_lock_file(&name) {
            entries.push(entry.path());
        }
    }
    entries.sort();
    Ok(entries)
}

/// Removes what an optimisation writes (nothing else: `--out . --force` must not empty the
/// working folder).
fn clear(entries: &[PathBuf]) -> Result<(), OutputError> {
    let ours = |name: &str| {
        [INFO_FILE, JOURNAL_FILE, TABLE_FILE, RECOMMENDATION_FILE].contains(&name)
            || (name.starts_with("optimize_") && (name.ends_with(".png") || name.ends_with(".svg")))
            || name.ends_with(".partial")
    };
    // `best/` only when it is a run folder.
    let ours_path = |path: &&PathBuf| {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        match name.as_deref() {
            Some(BEST_DIR) => path.join("run.json").is_file(),
            Some(name) => ours(name),
            None => false,
        }
    };
    entries
        .iter()
        .filter(ours_path)
        .try_for_each(|path| super::remove(path))
}

fn journal_header(metrics: &[String]) -> Vec<String> {
    let mut header: Vec<String> = ["strategy", "point", "replication"]
        .map(String::from)
        .into();
    header.extend(metrics.iter().cloned());
    header.push("check".into());
    header
}

/// The hash that ends a journal line: of the question (its `optimize_id`) and the fields
/// before it, so a line of another question (another seed, scenario or space, its journal
/// copied in) fails it and is simulated again instead of trusted.
fn check(question: &str, fields: &[String]) -> String {
    let mut text = String::from(question);
    for field in fields {
        text.push('\u{1f}');
        text.push_str(field);
    }
    Fnv1a::of(text.as_bytes())
}

fn line(fields: &[String]) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new().from_writer(Vec::new());
    writer.write_record(fields).expect("writing to memory");
    writer.into_inner().expect("writing to memory")
}

/// Reads a journal: lines whose hash or shape is wrong are counted, not trusted.
fn read_journal(path: &Path, header: &[String], question: &str) -> Result<Earlier, OutputError> {
    let mut earlier = Earlier::default();
    let file = match regular_file::open_at_most(path, regular_file::TABLE_BYTES_MAX) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(earlier),
        Err(source) => {
            return Err(OutputError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let mut lines = BufReader::new(file).split(b'\n');
    let first = lines
        .next()
        .transpose()
        .map_err(|source| OutputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if first.as_deref().map(parse_line) != Some(Some(header.to_vec())) {
        // Another shape of journal: nothing in it can be trusted.
        earlier.damaged = usize::from(first.is_some());
        return Ok(earlier);
    }
    for bytes in lines {
        let Ok(bytes) = bytes else {
            earlier.damaged += 1;
            continue;
        };
        match parse_line(&bytes).and_then(|fields| entry(&fields, header.len(), question)) {
            Some((key, values)) => {
                earlier.evaluations.insert(key, values);
            }
            None => earlier.damaged += 1,
        }
    }
    Ok(earlier)
}

fn parse_line(bytes: &[u8]) -> Option<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes);
    let record = reader.records().next()?.ok()?;
    Some(record.iter().map(String::from).collect())
}

/// A journal line's key and values, if its hash holds.
fn entry(fields: &[String], columns: usize, question: &str) -> Option<(String, Vec<f64>)> {
    if fields.len() != columns {
        return None;
    }
    let (body, hash) = fields.split_at(columns - 1);
    if check(question, body) != hash[0] {
        return None;
    }
    let values: Option<Vec<f64>> = body[KEY_FIELDS..]
        .iter()
        .map(|v| v.parse::<f64>().ok())
        .collect();
    Some((body[..KEY_FIELDS].join("\t"), values?))
}

impl Journal {
    /// Starts the journal afresh with the trusted evaluations of `earlier` (dropping damaged
    /// lines), then appends.
    fn start(
        path: &Path,
        header: Vec<String>,
        question: &str,
        earlier: &Earlier,
    ) -> Result<Self, OutputError> {
        let mut bytes = line(&header);
        for (key, values) in sorted(&earlier.evaluations) {
            bytes.extend(line(&fields(question, key, values)));
        }
        let dir = path.parent().expect("a folder");
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let mut staged = Staged::default();
        staged.push(super::write_bytes(dir, &name, &bytes)?);
        staged.commit_all()?;
        let file = fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            header,
            question: question.to_string(),
        })
    }

    /// Appends one evaluation (called from the worker threads).
    pub fn record(&self, key: &str, values: &[f64]) -> Result<(), String> {
        let bytes = line(&fields(&self.question, key, values));
        let mut file = self.file.lock().expect("not poisoned");
        file.write_all(&bytes)
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// Writes the journal again, every evaluation sorted by key, under a temporary name.
    pub fn sorted(
        &self,
        evaluations: &HashMap<String, Vec<f64>>,
    ) -> Result<super::Pending, OutputError> {
        let mut bytes = line(&self.header);
        for (key, values) in sorted(evaluations) {
            bytes.extend(line(&fields(&self.question, key, values)));
        }
        let dir = self.path.parent().expect("a folder");
        super::write_bytes(dir, JOURNAL_FILE, &bytes)
    }
}

/// A journal line's fields: the key's three parts, the values, the hash.
fn fields(question: &str, key: &str, values: &[f64]) -> Vec<String> {
    let mut fields: Vec<String> = key.split('\t').map(String::from).collect();
    fields.extend(values.iter().map(|v| v.to_string()));
    let hash = check(question, &fields);
    fields.push(hash);
    fields
}

/// Entries by strategy, point, then replication as a number.
fn sorted(evaluations: &HashMap<String, Vec<f64>>) -> Vec<(&String, &Vec<f64>)> {
    let mut entries: Vec<(&String, &Vec<f64>)> = evaluations.iter().collect();
    let order = |key: &str| {
        let mut parts = key.splitn(3, '\t');
        let strategy = parts.next().unwrap_or("").to_string();
        let point = parts.next().unwrap_or("").to_string();
        let replication: u64 = parts
            .next()
            .and_then(|r| r.parse().ok())
            .unwrap_or(u64::MAX);
        (strategy, point, replication)
    };
    entries.sort_by_key(|(key, _)| order(key));
    entries
}

/// Writes `optimize.csv`, `recommendation.json` and the sorted journal, renamed into place
/// together (`recommendation.json` last: a folder with one holds the others).
pub fn write_answer<T: Serialize>(
    dir: &Path,
    header: &[String],
    rows: &[Vec<Cell>],
    recommendation: &T,
    journal: &Journal,
    evaluations: &HashMap<String, Vec<f64>>,
) -> Result<Vec<PathBuf>, OutputError> {
    let mut staged = Staged::default();
    staged.push(write_table(dir, TABLE_FILE, header, rows)?);
    staged.push(journal.sorted(evaluations)?);
    staged.push(write_json(dir, RECOMMENDATION_FILE, recommendation)?);
    staged.commit_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::metric;

    #[test]
    fn a_journal_line_reads_back_and_a_damaged_one_does_not() {
        let header = journal_header(&[metric::TOTAL_COST.into(), metric::WAIT_P95_H.into()]);
        let good = fields("q1", "hybrid\tpool.dgx.nodes=4\t7", &[1234.5, f64::NAN]);
        let (key, values) = entry(&good, header.len(), "q1").unwrap();
        assert_eq!(key, "hybrid\tpool.dgx.nodes=4\t7");
        assert_eq!(values[0], 1234.5);
        assert!(values[1].is_nan());
        let mut bad = good.clone();
        bad[3] = "1234.6".into();
        assert_eq!(entry(&bad, header.len(), "q1"), None);
        let cut = parse_line(&line(&good)[..20]).unwrap();
        assert_eq!(entry(&cut, header.len(), "q1"), None);
        // The same line under another question (another seed, say) is not trusted.
        assert_eq!(entry(&good, header.len(), "q2"), None);
    }
}
