//! Result files: CSV, `run.json`, `sweep.json`, the manifest and the folder lock, and the
//! staged write that every file of a result folder goes through.
//!
//! Every file of a result folder is written through this module: under a temporary name,
//! renamed into place once complete, so a crash or Ctrl-C leaves whole files or none.

pub mod cells;
pub mod lock;
pub mod manifest;
pub mod optimize;
pub mod run_shard;
pub mod sweep_table;
pub mod tables;

use crate::regular_file;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::records::{FileRecord, GroupSummaryRow, RunInfo, RunOutput};
use crate::scenario::Config;
use manifest::{Fnv1a, Hashing};

pub use lock::{DirLock, LockMode, check_not_locked, lock_dir};
pub use sweep_table::{PointSummary, sweep_rows};
pub use tables::{Table, in_memory, run_tables};

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{}: cannot write", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot write CSV", .path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error(
        "{}: holds results of another scenario (`{other}`); choose another folder with --out, or pass --force to overwrite",
        .dir.display()
    )]
    NotOurs { dir: PathBuf, other: String },
    #[error(
        "{}: holds results of scenario `{name}` with other settings ({differences}); choose another folder with --out, or pass --force to replace them",
        .dir.display()
    )]
    OtherSettings {
        dir: PathBuf,
        name: String,
        differences: String,
    },
    #[error(
        "{}: is not empty and holds no fleetsim results; choose another folder with --out, or pass --force",
        .dir.display()
    )]
    NotEmpty { dir: PathBuf },
    #[error("{}: is a file, not a folder; choose another folder with --out", .dir.display())]
    NotAFolder { dir: PathBuf },
    #[error(
        "{}: is not a regular file (a device, fifo or socket); fleetsim replaces only regular files: choose another path",
        .path.display()
    )]
    NotARegularFile { path: PathBuf },
    #[error(
        "{}: another fleetsim is writing to this folder ({holder}); wait for it to end, or choose another folder with --out",
        .dir.display()
    )]
    Locked { dir: PathBuf, holder: String },
    #[error("{}: cannot read", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a file fleetsim wrote: {message}", .path.display())]
    Unreadable { path: PathBuf, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Makes sure `dir` may receive the results of the scenario `name`, resolved as `scenario`
/// (the file after `--set`, defaults filled in, as `run.json` records it): it is empty, or
/// holds an earlier run of the same resolved scenario (or `force` is set). A different file
/// with the same name, or the same file with other `--set` values, is refused without
/// `force`. It tries a write there, so a folder we cannot write to is reported now, not after
/// the simulation. Temporary files left by an interrupted earlier write are removed. Returns
/// the names the previous run's manifest lists (files and charts), for [`remove_stale`].
///
/// The caller holds the folder ([`lock_dir`], which creates it).
pub fn prepare_dir(
    dir: &Path,
    name: &str,
    scenario: &serde_json::Value,
    force: bool,
) -> Result<Vec<String>, OutputError> {
    fs::create_dir_all(dir).map_err(io(dir))?;
    let has_files = fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .any(|e| !lock::is_lock_file(&e.file_name().to_string_lossy()));
    let previous: Option<serde_json::Value> =
        regular_file::read_to_string(&dir.join("run.json"), regular_file::JSON_BYTES_MAX)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
    let listed = previous.as_ref().map(previous_manifest).unwrap_or_default();
    if has_files && !force {
        let previous_name = previous
            .as_ref()
            .and_then(|v| v.get("scenario_name").and_then(|n| n.as_str()));
        match previous_name {
            Some(other) if other != name => {
                return Err(OutputError::NotOurs {
                    dir: dir.to_path_buf(),
                    other: other.to_string(),
                });
            }
            Some(_) => {
                let before = previous
                    .as_ref()
                    .and_then(|v| v.get("scenario"))
                    .unwrap_or(&serde_json::Value::Null);
                if before != scenario {
                    return Err(OutputError::OtherSettings {
                        dir: dir.to_path_buf(),
                        name: name.to_string(),
                        differences: differences(before, scenario),
                    });
                }
            }
            None => {
                return Err(OutputError::NotEmpty {
                    dir: dir.to_path_buf(),
                });
            }
        }
    }
    remove_partials(dir);
    let probe = dir.join(".fleetsim-write-test.partial");
    fs::write(&probe, b"").map_err(io(dir))?;
    fs::remove_file(&probe).map_err(io(&probe))?;
    Ok(listed)
}

/// The names a `run.json` lists as written: `files` (entries with a `name`, or plain names as
/// earlier versions wrote them) and `charts`.
fn previous_manifest(run_json: &serde_json::Value) -> Vec<String> {
    let names = |key: &str| -> Vec<String> {
        run_json
            .get(key)
            .and_then(|v| v.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| match item {
                        serde_json::Value::String(name) => Some(name.clone()),
                        other => other.get("name")?.as_str().map(String::from),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut listed = names("files");
    listed.extend(names("charts"));
    listed
}

/// The fields in which two resolved scenarios differ, as `--set` paths (`pool.dgx.nodes`),
/// the first few.
fn differences(before: &serde_json::Value, now: &serde_json::Value) -> String {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        let join = |key: &str| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        match (a, b) {
            _ if a == b => {}
            (Value::Object(a), Value::Object(b)) => {
                let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    let null = Value::Null;
                    walk(
                        &join(key),
                        a.get(key).unwrap_or(&null),
                        b.get(key).unwrap_or(&null),
                        out,
                    );
                }
            }
            // Arrays of named tables (pools, workloads, strategies): by name, as --set does.
            (Value::Array(a), Value::Array(b))
                if a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.get("name").is_some() && x.get("name") == y.get("name")
                    }) =>
            {
                for (x, y) in a.iter().zip(b) {
                    let name = x["name"].as_str().unwrap_or_default();
                    walk(&join(name), x, y, out);
                }
            }
            _ => out.push(if path.is_empty() {
                "the whole scenario".to_string()
            } else {
                path.to_string()
            }),
        }
    }
    let mut fields = Vec::new();
    walk("", before, now, &mut fields);
    let shown: Vec<String> = fields.iter().take(4).map(|f| format!("`{f}`")).collect();
    match fields.len() {
        0 => "its run.json differs".to_string(),
        n if n > 4 => format!("{} and {} more differ", shown.join(", "), n - 4),
        1 => format!("{} differs", shown[0]),
        _ => format!("{} differ", shown.join(", ")),
    }
}

