//! A service's measured demand curve: a CSV of `time, gpus`, read once per load and
//! put into the service's [`Demand`](crate::scenario::Demand).
//!
//! | column | |
//! |---|---|
//! | `time` | RFC 3339 (`2026-05-01T10:00:00Z`), a date and time (UTC), or seconds from the curve's start |
//! | `gpus` | GPUs of the service's `gpu` demanded from this time until the next row's |
//!
//! Rows are in increasing time. The curve is shifted so its first row is the scenario's start;
//! the last value lasts as long as the step before it, then the curve repeats (a curve of whole
//! weeks keeps its weekdays). Other columns are ignored.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::scenario::check::{Checked, Issue};
use crate::scenario::config::DemandTrace;
use crate::scenario::file::ScenarioFile;
use crate::scenario::lines::Lines;
use crate::trace::table::{Header, Table};
use crate::trace::time::{TimeZoneSpec, parse_time, shorten};
use crate::trace::{Stamp, TraceError};

/// Rows a demand curve may have: a year at one-second steps is far beyond any measured curve.
const ROWS_MAX: usize = 40_000_000;
/// GPUs a step may demand.
const GPUS_MAX: f64 = 1e6;

/// Reads every service's `demand_trace` (relative to the scenario file `origin`) into its
/// demand; returns the problems, each naming the file, line and column.
pub fn attach(
    checked: &mut Checked,
    file: &ScenarioFile,
    origin: &Path,
    lines: &Lines,
    overridden: &BTreeSet<String>,
) -> Vec<Issue> {
    let base = origin.parent().unwrap_or(Path::new(""));
    let mut issues = Vec::new();
    for (i, written) in file.service.iter().enumerate() {
        let Some(path_text) = &written.demand_trace else {
            continue;
        };
        let field = format!("service.{}.demand_trace", written.name);
        let path = crate::trace::display_path(&base.join(path_text));
        let horizon_months = checked.config.horizon_months;
        match read(&path) {
            Ok(trace) => {
                let demand = &mut checked.config.services[i].demand;
                demand.trace = Some(Arc::new(trace));
                if let Some(problem) = crate::scenario::check::peak_problem(demand, horizon_months)
                {
                    let at = format!("service.{}", written.name);
                    issues.push(super::replay::issue(lines, overridden, &at, problem));
                }
            }
            Err(e) => issues.push(super::replay::issue(
                lines,
                overridden,
                &field,
                e.to_string(),
            )),
        }
    }
    issues
}

/// Reads a demand curve.
pub fn read(path: &Path) -> Result<DemandTrace, TraceError> {
    let steps = read_steps(path, "gpus", "a number of GPUs", GPUS_MAX)?;
    let period_h = match steps.len() {
        1 => f64::INFINITY,
        n => 2.0 * steps[n - 1].0 - steps[n - 2].0,
    };
    Ok(DemandTrace { steps, period_h })
}

/// Reads a step curve: a CSV of `time` and the column `column` (a value from 0 to `max`;
/// `what` names it in messages), rows in increasing time, shifted so that the first row is at
/// 0 h. Other columns are ignored.
pub fn read_steps(
    path: &Path,
    column: &str,
    what: &str,
    max: f64,
) -> Result<Vec<(f64, f64)>, TraceError> {
    read_steps_of(open_steps(path)?, path, column, what, max)
}

/// Opens a step curve's CSV, its header read (to choose the column from).
pub fn open_steps(path: &Path) -> Result<Table, TraceError> {
    Table::open(path, b',', true, Header::Required)
}

/// As [`read_steps`], from the table [`open_steps`] opened: the file is read once, so a
/// header can choose the column.
pub fn read_steps_of(
    mut table: Table,
    path: &Path,
    column: &str,
    what: &str,
    max: f64,
) -> Result<Vec<(f64, f64)>, TraceError> {
    let utc = TimeZoneSpec::Utc.time_zone();
    let (Some(time), Some(values)) = (table.find("time"), table.find(column)) else {
        let missing: Vec<&str> = ["time", column]
            .into_iter()
            .filter(|name| table.find(name).is_none())
            .collect();
        return Err(table.missing(
            &missing,
            &format!(" (the file has the columns time and {column})"),
        ));
    };
    let mut steps: Vec<(f64, f64)> = Vec::new();
    let mut absolute: Option<bool> = None;
    while let Some(row) = table.next_row()? {
        let text = row.required(time)?;
        let seconds = match parse_time(text, &utc).map_err(|p| row.fail(time, p))? {
            Stamp::Absolute(s) => (true, s),
            Stamp::Relative(s) => (false, s),
        };
        if *absolute.get_or_insert(seconds.0) != seconds.0 {
            return Err(row.fail(
                time,
                "mixes dates and seconds from the start; write every time the same way",
            ));
        }
        let at_h = seconds.1 / 3600.0;
        if let Some((previous_h, _)) = steps.last()
            && at_h <= *previous_h
        {
            return Err(row.fail(
                time,
                "must be later than the row before (rows in increasing time)",
            ));
        }
        let text = row.required(values)?;
        let value = text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && (0.0..=max).contains(v))
            .ok_or_else(|| {
                row.fail(
                    values,
                    format!(
                        "must be {what} from 0 to {max:e}, got \"{}\"",
                        shorten(text)
                    ),
                )
            })?;
        if steps.len() >= ROWS_MAX {
            return Err(TraceError::file(
                path,
                format!("has more than {ROWS_MAX} rows"),
            ));
        }
        steps.push((at_h, value));
    }
    let Some(&(first_h, _)) = steps.first() else {
        return Err(TraceError::file(
            path,
            format!("has no rows: it needs at least one time and {column}"),
        ));
    };
    for step in &mut steps {
        step.0 -= first_h;
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::super::write_temp as write;
    use super::*;

    #[test]
    fn a_curve_starts_at_zero_and_repeats_after_its_last_step() {
        let (_scratch, path) = write(
            "curve.csv",
            "time,gpus,note\n2026-05-04T00:00:00Z,4,a\n2026-05-04T06:00:00Z,10,b\n2026-05-04T18:00:00Z,6,c\n",
        );
        let trace = read(&path).unwrap();
        assert_eq!(trace.steps, vec![(0.0, 4.0), (6.0, 10.0), (18.0, 6.0)]);
        // The last step lasts as long as the one before it (12 h): a period of 30 h.
        assert_eq!(trace.period_h, 30.0);
        let (_scratch, seconds) = write("seconds.csv", "gpus,time\n2,3600\n3,7200\n");
        assert_eq!(read(&seconds).unwrap().steps, vec![(0.0, 2.0), (1.0, 3.0)]);
    }

    #[test]
    fn bad_curves_name_the_line_and_column() {
        for (text, expected) in [
            (
                "time,gpus\n0,1\n0,2\n",
                "line 3, column 1 (`time`): must be later",
            ),
            (
                "time,gpus\n0,1\n60,-2\n",
                "line 3, column 2 (`gpus`): must be a number of GPUs",
            ),
            (
                "time,gpus\n0,1\n2026-05-04T00:00:00Z,2\n",
                "mixes dates and seconds",
            ),
            ("when,gpus\n0,1\n", "`time`"),
            ("time,gpus\n", "has no rows"),
        ] {
            let (_scratch, path) = write("bad.csv", text);
            let message = read(&path).unwrap_err().to_string();
            assert!(message.contains(expected), "{text:?}: {message}");
        }
    }
}
