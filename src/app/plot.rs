//! `plot` and `report`: draw a result folder's charts, or write its report.html, again from
//! its files alone (a run's, a sweep's or an optimisation's folder, copied or merged ones too).
//! Both hold the folder's lock while they write, as the commands that fill it do, so a chart
//! is never drawn from files another command is replacing.

use std::path::{Path, PathBuf};

use super::folder::{self, Drawing};
use super::{AppError, Context};
use crate::files::{self, LockMode};

/// What kind of folder `dir` is, by the files that say so.
fn drawing_of(dir: &Path) -> Drawing {
    if dir.join("sweep.json").exists() {
        Drawing::Sweep
    } else if dir.join(files::optimize::RECOMMENDATION_FILE).exists() {
        Drawing::Optimize
    } else {
        Drawing::Run
    }
}

/// Draws the charts (PNG and SVG) of the folder `dir`; returns the files written.
pub fn plot(
    dir: &Path,
    command_line: &[String],
    ctx: &Context<'_>,
) -> Result<Vec<PathBuf>, AppError> {
    in_existing(dir, command_line, ctx, || {
        let stop = ctx.stop;
        let charts = ctx.pool.install(|| match drawing_of(dir) {
            Drawing::Sweep => crate::charts::sweep::draw_all_until(dir, stop),
            Drawing::Optimize => crate::charts::optimize::draw_all_until(dir, stop),
            Drawing::Run | Drawing::Nothing => crate::charts::draw_all_until(dir, stop),
        })?;
        Ok(charts)
    })
}

/// Writes report.html of the folder `dir` (a run's or a sweep's); returns its path.
pub fn report(dir: &Path, command_line: &[String], ctx: &Context<'_>) -> Result<PathBuf, AppError> {
    in_existing(dir, command_line, ctx, || {
        Ok(ctx.pool.install(|| crate::report::write(dir, ctx.stop))?)
    })
}

/// `work` on the folder `dir`, locked if it exists (if not, the work says so: a lock would
/// create it).
fn in_existing<T>(
    dir: &Path,
    command_line: &[String],
    ctx: &Context<'_>,
    work: impl FnOnce() -> Result<T, AppError>,
) -> Result<T, AppError> {
    if !dir.is_dir() {
        (ctx.begin_work)();
        return work();
    }
    let work = || work().map(|value| (value, Drawing::Nothing));
    let (value, _) = folder::work_in(dir, LockMode::Exclusive, command_line, ctx, work)?;
    Ok(value)
}
