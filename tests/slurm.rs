//! A sharded sweep on a real Slurm cluster: starts a single-node cluster from Debian's
//! packages with `deploy/slurm/start-local-cluster.sh`, runs a sweep as an array job plus a
//! dependent merge job with `deploy/slurm/sweep.sh`, compares the merged folder with the
//! unsharded sweep byte for byte, and stops the cluster, also when the test fails. Every wait is
//! bounded (`timeout`), and a failure prints the Slurm logs.
//!
//! About 10 s (start ~1 s, jobs ~3 s, stop ~4 s). The tests install nothing: without root, or
//! without the packages (`.ci/install-test-tools slurm slurm-accounting` installs them, as
//! root), or with `FLEETSIM_SKIP_SLURM` set, a test prints `SKIPPED:` with the reason and
//! passes, or fails under CI (`common::skip_or_fail`).
//!
//! A second test starts a cluster with 8 GPUs and accounting (slurmdbd and a private
//! MariaDB), runs a few dozen GPU jobs, takes their history with `sacct` and replays it: the
//! busy GPU-hours must be those Slurm accounted. About 60-80 s; it also needs `slurmdbd
//! mariadb-server`, and skips on the same terms. The two tests take turns (one cluster at a
//! time: the machine has 2 cores).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::common::{assert_same_tree, fleetsim, skip_or_fail, temp_dir};

/// One test cluster at a time.
static CLUSTER: Mutex<()> = Mutex::new(());

/// Daemons and tools of the test cluster (those start-local-cluster.sh asks for), and with
/// accounting (and `sacct`, which the test runs).
const SLURM_COMMANDS: [&str; 7] = [
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "squeue",
    "scancel",
    "munged",
];
const ACCOUNTING_COMMANDS: [&str; 14] = [
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "squeue",
    "scancel",
    "munged",
    "sacct",
    "sacctmgr",
    "slurmdbd",
    "mariadbd",
    "mariadb-install-db",
    "mariadb-admin",
    "mariadb",
];

/// Whether a test of `what` does not run here, after saying why ([`skip_or_fail`], which fails
/// the test under CI): `FLEETSIM_SKIP_SLURM` set, or a machine that cannot run a cluster needing
/// `commands`.
fn skip(commands: &[&str], what: &str) -> bool {
    let reason = if std::env::var_os("FLEETSIM_SKIP_SLURM").is_some() {
        Some("FLEETSIM_SKIP_SLURM is set".to_string())
    } else {
        cannot_run_here(commands)
    };
    match reason {
        Some(reason) => {
            skip_or_fail(&format!("{reason}; {what} is not tested on this machine"));
            true
        }
        None => false,
    }
}

/// Longest waits, seconds.
const START_TIMEOUT_S: u32 = 120;
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
        Self::try_start(dir, &[])
            .unwrap_or_else(|out| panic!("the cluster did not start: {}", show(&out)))
    }

    /// Starts a cluster with `options` of start-local-cluster.sh; the script's output if it
    /// failed (the cluster is stopped again).
    fn try_start(dir: &Path, options: &[&str]) -> Result<Self, Output> {
        let port = free_port_pair().to_string();
        let cluster = Cluster {
            dir: dir.to_path_buf(),
            logs: vec![dir.join("log")],
        };
        let mut args = vec!["--dir", dir.to_str().unwrap(), "--port", &port];
        args.extend_from_slice(options);
        let out = script("start-local-cluster.sh", &args, None, START_TIMEOUT_S);
        if out.status.success() {
            Ok(cluster)
        } else {
            Err(out)
        }
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

/// A port p with p to p + 3 free on the loopback (slurmctld, slurmd, and with accounting
/// slurmdbd and MariaDB), so the test does not collide with another cluster on this machine.
fn free_port_pair() -> u16 {
    for _ in 0..50 {
        let first = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = first.local_addr().unwrap().port();
        if port < u16::MAX - 3
            && (1..=3).all(|k| TcpListener::bind(("127.0.0.1", port + k)).is_ok())
        {
            return port;
        }
    }
    panic!("no four adjacent free ports on 127.0.0.1");
}

/// Why this machine cannot run the test cluster, if it cannot: its daemons run as root, and
/// its packages must be installed (the tests install nothing).
fn cannot_run_here(commands: &[&str]) -> Option<String> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|uid| String::from_utf8_lossy(&uid.stdout).trim() == "0");
    if !root {
        return Some("the test cluster's daemons run as root, and this test does not".into());
    }
    let missing: Vec<&str> = commands
        .iter()
        .copied()
        .filter(|command| !on_path(command))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let groups = if commands.contains(&"slurmdbd") {
        "slurm slurm-accounting"
    } else {
        "slurm"
    };
    Some(format!(
        "{} not installed (as root: .ci/install-test-tools {groups})",
        missing.join(", ")
    ))
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
    if skip(&SLURM_COMMANDS, "a sweep sharded over Slurm") {
        return;
    }
    let _one_at_a_time = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
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
}

