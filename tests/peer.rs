//! The scheduler against an independent peer model: `tests/peer/placement_peer.py` models one
//! on-prem pool under every queue discipline and placement from docs/scenario.md alone, runs
//! fleetsim on random job sets (fixed seed) and compares every job's start time. A start time
//! that differs where no tie-break the docs leave open matters fails the test; the script's
//! output names the job, both start times and the queue state. Needs `python3` (standard
//! library only); without it the test prints `SKIPPED:`, or fails under CI.

use std::path::Path;
use std::process::Command;

use crate::common::skip_or_fail;

/// Cases compared (plus two fixed cases on the 100-jobs bound of a pass): about 10-20 s.
const CASES: &str = "10";
const SEED: &str = "20270101";

#[test]
fn start_times_agree_with_the_peer_model() {
    let python = match Command::new("python3").arg("--version").output() {
        Ok(out) if out.status.success() => "python3",
        _ => {
            skip_or_fail(
                "no python3 to run the peer model (as root: .ci/install-test-tools python)",
            );
            return;
        }
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/placement_peer.py");
    let run = Command::new(python)
        .arg(&script)
        .args(["--fleetsim", env!("CARGO_BIN_EXE_fleetsim")])
        .args(["--cases", CASES, "--seed", SEED])
        .args(["--jobs-min", "30", "--jobs-max", "120", "--max-report", "3"])
        .output()
        .expect("python3 runs the peer model");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}");
    assert_eq!(
        run.status.code(),
        Some(0),
        "fleetsim and the peer model disagree (or the script failed):\n{stdout}\n{stderr}"
    );
}
