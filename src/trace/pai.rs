//! Alibaba PAI `cluster-trace-gpu-v2020`: `pai_job_table.csv` plus `pai_task_table.csv`.
//!
//! `trace` names the job table, or the folder holding both; the task table is the
//! `pai_task_table.csv` beside the job table. The published tables have no header line: then
//! the columns are, in order, `job_name, inst_id, user, status, start_time, end_time` and
//! `job_name, task_name, inst_num, status, start_time, end_time, plan_cpu, plan_mem, plan_gpu,
//! gpu_type` (a header line naming them is accepted too).
//!
//! Arrival: the job's `start_time` (PAI's submission time), seconds from the trace's start.
//! GPUs: the sum of `plan_gpu / 100 x inst_num` over the job's tasks (`plan_gpu` is percent of
//! one GPU); fractional totals are rounded up to whole GPUs, counted in a warning. Duration:
//! from the first task start to the last task end. GPU type: the tasks' `gpu_type`. The team is
//! `user`. CPU-only jobs, jobs never started and jobs still running are left out and counted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::table::{Header, Table};
use super::{Builder, Column, NewJob, Stamp, TraceError};

const JOB_COLUMNS: [&str; 6] = [
    "job_name",
    "inst_id",
    "user",
    "status",
    "start_time",
    "end_time",
];
const TASK_COLUMNS: [&str; 10] = [
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];

/// The job and task tables `trace` names.
pub fn tables(path: &Path) -> (PathBuf, PathBuf) {
    if path.is_dir() {
        (
            path.join("pai_job_table.csv"),
            path.join("pai_task_table.csv"),
        )
    } else {
        let dir = path.parent().unwrap_or(Path::new(""));
        (path.to_path_buf(), dir.join("pai_task_table.csv"))
    }
}

/// A job of the job table while its tasks are read.
struct Job {
    submit_s: f64,
    line: u64,
    user: String,
    status: String,
    gpu_fraction: f64,
    first_start_s: f64,
    last_end_s: f64,
    started: bool,
    unfinished: bool,
    gpu_type: String,
}

/// A number, `Ok(None)` when the value is missing (empty, `NaN`, `None`), `Err` for text.
fn number(text: &str) -> Result<Option<f64>, ()> {
    match text {
        "" | "NaN" | "nan" | "None" | "null" => Ok(None),
        _ => text.parse::<f64>().map(Some).map_err(|_| ()),
    }
}

/// The number in column `index` of `row`, or an error naming it.
fn number_at(
    row: &super::table::Row<'_>,
    index: usize,
    what: &str,
) -> Result<Option<f64>, TraceError> {
    let text = row.get(index)?;
    match number(text) {
        Ok(Some(value)) if !value.is_finite() || value < 0.0 => {
            Err(row.fail(index, format!("must be {what} of at least 0, got {text}")))
        }
        Ok(value) => Ok(value),
        Err(()) => Err(row.fail(
            index,
            format!("must be {what}, got \"{}\"", super::time::shorten(text)),
        )),
    }
}

pub fn read(path: &Path, builder: &mut Builder) -> Result<(), TraceError> {
    let (job_path, task_path) = tables(path);
    let (mut jobs, by_name) = read_jobs(job_path, builder)?;
    read_tasks(&task_path, builder, &mut jobs, &by_name)?;
    push_jobs(jobs, builder)
}

/// The jobs of pai_job_table.csv, and each one's index by name.
fn read_jobs(
    job_path: PathBuf,
    builder: &mut Builder,
) -> Result<(Vec<Job>, HashMap<String, usize>), TraceError> {
    let mut jobs: Vec<Job> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();

    let mut table = Table::open(
        &job_path,
        b',',
        true,
        Header::Optional {
            first: "job_name",
            names: &JOB_COLUMNS,
        },
    )?;
    let hint = " (pai_job_table.csv has job_name, inst_id, user, status, start_time, end_time)";
    let [name, start] = table.require(["job_name", "start_time"], hint)?;
    let (user, status) = (table.find("user"), table.find("status"));
    while let Some(row) = table.next_row()? {
        builder.rows += 1;
        let job_name = row.required(name)?;
        let Some(submit_s) = number_at(&row, start, "seconds from the trace's start")? else {
            builder.dropped.no_submit += 1;
            continue;
        };
        if by_name.contains_key(job_name) {
            return Err(row.fail(
                name,
                format!("repeats the job `{job_name}` of an earlier line"),
            ));
        }
        by_name.insert(job_name.to_string(), jobs.len());
        jobs.push(Job {
            submit_s,
            line: row.line,
            user: row.get_opt(user)?.to_string(),
            status: row.get_opt(status)?.to_string(),
            gpu_fraction: 0.0,
            first_start_s: f64::INFINITY,
            last_end_s: f64::NEG_INFINITY,
            started: false,
            unfinished: false,
            gpu_type: String::new(),
        });
        if jobs.len() > super::TRACE_JOBS_MAX {
            return Err(TraceError::TooManyJobs { path: job_path });
        }
    }
    Ok((jobs, by_name))
}

