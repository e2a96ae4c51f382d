//! Spot availability traces: how many nodes a spot pool can have over time, read
//! once per load into the pool's [`CapacityTrace`].
//!
//! Two shapes:
//! - fleetsim's CSV: `time` and either `nodes` (how many nodes can be had from that time) or
//!   `available` (1: as many as the pool allows, 0: none). Times as for price traces
//!   (RFC 3339, dates and times in UTC, or seconds from the start); the last row lasts as long
//!   as the gap before it, then the trace repeats.
//! - the JSON of the public spot traces (`{"metadata": {"gap_seconds": N}, "data": [...]}`,
//!   skypilot-org/spot-traces): one value per tick of `gap_seconds`. A trace of 0 and 1 is a
//!   single-node trace where 0 means available (the study's own simulator reads
//!   `spot_available = not trace[tick]`); a trace with larger values counts the nodes
//!   available.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::demand::{open_steps, read_steps_of};
use crate::scenario::check::{Checked, Issue, NODES_MAX};
use crate::scenario::config::{CapacityProcess, CapacityTrace, PoolKind};
use crate::scenario::file::ScenarioFile;
use crate::scenario::lines::Lines;
use crate::trace::TraceError;

/// Ticks a JSON trace may hold (a year of 1-second ticks is 31.5 million).
const TICKS_MAX: usize = 50_000_000;

/// Reads every spot pool's `availability_trace` into its capacity; returns the problems.
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
        let Some(path_text) = &written.availability_trace else {
            continue;
        };
        let path = crate::trace::display_path(&base.join(path_text));
        let trace = match read(&path) {
            Ok(trace) => Arc::new(trace),
            Err(e) => {
                let at = format!("pool.{}.availability_trace", written.name);
                issues.push(super::replay::issue(lines, overridden, &at, e.to_string()));
                continue;
            }
        };
        // Every instance size of the pool follows the trace.
        for pool in super::pools_of(&mut checked.config.pools, written) {
            if let PoolKind::Spot(elastic, _) = &mut pool.kind
                && let Some(capacity) = elastic.capacity.as_mut()
            {
                capacity.process = CapacityProcess::Trace(Arc::clone(&trace));
            }
        }
    }
    issues
}

/// Reads a trace: JSON by its `.json` extension, else fleetsim's CSV.
pub fn read(path: &Path) -> Result<CapacityTrace, TraceError> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        read_json(path)
    } else {
        read_csv(path)
    }
}

fn read_csv(path: &Path) -> Result<CapacityTrace, TraceError> {
    let table = open_steps(path)?;
    let has = |name: &str| table.header().iter().any(|c| c == name);
    let (column, what, max) = if has("available") && !has("nodes") {
        ("available", "0 (none) or 1 (available)", 1.0)
    } else {
        ("nodes", "a whole number of nodes", f64::from(NODES_MAX))
    };
    let rows = read_steps_of(table, path, column, what, max)?;
    let mut steps = Vec::with_capacity(rows.len());
    for (i, &(from_h, value)) in rows.iter().enumerate() {
        if value.fract() != 0.0 {
            return Err(TraceError::file(
                path,
                format!("row {} has {column} = {value}: it must be {what}", i + 1),
            ));
        }
        let nodes = match column {
            "available" if value == 1.0 => CapacityTrace::UNLIMITED,
            _ => value as u32,
        };
        push_step(&mut steps, from_h, nodes);
    }
    let length_h = match rows.len() {
        1 => f64::INFINITY,
        n => 2.0 * rows[n - 1].0 - rows[n - 2].0,
    };
    Ok(CapacityTrace { steps, length_h })
}

#[derive(Deserialize)]
struct SpotJson {
    metadata: SpotMetadata,
    data: Vec<f64>,
}

#[derive(Deserialize)]
struct SpotMetadata {
    gap_seconds: f64,
}