/// A Slurm client command against the test cluster, bounded by `timeout`.
fn slurm(cluster: &Cluster, command: &str, args: &[&str]) -> Output {
    Command::new("timeout")
        .args(["-k", "5", "30", command])
        .args(args)
        .env("SLURM_CONF", cluster.conf())
        .env(
            "PATH",
            format!(
                "{}:/usr/sbin:/sbin",
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .expect("timeout runs")
}

/// The command docs/traces.md gives, with a time window: sacct's default starts at midnight, and
/// the test may run across one.
const SACCT_FORMAT: &str =
    "--format=JobID,Submit,Start,End,Elapsed,AllocTRES,State,Account,Partition";

#[test]
fn a_slurm_history_replays_to_the_gpu_hours_sacct_accounted() {
    if skip(&ACCOUNTING_COMMANDS, "replaying a Slurm history") {
        return;
    }
    let _one_at_a_time = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let dir = temp_dir("slurm-replay");
    let options = ["--gpus", "8", "--cpus", "8", "--accounting"];
    let mut cluster = match Cluster::try_start(&dir.join("cluster"), &options) {
        Ok(cluster) => cluster,
        Err(out) => {
            let text = show(&out);
            let _ = script(
                "stop-local-cluster.sh",
                &["--dir", dir.join("cluster").to_str().unwrap()],
                None,
                STOP_TIMEOUT_S,
            );
            panic!("the cluster with GPUs and accounting did not start: {text}");
        }
    };
    let logs = dir.join("jobs");
    std::fs::create_dir_all(&logs).unwrap();
    cluster.logs.push(logs.clone());
    let admin = slurm(
        &cluster,
        "sacctmgr",
        &["-i", "add", "account", "nlp,vision"],
    );
    assert!(admin.status.success(), "{}", show(&admin));
    let admin = slurm(
        &cluster,
        "sacctmgr",
        &["-i", "add", "user", "root", "account=nlp,vision"],
    );
    assert!(admin.status.success(), "{}", show(&admin));

    // 36 jobs of 1, 2, 4 or 8 GPUs sleeping 1 to 3 s, for two accounts.
    let mut ids = Vec::new();
    for i in 0..36 {
        let gpus = [1, 2, 4, 8][i % 4];
        let seconds = 1 + i % 3;
        let account = if i % 5 < 3 { "nlp" } else { "vision" };
        let out = slurm(
            &cluster,
            "sbatch",
            &[
                "--parsable",
                "--chdir",
                logs.to_str().unwrap(),
                "-o",
                "job-%j.out",
                &format!("--account={account}"),
                &format!("--gres=gpu:{gpus}"),
                "--wrap",
                &format!("sleep {seconds}"),
            ],
        );
        assert!(out.status.success(), "sbatch failed: {}", show(&out));
        let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
        ids.push(id.split(';').next().unwrap_or_default().to_string());
    }
    let id_list = ids.join(",");
    // Wait for the queue to empty, then for accounting to hold every job with its end.
    let deadline = Instant::now() + Duration::from_secs(150);
    loop {
        let out = slurm(&cluster, "squeue", &["-h", "-j", &id_list]);
        if out.status.success() && out.stdout.iter().all(u8::is_ascii_whitespace) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "jobs still queued after 150 s: {}",
            show(&out)
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let sacct = loop {
        let out = slurm(
            &cluster,
            "sacct",
            &[
                "--allocations",
                "--parsable2",
                "--starttime=now-1days",
                SACCT_FORMAT,
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let done = text.lines().skip(1).filter(|line| {
            let fields: Vec<&str> = line.split('|').collect();
            ids.iter().any(|id| fields[0] == id)
                && fields[3] != "Unknown"
                && fields[6] == "COMPLETED"
        });
        if out.status.success() && done.count() == ids.len() {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "sacct lacks finished jobs: {}\n{text}",
            show(&out)
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let history = dir.join("history.txt");
    std::fs::write(&history, &sacct).unwrap();
    drop(cluster);

    // Slurm's own figures: sum of Elapsed x GPUs (parsed here, not by fleetsim).
    let (gpu_hours, jobs) = crate::traces::sacct_gpu_hours(&sacct);
    assert_eq!(jobs, ids.len(), "{sacct}");
    let scenario = dir.join("replay.toml");
    std::fs::write(
        &scenario,
        format!(
            "start = \"2027-01-01\"\nhorizon_months = 1\nreplications = 2\n\n[[workload]]\nname = \"slurm\"\ntrace = \"history.txt\"\ntrace_format = \"slurm\"\nreplay = \"exact\"\n{}",
            crate::traces::UNLIMITED_ON_DEMAND
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--no-charts",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", show(&run));
    let mut reader = csv::Reader::from_path(out.join("replications.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        assert_eq!(
            &record[column("jobs_arrived")],
            ids.len().to_string().as_str()
        );
        let busy: f64 = record[column("gpu_hours_busy")].parse().unwrap();
        assert!(
            (busy - gpu_hours).abs() <= 1e-9 * gpu_hours,
            "replayed {busy} GPU-hours, Slurm accounted {gpu_hours}"
        );
    }
    println!(
        "slurm replay: {} jobs, {gpu_hours:.6} GPU-hours in sacct, replayed the same; {:.0} s in all",
        ids.len(),
        started.elapsed().as_secs_f64()
    );
}
