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
