//! The one routine of every operation that writes a result folder: take the folder's lock
//! (before anything is written, so two commands never write one folder at once), do the work,
//! draw the charts and report.html from the files just written (exactly as `fleetsim plot` and
//! `fleetsim report` would), release the lock. A failure or a stop anywhere still releases it,
//! and a folder the operation created and left empty is removed with it.

use std::path::{Path, PathBuf};

use super::{AppError, Context};
use crate::files::{self, LockMode};

/// What the files an operation wrote call for, once they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawing {
    /// Nothing (no charts asked for, a sweep's shard, charts already drawn).
    Nothing,
    /// A run's charts and report.html.
    Run,
    /// A sweep's charts and report.html.
    Sweep,
    /// An optimisation's chart.
    Optimize,
}

/// The files drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drawn {
    pub charts: Vec<PathBuf>,
    pub report: Option<PathBuf>,
}

/// Holds `dir` for one operation (`mode`: alone, or as one shard of a sweep) while `work`
/// writes its files and says what to draw from them; then draws it.
pub fn work_in<T>(
    dir: &Path,
    mode: LockMode,
    command_line: &[String],
    ctx: &Context<'_>,
    work: impl FnOnce() -> Result<(T, Drawing), AppError>,
) -> Result<(T, Drawn), AppError> {
    // From here a stop must let the work clean up, not end it at once.
    (ctx.begin_work)();
    let lock = files::lock_dir(dir, mode, &command_line.join(" "))?;
    let result = work().and_then(|(value, drawing)| Ok((value, draw(dir, drawing, ctx)?)));
    lock.release();
    result
}

/// Draws what `drawing` says from the files in `dir`, on the context's threads.
pub fn draw(dir: &Path, drawing: Drawing, ctx: &Context<'_>) -> Result<Drawn, AppError> {
    let stop = ctx.stop;
    let shown = dir.display();
    let charts = match drawing {
        Drawing::Nothing => return Ok(Drawn::default()),
        Drawing::Run => ctx
            .pool
            .install(|| crate::charts::draw_all_until(dir, stop))
            .map_err(|error| {
                let done = format!(
                    "the CSV files and run.json are written but the charts are not; try `fleetsim plot {shown}`"
                );
                AppError::unfinished(done, error)
            })?,
        Drawing::Sweep => ctx
            .pool
            .install(|| crate::charts::sweep::draw_all_until(dir, stop))
            .map_err(|error| {
                let done = format!(
                    "the sweep's files are written but its charts are not; try `fleetsim plot {shown}`"
                );
                AppError::unfinished(done, error)
            })?,
        Drawing::Optimize => {
            let charts = ctx
                .pool
                .install(|| crate::charts::optimize::draw_all_until(dir, stop))
                .map_err(|error| {
                    let done = format!(
                        "the results are written but the chart is not; try `fleetsim plot {shown}`"
                    );
                    AppError::unfinished(done, error)
                })?;
            return Ok(Drawn {
                charts,
                report: None,
            });
        }
    };
    let report = ctx
        .pool
        .install(|| crate::report::write(dir, stop))
        .map_err(|error| {
            let done = format!(
                "the results and charts are written but report.html is not; try `fleetsim report {shown}`"
            );
            AppError::unfinished(done, error)
        })?;
    Ok(Drawn {
        charts,
        report: Some(report),
    })
}
