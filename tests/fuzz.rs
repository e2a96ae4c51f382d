//! No input makes fleetsim panic: arbitrary bytes, files stitched from lines of
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

use crate::common::temp_dir;
use fleetsim::files;
use fleetsim::records::{ChargePeriod, RunInfo};
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

/// A case may take this long (the simulation is cut to one month, two replications and small
/// budgets, so it normally takes well under a second; the margin is for busy machines).
const CASE_TIME_MAX: Duration = Duration::from_secs(60);

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
            verbose("refused", &message);
            return Ok(());
        }
    };
    let _ = loaded.warnings.join("\n");
    // The same scenario, short: one month, two replications, small budgets.
    let mut short = overrides.to_vec();
    // One or two replications (statistics of a single one are a case of their own).
    let replications = format!("replications={}", 1 + text.len() % 2);
    for set in [
        "horizon_months=1",
        &replications,
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
    // With the FOCUS export, so its rows are built from any scenario too.
    let result = runner::run(config, true, &|| {}, &stop).and_then(|mut run_output| {
        runner::add_focus(config, &mut run_output, ChargePeriod::Day, &stop)?;
        Ok(run_output)
    });
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
            verbose("bounded", &error.to_string());
            return Ok(());
        }
    };
    verbose("simulated", "");
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
    let _ = fleetsim::terminal::summary_table(config, &run_output.aggregates);
    let dir = temp_dir("fuzz");
    let scenario = serde_json::to_value(&loaded.resolved).expect("the scenario serializes");
    let info = RunInfo {
        fleetsim_version: "fuzz".into(),
        scenario_source: "<fuzz>".into(),
        threads: Some(1),
        wall_time_s: Some(0.0),
        ..RunInfo::new(config, scenario, loaded.warnings.clone())
    }
    .with_results(&run_output);
    files::write_results(&dir, config, &run_output, &info, true).expect("results are written");
    Ok(())
}

