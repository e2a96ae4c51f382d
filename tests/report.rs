//! `report.html` end to end: written by `run` (and `fleetsim report DIR`),
//! self-contained (no script, nothing to fetch), user text escaped, every chart inlined with
//! a reading checked against summary.csv; then rendered in headless Chromium (Debian's
//! `chromium`, which `.ci/install-test-tools chromium` installs; without it the test prints
//! `SKIPPED:`, or fails under CI): it loads without console errors, requests nothing from the
//! network (its net log, against a control page that does fetch), and its screenshot is not
//! blank.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fleetsim, skip_or_fail, temp_dir};

/// The chart fixture's scenario with a description that tries to inject HTML.
fn hostile_scenario(dir: &Path) -> PathBuf {
    let text = fs::read_to_string("tests/data/charts/scenario.toml").unwrap();
    let text = text.replacen(
        "name = \"chart-fixture\"",
        "name = \"chart-fixture\"\ndescription = \"Buy or rent? <script>alert('x')</script> & <img src=https://example.com/x.png>\"",
        1,
    );
    let path = dir.join("scenario.toml");
    fs::write(&path, text).unwrap();
    path
}

/// Runs the scenario into `dir/out` and returns the report's text.
fn report_of_a_run(dir: &Path) -> (PathBuf, String) {
    let scenario = hostile_scenario(dir);
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    (out, html)
}

/// Whether the page asks for anything outside itself: a script, a style sheet or font from
/// elsewhere, or an http(s) URL in a `src` or `href`.
fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut found = Vec::new();
    for needle in [
        "<script", "<link", "@import", "url(http", "<iframe", "<object",
    ] {
        if lower.contains(needle) {
            found.push(needle.to_string());
        }
    }
    // Attributes inside tags only: escaped text has no `<`.
    for tag in lower.split('<').skip(1).filter_map(|t| t.split('>').next()) {
        for attribute in ["src=", "href="] {
            for (at, _) in tag.match_indices(attribute) {
                let value = tag[at + attribute.len()..].trim_start_matches(['"', '\'']);
                if value.starts_with("http:")
                    || value.starts_with("https:")
                    || value.starts_with("//")
                {
                    found.push(tag.to_string());
                }
            }
        }
    }
    found
}

