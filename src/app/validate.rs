//! `validate`: check a scenario and say what it holds, without simulating.

use super::AppError;
use crate::scenario::{self, Override, Source};

/// What a valid scenario holds, as `fleetsim validate` says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    pub name: String,
    /// Its workloads, pools, strategies, horizon and replications.
    pub description: String,
    /// Each trace workload, described ("workload `w`: 1,234 jobs from ...").
    pub traces: Vec<String>,
    /// Its `[sweep]` table described, if it has one.
    pub sweep: Option<String>,
    pub warnings: Vec<String>,
}

/// Checks `source` with `set` applied (the `[sweep]` table too, which plans every point).
pub fn validate(source: &Source, set: &[Override]) -> Result<Validation, AppError> {
    let loaded = source.load(set)?;
    let config = &loaded.config;
    let traces = config
        .workloads
        .iter()
        .filter_map(|w| {
            let replay = w.trace.as_ref()?;
            Some(format!("workload `{}`: {}", w.name, replay.describe()))
        })
        .collect();
    let (name, description) = (config.name.clone(), scenario::describe(config));
    let warnings = loaded.warnings.clone();
    // Only a file with a [sweep] table has one to describe (planning loads the file again,
    // traces included).
    let has_sweep = loaded
        .resolved
        .sweep
        .as_ref()
        .is_some_and(|s| !s.vary.is_empty());
    let sweep = match has_sweep {
        true => crate::sweep::plan::describe(&source.origin, set, source, loaded)?,
        false => None,
    };
    Ok(Validation {
        name,
        description,
        traces,
        sweep,
        warnings,
    })
}