/// Removes `*.partial` files (writes that never completed) from `dir`, as far as possible.
fn remove_partials(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "partial") && path.is_file() {
            let _ = fs::remove_file(path);
        }
    }
}

/// Removes the files of an earlier run in `dir` that this run did not write (`jobs.csv`
/// after a run without `--trace`; the charts after `--no-charts`), so that every result file
/// in the folder belongs to the same run. Only files the previous run's manifest lists
/// (`previous`, from [`prepare_dir`]) are touched: a file of the user's stays, whatever its
/// name. Called right after the new files are in place, before charts are drawn.
pub fn remove_stale(dir: &Path, previous: &[String], now: &[String]) -> Result<(), OutputError> {
    for name in previous {
        let path = dir.join(name);
        if manifest::is_plain_name(name) && !now.contains(name) && path.is_file() {
            remove(&path)?;
        }
    }
    Ok(())
}

/// A file being written: `name.partial` until [`Pending::commit`] renames it.
pub struct Pending {
    partial: PathBuf,
    path: PathBuf,
    /// What was written, for the manifest.
    record: FileRecord,
}

impl Pending {
    /// The file's manifest entry: name, rows, size and hash.
    pub fn record(&self) -> &FileRecord {
        &self.record
    }

    /// Renames the file into place; if that fails, its temporary is removed.
    pub fn commit(self) -> Result<PathBuf, OutputError> {
        if let Err(error) = fs::rename(&self.partial, &self.path) {
            let _ = fs::remove_file(&self.partial);
            return Err(io(&self.path)(error));
        }
        Ok(self.path)
    }

    /// Gives up on the file: its temporary is removed.
    pub fn discard(self) {
        let _ = fs::remove_file(&self.partial);
    }
}

/// Files written under temporary names that go into place together: [`Staged::commit_all`]
/// renames them in order; if a rename fails, or the set is dropped before (an error while
/// writing the rest), the temporaries not yet renamed are removed, so no `.partial` is left.
#[derive(Default)]
pub struct Staged {
    files: Vec<Pending>,
}

impl Staged {
    pub fn push(&mut self, file: Pending) {
        self.files.push(file);
    }

    /// The manifest entries of the files, in order.
    pub fn records(&self) -> impl Iterator<Item = &FileRecord> {
        self.files.iter().map(|f| &f.record)
    }

