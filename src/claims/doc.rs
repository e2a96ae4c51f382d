//! `docs/claims.md`: the study's page, written from the claims' outcomes alone (no times, no
//! paths outside the repository), so the same results give the same bytes.

use super::Verdict;
use super::study::Outcome;

/// What the page says beyond the outcomes.
#[derive(Debug, Clone)]
pub struct Context {
    /// The command that writes this page again, as a reader types it.
    pub command: String,
    /// From the page's folder to the repository root (`../` for `docs/claims.md`).
    pub to_root: String,
    /// Per outcome, the chart's path relative to the page, if it was copied there.
    pub charts: Vec<Option<String>>,
}

/// The first line of every page this writes: the test and readers recognise it.
pub const GENERATED: &str =
    "<!-- Written by `fleetsim claims`; do not edit by hand: run the command below again. -->";

/// The whole page.
pub fn markdown(outcomes: &[Outcome], context: &Context) -> String {
    let mut page = String::new();
    page.push_str(GENERATED);
    page.push_str("\n\n# The market's rules of thumb, tested\n\n");
    page.push_str(&format!(
        "*This page is generated, never edited by hand: `{}` writes it again, with the charts in `claims/` beside it, from the scenarios in `scenarios/claims/` ({}, {}). Each claim's sweep folder (sweep.csv, every point's files, the charts and report.html) is in `output/claims/<claim>/`.*\n\n",
        context.command,
        replications(outcomes),
        seeds(outcomes)
    ));
    page.push_str(INTRODUCTION);
    page.push_str("\n| # | claim | verdict |\n|---|---|---|\n");
    for outcome in outcomes {
        page.push_str(&format!(
            "| {} | {} | {} |\n",
            outcome.claim.number,
            outcome.claim.statement,
            verdict_words(outcome)
        ));
    }
    for (outcome, chart) in outcomes.iter().zip(&context.charts) {
        page.push('\n');
        page.push_str(&section(outcome, chart.as_deref(), &context.to_root));
    }
    page.push_str(HOW_IT_WORKS);
    page
}

const INTRODUCTION: &str = "Articles on cloud GPU costs repeat a handful of rules of thumb (the 2026 market overview behind DESIGN.md). Each is put to one scenario here, with its figures taken from the public data in `../shared/data` (the scenario's comments name the file of every figure) and a sweep over what decides it. A claim **holds** when the whole 95 % confidence interval of its figure lies in the claimed range, **holds only when** it does so under a condition (the boundary found by direct runs of the scenario, bisecting the swept field to the precision stated), **does not hold here** when the intervals lie outside the range, and is **undecided** when they straddle its edge or when the verdict at the first 10 replications differs from the verdict at all of them. \"Here\" is meant: each verdict is about the scenario's fleet, prices and workload; change them in the scenario and run it again.\n";

const HOW_IT_WORKS: &str = "\n## How the verdicts are made\n\nEach claim's rule is a small function in `src/claims/rules/` that reads every price, node size and label it prints from the claim's scenario (as loaded, with `--set`) and every figure from the sweep points' `summary.csv` and `pools.csv` rows (means and Student-t 95 % intervals over replications): savings are the paired differences with the scenario's baseline (`total_cost_vs_baseline`) over the baseline's mean cost, ratios take the widest interval their two intervals allow, and a claim judged at one point is judged at the scenario's own value of the swept field (a sweep without that point is an error). A boundary is never interpolated: between the two sweep points on either side of the claim's edge, the scenario is run again at the middle of the bracket, with the same replications, and the bracket halved until it is as narrow as stated (`x ± precision`). Every verdict is then made again from the first 10 replications (the same simulated histories: common random numbers); where the two differ, the claim is undecided and the page says how many replications the figure nearest the edge needs, from its variance. Every strategy of a scenario, and every point of its sweep, sees the same simulated jobs, so the differences are the strategies' and the parameters', not noise. More replications (`--replications`) narrow the intervals; `--only 3,5` redoes some claims and reuses the others' folders.\n";

/// The verdict of an outcome, or why there is none.
fn verdict_words(outcome: &Outcome) -> String {
    match &outcome.finding {
        Ok(finding) => finding.verdict.words(),
        Err(missing) => Verdict::Undecided(missing.clone()).words(),
    }
}

fn section(outcome: &Outcome, chart: Option<&str>, to_root: &str) -> String {
    let claim = outcome.claim;
    let id = claim.id();
    let mut text = format!("## {}. {}\n\n", claim.number, claim.statement);
    text.push_str(&format!("**Verdict: {}.**\n\n", verdict_words(outcome)));
    // Every section has the same lines, so the page's shape does not depend on the results.
    let (figure, boundary) = match &outcome.finding {
        Ok(finding) => (
            finding.figure.clone(),
            finding
                .boundary
                .clone()
                .unwrap_or_else(|| "none within the sweep".into()),
        ),
        Err(missing) => (format!("none: {missing}"), "none".into()),
    };
    text.push_str(&format!(
        "- **Figure:** {figure}.\n- **Boundary:** {boundary}.\n- **Stability:** {}.\n",
        outcome.stability
    ));
    if let Some(unobservable) = claim.unobservable {
        text.push_str(&format!(
            "- **What fleetsim cannot observe:** {unobservable}.\n"
        ));
    }
    text.push_str(&format!(
        "- **Scenario:** [`scenarios/claims/{id}.toml`]({to_root}scenarios/claims/{id}.toml) (its comments give each figure's source and what would make the claim hold or fail); {} points x {} replications; results in `output/claims/{id}/`.\n",
        outcome.points, outcome.replications
    ));
    if let Some(chart) = chart {
        text.push_str(&format!(
            "- **Chart:** [`{}.png`]({chart}) of the sweep folder.\n\n![Claim {}: {}]({chart})\n",
            claim.chart, claim.number, claim.slug
        ));
    }
    text
}

fn replications(outcomes: &[Outcome]) -> String {
    let mut counts: Vec<u32> = outcomes.iter().map(|o| o.replications).collect();
    counts.dedup();
    match counts[..] {
        [n] => format!("{n} replications per point"),
        _ => format!(
            "replications per point: {}",
            outcomes
                .iter()
                .map(|o| format!("claim {} {}", o.claim.number, o.replications))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn seeds(outcomes: &[Outcome]) -> String {
    let mut seeds: Vec<u64> = outcomes.iter().map(|o| o.seed).collect();
    seeds.dedup();
    match seeds[..] {
        [seed] => format!("seed {seed}"),
        _ => "each scenario's own seed".into(),
    }
}

/// `../` for each folder of `dir`, a path relative to the repository root (`docs` gives
/// `../`); an absolute folder gives links from the root, which only work there.
pub fn to_root(dir: &std::path::Path) -> String {
    if dir.is_absolute() {
        return String::new();
    }
    dir.components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|_| "../")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn links_climb_to_the_repository_root() {
        assert_eq!(to_root(Path::new("docs")), "../");
        assert_eq!(to_root(Path::new("./a/b")), "../../");
        assert_eq!(to_root(Path::new("")), "");
    }
}
