//! Microsoft Philly's `cluster_job_log`: a JSON list of jobs, read one job at a time.
//!
//! ```json
//! [{"status": "Pass", "vc": "6214e9", "jobid": "application_1506638472019_10238",
//!   "submitted_time": "2017-10-03 02:53:50", "user": "...",
//!   "attempts": [{"start_time": "2017-10-03 02:54:06", "end_time": "2017-10-03 03:33:32",
//!                 "detail": [{"ip": "m194", "gpus": ["gpu0", "gpu1"]}]}]}]
//! ```
//!
//! Arrival: `submitted_time`. GPUs: the `gpus` listed in the `detail` of the last attempt
//! (over all its machines). Duration: the sum of the attempts' run times (a retried job used
//! its GPUs in every attempt). The team is `vc`. Jobs that never started (no attempt with a
//! start time), were still running (an attempt without an end) or held no GPU are left out and
//! counted. Times have no zone: `trace_timezone` (UTC by default).

use std::fmt;
use std::path::Path;
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess, Visitor};

use super::time::{parse_date_time, shorten};
use super::{Builder, Counters, NewJob, Stamp, TimeZoneSpec, TraceError, io_error, open};

#[derive(Debug, Deserialize)]
struct Job {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    vc: Option<String>,
    #[serde(default)]
    jobid: Option<String>,
    #[serde(default)]
    submitted_time: Option<String>,
    #[serde(default)]
    attempts: Option<Vec<Attempt>>,
}

#[derive(Debug, Deserialize)]
struct Attempt {
    #[serde(default)]
    start_time: Option<String>,
    #[serde(default)]
    end_time: Option<String>,
    #[serde(default)]
    detail: Option<Vec<Detail>>,
}

#[derive(Debug, Deserialize)]
struct Detail {
    #[serde(default)]
    gpus: Option<Vec<IgnoredAny>>,
}

fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "None" && *t != "null")
}

/// Streams the list: each job becomes a [`NewJob`] as soon as it is parsed.
struct Jobs<'a> {
    builder: &'a mut Builder,
    tz: jiff::tz::TimeZone,
    counters: Rc<Counters>,
    /// A problem found in a job (serde only carries text; this keeps the whole error).
    failed: Option<TraceError>,
}

impl Jobs<'_> {
    fn add(&mut self, job: Job, line: u64) -> Result<(), TraceError> {
        let path = self.builder.path().to_path_buf();
        let name = job
            .jobid
            .as_deref()
            .map_or_else(String::new, |id| format!(" (job \"{}\")", shorten(id)));
        let fail = |field: &str, problem: String| TraceError::Value {
            path: path.clone(),
            at: format!("line {line}{name}, `{field}`"),
            problem,
        };
        self.builder.rows += 1;
        let Some(submitted) = given(&job.submitted_time) else {
            self.builder.dropped.no_submit += 1;
            return Ok(());
        };
        let attempts = job.attempts.unwrap_or_default();
        let started: Vec<&Attempt> = attempts
            .iter()
            .filter(|a| given(&a.start_time).is_some())
            .collect();
        let Some(last) = started.last() else {
            self.builder.dropped.never_started += 1;
            return Ok(());
        };
        if started.iter().any(|a| given(&a.end_time).is_none()) {
            self.builder.dropped.unfinished += 1;
            return Ok(());
        }
        let gpus: usize = last
            .detail
            .iter()
            .flatten()
            .map(|d| d.gpus.as_ref().map_or(0, Vec::len))
            .sum();
        if gpus == 0 {
            self.builder.dropped.no_gpu += 1;
            return Ok(());
        }
        let mut duration_s = 0.0;
        for attempt in &started {
            let start = given(&attempt.start_time).expect("filtered");
            let end = given(&attempt.end_time).expect("checked");
            let start_s =
                parse_date_time(start, &self.tz).map_err(|p| fail("attempts.start_time", p))?;
            let end_s = parse_date_time(end, &self.tz).map_err(|p| fail("attempts.end_time", p))?;
            if end_s < start_s {
                return Err(fail(
                    "attempts.end_time",
                    format!("is before its start_time ({start}): a negative duration"),
                ));
            }
            duration_s += end_s - start_s;
        }
        let submit_s =
            parse_date_time(submitted, &self.tz).map_err(|p| fail("submitted_time", p))?;
        let new = NewJob {
            submit: Stamp::Absolute(submit_s),
            duration_s,
            gpus: u32::try_from(gpus).unwrap_or(u32::MAX),
            line,
            team: given(&job.vc),
            gpu: None,
            checkpointable: None,
            state: given(&job.status),
        };
        let at = format!("line {line}{name}, `submitted_time`");
        self.builder.push(new, || at)
    }
}

