//! SenseTime Helios (`cluster_log.csv`) and Shanghai AI Lab Acme (`trace_seren.csv`,
//! `trace_kalos.csv`): one job per row, `submit_time, start_time, end_time, duration, gpu_num`
//! among other columns, found by name. Times are dates and times without a zone (the clusters'
//! local time: set `trace_timezone`, e.g. "Asia/Shanghai"), durations seconds. CPU jobs
//! (`gpu_num` 0) and jobs that never started are left out and counted. The team is `vc`
//! (Helios' virtual cluster) or else `user`.

use std::path::Path;

use super::table::{Header, Table};
use super::time::parse_time;
use super::{Builder, NewJob, TimeZoneSpec, TraceError};

const HINT: &str =
    " (Helios and Acme traces have submit_time, start_time, end_time, duration and gpu_num)";

/// Values that mean "no value" in these traces (pandas exports).
fn is_missing(text: &str) -> bool {
    matches!(text, "" | "NaN" | "nan" | "NaT" | "None" | "null")
}

pub fn read(path: &Path, tz: &TimeZoneSpec, builder: &mut Builder) -> Result<(), TraceError> {
    let tz = tz.time_zone();
    let mut table = Table::open(path, b',', true, Header::Required)?;
    let [submit, gpu_num] = table.require(["submit_time", "gpu_num"], HINT)?;
    let duration = table.find("duration");
    let start = table.find("start_time");
    let end = table.find("end_time");
    if duration.is_none() && (start.is_none() || end.is_none()) {
        return Err(table.missing(&["duration"], HINT));
    }
    let team = table.find("vc").or_else(|| table.find("user"));
    let state = table.find("state");
    builder.gpus_column = table.column(gpu_num);
    while let Some(row) = table.next_row()? {
        builder.rows += 1;
        let gpus = row.gpu_count(gpu_num)?;
        if gpus == 0 {
            builder.dropped.no_gpu += 1;
            continue;
        }
        let start_text = row.get_opt(start)?;
        if start.is_some() && is_missing(start_text) {
            builder.dropped.never_started += 1;
            continue;
        }
        let duration_s = match duration.map(|d| (d, row.get(d))) {
            Some((d, Ok(text))) if !is_missing(text) => row.duration(d, "seconds")?,
            Some((_, Err(e))) => return Err(e),
            _ => {
                let (start, end) = match (start, end) {
                    (Some(start), Some(end)) => (start, end),
                    _ => {
                        builder.dropped.unfinished += 1;
                        continue;
                    }
                };
                let end_text = row.get(end)?;
                if is_missing(end_text) {
                    builder.dropped.unfinished += 1;
                    continue;
                }
                let seconds = |index: usize, text: &str| match parse_time(text, &tz) {
                    Ok(super::Stamp::Absolute(s) | super::Stamp::Relative(s)) => Ok(s),
                    Err(problem) => Err(row.fail(index, problem)),
                };
                let (from, to) = (seconds(start, start_text)?, seconds(end, end_text)?);
                if to < from {
                    return Err(row.fail(
                        end,
                        format!("is before start_time ({start_text}): a negative duration"),
                    ));
                }
                to - from
            }
        };
        let text = row.required(submit)?;
        let stamp = parse_time(text, &tz).map_err(|p| row.fail(submit, p))?;
        let job = NewJob {
            submit: stamp,
            duration_s,
            gpus,
            line: row.line,
            team: Some(row.get_opt(team)?),
            gpu: None,
            checkpointable: None,
            state: Some(row.get_opt(state)?),
        };
        let at = row.at(submit);
        builder.push(job, || at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{ReadOptions, TraceFormat, read as read_trace};
    use super::*;

    fn read_file(path: &str, format: TraceFormat) -> Result<super::super::Trace, TraceError> {
        read_trace(
            Path::new(path),
            &ReadOptions {
                format,
                timezone: TimeZoneSpec::Utc,
            },
        )
    }

    #[test]
    fn a_helios_log_reads_gpu_jobs_only() {
        // tests/data/traces/helios.csv: 4 GPU jobs, 2 CPU jobs, 1 job that never started.
        let trace = read_file("tests/data/traces/helios.csv", TraceFormat::Helios).unwrap();
        assert_eq!(trace.jobs.len(), 4);
        assert_eq!(trace.dropped.no_gpu, 2);
        assert_eq!(trace.dropped.never_started, 1);
        assert_eq!(trace.team(0), Some("vc7Y1"));
        // 8 GPUs x 7200 s + 1 x 64 s + 16 x 36000 s + 2 x 600 s, in hours.
        let expected = (8.0 * 7200.0 + 64.0 + 16.0 * 36_000.0 + 2.0 * 600.0) / 3600.0;
        assert!((trace.gpu_hours() - expected).abs() < 1e-9);
        assert_eq!(trace.origin, Some(jiff::civil::date(2020, 4, 1)));
        assert_eq!(trace.jobs[0].submit_h, 0.0 + 12.0 / 3600.0);
    }

    #[test]
    fn an_acme_trace_reads_with_users_as_teams() {
        // tests/data/traces/acme.csv: 3 GPU jobs, 1 CPU job; one job's duration is empty and
        // comes from end_time - start_time.
        let trace = read_file("tests/data/traces/acme.csv", TraceFormat::Acme).unwrap();
        assert_eq!(trace.jobs.len(), 3);
        assert_eq!(trace.dropped.no_gpu, 1);
        assert_eq!(trace.team(0), Some("u01"));
        let durations: Vec<f64> = trace
            .jobs
            .iter()
            .map(|j| (j.duration_h * 3600.0).round())
            .collect();
        assert_eq!(durations, [122.0, 3600.0, 86_400.0]);
        assert_eq!(trace.jobs[2].gpus, 1024);
    }

    #[test]
    fn bad_helios_rows_are_named() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
        let cases = [
            (
                "job_id,user\n",
                "the header lacks the columns `submit_time`, `gpu_num`",
            ),
            (
                "j1,u,v,two,1,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:01,2020-04-01 00:01:00,59,1\n",
                "line 2, column 4 (`gpu_num`): must be a whole number of GPUs",
            ),
            (
                "j1,u,v,1,1,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:01,2020-04-01 00:01:00,-59,1\n",
                "line 2, column 11 (`duration`): must be a duration of at least 0 seconds",
            ),
            (
                "j1,u,v,1,1,1,COMPLETED,April,2020-04-01 00:00:01,2020-04-01 00:01:00,59,1\n",
                "line 2, column 8 (`submit_time`): must be a date and time",
            ),
        ];
        for (i, (text, fragment)) in cases.iter().enumerate() {
            let path = dir.join(format!("bad-{i}.csv"));
            let text = if text.starts_with("job_id") {
                text.to_string()
            } else {
                format!("{header}{text}")
            };
            std::fs::write(&path, text).unwrap();
            let error = read_file(path.to_str().unwrap(), TraceFormat::Helios)
                .unwrap_err()
                .to_string();
            assert!(error.contains(fragment), "{error}\nlacks\n{fragment}");
        }
    }
}
