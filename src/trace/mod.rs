//! Job traces: a cluster's real job history as input.
//!
//! A `[[workload]]` with `trace = "path"` replays the jobs of a file instead of drawing them
//! from rates and distributions, and `fleetsim fit` turns one into workloads. This module
//! reads those files: one reader per format, each streaming its file row by row into a compact
//! [`Trace`] (32 bytes per job). It knows no scenario: `scenario` calls it while loading (the
//! model does no I/O) and shares the trace behind an `Arc` with every replication and thread.
//!
//! - [`table`]: the delimited-text reader the CSV-like formats share (header by name, rows with
//!   line numbers, every value error with file, line, column and field).
//! - [`csv`] (fleetsim's own CSV), [`slurm`] (`sacct --parsable2`), [`cluster_log`] (Helios and
//!   Acme), [`philly`] (JSON), [`pai`] (job and task tables), [`openb`] (Alibaba 2023 pods).
//! - [`time`]: timestamps, time zones and Slurm's elapsed times.
//!
//! What a scenario makes of a trace (replay, growth, GPU types) is `scenario::inputs::replay`;
//! `fit` fits workloads to one.
//!
//! Guards: a file that is compressed or binary is refused up front, a line longer than
//! [`LINE_BYTES_MAX`] or a trace of more than [`TRACE_JOBS_MAX`] jobs is an error, never
//! unbounded memory.

pub mod cluster_log;
pub mod csv;
pub mod openb;
pub mod pai;
pub mod philly;
pub mod slurm;
pub mod table;
pub mod time;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

pub use time::TimeZoneSpec;

/// Jobs one trace may hold: 20 million jobs are about 640 MB. The largest public GPU trace
/// (Helios) has 3.4 million jobs.
pub const TRACE_JOBS_MAX: usize = 20_000_000;
/// A line longer than this is not a trace row (a binary file, or a file without newlines).
pub const LINE_BYTES_MAX: u64 = 1 << 20;
/// A JSON job (one element of Philly's list) larger than this is refused.
pub const JSON_JOB_BYTES_MAX: u64 = 16 << 20;
/// GPUs one job may hold: the scenario's bound for `gpus` (1024 nodes of 1024 GPUs).
pub const JOB_GPUS_MAX: u32 = 1 << 20;
/// A job's duration, and a trace's span, may be at most a century: more is a unit mistake.
pub const CENTURY_S: f64 = 100.0 * 365.25 * 86_400.0;

/// The formats `trace_format` names.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// fleetsim's own CSV: submit_time, duration_h or duration_s, gpus (+ optional columns).
    Csv,
    /// `sacct --allocations --parsable2 --format=JobID,Submit,Start,End,Elapsed,AllocTRES,State,Account,Partition`.
    Slurm,
    /// SenseTime Helios `cluster_log.csv`.
    Helios,
    /// Shanghai AI Lab Acme `trace_seren.csv` / `trace_kalos.csv`.
    Acme,
    /// Microsoft Philly `cluster_job_log` (JSON).
    Philly,
    /// Alibaba PAI 2020: `pai_job_table.csv` plus `pai_task_table.csv`.
    Pai,
    /// Alibaba 2023 (openb) pod lists.
    Openb,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 7] = [
        TraceFormat::Csv,
        TraceFormat::Slurm,
        TraceFormat::Helios,
        TraceFormat::Acme,
        TraceFormat::Philly,
        TraceFormat::Pai,
        TraceFormat::Openb,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TraceFormat::Csv => "csv",
            TraceFormat::Slurm => "slurm",
            TraceFormat::Helios => "helios",
            TraceFormat::Acme => "acme",
            TraceFormat::Philly => "philly",
            TraceFormat::Pai => "pai",
            TraceFormat::Openb => "openb",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// No team, GPU type or state: the trace does not say.
pub const NONE: u32 = u32::MAX;

/// One job of a trace: 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceJob {
    /// Submit time, hours from the trace's origin (see [`Trace::origin`]).
    pub submit_h: f64,
    /// Observed run time, hours: work at speed 1 of the job's GPU type.
    pub duration_h: f64,
    /// GPUs the job held at once (at least 1).
    pub gpus: u32,
    /// Line of the job in the file (its first line), for messages; saturates at `u32::MAX`.
    pub line: u32,
    /// Index into [`Trace::teams`], or [`NONE`].
    pub team: u32,
    /// Index into [`Trace::gpu_types`] plus 1; 0 when the trace gives no type for the job.
    pub gpu: u16,
    /// Whether the job may checkpoint: 0 not given, 1 no, 2 yes.
    pub checkpointable: u8,
    /// Index into [`Trace::states`], or `u8::MAX` when not given or beyond 254 states.
    pub state: u8,
}

