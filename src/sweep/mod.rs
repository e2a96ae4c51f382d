//! Parameter sweeps: one scenario run at many points of its parameters, in one flat parallel
//! loop, sharded over machines if need be, and merged back into exactly the files one machine
//! would have written.
//!
//! - [`spec`]: the little languages of `--vary`, `--sample` and `--shard`.
//! - [`design`]: grids, random and Latin hypercube samples.
//! - [`mod@plan`]: from a scenario and `--vary` to checked points (each a `Config`) and `sweep.json`.
//! - [`shard`]: which points a shard runs, balanced by estimated cost.
//! - [`mod@execute`]: runs the points of a shard (or all), writing each point when done.
//! - [`folder`]: what a sweep folder holds, and when a point in it counts as done.
//! - [`mod@merge`]: combines shards.
//! - [`memory`]: a whole sweep into memory, the same bytes as its folder (the Python package).
//!
//! Every file a sweep writes, except `invocation*.json`, depends only on the sweep's definition:
//! no wall times, thread counts, paths or command lines. That is what makes `--resume` safe and
//! `merge` byte-identical to an unsharded sweep. Points share common random numbers: the
//! streams are keyed by seed, replication and purpose, never by the point.

pub mod design;
pub mod execute;
pub mod folder;
pub mod memory;
pub mod merge;
pub mod plan;
pub mod shard;
pub mod spec;

use std::path::PathBuf;

use crate::files::OutputError;
use crate::runner::RunError;
use crate::scenario::ScenarioError;

pub use execute::{Outcome, RunOptions, Watch, execute};
pub use memory::{PointFiles, SweepFiles, run_in_memory};
pub use merge::{MergeOptions, merge};
pub use plan::{Plan, Request, plan, plan_source};
pub use shard::Shard;
pub use spec::{Sampling, Spec, Vary};

/// More points than this in one sweep is a typo or a job for `--sample`.
pub const POINTS_MAX: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A `--vary` (or `[sweep]` entry) that cannot be used; `at` names it.
    #[error("{at}: {problem}")]
    Vary { at: String, problem: String },
    #[error(
        "{}: nothing to vary: give --vary PATH=SPEC (e.g. --vary pool.dgx.nodes=0..16:2), or a [sweep] table with `vary` in the scenario",
        .path.display()
    )]
    NothingToVary { path: PathBuf },
    #[error(
        "the sweep has {points} points ({detail}); at most {max} are allowed: use coarser steps, or --sample lhs:N",
        max = POINTS_MAX
    )]
    TooManyPoints { points: String, detail: String },
    #[error("{} of {total} sweep point(s) are not valid scenarios:{}", .failures.len(), bullets(.failures, 10))]
    InvalidPoints { failures: Vec<String>, total: usize },
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{point}: {source}")]
    Run { point: String, source: RunError },
    #[error(
        "interrupted: {done} of {selected} points are written to {}; run the same command with --resume to finish",
        .dir.display()
    )]
    Interrupted {
        done: usize,
        selected: usize,
        dir: PathBuf,
    },
    #[error(
        "interrupted: {done} of {total} points are copied to {}; run the same merge again to finish",
        .dir.display()
    )]
    MergeInterrupted {
        done: usize,
        total: usize,
        dir: PathBuf,
    },
    #[error(
        "{}: holds another sweep ({difference}); choose another folder with --out, or pass --force to replace it",
        .dir.display()
    )]
    OtherSweep { dir: PathBuf, difference: String },
    #[error(
        "{}: is not empty and holds no sweep; choose another folder with --out, or pass --force",
        .dir.display()
    )]
    NotEmpty { dir: PathBuf },
    #[error(
        "{}: not a sweep folder (no sweep.json); give the --out folders of `fleetsim sweep`",
        .dir.display()
    )]
    NotASweep { dir: PathBuf },
    #[error(
        "{} and {} hold shards of different sweeps ({difference}); merge only the shards of one sweep",
        .first.display(), .other.display()
    )]
    DifferentSweeps {
        first: PathBuf,
        other: PathBuf,
        difference: String,
    },
    #[error("{}", missing_shards(.missing, *.shards))]
    MissingShards {
        /// (K, ids of its points).
        missing: Vec<(u32, Vec<String>)>,
        shards: u32,
    },
    #[error(
        "{}: holds shards of {found} while {} holds shards of {shards}; merge the shards of one --shard K/N split",
        .dir.display(), .first.display()
    )]
    MixedShardCounts {
        dir: PathBuf,
        found: u32,
        first: PathBuf,
        shards: u32,
    },
    #[error("shard {shard} is given twice: in {} and in {}", .first.display(), .second.display())]
    DuplicateShard {
        shard: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error(
        "{}: holds no finished shard ({done} of {total} points done, no shard-K-of-N.json); finish it by running its command again with --resume",
        .dir.display()
    )]
    Unfinished {
        dir: PathBuf,
        done: usize,
        total: usize,
    },
    #[error(
        "{}: shard {shard} lists other points than this sweep gives it; was it made by another fleetsim version?",
        .dir.display()
    )]
    ShardMismatch { dir: PathBuf, shard: String },
    #[error(
        "{}: point {point} of shard {shard} is missing or incomplete; rerun that shard with --resume",
        .dir.display()
    )]
    IncompletePoint {
        dir: PathBuf,
        point: String,
        shard: String,
    },
    #[error("{}: is one of the folders to merge; give another --out", .dir.display())]
    OutIsInput { dir: PathBuf },
    #[error(
        "{}: {problem}; point {point} of shard {shard} is damaged: rerun that shard into {} with --resume (it simulates damaged points again), then merge again",
        .file.display(), .dir.display()
    )]
    DamagedPoint {
        file: PathBuf,
        problem: String,
        dir: PathBuf,
        point: String,
        shard: String,
    },
}

fn bullets(items: &[String], max: usize) -> String {
    let mut text: String = items.iter().take(max).map(|i| format!("\n  {i}")).collect();
    if items.len() > max {
        text.push_str(&format!("\n  ... and {} more", items.len() - max));
    }
    text
}

fn missing_shards(missing: &[(u32, Vec<String>)], shards: u32) -> String {
    let lines: Vec<String> = missing
        .iter()
        .map(|(k, points)| {
            let mut list = points.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
            if points.len() > 8 {
                list.push_str(", ...");
            }
            format!(
                "shard {k}/{shards} is missing ({} point(s): {list}); run the sweep with --shard {k}/{shards} and pass its folder too",
                points.len()
            )
        })
        .collect();
    lines.join("\n  ")
}

/// FNV-1a, 64 bits, as hex: a stable hash for ids and fingerprints (not `DefaultHasher`,
/// whose output may change between Rust releases).
pub fn fnv1a_hex(bytes: &[u8]) -> String {
    crate::files::manifest::Fnv1a::of(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_stable() {
        // FNV-1a 64 of "a", from the published test vectors.
        assert_eq!(fnv1a_hex(b"a"), "af63dc4c8601ec8c");
        assert_eq!(fnv1a_hex(b""), "cbf29ce484222325");
    }

    #[test]
    fn missing_shards_are_named() {
        let error = SweepError::MissingShards {
            missing: vec![(3, vec!["002".into(), "006".into()])],
            shards: 4,
        };
        assert_eq!(
            error.to_string(),
            "shard 3/4 is missing (2 point(s): 002, 006); run the sweep with --shard 3/4 and pass its folder too"
        );
    }
}
