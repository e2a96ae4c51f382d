//! An output folder belongs to one fleetsim at a time: `run`, `sweep` and `merge`
//! hold an OS advisory lock on `DIR/.fleetsim.lock` from before they look at the folder until
//! their last file (charts included) is in place. A second command into the same folder
//! refuses at once, naming the folder and the process that holds it; it does not wait, so
//! parallel jobs sharing `output/<name>` fail loudly instead of mixing their files.
//!
//! The shards of one sweep may share a folder: each holds the folder's lock shared and its
//! own `.fleetsim-shard-K-of-N.lock` exclusively. The lock goes with the process (the OS
//! releases it even after `kill -9`); the file is removed by the last holder.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::OutputError;

/// The lock file of an output folder.
pub const LOCK_FILE: &str = ".fleetsim.lock";

/// Whether `name` is one of fleetsim's lock files (which never make a folder non-empty).
pub fn is_lock_file(name: &str) -> bool {
    name.starts_with(".fleetsim") && name.ends_with(".lock")
}

/// How a folder is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// Alone: `run`, a whole sweep, `merge`.
    Exclusive,
    /// With the other shards of one sweep; `shard` ("2-of-4") is held alone.
    Shard(u32, u32),
}

/// A held output folder; dropping it releases the lock, and removes the folder if this
/// command created it and left it empty (a refused or interrupted run).
#[derive(Debug)]
pub struct DirLock {
    dir: PathBuf,
    held: Vec<(PathBuf, fs::File, bool)>,
    created: bool,
}

impl DirLock {
    /// Whether this command created the folder.
    pub fn created(&self) -> bool {
        self.created
    }

    /// Releases the lock now (see [`Drop`]).
    pub fn release(self) {}
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // The shard's own lock first, then the folder's. A shared holder removes the file
        // only when it is the last (it can take the lock alone).
        for (path, file, exclusive) in self.held.drain(..).rev() {
            if exclusive || file.try_lock().is_ok() {
                let _ = fs::remove_file(&path);
            }
            drop(file);
        }
        if self.created {
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// Takes `dir` for this command (creating it if need be). `holder` says who holds it (pid and
/// command line), for the message another command gets.
pub fn lock_dir(dir: &Path, mode: LockMode, holder: &str) -> Result<DirLock, OutputError> {
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError::NotAFolder {
            dir: dir.to_path_buf(),
        });
    }
    let created = !dir.exists();
    fs::create_dir_all(dir).map_err(|source| OutputError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut lock = DirLock {
        dir: dir.to_path_buf(),
        held: Vec::new(),
        created,
    };
    let holder = format!("pid {}: {holder}", std::process::id());
    match mode {
        LockMode::Exclusive => {
            let file = hold(dir, LOCK_FILE, true, &holder)?;
            lock.held.push((dir.join(LOCK_FILE), file, true));
        }
        LockMode::Shard(k, n) => {
            let file = hold(dir, LOCK_FILE, false, &holder)?;
            lock.held.push((dir.join(LOCK_FILE), file, false));
            let name = format!(".fleetsim-shard-{k}-of-{n}.lock");
            let file = hold(dir, &name, true, &holder)?;
            lock.held.push((dir.join(name), file, true));
        }
    }
    Ok(lock)
}

/// Refuses `dir` if a command is writing to it now (`merge` reads finished shards only).
pub fn check_not_locked(dir: &Path) -> Result<(), OutputError> {
    let path = dir.join(LOCK_FILE);
    let Ok(file) = fs::OpenOptions::new().read(true).write(true).open(&path) else {
        return Ok(());
    };
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => Err(OutputError::Locked {
            dir: dir.to_path_buf(),
            holder: holder_of(&path),
        }),
        Err(fs::TryLockError::Error(_)) => Ok(()),
    }
}

/// Opens and locks `dir/name`. The file may be removed by its last holder between our open
/// and our lock: then the lock we got is on a file nobody else can find, so we try again.
fn hold(dir: &Path, name: &str, exclusive: bool, holder: &str) -> Result<fs::File, OutputError> {
    let path = dir.join(name);
    let io = |source| OutputError::Io {
        path: path.clone(),
        source,
    };
    for _ in 0..10 {
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let locked = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match locked {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(OutputError::Locked {
                    dir: dir.to_path_buf(),
                    holder: holder_of(&path),
                });
            }
            Err(fs::TryLockError::Error(source)) => return Err(io(source)),
        }
        if !same_file(&file, &path) {
            continue;
        }
        // Who holds it, for the message of the next one (best effort).
        if file.set_len(0).is_ok() {
            let _ = file.write_all(holder.as_bytes());
        }
        return Ok(file);
    }
    Err(io(std::io::Error::other(
        "the lock file keeps being replaced",
    )))
}

/// The most of a lock file read for its holder, bytes (fleetsim writes one line).
const HOLDER_BYTES_MAX: u64 = 4096;

/// The holder written in a lock file, for the message.
fn holder_of(path: &Path) -> String {
    let bytes = crate::regular_file::read(path, HOLDER_BYTES_MAX).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        "a process that has not said which".to_string()
    } else {
        text.chars().filter(|c| !c.is_control()).take(300).collect()
    }
}

#[cfg(unix)]
fn same_file(file: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &fs::File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_held_by_one_command_at_a_time() {
        let scratch = tempfile::tempdir().unwrap();
        // A folder that does not exist yet: the code under test makes it.
        let dir = scratch.path().join("out");
        let first = lock_dir(&dir, LockMode::Exclusive, "fleetsim run a.toml").unwrap();
        assert!(first.created());
        let error = lock_dir(&dir, LockMode::Exclusive, "fleetsim run b.toml").unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("another fleetsim is writing to this folder"),
            "{message}"
        );
        assert!(message.contains("fleetsim run a.toml"), "{message}");
        assert!(lock_dir(&dir, LockMode::Shard(1, 2), "shard").is_err());
        assert!(check_not_locked(&dir).is_err());
        first.release();
        // The folder it created and left empty is gone with it.
        assert!(!dir.exists());
        // Shards share a folder; one shard twice, or a whole sweep beside them, does not.
        let one = lock_dir(&dir, LockMode::Shard(1, 2), "shard 1").unwrap();
        let two = lock_dir(&dir, LockMode::Shard(2, 2), "shard 2").unwrap();
        assert!(lock_dir(&dir, LockMode::Shard(2, 2), "shard 2 again").is_err());
        assert!(lock_dir(&dir, LockMode::Exclusive, "whole").is_err());
        drop(one);
        assert!(dir.join(LOCK_FILE).exists(), "shard 2 still holds it");
        drop(two);
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            0,
            "no lock file is left"
        );
        fs::remove_dir(&dir).unwrap();
        // A file is not a folder.
        fs::write(&dir, "").unwrap();
        let error = lock_dir(&dir, LockMode::Exclusive, "x").unwrap_err();
        assert!(
            error.to_string().contains("is a file, not a folder"),
            "{error}"
        );
        fs::remove_file(&dir).unwrap();
    }
}
