//! `claims`: run the claims study (each claim's sweep into its folder, judged) and write its
//! page with each claim's chart beside it.

use std::path::{Path, PathBuf};

use super::folder::{self, Drawing};
use super::{AppError, Context};
use crate::claims::study::{self, ClaimsError, Options, Outcome};
use crate::claims::{CLAIMS, Claim, Verdict, doc};
use crate::files::{self, LockMode};
use crate::sweep::{self, SweepError, Watch};

/// The study to run.
#[derive(Debug, Clone)]
pub struct ClaimsRequest {
    /// The folder of the claims' scenarios.
    pub scenarios: PathBuf,
    /// The claims' sweep folders go under this.
    pub out: PathBuf,
    /// Every claim's `--set`, then `--replications` and `--seed`.
    pub set: Vec<crate::scenario::Override>,
    /// Redo only these claims (numbers); the others are read from their folders. Empty: all.
    pub only: Vec<u8>,
    /// The page (Markdown); its charts go into `claims/` beside it.
    pub doc: PathBuf,
    /// Overwrite `doc` even if it is not a page `fleetsim claims` wrote.
    pub force: bool,
    /// The command that gives the same page, for the page to say.
    pub reproduce: String,
    pub command_line: Vec<String>,
}

/// What the study found and wrote.
#[derive(Debug)]
pub struct ClaimsOutcome {
    pub outcomes: Vec<Outcome>,
    pub page: PathBuf,
    pub charts_dir: PathBuf,
}

/// Runs (or reads back) every claim and writes the page.
pub fn claims(request: &ClaimsRequest, ctx: &Context<'_>) -> Result<ClaimsOutcome, AppError> {
    let doc_name = match request.doc.file_name() {
        Some(name) if request.doc.extension().is_some_and(|e| e == "md") => name.to_owned(),
        _ => {
            return Err(AppError::Request(format!(
                "--doc {}: expected a Markdown file name ending in .md",
                request.doc.display()
            )));
        }
    };
    let doc_dir = request.doc.parent().unwrap_or(Path::new("")).to_path_buf();
    if !request.force && !replaceable(&request.doc) {
        return Err(AppError::Request(format!(
            "--doc {}: exists and is not a page `fleetsim claims` wrote; choose another --doc, or add --force to overwrite it",
            request.doc.display()
        )));
    }
    if !request.scenarios.is_dir() {
        return Err(AppError::Request(format!(
            "{}: no such folder of claim scenarios; run from the repository's root, or give --scenarios DIR",
            request.scenarios.display()
        )));
    }
    let options = Options {
        scenarios: request.scenarios.clone(),
        out: request.out.clone(),
        set: request.set.clone(),
        threads: ctx.threads(),
        command_line: request.command_line.clone(),
    };
    (ctx.begin_work)();
    let mut outcomes = Vec::with_capacity(CLAIMS.len());
    for claim in &CLAIMS {
        let redo = request.only.is_empty() || request.only.contains(&claim.number);
        outcomes.push(run_claim(claim, &options, redo, ctx).map_err(
            |error| match interrupted_after(&error) {
                Some(after_s) => AppError::Interrupted {
                    after_s,
                    left: still_to_do(claim.number),
                },
                None => error,
            },
        )?);
    }
    let charts_dir = doc_dir.join("claims");
    let mut charts = Vec::with_capacity(outcomes.len());
    for outcome in &outcomes {
        study::publish_chart(outcome, &charts_dir)?;
        charts.push(Some(format!("claims/{}.png", outcome.claim.id())));
    }
    let context = doc::Context {
        command: request.reproduce.clone(),
        to_root: doc::to_root(&doc_dir),
        charts,
    };
    let page = doc::markdown(&outcomes, &context);
    if !doc_dir.as_os_str().is_empty() {
        files::create_dir(&doc_dir)?;
    }
    let name = doc_name.to_string_lossy();
    let page_path = files::write_bytes(&doc_dir, &name, page.as_bytes())?.commit()?;
    Ok(ClaimsOutcome {
        outcomes,
        page: page_path,
        charts_dir,
    })
}