/// With `FLEETSIM_FUZZ_VERBOSE` set, says what became of each case (to judge how deep the
/// generators reach).
fn verbose(outcome: &str, message: &str) {
    if std::env::var_os("FLEETSIM_FUZZ_VERBOSE").is_some() {
        let detail = message.lines().nth(1).unwrap_or(message);
        eprintln!(
            "fuzz: {outcome}: {}",
            detail.chars().take(100).collect::<String>()
        );
    }
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

/// Files stitched from the tables of the valid ones: tables from several files in odd
/// orders, repeated or missing, so that names refer to pools and strategies of other files.
fn stitched() -> impl Strategy<Value = String> {
    let mut heads = Vec::new();
    let mut tables = Vec::new();
    for text in BASES {
        let mut block = String::new();
        let mut first = true;
        for line in text.lines() {
            if line.trim_start().starts_with('[') {
                if first {
                    heads.push(std::mem::take(&mut block));
                    first = false;
                } else {
                    tables.push(std::mem::take(&mut block));
                }
            }
            block.push_str(line);
            block.push('\n');
        }
        tables.push(block);
    }
    (
        proptest::sample::select(heads),
        proptest::collection::vec(proptest::sample::select(tables), 0..30),
    )
        .prop_map(|(head, tables)| head + &tables.concat())
}

/// `--set` overrides of fields that exist (by name, as users write them), with values of
/// every kind: numbers in and out of range, NaN, words, lists, tables.
fn overrides() -> impl Strategy<Value = (usize, Vec<String>)> {
    // Plain numbers most often, so that many overridden scenarios pass the checks and run.
    const VALUES: [&str; 28] = [
        "0",
        "1",
        "2",
        "3",
        "8",
        "0.5",
        "0.1",
        "0.9",
        "24",
        "100",
        "1000",
        "1e6",
        "1e-6",
        "-1",
        "1e300",
        "nan",
        "inf",
        "true",
        "\"x\"",
        "never",
        "auto",
        "backfill",
        "[1, 2]",
        "{ a = 1 }",
        "\"2027-02-30\"",
        "",
        "2.5",
        "12",
    ];
    (
        0..BASES.len(),
        proptest::collection::vec((any::<u32>(), 0..VALUES.len()), 1..4),
    )
        .prop_map(|(base, picks)| {
            let paths = named_paths(BASES[base]);
            let sets = picks
                .into_iter()
                .map(|(at, value)| {
                    format!("{}={}", paths[at as usize % paths.len()], VALUES[value])
                })
                .collect();
            (base, sets)
        })
}

/// Every leaf field of a scenario as a `--set` path (`pool.dgx.nodes`, `horizon_months`).
fn named_paths(text: &str) -> Vec<String> {
    fn walk(prefix: &str, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Table(table) => {
                for (key, inner) in table {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    walk(&path, inner, out);
                }
            }
            Value::Array(items) if items.iter().all(Value::is_table) && !items.is_empty() => {
                for item in items {
                    let name = item.get("name").and_then(Value::as_str).unwrap_or("?");
                    walk(&format!("{prefix}.{name}"), item, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    let table: Table = text.parse().expect("a valid base");
    let mut out = Vec::new();
    walk("", &Value::Table(table), &mut out);
    out
}

// ---- generated scenarios ---------------------------------------------------------------------

/// A tiny deterministic generator (xorshift64*), so a failing seed reproduces its scenario.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    /// A positive number, mostly ordinary, sometimes extreme.
    fn hours(&mut self) -> f64 {
        *self.pick(&[
            1e-12, 1e-6, 0.001, 0.01, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 8.0, 24.0, 100.0, 1000.0, 1e6,
            1e9, 1e15,
        ])
    }
    fn fraction(&mut self) -> f64 {
        *self.pick(&[0.0, 1e-9, 0.01, 0.1, 0.3, 0.5, 0.6, 0.9, 0.999, 1.0])
    }
    fn count(&mut self) -> u64 {
        *self.pick(&[0, 1, 1, 2, 3, 4, 7, 8, 8, 16, 64, 1000])
    }
}

const GPUS: [&str; 3] = ["H100", "A100", "L4"];

/// Mostly H100, so that most generated workloads find a pool.
fn gpu(d: &mut Dice) -> &'static str {
    if d.chance(70) {
        "H100"
    } else {
        GPUS[d.below(GPUS.len())]
    }
}

fn duration(d: &mut Dice) -> String {
    match d.below(8) {
        0 => format!("{}", d.hours()),
        1 => format!("{{ dist = \"fixed\", value = {} }}", d.hours()),
        2 => format!("{{ dist = \"exponential\", mean = {} }}", d.hours()),
        3 => {
            let median = d.hours();
            format!(
                "{{ dist = \"lognormal\", median = {median}, p95 = {} }}",
                median * (1.0 + d.hours())
            )
        }
        4 => format!(
            "{{ dist = \"gamma\", mean = {}, cv = {} }}",
            d.hours(),
            d.hours()
        ),
        5 => format!(
            "{{ dist = \"weibull\", shape = {}, scale = {} }}",
            d.hours(),
            d.hours()
        ),
        6 => {
            let min = d.hours();
            format!(
                "{{ dist = \"uniform\", min = {min}, max = {} }}",
                min + d.hours()
            )
        }
        _ => {
            let (a, b) = (d.hours(), d.hours());
            let p = d.fraction();
            format!(
                "{{ dist = \"empirical\", points = [[{}, {p}], [{}, 1.0]] }}",
                a.min(b),
                a.max(b)
            )
        }
    }
}

fn gpus(d: &mut Dice) -> String {
    if d.chance(50) {
        return format!("{}", 1 + d.count().min(63));
    }
    let (a, b) = (1 + d.count().min(63), 1 + d.count().min(63));
    let p = d.fraction();
    if a == b {
        format!("{{ {a} = 1.0 }}")
    } else {
        format!("{{ {a} = {p}, {b} = {} }}", 1.0 - p)
    }
}

fn window(d: &mut Dice) -> String {
    let days = d.pick(&[
        "daily", "weekdays", "weekends", "mon", "sun", "fri-mon", "mon,wed",
    ]);
    let from = d.below(24);
    let to = d.below(25);
    format!("{days} {from:02}:{:02}-{to:02}:00", d.pick(&[0, 30]))
}

/// A structurally valid scenario with random (often extreme) parameters; the checks refuse
/// what does not make sense, and everything else must simulate without a panic.
fn generate(seed: u64) -> String {
    let mut d = Dice(seed | 1);
    let mut t = format!(
        "start = \"{}-{:02}-{:02}\"\nhorizon_months = {}\nreplications = {}\nseed = {}\nwarmup_days = {}\n",
        2020 + d.below(10),
        1 + d.below(12),
        1 + d.below(28),
        1 + d.below(2),
        1 + d.below(2),
        d.next() % 1000,
        *d.pick(&[0.0, 0.5, 3.0, 40.0]),
    );
    t.push_str("[gpu_speed]\n");
    for gpu in GPUS {
        t.push_str(&format!(
            "{gpu} = {}\n",
            d.pick(&[1.0, 0.45, 0.12, 1e-6, 1e6])
        ));
    }
    let n_pools = 1 + d.below(5);
    let mut pools = Vec::new();
    let mut offered: Vec<&str> = Vec::new();
    for p in 0..n_pools {
        let name = format!("p{p}");
        let gpu = gpu(&mut d);
        let per_node = *d.pick(&[1, 2, 4, 8, 8, 16, 1024]);
        let kind = d.below(4);
        t.push_str(&format!(
            "\n[[pool]]\nname = \"{name}\"\ngpu = \"{gpu}\"\ngpus_per_node = {per_node}\n"
        ));
        match kind {
            0 => {
                t.push_str(&format!(
                    "type = \"on_prem\"\nnodes = {}\ncapex_per_node = {}\namortization_months = {}\npower_kw_per_node = 10\npue = 1.2\nelectricity_per_kwh = 0.2\nopex_per_node_month = 1000\npurchase_month = {}\n",
                    d.count(),
                    d.hours(),
                    1 + d.count(),
                    d.below(3)
                ));
                if d.chance(50) {
                    t.push_str(&format!(
                        "failures = {{ mtbf_h = {}, repair_h = {} }}\n",
                        d.hours(),
                        d.hours()
                    ));
                }
            }
            1 => t.push_str(&format!(
                "type = \"reserved\"\nnodes = {}\nprice_per_gpu_h = {}\ndiscount = {}\nterm_months = {}\nstart_month = {}\n",
                d.count(),
                d.hours(),
                d.fraction(),
                1 + d.below(3),
                d.below(3)
            )),
            _ => {
                let spot = kind == 3;
                t.push_str(&format!(
                    "type = \"{}\"\nprice_per_gpu_h = {}\nprovisioning_h = {}\nidle_timeout_h = {}\nbilling_increment_s = {}\nbilling_minimum_s = {}\n",
                    if spot { "spot" } else { "on_demand" },
                    d.hours(),
                    d.pick(&[0.0, 0.1, 1.0, 1e6]),
                    d.pick(&[0.0, 0.25, 1.0, 1e6]),
                    d.pick(&[1e-6, 1.0, 60.0, 3600.0]),
                    d.pick(&[0.0, 60.0, 1e6]),
                ));
                if d.chance(50) {
                    t.push_str(&format!("max_nodes = {}\n", 1 + d.count()));
                }
                if d.chance(50) {
                    let when = match d.below(3) {
                        0 => format!(", window = \"{}\"", window(&mut d)),
                        1 => format!(
                            ", episodes_per_month = {}, episode_mean_h = {}",
                            d.hours(),
                            d.hours()
                        ),
                        _ => String::new(),
                    };
                    t.push_str(&format!(
                        "availability = {{ shortfall = {}, retry_h = {}{when} }}\n",
                        d.fraction(),
                        d.hours()
                    ));
                }
                if spot {
                    t.push_str(&format!(
                        "preemption = {{ mean_h = {}, waves_per_month = {}, wave_fraction = {} }}\n",
                        d.hours(),
                        d.pick(&[0.0, 1.0, 30.0, 1e4]),
                        d.fraction()
                    ));
                }
            }
        }
        pools.push(name);
        if !offered.contains(&gpu) {
            offered.push(gpu);
        }
    }
    for w in 0..1 + d.below(4) {
        t.push_str(&format!(
            "\n[[workload]]\nname = \"w{w}\"\narrivals_per_day = {}\ngpus = {}\nduration_h = {}\ngpu = \"{}\"\npriority = {}\n",
            d.pick(&[1e-6, 0.1, 1.0, 10.0, 100.0, 1000.0]),
            gpus(&mut d),
            duration(&mut d),
            if d.chance(90) { *d.pick(&offered) } else { gpu(&mut d) },
            d.below(3),
        ));
        if d.chance(40) {
            let accepts: Vec<String> = offered.iter().map(|g| format!("\"{g}\"")).collect();
            t.push_str(&format!("accepts = [{}]\n", accepts.join(", ")));
        }
        if d.chance(30) {
            t.push_str(&format!(
                "growth_per_month = {}\n",
                d.pick(&[-0.9, -0.1, 0.03, 1.0, 5.0])
            ));
        }
        if d.chance(30) {
            t.push_str(&format!(
                "daily_profile = \"{}\"\n",
                d.pick(&["flat", "office-hours"])
            ));
        }
        if d.chance(20) {
            let days: Vec<String> = (0..7)
                .map(|_| format!("{}", d.pick(&[0.0, 0.3, 1.0, 5.0])))
                .collect();
            t.push_str(&format!("weekly_profile = [{}]\n", days.join(", ")));
        }
        if d.chance(50) {
            let every = if d.chance(30) {
                "\"auto\"".to_string()
            } else {
                d.hours().to_string()
            };
            t.push_str(&format!(
                "checkpoint = {{ every_h = {every}, write_h = {}, restart_h = {} }}\n",
                d.pick(&[0.0, 0.01, 0.1, 10.0]),
                d.pick(&[0.0, 0.01, 0.1, 10.0])
            ));
        }
        if d.chance(30) {
            t.push_str(&format!("deadline_h = {}\n", d.hours()));
        }
        if d.chance(20) {
            t.push_str(&format!(
                "mixed_precision_speedup = {}\n",
                d.pick(&[1.0, 2.5, 100.0])
            ));
        }
    }
    for s in 0..1 + d.below(3) {
        let mut chosen: Vec<&String> = pools.iter().filter(|_| d.chance(60)).collect();
        if chosen.is_empty() {
            chosen.push(d.pick(&pools));
        }
        let list: Vec<String> = chosen.iter().map(|p| format!("\"{p}\"")).collect();
        t.push_str(&format!(
            "\n[[strategy]]\nname = \"s{s}\"\npools = [{}]\nqueue = \"{}\"\nburst_after_wait_h = {}\nmixed_precision = {}\ndeadline_jobs_off_spot = {}\n",
            list.join(", "),
            d.pick(&["fifo", "backfill", "priority"]),
            d.pick(&["0", "0.5", "10", "\"never\""]),
            d.chance(50),
            d.chance(50),
        ));
        if d.chance(40) {
            t.push_str(&format!("spot_fallback_after = {}\n", 1 + d.below(3)));
        }
    }
    t
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_scenarios_never_panic(seed in any::<u64>()) {
        let text = generate(seed);
        exercise(&text, &[]).map_err(|e| TestCaseError::fail(format!("{e}\n--- scenario ---\n{text}")))?;
    }

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

    /// Any start year (the calendar once panicked past year 9998), any name (control
    /// characters, slashes, thousands of characters) and any seed text.
    #[test]
    fn hostile_starts_names_and_seeds_never_panic(
        year in 0u32..=10_000,
        month in 0u32..=13,
        name in proptest::collection::vec(any::<char>(), 0..200),
        seed in prop_oneof![any::<u64>().prop_map(|s| format!("\"{s}\"")), any::<i128>().prop_map(|s| s.to_string())],
    ) {
        let name: String = name.into_iter().collect();
        let text = include_str!("data/small.toml")
            .replace("start = \"2027-01-01\"", &format!("start = \"{year:04}-{month:02}-01\""))
            .replace("name = \"bad\"", &format!("name = {}", Value::String(name.clone())))
            .replace("name = \"train\"", &format!("name = {}", Value::String(name)))
            .replace("seed = 1", &format!("seed = {seed}"));
        exercise(&text, &[])?;
    }

    #[test]
    fn arbitrary_overrides_never_panic((base, sets) in overrides()) {
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
