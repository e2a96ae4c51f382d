//! Charts end to end: `fleetsim plot` and `fleetsim run` draw every chart as a PNG
//! that decodes at 1600 x 1000 and an SVG that names every strategy in its text, from the tiny
//! result folder in tests/data/charts (CSV files and run.json only).

use std::fs;
use std::path::Path;

use fleetsim::charts::INPUT_FILES;
use fleetsim::charts::style::strategy_color;

use crate::common::{TestDir, fleetsim, temp_dir};

const FIXTURE: &str = "tests/data/charts";
const CHARTS: [&str; 6] = [
    "cumulative_cost",
    "monthly_cost",
    "cost_distribution",
    "cost_vs_wait",
    "pool_gpus",
    "pool_utilization",
];
const STRATEGIES: [&str; 3] = ["cloud-on-demand", "reserved-burst", "hybrid-dgx-spot"];

/// A copy of the fixture's result files (without the scenario), as a user would copy results.
fn copied_results(name: &str, leave_out: &[&str]) -> TestDir {
    let dir = temp_dir(name);
    for file in INPUT_FILES.iter().filter(|f| !leave_out.contains(f)) {
        fs::copy(Path::new(FIXTURE).join(file), dir.join(file)).unwrap();
    }
    dir
}

/// Width, height and RGB pixels of a PNG file.
pub(crate) fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap_or_else(|e| panic!("{}: not a PNG: {e}", path.display()));
    let mut pixels = vec![0; reader.output_buffer_size().expect("fits in memory")];
    let info = reader
        .next_frame(&mut pixels)
        .unwrap_or_else(|e| panic!("{}: does not decode: {e}", path.display()));
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// The text content of every `<text>` element of an SVG file.
pub(crate) fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|element| {
            let (_, rest) = element.split_once('>')?;
            let (content, _) = rest.split_once("</text>")?;
            Some(content.trim().to_string())
        })
        .collect()
}

pub(crate) fn has_pixel(pixels: &[u8], rgb: [u8; 3]) -> bool {
    pixels.chunks_exact(3).any(|p| p == rgb)
}