const _: () = assert!(std::mem::size_of::<TraceJob>() == 32);

/// Why rows of a trace were left out, with how many.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dropped {
    /// Jobs that never started (no start time): they used no GPU.
    pub never_started: u64,
    /// Jobs still running or pending when the trace was taken (no end, no elapsed time).
    pub unfinished: u64,
    /// Jobs that asked for no GPU (CPU jobs).
    pub no_gpu: u64,
    /// Rows without a submit time (`None` in Philly).
    pub no_submit: u64,
    /// PAI tasks whose job is not in the job table.
    pub orphan_tasks: u64,
}

impl Dropped {
    pub fn total_jobs(&self) -> u64 {
        self.never_started + self.unfinished + self.no_gpu + self.no_submit
    }

    /// "12 never started, 3 asked for no GPU", or empty.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut add = |n: u64, what: &str| {
            if n > 0 {
                parts.push(format!("{} {what}", thousands(n)));
            }
        };
        add(self.never_started, "never started");
        add(
            self.unfinished,
            "were still running or pending when the trace was taken",
        );
        add(self.no_gpu, "asked for no GPU");
        add(self.no_submit, "have no submit time");
        add(
            self.orphan_tasks,
            "task rows name a job the job table lacks",
        );
        parts.join(", ")
    }
}

/// A trace as read: its jobs in submit order plus what the file said about them. It depends
/// only on the file, its format and time zone, never on a scenario, so sweeps share one copy.
#[derive(Clone)]
pub struct Trace {
    /// The file, as it is named in messages.
    pub path: PathBuf,
    pub format: TraceFormat,
    /// Sorted by submit time; jobs submitted at the same time keep their order in the file.
    pub jobs: Vec<TraceJob>,
    /// Times given as dates: the UTC day whose midnight is hour 0 (the day of the first
    /// job). `None`: times given as seconds from the trace's start, which is hour 0.
    pub origin: Option<jiff::civil::Date>,
    pub gpu_types: Vec<String>,
    pub teams: Vec<String>,
    pub states: Vec<String>,
    /// Where per-job values are in the file, for messages: column number (from 1) and name.
    pub gpus_column: Column,
    pub gpu_column: Column,
    pub dropped: Dropped,
    /// Jobs with fractional GPUs (PAI, openb), rounded up to whole GPUs, and the GPU-hours
    /// the rounding added.
    pub rounded_up: (u64, f64),
    /// Jobs whose GPUs were of several types (sacct `gres/gpu:a100=2,gres/gpu:h100=2`), each
    /// given the type holding most of them.
    pub mixed_types: u64,
    /// Jobs read, kept or left out (Slurm job steps are part of their job), for messages.
    pub rows: u64,
}

/// A column of a file, for messages: number from 1 and name (number 0: not a column, e.g. a
/// JSON field).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Column {
    pub number: usize,
    pub name: String,
}

impl Column {
    pub fn new(number: usize, name: &str) -> Self {
        Self {
            number,
            name: name.to_string(),
        }
    }
}