#[test]
fn run_writes_a_self_contained_report_that_escapes_user_text() {
    let dir = temp_dir("report-run");
    let (out, html) = report_of_a_run(&dir);
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);
    assert_eq!(external_references(&html), Vec::<String>::new());
    // The check itself finds a reference in a tag.
    assert_eq!(
        external_references("<p>a &lt;img src=https://x&gt;</p><img src=\"https://x\">").len(),
        1
    );
    // The description is shown, escaped.
    assert!(html.contains("Buy or rent? &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;img src=https://example.com/x.png&gt;"));
    assert!(!html.contains("<script>alert"));
    // Every chart inline with a reading; the tables.
    for stem in [
        "cumulative_cost",
        "monthly_cost",
        "cost_distribution",
        "cost_vs_wait",
        "pool_gpus",
        "pool_utilization",
        "wait_by_workload",
    ] {
        assert!(
            html.contains(&format!("<figure id=\"{stem}\">\n<svg viewBox")),
            "{stem}"
        );
        assert!(
            html.contains(&format!("<figcaption><code>{stem}</code>: ")),
            "{stem}"
        );
    }
    for section in [
        "Summary",
        "Warnings and notes",
        "Per workload",
        "Per team",
        "How this was made",
    ] {
        assert!(html.contains(&format!("\">{section}</h2>")), "{section}");
    }
    // The 5 replications get the terminal's note; the command line is there.
    assert!(
        html.contains("note: 5 replication(s) give wide intervals"),
        "notes"
    );
    assert!(html.contains("run "), "command line");
    // Readings against summary.csv, read here: the cheapest strategy by mean total cost.
    let mut reader = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let mut cheapest: Option<(String, f64)> = None;
    for row in reader.deserialize::<std::collections::HashMap<String, String>>() {
        let row = row.unwrap();
        if row["metric"] != "total_cost" {
            continue;
        }
        let mean: f64 = row["mean"].parse().unwrap();
        if cheapest.as_ref().is_none_or(|c| mean < c.1) {
            cheapest = Some((row["strategy"].clone(), mean));
        }
    }
    let (cheapest, _) = cheapest.unwrap();
    assert!(
        html.contains(&format!(
            "<code>cost_vs_wait</code>: Cheapest: {cheapest} ("
        )),
        "cost_vs_wait names {cheapest}"
    );
    // The DGX's break-even, by hand in tests/charts.rs: 12 %; the reservation's 65 %.
    assert!(html.contains("dgx is "), "pool_utilization reading");
    assert!(html.contains("its break-even of 12 %"), "dgx break-even");
    assert!(
        html.contains("its break-even of 65 %"),
        "reservation break-even"
    );

    // `fleetsim report DIR` writes the same page from the folder alone.
    let first = html.clone();
    fs::remove_file(out.join("report.html")).unwrap();
    let again = fleetsim(&["report", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(fs::read_to_string(out.join("report.html")).unwrap(), first);
}

#[test]
fn report_names_a_folder_that_is_not_a_result_folder() {
    let dir = temp_dir("report-missing");
    let out = fleetsim(&["report", dir.join("nope").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no such folder"), "{stderr}");
    let out = fleetsim(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing run.json"), "{stderr}");
    assert!(!dir.join("report.html").exists());
}

/// Chromium on the PATH; Err says why not and how to get it (the tests install nothing).
fn chromium() -> Result<PathBuf, String> {
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| {
            let out = Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .ok()?;
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
        .ok_or_else(|| {
            "no chromium or chromium-browser on PATH (as root: .ci/install-test-tools chromium)"
                .into()
        })
}

/// Hosts Chromium itself talks to (updates, time, accounts, dictionaries, its new-tab page's
/// `www.google.com/async/...` requests), whatever the page. The control page's request to
/// another host shows the filter keeps the page's own requests.
const CHROMIUM_OWN_HOSTS: [&str; 5] = [
    "www.google.com",
    "clients2.google.com",
    "update.googleapis.com",
    "accounts.google.com",
    "redirector.gvt1.com",
];

/// What headless Chromium saw of `page`: the console messages and the http(s) URLs its net
/// log holds (Chromium's own hosts left out), and the DOM.
fn browse(chromium: &Path, page: &Path, dir: &Path) -> (Vec<String>, Vec<String>, String) {
    let net_log = dir.join("net-log.json");
    let out = Command::new("timeout")
        .arg("180")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-default-apps",
            "--disable-extensions",
            "--enable-logging=stderr",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--log-net-log={}", net_log.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "chromium failed: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .map(String::from)
        .collect();
    let log = fs::read_to_string(&net_log).unwrap_or_default();
    let mut urls: Vec<String> = log
        .split("\"url\":\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|url| url.starts_with("http:") || url.starts_with("https:"))
        .filter(|url| {
            let host = url.split('/').nth(2).unwrap_or("");
            !CHROMIUM_OWN_HOSTS.contains(&host)
        })
        .map(String::from)
        .collect();
    urls.sort();
    urls.dedup();
    (
        console,
        urls,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Distinct colours of a PNG screenshot.
fn colours(path: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let channels = info.color_type.samples();
    let mut seen: Vec<&[u8]> = pixels[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| &p[..3.min(channels)])
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

#[test]
fn the_report_renders_in_headless_chromium_offline_and_not_blank() {
    let chromium = match chromium() {
        Ok(path) => path,
        Err(why) => {
            skip_or_fail(&why);
            return;
        }
    };
    let dir = temp_dir("report-chromium");
    let (out, _) = report_of_a_run(&dir);
    let page = fs::canonicalize(out.join("report.html")).unwrap();

    // The control: a page that logs an error and fetches an image is caught.
    let control = dir.join("control.html");
    fs::write(
        &control,
        "<html><body><img src=\"https://example.com/x.png\"><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let control = fs::canonicalize(control).unwrap();
    let (console, urls, _) = browse(&chromium, &control, &dir.join("control"));
    assert!(
        console.iter().any(|l| l.contains("boom")),
        "control console: {console:?}"
    );
    assert_eq!(urls, ["https://example.com/x.png"], "control requests");

    let (console, urls, dom) = browse(&chromium, &page, &dir.join("page"));
    assert_eq!(console, Vec::<String>::new(), "console messages");
    assert_eq!(urls, Vec::<String>::new(), "network requests");
    assert!(
        dom.contains("<h1>chart-fixture: fleetsim report</h1>"),
        "DOM: {}",
        &dom[..dom.len().min(500)]
    );
    assert!(
        dom.contains("&lt;script&gt;alert"),
        "the description stays text"
    );

    let shot = dir.join("report.png");
    let status = Command::new("timeout")
        .arg("180")
        .arg(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.join("profile-shot").display()
        ))
        .arg("--window-size=1280,2400")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let n = colours(&shot);
    assert!(n > 50, "the screenshot has {n} colours: blank?");
}

// ---- break-even utilisation over the horizon ----------------------------------------------

/// One DGX node kept busy (20 8-GPU jobs of 2 h a day: 1.7 nodes of load) against an
/// on-demand H100 pool whose price is `on_demand_price` (TOML lines of that pool). The DGX
/// draws full power when idle, so a busy GPU-hour adds no energy (V = 0) and
/// F = (60,000 / 36 + 1,500) / (8 x 730.5) + 10.2 x 1.3 x 0.22 / 8
///   = 3,166.667 / 5,844 + 0.364650 = 0.541866 + 0.364650 = 0.906516 per GPU-hour.
fn busy_dgx_scenario(dir: &Path, on_demand_price: &str) -> PathBuf {
    let text = format!(
        r#"name = "busy-dgx"
start = "2027-01-01"
horizon_months = 12
replications = 2
seed = 3

[[workload]]
name = "train"
arrivals_per_day = 20
gpus = 8
duration_h = {{ dist = "exponential", mean = 2.0 }}

[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 60000
amortization_months = 36
power_kw_per_node = 10.2
pue = 1.3
electricity_per_kwh = 0.22
opex_per_node_month = 1500

[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
{on_demand_price}

[[strategy]]
name = "owned"
pools = ["dgx"]

[[strategy]]
name = "rent"
pools = ["cloud"]
"#
    );
    let path = dir.join("busy-dgx.toml");
    fs::write(&path, text).unwrap();
    path
}

/// Runs `scenario` into `dir/out` and returns the folder, report.html and the texts of the
/// utilisation chart.
fn run_for_break_even(dir: &Path, scenario: &Path) -> (PathBuf, String, Vec<String>) {
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let svg = fs::read_to_string(out.join("pool_utilization.svg")).unwrap();
    (out, html, crate::charts::svg_texts(&svg))
}

/// A constant price: one break-even, u* = 0.906516 / 7.5 = 12.1 %, said as before.
#[test]
fn a_constant_price_gives_one_break_even_in_the_report_and_chart() {
    let dir = temp_dir("break-even-constant");
    let scenario = busy_dgx_scenario(&dir, "price_per_gpu_h = 7.5");
    let (_, html, texts) = run_for_break_even(&dir, &scenario);
    assert!(
        html.contains("under owned, above its break-even of 12 %."),
        "{html}"
    );
    assert!(!html.contains("whole horizon"), "{html}");
    assert!(
        texts.iter().any(|t| t.ends_with("\u{b7} break-even 12 %")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("(at the scenario&apos;s prices)")),
        "{texts:?}"
    );
}

/// 36 % cheaper a year, compounded monthly: month m (0 = January) costs 7.5 x 0.64^(m/12).
/// Month 1 (m = 0): 0.906516 / 7.5 = 0.120869, 12 %. Month 12 (m = 11): 0.64^(11/12) =
/// e^(0.916667 x ln 0.64) = e^(0.916667 x -0.446287) = e^(-0.409097) = 0.664250, so
/// P = 4.981876 and u* = 0.906516 / 4.981876 = 0.181963, 18 %. The DGX is kept busy (the
/// queue only grows), above even the last month's line.
#[test]
fn a_yearly_price_fall_gives_a_range_from_the_first_to_the_last_month() {
    let dir = temp_dir("break-even-falling");
    let scenario = busy_dgx_scenario(&dir, "price_per_gpu_h = 7.5\nprice_change_per_year = -0.36");
    let (out, html, texts) = run_for_break_even(&dir, &scenario);
    assert!(
        html.contains(
            "under owned, against a break-even between 12 % (month 1, 2027-01) and 18 % (month 12, 2027-12) as cloud&#39;s price goes from 7.5 to 4.98 per GPU-hour: above it for the whole horizon."
        ),
        "{html}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("\u{b7} break-even 12 % (month 1)")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "to 18 % (month 12)"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("grey band: its range")),
        "{texts:?}"
    );
    // run.json carries the line month by month, for `fleetsim plot` and `report` to redraw.
    let run: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let dgx = &run["break_evens"][0];
    assert_eq!(dgx["pool"], "dgx");
    let months = dgx["utilization_by_month"].as_array().unwrap();
    assert_eq!(months.len(), 12);
    assert!((months[0].as_f64().unwrap() - 0.120_869).abs() < 1e-6);
    assert!((months[11].as_f64().unwrap() - 0.181_963).abs() < 1e-6);
}

/// A price trace that steps from 7.5 to 5 halfway through July (month 7, 31 days: 372 h in):
/// July costs (7.5 + 5) / 2 = 6.25 on average. Months 1-6: 12 %; month 7: 0.906516 / 6.25 =
/// 0.145043; from month 8: 0.906516 / 5 = 0.181303, 18 %.
#[test]
fn a_price_trace_step_moves_the_break_even_from_its_month() {
    let dir = temp_dir("break-even-trace");
    fs::write(
        dir.join("prices.csv"),
        "time,price_per_gpu_h\n2027-01-01T00:00:00Z,7.5\n2027-07-16T12:00:00Z,5\n",
    )
    .unwrap();
    let scenario = busy_dgx_scenario(&dir, "price_per_gpu_h = 7.5\nprice_trace = \"prices.csv\"");
    let (out, html, texts) = run_for_break_even(&dir, &scenario);
    assert!(
        html.contains(
            "against a break-even between 12 % (month 1, 2027-01) and 18 % (month 8, 2027-08) as cloud&#39;s price goes from 7.5 to 5 per GPU-hour: above it for the whole horizon."
        ),
        "{html}"
    );
    assert!(texts.iter().any(|t| t == "to 18 % (month 8)"), "{texts:?}");
    let run: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let months = run["break_evens"][0]["utilization_by_month"]
        .as_array()
        .unwrap();
    assert!((months[6].as_f64().unwrap() - 0.145_043).abs() < 1e-6);
    assert!((months[7].as_f64().unwrap() - 0.181_303).abs() < 1e-6);
}
