//! Result files and what the terminal shows: CSV, `run.json`, charts, the summary table,
//! progress.
//!
//! Only this module writes files. Every file is written under a temporary name and renamed
//! into place once complete, so a crash or Ctrl-C leaves whole files or none.

pub mod charts;
mod summary_table;
mod sweep_table;

use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::records::{GroupSummaryRow, RunInfo, RunOutput, ServicePeriodRow};

pub use summary_table::summary_table;
pub use sweep_table::{PointSummary, best_points, sweep_rows};

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
        "{}: is not empty and holds no fleetsim results; choose another folder with --out, or pass --force",
        .dir.display()
    )]
    NotEmpty { dir: PathBuf },
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

/// Makes sure `dir` may receive the results of `scenario`: it is new, empty, or holds an
/// earlier run of the same scenario (or `force` is set). It creates the folder and tries a
/// write there, so a folder we cannot write to is reported now, not after the simulation.
/// Temporary files left by an interrupted earlier write are removed.
pub fn prepare_dir(dir: &Path, scenario: &str, force: bool) -> Result<(), OutputError> {
    if dir.exists() && !force {
        let mut entries = fs::read_dir(dir).map_err(io(dir))?;
        if entries.next().is_some() {
            let run_json = dir.join("run.json");
            let previous = fs::read_to_string(&run_json).ok().and_then(|text| {
                serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| {
                        v.get("scenario_name")
                            .and_then(|n| n.as_str().map(String::from))
                    })
            });
            match previous {
                Some(name) if name == scenario => {}
                Some(other) => {
                    return Err(OutputError::NotOurs {
                        dir: dir.to_path_buf(),
                        other,
                    });
                }
                None => {
                    return Err(OutputError::NotEmpty {
                        dir: dir.to_path_buf(),
                    });
                }
            }
        }
    }
    fs::create_dir_all(dir).map_err(io(dir))?;
    remove_partials(dir);
    let probe = dir.join(".fleetsim-write-test.partial");
    fs::write(&probe, b"").map_err(io(dir))?;
    fs::remove_file(&probe).map_err(io(&probe))
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
/// after a run without `--trace`; with `charts`, the charts, after `--no-charts`), so that
/// every result file in the folder belongs to the same run. Called right after the CSV files
/// are in place, before charts are drawn (which replace all chart files, or fail). Only
/// fleetsim's own file names are touched.
pub fn remove_stale(dir: &Path, written: &[PathBuf], charts: bool) -> Result<(), OutputError> {
    let chart_names = if charts {
        charts::file_names()
    } else {
        Vec::new()
    };
    let ours = std::iter::once("jobs.csv".to_string()).chain(chart_names);
    for name in ours {
        let path = dir.join(&name);
        if !written.contains(&path) && path.is_file() {
            remove(&path)?;
        }
    }
    Ok(())
}

/// Removes `dir` if it is empty (a folder a failed run created); anything else stays.
pub fn remove_if_empty(dir: &Path) {
    let _ = fs::remove_dir(dir);
}

/// A file being written: `name.partial` until [`Pending::commit`] renames it.
pub struct Pending {
    partial: PathBuf,
    path: PathBuf,
}

impl Pending {
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

    /// The final paths of the files, in order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.path.as_path())
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

fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("a file name").to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Writes rows as CSV to `dir/name` (under a temporary name until committed).
pub fn write_csv<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> Result<Pending, OutputError> {
    let path = dir.join(name);
    let partial = partial_path(&path);
    let file = fs::File::create(&partial).map_err(io(&path))?;
    let pending = Pending { partial, path };
    match write_rows(file, &pending.path, rows) {
        Ok(()) => Ok(pending),
        Err(error) => {
            pending.discard();
            Err(error)
        }
    }
}

/// Writes CSV rows to `file` and makes sure they reached the disk; errors name `path`.
fn write_rows<T: Serialize>(file: fs::File, path: &Path, rows: &[T]) -> Result<(), OutputError> {
    let csv_error = |source| OutputError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut writer = csv::Writer::from_writer(std::io::BufWriter::new(file));
    for row in rows {
        writer.serialize(row).map_err(csv_error)?;
    }
    writer.flush().map_err(io(path))?;
    let file = writer
        .into_inner()
        .map_err(|e| io(path)(e.into_error()))?
        .into_inner()
        .map_err(|e| io(path)(e.into_error()))?;
    file.sync_all().map_err(io(path))
}

/// Writes bytes to `dir/name` (under a temporary name until committed).
pub fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Result<Pending, OutputError> {
    let path = dir.join(name);
    let partial = partial_path(&path);
    let file = fs::File::create(&partial).map_err(io(&path))?;
    let pending = Pending { partial, path };
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
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Integer(i64),
    Count(u64),
    Number(f64),
    Bool(bool),
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Text(text) => serializer.serialize_str(text),
            Cell::Integer(n) => serializer.serialize_i64(*n),
            Cell::Count(n) => serializer.serialize_u64(*n),
            Cell::Number(x) => serializer.serialize_f64(*x),
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
    let path = dir.join(name);
    let partial = partial_path(&path);
    let csv_error = |source| OutputError::Csv {
        path: path.clone(),
        source,
    };
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_path(&partial)
        .map_err(csv_error)?;
    writer.write_record(header).map_err(csv_error)?;
    for row in rows {
        assert_eq!(row.len(), header.len(), "one cell per column");
        writer.serialize(row).map_err(csv_error)?;
    }
    writer.flush().map_err(io(&path))?;
    Ok(Pending { partial, path })
}

/// Writes `services_monthly.csv` (`column` "month", YYYY-MM) or `services_hourly.csv`
/// ("hour", 0 to 23).
fn write_periods(
    dir: &Path,
    name: &str,
    column: &str,
    rows: &[ServicePeriodRow],
) -> Result<Pending, OutputError> {
    let header: Vec<String> = [
        "strategy",
        "service",
        column,
        "gpus_demanded",
        "gpus_served",
        "gpus_allocated",
    ]
    .map(String::from)
    .to_vec();
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            let period = match r.period.parse::<u64>() {
                Ok(hour) if column == "hour" => Cell::Count(hour),
                _ => Cell::Text(r.period.clone()),
            };
            vec![
                Cell::Text(r.strategy.clone()),
                Cell::Text(r.service.clone()),
                period,
                Cell::Number(r.gpus_demanded),
                Cell::Number(r.gpus_served),
                Cell::Number(r.gpus_allocated),
            ]
        })
        .collect();
    write_table(dir, name, &header, &cells)
}

