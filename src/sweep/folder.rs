//! What a sweep folder holds and when a point in it counts as done.
//!
//! ```text
//! DIR/sweep.json                  what the sweep is (the same bytes in every shard)
//! DIR/sweep.csv                   every point, strategy and metric (complete sweeps only)
//! DIR/points/<id>/                each point's run.json, summary.csv, replications.csv, ...
//! DIR/shard-K-of-N.json           shard K of N finished (shards only)
//! DIR/invocation.json             how this run went: times, threads, command line
//! DIR/invocation-shard-K-of-N.json  the same for a shard
//! DIR/sweep_*.png, sweep_*.svg    the sweep's charts (drawn by `cli` after a whole sweep
//!                                 or a merge, from sweep.json and sweep.csv)
//! ```
//!
//! A point is done when its `run.json` (written last, after the point's other files) describes
//! the same point, down to the fingerprint of its scenario, and every file it lists has the
//! size and hash recorded there (a file cut or emptied later is found, not trusted).

use crate::regular_file;
use std::path::{Path, PathBuf};

use super::SweepError;
use super::plan::cells;
use crate::files::{self, PointSummary};
use crate::records::{RunInfo, ShardInfo, SummaryRow, SweepInfo, SweepPoint};

pub const SWEEP_JSON: &str = "sweep.json";
pub const SWEEP_CSV: &str = "sweep.csv";
pub const POINTS: &str = "points";
pub const INVOCATION: &str = "invocation.json";

pub fn point_dir(dir: &Path, point: &SweepPoint) -> PathBuf {
    dir.join(POINTS).join(&point.id)
}

/// The sweep a folder holds, if any.
pub fn read_info(dir: &Path) -> Result<Option<SweepInfo>, SweepError> {
    Ok(files::read_json(&dir.join(SWEEP_JSON))?)
}

/// What a point's folder holds.
#[derive(Debug, Clone)]
pub enum PointState {
    /// Done: its `run.json`, whose every file checks.
    Done(Box<RunInfo>),
    /// Not written, or written for another point (no `run.json` of this point).
    Missing,
    /// Its `run.json` is this point's, but a file it lists is not what was written: the path
    /// of the file and what is wrong.
    Damaged(PathBuf, String),
}

/// The state of `point` in `dir`.
pub fn point_state(dir: &Path, point: &SweepPoint) -> PointState {
    let point_dir = point_dir(dir, point);
    let Ok(Some(info)) = files::read_json::<RunInfo>(&point_dir.join("run.json")) else {
        return PointState::Missing;
    };
    if info.sweep_point.as_ref() != Some(point) {
        return PointState::Missing;
    }
    for file in &info.files {
        if let Err(problem) = files::manifest::check(&point_dir, file) {
            return PointState::Damaged(point_dir.join(&file.name), problem);
        }
    }
    PointState::Done(Box::new(info))
}

/// The point's `run.json` if the point is done in `dir`.
pub fn point_done(dir: &Path, point: &SweepPoint) -> Option<RunInfo> {
    match point_state(dir, point) {
        PointState::Done(info) => Some(*info),
        _ => None,
    }
}

/// The shard markers of `sweep_id` in `dir`, by shard number (markers of other sweeps are
/// left alone).
pub fn markers(dir: &Path, sweep_id: &str) -> Result<Vec<ShardInfo>, SweepError> {
    let mut found = Vec::new();
    let entries = read_dir(dir)?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("shard-")
            && name.contains("-of-")
            && name.ends_with(".json")
            && let Some(marker) = files::read_json::<ShardInfo>(&entry.path())?
            && marker.sweep_id == sweep_id
        {
            found.push(marker);
        }
    }
    found.sort_by_key(|m| (m.shards, m.shard));
    Ok(found)
}

/// Each point's `summary.csv`, read back from `dir`, with its parameter values.
pub fn summaries<'a>(
    dir: &Path,
    info: &SweepInfo,
    points: impl Iterator<Item = &'a SweepPoint>,
) -> Result<Vec<PointSummary>, SweepError> {
    points
        .map(|point| {
            let summary: Vec<SummaryRow> =
                files::read_csv(&point_dir(dir, point).join("summary.csv"))?;
            Ok(PointSummary {
                index: point.index,
                values: cells(info, point),
                summary,
            })
        })
        .collect()
}

/// Writes `sweep.csv` from the points' summaries (always read from disk, so that a sweep, a
/// resumed sweep and a merge write the same bytes).
pub fn write_sweep_csv(
    dir: &Path,
    info: &SweepInfo,
    summaries: &[PointSummary],
) -> Result<PathBuf, SweepError> {
    let parameters: Vec<String> = info.parameters.iter().map(|p| p.path.clone()).collect();
    let (header, rows) = files::sweep_rows(&parameters, summaries, &info.currency);
    Ok(files::write_table(dir, SWEEP_CSV, &header, &rows)?.commit()?)
}

