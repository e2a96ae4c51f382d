//! The in-memory writers of the Python package (`files::in_memory`, `sweep::run_in_memory`)
//! against the folders the binary writes: the same bytes, file for file.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use fleetsim::files;
use fleetsim::records::RunInfo;
use fleetsim::runner;
use fleetsim::scenario::{self, Override, Source};
use fleetsim::sweep::{self, Request, Vary};

use super::common::{fleetsim, temp_dir, tree};

/// The fields of `run.json` that say how a run went rather than what it found.
fn without_how(run_json: &[u8]) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_slice(run_json).unwrap();
    for key in [
        "command_line",
        "scenario_source",
        "threads",
        "wall_time_s",
        "charts",
    ] {
        value.as_object_mut().unwrap().remove(key);
    }
    value
}

#[test]
fn a_run_in_memory_is_the_folder_the_cli_writes() {
    let dir = temp_dir("memory-run");
    let out = fleetsim(&[
        "run",
        "tests/data/golden.toml",
        "--trace",
        "--no-charts",
        "--quiet",
        "--set",
        "replications=2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let set = [Override::parse("replications=2").unwrap()];
    let loaded = scenario::load(Path::new("tests/data/golden.toml"), &set).unwrap();
    let config = &loaded.config;
    let run_output = runner::run(config, true, &|| {}, &AtomicBool::new(false)).unwrap();
    let resolved = serde_json::to_value(&loaded.resolved).unwrap();
    let info = RunInfo::new(config, resolved, loaded.warnings.clone()).with_results(&run_output);
    let files = files::in_memory(&run_output, &info, true);
    let on_disk = tree(&dir);
    let mut names: Vec<&String> = files.iter().map(|(name, _)| name).collect();
    assert_eq!(
        names.last().map(|n| n.as_str()),
        Some("run.json"),
        "run.json last"
    );
    names.sort();
    assert_eq!(names, on_disk.keys().collect::<Vec<_>>(), "the same files");
    for (name, bytes) in &files {
        if name == "run.json" {
            assert_eq!(without_how(bytes), without_how(&on_disk[name]));
        } else {
            assert!(*bytes == on_disk[name], "{name} differs");
        }
    }
}

#[test]
fn a_sweep_in_memory_is_the_folder_the_cli_writes() {
    let dir = temp_dir("memory-sweep");
    let out = fleetsim(&[
        "sweep",
        "tests/data/tiny-sweep.toml",
        "--vary",
        "pool.dgx.nodes=0,1",
        "--no-charts",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = Path::new("tests/data/tiny-sweep.toml");
    let request = Request {
        scenario: path.to_path_buf(),
        vary: vec![Vary::parse("pool.dgx.nodes=0,1").unwrap()],
        sampling: None,
        set: Vec::new(),
        focus: None,
    };
    let source = Source::read(path).unwrap();
    let plan = sweep::plan_source(&request, &source).unwrap();
    let files = sweep::run_in_memory(&plan, &AtomicBool::new(false)).unwrap();
    let mut in_memory: Vec<(String, Vec<u8>)> = files.files.clone();
    for point in &files.points {
        for (name, bytes) in &point.files {
            in_memory.push((format!("points/{}/{name}", point.id), bytes.clone()));
        }
    }
    in_memory.sort();
    let on_disk: Vec<(String, Vec<u8>)> = tree(&dir).into_iter().collect();
    let names = |files: &[(String, Vec<u8>)]| -> Vec<String> {
        files.iter().map(|(name, _)| name.clone()).collect()
    };
    assert_eq!(names(&in_memory), names(&on_disk));
    for ((name, a), (_, b)) in in_memory.iter().zip(&on_disk) {
        assert!(a == b, "{name} differs");
    }
}