/// Writes `workloads.csv` or `teams.csv`: the rows' `group` column is named `column`.
pub fn write_groups(
    dir: &Path,
    name: &str,
    column: &str,
    rows: &[GroupSummaryRow],
) -> Result<Pending, OutputError> {
    let path = dir.join(name);
    let partial = partial_path(&path);
    let csv_error = |source| OutputError::Csv {
        path: path.clone(),
        source,
    };
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_path(&partial)
        .map_err(csv_error)?;
    let header = [
        "strategy",
        column,
        "metric",
        "mean",
        "std",
        "ci95_low",
        "ci95_high",
        "p5",
        "p50",
        "p95",
        "n",
    ];
    writer.write_record(header).map_err(csv_error)?;
    for row in rows {
        writer.serialize(row).map_err(csv_error)?;
    }
    writer.flush().map_err(io(&path))?;
    Ok(Pending { partial, path })
}

/// Writes a value as pretty JSON to `dir/name` (under a temporary name until committed).
pub fn write_json<T: Serialize>(dir: &Path, name: &str, value: &T) -> Result<Pending, OutputError> {
    let json = serde_json::to_vec_pretty(value).expect("records serialize");
    write_bytes(dir, name, &json)
}

/// Copies the file `from` to `dir/<its name>` (under a temporary name until committed).
pub fn copy_file(from: &Path, dir: &Path) -> Result<Pending, OutputError> {
    let path = dir.join(from.file_name().expect("a file name"));
    let partial = partial_path(&path);
    fs::copy(from, &partial).map_err(|source| OutputError::Read {
        path: from.to_path_buf(),
        source,
    })?;
    Ok(Pending { partial, path })
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

/// Reads the rows of a CSV file fleetsim wrote.
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
    let mut reader = csv::Reader::from_path(path).map_err(unreadable)?;
    reader
        .deserialize()
        .collect::<Result<Vec<T>, _>>()
        .map_err(unreadable)
}

/// Reads a JSON file fleetsim wrote; `Ok(None)` when there is none.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, OutputError> {
    let bytes = match fs::read(path) {
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
    output: &RunOutput,
    info: &RunInfo,
    trace: bool,
) -> Result<Vec<PathBuf>, OutputError> {
    let mut staged = Staged::default();
    write_pending(dir, output, info, trace, &mut staged)?;
    // run.json is renamed last: a folder whose run.json lists a file holds all of them.
    staged.commit_all()
}