    pub fn commit_all(mut self) -> Result<Vec<PathBuf>, OutputError> {
        let mut written = Vec::with_capacity(self.files.len());
        let mut files = std::mem::take(&mut self.files).into_iter();
        while let Some(file) = files.next() {
            match file.commit() {
                Ok(path) => written.push(path),
                Err(error) => {
                    files.for_each(Pending::discard);
                    return Err(error);
                }
            }
        }
        Ok(written)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        self.files.drain(..).for_each(Pending::discard);
    }
}

/// Creates the temporary file of `path`, refusing a `path` that exists as something other than
/// a regular file or a link (committing would put a file in place of a device node). A
/// `.partial` left or planted there is removed first, not opened: a link planted under that
/// name cannot redirect the write.
fn create_partial(path: &Path, partial: &Path) -> Result<fs::File, OutputError> {
    #[cfg(test)]
    if tests::FULL_DISK.with(std::cell::Cell::get) {
        // The unit tests' full disk: what a write to a full file system gets.
        return fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .map_err(io(path));
    }
    if let Ok(meta) = fs::symlink_metadata(path) {
        let kind = meta.file_type();
        if !(kind.is_file() || kind.is_symlink() || kind.is_dir()) {
            return Err(OutputError::NotARegularFile {
                path: path.to_path_buf(),
            });
        }
    }
    match fs::remove_file(partial) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(io(path)(error)),
    }
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(partial)
        .map_err(io(path))
}

fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("a file name").to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Which rows of a file say the currency of their money, in a last column `currency` (one
/// way for every file with money).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Money<'a> {
    /// No money in the file: no `currency` column.
    None,
    /// Every row has money columns: the currency on every row.
    Every(&'a str),
    /// A long file (a `metric` column): the currency on the rows of money metrics (see
    /// [`crate::records::is_money`]), empty on the others.
    Metric(&'a str),
}

impl Money<'_> {
    pub(crate) fn cell(self, metric: Option<&str>) -> Option<Cell> {
        match self {
            Money::None => None,
            Money::Every(currency) => Some(Cell::Text(currency.to_string())),
            Money::Metric(currency) => Some(if metric.is_some_and(crate::records::is_money) {
                Cell::Text(currency.to_string())
            } else {
                Cell::Empty
            }),
        }
    }
}

/// Writes rows as CSV to `dir/name` (under a temporary name until committed); the header
/// comes from the rows' field names, then `currency` as `money` says.
pub fn write_csv<T: Serialize>(
    dir: &Path,
    name: &str,
    rows: &[T],
    money: Money<'_>,
) -> Result<Pending, OutputError> {
    write_file(dir, Table::of_rows(name, rows).with_money(money))
}

/// Writes a table to `dir/<its name>` (under a temporary name until committed), hashed on the
/// way for the manifest. An error names the file and removes the temporary.
pub fn write_file(dir: &Path, table: Table<'_>) -> Result<Pending, OutputError> {
    let path = dir.join(&table.name);
    let partial = partial_path(&path);
    let name = table.name.clone();
    let file = create_partial(&path, &partial)?;
    let mut hashing = Hashing::new(file);
    let written = match table.write_to(&mut hashing) {
        Ok(rows) => hashing.inner.sync_all().map(|()| rows).map_err(io(&path)),
        Err(source) => Err(OutputError::Csv {
            path: path.clone(),
            source,
        }),
    };
    match written {
        Ok(rows) => Ok(Pending {
            record: hashing.record(&name, rows),
            partial,
            path,
        }),
        Err(error) => {
            let _ = fs::remove_file(&partial);
            Err(error)
        }
    }
}

/// Writes bytes to `dir/name` (under a temporary name until committed).
pub fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Result<Pending, OutputError> {
    let path = dir.join(name);
    let partial = partial_path(&path);
    let file = create_partial(&path, &partial)?;
    let record = FileRecord {
        name: name.to_string(),
        rows: 0,
        bytes: bytes.len() as u64,
        fnv1a: Fnv1a::of(bytes),
    };
    let pending = Pending {
        partial,
        path,
        record,
    };
    match write_all(file, &pending.path, bytes) {
        Ok(()) => Ok(pending),
        Err(error) => {
            pending.discard();
            Err(error)
        }
    }
}

/// One field of a CSV row whose columns are known only at run time (`sweep.csv`). Numbers are
/// written exactly as in the other CSV files (shortest form that reads back to the same value).
/// An undefined number (NaN, infinite) is written as an empty cell, never as `NaN`.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Integer(i64),
    Count(u64),
    Number(f64),
    Bool(bool),
    /// No value: an undefined number, or a null.
    Empty,
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Text(text) => serializer.serialize_str(text),
            Cell::Integer(n) => serializer.serialize_i64(*n),
            Cell::Count(n) => serializer.serialize_u64(*n),
            Cell::Number(x) if x.is_finite() => serializer.serialize_f64(*x),
            Cell::Number(_) | Cell::Empty => serializer.serialize_str(""),
            Cell::Bool(b) => serializer.serialize_bool(*b),
        }
    }
}

