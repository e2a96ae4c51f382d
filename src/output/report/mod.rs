//! `report.html` (issue 18): not written yet.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::charts::ChartError;

/// Writes `dir/report.html` (to come: for now it says so).
pub fn write(dir: &Path, _stop: &AtomicBool) -> Result<PathBuf, ChartError> {
    Err(ChartError::Draw {
        path: dir.join("report.html"),
        message: "not implemented yet".into(),
    })
}
