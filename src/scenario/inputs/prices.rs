//! Price traces: `price_trace` of a cloud pool (a CSV of `time, price_per_gpu_h`,
//! spot prices as markets publish them) and `electricity_trace` of an on-prem pool (`time,
//! electricity_per_kwh`), read once per load into the pool's price curve.
//!
//! A trace is shifted so its first row is the scenario's start; each price holds until the
//! next row's time, and the last one to the horizon. Times are RFC 3339, dates and times in
//! UTC, or seconds from the trace's start, as for demand curves.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::demand::read_steps;
use crate::scenario::check::{Checked, Issue};
use crate::scenario::config::{PoolKind, PriceCurve};
use crate::scenario::file::ScenarioFile;
use crate::scenario::lines::Lines;

/// A price per unit above this is surely a typo.
const PRICE_MAX: f64 = 1e6;

/// Reads every pool's price and electricity traces into its curves; returns the problems,
/// each naming the file, line and column.
pub fn attach(
    checked: &mut Checked,
    file: &ScenarioFile,
    origin: &Path,
    lines: &Lines,
    overridden: &BTreeSet<String>,
) -> Vec<Issue> {
    let base = origin.parent().unwrap_or(Path::new(""));
    let mut issues = Vec::new();
    for written in &file.pool {
        let traces = [
            (
                written.price_trace.as_ref(),
                "price_trace",
                "price_per_gpu_h",
            ),
            (
                written.electricity_trace.as_ref(),
                "electricity_trace",
                "electricity_per_kwh",
            ),
        ];
        for (path_text, field, column) in traces {
            let Some(path_text) = path_text else {
                continue;
            };
            let path = crate::trace::display_path(&base.join(path_text));
            let steps = match read_steps(&path, column, "a price", PRICE_MAX) {
                Ok(steps) => steps,
                Err(e) => {
                    let at = format!("pool.{}.{field}", written.name);
                    issues.push(super::replay::issue(lines, overridden, &at, e.to_string()));
                    continue;
                }
            };
            let curve = PriceCurve::Steps(Arc::new(steps));
            // Every instance size of the pool: the checks let only sizes at the pool's
            // price have a trace.
            for pool in super::pools_of(&mut checked.config.pools, written) {
                match &mut pool.kind {
                    PoolKind::OnPrem(on_prem) => on_prem.electricity = curve.clone(),
                    PoolKind::Reserved(reserved) => reserved.list_price = curve.clone(),
                    PoolKind::OnDemand(elastic) | PoolKind::Spot(elastic, _) => {
                        elastic.price = curve.clone()
                    }
                }
            }
        }
    }
    issues
}
