//! `fleetsim claims` end to end: the committed page has the shape the command
//! writes, the same options give the same page on any thread count, `--only` reuses the
//! other claims' folders and refuses folders of other options.

use std::fs;
use std::path::Path;

use crate::common::{fleetsim, temp_dir};

/// The verdicts a page may give, in the words `claims::Verdict::words` starts with.
const VERDICTS: [&str; 4] = [
    "holds only when",
    "holds",
    "does not hold here",
    "undecided",
];

/// The category of a verdict text (`holds only when spot ...` gives `holds only when`).
fn category(verdict: &str) -> Option<&'static str> {
    VERDICTS.iter().copied().find(|v| verdict.starts_with(v))
}

/// What a page's shape is: its headings and its bullets' labels, numbers replaced by `#`,
/// and every verdict (the summary table's and each section's) as its category. A run of 2
/// replications has wide intervals, so its verdicts may differ from the committed run's; the
/// page's structure and vocabulary may not.
fn shape(page: &str) -> Vec<String> {
    let digitless = |line: &str| -> String {
        let mut text = String::new();
        for c in line.chars() {
            if c.is_ascii_digit() {
                if !text.ends_with('#') {
                    text.push('#');
                }
            } else {
                text.push(c);
            }
        }
        text
    };
    let mut lines = Vec::new();
    for line in page.lines() {
        if line.starts_with('#') {
            lines.push(digitless(line));
        } else if let Some(rest) = line.strip_prefix("**Verdict: ") {
            let verdict = category(rest).unwrap_or_else(|| panic!("no verdict in {line:?}"));
            lines.push(format!("verdict: {verdict}"));
        } else if let Some(rest) = line.strip_prefix("- **") {
            let label = rest.split(":**").next().unwrap_or_default();
            lines.push(format!("- {label}"));
        } else if line.starts_with("| ") && !line.starts_with("| # ") {
            let cells: Vec<&str> = line.split(" | ").collect();
            let verdict = cells
                .last()
                .map(|c| c.trim_end_matches(" |"))
                .unwrap_or_default();
            let verdict = category(verdict).unwrap_or_else(|| panic!("no verdict in {line:?}"));
            lines.push(format!("row {}: {verdict}", digitless(cells[1])));
        }
    }
    lines
}