fn read_json(path: &Path) -> Result<CapacityTrace, TraceError> {
    let input = crate::trace::open(path, false)?;
    let parsed: SpotJson = serde_json::from_reader(input)
        .map_err(|error| crate::trace::philly::json_error(path, error))?;
    let gap_s = parsed.metadata.gap_seconds;
    if !(gap_s.is_finite() && gap_s > 0.0 && gap_s <= 86_400.0 * 365.0) {
        return Err(TraceError::file(
            path,
            format!("has metadata.gap_seconds = {gap_s}: it must be a number of seconds above 0"),
        ));
    }
    let data = parsed.data;
    if data.is_empty() || data.len() > TICKS_MAX {
        return Err(TraceError::file(
            path,
            format!(
                "has {} ticks in data: it needs from 1 to {TICKS_MAX}",
                data.len()
            ),
        ));
    }
    if let Some((i, bad)) = data
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v >= 0.0 && v.fract() == 0.0 && **v <= 1e6))
    {
        return Err(TraceError::file(
            path,
            format!("has data[{i}] = {bad}: every tick must be a whole number of 0 or more"),
        ));
    }
    let single_node = data.iter().all(|v| *v <= 1.0);
    let gap_h = gap_s / 3600.0;
    let mut steps = Vec::new();
    for (i, value) in data.iter().enumerate() {
        let nodes = match (single_node, *value as u32) {
            // A single-node trace: 0 is available, 1 preempted or unavailable.
            (true, 0) => CapacityTrace::UNLIMITED,
            (true, _) => 0,
            (false, count) => count,
        };
        push_step(&mut steps, i as f64 * gap_h, nodes);
    }
    Ok(CapacityTrace {
        steps,
        length_h: data.len() as f64 * gap_h,
    })
}

/// Adds a step unless it repeats the value before it.
fn push_step(steps: &mut Vec<(f64, u32)>, from_h: f64, nodes: u32) {
    if steps.last().is_none_or(|s| s.1 != nodes) {
        steps.push((from_h, nodes));
    }
}

#[cfg(test)]
mod tests {
    use super::super::write_temp as write;
    use super::*;

    #[test]
    fn a_json_single_node_trace_reads_zero_as_available() {
        let (_scratch, path) = write(
            "t.json",
            r#"{"metadata": {"gap_seconds": 600}, "data": [0, 0, 0, 1, 1, 0]}"#,
        );
        let trace = read(&path).unwrap();
        // Six 10-minute ticks: available 30 min, gone 20 min, back 10 min.
        let expected = [
            (0.0, CapacityTrace::UNLIMITED),
            (0.5, 0),
            (5.0 / 6.0, CapacityTrace::UNLIMITED),
        ];
        assert_eq!(trace.steps.len(), expected.len());
        for (step, (from_h, nodes)) in trace.steps.iter().zip(expected) {
            assert!(
                (step.0 - from_h).abs() < 1e-12 && step.1 == nodes,
                "{step:?}"
            );
        }
        assert_eq!(trace.length_h, 1.0);
        // One loss in 40 available minutes (the last tick runs into the first on repeat).
        assert!((trace.mean_available_h() - 4.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn a_json_multi_node_trace_counts_nodes() {
        let (_scratch, path) = write(
            "m.json",
            r#"{"metadata": {"gap_seconds": 3600}, "data": [4, 4, 2, 0]}"#,
        );
        assert_eq!(
            read(&path).unwrap().steps,
            vec![(0.0, 4), (2.0, 2), (3.0, 0)]
        );
    }

    #[test]
    fn a_csv_trace_takes_nodes_or_available() {
        let (_scratch, nodes) = write("n.csv", "time,nodes\n0,3\n3600,0\n7200,3\n");
        let trace = read(&nodes).unwrap();
        assert_eq!(trace.steps, vec![(0.0, 3), (1.0, 0), (2.0, 3)]);
        assert_eq!(trace.length_h, 3.0);
        let (_scratch, available) = write("a.csv", "time,available\n0,1\n36000,0\n");
        assert_eq!(
            read(&available).unwrap().steps,
            vec![(0.0, CapacityTrace::UNLIMITED), (10.0, 0)]
        );
    }

    #[test]
    fn bad_traces_say_what_is_wrong() {
        let (_scratch, half) = write("h.csv", "time,nodes\n0,1.5\n");
        assert!(
            read(&half)
                .unwrap_err()
                .to_string()
                .contains("whole number")
        );
        let (_scratch, gap) = write("g.json", r#"{"metadata": {"gap_seconds": 0}, "data": [0]}"#);
        assert!(read(&gap).unwrap_err().to_string().contains("gap_seconds"));
        let (_scratch, negative) = write(
            "n.json",
            r#"{"metadata": {"gap_seconds": 60}, "data": [0, -1]}"#,
        );
        assert!(read(&negative).unwrap_err().to_string().contains("data[1]"));
        let (_scratch, shape) = write("s.json", r#"{"data": [0]}"#);
        assert!(read(&shape).unwrap_err().to_string().contains("metadata"));
    }
}
