//! fleetsim's own trace CSV: one job per row, columns found by name in any order.
//!
//! | column | |
//! |---|---|
//! | `submit_time` | RFC 3339 (`2024-05-01T10:00:00Z`), a date and time in `trace_timezone`, or seconds from the trace's start |
//! | `duration_h` or `duration_s` | observed run time (hours or seconds) |
//! | `gpus` | GPUs held at once, at least 1 |
//! | `gpu`, `team`, `name`, `state` | optional: GPU type, team, job name, final state |
//! | `checkpointable` | optional: `true`/`false` (also `yes`/`no`, `1`/`0`; empty: the workload decides) |
//!
//! Other columns are ignored.

use std::path::Path;

use super::table::{Header, Table};
use super::time::parse_time;
use super::{Builder, NewJob, TimeZoneSpec, TraceError};

const HINT: &str = " (fleetsim's trace CSV has submit_time, duration_h or duration_s, and gpus)";

pub fn read(path: &Path, tz: &TimeZoneSpec, builder: &mut Builder) -> Result<(), TraceError> {
    let tz = tz.time_zone();
    let mut table = Table::open(path, b',', true, Header::Required)?;
    if table.header().len() == 1 && table.header()[0].contains('|') {
        return Err(TraceError::file(
            path,
            "line 1: is `|`-separated, as sacct prints; set trace_format = \"slurm\"",
        ));
    }
    let submit = table.find("submit_time");
    let gpus = table.find("gpus");
    let hours = table.find("duration_h");
    let seconds = table.find("duration_s");
    let mut missing = Vec::new();
    if submit.is_none() {
        missing.push("submit_time");
    }
    if hours.is_none() && seconds.is_none() {
        missing.push("duration_h");
    }
    if gpus.is_none() {
        missing.push("gpus");
    }
    if !missing.is_empty() {
        let hint = if table.find("gpu_num").is_some() {
            " (it looks like a Helios or Acme trace: set trace_format = \"helios\" or \"acme\")"
        } else if table.find("num_gpu").is_some() {
            " (it looks like an Alibaba 2023 pod list: set trace_format = \"openb\")"
        } else {
            HINT
        };
        return Err(table.missing(&missing, hint));
    }
    let (submit, gpus) = (submit.expect("found"), gpus.expect("found"));
    let (duration, unit, per_hour) = match (hours, seconds) {
        (Some(h), Some(_)) => {
            return Err(TraceError::file(
                path,
                format!(
                    "line 1: has both `duration_h` (column {}) and `duration_s`; keep one",
                    h + 1
                ),
            ));
        }
        (Some(h), None) => (h, "hours", 3600.0),
        (None, Some(s)) => (s, "seconds", 1.0),
        (None, None) => unreachable!("checked above"),
    };
    let gpu = table.find("gpu");
    let team = table.find("team");
    let state = table.find("state");
    let checkpointable = table.find("checkpointable");
    builder.gpus_column = table.column(gpus);
    if let Some(gpu) = gpu {
        builder.gpu_column = table.column(gpu);
    }
    while let Some(row) = table.next_row()? {
        builder.rows += 1;
        let text = row.required(submit)?;
        let stamp = parse_time(text, &tz).map_err(|problem| row.fail(submit, problem))?;
        let duration_s = row.duration(duration, unit)? * per_hour;
        let n = row.gpu_count(gpus)?;
        if n == 0 {
            return Err(row.fail(
                gpus,
                "is 0: every job of a trace needs at least 1 GPU (leave CPU jobs out)",
            ));
        }
        let flag = row.get_opt(checkpointable)?;
        let flag = match flag.to_ascii_lowercase().as_str() {
            "" => None,
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => {
                return Err(row.fail(
                    checkpointable.expect("a value came from it"),
                    format!("must be true or false (or empty), got \"{flag}\""),
                ));
            }
        };
        let job = NewJob {
            submit: stamp,
            duration_s,
            gpus: n,
            line: row.line,
            team: Some(row.get_opt(team)?),
            gpu: Some(row.get_opt(gpu)?),
            checkpointable: flag,
            state: Some(row.get_opt(state)?),
        };
        let at = row.at(submit);
        builder.push(job, || at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{ReadOptions, Trace, TraceFormat, read as read_trace};
    use super::*;

    fn read_text(name: &str, text: &str) -> Result<Trace, TraceError> {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        read_trace(
            &path,
            &ReadOptions {
                format: TraceFormat::Csv,
                timezone: TimeZoneSpec::Utc,
            },
        )
    }

    #[test]
    fn the_sample_file_reads_with_every_column() {
        let trace = read_text(
            "ok.csv",
            "name,submit_time,duration_h,gpus,gpu,team,checkpointable,extra\n\
             b,2024-05-01T12:00:00Z,1.5,8,H100,nlp,true,x\n\
             a,2024-05-01T06:00:00Z,0.25,1,,vision,,y\n\
             \n\
             c,2024-05-02T00:30:00+02:00,2,2,A100,nlp,no,z\n",
        )
        .unwrap();
        assert_eq!(trace.jobs.len(), 3);
        // Sorted by submit time; origin is the UTC day of the first job.
        assert_eq!(trace.origin, Some(jiff::civil::date(2024, 5, 1)));
        let hours: Vec<f64> = trace.jobs.iter().map(|j| j.submit_h).collect();
        assert_eq!(hours, [6.0, 12.0, 22.5]);
        assert_eq!(trace.jobs[0].line, 3);
        assert_eq!(trace.jobs[0].gpus, 1);
        assert_eq!(trace.jobs[1].duration_h, 1.5);
        assert_eq!(trace.jobs[1].checkpointable, 2);
        assert_eq!(trace.jobs[2].checkpointable, 1);
        assert_eq!(trace.jobs[0].checkpointable, 0);
        assert_eq!(trace.gpu_type(0), None);
        assert_eq!(trace.gpu_type(1), Some("H100"));
        assert_eq!(trace.team(2), Some("nlp"));
        assert_eq!(trace.gpu_hours(), 0.25 + 12.0 + 4.0);
    }

    #[test]
    fn seconds_from_the_start_and_durations_in_seconds() {
        let trace = read_text(
            "rel.csv",
            "submit_time,duration_s,gpus\n7200,1800,4\n0,3600,1\n",
        )
        .unwrap();
        assert_eq!(trace.origin, None);
        assert_eq!(trace.jobs[0].submit_h, 0.0);
        assert_eq!(trace.jobs[1].submit_h, 2.0);
        assert_eq!(trace.jobs[1].duration_h, 0.5);
    }

    #[test]
    fn bad_rows_are_named_by_line_and_column() {
        let cases = [
            (
                "submit_time,duration_h\n1,1\n",
                "line 1: the header lacks the column `gpus`",
            ),
            (
                "submit_time,duration_h,gpus\nsoon,1,1\n",
                "line 2, column 1 (`submit_time`): must be a date and time",
            ),
            (
                "submit_time,duration_h,gpus\n0,-1,1\n",
                "line 2, column 2 (`duration_h`): must be a duration of at least 0 hours, got -1",
            ),
            (
                "submit_time,duration_h,gpus\n0,1,0\n",
                "line 2, column 3 (`gpus`): is 0",
            ),
            (
                "submit_time,duration_h,gpus\n0,1,2.5\n",
                "line 2, column 3 (`gpus`): must be a whole number of GPUs, got \"2.5\"",
            ),
            (
                "submit_time,duration_h,gpus\n0,1\n",
                "line 2, column 3 (`gpus`): is missing: the row has 2 value(s), the header 3",
            ),
            (
                "submit_time,duration_h,gpus\n0,1,1\n2024-05-01T00:00:00Z,1,1\n",
                "line 3, column 1 (`submit_time`): is a date, but the first job (line 2, column 1 (`submit_time`)) gives seconds",
            ),
            (
                "submit_time,duration_h,gpus\n-5,1,1\n",
                "line 2: the submit time is -5 s",
            ),
            (
                "submit_time,duration_h,gpus,checkpointable\n0,1,1,maybe\n",
                "line 2, column 4 (`checkpointable`): must be true or false",
            ),
            (
                "submit_time,duration_h,duration_s,gpus\n0,1,1,1\n",
                "has both `duration_h`",
            ),
            ("submit_time,duration_h,gpus\n", "has no jobs"),
            ("", "is empty"),
            ("JobID|Submit\n1|2\n", "set trace_format = \"slurm\""),
            (
                "job_id,gpu_num,submit_time\n",
                "set trace_format = \"helios\" or \"acme\"",
            ),
        ];
        for (i, (text, fragment)) in cases.iter().enumerate() {
            let error = read_text(&format!("bad-{i}.csv"), text)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(fragment),
                "{text:?}:\n{error}\nlacks\n{fragment}"
            );
            assert!(error.contains(&format!("bad-{i}.csv: ")), "{error}");
        }
    }

    #[test]
    fn binary_and_compressed_files_are_refused() {
        let error = read_text("bin.csv", "submit_time,duration_h,gpus\n0,1,\u{0}\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line 2, column 5: not a text file"),
            "{error}"
        );
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("real.gz");
        std::fs::write(&path, [0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
        let error = read_trace(
            &path,
            &ReadOptions {
                format: TraceFormat::Csv,
                timezone: TimeZoneSpec::Utc,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("is gzip-compressed; decompress it first"),
            "{error}"
        );
        let error = read_text("utf.csv", "submit_time,duration_h,gpus,team\n0,1,1,\u{0}\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a text file"), "{error}");
    }
}
