//! What a run wrote: each file's size, rows and FNV-1a hash, recorded in `run.json`'s `files`
//! as the file is written, and checked again by `sweep --resume` and `merge`, so a
//! file cut or emptied after fleetsim wrote it is found rather than trusted.

use std::io::{Read, Write};
use std::path::{Component, Path};

use crate::format::thousands;
use crate::records::FileRecord;

/// FNV-1a, 64 bits: a stable hash (not `DefaultHasher`, whose output may change between Rust
/// releases), fed in pieces.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn update(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash as 16 hex digits.
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }

    /// The hash of `bytes`, as 16 hex digits.
    pub fn of(bytes: &[u8]) -> String {
        let mut hash = Fnv1a::default();
        hash.update(bytes);
        hash.hex()
    }
}

/// A writer that counts and hashes what goes through it.
pub(super) struct Hashing<W> {
    pub inner: W,
    pub hash: Fnv1a,
    pub bytes: u64,
}

impl<W> Hashing<W> {
    pub fn new(inner: W) -> Self {
        Hashing {
            inner,
            hash: Fnv1a::default(),
            bytes: 0,
        }
    }

    /// The manifest entry of what was written, as `name` with `rows` rows.
    pub fn record(&self, name: &str, rows: u64) -> FileRecord {
        FileRecord {
            name: name.to_string(),
            rows,
            bytes: self.bytes,
            fnv1a: self.hash.hex(),
        }
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Whether `name` (from a `run.json`, which anyone can edit) is a plain file name in its
/// folder: no folder part, no `..`, so removing or copying it cannot reach another folder.
pub fn is_plain_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none()
}

/// Checks the file `record` describes in `dir`: what is wrong with it, if anything.
pub fn check(dir: &Path, record: &FileRecord) -> Result<(), String> {
    if !is_plain_name(&record.name) {
        return Err(format!(
            "run.json lists `{}`, which is not a file name of this folder",
            record.name
        ));
    }
    let path = dir.join(&record.name);
    let file = match crate::regular_file::open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err("is missing".to_string());
        }
        Err(error) => return Err(format!("cannot be read: {error}")),
    };
    // Read no further than one byte past the recorded length: a link to an endless device is
    // refused above, and a file that grew is told by its length, not hashed to its end.
    let mut file = file.take(record.bytes.saturating_add(1));
    let mut hash = Fnv1a::default();
    let mut bytes = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                hash.update(&buffer[..n]);
                bytes += n as u64;
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(format!("cannot be read: {error}")),
        }
    }
    let recorded = format!(
        "{} rows in {} bytes",
        thousands(record.rows as f64, 0),
        thousands(record.bytes as f64, 0)
    );
    if bytes != record.bytes {
        let has = if bytes > record.bytes {
            format!("more than {}", thousands(record.bytes as f64, 0))
        } else {
            thousands(bytes as f64, 0)
        };
        return Err(format!(
            "has {has} bytes, but run.json recorded {recorded}: it was cut or changed after fleetsim wrote it"
        ));
    }
    if hash.hex() != record.fnv1a {
        return Err(format!(
            "differs from what run.json recorded ({recorded}, FNV-1a {}; now {}): it was changed after fleetsim wrote it",
            record.fnv1a,
            hash.hex()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_published_vectors() {
        assert_eq!(Fnv1a::of(b"a"), "af63dc4c8601ec8c");
        assert_eq!(Fnv1a::of(b""), "cbf29ce484222325");
        let mut pieces = Fnv1a::default();
        pieces.update(b"foo");
        pieces.update(b"bar");
        assert_eq!(pieces.hex(), Fnv1a::of(b"foobar"));
    }

    #[test]
    fn plain_names_stay_in_their_folder() {
        assert!(is_plain_name("summary.csv"));
        for name in ["", "..", "../x", "/etc/passwd", "a/b", "."] {
            assert!(!is_plain_name(name), "{name}");
        }
    }
}
