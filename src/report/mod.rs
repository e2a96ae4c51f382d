//! `report.html`: one self-contained page of a result folder or a sweep folder, for
//! a review document or a browser: the scenario's question, the tables, every chart inlined as
//! SVG with a one-line reading computed from the data, the warnings and notes, and how the
//! results were made. No script, no style sheet or font from elsewhere, nothing fetched: it
//! reads the same files as the charts (`charts::input`, `charts::sweep::input`), so
//! `fleetsim report DIR` on copied results writes the same page.

mod html;
mod readings;
mod run;
mod sweep;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::charts::ChartError;
use crate::files::{Staged, write_bytes};

/// The report's file name in a result or sweep folder.
pub const FILE_NAME: &str = "report.html";

/// Writes `dir/report.html` (a sweep's when `dir` holds a `sweep.json`), atomically: the page
/// is built first, then written under a temporary name and renamed. Stops, writing nothing,
/// once `stop` is set.
pub fn write(dir: &Path, stop: &AtomicBool) -> Result<PathBuf, ChartError> {
    let page = if dir.join("sweep.json").exists() {
        sweep::html(dir, stop)?
    } else {
        run::html(dir, stop)?
    };
    let mut pending = Staged::default();
    pending.push(write_bytes(dir, FILE_NAME, page.as_bytes())?);
    let mut written = pending.commit_all()?;
    Ok(written.remove(0))
}