/// Every chart exists as a decodable PNG of 1600 x 1000 and an SVG naming every strategy.
fn assert_charts(dir: &Path) {
    for chart in CHARTS {
        let png_path = dir.join(format!("{chart}.png"));
        let (width, height, pixels) = decode_png(&png_path);
        assert_eq!((width, height), (1600, 1000), "{}", png_path.display());
        // Drawn, not blank: more than white and one ink.
        let mut colors: Vec<&[u8]> = pixels.chunks_exact(3).collect();
        colors.sort_unstable();
        colors.dedup();
        assert!(
            colors.len() > 50,
            "{}: {} colours",
            png_path.display(),
            colors.len()
        );

        let svg_path = dir.join(format!("{chart}.svg"));
        let svg = fs::read_to_string(&svg_path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", svg_path.display());
        assert!(
            svg.contains(r#"width="1600" height="1000""#),
            "{}",
            svg_path.display()
        );
        let texts = svg_texts(&svg);
        for strategy in STRATEGIES {
            assert!(
                texts.iter().any(|t| t.contains(strategy)),
                "{}: no text names {strategy}: {texts:?}",
                svg_path.display()
            );
        }
        // Text is set in the bundled family, with the viewer's sans-serif as fallback.
        assert!(svg.contains(r#"font-family="DejaVu Sans, sans-serif""#));
    }
    // Each strategy keeps its colour (run.json order) wherever strategies are colour-coded.
    for chart in [
        "cumulative_cost",
        "cost_distribution",
        "cost_vs_wait",
        "pool_utilization",
        "wait_by_workload",
    ] {
        let (_, _, pixels) = decode_png(&dir.join(format!("{chart}.png")));
        for (idx, strategy) in STRATEGIES.iter().enumerate() {
            let color = strategy_color(idx);
            assert!(
                has_pixel(&pixels, [color.0, color.1, color.2]),
                "{chart}.png: no pixel in {strategy}'s colour {color:?}"
            );
        }
    }
    let partial: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(partial.is_empty(), "left behind: {partial:?}");
}

#[test]
fn plot_draws_every_chart_from_copied_results() {
    let dir = copied_results("plot", &[]);
    let out = fleetsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("wrote 14 chart files"), "{stderr}");
    assert_charts(&dir);
}

#[test]
fn plot_names_the_missing_file() {
    let dir = copied_results("plot-missing", &["monthly.csv"]);
    let out = fleetsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("missing monthly.csv;"), "{stderr}");
    assert!(stderr.contains(dir.to_str().unwrap()), "{stderr}");
    assert!(!dir.join("cumulative_cost.png").exists());
}

#[test]
fn plot_names_a_folder_that_does_not_exist() {
    let out = fleetsim(&["plot", "tests/data/no-such-results"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("tests/data/no-such-results: no such folder"),
        "{stderr}"
    );
}

#[test]
fn plot_names_a_csv_that_is_not_ours() {
    let dir = copied_results("plot-bad-csv", &[]);
    fs::write(dir.join("pools.csv"), "pool,cost\ndgx,12\n").unwrap();
    let out = fleetsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("pools.csv: not a fleetsim result CSV"),
        "{stderr}"
    );
}

#[test]
fn run_draws_charts_unless_told_not_to() {
    let scenario = format!("{FIXTURE}/scenario.toml");
    let dir = temp_dir("run-charts");
    let out = fleetsim(&[
        "run",
        &scenario,
        "--out",
        dir.to_str().unwrap(),
        "--force",
        "--quiet",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_charts(&dir);

    let bare = temp_dir("run-no-charts");
    let out = fleetsim(&[
        "run",
        &scenario,
        "--out",
        bare.to_str().unwrap(),
        "--force",
        "--quiet",
        "--no-charts",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(bare.join("monthly.csv").exists());
    let images: Vec<_> = fs::read_dir(&bare)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".png") || name.ends_with(".svg"))
        .collect();
    assert!(images.is_empty(), "--no-charts drew {images:?}");
}

/// Pixels of `rgb` in the rows from `top` down (the plots, below the heading and legend).
fn pixels_below(pixels: &[u8], top: usize, rgb: [u8; 3]) -> usize {
    pixels
        .chunks_exact(3)
        .skip(top * 1600)
        .filter(|p| *p == rgb)
        .count()
}

/// A one-month horizon once drew no line and no band in cumulative_cost.png (a line of one
/// point), and pool_utilization said "over 1 months".
#[test]
fn a_one_month_horizon_draws_readable_charts() {
    let dir = temp_dir("one-month");
    let out = fleetsim(&[
        "run",
        &format!("{FIXTURE}/scenario.toml"),
        "--set",
        "horizon_months=1",
        "--out",
        dir.to_str().unwrap(),
        "--force",
        "--quiet",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, _, pixels) = decode_png(&dir.join("cumulative_cost.png"));
    for idx in 0..STRATEGIES.len() {
        let color = strategy_color(idx);
        let drawn = pixels_below(&pixels, 260, [color.0, color.1, color.2]);
        assert!(
            drawn > 200,
            "strategy {idx}: {drawn} pixels of its colour in the plots"
        );
    }
    let svg = fs::read_to_string(dir.join("cumulative_cost.svg")).unwrap();
    assert!(
        svg.contains("Dot: mean over"),
        "the subtitle says what is drawn"
    );
    let svg = fs::read_to_string(dir.join("pool_utilization.svg")).unwrap();
    assert!(svg.contains("over 1 month."), "{:?}", svg_texts(&svg));
    let svg = fs::read_to_string(dir.join("cost_distribution.svg")).unwrap();
    assert!(
        svg.contains("Total cost over 1 month across"),
        "{:?}",
        svg_texts(&svg)
    );
}

/// Chart drawing grew faster than linearly with the strategies (4,000 took a minute, 10,000
/// never finished): above 50 strategies no chart is drawn, and run says why on stderr and in
/// run.json; plot refuses with the same reason.
#[test]
fn too_many_strategies_for_a_chart_are_skipped_with_a_note() {
    let dir = temp_dir("many-strategies");
    let mut text = fs::read_to_string("tests/data/small.toml").unwrap();
    for k in 0..50 {
        text.push_str(&format!(
            "\n[[strategy]]\nname = \"s{k}\"\npools = [\"spot\"]\n"
        ));
    }
    let scenario = dir.join("many.toml");
    fs::write(&scenario, text).unwrap();
    let out = dir.join("out");
    let output = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--replications",
        "1",
        "--quiet",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let note = "no chart is drawn: 52 strategies are more than the 50 a chart shows legibly";
    assert!(stderr.contains(&format!("warning: {note}")), "{stderr}");
    let run_json = fs::read_to_string(out.join("run.json")).unwrap();
    assert!(run_json.contains(note), "{run_json}");
    assert!(!run_json.contains("\"charts\""), "{run_json}");
    assert!(!out.join("cumulative_cost.png").exists());
    let output = fleetsim(&["plot", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(note), "{stderr}");
}

/// The charts are drawn in parallel: on one thread or several, the same
/// bytes.
#[test]
fn charts_drawn_in_parallel_are_the_bytes_of_a_sequential_drawing() {
    let draw = |threads: usize, name: &str| {
        let dir = copied_results(name, &[]);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let files = pool.install(|| fleetsim::charts::draw_all(&dir)).unwrap();
        assert_eq!(files.len(), 14);
        files
            .iter()
            .map(|f| (f.file_name().unwrap().to_owned(), fs::read(f).unwrap()))
            .collect::<Vec<_>>()
    };
    assert!(draw(1, "sequential-charts") == draw(3, "parallel-charts"));
}

/// Drawing stops once asked (a signal sets the flag): no chart file is
/// written and no `.partial` stays.
#[test]
fn chart_drawing_stops_when_asked() {
    let dir = copied_results("stopped-charts", &[]);
    let stop = std::sync::atomic::AtomicBool::new(true);
    let error = fleetsim::charts::draw_all_until(&dir, &stop).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("stopped while drawing the charts; no chart file was written"),
        "{error}"
    );
    let written: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !INPUT_FILES.contains(&name.as_str()))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

/// The report stops too, and says that it, not the charts, was not written.
#[test]
fn report_writing_stops_when_asked() {
    let tmp = temp_dir("stopped-report");
    let dir = tmp.join("out");
    let run = fleetsim(&[
        "run",
        "tests/data/tiny-sweep.toml",
        "--out",
        &dir.to_string_lossy(),
        "--no-charts",
        "-q",
    ]);
    assert_eq!(run.status.code(), Some(0));
    let stop = std::sync::atomic::AtomicBool::new(true);
    let error = fleetsim::report::write(&dir, &stop).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("stopped while writing report.html; it was not written"),
        "{error}"
    );
    assert!(!dir.join("report.html").exists());
}

/// A run with services draws `service_demand` (GPUs demanded, served and held, by
/// month and hour of day) with every service and strategy named, and `plot` draws it again from
/// the files; a run without services draws no such chart.
#[test]
fn services_get_a_demand_chart() {
    let dir = temp_dir("service-chart");
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        "tests/data/features.toml",
        "--replications",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (width, height, pixels) = decode_png(&out.join("service_demand.png"));
    assert_eq!((width, height), (1600, 1000));
    // Every strategy's colour is drawn (its served and held lines).
    for idx in 0..4 {
        let c = strategy_color(idx);
        assert!(
            has_pixel(&pixels, [c.0, c.1, c.2]),
            "strategy {idx}'s colour missing"
        );
    }
    let svg = fs::read_to_string(out.join("service_demand.svg")).unwrap();
    let texts = svg_texts(&svg);
    for name in [
        "chat: by month",
        "embeddings: by hour of the day",
        "hybrid",
        "spot-fifo",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(name)),
            "{name} not in {texts:?}"
        );
    }
    fs::remove_file(out.join("service_demand.png")).unwrap();
    let plot = fleetsim(&["plot", out.to_str().unwrap()]);
    assert_eq!(
        plot.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    assert!(out.join("service_demand.png").is_file());
    let plain = dir.join("plain");
    let run = fleetsim(&[
        "run",
        "--replications",
        "2",
        "--quiet",
        "--out",
        plain.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0));
    assert!(!plain.join("service_demand.png").exists());
}

/// The utilisation chart marks where each owned or reserved pool pays off, worked
/// out from the fixture's prices by hand, and nowhere else; the cost distribution starts at
/// zero and gives each strategy's paired difference with the baseline, recomputed here from
/// replications.csv; every chart has its provenance footer.
#[test]
fn break_even_lines_paired_differences_and_provenance() {
    let dir = copied_results("issue-18-charts", &[]);
    let out = fleetsim(&["plot", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let texts =
        |chart: &str| svg_texts(&fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap());

    // dgx: F = (60,000 / 36 + 1,500) / (8 x 730.5) + 10.2 x 1.3 x 0.22 / 8 = 0.541867 + 0.364650
    // = 0.906517 per GPU-hour, V = 0 (idle power is full power), u* = 0.906517 / 7.5 = 12.1 %.
    // h100-reserved: 7.5 x (1 - 0.35) / 7.5 = 65 %.
    let utilization = texts("pool_utilization");
    let notes: Vec<&String> = utilization
        .iter()
        .filter(|t| t.contains("break-even"))
        .collect();
    assert_eq!(
        notes.len(),
        3,
        "the legend, the reservation and the DGX: {utilization:?}"
    );
    assert!(
        notes.iter().any(|t| t.ends_with("\u{b7} break-even 65 %")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|t| t.ends_with("\u{b7} break-even 12 %")),
        "{notes:?}"
    );
    assert!(
        !utilization.iter().any(|t| t.contains("usually pay off")),
        "{utilization:?}"
    );

    // Paired differences: the mean of the per-replication differences to the baseline, with a
    // Student-t interval (t(0.975, 4) = 2.776445 for 5 replications).
    let mut costs: std::collections::BTreeMap<String, Vec<(u32, f64)>> = Default::default();
    let mut reader = csv::Reader::from_path(dir.join("replications.csv")).unwrap();
    for row in reader.deserialize::<std::collections::HashMap<String, String>>() {
        let row = row.unwrap();
        costs.entry(row["strategy"].clone()).or_default().push((
            row["replication"].parse().unwrap(),
            row["total_cost"].parse().unwrap(),
        ));
    }
    let mut baseline = costs["cloud-on-demand"].clone();
    baseline.sort_by_key(|r| r.0);
    let distribution = texts("cost_distribution");
    for strategy in ["reserved-burst", "hybrid-dgx-spot"] {
        let mut own = costs[strategy].clone();
        own.sort_by_key(|r| r.0);
        let d: Vec<f64> = own.iter().zip(&baseline).map(|(a, b)| a.1 - b.1).collect();
        assert_eq!(d.len(), 5);
        let mean = d.iter().sum::<f64>() / 5.0;
        let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
        let half = 2.776_445 * sd / 5f64.sqrt();
        let expected = fleetsim::format::money_difference(mean, mean - half, mean + half, "EUR");
        assert!(
            distribution
                .iter()
                .filter(|t| t.starts_with(&expected))
                .count()
                >= 1,
            "{strategy}: no note starts with {expected:?}: {distribution:?}"
        );
    }
    assert!(
        distribution.iter().any(|t| t == "0"),
        "money axis from zero: {distribution:?}"
    );

    for chart in CHARTS {
        let footer = texts(chart);
        assert!(
            footer.iter().any(|t| t.starts_with(
                "Scenario chart-fixture \u{b7} seed 7 \u{b7} 5 replications \u{b7} fleetsim "
            )),
            "{chart}: {footer:?}"
        );
    }
}
