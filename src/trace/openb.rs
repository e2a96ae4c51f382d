//! Alibaba `cluster-trace-gpu-v2023` (openb) pod lists: `name, cpu_milli, memory_mib,
//! num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time,
//! scheduled_time`, times in seconds from the trace's start.
//!
//! Arrival: `creation_time`. Duration: `deletion_time - scheduled_time`. GPUs: `num_gpu`, or
//! `num_gpu x gpu_milli / 1000` for pods sharing GPUs (`gpu_milli` below 1000), rounded up to
//! whole GPUs and counted in a warning. GPU type: `gpu_spec` (the first of `A|B`, none when
//! empty). Pods without GPUs, never scheduled or not yet deleted are left out and counted.

use std::path::Path;

use super::table::{Header, Table};
use super::time::shorten;
use super::{Builder, NewJob, Stamp, TraceError};

const HINT: &str = " (openb pod lists have name, num_gpu, gpu_milli, gpu_spec, creation_time, scheduled_time, deletion_time)";

fn seconds(row: &super::table::Row<'_>, index: usize) -> Result<Option<f64>, TraceError> {
    let text = row.get(index)?;
    if matches!(text, "" | "NaN" | "nan" | "None" | "null") {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(Some(value)),
        _ => Err(row.fail(
            index,
            format!(
                "must be seconds from the trace's start, at least 0, got \"{}\"",
                shorten(text)
            ),
        )),
    }
}

pub fn read(path: &Path, builder: &mut Builder) -> Result<(), TraceError> {
    let mut table = Table::open(path, b',', true, Header::Required)?;
    let [num_gpu, creation, scheduled, deletion] = table.require(
        [
            "num_gpu",
            "creation_time",
            "scheduled_time",
            "deletion_time",
        ],
        HINT,
    )?;
    let gpu_milli = table.find("gpu_milli");
    let gpu_spec = table.find("gpu_spec");
    let phase = table.find("pod_phase");
    builder.gpus_column = table.column(num_gpu);
    if let Some(spec) = gpu_spec {
        builder.gpu_column = table.column(spec);
    }
    while let Some(row) = table.next_row()? {
        builder.rows += 1;
        let whole = row.gpu_count(num_gpu)?;
        if whole == 0 {
            builder.dropped.no_gpu += 1;
            continue;
        }
        let milli = match gpu_milli {
            Some(index) if !row.get(index)?.is_empty() => {
                let text = row.get(index)?;
                match text.parse::<f64>() {
                    Ok(m) if (0.0..=1000.0).contains(&m) => m,
                    _ => {
                        return Err(row.fail(
                            index,
                            format!(
                                "must be thousandths of a GPU from 0 to 1000, got \"{}\"",
                                shorten(text)
                            ),
                        ));
                    }
                }
            }
            _ => 1000.0,
        };
        let Some(creation_s) = seconds(&row, creation)? else {
            builder.dropped.no_submit += 1;
            continue;
        };
        let Some(scheduled_s) = seconds(&row, scheduled)? else {
            builder.dropped.never_started += 1;
            continue;
        };
        let Some(deletion_s) = seconds(&row, deletion)? else {
            builder.dropped.unfinished += 1;
            continue;
        };
        if deletion_s < scheduled_s {
            return Err(row.fail(
                deletion,
                format!("is before scheduled_time ({scheduled_s}): a negative duration"),
            ));
        }
        let duration_s = deletion_s - scheduled_s;
        // A share of a GPU (milli < 1000) still takes a whole one in the model.
        let fraction = f64::from(whole) * if milli > 0.0 { milli / 1000.0 } else { 1.0 };
        let gpus = (fraction - 1e-9).ceil().max(1.0);
        if gpus > fraction + 1e-9 {
            builder.rounded_up.0 += 1;
            builder.rounded_up.1 += (gpus - fraction) * duration_s / 3600.0;
        }
        let spec = row.get_opt(gpu_spec)?;
        let kind = spec.split('|').next().unwrap_or("").trim();
        let job = NewJob {
            submit: Stamp::Relative(creation_s),
            duration_s,
            gpus: gpus as u32,
            line: row.line,
            team: None,
            gpu: Some(kind),
            checkpointable: None,
            state: Some(row.get_opt(phase)?),
        };
        let at = row.at(creation);
        builder.push(job, || at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{ReadOptions, TimeZoneSpec, TraceFormat, read as read_trace};
    use super::*;

    #[test]
    fn openb_pods_with_shared_and_whole_gpus() {
        // tests/data/traces/openb.csv: a pod with 2 whole V100M16s, one with 300 milli of a
        // T4 (rounded up to 1), one with any GPU (empty spec), a CPU pod, a pod never
        // scheduled and one still running.
        let trace = read_trace(
            Path::new("tests/data/traces/openb.csv"),
            &ReadOptions {
                format: TraceFormat::Openb,
                timezone: TimeZoneSpec::Utc,
            },
        )
        .unwrap();
        assert_eq!(trace.jobs.len(), 3);
        assert_eq!(trace.jobs[0].gpus, 2);
        assert_eq!(trace.gpu_type(0), Some("V100M16"));
        assert_eq!(trace.jobs[0].duration_h, 1.0);
        assert_eq!(trace.jobs[1].gpus, 1);
        assert_eq!(trace.gpu_type(1), Some("T4"));
        assert_eq!(trace.gpu_type(2), None);
        assert_eq!(trace.rounded_up.0, 1);
        // 0.7 GPU added for 2 h.
        assert!(
            (trace.rounded_up.1 - 1.4).abs() < 1e-9,
            "{}",
            trace.rounded_up.1
        );
        assert_eq!(trace.dropped.no_gpu, 1);
        assert_eq!(trace.dropped.never_started, 1);
        assert_eq!(trace.dropped.unfinished, 1);
    }
}