/// Everything but the jobs themselves, which are counted: a trace of a million jobs prints as
/// a line, and a sweep's points (which share one file's trace) print alike.
impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("jobs", &self.jobs.len())
            .field("origin", &self.origin)
            .field("gpu_types", &self.gpu_types)
            .field("teams", &self.teams)
            .field("states", &self.states)
            .field("gpus_column", &self.gpus_column)
            .field("gpu_column", &self.gpu_column)
            .field("dropped", &self.dropped)
            .field("rounded_up", &self.rounded_up)
            .field("mixed_types", &self.mixed_types)
            .field("rows", &self.rows)
            .finish()
    }
}

impl Trace {
    pub fn gpu_hours(&self) -> f64 {
        self.jobs
            .iter()
            .map(|j| f64::from(j.gpus) * j.duration_h)
            .sum()
    }

    /// Hours between the first and the last submit.
    pub fn span_h(&self) -> f64 {
        match (self.jobs.first(), self.jobs.last()) {
            (Some(first), Some(last)) => last.submit_h - first.submit_h,
            _ => 0.0,
        }
    }

    /// The team of job `j`, if the trace gives one.
    pub fn team(&self, j: usize) -> Option<&str> {
        let team = self.jobs[j].team;
        (team != NONE).then(|| self.teams[team as usize].as_str())
    }

    /// The GPU type of job `j`, if the trace gives one.
    pub fn gpu_type(&self, j: usize) -> Option<&str> {
        let gpu = self.jobs[j].gpu;
        (gpu != 0).then(|| self.gpu_types[usize::from(gpu) - 1].as_str())
    }

    /// "line 12, column 3 (`gpus`)" for job `j`'s value in `column`.
    pub fn at(&self, j: usize, column: &Column) -> String {
        let line = self.jobs[j].line;
        match column.number {
            0 if column.name.is_empty() => format!("line {line}"),
            0 => format!("line {line} (`{}`)", column.name),
            n => format!("line {line}, column {n} (`{}`)", column.name),
        }
    }
}

/// A trace that cannot be read, with the file, line, column and field where possible.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    // `cause`, not `source`: the message carries it (it also goes into scenario issues as
    // text), so a chain printed with `{:#}` does not say it twice.
    #[error("{}: cannot read trace file: {cause}", .path.display())]
    Read { path: PathBuf, cause: io::Error },
    #[error("{}: is {kind}-compressed; decompress it first (e.g. `{tool} {}`)", .path.display(), .path.display())]
    Compressed {
        path: PathBuf,
        kind: &'static str,
        tool: &'static str,
    },
    #[error("{}: line {line}, column {column}: not a text file (a NUL byte); a trace is CSV, sacct output or JSON text", .path.display())]
    Binary {
        path: PathBuf,
        line: u64,
        column: u64,
    },
    #[error("{}: line {line} is longer than {} bytes: not a trace row (a binary file, or a file without line breaks?)", .path.display(), LINE_BYTES_MAX)]
    LineTooLong { path: PathBuf, line: u64 },
    #[error("{}: {at}: {problem}", .path.display())]
    Value {
        path: PathBuf,
        /// "line 3, column 2 (`gpus`)".
        at: String,
        problem: String,
    },
    #[error("{}: {problem}", .path.display())]
    File { path: PathBuf, problem: String },
    #[error("{}: has more than {} jobs, more than fleetsim replays; split it or keep a shorter period", .path.display(), TRACE_JOBS_MAX)]
    TooManyJobs { path: PathBuf },
}

impl TraceError {
    /// A problem with one value of a delimited file.
    pub fn value(path: &Path, line: u64, column: &Column, problem: impl Into<String>) -> Self {
        TraceError::Value {
            path: path.to_path_buf(),
            at: match column.number {
                0 => format!("line {line} (`{}`)", column.name),
                n => format!("line {line}, column {n} (`{}`)", column.name),
            },
            problem: problem.into(),
        }
    }

