//! Sweep charts end to end: `fleetsim sweep` and `fleetsim merge` draw the
//! frontier, a chart per varied parameter and metric, and the heatmap over two parameters, as
//! PNGs of 1600 x 1000 and SVGs that name the strategies and parameters; `--no-charts`, shards
//! and `fleetsim plot` on a sweep folder; one parameter, a two-parameter grid, a Latin
//! hypercube and a parameter whose values are names.

use std::fs;
use std::path::Path;

use fleetsim::charts::style::strategy_color;

use crate::charts::{decode_png, has_pixel, svg_texts};
use crate::common::{fleetsim, temp_dir};

const TINY: &str = "tests/data/tiny-sweep.toml";
const STRATEGIES: [&str; 2] = ["cloud", "hybrid"];

/// Runs fleetsim, expecting success; returns stderr.
fn ok(args: &[&str]) -> String {
    let out = fleetsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{stderr}");
    stderr
}

/// A sweep of the tiny scenario with two replications into `out`, with `extra` flags.
fn sweep(out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "sweep",
        TINY,
        "--replications",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&args)
}

/// The chart files (`sweep_*.png`, `sweep_*.svg`) of a folder, sorted.
fn chart_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name.ends_with(".png") || name.ends_with(".svg") || name.ends_with(".partial")
        })
        .collect();
    names.sort();
    names
}

/// Both files of each chart `stem`, sorted as [`chart_files`] lists them.
fn expected(stems: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = stems
        .iter()
        .flat_map(|stem| [format!("{stem}.png"), format!("{stem}.svg")])
        .collect();
    names.sort();
    names
}

