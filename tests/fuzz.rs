//! No input makes fleetsim panic (issue 6): arbitrary bytes, files stitched from lines of
//! valid ones, valid scenarios with numbers scaled, negated, zeroed, made NaN or huge, fields
//! deleted or duplicated, strings garbled, and arbitrary `--set` overrides all go through
//! loading, every check and (when they pass) a short simulation, statistics and the writing
//! of every output file. A case that takes more than a few seconds fails too.
//!
//! Cases per property: `PROPTEST_CASES` (default 48, so `cargo test` stays quick). A long
//! run: `PROPTEST_CASES=20000 cargo test --release fuzz`. A failing input found by proptest is
//! shrunk and printed; keep it in `tests/data/fuzz/` (replayed below by a normal test), fix
//! the root cause, and proptest also stores its seed in `tests/proptest-regressions/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fleetsim::output;
use fleetsim::records::RunInfo;
use fleetsim::runner::{self, RunError};
use fleetsim::scenario::{self, DEFAULT_SCENARIO, Override};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use toml::{Table, Value};

const BASES: [&str; 3] = [
    DEFAULT_SCENARIO,
    include_str!("data/small.toml"),
    include_str!("data/features.toml"),
];

/// A case may take this long (the simulation is cut to one month and a few replications).
const CASE_TIME_MAX: Duration = Duration::from_secs(20);

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/fuzz.txt",
        ))),
        // Shrinking re-runs simulations; keep it bounded.
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