    pub fn file(path: &Path, problem: impl Into<String>) -> Self {
        TraceError::File {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// How a trace is read: the format and the time zone of times written without one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReadOptions {
    pub format: TraceFormat,
    pub timezone: TimeZoneSpec,
}

/// Reads a trace file. `path` is the file as messages should name it.
pub fn read(path: &Path, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut builder = Builder::new(path, options.format);
    match options.format {
        TraceFormat::Csv => csv::read(path, &options.timezone, &mut builder)?,
        TraceFormat::Slurm => slurm::read(path, &options.timezone, &mut builder)?,
        TraceFormat::Helios | TraceFormat::Acme => {
            cluster_log::read(path, &options.timezone, &mut builder)?;
        }
        TraceFormat::Philly => philly::read(path, &options.timezone, &mut builder)?,
        TraceFormat::Pai => pai::read(path, &mut builder)?,
        TraceFormat::Openb => openb::read(path, &mut builder)?,
    }
    builder.finish()
}

/// A time as a trace gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    Absolute(f64),
    /// Seconds from the trace's start.
    Relative(f64),
}

/// Collects the jobs of a trace as a reader finds them, interning names, then sorts them.
pub struct Builder {
    path: PathBuf,
    format: TraceFormat,
    /// Jobs with submit times in seconds (absolute or relative, see `absolute`).
    jobs: Vec<TraceJob>,
    submit_s: Vec<f64>,
    absolute: Option<bool>,
    /// Where the first submit time was, to name it when a later one is of the other kind.
    first_at: String,
    gpu_types: Vec<String>,
    gpu_index: BTreeMap<String, u16>,
    teams: Vec<String>,
    team_index: std::collections::HashMap<String, u32>,
    states: Vec<String>,
    pub gpus_column: Column,
    pub gpu_column: Column,
    pub dropped: Dropped,
    pub rounded_up: (u64, f64),
    /// Jobs whose GPUs were of several types (sacct `gres/gpu:a100=2,gres/gpu:h100=2`), each
    /// given the type holding most of them.
    pub mixed_types: u64,
    pub rows: u64,
}

/// A job as a reader hands it to the [`Builder`].
#[derive(Debug, Clone, Copy)]
pub struct NewJob<'a> {
    pub submit: Stamp,
    pub duration_s: f64,
    pub gpus: u32,
    pub line: u64,
    pub team: Option<&'a str>,
    pub gpu: Option<&'a str>,
    pub checkpointable: Option<bool>,
    pub state: Option<&'a str>,
}