impl<'de> Visitor<'de> for &mut Jobs<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of Philly jobs [{\"jobid\": ..., \"attempts\": [...]}, ...]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            self.counters.reset_element();
            let Some(job) = seq.next_element::<Job>()? else {
                return Ok(());
            };
            let line = self.counters.line.get();
            if let Err(error) = self.add(job, line) {
                self.failed = Some(error);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for &mut Jobs<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

pub fn read(path: &Path, tz: &TimeZoneSpec, builder: &mut Builder) -> Result<(), TraceError> {
    let input = open(path, false)?;
    let counters = input.counters();
    builder.gpus_column = super::Column::new(0, "attempts.detail.gpus");
    let mut jobs = Jobs {
        builder,
        tz: tz.time_zone(),
        counters,
        failed: None,
    };
    let mut deserializer = serde_json::Deserializer::from_reader(input);
    let result = (&mut jobs)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    if let Some(error) = jobs.failed.take() {
        return Err(error);
    }
    result.map_err(|error| json_error(path, error))
}

pub fn json_error(path: &Path, error: serde_json::Error) -> TraceError {
    if error.is_io() {
        return io_error(path, std::io::Error::from(error));
    }
    let (line, column) = (error.line(), error.column());
    let text = error.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    TraceError::Value {
        path: path.to_path_buf(),
        at: format!("line {line}, column {column}"),
        problem: format!("is not Philly's JSON job list: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ReadOptions, TraceFormat, read as read_trace};
    use super::*;

    fn read_file(path: &Path) -> Result<super::super::Trace, TraceError> {
        read_trace(
            path,
            &ReadOptions {
                format: TraceFormat::Philly,
                timezone: TimeZoneSpec::Utc,
            },
        )
    }

    #[test]
    fn a_philly_log_reads_attempts_and_gpus() {
        // tests/data/traces/philly.json: 3 jobs that ran, 1 that never started, 1 still
        // running, 1 without a submit time.
        let trace = read_file(Path::new("tests/data/traces/philly.json")).unwrap();
        assert_eq!(trace.jobs.len(), 3);
        assert_eq!(trace.dropped.never_started, 1);
        assert_eq!(trace.dropped.unfinished, 1);
        assert_eq!(trace.dropped.no_submit, 1);
        assert_eq!(trace.team(0), Some("6214e9"));
        // Job 1: one attempt of 39 min 26 s on 2 GPUs. Job 2: two attempts, 10 min and 20 min,
        // the last on 2 machines x 4 GPUs. Job 3: 1 GPU for 1 h.
        assert_eq!(trace.jobs[0].gpus, 2);
        assert_eq!(trace.jobs[0].duration_h * 3600.0, 39.0 * 60.0 + 26.0);
        assert_eq!(trace.jobs[1].gpus, 8);
        assert_eq!(trace.jobs[1].duration_h, 0.5);
        assert_eq!(trace.jobs[2].gpus, 1);
        assert_eq!(trace.jobs[0].line, 6);
    }

    #[test]
    fn broken_json_is_named_by_line_and_column() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let cases = [
            (
                "[{\"jobid\": \"a\",\n \"submitted_time\": 5",
                "line 2, column 20: is not Philly's JSON job list: invalid type: integer `5`, expected a string",
            ),
            (
                "[{\"jobid\": \"a\",\n \"submitted_time\"",
                "line 2, column 17: is not Philly's JSON job list: EOF while parsing an object",
            ),
            (
                "{\"jobid\": 1}",
                "line 1, column 1: is not Philly's JSON job list: invalid type: map, expected a list of Philly jobs",
            ),
            (
                "[{\"jobid\": \"x\", \"submitted_time\": \"2017-10-03 02:53:50\", \"attempts\": [{\"start_time\": \"2017-10-03 03:00:00\", \"end_time\": \"2017-10-03 02:00:00\", \"detail\": [{\"gpus\": [\"gpu0\"]}]}]}]",
                "line 1 (job \"x\"), `attempts.end_time`: is before its start_time",
            ),
            (
                "[{\"jobid\": \"y\", \"submitted_time\": \"soon\", \"attempts\": [{\"start_time\": \"2017-10-03 03:00:00\", \"end_time\": \"2017-10-03 04:00:00\", \"detail\": [{\"gpus\": [\"gpu0\"]}]}]}]",
                "line 1 (job \"y\"), `submitted_time`: must be a date and time",
            ),
        ];
        for (i, (text, fragment)) in cases.iter().enumerate() {
            let path = dir.join(format!("bad-{i}.json"));
            std::fs::write(&path, text).unwrap();
            let error = read_file(&path).unwrap_err().to_string();
            assert!(error.contains(fragment), "{error}\nlacks\n{fragment}");
        }
    }
}
