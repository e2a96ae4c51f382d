//! Standard output that fails like a file and never panics. `println!` panics when stdout is
//! a closed pipe (`fleetsim sweep ... | head -1`) or a full disk; here a closed pipe ends the
//! command quietly (the reader has all it wanted; the files are written) and any other
//! failure is an error with its reason and exit code 1.

use std::io::{self, Write};

/// Standard output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum StdoutError {
    /// The reader went away (a closed pipe): nobody is left to tell.
    #[error("standard output was closed")]
    Closed,
    #[error("cannot write to standard output: {0}")]
    Failed(io::Error),
}

/// Writes `bytes` to stdout and flushes them.
pub fn write(bytes: &[u8]) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|error| match error.kind() {
            io::ErrorKind::BrokenPipe => StdoutError::Closed,
            _ => StdoutError::Failed(error),
        })
}

/// Whether `error` is, at its root, a closed standard output.
pub fn closed(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| matches!(cause.downcast_ref(), Some(StdoutError::Closed)))
}

/// `print!` that returns a [`StdoutError`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format!($($arg)*).as_bytes())
    };
}

/// `println!` that returns a [`StdoutError`] instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

pub(crate) use {out, outln};
