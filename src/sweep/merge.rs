//! `fleetsim merge DIR... --out DIR`: combines the shards of a sweep into exactly the files,
//! byte for byte, that the unsharded sweep writes.
//!
//! Refuses folders of different sweeps (their `sweep.json` differ), a missing, duplicated or
//! unfinished shard, and a point that is not done; each refusal names the folder or shard.
//! Point folders are copied as they are (they are the same bytes wherever they ran); `sweep.csv`
//! is written from them by the same code as an unsharded sweep's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::SweepError;
use super::execute::Outcome;
use super::folder::{self, INVOCATION, PointState, SWEEP_JSON, point_dir};
use super::shard::{Shard, points_of};
use crate::files;
use crate::records::{InvocationInfo, RunInfo, ShardInfo, SweepInfo};

#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// Folders holding shards (several shards may share a folder), or a whole sweep.
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Replace another sweep's files in `out`.
    pub force: bool,
    pub command_line: Vec<String>,
}

/// Merges shards; returns the sweep and what the terminal shows.
/// `stop` (a signal) interrupts it between points: the points copied so far stay complete,
/// and merging again finishes the folder.
pub fn merge(
    options: &MergeOptions,
    stop: &AtomicBool,
) -> Result<(SweepInfo, Outcome), SweepError> {
    let started = Instant::now();
    let inputs = inputs(options)?;
    for dir in &inputs {
        // A shard still being written is not finished.
        files::check_not_locked(dir)?;
    }
    let (first_dir, info) = one_sweep(&inputs)?;
    let (shards, count) = shards(&inputs, &info)?;
    let sources = point_sources(&info, &shards, count)?;

    // Write: the sweep's description, each point (run.json last), then sweep.csv.
    let out = &options.out;
    folder::prepare(out, &info, options.force)?;
    files::copy_file(&first_dir.join(SWEEP_JSON), out)?.commit()?;
    for (done, (point, (from, run_info))) in info.points.iter().zip(&sources).enumerate() {
        if stop.load(Ordering::SeqCst) {
            return Err(SweepError::MergeInterrupted {
                done,
                total: info.points.len(),
                dir: out.clone(),
            });
        }
        let to = point_dir(out, point);
        files::create_dir(&to)?;
        // Checked above, copied as they are, run.json last (the point's completion marker).
        for file in &run_info.files {
            files::copy_file(&from.join(&file.name), &to)?.commit()?;
        }
        files::copy_file(&from.join("run.json"), &to)?.commit()?;
    }
    if stop.load(Ordering::SeqCst) {
        return Err(SweepError::MergeInterrupted {
            done: info.points.len(),
            total: info.points.len(),
            dir: out.clone(),
        });
    }
    let summaries = folder::summaries(out, &info, info.points.iter())?;
    folder::write_sweep_csv(out, &info, &summaries)?;

    let wall_time_s = started.elapsed().as_secs_f64();
    let invocation = InvocationInfo {
        fleetsim_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "merge".into(),
        command_line: options.command_line.clone(),
        shard: None,
        points_total: info.points.len(),
        points_selected: info.points.len(),
        points_simulated: 0,
        replications_simulated: 0,
        events_simulated: 0,
        threads: 1,
        wall_time_s,
        replications_per_s: 0.0,
        events_per_s: 0.0,
        merged: inputs.iter().map(|d| d.display().to_string()).collect(),
    };
    files::write_json(out, INVOCATION, &invocation)?.commit()?;
    Ok((
        info,
        Outcome {
            invocation,
            summaries,
            shard: None,
        },
    ))
}

/// The input folders, each once, none of them the output folder.
fn inputs(options: &MergeOptions) -> Result<Vec<PathBuf>, SweepError> {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or(path.to_path_buf());
    let out_canonical = canonical(&options.out);
    let mut inputs: Vec<PathBuf> = Vec::new();
    for dir in &options.inputs {
        if canonical(dir) == out_canonical {
            return Err(SweepError::OutIsInput { dir: dir.clone() });
        }
        if !inputs.iter().any(|d| canonical(d) == canonical(dir)) {
            inputs.push(dir.clone());
        }
    }
    Ok(inputs)
}

/// The sweep every input folder holds, and the first folder (its `sweep.json` is copied).
fn one_sweep(inputs: &[PathBuf]) -> Result<(PathBuf, SweepInfo), SweepError> {
    let mut first: Option<(PathBuf, SweepInfo)> = None;
    for dir in inputs {
        let info =
            folder::read_info(dir)?.ok_or_else(|| SweepError::NotASweep { dir: dir.clone() })?;
        match &first {
            None => first = Some((dir.clone(), info)),
            Some((first_dir, first_info)) if *first_info != info => {
                return Err(SweepError::DifferentSweeps {
                    first: first_dir.clone(),
                    other: dir.clone(),
                    difference: folder::difference(&info, first_info),
                });
            }
            Some(_) => {}
        }
    }
    first.ok_or_else(|| SweepError::NotASweep {
        dir: PathBuf::from("(no folder given)"),
    })
}