/// Every chart of `dir` decodes at 1600 x 1000 and is drawn (many colours); its SVG is of the
/// same size in the bundled font and its text names every strategy and what `needles` list.
fn assert_drawn(dir: &Path, stem: &str, needles: &[&str]) -> Vec<String> {
    let png_path = dir.join(format!("{stem}.png"));
    let (width, height, pixels) = decode_png(&png_path);
    assert_eq!((width, height), (1600, 1000), "{}", png_path.display());
    let mut colors: Vec<&[u8]> = pixels.chunks_exact(3).collect();
    colors.sort_unstable();
    colors.dedup();
    assert!(colors.len() > 50, "{stem}.png: {} colours", colors.len());
    let svg = fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
    assert!(svg.contains(r#"width="1600" height="1000""#), "{stem}.svg");
    assert!(
        svg.contains(r#"font-family="DejaVu Sans, sans-serif""#),
        "{stem}.svg"
    );
    let texts = svg_texts(&svg);
    for needle in STRATEGIES.iter().chain(needles) {
        assert!(
            texts.iter().any(|t| t.contains(needle)),
            "{stem}.svg: no text says {needle:?}: {texts:?}"
        );
    }
    texts
}

/// The strategies' colours (sweep.json order, as in the run charts) are in the PNG.
fn assert_strategy_colours(dir: &Path, stem: &str) {
    let (_, _, pixels) = decode_png(&dir.join(format!("{stem}.png")));
    for (idx, strategy) in STRATEGIES.iter().enumerate() {
        let color = strategy_color(idx);
        assert!(
            has_pixel(&pixels, [color.0, color.1, color.2]),
            "{stem}.png: no pixel in {strategy}'s colour {color:?}"
        );
    }
}

#[test]
fn a_two_parameter_grid_gets_a_frontier_a_chart_per_parameter_and_a_heatmap() {
    let dir = temp_dir("sweep-charts-grid");
    let out = dir.join("out");
    let stderr = sweep(&out, &[]);
    assert!(stderr.contains("12 chart files (PNG, SVG)"), "{stderr}");
    assert_eq!(
        chart_files(&out),
        expected(&[
            "sweep_frontier",
            "sweep_total_cost_by_pool.dgx.nodes",
            "sweep_total_cost_by_strategy.hybrid.burst_after_wait_h",
            "sweep_wait_p95_h_by_pool.dgx.nodes",
            "sweep_wait_p95_h_by_strategy.hybrid.burst_after_wait_h",
            "sweep_total_cost_heatmap",
        ])
    );
    let texts = assert_drawn(
        &out,
        "sweep_frontier",
        &["tiny-sweep", "Non-dominated points"],
    );
    // The best points are named by their parameter values, with cost and wait.
    assert!(
        texts
            .iter()
            .any(|t| t.contains("burst_after_wait_h = 2, nodes = 1")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("p95 wait 2.00 h")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("(k EUR)")), "{texts:?}");
    // The cloud strategy, which neither parameter changes, is one dot counted nine
    // times; every other dot is labelled with its values (nodes, burst_after_wait_h).
    assert!(texts.iter().any(|t| t == "cloud \u{d7}9"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "2, 1"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("whiskers: 95 %")),
        "{texts:?}"
    );
    assert_strategy_colours(&out, "sweep_frontier");
    let texts = assert_drawn(
        &out,
        "sweep_total_cost_by_pool.dgx.nodes",
        &[
            "Nodes in the pool dgx (nodes)",
            "burst_after_wait_h = 0",
            "95 % confidence",
        ],
    );
    // Money in k EUR; the cloud strategy, untouched by the nodes, drawn once as a reference.
    assert!(texts.iter().any(|t| t == "k EUR"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("cloud (not changed by")),
        "{texts:?}"
    );
    assert_strategy_colours(&out, "sweep_total_cost_by_pool.dgx.nodes");
    assert_drawn(
        &out,
        "sweep_wait_p95_h_by_strategy.hybrid.burst_after_wait_h",
        &["hours", "p95 wait against burst threshold, strategy hybrid"],
    );
    // The heatmap: a panel for the hybrid strategy, whose cost changes over the plane, with the
    // value in each cell; the cloud strategy's cost is the same everywhere and named in the
    // subtitle.
    let texts = assert_drawn(
        &out,
        "sweep_total_cost_heatmap",
        &[
            "Nodes in the pool dgx (nodes)",
            "Burst threshold, strategy hybrid (hours)",
            "the same everywhere",
        ],
    );
    // Cells in k EUR ("66", "42"), the colour bar's ticks too ("40", "50", "60").
    let cells = texts
        .iter()
        .filter(|t| t.chars().all(|c| c.is_ascii_digit()))
        .filter(|t| t.len() >= 2)
        .count();
    assert!(cells >= 9, "a value in each of the 9 cells: {texts:?}");
}

#[test]
fn a_one_parameter_sweep_has_no_heatmap() {
    let dir = temp_dir("sweep-charts-one");
    let out = dir.join("out");
    sweep(&out, &["--vary", "pool.dgx.nodes=0..3:1"]);
    assert_eq!(
        chart_files(&out),
        expected(&[
            "sweep_frontier",
            "sweep_total_cost_by_pool.dgx.nodes",
            "sweep_wait_p95_h_by_pool.dgx.nodes",
        ])
    );
    assert_drawn(
        &out,
        "sweep_total_cost_by_pool.dgx.nodes",
        &[
            "Nodes in the pool dgx (nodes)",
            "total cost over 2 months, amortised",
        ],
    );
    // The one-row grid's cost chart gives the paired difference of each point to
    // the strategy's cheapest; the provenance footer says what made the chart.
    let texts = assert_drawn(
        &out,
        "sweep_total_cost_by_pool.dgx.nodes",
        &[
            "Paired difference to each strategy",
            "cloud (not changed by nodes)",
        ],
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Scenario tiny-sweep (sweep, 4 points) \u{b7} seed 7 \u{b7} 2 replications \u{b7} fleetsim ")),
        "{texts:?}"
    );
    assert_drawn(
        &out,
        "sweep_frontier",
        &["p95 wait from arrival to first start (hours)"],
    );
}

#[test]
fn a_latin_hypercube_is_drawn_as_dots_with_a_trend() {
    let dir = temp_dir("sweep-charts-lhs");
    let out = dir.join("out");
    sweep(
        &out,
        &[
            "--sample",
            "lhs:8",
            "--vary",
            "pool.dgx.nodes=0..4",
            "--vary",
            "pool.cloud.price_per_gpu_h=5..10",
        ],
    );
    assert_eq!(chart_files(&out).len(), 12, "{:?}", chart_files(&out));
    assert_drawn(
        &out,
        "sweep_total_cost_by_pool.cloud.price_per_gpu_h",
        &["Latin hypercube", "EUR per GPU-hour"],
    );
    assert_drawn(
        &out,
        "sweep_total_cost_heatmap",
        &["Latin hypercube", "ringed"],
    );
}

#[test]
fn a_parameter_of_names_gets_its_names_on_the_axis() {
    let dir = temp_dir("sweep-charts-names");
    let out = dir.join("out");
    sweep(
        &out,
        &[
            "--vary",
            "strategy.hybrid.queue=fifo,backfill,priority",
            "--vary",
            "pool.dgx.nodes=0,1",
        ],
    );
    assert!(out.join("sweep_total_cost_heatmap.png").is_file());
    for stem in [
        "sweep_total_cost_by_strategy.hybrid.queue",
        "sweep_wait_p95_h_by_strategy.hybrid.queue",
        "sweep_total_cost_heatmap",
    ] {
        let texts = assert_drawn(&out, stem, &["fifo", "backfill", "priority"]);
        assert!(
            texts.iter().any(|t| t.contains("queue")),
            "{stem}: {texts:?}"
        );
    }
}

#[test]
fn no_charts_shards_merge_and_plot() {
    let dir = temp_dir("sweep-charts-flow");
    let drawn = dir.join("drawn");
    sweep(&drawn, &[]);

    // --no-charts draws none; `fleetsim plot` draws the same bytes later.
    let bare = dir.join("bare");
    let stderr = sweep(&bare, &["--no-charts"]);
    assert!(!stderr.contains("chart files"), "{stderr}");
    assert!(chart_files(&bare).is_empty(), "{:?}", chart_files(&bare));
    let stderr = ok(&["plot", bare.to_str().unwrap()]);
    assert!(stderr.contains("wrote 12 chart files"), "{stderr}");
    for name in chart_files(&drawn) {
        assert!(
            fs::read(drawn.join(&name)).unwrap() == fs::read(bare.join(&name)).unwrap(),
            "{name}: plot drew other bytes than the sweep"
        );
    }

    // A shard draws none (it has no sweep.csv) and `plot` says why; the merge draws them all.
    let shards: Vec<_> = ["1/2", "2/2"]
        .iter()
        .map(|k| {
            let folder = dir.join(format!("shard-{}", &k[..1]));
            sweep(&folder, &["--shard", k]);
            assert!(
                chart_files(&folder).is_empty(),
                "{:?}",
                chart_files(&folder)
            );
            folder
        })
        .collect();
    let out = fleetsim(&["plot", shards[0].to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("has no sweep.csv"), "{stderr}");
    assert!(stderr.contains("fleetsim merge"), "{stderr}");
    let merged = dir.join("merged");
    let stderr = ok(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(stderr.contains("12 chart files"), "{stderr}");
    crate::common::assert_same_tree(&drawn, &merged);
    let merged_bare = dir.join("merged-bare");
    ok(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged_bare.to_str().unwrap(),
        "--no-charts",
    ]);
    assert!(chart_files(&merged_bare).is_empty());

    // Another sweep into the folder with --force: the old sweep's charts go, its own come.
    sweep(&drawn, &["--vary", "pool.dgx.nodes=0,1", "--force"]);
    assert_eq!(
        chart_files(&drawn),
        expected(&[
            "sweep_frontier",
            "sweep_total_cost_by_pool.dgx.nodes",
            "sweep_wait_p95_h_by_pool.dgx.nodes",
        ])
    );
}

#[test]
fn the_frontier_says_which_dots_it_cannot_draw() {
    let dir = temp_dir("sweep-charts-missing");
    let out = dir.join("out");
    // A warm-up past the 2-month horizon counts no job at point 001: no p95 wait, no dot. At
    // point 000, without DGX nodes and with a burst threshold past the horizon, `hybrid`
    // starts no job: its waits count up to the horizon (lower bounds), so its dot is hollow.
    sweep(
        &out,
        &[
            "--vary",
            "warmup_days=0,70",
            "--set",
            "pool.dgx.nodes=0",
            "--set",
            "strategy.hybrid.burst_after_wait_h=5000",
            "--quiet",
        ],
    );
    let texts = assert_drawn(&out, "sweep_frontier", &[]);
    let subtitle = texts.join(" ");
    assert!(
        subtitle.contains("not shown: 2 point-strategy pairs without a p95 wait (no job counted)"),
        "{texts:?}"
    );
    assert!(
        subtitle.contains("hollow: more than 1 % of jobs unfinished at the end (waits of jobs never started count up to the end: lower bounds)"),
        "{texts:?}"
    );
}
