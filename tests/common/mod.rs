//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use fleetsim::scenario::{self, Config};

/// Checks scenario text (panics with the message if it is invalid).
pub fn config(text: &str) -> Config {
    match scenario::load_text(text, Path::new("<test>"), "test", &[]) {
        Ok(loaded) => loaded.config,
        Err(error) => panic!("invalid test scenario: {error}"),
    }
}

/// Runs the fleetsim binary.
pub fn fleetsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fleetsim"))
        .args(args)
        .output()
        .expect("fleetsim runs")
}

/// A fresh, empty temporary folder for one test.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fleetsim-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file under `dir` (by path relative to it) with its bytes, less the files that say how
/// a run went rather than what it found (`invocation*.json`).
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let file_name = path.file_name().unwrap().to_string_lossy();
                if !(file_name.starts_with("invocation") && file_name.ends_with(".json")) {
                    files.insert(name, std::fs::read(&path).unwrap());
                }
            }
        }
    }
    let mut files = std::collections::BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

/// Asserts that two folders hold the same files with the same bytes (see [`tree`]).
pub fn assert_same_tree(expected: &Path, actual: &Path) {
    let (a, b) = (tree(expected), tree(actual));
    let names =
        |t: &std::collections::BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&a),
        names(&b),
        "{} and {} hold different files",
        expected.display(),
        actual.display()
    );
    for (name, bytes) in &a {
        assert!(
            b[name] == *bytes,
            "{name} differs between {} and {}",
            expected.display(),
            actual.display()
        );
    }
}