/// Whether `doc` may be written: it does not exist, or it is a page this command wrote (its
/// first line says so).
fn replaceable(doc: &Path) -> bool {
    match std::fs::symlink_metadata(doc) {
        Err(_) => true,
        Ok(meta) if !meta.is_file() => false,
        Ok(_) => {
            let mut first = vec![0u8; doc::GENERATED.len()];
            std::fs::File::open(doc)
                .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut first))
                .is_ok_and(|()| first == doc::GENERATED.as_bytes())
        }
    }
}

/// Whether `error` is a stop (a signal) during a claim, and after how long if known: the
/// claim's sweep, or the folder routine around it, was interrupted.
fn interrupted_after(error: &AppError) -> Option<Option<f64>> {
    match error {
        AppError::Interrupted { after_s, .. } => Some(*after_s),
        AppError::Claims(claims) => match claims.as_ref() {
            ClaimsError::Sweep { error, .. } => {
                matches!(error.as_ref(), SweepError::Interrupted { .. }).then_some(None)
            }
            _ => None,
        },
        _ => None,
    }
}

/// What an interrupted study leaves to do, from the claim it stopped in: the claims before it
/// are done and in their folders.
fn still_to_do(stopped_in: u8) -> String {
    let rest: Vec<String> = (stopped_in..=CLAIMS.len() as u8)
        .map(|n| n.to_string())
        .collect();
    let done = match stopped_in {
        1 => "no claim is done".to_string(),
        2 => "claim 1 is done".to_string(),
        n => format!("claims 1 to {} are done", n - 1),
    };
    format!(
        "{done}; to finish, run the same command with --only {} (the other claims' folders are reused)",
        rest.join(",")
    )
}

/// Runs `claim`'s sweep in its folder (`redo`: every point again; otherwise the points already
/// there, of the same definition, are reused) and judges it; its charts are drawn when a point
/// was simulated or the claim's chart is missing.
fn run_claim(
    claim: &'static Claim,
    options: &Options,
    redo: bool,
    ctx: &Context<'_>,
) -> Result<Outcome, AppError> {
    let what = if redo { "running" } else { "reading" };
    (ctx.note)(&format!(
        "claim {:>2}/{}: {what} {}",
        claim.number,
        CLAIMS.len(),
        claim.id()
    ));
    let (plan, dir) = study::plan_claim(claim, options)?;
    let run = study::run_options(&dir, options, redo);
    let watch = Watch {
        progress: ctx.progress,
        warn: ctx.warn,
    };
    let (outcome, _) = folder::work_in(
        &dir,
        LockMode::Exclusive,
        &options.command_line,
        ctx,
        || {
            let outcome = ctx
                .pool
                .install(|| sweep::execute(&plan, &run, watch, ctx.stop))
                .map_err(|error| study::sweep_failed(claim, options, &dir, redo, error))?;
            let stale = outcome.invocation.points_simulated > 0;
            let drawing = match stale || !study::chart_of(claim, &dir).is_file() {
                true => Drawing::Sweep,
                false => Drawing::Nothing,
            };
            Ok((
                study::judge(claim, options, &plan, &dir, outcome, ctx.stop),
                drawing,
            ))
        },
    )?;
    // A stop during the direct runs leaves the finding without them: not a result.
    if ctx.stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(AppError::Interrupted {
            after_s: None,
            left: still_to_do(claim.number),
        });
    }
    let verdict = match &outcome.finding {
        Ok(finding) => finding.verdict.words(),
        Err(missing) => Verdict::Undecided(missing.clone()).words(),
    };
    (ctx.note)(&format!(
        "         {verdict} ({} of {} points simulated, results in {})",
        outcome.points_simulated,
        outcome.points,
        outcome.dir.display()
    ));
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interrupt names the claims done and the `--only` list that finishes the study, a
    /// flag `claims` takes (it has no `--resume`).
    #[test]
    fn an_interrupted_study_says_which_claims_are_left() {
        assert_eq!(
            still_to_do(1),
            "no claim is done; to finish, run the same command with --only 1,2,3,4,5,6,7,8,9,10 \
             (the other claims' folders are reused)"
        );
        assert_eq!(
            still_to_do(9),
            "claims 1 to 8 are done; to finish, run the same command with --only 9,10 (the other \
             claims' folders are reused)"
        );
        assert!(still_to_do(2).starts_with("claim 1 is done; "));
    }
}