fn write_pending(
    dir: &Path,
    output: &RunOutput,
    info: &RunInfo,
    trace: bool,
    pending: &mut Staged,
) -> Result<(), OutputError> {
    let aggregates = &output.aggregates;
    let pools: Vec<_> = output
        .units
        .iter()
        .flat_map(|u| u.pools.iter().cloned())
        .collect();
    pending.push(write_csv(dir, "summary.csv", &aggregates.summary)?);
    pending.push(write_csv(
        dir,
        "replications.csv",
        &aggregates.replications,
    )?);
    pending.push(write_csv(dir, "pools.csv", &pools)?);
    pending.push(write_csv(dir, "monthly.csv", &aggregates.monthly)?);
    pending.push(write_csv(
        dir,
        "pools_monthly.csv",
        &aggregates.pools_monthly,
    )?);
    pending.push(write_groups(
        dir,
        "workloads.csv",
        "workload",
        &aggregates.workloads,
    )?);
    pending.push(write_groups(dir, "teams.csv", "team", &aggregates.teams)?);
    if !aggregates.services.is_empty() {
        pending.push(write_groups(
            dir,
            "services.csv",
            "service",
            &aggregates.services,
        )?);
        pending.push(write_periods(
            dir,
            "services_monthly.csv",
            "month",
            &aggregates.services_monthly,
        )?);
        pending.push(write_periods(
            dir,
            "services_hourly.csv",
            "hour",
            &aggregates.services_hourly,
        )?);
    }
    if trace {
        let jobs: Vec<_> = output
            .units
            .iter()
            .flat_map(|u| u.jobs.iter().cloned())
            .collect();
        pending.push(write_csv(dir, "jobs.csv", &jobs)?);
    }
    let mut info = info.clone();
    info.files = pending.paths().map(file_name).collect();
    info.files.push("run.json".into());
    let json = serde_json::to_vec_pretty(&info).expect("run info serializes");
    pending.push(write_bytes(dir, "run.json", &json)?);
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A progress bar on stderr, drawn only when someone watches.
pub fn progress_bar(len: u64, message: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// The progress bar of a sweep: `len` (strategy, replication) units, with points done in the
/// message (see [`sweep_progress_message`]).
pub fn sweep_progress_bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} replications ({rate}, {eta} left)",
        )
        .expect("valid template")
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            },
        )
        .progress_chars("=> "),
    );
    bar
}

/// "sweep: 12/100 points" (and how many an earlier run had done).
pub fn sweep_progress_message(done: usize, total: usize, resumed: usize) -> String {
    if resumed > 0 {
        format!("sweep: {done}/{total} points ({resumed} done before)")
    } else {
        format!("sweep: {done}/{total} points")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// /dev/full accepts the open and fails every write with "no space left on device".
    #[test]
    fn a_full_disk_is_reported_with_the_path() {
        let open_full = || fs::OpenOptions::new().write(true).open("/dev/full");
        if open_full().is_err() {
            return; // Not on Linux.
        }
        let rows: Vec<(u32, f64)> = (0..10_000).map(|i| (i, f64::from(i) / 3.0)).collect();
        let path = Path::new("results/summary.csv");
        let error = write_rows(open_full().unwrap(), path, &rows).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("results/summary.csv: cannot write"),
            "{error}"
        );
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert!(
            cause
                .as_deref()
                .is_some_and(|c| c.contains("No space left on device")),
            "{cause:?}"
        );
        let error =
            write_all(open_full().unwrap(), Path::new("results/run.json"), b"{}").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("results/run.json: cannot write"),
            "{error}"
        );
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("fleetsim-partial-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let pending = write_bytes(&dir, "a.txt", b"a").unwrap();
        assert!(dir.join("a.txt.partial").exists());
        pending.discard();
        assert!(!dir.join("a.txt.partial").exists());
        // A temporary left by an interrupted earlier run is removed when the folder is reused.
        fs::write(dir.join("summary.csv.partial"), "half").unwrap();
        prepare_dir(&dir, "a", true).unwrap();
        assert!(!dir.join("summary.csv.partial").exists());
        let committed = write_bytes(&dir, "b.txt", b"b").unwrap().commit().unwrap();
        assert_eq!(fs::read(committed).unwrap(), b"b");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn staged_files_go_into_place_together_or_leave_no_temporary() {
        let dir = std::env::temp_dir().join(format!("fleetsim-staged-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
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
            staged.push(write_bytes(&dir, "a.txt", b"a").unwrap());
            staged.push(write_bytes(&dir, "b.txt", b"b").unwrap());
            assert_eq!(partials(&dir), 2);
        }
        assert_eq!(partials(&dir), 0);
        assert!(!dir.join("a.txt").exists());
        // A rename that fails (a non-empty folder in the way) stops there; the later files'
        // temporaries are removed, the earlier ones are in place.
        fs::create_dir_all(dir.join("b.txt").join("in-the-way")).unwrap();
        let mut staged = Staged::default();
        for name in ["a.txt", "b.txt", "c.txt"] {
            staged.push(write_bytes(&dir, name, name.as_bytes()).unwrap());
        }
        assert!(staged.commit_all().is_err());
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"a.txt");
        assert!(!dir.join("c.txt").exists());
        assert_eq!(partials(&dir), 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tables_read_back_to_the_same_numbers() {
        let dir = std::env::temp_dir().join(format!("fleetsim-table-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
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
        assert_eq!(
            text,
            "a.b,x,n\n\"p,q\",0.30000000000000004,3\n-4,NaN,true\n"
        );
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
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_of_another_scenario_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("fleetsim-prepare-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        prepare_dir(&dir, "a", false).unwrap();
        fs::write(dir.join("run.json"), r#"{"scenario_name": "a"}"#).unwrap();
        prepare_dir(&dir, "a", false).unwrap();
        assert!(matches!(
            prepare_dir(&dir, "b", false),
            Err(OutputError::NotOurs { .. })
        ));
        prepare_dir(&dir, "b", true).unwrap();
        fs::remove_file(dir.join("run.json")).unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(matches!(
            prepare_dir(&dir, "a", false),
            Err(OutputError::NotEmpty { .. })
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}