/// Makes sure `dir` may receive `info`'s results: it is new, empty, or holds the same sweep
/// (whose finished points `--resume` then skips); with `force`, fleetsim's files of another
/// sweep are removed first.
pub fn prepare(dir: &Path, info: &SweepInfo, force: bool) -> Result<(), SweepError> {
    if dir.exists() && !dir.is_dir() {
        return Err(files::OutputError::NotAFolder {
            dir: dir.to_path_buf(),
        }
        .into());
    }
    if !dir.exists() {
        files::create_dir(dir)?;
        return Ok(());
    }
    let existing = read_info(dir);
    match existing {
        Ok(Some(existing)) if existing == *info => return Ok(()),
        Ok(Some(existing)) if !force => {
            return Err(SweepError::OtherSweep {
                dir: dir.to_path_buf(),
                difference: difference(&existing, info),
            });
        }
        Err(error) if !force => {
            let why = match &error {
                SweepError::Output(files::OutputError::Read { source, .. }) => source.to_string(),
                other => other.to_string(),
            };
            return Err(SweepError::OtherSweep {
                dir: dir.to_path_buf(),
                difference: format!("its sweep.json cannot be read: {why}"),
            });
        }
        Ok(None) if !force => {
            // Files still being written (`*.partial`) do not count: shards started together
            // into one folder find each other's `sweep.json.partial`.
            let empty = std::fs::read_dir(dir)
                .map(|entries| {
                    entries.flatten().all(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.ends_with(".partial") || files::lock::is_lock_file(&name)
                    })
                })
                .unwrap_or(false);
            if !empty {
                return Err(SweepError::NotEmpty {
                    dir: dir.to_path_buf(),
                });
            }
            return Ok(());
        }
        _ => {}
    }
    clear(dir)
}

/// Removes fleetsim's sweep files from `dir` (and nothing else): the sweep's own files by
/// their names, and in each point's folder only what its `run.json` lists (and the
/// `run.json`), so a file of the user's under `points/` stays.
fn clear(dir: &Path) -> Result<(), SweepError> {
    let entries = read_dir(dir)?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name == SWEEP_JSON
            || name == SWEEP_CSV
            || (name.starts_with("invocation") && name.ends_with(".json"))
            || (name.starts_with("shard-") && name.ends_with(".json"))
            || crate::charts::sweep::is_chart_file(&name)
            || name == crate::report::FILE_NAME;
        if ours && entry.path().is_file() {
            files::remove(&entry.path())?;
        }
    }
    let points = dir.join(POINTS);
    if points.is_dir() {
        for entry in read_dir(&points)?.flatten() {
            let point = entry.path();
            if point.is_dir() {
                clear_point(&point)?;
                let _ = std::fs::remove_dir(&point); // Only if nothing else is left in it.
            }
        }
        let _ = std::fs::remove_dir(&points);
    }
    Ok(())
}

/// Removes the files a point's `run.json` lists, then the `run.json`.
fn clear_point(point: &Path) -> Result<(), SweepError> {
    let run_json = point.join("run.json");
    let Ok(text) = regular_file::read_to_string(&run_json, regular_file::JSON_BYTES_MAX) else {
        return Ok(());
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    let names = value["files"].as_array().cloned().unwrap_or_default();
    for item in names {
        let name = match &item {
            serde_json::Value::String(name) => name.clone(),
            other => other["name"].as_str().unwrap_or_default().to_string(),
        };
        let path = point.join(&name);
        if files::manifest::is_plain_name(&name) && path.is_file() {
            files::remove(&path)?;
        }
    }
    files::remove(&run_json)?;
    Ok(())
}

/// Says how two sweeps differ: the fields of `sweep.json` that do.
pub fn difference(a: &SweepInfo, b: &SweepInfo) -> String {
    if a.scenario_name != b.scenario_name {
        return format!(
            "of scenario `{}`, not `{}`",
            a.scenario_name, b.scenario_name
        );
    }
    let (serde_json::Value::Object(a), serde_json::Value::Object(b)) = (
        serde_json::to_value(a).expect("records serialize"),
        serde_json::to_value(b).expect("records serialize"),
    ) else {
        unreachable!("a struct serializes to an object");
    };
    let fields: Vec<String> = a
        .iter()
        .filter(|(key, value)| *key != "sweep_id" && b.get(*key) != Some(value))
        .map(|(key, _)| format!("`{key}`"))
        .collect();
    if fields.is_empty() {
        "its sweep.json differs".to_string()
    } else {
        format!("its sweep.json differs in {}", fields.join(", "))
    }
}

/// The entries of `dir`, or an error naming it.
fn read_dir(dir: &Path) -> Result<std::fs::ReadDir, SweepError> {
    std::fs::read_dir(dir).map_err(|source| {
        files::OutputError::Read {
            path: dir.to_path_buf(),
            source,
        }
        .into()
    })
}
