//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io::Write;
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

/// Whether this is a CI run: `CI` set to anything but empty, `0` or `false`. CI services set
/// `CI=true`, and so does `.ci/run`. Under CI a test that cannot run fails ([`skip_or_fail`]).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| {
        !matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false"
        )
    })
}

/// The calling test (or a part of it) cannot run on this machine, for `reason` (a missing
/// tool: say which, and how to get it). Outside CI it prints `SKIPPED: <test>: <reason>` and
/// returns, and the caller returns or goes on without that part; under CI ([`in_ci`]) it fails
/// the test with the reason, so that a CI run passes only what it ran.
///
/// The line is written to the process's stdout itself, not with `println!`: the test harness
/// captures `println!` and shows it only for a failing test, and a skip would then look like
/// any `ok`. This way it stands among the harness's own `test ... ok` lines, in every output.
#[track_caller]
pub fn skip_or_fail(reason: &str) {
    // The harness names each test's thread after the test.
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    assert!(
        !in_ci(),
        "{test} cannot run here: {reason}. CI is set, so this fails instead of skipping; \
         `.ci/install-test-tools` installs the tests' tools (as root), or unset CI to skip"
    );
    let _ = writeln!(std::io::stdout().lock(), "SKIPPED: {test}: {reason}");
}

/// A fresh, empty temporary folder for one test, removed with all it holds when the test ends,
/// passed or failed, so that the suite leaves the machine as it found it. Set
/// `FLEETSIM_KEEP_TEST_DIRS` to keep them for a look (their paths name the test).
pub fn temp_dir(name: &str) -> TestDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(&format!("fleetsim-test-{name}-"))
        // What a plain `mkdir` gave these folders before (tempfile's default is owner-only):
        // the Slurm tests start a cluster's daemons in them.
        .permissions(std::fs::Permissions::from_mode(0o755))
        .disable_cleanup(std::env::var_os("FLEETSIM_KEEP_TEST_DIRS").is_some())
        .tempdir()
        .expect("a temporary folder");
    TestDir(dir)
}

/// A test's temporary folder ([`temp_dir`]): a path, deleted on drop.
pub struct TestDir(tempfile::TempDir);

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
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