/// Loads, checks and, if valid, simulates a short version of `text`: the property is that
/// nothing here panics and nothing takes longer than [`CASE_TIME_MAX`].
fn exercise(text: &str, overrides: &[Override]) -> Result<(), TestCaseError> {
    let origin = Path::new("<fuzz>");
    // Display every error: formatting must not panic either.
    let loaded = match scenario::load_text(text, origin, "fuzz", overrides) {
        Ok(loaded) => loaded,
        Err(error) => {
            let message = error.to_string();
            prop_assert!(!message.is_empty());
            return Ok(());
        }
    };
    let _ = loaded.warnings.join("\n");
    // The same scenario, short: one month, two replications, small budgets.
    let mut short = overrides.to_vec();
    for set in [
        "horizon_months=1",
        "replications=2",
        "max_events=300000",
        "max_queued_jobs=20000",
    ] {
        short.push(Override::parse(set).expect("a valid override"));
    }
    let Ok(loaded) = scenario::load_text(text, origin, "fuzz", &short) else {
        return Ok(());
    };
    let config = &loaded.config;
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (stop, done) = (Arc::clone(&stop), Arc::clone(&done));
        std::thread::spawn(move || {
            let started = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if started.elapsed() > CASE_TIME_MAX {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let result = runner::run(config, true, &|| {}, &stop);
    done.store(true, Ordering::Relaxed);
    watchdog.join().expect("the watchdog does not panic");
    let run_output = match result {
        Ok(run_output) => run_output,
        Err(RunError::Cancelled) => {
            return Err(TestCaseError::fail(format!(
                "a one-month run took more than {CASE_TIME_MAX:?}"
            )));
        }
        Err(error) => {
            // Bounds reached (event budget, queue): an error with a message, not a panic.
            prop_assert!(!error.to_string().is_empty());
            return Ok(());
        }
    };
    for row in &run_output.aggregates.replications {
        prop_assert_eq!(
            row.jobs_arrived,
            row.jobs_completed + row.jobs_unfinished,
            "{:?}",
            row
        );
        prop_assert!(
            row.gpu_hours_busy <= row.gpu_hours_paid * (1.0 + 1e-9) + 1e-9,
            "busy {} > paid {}",
            row.gpu_hours_busy,
            row.gpu_hours_paid
        );
    }
    let _ = output::summary_table(config, &run_output.aggregates);
    let dir = scratch_dir();
    let info = RunInfo {
        fleetsim_version: "fuzz".into(),
        command_line: Vec::new(),
        scenario_name: config.name.clone(),
        scenario_source: "<fuzz>".into(),
        seed: config.seed,
        replications: config.replications,
        threads: 1,
        wall_time_s: 0.0,
        events_simulated: run_output.events,
        currency: config.currency.clone(),
        start: config.calendar.start.to_string(),
        horizon_months: config.horizon_months,
        strategies: config.strategies.iter().map(|s| s.name.clone()).collect(),
        baseline: config.strategies[config.baseline].name.clone(),
        break_even_month: run_output.aggregates.break_even_month.clone(),
        warnings: loaded.warnings.clone(),
        files: Vec::new(),
        scenario: serde_json::to_value(&loaded.resolved).expect("the scenario serializes"),
    };
    output::write_results(&dir, &run_output, &info, true).expect("results are written");
    Ok(())
}

/// One folder per test thread, reused.
fn scratch_dir() -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let name: String = thread.chars().filter(char::is_ascii_digit).collect();
    let dir = std::env::temp_dir().join(format!("fleetsim-fuzz-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

// ---- mutations of valid scenarios ----------------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Paths to every value of a TOML tree (tables and arrays included).
fn paths(value: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(prefix.clone());
    match value {
        Value::Table(table) => {
            for (key, inner) in table {
                prefix.push(Step::Key(key.clone()));
                paths(inner, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                prefix.push(Step::Index(i));
                paths(inner, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut current = value;
    for step in path {
        current = match (step, current) {
            (Step::Key(key), Value::Table(table)) => table.get_mut(key)?,
            (Step::Index(i), Value::Array(items)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(current)
}

const FACTORS: [f64; 9] = [0.0, 1e-9, 1e-3, 0.5, 1.5, 2.0, 1e3, 1e9, 1e300];
const WORDS: [&str; 12] = [
    "",
    " ",
    "x",
    "dgx",
    "H100",
    "never",
    "auto",
    "flat",
    "weekdays 25:00-18:00",
    "mon-sun 00:00-24:00",
    "2027-02-30",
    "é.=,",
];

/// One mutation: `kind` says what, `at` where (an index into the value paths or lines),
/// `pick` which factor, word or other value.
fn mutate(text: &str, kind: u8, at: u32, pick: u32) -> String {
    let Ok(table) = text.parse::<Table>() else {
        return text.to_string();
    };
    let mut root = Value::Table(table);
    let mut all = Vec::new();
    paths(&root, &mut Vec::new(), &mut all);
    let path = all[at as usize % all.len()].clone();
    let other = all[pick as usize % all.len()].clone();
    let other_value = get_mut(&mut root, &other).cloned();
    // Text-level: duplicate, delete or cut lines (duplicate keys, tables, truncation).
    if kind % 14 >= 11 {
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            return String::new();
        }
        let i = at as usize % lines.len();
        let mut out: Vec<&str> = lines.clone();
        match kind % 14 {
            11 => out.insert(i, lines[pick as usize % lines.len()]),
            12 => {
                out.remove(i);
            }
            _ => {
                let cut: String = lines[i]
                    .chars()
                    .take(pick as usize % (lines[i].len() + 1))
                    .collect();
                let mut joined = out[..i].join("\n");
                joined.push('\n');
                joined.push_str(&cut);
                return joined;
            }
        }
        return out.join("\n");
    }
    if path.is_empty() {
        return text.to_string();
    }
    if kind % 14 == 6 {
        // Delete the value (a field, an array element).
        let (last, parent) = path.split_last().expect("not the root");
        match (last, get_mut(&mut root, parent)) {
            (Step::Key(key), Some(Value::Table(table))) => {
                table.remove(key);
            }
            (Step::Index(i), Some(Value::Array(items))) => {
                items.remove(*i);
            }
            _ => {}
        }
        return toml::to_string(&root).unwrap_or_default();
    }
    if kind % 14 == 7 {
        // Duplicate an array element (a whole [[pool]], a list item).
        if let (Step::Index(i), parent) = path.split_last().expect("not the root")
            && let Some(Value::Array(items)) = get_mut(&mut root, parent)
        {
            let copy = items[*i].clone();
            items.insert(*i, copy);
        }
        return toml::to_string(&root).unwrap_or_default();
    }
    let Some(value) = get_mut(&mut root, &path) else {
        return text.to_string();
    };
    let factor = FACTORS[pick as usize % FACTORS.len()];
    let word = WORDS[pick as usize % WORDS.len()];
    *value = match (kind % 14, &*value) {
        (0, Value::Integer(i)) => Value::Integer((*i as f64 * factor) as i64),
        (0, Value::Float(f)) => Value::Float(f * factor),
        (1, Value::Integer(i)) => Value::Integer(i.wrapping_neg()),
        (1, Value::Float(f)) => Value::Float(-f),
        (2, Value::Integer(_)) => Value::Integer(0),
        (2, Value::Float(_)) => Value::Float(0.0),
        (3, _) => Value::Float(f64::NAN),
        (4, _) => Value::Float(if pick.is_multiple_of(2) {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }),
        (5, _) => Value::Integer(if pick.is_multiple_of(2) {
            i64::MAX
        } else {
            i64::MIN
        }),
        (8, Value::String(s)) => {
            // Garble: cut, change a character, or replace with a word.
            match pick % 3 {
                0 => Value::String(s.chars().take(s.len() / 2).collect()),
                1 => Value::String(s.chars().rev().collect()),
                _ => Value::String(word.to_string()),
            }
        }
        (8, _) => Value::String(word.to_string()),
        (9, Value::String(_)) => Value::Integer(i64::from(pick % 100)),
        (9, Value::Array(_)) => Value::Integer(3),
        (9, Value::Table(_)) => Value::Float(2.5),
        (9, _) => Value::String(word.to_string()),
        (10, _) => match other_value {
            Some(other) => other,
            None => value.clone(),
        },
        (_, Value::Integer(i)) => Value::Integer(i.saturating_add(i64::from(pick % 7) - 3)),
        (_, Value::Float(f)) => Value::Float(f * factor),
        _ => value.clone(),
    };
    toml::to_string(&root).unwrap_or_default()
}

fn mutated() -> impl Strategy<Value = String> {
    (
        0..BASES.len(),
        proptest::collection::vec((0u8..14, any::<u32>(), any::<u32>()), 1..5),
    )
        .prop_map(|(base, steps)| {
            steps
                .into_iter()
                .fold(BASES[base].to_string(), |text, (kind, at, pick)| {
                    mutate(&text, kind, at, pick)
                })
        })
}

/// Files stitched from lines of the valid ones: tables in odd orders, fields in the wrong
/// table, repeated headers.
fn stitched() -> impl Strategy<Value = String> {
    let lines: Vec<&'static str> = BASES
        .iter()
        .flat_map(|text| text.lines())
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .collect();
    proptest::collection::vec(proptest::sample::select(lines), 0..120)
        .prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&String::from_utf8_lossy(&bytes), &[])?;
    }

    #[test]
    fn stitched_files_never_panic(text in stitched()) {
        exercise(&text, &[])?;
    }

    #[test]
    fn mutated_scenarios_never_panic(text in mutated()) {
        exercise(&text, &[])?;
    }

    #[test]
    fn arbitrary_overrides_never_panic(
        base in 0..BASES.len(),
        sets in proptest::collection::vec(
            "(pool|workload|strategy|gpu_speed|horizon_months|seed|start|[a-z_]{1,12})(\\.[a-zA-Z0-9_-]{1,16}){0,3}=[ -~]{0,24}",
            1..4,
        ),
    ) {
        let overrides: Vec<Override> = sets.iter().filter_map(|s| Override::parse(s).ok()).collect();
        exercise(BASES[base], &overrides)?;
    }
}

/// Inputs that once made fleetsim panic or hang, kept as files: each must load (or be
/// refused) and run without a panic.
#[test]
fn fuzz_corpus_never_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/fuzz exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a corpus file");
        if let Err(error) = exercise(&text, &[]) {
            panic!("{}: {error}", file.display());
        }
    }
}