/// Writes a header and rows of cells as CSV to `dir/name` (under a temporary name until
/// committed).
pub fn write_table(
    dir: &Path,
    name: &str,
    header: &[String],
    rows: &[Vec<Cell>],
) -> Result<Pending, OutputError> {
    write_file(dir, Table::of_cells(name, header.to_vec(), rows))
}

/// Writes `workloads.csv` or `teams.csv`: the rows' `group` column is named `column`.
pub fn write_groups(
    dir: &Path,
    name: &str,
    column: &str,
    rows: &[GroupSummaryRow],
    currency: &str,
) -> Result<Pending, OutputError> {
    write_file(
        dir,
        Table::of_groups(name, column, rows).with_money(Money::Metric(currency)),
    )
}

/// Writes a value as pretty JSON to `dir/name` (under a temporary name until committed).
pub fn write_json<T: Serialize>(dir: &Path, name: &str, value: &T) -> Result<Pending, OutputError> {
    let json = serde_json::to_vec_pretty(value).expect("records serialize");
    write_bytes(dir, name, &json)
}

/// Copies the file `from` to `dir/<its name>` (under a temporary name until committed). A
/// source that cannot be read is named as such; a failed write (a full disk) names the
/// destination and leaves no temporary.
pub fn copy_file(from: &Path, dir: &Path) -> Result<Pending, OutputError> {
    let name = from
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    let path = dir.join(&name);
    let partial = partial_path(&path);
    let mut source = regular_file::open(from).map_err(|source| OutputError::Read {
        path: from.to_path_buf(),
        source,
    })?;
    let file = create_partial(&path, &partial)?;
    let mut hashing = Hashing::new(file);
    let copied = std::io::copy(&mut source, &mut hashing).and_then(|_| hashing.inner.sync_all());
    if let Err(error) = copied {
        let _ = fs::remove_file(&partial);
        return Err(io(&path)(error));
    }
    Ok(Pending {
        record: hashing.record(&name, 0),
        partial,
        path,
    })
}

/// Creates a folder and its parents.
pub fn create_dir(dir: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(dir).map_err(io(dir))
}

/// Removes a file or a folder with everything in it, if it exists (`--force`).
pub fn remove(path: &Path) -> Result<(), OutputError> {
    let result = if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    match result {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(OutputError::Io {
            path: path.to_path_buf(),
            source: error,
        }),
        _ => Ok(()),
    }
}

/// Reads the rows of a CSV file fleetsim wrote, by column name: an empty cell reads as NaN
/// into a number, as `None` into an option.
pub fn read_csv<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, OutputError> {
    let unreadable = |error: csv::Error| match error.kind() {
        csv::ErrorKind::Io(_) => match error.into_kind() {
            csv::ErrorKind::Io(source) => OutputError::Read {
                path: path.to_path_buf(),
                source,
            },
            _ => unreachable!("checked to be an I/O error"),
        },
        _ => OutputError::Unreadable {
            path: path.to_path_buf(),
            message: error.to_string(),
        },
    };
    let file =
        regular_file::open_at_most(path, regular_file::TABLE_BYTES_MAX).map_err(|source| {
            OutputError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let mut reader = csv::Reader::from_reader(file);
    let header = reader.headers().map_err(unreadable)?.clone();
    let mut rows = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(unreadable)?;
        // Line 1 is the header.
        let row =
            cells::from_record(&header, &record).map_err(|error| OutputError::Unreadable {
                path: path.to_path_buf(),
                message: format!("line {}: {error}", line + 2),
            })?;
        rows.push(row);
    }
    Ok(rows)
}

/// Reads a JSON file fleetsim wrote; `Ok(None)` when there is none.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, OutputError> {
    let bytes = match regular_file::read(path, regular_file::JSON_BYTES_MAX) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(OutputError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|error| OutputError::Unreadable {
            path: path.to_path_buf(),
            message: error.to_string(),
        })
}

fn write_all(mut file: fs::File, path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    file.write_all(bytes).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}

