//! `fleetsim sweep` and `fleetsim merge` end to end: the files a sweep writes, a point
//! against `fleetsim run --set`, shards merged byte for byte, resume, and the messages for bad
//! flags and folders.

use std::path::Path;

use crate::common::{assert_same_tree, fleetsim, temp_dir};

const TINY: &str = "tests/data/tiny-sweep.toml";

fn ok(args: &[&str]) -> (String, String) {
    let out = fleetsim(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{stderr}");
    (stdout, stderr)
}

/// Runs fleetsim expecting exit code `code`; returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let out = fleetsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}\n{stderr}");
    stderr
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_sweep_writes_points_sweep_csv_and_sweep_json() {
    let dir = temp_dir("sweep-files");
    let out = dir.join("out");
    let (stdout, _) = ok(&["sweep", TINY, "--out", s(&out)]);
    assert!(stdout.contains("lowest total cost (EUR"), "{stdout}");
    assert!(
        stdout.contains("point 7: strategy.hybrid.burst_after_wait_h=2, pool.dgx.nodes=1"),
        "{stdout}"
    );

    let info = json(&out.join("sweep.json"));
    let points = info["points"].as_array().unwrap();
    assert_eq!(points.len(), 9);
    // The file's order: the burst threshold first (slowest), the nodes second.
    assert_eq!(points[1]["parameters"]["pool.dgx.nodes"], 1);
    assert_eq!(
        points[3]["parameters"]["strategy.hybrid.burst_after_wait_h"],
        1
    );
    assert_eq!(info["parameters"][1]["kind"], "integer");
    for point in points {
        let folder = out.join("points").join(point["id"].as_str().unwrap());
        for file in [
            "summary.csv",
            "replications.csv",
            "pools.csv",
            "monthly.csv",
            "run.json",
        ] {
            assert!(
                folder.join(file).is_file(),
                "{}",
                folder.join(file).display()
            );
        }
        let run = json(&folder.join("run.json"));
        assert_eq!(run["sweep_point"], *point);
        assert!(
            run.get("wall_time_s").is_none() && run.get("threads").is_none(),
            "{run}"
        );
    }

    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "point,strategy.hybrid.burst_after_wait_h,pool.dgx.nodes,strategy,metric,mean,std,ci95_low,ci95_high,p5,p50,p95,n,currency"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let metrics = rows
        .iter()
        .filter(|r| r[0] == "0" && r[3] == "cloud")
        .count();
    assert_eq!(rows.len(), 9 * 2 * metrics);
    // Integer fields get integers, not 2.0.
    assert!(
        rows.iter().all(|r| ["0", "1", "2"].contains(&r[2])),
        "{:?}",
        rows[0]
    );
    // Common random numbers: the cloud strategy uses none of the varied fields, so it sees the
    // same jobs and gives the same numbers at every point.
    let cloud_costs: Vec<&str> = rows
        .iter()
        .filter(|r| r[3] == "cloud" && r[4] == "total_cost")
        .map(|r| r[5])
        .collect();
    assert_eq!(cloud_costs.len(), 9);
    assert!(
        cloud_costs.iter().all(|c| *c == cloud_costs[0]),
        "{cloud_costs:?}"
    );
    let invocation = json(&out.join("invocation.json"));
    assert_eq!(invocation["points_simulated"], 9);
    // The cloud strategy's 3 replications once, the hybrid's at every point.
    assert_eq!(invocation["replications_simulated"], 3 + 9 * 3);
}

#[test]
fn a_sweep_point_gives_the_same_rows_as_run_with_the_same_set() {
    let dir = temp_dir("sweep-vs-run");
    let sweep = dir.join("sweep");
    ok(&[
        "sweep",
        TINY,
        "--vary",
        "pool.dgx.nodes=0..4:2",
        "--vary",
        "strategy.hybrid.burst_after_wait_h=0.5",
        "--set",
        "workload.jobs.arrivals_per_day=9",
        "--replications",
        "4",
        "--out",
        s(&sweep),
        "-q",
    ]);
    let run = dir.join("run");
    ok(&[
        "run",
        TINY,
        "--set",
        "workload.jobs.arrivals_per_day=9",
        "--set",
        "pool.dgx.nodes=2",
        "--set",
        "strategy.hybrid.burst_after_wait_h=0.5",
        "--replications",
        "4",
        "--out",
        s(&run),
        "-q",
    ]);
    let point = sweep.join("points").join("001");
    assert_eq!(
        json(&point.join("run.json"))["sweep_point"]["parameters"]["pool.dgx.nodes"],
        2
    );
    for file in [
        "summary.csv",
        "replications.csv",
        "pools.csv",
        "monthly.csv",
        "pools_monthly.csv",
    ] {
        assert_eq!(
            std::fs::read(run.join(file)).unwrap(),
            std::fs::read(point.join(file)).unwrap(),
            "{file} differs between the sweep point and the run"
        );
    }
}

/// A strategy that uses none of the varied fields (`cloud` has no `dgx`) is simulated at the
/// first point only; the other points take its units, which are those a run at that point
/// simulates, bit for bit.
#[test]
fn a_strategy_the_varied_fields_do_not_touch_is_simulated_once() {
    let dir = temp_dir("sweep-shared-strategy");
    let sweep = dir.join("sweep");
    let common = [
        "--set",
        "workload.jobs.arrivals_per_day=9",
        "--replications",
        "3",
    ];
    let mut args = vec![
        "sweep",
        TINY,
        "--vary",
        "pool.dgx.nodes=0,1,2",
        "--out",
        s(&sweep),
        "-q",
    ];
    args.extend(common);
    ok(&args);
    let info = json(&sweep.join("sweep.json"));
    let same: Vec<serde_json::Value> = (0..3)
        .map(|p| info["points"][p]["same_units_as"].clone())
        .collect();
    assert_eq!(
        same[0],
        serde_json::Value::Null,
        "the first point simulates all"
    );
    for p in [1, 2] {
        assert_eq!(same[p], serde_json::json!({ "cloud": "000" }), "point {p}");
        let point = json(&sweep.join("points").join(format!("00{p}")).join("run.json"));
        assert_eq!(point["sweep_point"]["same_units_as"], same[p]);
    }
    // cloud once and hybrid at each of the three points, 3 replications each.
    let invocation = json(&sweep.join("invocation.json"));
    assert_eq!(invocation["replications_simulated"], 3 * (1 + 3));
    let run = dir.join("run");
    let mut args = vec![
        "run",
        TINY,
        "--set",
        "pool.dgx.nodes=2",
        "--out",
        s(&run),
        "-q",
    ];
    args.extend(common);
    ok(&args);
    for file in [
        "summary.csv",
        "replications.csv",
        "pools.csv",
        "monthly.csv",
    ] {
        assert_eq!(
            std::fs::read(run.join(file)).unwrap(),
            std::fs::read(sweep.join("points").join("002").join(file)).unwrap(),
            "{file} differs between the last point and a run of it"
        );
    }
}

#[test]
fn merged_shards_are_byte_identical_to_the_unsharded_sweep() {
    let dir = temp_dir("sweep-shards");
    let whole = dir.join("whole");
    ok(&["sweep", TINY, "--out", s(&whole), "-q"]);
    // Three shards, in separate folders, on different thread counts.
    for (k, threads) in [("1/3", "1"), ("2/3", "2"), ("3/3", "3")] {
        let folder = dir.join(format!("shard-{}", &k[..1]));
        ok(&[
            "sweep",
            TINY,
            "--shard",
            k,
            "--threads",
            threads,
            "--out",
            s(&folder),
            "-q",
        ]);
        assert!(
            !folder.join("sweep.csv").exists(),
            "a shard writes no sweep.csv"
        );
    }
    let merged = dir.join("merged");
    let (stdout, _) = ok(&[
        "merge",
        s(&dir.join("shard-1")),
        s(&dir.join("shard-2")),
        s(&dir.join("shard-3")),
        "--out",
        s(&merged),
    ]);
    assert!(stdout.contains("lowest total cost"), "{stdout}");
    assert_same_tree(&whole, &merged);

    // Two shards sharing one folder merge the same way.
    let shared = dir.join("shared");
    ok(&["sweep", TINY, "--shard", "2/2", "--out", s(&shared), "-q"]);
    ok(&["sweep", TINY, "--shard", "1/2", "--out", s(&shared), "-q"]);
    let merged_shared = dir.join("merged-shared");
    ok(&["merge", s(&shared), "--out", s(&merged_shared), "-q"]);
    assert_same_tree(&whole, &merged_shared);
}

#[test]
fn merge_refuses_missing_duplicate_and_foreign_shards() {
    let dir = temp_dir("sweep-merge-refuses");
    let shard = |k: &str, extra: &[&str]| {
        let folder = dir.join(format!("shard-{}{}", &k[..1], extra.join("")));
        let mut args = vec!["sweep", TINY, "--shard", k, "--out", s(&folder), "-q"];
        args.extend_from_slice(extra);
        ok(&args);
        folder
    };
    let (one, two, three) = (shard("1/3", &[]), shard("2/3", &[]), shard("3/3", &[]));
    let out = dir.join("out");

    let stderr = fails(&["merge", s(&one), s(&three), "--out", s(&out)], 1);
    assert!(stderr.contains("shard 2/3 is missing ("), "{stderr}");
    assert!(stderr.contains("--shard 2/3"), "{stderr}");

    // A shard of another sweep (another seed): named, with what differs.
    let other = shard("2/3", &["--seed", "8"]);
    let stderr = fails(
        &["merge", s(&one), s(&other), s(&three), "--out", s(&out)],
        1,
    );
    assert!(
        stderr.contains("hold shards of different sweeps"),
        "{stderr}"
    );
    assert!(
        stderr.contains(s(&other)) && stderr.contains("`seed`"),
        "{stderr}"
    );

    // Shards of another split.
    let whole = dir.join("whole");
    ok(&["sweep", TINY, "--out", s(&whole), "-q"]);
    let stderr = fails(&["merge", s(&one), s(&whole), "--out", s(&out)], 1);
    assert!(stderr.contains("split"), "{stderr}");

    // An unfinished shard (a point lost): named with the way to finish it.
    std::fs::remove_file(
        two.join("points")
            .join(two_first_point(&two))
            .join("run.json"),
    )
    .unwrap();
    let stderr = fails(&["merge", s(&one), s(&two), s(&three), "--out", s(&out)], 1);
    assert!(
        stderr.contains("shard 2/3 is missing or incomplete"),
        "{stderr}"
    );
    assert!(stderr.contains("--resume"), "{stderr}");

    let stderr = fails(&["merge", s(&dir), "--out", s(&out)], 1);
    assert!(
        stderr.contains("not a sweep folder (no sweep.json)"),
        "{stderr}"
    );
    let stderr = fails(&["merge", s(&one), "--out", s(&one)], 1);
    assert!(
        stderr.contains("is one of the folders to merge"),
        "{stderr}"
    );
    assert!(
        !out.join("sweep.json").exists(),
        "nothing is written on refusal"
    );
}

fn two_first_point(shard: &Path) -> String {
    let marker = json(&shard.join("shard-2-of-3.json"));
    marker["points"][0].as_str().unwrap().to_string()
}

#[test]
fn resume_simulates_only_the_points_not_done() {
    let dir = temp_dir("sweep-resume");
    let whole = dir.join("whole");
    ok(&["sweep", TINY, "--out", s(&whole), "-q"]);
    let resumed = dir.join("resumed");
    ok(&["sweep", TINY, "--out", s(&resumed), "-q"]);
    // An interrupted sweep: one point never written, one cut off before its run.json (its CSV
    // files are there), one whose run.json describes another point.
    std::fs::remove_dir_all(resumed.join("points/002")).unwrap();
    std::fs::remove_file(resumed.join("points/005/run.json")).unwrap();
    std::fs::copy(
        resumed.join("points/000/run.json"),
        resumed.join("points/007/run.json"),
    )
    .unwrap();
    std::fs::remove_file(resumed.join("sweep.csv")).unwrap();
    let (_, stderr) = ok(&["sweep", TINY, "--out", s(&resumed), "--resume"]);
    assert!(
        stderr.contains("simulated 3 points, 6 done before"),
        "{stderr}"
    );
    assert_eq!(
        json(&resumed.join("invocation.json"))["points_simulated"],
        3
    );
    assert_same_tree(&whole, &resumed);
    // Nothing left to do.
    ok(&["sweep", TINY, "--out", s(&resumed), "--resume", "-q"]);
    assert_eq!(
        json(&resumed.join("invocation.json"))["points_simulated"],
        0
    );
    assert_same_tree(&whole, &resumed);
}

#[test]
fn a_folder_of_another_sweep_is_not_overwritten() {
    let dir = temp_dir("sweep-other");
    let out = dir.join("out");
    ok(&[
        "sweep",
        TINY,
        "--vary",
        "pool.dgx.nodes=1,2",
        "--out",
        s(&out),
        "-q",
    ]);
    let stderr = fails(
        &[
            "sweep",
            TINY,
            "--vary",
            "pool.dgx.nodes=1,3",
            "--out",
            s(&out),
            "-q",
        ],
        1,
    );
    assert!(
        stderr.contains("holds another sweep (its sweep.json differs in `parameters`"),
        "{stderr}"
    );
    assert!(stderr.contains("--force"), "{stderr}");
    ok(&[
        "sweep",
        TINY,
        "--vary",
        "pool.dgx.nodes=1,3",
        "--out",
        s(&out),
        "--force",
        "-q",
    ]);
    assert!(!out.join("points/002").exists());
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let stderr = fails(
        &[
            "sweep",
            TINY,
            "--vary",
            "pool.dgx.nodes=1",
            "--out",
            s(&dir),
            "-q",
        ],
        1,
    );
    assert!(
        stderr.contains("is not empty and holds no sweep"),
        "{stderr}"
    );
}

#[test]
fn a_latin_hypercube_puts_one_point_in_each_stratum() {
    let dir = temp_dir("sweep-lhs");
    let out = dir.join("out");
    ok(&[
        "sweep",
        TINY,
        "--vary",
        "pool.dgx.nodes=0..3",
        "--vary",
        "pool.cloud.price_per_gpu_h=2..8",
        "--sample",
        "lhs:4",
        "--out",
        s(&out),
        "-q",
    ]);
    let info = json(&out.join("sweep.json"));
    assert_eq!(info["sampling"]["method"], "lhs");
    assert_eq!(info["sampling"]["seed"], 7, "the scenario's seed");
    let points = info["points"].as_array().unwrap();
    let mut nodes: Vec<i64> = points
        .iter()
        .map(|p| p["parameters"]["pool.dgx.nodes"].as_i64().unwrap())
        .collect();
    nodes.sort_unstable();
    assert_eq!(
        nodes,
        [0, 1, 2, 3],
        "4 whole numbers in 4 strata: each once"
    );
    let mut strata: Vec<usize> = points
        .iter()
        .map(|p| {
            ((p["parameters"]["pool.cloud.price_per_gpu_h"]
                .as_f64()
                .unwrap()
                - 2.0)
                / 1.5) as usize
        })
        .collect();
    strata.sort_unstable();
    assert_eq!(strata, [0, 1, 2, 3]);
}

#[test]
fn bad_flags_exit_2_and_name_the_flag() {
    for (args, message) in [
        (
            vec!["--shard", "0/4"],
            "K counts from 1; the shards of 4 are 1/4 to 4/4",
        ),
        (vec!["--shard", "5/4"], "K must not exceed N"),
        (vec!["--shard", "2"], "is not K/N"),
        (
            vec!["--vary", "pool.dgx.nodes=0..4:x"],
            "STEP `x` is not a number",
        ),
        (vec!["--vary", "pool.dgx.nodes"], "is not PATH=SPEC"),
        (vec!["--sample", "lhs:0"], "N must be a whole number from 1"),
    ] {
        let mut all = vec!["sweep", TINY];
        all.extend(&args);
        let stderr = fails(&all, 2);
        assert!(stderr.contains(args[0]), "names the flag: {stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
}

#[test]
fn bad_sweeps_exit_1_and_say_why() {
    let dir = temp_dir("sweep-bad");
    let out = dir.join("out");
    for (vary, message) in [
        (
            "pool.dgz.nodes=0,1",
            "--vary pool.dgz.nodes=0,1: no pool is named `dgz` (did you mean `dgx`?)",
        ),
        ("pool.dgx.nods=0,1", "did you mean `nodes`"),
        (
            "pool.dgx.nodes=0..4:1.5",
            "`pool.dgx.nodes` takes whole numbers, but the sweep gives 1.5",
        ),
        (
            "pool.dgx.nodes=0..4",
            "is an interval, which only --sample can draw from",
        ),
        (
            "pool.cloud.price_per_gpu_h=-1,2",
            "1 of 2 sweep point(s) are not valid scenarios",
        ),
        ("replications=3", "`replications` is also fixed by --set"),
    ] {
        let stderr = fails(
            &[
                "sweep",
                TINY,
                "--vary",
                vary,
                "--replications",
                "2",
                "--out",
                s(&out),
            ],
            1,
        );
        assert!(stderr.contains(message), "{vary}: {stderr}");
    }
    let stderr = fails(
        &[
            "sweep",
            TINY,
            "--vary",
            "pool.cloud.price_per_gpu_h=-1,2",
            "--out",
            s(&out),
        ],
        1,
    );
    assert!(
        stderr.contains(
            "point 000 (pool.cloud.price_per_gpu_h=-1): `pool.cloud.price_per_gpu_h` must be"
        ),
        "{stderr}"
    );
    let no_sweep = dir.join("plain.toml");
    let text = std::fs::read_to_string(TINY).unwrap();
    std::fs::write(&no_sweep, &text[..text.find("[sweep]").unwrap()]).unwrap();
    let stderr = fails(&["sweep", s(&no_sweep), "--out", s(&out)], 1);
    assert!(
        stderr.contains("nothing to vary: give --vary PATH=SPEC"),
        "{stderr}"
    );
    let bad_table = dir.join("bad-table.toml");
    std::fs::write(
        &bad_table,
        format!(
            "{}[sweep]\nvary = {{ \"pool.dgx.nodes\" = 3 }}\n",
            &text[..text.find("[sweep]").unwrap()]
        ),
    )
    .unwrap();
    let stderr = fails(&["sweep", s(&bad_table), "--out", s(&out)], 1);
    assert!(
        stderr.contains("line 48: `sweep.vary.pool.dgx.nodes`: must be a list of values"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written for a bad sweep");
}

#[test]
fn validate_describes_the_sweep_table() {
    let (stdout, _) = ok(&["validate", TINY]);
    assert!(
        stdout.contains(
            "[sweep]: 9 points, a grid over strategy.hybrid.burst_after_wait_h, pool.dgx.nodes"
        ),
        "{stdout}"
    );
}

#[test]
fn a_warning_shared_by_several_points_is_said_once() {
    let dir = temp_dir("sweep-warnings");
    let out = dir.join("out");
    // The three points with pool.dgx.nodes = 0 warn that the pool adds no capacity.
    let (_, stderr) = ok(&["sweep", TINY, "--no-charts", "--quiet", "--out", s(&out)]);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("nodes = 0")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("warning: 3 points (000, 003, 006): pool `dgx` has nodes = 0"),
        "{stderr}"
    );
}

// ---- no silent loss, no foreign files touched ----------------------------------------------

/// Keeps the first `lines` lines of a file (a cut at a line boundary, which CSV readers accept).
fn cut(path: &Path, lines: usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let kept: String = text.split_inclusive('\n').take(lines).collect();
    std::fs::write(path, kept).unwrap();
}

#[test]
fn resume_simulates_a_damaged_point_again() {
    let dir = temp_dir("sweep-damaged");
    let whole = dir.join("whole");
    ok(&["sweep", TINY, "--out", s(&whole), "-q", "--no-charts"]);
    let resumed = dir.join("resumed");
    ok(&["sweep", TINY, "--out", s(&resumed), "-q", "--no-charts"]);
    cut(&resumed.join("points/001/summary.csv"), 3);
    std::fs::write(resumed.join("points/004/pools.csv"), "").unwrap();
    let (_, stderr) = ok(&[
        "sweep",
        TINY,
        "--out",
        s(&resumed),
        "--resume",
        "--no-charts",
    ]);
    let file = resumed.join("points/001/summary.csv");
    // The rows the undamaged file has, its header aside.
    let rows = std::fs::read_to_string(whole.join("points/001/summary.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(
        stderr.contains(&format!("warning: {}: has ", file.display()))
            && stderr.contains(&format!("bytes, but run.json recorded {rows} rows in")),
        "{stderr}"
    );
    assert!(stderr.contains("simulating point 001 ("), "{stderr}");
    assert!(
        stderr.contains("points/004/pools.csv: has 0 bytes"),
        "{stderr}"
    );
    assert!(
        stderr.contains("simulated 2 points, 7 done before"),
        "{stderr}"
    );
    assert_same_tree(&whole, &resumed);
}

#[test]
fn merge_refuses_a_damaged_shard_and_names_the_remedy() {
    let dir = temp_dir("sweep-damaged-shard");
    let whole = dir.join("whole");
    ok(&["sweep", TINY, "--out", s(&whole), "-q"]);
    let one = dir.join("one");
    let two = dir.join("two");
    ok(&["sweep", TINY, "--shard", "1/2", "--out", s(&one), "-q"]);
    ok(&["sweep", TINY, "--shard", "2/2", "--out", s(&two), "-q"]);
    let point = |shard: &Path, name: &str| {
        let marker = json(&shard.join(name));
        shard
            .join("points")
            .join(marker["points"][0].as_str().unwrap())
    };
    let monthly = point(&one, "shard-1-of-2.json").join("monthly.csv");
    cut(&monthly, 2);
    let out = dir.join("merged");
    let stderr = fails(&["merge", s(&one), s(&two), "--out", s(&out)], 1);
    assert!(
        stderr.contains(&format!("error: {}: has ", monthly.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "of shard 1/2 is damaged: rerun that shard into {} with --resume",
            one.display()
        )),
        "{stderr}"
    );
    assert!(!out.join("sweep.json").exists(), "nothing is merged");
    // A 0-byte file is found the same way.
    let pools = point(&two, "shard-2-of-2.json").join("pools.csv");
    std::fs::write(&pools, "").unwrap();
    ok(&[
        "sweep",
        TINY,
        "--shard",
        "1/2",
        "--out",
        s(&one),
        "--resume",
        "-q",
    ]);
    let stderr = fails(&["merge", s(&one), s(&two), "--out", s(&out)], 1);
    assert!(
        stderr.contains(&format!("error: {}: has 0 bytes", pools.display())),
        "{stderr}"
    );
    // The remedy works: the merge is then the unsharded sweep, byte for byte.
    ok(&[
        "sweep",
        TINY,
        "--shard",
        "2/2",
        "--out",
        s(&two),
        "--resume",
        "-q",
    ]);
    ok(&["merge", s(&one), s(&two), "--out", s(&out), "-q"]);
    assert_same_tree(&whole, &out);
}

#[test]
fn sweep_force_removes_only_what_fleetsim_wrote() {
    let dir = temp_dir("sweep-force-foreign");
    let out = dir.join("out");
    let vary = |values: &str| format!("pool.dgx.nodes={values}");
    ok(&[
        "sweep",
        TINY,
        "--vary",
        &vary("1,2,3"),
        "--out",
        s(&out),
        "-q",
        "--no-charts",
    ]);
    std::fs::create_dir_all(out.join("points/mine")).unwrap();
    std::fs::write(out.join("points/mine/data.txt"), "mine").unwrap();
    std::fs::write(out.join("points/002/notes.txt"), "mine too").unwrap();
    ok(&[
        "sweep",
        TINY,
        "--vary",
        &vary("4"),
        "--out",
        s(&out),
        "--force",
        "-q",
        "--no-charts",
    ]);
    assert_eq!(
        std::fs::read_to_string(out.join("points/mine/data.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("points/002/notes.txt")).unwrap(),
        "mine too"
    );
    assert!(
        !out.join("points/002/summary.csv").exists(),
        "fleetsim's files went"
    );
    assert!(!out.join("points/001").exists());
    assert!(out.join("points/000/run.json").exists());
}

#[test]
fn out_naming_a_file_is_called_a_file() {
    let dir = temp_dir("sweep-out-file");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    for force in [&[][..], &["--force"][..]] {
        let mut args = vec!["sweep", TINY, "--out", s(&file), "-q"];
        args.extend_from_slice(force);
        let stderr = fails(&args, 1);
        assert!(
            stderr.contains(&format!(
                "{}: is a file, not a folder; choose another folder with --out",
                file.display()
            )),
            "{stderr}"
        );
        let mut args = vec!["merge", s(&dir), "--out", s(&file)];
        args.extend_from_slice(force);
        let stderr = fails(&args, 1);
        assert!(stderr.contains("is a file, not a folder"), "{stderr}");
    }
    let stderr = fails(&["run", TINY, "--out", s(&file), "-q"], 1);
    assert!(stderr.contains("is a file, not a folder"), "{stderr}");
}

/// `run --shard K/N` then `merge`: every file of the unsharded run, byte for byte, but
/// run.json's own command, threads and wall time and report.html, which shows them; with
/// `--trace` (jobs.csv comes from shard 1) and `--focus` (the merge simulates the median
/// replications again).
#[test]
fn merged_run_shards_are_the_unsharded_run() {
    let dir = temp_dir("run-shards");
    let common = ["--replications", "5", "--trace", "--focus-period", "month"];
    let whole = dir.join("whole");
    let mut args = vec!["run", TINY, "--out", s(&whole), "-q", "--threads", "2"];
    args.extend(common);
    ok(&args);
    // Shards 1 and 3 share a folder; shard 2 has its own, on another thread count.
    let (shared, own) = (dir.join("shared"), dir.join("own"));
    for (k, folder, threads) in [
        ("3/3", &shared, "1"),
        ("1/3", &shared, "2"),
        ("2/3", &own, "1"),
    ] {
        let mut args = vec![
            "run",
            TINY,
            "--shard",
            k,
            "--out",
            s(folder),
            "-q",
            "--threads",
            threads,
        ];
        args.extend(common);
        ok(&args);
    }
    assert!(
        !shared.join("summary.csv").exists(),
        "a shard writes no results"
    );
    let merged = dir.join("merged");
    let (stdout, stderr) = ok(&["merge", s(&shared), s(&own), "--out", s(&merged)]);
    assert!(stdout.contains("total cost"), "the summary table: {stdout}");
    assert!(
        stderr.contains("focus.csv") && stderr.contains("jobs.csv"),
        "{stderr}"
    );
    let (mut a, mut b) = (crate::common::tree(&whole), crate::common::tree(&merged));
    for volatile in ["run.json", "report.html"] {
        let (x, y) = (a.remove(volatile), b.remove(volatile));
        assert!(x.is_some() && y.is_some(), "{volatile} in both");
    }
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(
            b[name] == *bytes,
            "{name} differs between the run and the merged shards"
        );
    }
    let (x, y) = (
        json(&whole.join("run.json")),
        json(&merged.join("run.json")),
    );
    let mut differs = Vec::new();
    for (key, value) in x.as_object().unwrap() {
        if y[key] != *value {
            differs.push(key.as_str());
        }
    }
    assert_eq!(
        differs,
        ["command_line", "wall_time_s"],
        "run.json differs only so"
    );
    let line = y["command_line"].as_array().unwrap();
    assert!(!line.iter().any(|a| a == "--shard"), "{line:?}");
    assert_eq!(line[line.len() - 1], s(&merged), "{line:?}");
}

#[test]
fn merge_refuses_run_shards_that_do_not_make_one_run() {
    let dir = temp_dir("run-shards-refused");
    let shard = |k: &str, name: &str, extra: &[&str]| {
        let folder = dir.join(name);
        let mut args = vec![
            "run",
            TINY,
            "--replications",
            "4",
            "--shard",
            k,
            "--out",
            s(&folder),
            "-q",
        ];
        args.extend_from_slice(extra);
        ok(&args);
        folder
    };
    let one = shard("1/2", "one", &[]);
    let two = shard("2/2", "two", &[]);
    let out = dir.join("out");
    let stderr = fails(&["merge", s(&one), "--out", s(&out)], 1);
    assert!(
        stderr.contains("shard 2/2 of the run is missing"),
        "{stderr}"
    );
    assert!(stderr.contains("--shard 2/2"), "{stderr}");
    let again = dir.join("again");
    std::fs::create_dir_all(&again).unwrap();
    for file in ["run-shard-2-of-2.json", "units-shard-2-of-2.cbor"] {
        std::fs::copy(two.join(file), again.join(file)).unwrap();
    }
    let stderr = fails(&["merge", s(&one), s(&two), s(&again), "--out", s(&out)], 1);
    assert!(stderr.contains("shard 2/2 is given twice"), "{stderr}");
    let other = shard("2/2", "other", &["--seed", "9"]);
    let stderr = fails(&["merge", s(&one), s(&other), "--out", s(&out)], 1);
    assert!(stderr.contains("shards of different runs"), "{stderr}");
    // A damaged units file is refused, not merged.
    let units = two.join("units-shard-2-of-2.cbor");
    let mut bytes = std::fs::read(&units).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&units, &bytes).unwrap();
    let stderr = fails(&["merge", s(&one), s(&two), "--out", s(&out)], 1);
    assert!(
        stderr.contains("units-shard-2-of-2.cbor: not a file fleetsim wrote"),
        "{stderr}"
    );
    assert!(stderr.contains("run the shard again"), "{stderr}");
    // A sweep's folder and a run's shards are not one thing.
    let sweep = dir.join("sweep");
    ok(&["sweep", TINY, "--out", s(&sweep), "-q"]);
    let stderr = fails(&["merge", s(&one), s(&sweep), "--out", s(&out)], 1);
    assert!(stderr.contains("holds a sweep"), "{stderr}");
    assert!(!out.join("summary.csv").exists(), "nothing merged");
    // More shards than replications.
    let stderr = fails(
        &[
            "run",
            TINY,
            "--replications",
            "2",
            "--shard",
            "3/3",
            "--out",
            s(&out),
        ],
        1,
    );
    assert!(stderr.contains("3 shards for 2 replications"), "{stderr}");
}

/// A shard's marker as a user might have edited it: `edit` changes its JSON, and the files
/// are renamed after the shard it then claims to be. Returns the folder.
fn edited_shard(
    from: &Path,
    to: &Path,
    edit: impl Fn(&mut serde_json::Value),
) -> std::path::PathBuf {
    std::fs::create_dir_all(to).unwrap();
    let marker = std::fs::read_dir(from)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| s(p).ends_with(".json"))
        .unwrap();
    let mut info = json(&marker);
    let units = from.join(info["units"]["name"].as_str().unwrap());
    edit(&mut info);
    let (k, n) = (info["shard"].to_string(), info["shards"].to_string());
    let units_name = format!("units-shard-{k}-of-{n}.cbor");
    info["units"]["name"] = units_name.clone().into();
    std::fs::copy(&units, to.join(&units_name)).unwrap();
    let marker = to.join(format!("run-shard-{k}-of-{n}.json"));
    std::fs::write(&marker, serde_json::to_vec(&info).unwrap()).unwrap();
    to.to_path_buf()
}

/// Markers a user edited, shards of two splits, folders that hold no shard: each refused
/// before anything is written, in any order of the folders.
#[test]
fn merge_refuses_edited_markers_mixed_splits_and_folders_without_shards() {
    let dir = temp_dir("run-shards-checked");
    let shard = |k: &str, name: &str| {
        let folder = dir.join(name);
        ok(&[
            "run",
            TINY,
            "--replications",
            "6",
            "--shard",
            k,
            "--out",
            s(&folder),
            "-q",
            "--no-charts",
        ]);
        folder
    };
    let thirds: Vec<_> = (1..=3)
        .map(|k| shard(&format!("{k}/3"), &format!("third-{k}")))
        .collect();
    let halves: Vec<_> = (1..=2)
        .map(|k| shard(&format!("{k}/2"), &format!("half-{k}")))
        .collect();
    let out = dir.join("out");
    let merge = |folders: &[&Path]| {
        let mut args = vec!["merge"];
        args.extend(folders.iter().map(|f| s(f)));
        args.extend(["--out", s(&out), "--no-charts"]);
        let stderr = fails(&args, 1);
        assert!(!out.exists(), "nothing written: {stderr}");
        stderr
    };
    // Two splits of the run, whichever comes first.
    for folders in [
        [&thirds[0], &halves[0], &halves[1]],
        [&halves[1], &thirds[2], &thirds[0]],
    ] {
        let folders: Vec<&Path> = folders.iter().map(|p| p.as_path()).collect();
        let stderr = merge(&folders);
        assert!(stderr.contains("split in two ways (into"), "{stderr}");
    }
    // A folder without shards, or none at all, among the shards.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let stderr = merge(&[&thirds[0], &thirds[1], &thirds[2], &empty]);
    assert!(
        stderr.contains("empty: holds no shard of a run"),
        "{stderr}"
    );
    let stderr = merge(&[&thirds[0], &thirds[1], &thirds[2], &dir.join("typo")]);
    assert!(stderr.contains("typo: no such folder"), "{stderr}");
    // Markers edited by hand: no panic, no allocation of their claims, a named marker.
    type MarkerEdit = fn(&mut serde_json::Value);
    let edits: [(&str, MarkerEdit, &str); 6] = [
        (
            "zero",
            |i| i["shards"] = 0.into(),
            "shard 1/0 of 6 replications",
        ),
        (
            "huge",
            |i| i["shards"] = u32::MAX.into(),
            "which no run writes",
        ),
        (
            "range",
            |i| i["replications_to"] = 3.into(),
            "but shard 1/3 of 6 holds 0..2",
        ),
        (
            "time",
            |i| i["wall_time_s"] = (-5.0).into(),
            "wall time of -5.000e0 s",
        ),
        ("threads", |i| i["threads"] = u64::MAX.into(), "threads"),
        (
            "events",
            |i| i["events_simulated"] = 1.into(),
            "says 1 events simulated",
        ),
    ];
    for (name, edit, says) in edits {
        let edited = edited_shard(&thirds[0], &dir.join(name), edit);
        let stderr = merge(&[&edited, &thirds[1], &thirds[2]]);
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    // The merge's --out is one of the shards' folders.
    let stderr = fails(
        &[
            "merge",
            s(&thirds[0]),
            s(&thirds[1]),
            s(&thirds[2]),
            "--out",
            s(&thirds[1]),
        ],
        1,
    );
    assert!(stderr.contains("merge into another folder"), "{stderr}");
}

/// `run --shard` writes only into a folder of the run's shards: another run's shard, another
/// split's, or a file of the user's is refused; `--force` removes the shards in the way and
/// keeps the user's file. `--shard 1/1` is a shard too, which merges into the whole run.
#[test]
fn a_run_shard_goes_into_a_folder_of_its_run_only() {
    let dir = temp_dir("run-shard-folder");
    fn run<'a>(extra: &[&'a str], out: &'a Path) -> Vec<&'a str> {
        let mut args = vec![
            "run",
            TINY,
            "--replications",
            "4",
            "--out",
            s(out),
            "-q",
            "--no-charts",
        ];
        args.extend_from_slice(extra);
        args
    }
    let shared = dir.join("shared");
    ok(&run(&["--shard", "1/2"], &shared));
    ok(&run(&["--shard", "2/2"], &shared));
    for (extra, says) in [
        (
            &["--shard", "1/2", "--seed", "8"][..],
            "holds shard 1/2 of another run",
        ),
        (
            &["--shard", "1/4"][..],
            "holds shard 1/2 of this run, split into 2 shards, not 4",
        ),
    ] {
        let stderr = fails(&run(extra, &shared), 1);
        assert!(stderr.contains(says), "{stderr}");
        assert!(
            stderr.contains("--force (which removes that shard)"),
            "{stderr}"
        );
    }
    let mine = dir.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let stderr = fails(&run(&["--shard", "1/2"], &mine), 1);
    assert!(
        stderr.contains("holds `notes.txt`, not a shard of a run"),
        "{stderr}"
    );
    ok(&run(&["--shard", "1/2", "--force"], &mine));
    assert!(
        mine.join("notes.txt").exists(),
        "--force keeps the user's file"
    );
    // --force replaces the shards of another run, and only those.
    ok(&run(&["--shard", "1/2", "--seed", "8", "--force"], &shared));
    let names: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names.len(), 2, "one shard left: {names:?}");
    // A marker edited by hand is named as damaged, not read as the shard it claims to be.
    let marker = shared.join("run-shard-1-of-2.json");
    let mut info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&marker).unwrap()).unwrap();
    info["shards"] = 0.into();
    std::fs::write(&marker, info.to_string()).unwrap();
    let stderr = fails(&run(&["--shard", "2/2", "--seed", "8"], &shared), 1);
    assert!(
        stderr.contains("holds `run-shard-1-of-2.json`, a damaged shard marker"),
        "{stderr}"
    );
    ok(&run(&["--shard", "1/2", "--seed", "8", "--force"], &shared));
    // A run of one shard: its shard merges into the run's files.
    let (whole, single, merged) = (dir.join("whole"), dir.join("single"), dir.join("merged"));
    ok(&run(&[], &whole));
    ok(&run(&["--shard", "1/1"], &single));
    assert!(
        single.join("run-shard-1-of-1.json").exists(),
        "1/1 writes a shard"
    );
    ok(&[
        "merge",
        s(&single),
        "--out",
        s(&merged),
        "-q",
        "--no-charts",
    ]);
    for name in ["summary.csv", "replications.csv", "monthly.csv"] {
        assert_eq!(
            std::fs::read(whole.join(name)).unwrap(),
            std::fs::read(merged.join(name)).unwrap(),
            "{name}"
        );
    }
}
