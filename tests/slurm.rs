//! A sharded sweep on a real Slurm cluster (issue 5): starts a single-node cluster from Debian's
//! packages with `deploy/slurm/start-local-cluster.sh` (which installs them if they are
//! missing), runs a sweep as an array job plus a dependent merge job with
//! `deploy/slurm/sweep.sh`, compares the merged folder with the unsharded sweep byte for byte,
//! and stops the cluster, also when the test fails. Every wait is bounded (`timeout`), and a
//! failure prints the Slurm logs.
//!
//! About 10 s with the packages installed (start ~1 s, jobs ~3 s, stop ~4 s); installing them
//! adds 10-25 s. Without root, or without Slurm and apt-get to install it, the test says why on
//! stderr and passes without running: such a machine cannot fail it. `FLEETSIM_SKIP_SLURM=1`
//! skips it outside CI (`CI` unset) on any machine.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{assert_same_tree, fleetsim, temp_dir};

/// Longest waits, seconds: starting includes installing packages.
const START_TIMEOUT_S: u32 = 600;
const SWEEP_TIMEOUT_S: u32 = 120;
const STOP_TIMEOUT_S: u32 = 60;

/// Runs a deploy script under `timeout`, with the cluster's configuration if any.
fn script(name: &str, args: &[&str], slurm_conf: Option<&Path>, timeout_s: u32) -> Output {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy/slurm")
        .join(name);
    let mut command = Command::new("timeout");
    command
        .args(["-k", "5", &timeout_s.to_string(), "bash"])
        .arg(&path)
        .args(args);
    if let Some(conf) = slurm_conf {
        command.env("SLURM_CONF", conf);
    }
    command.output().expect("timeout and bash are installed")
}

fn show(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A running test cluster, stopped when dropped (after printing its logs if the test failed).
struct Cluster {
    dir: PathBuf,
    /// Folders whose `*.out`/`*.log` files to print on failure.
    logs: Vec<PathBuf>,
}

impl Cluster {
    fn start(dir: &Path) -> Self {
        let port = free_port_pair().to_string();
        let cluster = Cluster {
            dir: dir.to_path_buf(),
            logs: vec![dir.join("log")],
        };
        let out = script(
            "start-local-cluster.sh",
            &["--dir", dir.to_str().unwrap(), "--port", &port],
            None,
            START_TIMEOUT_S,
        );
        assert!(
            out.status.success(),
            "the cluster did not start: {}",
            show(&out)
        );
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for folder in &self.logs {
                let Ok(entries) = std::fs::read_dir(folder) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                    let tail: Vec<&str> = text.lines().rev().take(40).collect();
                    eprintln!("--- {}", entry.path().display());
                    for line in tail.iter().rev() {
                        eprintln!("{line}");
                    }
                }
            }
        }
        let out = script(
            "stop-local-cluster.sh",
            &["--dir", self.dir.to_str().unwrap()],
            None,
            STOP_TIMEOUT_S,
        );
        if !out.status.success() {
            eprintln!("stopping the test cluster failed: {}", show(&out));
        }
    }
}

/// A port p with p and p + 1 free on the loopback (slurmctld and slurmd), so the test does not
/// collide with another cluster on this machine.
fn free_port_pair() -> u16 {
    for _ in 0..50 {
        let first = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = first.local_addr().unwrap().port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
    panic!("no two adjacent free ports on 127.0.0.1");
}

/// Why this machine cannot run the test cluster, if it cannot: its daemons run as root, and
/// missing packages are installed with apt-get.
fn cannot_run_here() -> Option<String> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("the test cluster's daemons run as root, and this test does not".into());
    }
    let installed = ["slurmctld", "slurmd", "sbatch", "munged"]
        .iter()
        .all(|command| on_path(command));
    if !installed && !on_path("apt-get") {
        return Some(
            "Slurm and munge are not installed, and there is no apt-get to install them".into(),
        );
    }
    None
}

/// Says on stderr why the test did not run. Written to the stream itself, not with
/// `eprintln!`, so that the test harness shows it even though the test passes.
fn skipped(reason: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "slurm test skipped: {reason}; a sweep sharded over Slurm is not tested on this machine"
    );
}

/// Whether `command` is on the PATH (with /usr/sbin and /sbin, where Debian puts daemons).
fn on_path(command: &str) -> bool {
    Command::new("sh")
        .args([
            "-c",
            "PATH=$PATH:/usr/sbin:/sbin command -v \"$1\"",
            "sh",
            command,
        ])
        .output()
        .is_ok_and(|out| out.status.success())
}

#[test]
fn a_sweep_sharded_over_slurm_merges_into_the_unsharded_sweep() {
    if std::env::var_os("FLEETSIM_SKIP_SLURM").is_some() && std::env::var_os("CI").is_none() {
        skipped("FLEETSIM_SKIP_SLURM is set");
        return;
    }
    if let Some(reason) = cannot_run_here() {
        skipped(&reason);
        return;
    }
    let dir = temp_dir("slurm");
    let out = dir.join("sweep");
    let mut cluster = Cluster::start(&dir.join("cluster"));
    cluster.logs.push(out.join("logs"));

    let scenario = "tests/data/tiny-sweep.toml";
    let binary = env!("CARGO_BIN_EXE_fleetsim");
    let timeout = (SWEEP_TIMEOUT_S - 10).to_string();
    let submitted = script(
        "sweep.sh",
        &[
            "--shards",
            "3",
            "--out",
            out.to_str().unwrap(),
            "--fleetsim",
            binary,
            "--wait",
            "--timeout",
            &timeout,
            "--",
            scenario,
            "--replications",
            "2",
        ],
        Some(&cluster.conf()),
        SWEEP_TIMEOUT_S,
    );
    assert!(
        submitted.status.success(),
        "the Slurm sweep failed: {}",
        show(&submitted)
    );
    for k in 1..=3 {
        let marker = out.join(format!("shard-{k}/shard-{k}-of-3.json"));
        assert!(marker.is_file(), "{} missing", marker.display());
    }

    let whole = dir.join("whole");
    let unsharded = fleetsim(&[
        "sweep",
        scenario,
        "--replications",
        "2",
        "--out",
        whole.to_str().unwrap(),
        "-q",
    ]);
    assert!(unsharded.status.success(), "{}", show(&unsharded));
    assert_same_tree(&whole, &out.join("merged"));
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}