/// Writes all result files of a run, then renames them into place together. If one cannot be
/// written (disk full, permissions), the temporaries are removed and earlier results stay.
pub fn write_results(
    dir: &Path,
    config: &Config,
    output: &RunOutput,
    info: &RunInfo,
    trace: bool,
) -> Result<Vec<PathBuf>, OutputError> {
    let mut staged = Staged::default();
    write_pending(dir, config, output, info, trace, &mut staged)?;
    // run.json is renamed last: a folder whose run.json lists a file holds all of them.
    staged.commit_all()
}

fn write_pending(
    dir: &Path,
    config: &Config,
    output: &RunOutput,
    info: &RunInfo,
    trace: bool,
    pending: &mut Staged,
) -> Result<(), OutputError> {
    for table in run_tables(output, &info.currency, trace) {
        pending.push(write_file(dir, table)?);
    }
    if let Some(units) = &output.focus {
        // FOCUS names its own currency column (BillingCurrency).
        pending.push(write_file(dir, Table::of_focus(config, units))?);
    }
    let json = tables::run_json(info, pending.records().cloned().collect());
    pending.push(write_bytes(dir, "run.json", &json)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Set by a test on its own thread: temporary files are opened on /dev/full, which
        /// accepts the open and fails every write with "no space left on device". (A
        /// `.partial` linked to it no longer works: a planted `.partial` is removed, not
        /// followed.)
        pub(super) static FULL_DISK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Makes this thread's writes meet a full disk, if the machine has /dev/full.
    #[cfg(unix)]
    fn full_disk_for(_dir: &Path, _name: &str) -> bool {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").is_ok();
        FULL_DISK.with(|flag| flag.set(full));
        full
    }

    #[cfg(unix)]
    #[test]
    fn a_full_disk_is_reported_with_the_path() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        if !full_disk_for(dir, "summary.csv") {
            return; // Not on Linux.
        }
        let rows: Vec<(u32, f64)> = (0..10_000).map(|i| (i, f64::from(i) / 3.0)).collect();
        let error = write_csv(dir, "summary.csv", &rows, Money::None)
            .err()
            .unwrap();
        let path = dir.join("summary.csv").display().to_string();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{path}: cannot write")),
            "{error}"
        );
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert!(
            cause
                .as_deref()
                .is_some_and(|c| c.contains("No space left on device")),
            "{cause:?}"
        );
        assert!(!dir.join("summary.csv.partial").exists());
        assert!(full_disk_for(dir, "run.json"));
        let error = write_bytes(dir, "run.json", &[b'x'; 100_000])
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("run.json: cannot write"),
            "{error}"
        );
    }

    /// Merge's copy on a full disk named the source and left a `.partial`.
    #[cfg(unix)]
    #[test]
    fn a_copy_on_a_full_disk_names_the_destination_and_leaves_nothing() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        fs::create_dir_all(dir.join("to")).unwrap();
        let from = dir.join("monthly.csv");
        fs::write(&from, vec![b'1'; 200_000]).unwrap();
        if !full_disk_for(&dir.join("to"), "monthly.csv") {
            return;
        }
        let error = copy_file(&from, &dir.join("to")).err().unwrap();
        let destination = dir.join("to/monthly.csv").display().to_string();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{destination}: cannot write")),
            "{error}"
        );
        assert!(!dir.join("to/monthly.csv.partial").exists());
        // A source that cannot be read is named as the source.
        let error = copy_file(&dir.join("none.csv"), &dir.join("to"))
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("none.csv: cannot read"),
            "{error}"
        );
        assert_eq!(fs::read_dir(dir.join("to")).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let pending = write_bytes(dir, "a.txt", b"a").unwrap();
        assert!(dir.join("a.txt.partial").exists());
        pending.discard();
        assert!(!dir.join("a.txt.partial").exists());
        // A temporary left by an interrupted earlier run is removed when the folder is reused.
        fs::write(dir.join("summary.csv.partial"), "half").unwrap();
        prepare_dir(dir, "a", &serde_json::Value::Null, true).unwrap();
        assert!(!dir.join("summary.csv.partial").exists());
        let committed = write_bytes(dir, "b.txt", b"b").unwrap().commit().unwrap();
        assert_eq!(fs::read(committed).unwrap(), b"b");
    }

    #[test]
    fn staged_files_go_into_place_together_or_leave_no_temporary() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let partials = |dir: &Path| {
            fs::read_dir(dir)
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
                .count()
        };
        // Dropped before committing (an error while writing the rest): nothing stays.
        {
            let mut staged = Staged::default();
            staged.push(write_bytes(dir, "a.txt", b"a").unwrap());
            staged.push(write_bytes(dir, "b.txt", b"b").unwrap());
            assert_eq!(partials(dir), 2);
        }
        assert_eq!(partials(dir), 0);
        assert!(!dir.join("a.txt").exists());
        // A rename that fails (a non-empty folder in the way) stops there; the later files'
        // temporaries are removed, the earlier ones are in place.
        fs::create_dir_all(dir.join("b.txt").join("in-the-way")).unwrap();
        let mut staged = Staged::default();
        for name in ["a.txt", "b.txt", "c.txt"] {
            staged.push(write_bytes(dir, name, name.as_bytes()).unwrap());
        }
        assert!(staged.commit_all().is_err());
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"a.txt");
        assert!(!dir.join("c.txt").exists());
        assert_eq!(partials(dir), 0);
    }

    #[test]
    fn tables_read_back_to_the_same_numbers() {
        let scratch = tempfile::tempdir().unwrap();
        // A folder that does not exist yet: the code under test makes it.
        let dir = scratch.path().join("out");
        create_dir(&dir).unwrap();
        let header = ["a.b".to_string(), "x".to_string(), "n".to_string()];
        let rows = vec![
            vec![
                Cell::Text("p,q".into()),
                Cell::Number(0.1 + 0.2),
                Cell::Count(3),
            ],
            vec![Cell::Integer(-4), Cell::Number(f64::NAN), Cell::Bool(true)],
        ];
        write_table(&dir, "t.csv", &header, &rows)
            .unwrap()
            .commit()
            .unwrap();
        let text = fs::read_to_string(dir.join("t.csv")).unwrap();
        assert_eq!(text, "a.b,x,n\n\"p,q\",0.30000000000000004,3\n-4,,true\n");
        #[derive(serde::Deserialize)]
        struct Row {
            x: f64,
        }
        let back: Vec<Row> = read_csv(&dir.join("t.csv")).unwrap();
        assert_eq!(back[0].x, 0.1 + 0.2);
        assert!(back[1].x.is_nan());
        assert!(
            read_json::<serde_json::Value>(&dir.join("none.json"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_folder_of_another_scenario_is_not_overwritten() {
        let scratch = tempfile::tempdir().unwrap();
        // A folder that does not exist yet: the code under test makes it.
        let dir = scratch.path().join("out");
        let scenario = serde_json::json!({"name": "a", "pool": [{"name": "dgx", "nodes": 2}]});
        assert!(prepare_dir(&dir, "a", &scenario, false).unwrap().is_empty());
        fs::write(
            dir.join("run.json"),
            serde_json::json!({"scenario_name": "a", "scenario": scenario, "files": [{"name": "jobs.csv"}, "old.csv"], "charts": ["x.png"]}).to_string(),
        )
        .unwrap();
        assert_eq!(
            prepare_dir(&dir, "a", &scenario, false).unwrap(),
            ["jobs.csv", "old.csv", "x.png"]
        );
        assert!(matches!(
            prepare_dir(&dir, "b", &scenario, false),
            Err(OutputError::NotOurs { .. })
        ));
        // The same name with other content (another file, other --set values).
        let other = serde_json::json!({"name": "a", "pool": [{"name": "dgx", "nodes": 3}]});
        let error = prepare_dir(&dir, "a", &other, false).unwrap_err();
        assert!(
            error.to_string().contains(
                "holds results of scenario `a` with other settings (`pool.dgx.nodes` differs)"
            ),
            "{error}"
        );
        prepare_dir(&dir, "a", &other, true).unwrap();
        prepare_dir(&dir, "b", &scenario, true).unwrap();
        fs::remove_file(dir.join("run.json")).unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(matches!(
            prepare_dir(&dir, "a", &scenario, false),
            Err(OutputError::NotEmpty { .. })
        ));
    }

    /// Only what the previous manifest lists is removed: a file the folder's owner put there
    /// stays.
    #[test]
    fn stale_files_are_only_those_of_the_manifest() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        for name in ["jobs.csv", "summary.csv", "mine.csv"] {
            fs::write(dir.join(name), "x").unwrap();
        }
        let previous = [
            "jobs.csv".to_string(),
            "summary.csv".into(),
            "../escape".into(),
        ];
        remove_stale(dir, &previous, &["summary.csv".to_string()]).unwrap();
        assert!(!dir.join("jobs.csv").exists());
        assert!(dir.join("summary.csv").exists());
        assert!(dir.join("mine.csv").exists());
    }
}
