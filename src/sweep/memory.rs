//! A whole sweep into memory (the Python package's `fleetsim.sweep`): the bytes of every file
//! a sweep folder holds but the charts and `invocation.json` (`sweep.json`, `sweep.csv`, each
//! point's files), written by the same writers, so they equal the folder's.

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use super::SweepError;
use super::execute::run_points;
use super::folder::{SWEEP_CSV, SWEEP_JSON};
use super::plan::{Plan, PlannedPoint, cells};
use crate::files::{self, PointSummary, Table};
use crate::records::{RunOutput, SummaryRow};

/// A file's name and bytes.
pub type File = (String, Vec<u8>);

/// One point's files (as in `points/<id>/`), `run.json` last.
#[derive(Debug, Clone)]
pub struct PointFiles {
    pub id: String,
    pub files: Vec<File>,
}

/// The files of a whole sweep.
#[derive(Debug, Clone)]
pub struct SweepFiles {
    /// `sweep.json`, then `sweep.csv`.
    pub files: Vec<File>,
    /// In the order of the sweep's points.
    pub points: Vec<PointFiles>,
    /// Events simulated over all points.
    pub events: u64,
}

/// A point's files and its `summary.csv` rows (for `sweep.csv`).
type Done = (Vec<File>, Vec<SummaryRow>);

/// Runs every point of `plan` on the current rayon pool and returns the files a sweep folder
/// would hold. `stop` interrupts it (the error is then `SweepError::Run` of a cancelled unit).
pub fn run_in_memory(plan: &Plan, stop: &AtomicBool) -> Result<SweepFiles, SweepError> {
    let info = &plan.info;
    let points: Vec<&PlannedPoint> = plan.points.iter().collect();
    let slots: Vec<Mutex<Option<Done>>> = points.iter().map(|_| Mutex::new(None)).collect();
    let done = |t: usize, run_output: RunOutput| -> Result<(), SweepError> {
        let run_info = points[t].run_info.clone().with_results(&run_output);
        let files = files::in_memory(&run_output, &run_info, false);
        let summary = run_output.aggregates.summary;
        *slots[t].lock().expect("no thread panicked holding a slot") = Some((files, summary));
        Ok(())
    };
    let events = run_points(info, &points, stop, &|| {}, &done)?;
    let mut point_files = Vec::with_capacity(points.len());
    let mut summaries = Vec::with_capacity(points.len());
    for (point, slot) in points.iter().zip(slots) {
        let (files, summary) = slot
            .into_inner()
            .expect("no thread panicked holding a slot")
            .expect("every point is done");
        let point = point.point();
        point_files.push(PointFiles {
            id: point.id.clone(),
            files,
        });
        summaries.push(PointSummary {
            index: point.index,
            values: cells(info, point),
            summary,
        });
    }
    let parameters: Vec<String> = info.parameters.iter().map(|p| p.path.clone()).collect();
    let (header, rows) = files::sweep_rows(&parameters, &summaries, &info.currency);
    let (_, sweep_csv) = Table::of_cells(SWEEP_CSV, header, &rows).to_bytes();
    let sweep_json = serde_json::to_vec_pretty(info).expect("records serialize");
    Ok(SweepFiles {
        files: vec![
            (SWEEP_JSON.to_string(), sweep_json),
            (SWEEP_CSV.to_string(), sweep_csv),
        ],
        points: point_files,
        events,
    })
}
