//! Slurm accounting as `sacct` prints it:
//!
//! ```text
//! sacct --allocations --parsable2 --format=JobID,Submit,Start,End,Elapsed,AllocTRES,State,Account,Partition
//! ```
//!
//! `|`-separated, a header line, columns found by name in any order. GPUs come from
//! `gres/gpu=N` (or `gres/gpu:TYPE=N`, which also gives the type) in AllocTRES; the team from
//! Account; the duration from Elapsed, else End - Start. Job steps (`123.batch`, `123.0`) are
//! skipped even if listed; jobs that never started, were still running, or held no GPU are
//! left out and counted. Times without a zone are in `trace_timezone` (UTC by default).

use std::path::Path;

use super::table::{Header, Table};
use super::time::{parse_date_time, parse_elapsed};
use super::{Builder, NewJob, Stamp, TimeZoneSpec, TraceError};

const HINT: &str = " (export with: sacct --allocations --parsable2 --format=JobID,Submit,Start,End,Elapsed,AllocTRES,State,Account,Partition)";

/// A job's GPUs from AllocTRES: the count and the type, if typed entries name one.
pub fn gpus_of_tres(tres: &str) -> Result<(u32, Option<&str>), String> {
    let mut untyped: Option<u32> = None;
    let mut typed: Vec<(&str, u32)> = Vec::new();
    for entry in tres.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((key, value)) = entry.split_once('=') else {
            continue;
        };
        let Some(rest) = key.strip_prefix("gres/gpu") else {
            continue;
        };
        let count = value
            .parse::<u32>()
            .map_err(|_| format!("`{entry}` must give a whole number of GPUs"))?;
        match rest.strip_prefix(':') {
            None if rest.is_empty() => untyped = Some(count),
            Some(kind) if !kind.is_empty() => typed.push((kind, count)),
            _ => {}
        }
    }
    let typed_total: u32 = typed.iter().map(|(_, n)| *n).sum();
    let count = untyped.unwrap_or(typed_total);
    // The type holding most of the job's GPUs (the first of equals).
    let kind = typed
        .iter()
        .filter(|(_, n)| *n > 0)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k);
    Ok((count, kind))
}

/// How many GPU types with GPUs AllocTRES names (`gres/gpu:TYPE=N`, N > 0).
fn typed_kinds(tres: &str) -> usize {
    let mut kinds: Vec<&str> = tres
        .split(',')
        .filter_map(|entry| entry.trim().split_once('='))
        .filter(|(_, count)| count.parse::<u32>().is_ok_and(|n| n > 0))
        .filter_map(|(key, _)| key.strip_prefix("gres/gpu:"))
        .filter(|kind| !kind.is_empty())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.len()
}