impl Builder {
    pub fn new(path: &Path, format: TraceFormat) -> Self {
        Self {
            path: path.to_path_buf(),
            format,
            jobs: Vec::new(),
            submit_s: Vec::new(),
            absolute: None,
            first_at: String::new(),
            gpu_types: Vec::new(),
            gpu_index: BTreeMap::new(),
            teams: Vec::new(),
            team_index: std::collections::HashMap::new(),
            states: Vec::new(),
            gpus_column: Column::default(),
            gpu_column: Column::default(),
            dropped: Dropped::default(),
            rounded_up: (0, 0.0),
            mixed_types: 0,
            rows: 0,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds a job; `at` names where its submit time is, for a message if its kind (date or
    /// seconds) differs from the first job's.
    pub fn push(&mut self, job: NewJob<'_>, at: impl FnOnce() -> String) -> Result<(), TraceError> {
        assert!(job.gpus >= 1, "readers keep only jobs with GPUs");
        assert!(
            job.duration_s >= 0.0 && job.duration_s.is_finite(),
            "readers check durations"
        );
        if self.jobs.len() >= TRACE_JOBS_MAX {
            return Err(TraceError::TooManyJobs {
                path: self.path.clone(),
            });
        }
        if job.gpus > JOB_GPUS_MAX {
            return Err(TraceError::value(
                &self.path,
                job.line,
                &self.gpus_column,
                format!(
                    "a job of {} GPUs: at most {JOB_GPUS_MAX} are simulated",
                    job.gpus
                ),
            ));
        }
        if job.duration_s > CENTURY_S {
            return Err(TraceError::Value {
                path: self.path.clone(),
                at: format!("line {}", job.line),
                problem: format!(
                    "the job runs {:.3e} s, more than a century: is the duration in another unit?",
                    job.duration_s
                ),
            });
        }
        let (absolute, seconds) = match job.submit {
            Stamp::Absolute(s) => (true, s),
            Stamp::Relative(s) => (false, s),
        };
        match self.absolute {
            None => {
                self.absolute = Some(absolute);
                self.first_at = at();
            }
            Some(kind) if kind != absolute => {
                let (this, first) = if absolute {
                    ("a date", "seconds from the trace's start")
                } else {
                    ("seconds from the trace's start", "dates")
                };
                return Err(TraceError::Value {
                    path: self.path.clone(),
                    at: at(),
                    problem: format!(
                        "is {this}, but the first job ({}) gives {first}; give every submit time the same way",
                        self.first_at
                    ),
                });
            }
            Some(_) => {}
        }
        let team = match job.team.filter(|t| !t.is_empty()) {
            None => NONE,
            Some(name) => match self.team_index.get(name) {
                Some(index) => *index,
                None => {
                    // Teams become rows of teams.csv, chart labels and terminal lines.
                    if let Some(problem) = crate::names::problem(name, crate::names::NameKind::Team)
                    {
                        return Err(TraceError::Value {
                            path: self.path.clone(),
                            at: format!("line {}", job.line),
                            problem: format!("the job's team {problem}"),
                        });
                    }
                    let index = self.teams.len() as u32;
                    self.teams.push(name.to_string());
                    self.team_index.insert(name.to_string(), index);
                    index
                }
            },
        };
        let gpu = match job.gpu.filter(|g| !g.is_empty()) {
            None => 0,
            Some(name) => match self.gpu_index.get(name) {
                Some(index) => *index,
                None => {
                    if self.gpu_types.len() >= usize::from(u16::MAX - 1) {
                        return Err(TraceError::Value {
                            path: self.path.clone(),
                            at: format!("line {}", job.line),
                            problem: format!("names more than {} GPU types", u16::MAX - 1),
                        });
                    }
                    self.gpu_types.push(name.to_string());
                    let index = self.gpu_types.len() as u16;
                    self.gpu_index.insert(name.to_string(), index);
                    index
                }
            },
        };
        let state = match job.state.filter(|s| !s.is_empty()) {
            None => u8::MAX,
            Some(name) => match self.states.iter().position(|s| s == name) {
                Some(index) => index as u8,
                None if self.states.len() < usize::from(u8::MAX) => {
                    self.states.push(name.to_string());
                    (self.states.len() - 1) as u8
                }
                None => u8::MAX,
            },
        };
        self.submit_s.push(seconds);
        self.jobs.push(TraceJob {
            submit_h: 0.0,
            duration_h: job.duration_s / 3600.0,
            gpus: job.gpus,
            line: u32::try_from(job.line).unwrap_or(u32::MAX),
            team,
            gpu,
            checkpointable: match job.checkpointable {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            },
            state,
        });
        Ok(())
    }

    /// Sorts the jobs by submit time and sets the origin.
    pub fn finish(mut self) -> Result<Trace, TraceError> {
        if self.jobs.is_empty() {
            let dropped = self.dropped.describe();
            return Err(TraceError::file(
                &self.path,
                if self.rows == 0 {
                    "has no jobs (no rows after the header)".to_string()
                } else {
                    format!(
                        "has no job that ran on GPUs: of {} jobs, {}",
                        thousands(self.rows),
                        if dropped.is_empty() {
                            "none is a job".to_string()
                        } else {
                            dropped
                        }
                    )
                },
            ));
        }
        let absolute = self.absolute == Some(true);
        let first_s = self.submit_s.iter().copied().fold(f64::INFINITY, f64::min);
        let (origin, origin_s) = if absolute {
            let day = (first_s / 86_400.0).floor();
            let date = jiff::Timestamp::from_second(day as i64 * 86_400)
                .map_err(|e| {
                    TraceError::file(&self.path, format!("a submit time is out of range: {e}"))
                })?
                .to_zoned_datetime(jiff::tz::TimeZone::UTC)
                .date();
            (Some(date), day * 86_400.0)
        } else {
            if first_s < 0.0 {
                let j = self
                    .submit_s
                    .iter()
                    .position(|s| *s == first_s)
                    .expect("the minimum is an element");
                return Err(TraceError::Value {
                    path: self.path.clone(),
                    at: format!("line {}", self.jobs[j].line),
                    problem: format!(
                        "the submit time is {first_s} s: seconds from the trace's start must be at least 0"
                    ),
                });
            }
            (None, 0.0)
        };
        let last_s = self
            .submit_s
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        if last_s - first_s > CENTURY_S {
            return Err(TraceError::file(
                &self.path,
                format!(
                    "its submit times span {:.0} years: more than a century (a mix of units, or seconds since 1970 read as seconds from the start?)",
                    (last_s - first_s) / (365.25 * 86_400.0)
                ),
            ));
        }
        for (job, seconds) in self.jobs.iter_mut().zip(&self.submit_s) {
            job.submit_h = (seconds - origin_s) / 3600.0;
        }
        drop(std::mem::take(&mut self.submit_s));
        // Stable: jobs submitted at the same time keep the file's order.
        self.jobs.sort_by(|a, b| a.submit_h.total_cmp(&b.submit_h));
        Ok(Trace {
            path: self.path,
            format: self.format,
            jobs: self.jobs,
            origin,
            gpu_types: self.gpu_types,
            teams: self.teams,
            states: self.states,
            gpus_column: self.gpus_column,
            gpu_column: self.gpu_column,
            dropped: self.dropped,
            rounded_up: self.rounded_up,
            mixed_types: self.mixed_types,
            rows: self.rows,
        })
    }
}

/// 12,345.
pub fn thousands(n: u64) -> String {
    crate::format::thousands(n as f64, 0)
}

/// A path for messages: `a/b/../c` as `a/c`, without touching the file system.
pub fn display_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                if matches!(last, Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A trace file as the readers see it: buffered, behind the guards.
pub type Input = Guarded<io::Chain<io::Cursor<Vec<u8>>, io::BufReader<std::fs::File>>>;

/// Opens a trace file for reading through the guards: compressed and binary files are
/// refused, and (`line_limit`) so are lines longer than [`LINE_BYTES_MAX`]; without it (JSON),
/// one job may not be larger than [`JSON_JOB_BYTES_MAX`].
pub fn open(path: &Path, line_limit: bool) -> Result<Input, TraceError> {
    let mut file = crate::regular_file::open(path).map_err(|cause| {
        if path.is_dir() {
            TraceError::file(path, "is a folder; name the trace file")
        } else if cause.kind() == io::ErrorKind::InvalidInput {
            // A fifo or device: a trace is read where it lies, again for each point of a sweep.
            TraceError::file(
                path,
                format!("{cause}; save the trace to a file and name that (a fifo is read only once, a device never ends)"),
            )
        } else {
            TraceError::Read {
                path: path.to_path_buf(),
                cause,
            }
        }
    })?;
    // The first 8 KiB tell a compressed or binary file from text before any parsing.
    let mut magic = vec![0u8; 8192];
    let mut filled = 0;
    while filled < magic.len() {
        match file.read(&mut magic[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(TraceError::Read {
                    path: path.to_path_buf(),
                    cause: source,
                });
            }
        }
    }
    let magic = &magic[..filled];
    let compressed = [
        (&b"\x1f\x8b"[..], "gzip", "gunzip"),
        (&b"PK\x03\x04"[..], "zip", "unzip"),
        (&b"\x28\xb5\x2f\xfd"[..], "zstd", "unzstd"),
        (&b"BZh"[..], "bzip2", "bunzip2"),
        (&b"\xfd7zXZ"[..], "xz", "unxz"),
    ];
    for (prefix, kind, tool) in compressed {
        if magic.starts_with(prefix) {
            return Err(TraceError::Compressed {
                path: path.to_path_buf(),
                kind,
                tool,
            });
        }
    }
    if let Some(at) = magic.iter().position(|b| *b == 0) {
        let (line, column) = position_in(magic, at);
        return Err(TraceError::Binary {
            path: path.to_path_buf(),
            line,
            column,
        });
    }
    if let Err(e) = std::str::from_utf8(magic) {
        // A character cut by the 8 KiB boundary is fine; anything else is not UTF-8 text.
        if e.error_len().is_some() {
            let (line, column) = position_in(magic, e.valid_up_to());
            return Err(TraceError::file(
                path,
                format!(
                    "line {line}, column {column}: not UTF-8 text (a byte 0x{:02x}); a trace is UTF-8 CSV, sacct output or JSON (save a spreadsheet as \"CSV UTF-8\")",
                    magic[e.valid_up_to()]
                ),
            ));
        }
    }
    let rest = io::BufReader::with_capacity(1 << 16, file);
    Ok(Guarded::new(
        io::Cursor::new(magic.to_vec()).chain(rest),
        line_limit,
    ))
}

/// Line and column (from 1, in bytes) of byte `at` of `text`.
fn position_in(text: &[u8], at: usize) -> (u64, u64) {
    let before = &text[..at];
    let line = before.iter().filter(|b| **b == b'\n').count() as u64 + 1;
    let column = match before.iter().rposition(|b| *b == b'\n') {
        Some(last) => (at - last) as u64,
        None => at as u64 + 1,
    };
    (line, column)
}

/// A reader that counts lines and refuses NUL bytes and overlong lines, so a binary or
/// unbroken file is an error with its position rather than a buffer that grows without bound.
pub struct Guarded<R: Read> {
    inner: R,
    counters: Rc<Counters>,
    line_limit: bool,
}

/// What the guard has seen, shared with a reader that wants positions (JSON).
#[derive(Debug, Default)]
pub struct Counters {
    /// Line of the next byte, from 1.
    pub line: Cell<u64>,
    /// Bytes since the last line break.
    line_bytes: Cell<u64>,
    /// Bytes since the last [`Counters::reset_element`], bounded by [`JSON_JOB_BYTES_MAX`].
    element_bytes: Cell<u64>,
}

impl Counters {
    pub fn reset_element(&self) {
        self.element_bytes.set(0);
    }
}

/// What the guard found, carried through `io::Error` to the reader that called it.
#[derive(Debug)]
pub enum GuardError {
    Nul { line: u64, column: u64 },
    LineTooLong { line: u64 },
    ElementTooLarge { line: u64 },
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuardError::Nul { line, column } => {
                write!(f, "a NUL byte at line {line}, column {column}")
            }
            GuardError::LineTooLong { line } => write!(f, "line {line} is too long"),
            GuardError::ElementTooLarge { line } => {
                write!(f, "a job ending after line {line} is too large")
            }
        }
    }
}

impl std::error::Error for GuardError {}

impl<R: Read> Guarded<R> {
    pub fn new(inner: R, line_limit: bool) -> Self {
        let counters = Counters::default();
        counters.line.set(1);
        Self {
            inner,
            counters: Rc::new(counters),
            line_limit,
        }
    }

    pub fn counters(&self) -> Rc<Counters> {
        Rc::clone(&self.counters)
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        let c = &self.counters;
        let (line, line_bytes) = (c.line.get(), c.line_bytes.get());
        if let Some(at) = chunk.iter().position(|b| *b == 0) {
            let before = &chunk[..at];
            let breaks = before.iter().filter(|b| **b == b'\n').count() as u64;
            let column = match before.iter().rposition(|b| *b == b'\n') {
                Some(last) => (at - last) as u64,
                None => line_bytes + at as u64 + 1,
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                GuardError::Nul {
                    line: line + breaks,
                    column,
                },
            ));
        }
        let breaks = chunk.iter().filter(|b| **b == b'\n').count() as u64;
        let line_bytes = match chunk.iter().rposition(|b| *b == b'\n') {
            Some(last) => (n - last - 1) as u64,
            None => line_bytes + n as u64,
        };
        c.line_bytes.set(line_bytes);
        c.line.set(line + breaks);
        if self.line_limit && line_bytes > LINE_BYTES_MAX {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                GuardError::LineTooLong {
                    line: line + breaks,
                },
            ));
        }
        let element_bytes = c.element_bytes.get() + n as u64;
        c.element_bytes.set(element_bytes);
        if !self.line_limit && element_bytes > JSON_JOB_BYTES_MAX {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                GuardError::ElementTooLarge {
                    line: line + breaks,
                },
            ));
        }
        Ok(n)
    }
}

