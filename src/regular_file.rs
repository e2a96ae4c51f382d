//! Opening a file a user named or a result folder holds: regular files only, and never more
//! bytes than such a file can hold.
//!
//! A path may be a link to `/dev/zero`, a fifo nobody writes or a file of gigabytes: reading
//! it whole would exhaust memory, and opening a fifo would block before a signal could stop
//! the command. So a file is opened without blocking, refused unless it is a regular file, and
//! read through a limit that is an error, not a silent cut.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most a JSON file fleetsim wrote (`run.json`, `sweep.json`, ...) is read to, bytes.
pub const JSON_BYTES_MAX: u64 = 64 << 20;

/// The most a CSV table fleetsim wrote is read to when it is read back (`summary.csv`,
/// `teams.csv`, `sweep.csv`, ...), bytes: a run of 1,000 replications over ten years writes
/// about a tenth of it.
pub const TABLE_BYTES_MAX: u64 = 256 << 20;

/// The most a chart fleetsim drew is read to when it is copied (a PNG), bytes.
pub const CHART_BYTES_MAX: u64 = 64 << 20;

/// Opens `path` for reading if it is a regular file (after links); a fifo, device, socket or
/// folder is refused with an error of kind `InvalidInput` that says what it is.
pub fn open(path: &Path) -> io::Result<File> {
    let file = open_without_blocking(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file", describe(&kind)),
    ))
}

/// Opens `path` as [`open`] does, for reading at most `limit_bytes`: a longer file is refused
/// up front, and one that grows past the limit while read fails the read (kind
/// `FileTooLarge`).
pub fn open_at_most(path: &Path, limit_bytes: u64) -> io::Result<AtMost<File>> {
    let file = open(path)?;
    let bytes = file.metadata()?.len();
    if bytes > limit_bytes {
        return Err(too_large(limit_bytes));
    }
    Ok(AtMost {
        inner: file,
        left_bytes: limit_bytes,
    })
}

/// The bytes of the regular file `path`, at most `limit_bytes` of them.
pub fn read(path: &Path, limit_bytes: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_at_most(path, limit_bytes)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The text of the regular file `path`, at most `limit_bytes` of it.
pub fn read_to_string(path: &Path, limit_bytes: u64) -> io::Result<String> {
    let mut text = String::new();
    open_at_most(path, limit_bytes)?.read_to_string(&mut text)?;
    Ok(text)
}

/// A reader that fails once more than its limit has been read.
pub struct AtMost<R> {
    inner: R,
    left_bytes: u64,
}

impl<R: Read> Read for AtMost<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        // One byte past the limit is asked for, to tell "exactly the limit" from "more".
        let want = buffer
            .len()
            .min(usize::try_from(self.left_bytes + 1).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buffer[..want])?;
        if n as u64 > self.left_bytes {
            return Err(too_large(self.left_bytes));
        }
        self.left_bytes -= n as u64;
        Ok(n)
    }
}

fn too_large(limit_bytes: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "is larger than the {} MiB fleetsim reads of such a file",
            limit_bytes >> 20
        ),
    )
}

#[cfg(unix)]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a fifo with no writer returns at once instead of waiting for one.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

fn describe(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a fifo (a named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path named `name` in a new folder, removed when the folder is dropped.
    fn scratch(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        (dir, path)
    }

    #[test]
    fn a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused() {
        let (_scratch, path) = scratch("ten");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read(&path, 10).unwrap(), b"0123456789");
        let error = read(&path, 9).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn a_reader_past_its_limit_fails_instead_of_cutting() {
        let mut reader = AtMost {
            inner: io::repeat(b'x'),
            left_bytes: 100,
        };
        let mut bytes = Vec::new();
        let error = reader.read_to_end(&mut bytes).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert!(bytes.len() <= 100, "{} bytes read", bytes.len());
    }

    #[cfg(unix)]
    #[test]
    fn devices_folders_and_fifos_are_refused_without_blocking() {
        let device = open(Path::new("/dev/zero")).unwrap_err();
        assert!(device.to_string().contains("a device"), "{device}");
        let folder = open(&std::env::temp_dir()).unwrap_err();
        assert!(folder.to_string().contains("a folder"), "{folder}");
        let (_scratch, fifo) = scratch("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo failed");
        // Nobody writes to it: a blocking open would hang here.
        let error = open(&fifo).unwrap_err();
        assert!(error.to_string().contains("a fifo"), "{error}");
    }
}