/// Each shard's folder and marker, by shard number.
type Shards = BTreeMap<u32, (PathBuf, ShardInfo)>;

/// The ids of the points of shard `k` of `count`.
fn shard_ids(info: &SweepInfo, k: u32, count: u32) -> Vec<String> {
    let costs: Vec<f64> = info.points.iter().map(|p| p.estimated_cost).collect();
    points_of(&costs, Shard { index: k, count })
        .into_iter()
        .map(|i| info.points[i].id.clone())
        .collect()
}

/// Every shard of one split, once, by shard number (a folder without markers holding the
/// whole sweep is its one shard), and how many shards the split has.
fn shards(inputs: &[PathBuf], info: &SweepInfo) -> Result<(Shards, u32), SweepError> {
    let all_ids: Vec<String> = info.points.iter().map(|p| p.id.clone()).collect();
    let mut shards: Shards = BTreeMap::new();
    let mut split: Option<(u32, PathBuf)> = None;
    for dir in inputs {
        let mut markers = folder::markers(dir, &info.sweep_id)?;
        if markers.is_empty() {
            let done = info
                .points
                .iter()
                .filter(|p| folder::point_done(dir, p).is_some())
                .count();
            if done < info.points.len() {
                return Err(SweepError::Unfinished {
                    dir: dir.clone(),
                    done,
                    total: info.points.len(),
                });
            }
            // A whole sweep: one shard of one.
            markers.push(ShardInfo {
                sweep_id: info.sweep_id.clone(),
                shard: 1,
                shards: 1,
                points: all_ids.clone(),
            });
        }
        for marker in markers {
            match &split {
                None => split = Some((marker.shards, dir.clone())),
                Some((shards, first)) if *shards != marker.shards => {
                    return Err(SweepError::MixedShardCounts {
                        dir: dir.clone(),
                        found: marker.shards,
                        first: first.clone(),
                        shards: *shards,
                    });
                }
                Some(_) => {}
            }
            let label = format!("{}/{}", marker.shard, marker.shards);
            if let Some((other, _)) = shards.get(&marker.shard) {
                return Err(SweepError::DuplicateShard {
                    shard: label,
                    first: other.clone(),
                    second: dir.clone(),
                });
            }
            shards.insert(marker.shard, (dir.clone(), marker));
        }
    }
    let count = split.map_or(1, |(n, _)| n);
    let missing: Vec<(u32, Vec<String>)> = (1..=count)
        .filter(|k| !shards.contains_key(k))
        .map(|k| (k, shard_ids(info, k, count)))
        .collect();
    if !missing.is_empty() {
        return Err(SweepError::MissingShards {
            missing,
            shards: count,
        });
    }
    Ok((shards, count))
}

/// Each point's folder and `run.json`, every point done in the folder of its shard.
fn point_sources(
    info: &SweepInfo,
    shards: &Shards,
    count: u32,
) -> Result<Vec<(PathBuf, RunInfo)>, SweepError> {
    let mut sources: Vec<(PathBuf, RunInfo)> = Vec::with_capacity(info.points.len());
    let mut owner: BTreeMap<String, (u32, &Path)> = BTreeMap::new();
    for (k, (dir, marker)) in shards {
        if marker.points != shard_ids(info, *k, count) {
            return Err(SweepError::ShardMismatch {
                dir: dir.clone(),
                shard: format!("{k}/{count}"),
            });
        }
        for id in &marker.points {
            owner.insert(id.clone(), (*k, dir.as_path()));
        }
    }
    for point in &info.points {
        let (k, dir) = owner[&point.id];
        let run_info = match folder::point_state(dir, point) {
            PointState::Done(run_info) => *run_info,
            PointState::Missing => {
                return Err(SweepError::IncompletePoint {
                    dir: dir.to_path_buf(),
                    point: point.id.clone(),
                    shard: format!("{k}/{count}"),
                });
            }
            PointState::Damaged(file, problem) => {
                return Err(SweepError::DamagedPoint {
                    file,
                    problem,
                    dir: dir.to_path_buf(),
                    point: point.id.clone(),
                    shard: format!("{k}/{count}"),
                });
            }
        };
        sources.push((point_dir(dir, point), run_info));
    }
    Ok(sources)
}