/// Runs `fleetsim claims` with `args`, asserting success.
fn claims(args: &[&str]) -> String {
    let mut all = vec!["claims", "--quiet"];
    all.extend_from_slice(args);
    let out = fleetsim(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

#[test]
fn the_committed_page_has_the_shape_the_command_writes() {
    let dir = temp_dir("claims");
    let (out, page) = (dir.join("out"), dir.join("docs").join("claims.md"));
    let (out, page) = (out.to_str().unwrap(), page.to_str().unwrap());
    claims(&[
        "--replications",
        "2",
        "--threads",
        "2",
        "--out",
        out,
        "--doc",
        page,
    ]);
    let written = fs::read_to_string(page).unwrap();
    let committed = fs::read_to_string("docs/claims.md").unwrap();
    assert!(committed.starts_with("<!-- Written by `fleetsim claims`; do not edit by hand"));
    let (written_shape, committed_shape) = (shape(&written), shape(&committed));
    assert_eq!(
        written_shape
            .iter()
            .filter(|l| l.starts_with("verdict: "))
            .count(),
        10
    );
    assert_eq!(
        committed_shape
            .iter()
            .map(|l| strip_verdict(l))
            .collect::<Vec<_>>(),
        written_shape
            .iter()
            .map(|l| strip_verdict(l))
            .collect::<Vec<_>>(),
        "docs/claims.md is not what `fleetsim claims` writes; run it again (see the page's first lines)"
    );
    // The committed run is the default one (30 replications), and links its charts.
    assert!(
        committed.contains("(30 replications per point, "),
        "{committed:.400}"
    );
    for n in 1..=10 {
        let chart = format!("claims/{n:02}-");
        assert!(committed.contains(&chart), "no chart of claim {n}");
        assert!(written.contains(&chart));
    }
    for entry in fs::read_dir(dir.join("docs").join("claims")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            Path::new("docs/claims").join(&name).is_file(),
            "docs/claims/{name} is not committed"
        );
    }

    // The same options on one thread, claim 8 redone and the others read back: the same page.
    let sweep_csv = Path::new(out).join("08-mixed-precision").join("sweep.csv");
    let before = fs::read(&sweep_csv).unwrap();
    let again = dir.join("again.md");
    let stderr = fleetsim(&[
        "claims",
        "--replications",
        "2",
        "--threads",
        "1",
        "--only",
        "8",
        "--out",
        out,
        "--doc",
        again.to_str().unwrap(),
    ]);
    let messages = String::from_utf8_lossy(&stderr.stderr);
    assert_eq!(stderr.status.code(), Some(0), "{messages}");
    assert!(
        messages.contains("claim  8/10: running 08-mixed-precision"),
        "{messages}"
    );
    assert!(
        messages.contains("claim  9/10: reading 09-hybrid"),
        "{messages}"
    );
    assert!(messages.contains("(0 of 4 points simulated"), "{messages}");
    assert_eq!(fs::read(&sweep_csv).unwrap(), before, "claim 8 on 1 thread");
    let again = fs::read_to_string(&again).unwrap();
    // Both pages are outside the repository (absolute paths): their links start at its root.
    assert_eq!(again, written);

    // The rules read their figures from the scenarios: a cheaper specialist cloud in claim 5's
    // is the price its page states, and a payback sweep without the scenario's own price
    // names the missing point instead of judging another.
    let scenarios = dir.join("scenarios");
    fs::create_dir_all(&scenarios).unwrap();
    for entry in fs::read_dir("scenarios/claims").unwrap() {
        let path = entry.unwrap().path();
        let mut text = fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("05-") {
            text = text.replacen("price_per_gpu_h = 4.5", "price_per_gpu_h = 3.5", 1);
        }
        if name.starts_with("06-") {
            text = text.replace("[3.0, 4.5, 6.0, 7.5]", "[3.0, 6.0, 7.5]");
        }
        fs::write(scenarios.join(name), text).unwrap();
    }
    let changed = dir.join("changed.md");
    claims(&[
        "--replications",
        "2",
        "--only",
        "5,6",
        "--scenarios",
        scenarios.to_str().unwrap(),
        "--out",
        out,
        "--doc",
        changed.to_str().unwrap(),
    ]);
    let changed = fs::read_to_string(&changed).unwrap();
    let section = |page: &str, n: u8| -> String {
        let start = page.find(&format!("\n## {n}. ")).unwrap();
        let end = page[start + 1..]
            .find("\n## ")
            .map_or(page.len(), |e| start + 1 + e);
        page[start..end].to_string()
    };
    let five = section(&changed, 5);
    assert!(five.contains("renting at 3.5 EUR/GPU-h"), "{five}");
    assert!(!five.contains("4.5 EUR/GPU-h"), "{five}");
    let six = section(&changed, 6);
    assert!(
        six.contains("no point at the scenario's own `pool.cloud.price_per_gpu_h` = 4.5"),
        "{six}"
    );
    // The committed page states how its boundaries were found and whether each verdict
    // stands at 10 replications.
    assert!(
        committed.contains("found by bisection with 30 replications per run"),
        "{committed:.400}"
    );
    assert_eq!(committed.matches("- **Stability:** ").count(), 10);

    // Other options with --only: the claims not redone hold other results, and say so.
    let out_bad = fleetsim(&[
        "claims",
        "--quiet",
        "--replications",
        "3",
        "--only",
        "1",
        "--out",
        out,
        "--doc",
        page,
    ]);
    let stderr = String::from_utf8_lossy(&out_bad.stderr);
    assert_eq!(out_bad.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("claim 2: ")
            && stderr.contains("holds results of other options")
            && stderr.contains("--only 2"),
        "{stderr}"
    );
}

/// A shape line without the verdict's category (it may differ at 2 replications), but still
/// saying that a verdict is there.
fn strip_verdict(line: &str) -> String {
    match line.split_once(": ") {
        Some((head, verdict))
            if VERDICTS.contains(&verdict) && (head == "verdict" || head.starts_with("row ")) =>
        {
            format!("{head}: <verdict>")
        }
        _ => line.to_string(),
    }
}

#[test]
fn bad_claims_options_are_refused() {
    for (args, expected) in [
        (
            vec!["claims", "--only", "11"],
            "out of range: expected a whole number from 1 to 10",
        ),
        (vec!["claims", "--only", "x"], "not a whole number"),
        (
            vec!["claims", "--doc", "page.html"],
            "expected a Markdown file name ending in .md",
        ),
        (
            vec!["claims", "--scenarios", "no/such/folder"],
            "no such folder of claim scenarios",
        ),
    ] {
        let out = fleetsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn category_tells_the_verdicts_apart() {
    assert_eq!(category("holds only when x"), Some("holds only when"));
    assert_eq!(category("holds."), Some("holds"));
    assert_eq!(category("does not hold here."), Some("does not hold here"));
    assert_eq!(category("maybe"), None);
    let page = "# T\n| # | claim | verdict |\n| 1 | A 60 % claim. | holds |\n## 1. A 60 % claim.\n\n**Verdict: undecided: why.**\n\n- **Figure:** 3 %.\n";
    assert_eq!(
        shape(page),
        [
            "# T",
            "row A # % claim.: holds",
            "## #. A # % claim.",
            "verdict: undecided",
            "- Figure"
        ]
    );
}

/// `--doc` never overwrites a file the study did not write: a planner's notes are refused
/// (exit 1, untouched) unless `--force`; a page `fleetsim claims` wrote is replaced as before.
#[test]
fn the_page_replaces_only_a_page_the_study_wrote_unless_forced() {
    let dir = temp_dir("claims-doc");
    fs::create_dir_all(&dir).unwrap();
    let notes = dir.join("notes.md");
    fs::write(&notes, "# my notes\n").unwrap();
    let doc = notes.to_str().unwrap();
    let out = dir.join("out");
    let refused = fleetsim(&["claims", "--doc", doc, "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "is not a page `fleetsim claims` wrote; choose another --doc, or add --force"
        ),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&notes).unwrap(), "# my notes\n");
    assert!(!out.exists(), "nothing ran");
    // With --force the page check passes (this run then stops at the missing scenarios).
    let missing = dir.join("no-scenarios");
    let forced = fleetsim(&[
        "claims",
        "--doc",
        doc,
        "--force",
        "--scenarios",
        missing.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&forced.stderr);
    assert!(
        stderr.contains("no such folder of claim scenarios"),
        "{stderr}"
    );
    // The committed page, being the study's, is not refused for what it is.
    let ours = dir.join("ours.md");
    fs::copy("docs/claims.md", &ours).unwrap();
    let again = fleetsim(&[
        "claims",
        "--doc",
        ours.to_str().unwrap(),
        "--scenarios",
        missing.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("no such folder of claim scenarios"),
        "{stderr}"
    );
}