pub fn read(path: &Path, tz: &TimeZoneSpec, builder: &mut Builder) -> Result<(), TraceError> {
    let tz = tz.time_zone();
    let mut table = Table::open(path, b'|', false, Header::Required)?;
    let [job_id, submit, start, tres] =
        table.require(["JobID", "Submit", "Start", "AllocTRES"], HINT)?;
    let elapsed = table.find("Elapsed");
    let end = table.find("End");
    if elapsed.is_none() && end.is_none() {
        return Err(table.missing(&["Elapsed"], HINT));
    }
    let state = table.find("State");
    let account = table.find("Account");
    builder.gpus_column = table.column(tres);
    builder.gpu_column = table.column(tres);
    while let Some(row) = table.next_row()? {
        let id = row.required(job_id)?;
        if id.contains('.') {
            continue; // A job step: its allocation is the job's.
        }
        builder.rows += 1;
        let state_text = row.get_opt(state)?;
        let state_word = state_text.split_whitespace().next().unwrap_or("");
        let start_text = row.get(start)?;
        if matches!(start_text, "" | "Unknown" | "None") || state_word == "PENDING" {
            builder.dropped.never_started += 1;
            continue;
        }
        let end_text = row.get_opt(end)?;
        if matches!(state_word, "RUNNING" | "REQUEUED" | "SUSPENDED")
            || (elapsed.is_none() && matches!(end_text, "" | "Unknown" | "None"))
        {
            builder.dropped.unfinished += 1;
            continue;
        }
        let tres_text = row.get(tres)?;
        let (gpus, kind) = gpus_of_tres(tres_text).map_err(|p| row.fail(tres, p))?;
        if typed_kinds(tres_text) > 1 {
            builder.mixed_types += 1;
        }
        if gpus == 0 {
            builder.dropped.no_gpu += 1;
            continue;
        }
        let submit_s =
            parse_date_time(row.required(submit)?, &tz).map_err(|p| row.fail(submit, p))?;
        let duration_s = match elapsed.map(|e| (e, row.get(e))) {
            Some((e, text)) if !text.as_ref().is_ok_and(|t| t.is_empty()) => {
                parse_elapsed(text?).map_err(|p| row.fail(e, p))?
            }
            _ => {
                let end = end.expect("End or Elapsed is in the header");
                let start_s = parse_date_time(start_text, &tz).map_err(|p| row.fail(start, p))?;
                let end_s =
                    parse_date_time(row.required(end)?, &tz).map_err(|p| row.fail(end, p))?;
                if end_s < start_s {
                    return Err(row.fail(
                        end,
                        format!("is before Start ({start_text}): a negative duration"),
                    ));
                }
                end_s - start_s
            }
        };
        let job = NewJob {
            submit: Stamp::Absolute(submit_s),
            duration_s,
            gpus,
            line: row.line,
            team: Some(row.get_opt(account)?),
            gpu: kind,
            checkpointable: None,
            state: Some(state_word),
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

    fn read_file(path: &str, timezone: TimeZoneSpec) -> Result<Trace, TraceError> {
        read_trace(
            Path::new(path),
            &ReadOptions {
                format: TraceFormat::Slurm,
                timezone,
            },
        )
    }

    #[test]
    fn mixed_gpu_types_are_counted() {
        assert_eq!(
            typed_kinds("cpu=4,gres/gpu:a100=2,gres/gpu:h100=2,gres/gpu=4"),
            2
        );
        assert_eq!(typed_kinds("gres/gpu:a100=2,gres/gpu=2"), 1);
        assert_eq!(typed_kinds("gres/gpu:a100=0,gres/gpu:h100=2"), 1);
        assert_eq!(typed_kinds("gres/gpu=2"), 0);
    }

    #[test]
    fn tres_give_gpu_counts_and_types() {
        assert_eq!(
            gpus_of_tres("billing=1,cpu=1,gres/gpu=2,mem=1G,node=1"),
            Ok((2, None))
        );
        assert_eq!(
            gpus_of_tres("cpu=8,gres/gpu:a100=4,gres/gpu=4,node=1"),
            Ok((4, Some("a100")))
        );
        assert_eq!(gpus_of_tres("cpu=8,gres/gpu:h100=8"), Ok((8, Some("h100"))));
        assert_eq!(gpus_of_tres("cpu=1,mem=1G,node=1"), Ok((0, None)));
        assert_eq!(gpus_of_tres(""), Ok((0, None)));
        assert!(gpus_of_tres("gres/gpu=two").is_err());
    }

    #[test]
    fn a_sacct_export_reads_with_steps_and_unstarted_jobs_left_out() {
        // tests/data/traces/slurm.txt: 5 jobs with GPUs (one typed), 2 steps, a pending job,
        // a job cancelled before it started, a running job and a CPU job.
        let trace = read_file("tests/data/traces/slurm.txt", TimeZoneSpec::Utc).unwrap();
        assert_eq!(trace.jobs.len(), 5);
        assert_eq!(trace.dropped.never_started, 2);
        assert_eq!(trace.dropped.unfinished, 1);
        assert_eq!(trace.dropped.no_gpu, 1);
        assert_eq!(trace.origin, Some(jiff::civil::date(2024, 3, 4)));
        // Job 101: submitted 09:00:00, Elapsed 01:30:00 on 2 GPUs, account nlp.
        let first = trace.jobs[0];
        assert_eq!(first.submit_h, 9.0);
        assert_eq!(first.duration_h, 1.5);
        assert_eq!(first.gpus, 2);
        assert_eq!(trace.team(0), Some("nlp"));
        // Job 103: typed GRES, 1-00:00:00 elapsed.
        let typed = trace.jobs.iter().position(|j| j.gpus == 8).unwrap();
        assert_eq!(trace.gpu_type(typed), Some("a100"));
        assert_eq!(trace.jobs[typed].duration_h, 24.0);
        // GPU-hours by hand: 2*1.5 + 1*0.25 + 8*24 + 4*(10/60) + 1*(2+5/60).
        let expected = 3.0 + 0.25 + 192.0 + 4.0 * 10.0 / 60.0 + 2.0 + 5.0 / 60.0;
        assert!(
            (trace.gpu_hours() - expected).abs() < 1e-9,
            "{}",
            trace.gpu_hours()
        );
    }

    #[test]
    fn local_times_follow_the_trace_time_zone() {
        let utc = read_file("tests/data/traces/slurm.txt", TimeZoneSpec::Utc).unwrap();
        let berlin = read_file(
            "tests/data/traces/slurm.txt",
            TimeZoneSpec::parse("Europe/Berlin").unwrap(),
        )
        .unwrap();
        // March 2024 in Berlin is UTC+1: every job is an hour earlier in UTC.
        assert_eq!(berlin.jobs[0].submit_h, utc.jobs[0].submit_h - 1.0);
    }

    #[test]
    fn bad_sacct_rows_are_named() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let header = "JobID|Submit|Start|End|Elapsed|AllocTRES|State|Account|Partition\n";
        let cases = [
            (
                "JobID|Submit|Start\n",
                "line 1: the header lacks the column `AllocTRES` (export with: sacct",
            ),
            (
                "JobID|Submit|Start|AllocTRES\n",
                "the header lacks the column `Elapsed`",
            ),
            (
                "1|yesterday|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|gres/gpu=1|COMPLETED|a|p\n",
                "line 2, column 2 (`Submit`): must be a date and time",
            ),
            (
                "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|one hour|gres/gpu=1|COMPLETED|a|p\n",
                "line 2, column 5 (`Elapsed`): must be an elapsed time",
            ),
            (
                "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|gres/gpu=x|COMPLETED|a|p\n",
                "line 2, column 6 (`AllocTRES`): `gres/gpu=x` must give a whole number",
            ),
        ];
        for (i, (text, fragment)) in cases.iter().enumerate() {
            let path = dir.join(format!("bad-{i}.txt"));
            let text = if text.starts_with("JobID") {
                text.to_string()
            } else {
                format!("{header}{text}")
            };
            std::fs::write(&path, text).unwrap();
            let error = read_file(path.to_str().unwrap(), TimeZoneSpec::Utc)
                .unwrap_err()
                .to_string();
            assert!(error.contains(fragment), "{error}\nlacks\n{fragment}");
        }
        // End before Start, without Elapsed.
        let path = dir.join("negative.txt");
        std::fs::write(
            &path,
            "JobID|Submit|Start|End|AllocTRES\n1|2024-01-01T00:00:00|2024-01-01T02:00:00|2024-01-01T01:00:00|gres/gpu=1\n",
        )
        .unwrap();
        let error = read_file(path.to_str().unwrap(), TimeZoneSpec::Utc)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line 2, column 4 (`End`): is before Start"),
            "{error}"
        );
    }
}
