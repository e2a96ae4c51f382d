//! Golden files: the CSV outputs of a small fixed-seed scenario (`tests/data/golden.toml`,
//! run with `--trace`) compared byte for byte with the files in `tests/golden/`. Any change
//! that moves a number, a row or a column fails here, naming the file and its first
//! differing line.
//!
//! When a change is meant to move the outputs, rewrite the files and review them as a diff:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --release golden
//! git diff --stat tests/golden/ && git diff tests/golden/
//! ```
//!
//! `run.json` is left out (it holds the wall time, threads and command line). The files are
//! what a Linux x86-64 build writes, as CI runs it; elsewhere the system maths library may
//! round a transcendental function differently in the last digit.

use std::path::{Path, PathBuf};

use crate::common::{fleetsim, temp_dir};

const SCENARIO: &str = "tests/data/golden.toml";

/// Every CSV file `fleetsim run --trace` writes.
const FILES: [&str; 9] = [
    "summary.csv",
    "replications.csv",
    "pools.csv",
    "monthly.csv",
    "monthly_replications.csv",
    "pools_monthly.csv",
    "workloads.csv",
    "teams.csv",
    "jobs.csv",
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Where `expected` and `actual` first differ: the line number and both lines.
fn first_difference(name: &str, expected: &str, actual: &str) -> String {
    let (mut expected_lines, mut actual_lines) = (expected.lines(), actual.lines());
    for number in 1.. {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => {}
            (None, None) => break,
            (e, a) => {
                let shown = |line: Option<&str>| match line {
                    Some(line) => line.chars().take(300).collect(),
                    None => "(end of file)".to_string(),
                };
                return format!(
                    "{name}, line {number}:\n  golden: {}\n  now:    {}",
                    shown(e),
                    shown(a)
                );
            }
        }
    }
    format!("{name}: the same lines, different line endings")
}

#[test]
fn csv_outputs_match_the_golden_files() {
    let dir = temp_dir("golden");
    let out = dir.join("out");
    let out_text = out.to_string_lossy();
    let args = [
        "run",
        SCENARIO,
        "--trace",
        "--no-charts",
        "--quiet",
        "--out",
        &out_text,
    ];
    let output = fleetsim(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    // A CSV file added to the outputs belongs here too.
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".csv"))
        .collect();
    written.sort();
    let mut listed: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    listed.sort();
    assert_eq!(written, listed, "the CSV files of a run with --trace");

    let golden = golden_dir();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&golden).unwrap();
        for name in FILES {
            std::fs::copy(out.join(name), golden.join(name)).unwrap();
        }
        eprintln!("rewrote {}; review it with git diff", golden.display());
        return;
    }
    let mut differences = Vec::new();
    for name in FILES {
        let path = golden.join(name);
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!(
                "{}: {error}; write it with UPDATE_GOLDEN=1 cargo test --release golden",
                path.display()
            )
        });
        let actual = std::fs::read_to_string(out.join(name)).unwrap();
        if expected != actual {
            differences.push(first_difference(name, &expected, &actual));
        }
    }
    assert!(
        differences.is_empty(),
        "{} file(s) differ from tests/golden/. If the change is meant to move them, run \
         UPDATE_GOLDEN=1 cargo test --release golden and review git diff tests/golden/.\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn a_difference_is_shown_with_its_line() {
    assert_eq!(
        first_difference("a.csv", "x,y\n1,2\n", "x,y\n1,3\n"),
        "a.csv, line 2:\n  golden: 1,2\n  now:    1,3"
    );
    assert_eq!(
        first_difference("a.csv", "x\n", "x\n2\n"),
        "a.csv, line 2:\n  golden: (end of file)\n  now:    2"
    );
}
