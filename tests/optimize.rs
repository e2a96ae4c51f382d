//! `fleetsim optimize` against known answers: the smallest M/M/c fleet whose Erlang C
//! waiting-time p95 meets a limit, the reserved capacity that minimises the closed-form cost
//! k p (1 - d) T + p a B(k, a) T, and a two-parameter case against a full grid sweep at the
//! same final precision. Then resume, determinism and bad questions.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{fleetsim, temp_dir};

/// Erlang B by the stable recursion.
fn erlang_b(servers: u32, load: f64) -> f64 {
    (1..=servers).fold(1.0, |b, k| load * b / (f64::from(k) + load * b))
}

/// Erlang C: probability of waiting in M/M/c at offered load `load` < `servers`.
fn erlang_c(servers: u32, load: f64) -> f64 {
    let b = erlang_b(servers, load);
    let c = f64::from(servers);
    c * b / (c - load * (1.0 - b))
}

/// The p95 of the M/M/c wait with 1 h mean service: P(W > t) = C e^(-(c - a) t).
fn erlang_c_p95_h(servers: u32, load: f64) -> f64 {
    let waiting = erlang_c(servers, load);
    if waiting <= 0.05 {
        0.0
    } else {
        (waiting / 0.05).ln() / (f64::from(servers) - load)
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs `fleetsim optimize`, asserting success; returns recommendation.json.
fn optimize(args: &[&str]) -> Value {
    let out = fleetsim(&[&["optimize"], args].concat());
    assert!(
        out.status.success(),
        "optimize failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = args[args.iter().position(|a| *a == "--out").unwrap() + 1];
    serde_json::from_slice(&fs::read(Path::new(dir).join("recommendation.json")).unwrap()).unwrap()
}

fn chosen_value(rec: &Value, path: &str) -> i64 {
    rec["chosen"]["parameters"][path]
        .as_i64()
        .unwrap_or_else(|| panic!("no integer {path} in {rec}"))
}

/// An M/M/c fleet of 1-GPU nodes whose cost is their capital only: cost is proportional to
/// the nodes, so the cheapest feasible fleet is the smallest.
fn mmc_scenario(lambda_per_h: f64) -> String {
    format!(
        r#"
name = "mmc"
start = "2027-01-01"
horizon_months = 6
warmup_days = 30
replications = 10
seed = 5
[[workload]]
name = "jobs"
arrivals_per_day = {arrivals}
gpus = 1
duration_h = {{ dist = "exponential", mean = 1.0 }}
[[pool]]
name = "cluster"
type = "on_prem"
gpu = "H100"
gpus_per_node = 1
nodes = 8
capex_per_node = 10000
amortization_months = 6
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[strategy]]
name = "own"
pools = ["cluster"]
"#,
        arrivals = lambda_per_h * 24.0
    )
}

#[test]
fn the_smallest_mmc_fleet_meeting_a_p95_wait_is_erlang_cs() {
    let dir = temp_dir("optimize-mmc");
    let load = 6.0;
    let scenario = write(&dir, "mmc.toml", &mmc_scenario(load));
    for limit_h in [1.5, 0.7, 0.3] {
        let expected = (7..=14)
            .find(|&c| erlang_c_p95_h(c, load) <= limit_h)
            .unwrap();
        // The test can fail: the neighbours are clearly on either side of the limit.
        assert!(erlang_c_p95_h(expected - 1, load) > limit_h * 1.3);
        assert!(erlang_c_p95_h(expected, load) < limit_h * 0.8);
        let out = dir.join(format!("out-{limit_h}"));
        let rec = optimize(&[
            &scenario,
            "--vary",
            "pool.cluster.nodes=7..14:1",
            "--subject-to",
            &format!("wait_p95_h <= {limit_h}"),
            "--out",
            out.to_str().unwrap(),
            "--no-charts",
            "-q",
        ]);
        eprintln!(
            "M/M/c at load {load}, p95 <= {limit_h} h: chosen {} nodes (Erlang C: {expected}, p95 {:.3} h), {} replications",
            chosen_value(&rec, "pool.cluster.nodes"),
            erlang_c_p95_h(expected, load),
            rec["replications_spent"]
        );
        assert_eq!(
            chosen_value(&rec, "pool.cluster.nodes"),
            i64::from(expected)
        );
        assert_eq!(rec["stop"], "decided");
    }
}

/// k reserved 1-GPU nodes at a discount, overflow to on-demand at once (a loss system).
fn reserved_scenario(load: f64, price: f64, discount: f64) -> String {
    format!(
        r#"
name = "reserved"
start = "2027-01-01"
horizon_months = 12
replications = 10
seed = 9
[[workload]]
name = "jobs"
arrivals_per_day = {arrivals}
gpus = 1
duration_h = {{ dist = "exponential", mean = 1.0 }}
[[pool]]
name = "committed"
type = "reserved"
gpu = "H100"
gpus_per_node = 1
nodes = 4
price_per_gpu_h = {price}
discount = {discount}
term_months = 12
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = {price}
[[strategy]]
name = "reserved-burst"
pools = ["committed", "cloud"]
"#,
        arrivals = load * 24.0
    )
}

#[test]
fn the_reserved_capacity_minimises_the_closed_form_cost() {
    let (load, price, discount) = (4.0, 10.0, 0.5);
    let hours = 365.0 * 24.0;
    let cost = |k: u32| {
        f64::from(k) * price * (1.0 - discount) * hours + price * load * erlang_b(k, load) * hours
    };
    let expected = (1..=12)
        .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
        .unwrap();
    // The neighbours cost more than twice the indifference zone (0.5 %) more.
    for k in [expected - 1, expected + 1] {
        assert!(cost(k) > cost(expected) * 1.01, "k = {k}");
    }
    let dir = temp_dir("optimize-reserved");
    let scenario = write(
        &dir,
        "reserved.toml",
        &reserved_scenario(load, price, discount),
    );
    let out = dir.join("out");
    let rec = optimize(&[
        &scenario,
        "--vary",
        "pool.committed.nodes=1..12:1",
        "--indifference",
        "0.005",
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    let chosen = &rec["chosen"];
    let objective = &chosen["objective"];
    eprintln!(
        "reserved k: chosen {} (closed form {expected}, cost {:.0}), simulated {} [{}, {}]",
        chosen_value(&rec, "pool.committed.nodes"),
        cost(expected),
        objective["mean"],
        objective["ci95_low"],
        objective["ci95_high"]
    );
    assert_eq!(
        chosen_value(&rec, "pool.committed.nodes"),
        i64::from(expected)
    );
    // And its cost is the closed form's, within its own interval.
    let (low, high) = (
        objective["ci95_low"].as_f64().unwrap(),
        objective["ci95_high"].as_f64().unwrap(),
    );
    assert!(high - low < 0.02 * cost(expected), "too wide to fail");
    assert!(low <= cost(expected) && cost(expected) <= high);
}

/// On-prem nodes plus on-demand burst after a wait: two parameters.
fn burst_scenario() -> String {
    r#"
name = "burst"
start = "2027-01-01"
horizon_months = 3
warmup_days = 14
replications = 10
seed = 3
[[workload]]
name = "jobs"
arrivals_per_day = 144
gpus = 1
duration_h = { dist = "exponential", mean = 1.0 }
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 1
nodes = 6
capex_per_node = 12000
amortization_months = 36
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 1
price_per_gpu_h = 4.0
[[strategy]]
name = "hybrid"
pools = ["dgx", "cloud"]
burst_after_wait_h = 1.0
"#
    .to_string()
}

/// Mean of `metric` at every point of a sweep: (nodes, burst) -> mean.
fn sweep_means(dir: &Path, metric: &str) -> Vec<((i64, f64), f64)> {
    let mut reader = csv::Reader::from_path(dir.join("sweep.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (nodes, burst, m, mean) = (
        col("pool.dgx.nodes"),
        col("strategy.hybrid.burst_after_wait_h"),
        col("metric"),
        col("mean"),
    );
    reader
        .records()
        .map(|r| r.unwrap())
        .filter(|r| &r[m] == metric)
        .map(|r| {
            (
                (r[nodes].parse().unwrap(), r[burst].parse().unwrap()),
                r[mean].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn two_parameters_give_the_grid_sweeps_answer_for_far_fewer_replications() {
    let dir = temp_dir("optimize-grid");
    let scenario = write(&dir, "burst.toml", &burst_scenario());
    let vary = [
        "--vary",
        "pool.dgx.nodes=2..12:1",
        "--vary",
        "strategy.hybrid.burst_after_wait_h=0,0.5,1,2",
    ];
    let out = dir.join("optimize");
    let rec = optimize(
        &[
            &[scenario.as_str()][..],
            &vary,
            &[
                "--subject-to",
                "wait_p95_h <= 0.6",
                "--out",
                out.to_str().unwrap(),
                "--no-charts",
                "-q",
            ],
        ]
        .concat(),
    );
    let n = rec["chosen"]["replications"].as_u64().unwrap();
    let spent = rec["replications_spent"].as_u64().unwrap();
    let grid_spent = rec["grid_replications_at_final_precision"]
        .as_u64()
        .unwrap();
    assert_eq!(grid_spent, 44 * n);

    let sweep_dir = dir.join("sweep");
    let out = fleetsim(
        &[
            &["sweep", scenario.as_str()][..],
            &vary,
            &[
                "--replications",
                &n.to_string(),
                "--out",
                sweep_dir.to_str().unwrap(),
                "--no-charts",
                "-q",
            ],
        ]
        .concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let costs = sweep_means(&sweep_dir, "total_cost");
    let waits = sweep_means(&sweep_dir, "wait_p95_h");
    let feasible: Vec<&((i64, f64), f64)> = costs
        .iter()
        .filter(|(point, _)| waits.iter().any(|(p, w)| p == point && *w <= 0.6))
        .collect();
    let (best_point, best_cost) = feasible
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, c)| (*p, *c))
        .unwrap();
    let chosen = (
        chosen_value(&rec, "pool.dgx.nodes"),
        rec["chosen"]["parameters"]["strategy.hybrid.burst_after_wait_h"]
            .as_f64()
            .unwrap(),
    );
    let chosen_cost = costs.iter().find(|(p, _)| *p == chosen).unwrap().1;
    eprintln!(
        "two parameters: optimize chose {chosen:?} ({chosen_cost:.0}) with {spent} replications; the grid at {n} replications each chose {best_point:?} ({best_cost:.0}) with {grid_spent}: {:.1}x as many",
        grid_spent as f64 / spent as f64
    );
    // The same answer, or one the indifference zone (1 %) makes as good.
    assert!(
        chosen_cost <= best_cost * 1.01,
        "{chosen:?} vs {best_point:?}"
    );
    assert!(
        spent * 2 <= grid_spent,
        "spent {spent} of a grid's {grid_spent}"
    );
}

#[test]
fn a_resumed_optimisation_writes_what_an_uninterrupted_one_does() {
    let dir = temp_dir("optimize-resume");
    let scenario = write(&dir, "burst.toml", &burst_scenario());
    let args = |out: &Path, threads: &str| {
        vec![
            scenario.clone(),
            "--vary".into(),
            "pool.dgx.nodes=4..9:1".into(),
            "--subject-to".into(),
            "wait_p95_h <= 0.6".into(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
            "--threads".into(),
            threads.into(),
            "--no-charts".into(),
            "-q".into(),
        ]
    };
    let run = |args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fleetsim(&[&["optimize"], &args[..]].concat())
    };
    let whole = dir.join("whole");
    assert!(run(&args(&whole, "1")).status.success());
    let other = dir.join("two-threads");
    assert!(run(&args(&other, "2")).status.success());
    let files = [
        "optimize.csv",
        "recommendation.json",
        "evaluations.csv",
        "best/summary.csv",
    ];
    for file in files {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(other.join(file)).unwrap(),
            "{file} differs between 1 and 2 threads"
        );
    }

    // An interrupted run: the answer's files missing, the journal cut mid-line and one line
    // damaged.
    let cut = dir.join("cut");
    assert!(run(&args(&cut, "2")).status.success());
    for file in ["optimize.csv", "recommendation.json"] {
        fs::remove_file(cut.join(file)).unwrap();
    }
    let journal = fs::read_to_string(cut.join("evaluations.csv")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let mut damaged: Vec<String> = lines[..lines.len() / 2]
        .iter()
        .map(|l| l.to_string())
        .collect();
    damaged[3] = damaged[3].replacen(',', ",9", 1);
    let mut text = damaged.join("\n");
    text.push('\n');
    text.push_str(&lines[lines.len() / 2][..10]);
    fs::write(cut.join("evaluations.csv"), text).unwrap();

    let again = run(&args(&cut, "2"));
    assert!(
        !again.status.success(),
        "the same question without --resume is refused"
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let mut resume = args(&cut, "2");
    resume.push("--resume".into());
    let out = run(&resume);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("2 damaged line(s)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in files {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(cut.join(file)).unwrap(),
            "{file} differs after a resume"
        );
    }

    // Another question's journal (another seed) copied into the folder: none of its lines is
    // trusted, so the answer is still the folder's own question's.
    let seeded = dir.join("seed-99");
    let mut other_seed = args(&seeded, "2");
    other_seed.extend(["--seed".into(), "99".into()]);
    assert!(run(&other_seed).status.success());
    for file in ["optimize.csv", "recommendation.json"] {
        fs::remove_file(cut.join(file)).unwrap();
    }
    fs::copy(seeded.join("evaluations.csv"), cut.join("evaluations.csv")).unwrap();
    let out = run(&resume);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("damaged line(s)"), "{stderr}");
    for file in files {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(cut.join(file)).unwrap(),
            "{file} differs after resuming with another question's journal"
        );
    }
}

#[test]
fn the_best_candidates_run_folder_repeats_its_figures() {
    let dir = temp_dir("optimize-best");
    let scenario = write(&dir, "burst.toml", &burst_scenario());
    let out = dir.join("out");
    let rec = optimize(&[
        &scenario,
        "--vary",
        "pool.dgx.nodes=4..9:1",
        "--subject-to",
        "wait_p95_h <= 0.6",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let summary = fs::read_to_string(out.join("best/summary.csv")).unwrap();
    let mean = rec["chosen"]["objective"]["mean"].as_f64().unwrap();
    let row = summary
        .lines()
        .find(|l| l.starts_with("hybrid,total_cost,"))
        .unwrap();
    let best_mean: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
    assert_eq!(best_mean, mean, "best/ simulates the same replications");
    assert!(out.join("optimize_cost_vs_constraint.png").is_file());
    assert!(out.join("best/report.html").is_file());
    // `fleetsim plot` redraws the chart from the files alone.
    fs::remove_file(out.join("optimize_cost_vs_constraint.png")).unwrap();
    let plot = fleetsim(&["plot", out.to_str().unwrap(), "-q"]);
    assert!(
        plot.status.success(),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    assert!(out.join("optimize_cost_vs_constraint.png").is_file());
}

#[test]
fn bad_questions_are_refused_with_what_is_accepted() {
    let dir = temp_dir("optimize-bad");
    let scenario = write(&dir, "burst.toml", &burst_scenario());
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for (args, expected) in [
        (
            vec![
                "--vary",
                "pool.dgx.nodes=4..6:1",
                "--subject-to",
                "wait_p95 <= 2",
            ],
            "`wait_p95` is not a metric of summary.csv; accepted: total_cost",
        ),
        (
            vec![
                "--vary",
                "pool.dgx.nodes=4..6:1",
                "--subject-to",
                "wait_p95_h = 2",
            ],
            "no comparison",
        ),
        (
            vec![
                "--vary",
                "pool.dgx.nodes=4..6:1",
                "--subject-to",
                "workload.training.wait_p95_h <= 2",
            ],
            "the scenario has no workload `training` (it has jobs)",
        ),
        (
            vec!["--vary", "pool.dgx.nodes=4..6:1", "--strategy", "nope"],
            "the scenario has no strategy `nope`; it has hybrid",
        ),
        (vec![], "nothing to vary"),
        (
            vec!["--vary", "pool.dgx.nodes=4..6"],
            "is an interval; give values to search",
        ),
        (
            vec!["--vary", "pool.dgx.nodes=4..6:1", "--confidence", "1.5"],
            "not a confidence from 0.5 to 0.999",
        ),
    ] {
        let out = fleetsim(&[&["optimize", scenario.as_str(), "--out", out], &args[..]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // A folder that holds something else is not overwritten.
    let other = dir.join("other");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("notes.txt"), "mine").unwrap();
    let out = fleetsim(&[
        "optimize",
        &scenario,
        "--vary",
        "pool.dgx.nodes=4..5:1",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no optimisation"));
    assert_eq!(fs::read_to_string(other.join("notes.txt")).unwrap(), "mine");
    // --force replaces only what an optimisation writes.
    let out = fleetsim(&[
        "optimize",
        &scenario,
        "--vary",
        "pool.dgx.nodes=4..5:1",
        "--out",
        other.to_str().unwrap(),
        "--force",
        "--no-charts",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read_to_string(other.join("notes.txt")).unwrap(), "mine");
    assert!(other.join("recommendation.json").is_file());
}

#[test]
fn the_files_optimize_table_asks_the_question_and_flags_replace_its_fields() {
    let dir = temp_dir("optimize-table");
    let text = format!(
        "{}\n[optimize]\nvary = {{ \"pool.cluster.nodes\" = \"7..14:1\" }}\nsubject_to = [\"wait_p95_h <= 0.7\"]\n",
        mmc_scenario(6.0)
    );
    let scenario = write(&dir, "mmc.toml", &text);
    let valid = fleetsim(&["validate", &scenario]);
    assert!(
        valid.status.success(),
        "{}",
        String::from_utf8_lossy(&valid.stderr)
    );
    let out = dir.join("table");
    let rec = optimize(&[
        &scenario,
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    assert_eq!(chosen_value(&rec, "pool.cluster.nodes"), 9);
    assert_eq!(rec["subject_to"][0], "wait_p95_h <= 0.7");
    let out = dir.join("flag");
    let rec = optimize(&[
        &scenario,
        "--subject-to",
        "wait_p95_h <= 1.5",
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    assert_eq!(chosen_value(&rec, "pool.cluster.nodes"), 8);
    // `run` ignores the table.
    let run_out = dir.join("run");
    let run = fleetsim(&[
        "run",
        &scenario,
        "--out",
        run_out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn several_strategies_are_each_optimised_then_compared() {
    let dir = temp_dir("optimize-strategies");
    let text = format!(
        "{}\n[[strategy]]\nname = \"cloud-only\"\npools = [\"cloud\"]\n",
        burst_scenario()
    );
    let scenario = write(&dir, "two.toml", &text);
    let out = dir.join("out");
    let rec = optimize(&[
        &scenario,
        "--vary",
        "pool.dgx.nodes=4..9:1",
        "--strategy",
        "hybrid",
        "--strategy",
        "cloud-only",
        "--subject-to",
        "wait_p95_h <= 0.6",
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    let choices = rec["strategies"].as_array().unwrap();
    assert_eq!(choices.len(), 2, "{rec}");
    let cheapest = choices
        .iter()
        .min_by(|a, b| {
            let cost = |c: &Value| c["objective"]["mean"].as_f64().unwrap();
            cost(a).total_cmp(&cost(b))
        })
        .unwrap();
    assert_eq!(rec["chosen"]["strategy"], cheapest["strategy"]);
    assert_eq!(rec["grid_points"], 6);
    // A coordinate search of one parameter finds the grid's answer.
    let coordinate = dir.join("coordinate");
    let again = optimize(&[
        &scenario,
        "--vary",
        "pool.dgx.nodes=4..9:1",
        "--strategy",
        "hybrid",
        "--subject-to",
        "wait_p95_h <= 0.6",
        "--search",
        "coordinate",
        "--out",
        coordinate.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    let hybrid = choices.iter().find(|c| c["strategy"] == "hybrid").unwrap();
    assert_eq!(again["chosen"]["parameters"], hybrid["parameters"]);
}

#[test]
fn a_service_constraint_reads_the_services_figures() {
    let dir = temp_dir("optimize-service");
    let out = dir.join("out");
    let rec = optimize(&[
        "scenarios/inference-and-training.toml",
        "--strategy",
        "dgx-base",
        "--vary",
        "pool.dgx.nodes=2,6",
        "--subject-to",
        "service.chat.unserved_share <= 0.05",
        "--set",
        "horizon_months=2",
        "--out",
        out.to_str().unwrap(),
        "--no-charts",
        "-q",
    ]);
    let value = rec["chosen"]["constraints"][0]["value"]["mean"]
        .as_f64()
        .unwrap();
    let services = fs::read_to_string(out.join("best/services.csv")).unwrap();
    let row = services
        .lines()
        .find(|l| l.starts_with("dgx-base,chat,unserved_share,"))
        .unwrap();
    let mean: f64 = row.split(',').nth(3).unwrap().parse().unwrap();
    assert_eq!(
        value, mean,
        "the constraint is services.csv's unserved_share"
    );
    assert!(
        value > 0.0,
        "the service is not always met: the test can fail"
    );
}
