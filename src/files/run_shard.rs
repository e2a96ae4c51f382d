//! The folder of one shard of a run (`fleetsim run --shard K/N`): what `fleetsim merge` needs
//! to write the unsharded run's files, and nothing else.
//!
//! - `units-shard-K-of-N.cbor`: the shard's units (every strategy in its replications), in CBOR
//!   (RFC 8949), which keeps every number bit for bit (NaN included);
//! - `run-shard-K-of-N.json`: the marker, written last, with the run's id, the replications,
//!   how to load the scenario again, and the size and FNV-1a hash of the units file, so a
//!   damaged or swapped units file is refused, not merged.
//!
//! Shards of one run may share a folder: every file is named after its shard.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{OutputError, manifest};
use crate::records::{RunShardInfo, UnitResult};

/// The marker's name of shard `index` of `count`.
pub fn marker_name(index: u32, count: u32) -> String {
    format!("run-shard-{index}-of-{count}.json")
}

fn units_name(index: u32, count: u32) -> String {
    format!("units-shard-{index}-of-{count}.cbor")
}

/// A file of a run's shard, told by its name: shard `K` of `N`'s marker or units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardFile {
    Marker(u32, u32),
    Units(u32, u32),
}

/// Which shard file `name` is, if it is one.
pub fn shard_file(name: &str) -> Option<ShardFile> {
    let numbers = |rest: &str, suffix: &str| -> Option<(u32, u32)> {
        let (k, n) = rest.strip_suffix(suffix)?.split_once("-of-")?;
        let number = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| s.parse().ok())?
        };
        Some((number(k)?, number(n)?))
    };
    if let Some(rest) = name.strip_prefix("run-shard-") {
        return numbers(rest, ".json").map(|(k, n)| ShardFile::Marker(k, n));
    }
    let rest = name.strip_prefix("units-shard-")?;
    numbers(rest, ".cbor").map(|(k, n)| ShardFile::Units(k, n))
}

/// Removes shard `index` of `count` from `dir`: its marker first (its units are then no
/// shard), then its units. Only regular files are removed.
pub fn remove(dir: &Path, index: u32, count: u32) -> Result<(), OutputError> {
    for name in [marker_name(index, count), units_name(index, count)] {
        let path = dir.join(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => super::remove(&path)?,
            Ok(_) => return Err(OutputError::NotARegularFile { path }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(OutputError::Read { path, source }),
        }
    }
    Ok(())
}

/// Units files beyond this are not read back (a run of that size would not fit in memory).
pub const UNITS_BYTES_MAX: u64 = 8 << 30;

/// Markers beyond this are not read (a marker holds a scenario's text: at most a few MiB).
const MARKER_BYTES_MAX: u64 = 64 << 20;

/// Writes shard `info.shard` of a run into `dir`: its units, then the marker that records
/// them. Nothing is in place until both are written.
pub fn write(
    dir: &Path,
    mut info: RunShardInfo,
    units: &[UnitResult],
) -> Result<Vec<PathBuf>, OutputError> {
    let mut bytes = Vec::new();
    ciborium::into_writer(units, &mut bytes).expect("records serialize to memory");
    let name = units_name(info.shard, info.shards);
    let units_file = super::write_bytes(dir, &name, &bytes)?;
    info.units = units_file.record().clone();
    let marker = super::write_json(dir, &marker_name(info.shard, info.shards), &info)?;
    let mut written = vec![units_file.commit()?];
    written.push(marker.commit()?);
    Ok(written)
}

/// The run shards' markers in `dir`, by file name order.
pub fn markers(dir: &Path) -> Result<Vec<(PathBuf, RunShardInfo)>, OutputError> {
    let entries = fs::read_dir(dir).map_err(|source| OutputError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("run-shard-") && n.ends_with(".json"))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let bytes = read_limited(&path, MARKER_BYTES_MAX)?;
            let info: RunShardInfo =
                serde_json::from_slice(&bytes).map_err(|error| OutputError::Unreadable {
                    path: path.clone(),
                    message: error.to_string(),
                })?;
            let expected = marker_name(info.shard, info.shards);
            if path.file_name().and_then(|n| n.to_str()) != Some(expected.as_str()) {
                return Err(OutputError::Unreadable {
                    path,
                    message: format!(
                        "it describes shard {}/{}, whose marker is {expected}",
                        info.shard, info.shards
                    ),
                });
            }
            info.check().map_err(|message| OutputError::Unreadable {
                path: path.clone(),
                message: format!("{message}; run the shard again"),
            })?;
            Ok((path, info))
        })
        .collect()
}

/// The units of the shard `info` describes, in `dir`, checked against the marker's record.
pub fn units(dir: &Path, info: &RunShardInfo) -> Result<Vec<UnitResult>, OutputError> {
    let record = &info.units;
    let path = dir.join(&record.name);
    if record.name != units_name(info.shard, info.shards) || !manifest::is_plain_name(&record.name)
    {
        return Err(OutputError::Unreadable {
            path,
            message: "the shard's marker names another units file".into(),
        });
    }
    let bytes = read_limited(&path, UNITS_BYTES_MAX.min(record.bytes.saturating_add(1)))?;
    let unreadable = |message: String| OutputError::Unreadable {
        path: path.clone(),
        message,
    };
    if bytes.len() as u64 != record.bytes || manifest::Fnv1a::of(&bytes) != record.fnv1a {
        return Err(unreadable(format!(
            "it is not the file its shard's marker recorded ({} bytes, FNV-1a {}); run the shard again",
            record.bytes, record.fnv1a
        )));
    }
    ciborium::from_reader(bytes.as_slice())
        .map_err(|error| unreadable(format!("not a shard's units: {error}")))
}

/// The bytes of `path`, refusing a file longer than `limit` (or not a regular file).
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, OutputError> {
    let read = |source| OutputError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::regular_file::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read)?;
    if bytes.len() as u64 > limit {
        return Err(OutputError::Unreadable {
            path: path.to_path_buf(),
            message: format!("longer than the {limit} bytes expected"),
        });
    }
    Ok(bytes)
}