/// Adds each task of pai_task_table.csv to its job: GPUs (`plan_gpu` percent x instances),
/// GPU type, first start and last end.
fn read_tasks(
    task_path: &Path,
    builder: &mut Builder,
    jobs: &mut [Job],
    by_name: &HashMap<String, usize>,
) -> Result<(), TraceError> {
    let mut table = Table::open(
        task_path,
        b',',
        true,
        Header::Optional {
            first: "job_name",
            names: &TASK_COLUMNS,
        },
    )
    .map_err(|error| match error {
        TraceError::Read { path, cause } if cause.kind() == std::io::ErrorKind::NotFound => {
            TraceError::file(
                &path,
                "cannot be read: a PAI trace needs pai_task_table.csv beside pai_job_table.csv",
            )
        }
        other => other,
    })?;
    let hint = " (pai_task_table.csv has job_name, task_name, inst_num, status, start_time, end_time, plan_cpu, plan_mem, plan_gpu, gpu_type)";
    let [name, inst_num, start, end, plan_gpu] = table.require(
        ["job_name", "inst_num", "start_time", "end_time", "plan_gpu"],
        hint,
    )?;
    let gpu_type = table.find("gpu_type");
    builder.gpus_column = Column::new(0, "plan_gpu x inst_num");
    if let Some(g) = gpu_type {
        builder.gpu_column = table.column(g);
    }
    while let Some(row) = table.next_row()? {
        let Some(&j) = by_name.get(row.required(name)?) else {
            builder.dropped.orphan_tasks += 1;
            continue;
        };
        let percent = number_at(&row, plan_gpu, "percent of a GPU")?.unwrap_or(0.0);
        let instances = number_at(&row, inst_num, "a count of instances")?.unwrap_or(1.0);
        let job = &mut jobs[j];
        if percent > 0.0 {
            job.gpu_fraction += percent / 100.0 * instances;
            let kind = row.get_opt(gpu_type)?;
            if job.gpu_type.is_empty() && !kind.is_empty() {
                job.gpu_type = kind.to_string();
            }
        }
        // A start of 0 or none: the task never ran.
        let task_start = number_at(&row, start, "seconds from the trace's start")?;
        let task_end = number_at(&row, end, "seconds from the trace's start")?;
        match task_start {
            Some(s) if s > 0.0 => {
                job.started = true;
                job.first_start_s = job.first_start_s.min(s);
                match task_end {
                    Some(e) if e > 0.0 => {
                        if e < s {
                            return Err(row.fail(
                                end,
                                format!(
                                    "is before the task's start_time ({s}): a negative duration"
                                ),
                            ));
                        }
                        job.last_end_s = job.last_end_s.max(e);
                    }
                    _ => job.unfinished = true,
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Hands the jobs that ran on GPUs and finished to the builder; counts the others.
fn push_jobs(jobs: Vec<Job>, builder: &mut Builder) -> Result<(), TraceError> {
    for job in jobs {
        if job.gpu_fraction <= 0.0 {
            builder.dropped.no_gpu += 1;
            continue;
        }
        if !job.started {
            builder.dropped.never_started += 1;
            continue;
        }
        if job.unfinished {
            builder.dropped.unfinished += 1;
            continue;
        }
        let gpus = (job.gpu_fraction - 1e-9).ceil().max(1.0);
        let duration_s = job.last_end_s - job.first_start_s;
        if gpus > job.gpu_fraction + 1e-9 {
            builder.rounded_up.0 += 1;
            builder.rounded_up.1 += (gpus - job.gpu_fraction) * duration_s / 3600.0;
        }
        let line = job.line;
        builder.push(
            NewJob {
                submit: Stamp::Relative(job.submit_s),
                duration_s,
                gpus: gpus.min(f64::from(u32::MAX)) as u32,
                line,
                team: Some(&job.user),
                gpu: Some(&job.gpu_type),
                checkpointable: None,
                state: Some(&job.status),
            },
            || format!("line {line}"),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{ReadOptions, TimeZoneSpec, TraceFormat, read as read_trace};
    use super::*;

    #[test]
    fn pai_jobs_sum_their_tasks_gpus() {
        // tests/data/traces/pai/: 5 jobs. j1: a worker task of 8 instances x 100 % on V100
        // and a CPU ps task, 1000 s to 4600 s. j2: 50 % of a T4, rounded up to 1 GPU. j3: CPU
        // only. j4: never started. j5: still running. Plus a task of a job not in the table.
        let options = ReadOptions {
            format: TraceFormat::Pai,
            timezone: TimeZoneSpec::Utc,
        };
        let by_folder = read_trace(Path::new("tests/data/traces/pai"), &options).unwrap();
        let by_file = read_trace(
            Path::new("tests/data/traces/pai/pai_job_table.csv"),
            &options,
        )
        .unwrap();
        assert_eq!(by_folder.jobs, by_file.jobs);
        let trace = by_folder;
        assert_eq!(trace.jobs.len(), 2);
        assert_eq!(trace.origin, None);
        assert_eq!(trace.jobs[0].gpus, 8);
        assert_eq!(trace.jobs[0].duration_h, 1.0);
        assert_eq!(trace.gpu_type(0), Some("V100"));
        assert_eq!(trace.team(0), Some("u1"));
        assert_eq!(trace.jobs[0].submit_h, 900.0 / 3600.0);
        assert_eq!(trace.jobs[1].gpus, 1);
        assert_eq!(trace.gpu_type(1), Some("T4"));
        assert_eq!(trace.rounded_up.0, 1);
        // Half a GPU added for 7200 s.
        assert!((trace.rounded_up.1 - 1.0).abs() < 1e-12);
        assert_eq!(trace.dropped.no_gpu, 1);
        assert_eq!(trace.dropped.never_started, 1);
        assert_eq!(trace.dropped.unfinished, 1);
        assert_eq!(trace.dropped.orphan_tasks, 1);
    }
}