/// Turns an I/O error met while reading `path` into a [`TraceError`], recognising the guards'.
pub fn io_error(path: &Path, error: io::Error) -> TraceError {
    if let Some(guard) = error.get_ref().and_then(|e| e.downcast_ref::<GuardError>()) {
        return match *guard {
            GuardError::Nul { line, column } => TraceError::Binary {
                path: path.to_path_buf(),
                line,
                column,
            },
            GuardError::LineTooLong { line } => TraceError::LineTooLong {
                path: path.to_path_buf(),
                line,
            },
            GuardError::ElementTooLarge { line } => TraceError::file(
                path,
                format!(
                    "the job ending near line {line} is larger than {} bytes: not a Philly job record",
                    JSON_JOB_BYTES_MAX
                ),
            ),
        };
    }
    TraceError::Read {
        path: path.to_path_buf(),
        cause: error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(20_000_000), "20,000,000");
    }

    #[test]
    fn paths_are_shown_without_dot_dot() {
        assert_eq!(
            display_path(Path::new("tests/data/bad/../traces/x.csv")),
            PathBuf::from("tests/data/traces/x.csv")
        );
        assert_eq!(
            display_path(Path::new("../x.csv")),
            PathBuf::from("../x.csv")
        );
        assert_eq!(display_path(Path::new("./x.csv")), PathBuf::from("x.csv"));
    }

    #[test]
    fn the_guard_finds_nul_bytes_and_long_lines() {
        let mut guarded = Guarded::new(&b"ab\ncd\0e"[..], true);
        let mut out = Vec::new();
        let error = guarded.read_to_end(&mut out).unwrap_err();
        let guard = error
            .get_ref()
            .unwrap()
            .downcast_ref::<GuardError>()
            .unwrap();
        assert!(
            matches!(guard, GuardError::Nul { line: 2, column: 3 }),
            "{guard:?}"
        );

        let long = vec![b'x'; LINE_BYTES_MAX as usize + 10];
        let mut guarded = Guarded::new(&long[..], true);
        let error = io::copy(&mut guarded, &mut io::sink()).unwrap_err();
        assert!(error.to_string().contains("line 1 is too long"), "{error}");

        let mut guarded = Guarded::new(&b"a\nb\nc"[..], true);
        io::copy(&mut guarded, &mut io::sink()).unwrap();
        assert_eq!(guarded.counters().line.get(), 3);
    }
}
