//! Checks of `[[workload]]` tables: arrivals and their profiles, GPU counts and durations
//! (see `distributions`), the GPU types a workload runs on, checkpoints, deadlines.

use std::collections::{BTreeMap, BTreeSet};

use toml::Value;

use super::distributions::{duration_dist, gpu_mix};
use super::{Checker, DAILY_PRESETS, NUMBER_MAX, describe, number_of};
use crate::names::NameKind;
use crate::scenario::config::*;
use crate::scenario::file::*;
use crate::scenario::overrides::did_you_mean;

/// Checks every workload (names unique).
pub(super) fn check_workloads(
    c: &mut Checker<'_>,
    files: &[WorkloadFile],
    resolved: &mut [WorkloadFile],
    context: &WorkloadContext<'_>,
) -> Vec<Workload> {
    let mut workloads = Vec::new();
    let mut workload_names = BTreeSet::new();
    for (i, (workload, resolved_workload)) in files.iter().zip(resolved.iter_mut()).enumerate() {
        let at = format!("workload.{}", workload.name);
        let is_new = workload_names.insert(workload.name.clone());
        c.table_name("workload", i, &workload.name, is_new);
        if let Some(w) = check_workload(c, workload, resolved_workload, &at, context) {
            workloads.push(w);
        }
    }
    workloads
}

/// What the workload checks need to know about the rest of the scenario.
pub(super) struct WorkloadContext<'a> {
    pub(super) gpu_types: &'a [String],
    /// GPU types some pool offers.
    pub(super) offered: &'a BTreeSet<String>,
    pub(super) speeds: &'a BTreeMap<String, f64>,
    /// The scenario's speed of each of `gpu_types` (1 when `[gpu_speed]` does not name it).
    pub(super) gpu_speed: &'a [f64],
    pub(super) horizon_h: f64,
    pub(super) pool_names: &'a BTreeMap<String, usize>,
}

fn check_workload(
    c: &mut Checker<'_>,
    w: &WorkloadFile,
    resolved: &mut WorkloadFile,
    at: &str,
    context: &WorkloadContext<'_>,
) -> Option<Workload> {
    let horizon_h = context.horizon_h;
    let f = |name: &str| format!("{at}.{name}");
    let times_h = w.arrival_times_h.clone().unwrap_or_default();
    let arrivals_per_day = arrivals_per_day(c, w, at, horizon_h);
    let daily = match &w.daily_profile {
        None => [1.0; 24],
        Some(value) => daily_profile(c, value, &f("daily_profile")),
    };
    let weekly = match &w.weekly_profile {
        None => [1.0; 7],
        Some(values) => weekly_profile(c, values, &f("weekly_profile")),
    };
    let growth = c.number(
        w.growth_per_month.unwrap_or(0.0),
        &f("growth_per_month"),
        -1.0,
        true,
        10.0,
    );
    let gpus = c.required(
        w.gpus.as_ref(),
        &f("gpus"),
        "GPUs per job: a count, or a table like { 1 = 0.6, 8 = 0.4 }",
    );
    let gpus = gpus.and_then(|g| gpu_mix(c, g, &f("gpus")));
    let duration = c.required(
        w.duration_h.as_ref(),
        &f("duration_h"),
        "hours per job: a number, or a table like { dist = \"lognormal\", median = 3, p95 = 24 }",
    );
    let duration = duration.and_then(|d| duration_dist(c, d, &f("duration_h")));
    if let Some(mean_h) = duration.as_ref().map(DurationDist::mean_h)
        && !(mean_h.is_finite() && mean_h > 0.0 && mean_h <= NUMBER_MAX)
    {
        c.push(
            &f("duration_h"),
            format!("has a mean of {mean_h:e} hours with these parameters; choose parameters whose mean is above 0 and at most {NUMBER_MAX:e} hours"),
        );
    }

    let GpuChoice {
        gpu_name,
        gpu,
        accepts,
        accepts_mask,
    } = gpu_choice(
        c,
        &GpuFields {
            name: &format!("workload `{}`", w.name),
            gpu: &w.gpu,
            accepts: &w.accepts,
            refers: "duration_h refers to",
            own_speeds: w.gpu_speed.as_ref(),
        },
        at,
        context,
    );
    let speedup = c.number(
        w.mixed_precision_speedup.unwrap_or(1.0),
        &f("mixed_precision_speedup"),
        1.0,
        false,
        100.0,
    );
    let checkpoint = w.checkpoint.as_ref().and_then(|cp| checkpoint(c, cp, at));
    let deadline_h = w.deadline_h.map(|d| c.positive(d, &f("deadline_h")));
    let team = w.team.clone().unwrap_or_else(|| w.name.clone());
    if w.team.is_some()
        && let Some(problem) = crate::names::problem(&team, NameKind::Team)
    {
        c.push(&f("team"), problem);
    }
    let scaling_fields = [
        ("scaling_efficiency", w.scaling_efficiency.is_some()),
        ("scaling", w.scaling.is_some()),
        ("min_gpus", w.min_gpus.is_some()),
        ("max_gpus", w.max_gpus.is_some()),
    ];
    let scaling = match scaling_fields.iter().find(|(_, given)| *given) {
        Some((field, _)) if w.trace.is_some() => {
            c.push(
                &f(field),
                "is not supported on a trace workload: its jobs run on the GPUs the trace gives",
            );
            None
        }
        _ => gpus.as_ref().and_then(|mix| scaling(c, w, mix, at)),
    };
    resolved.growth_per_month = Some(growth);
    resolved.gpu = gpu_name.clone();
    resolved.accepts = Some(accepts);
    resolved.mixed_precision_speedup = Some(speedup);
    resolved.priority = Some(w.priority.unwrap_or(0));
    resolved.team = Some(team.clone());
    Some(Workload {
        name: w.name.clone(),
        arrivals: ArrivalProfile {
            arrivals_per_day: arrivals_per_day?,
            daily,
            weekly,
            growth_per_month: growth,
            times_h,
        },
        gpus: gpus?,
        duration_h: duration?,
        gpu: gpu?,
        accepts_mask,
        gpu_speed: match &w.gpu_speed {
            Some(own) => own_gpu_speed(c, own, &f("gpu_speed"), context),
            None => context.gpu_speed.to_vec(),
        },
        own_gpu_speed: w.gpu_speed.is_some(),
        scaling,
        mixed_precision_speedup: speedup,
        checkpoint,
        deadline_h,
        pools: w
            .pools
            .as_ref()
            .map(|named| pools_named(c, named, &f("pools"), context)),
        burst_after_wait_h: burst_after_wait_h(c, w, resolved, &f("burst_after_wait_h")),
        priority: w.priority.unwrap_or(0),
        team,
        // Set once every workload is known (see `team_indices`).
        team_idx: 0,
        checkpoint_gb: w
            .checkpoint_gb
            .map_or(0.0, |g| c.non_negative(g, &f("checkpoint_gb"))),
        dataset_gb: w
            .dataset_gb
            .map_or(0.0, |g| c.non_negative(g, &f("dataset_gb"))),
        trace: None, // Set by `inputs::replay::attach`.
    })
}

/// A workload's data-parallel scaling: `scaling_efficiency` or a `scaling` table, and the
/// bounds `min_gpus` and `max_gpus` around every count of `gpus`.
fn scaling(c: &mut Checker<'_>, w: &WorkloadFile, mix: &GpuMix, at: &str) -> Option<Scaling> {
    let f = |name: &str| format!("{at}.{name}");
    let asked: Vec<u32> = mix.cumulative.iter().map(|&(g, _)| g).collect();
    let (fewest, most) = (
        asked.iter().copied().min().unwrap_or(1),
        asked.iter().copied().max().unwrap_or(1),
    );
    let law = match (w.scaling_efficiency, &w.scaling) {
        (Some(_), Some(_)) => {
            c.push(
                &f("scaling"),
                "takes the place of scaling_efficiency; give one or the other",
            );
            return None;
        }
        (Some(e), None) => {
            ScalingLaw::Efficiency(c.number(e, &f("scaling_efficiency"), 0.5, true, 1.0))
        }
        (None, Some(table)) => ScalingLaw::Table(scaling_table(c, table, &asked, &f("scaling"))),
        (None, None) => {
            for (field, given) in [("min_gpus", w.min_gpus), ("max_gpus", w.max_gpus)] {
                if given.is_some() {
                    c.push(
                        &f(field),
                        "needs scaling_efficiency or scaling: how fast a job runs on another GPU count",
                    );
                }
            }
            return None;
        }
    };
    match (w.min_gpus, w.max_gpus) {
        (Some(min), Some(max)) if min > max => c.push(
            &f("min_gpus"),
            format!("must be at most max_gpus ({max}), got {min}"),
        ),
        (min, max) => {
            if let Some(min) = min
                && !(1..=fewest).contains(&min)
            {
                c.push(
                    &f("min_gpus"),
                    format!("must be at least 1 and at most the smallest count of gpus ({fewest}), got {min}"),
                );
            }
            if let Some(max) = max
                && max < most
            {
                c.push(
                    &f("max_gpus"),
                    format!("must be at least the largest count of gpus ({most}), got {max}"),
                );
            }
        }
    }
    Some(Scaling {
        law,
        min_gpus: w.min_gpus,
        max_gpus: w.max_gpus,
    })
}

/// A `scaling` table: GPU counts (each at least 1) and speed-ups above 0, with every count a
/// job may ask (`asked`).
fn scaling_table(
    c: &mut Checker<'_>,
    table: &BTreeMap<String, f64>,
    asked: &[u32],
    field: &str,
) -> Vec<(u32, f64)> {
    let mut entries = Vec::new();
    for (key, speedup) in table {
        let at = format!("{field}.{key}");
        match key.parse::<u32>() {
            Ok(n) if n >= 1 => entries.push((n, c.positive(*speedup, &at))),
            _ => c.push(
                &at,
                format!("`{key}` is not a GPU count; keys are counts and values speed-ups, e.g. {{ 1 = 1.0, 2 = 1.9, 4 = 3.5 }}"),
            ),
        }
    }
    entries.sort_by_key(|&(n, _)| n);
    for &g in asked {
        if !entries.iter().any(|&(n, _)| n == g) {
            c.push(
                field,
                format!("must give the speed-up of every count of gpus: {g} is missing"),
            );
        }
    }
    entries
}

/// A workload's own `gpu_speed`, by scenario GPU type: each named type known to the scenario,
/// each speed above 0. A type it does not name keeps the scenario's speed, which is never read:
/// `gpu_choice` requires the table to name every type the workload may run on.
fn own_gpu_speed(
    c: &mut Checker<'_>,
    own: &BTreeMap<String, f64>,
    field: &str,
    context: &WorkloadContext<'_>,
) -> Vec<f64> {
    let mut speed = context.gpu_speed.to_vec();
    if own.is_empty() {
        c.push(
            field,
            "must name at least one GPU type, e.g. { A100 = 1.0, H100 = 2.1 }; leave it out to use [gpu_speed]",
        );
    }
    for (name, value) in own {
        let at = format!("{field}.{name}");
        let value = c.positive(*value, &at);
        match context.gpu_types.iter().position(|g| g == name) {
            Some(t) => speed[t] = value,
            None => c.push(
                &at,
                format!(
                    "names GPU type `{name}` that no pool offers and [gpu_speed] does not name{}; known types: {}",
                    did_you_mean(name, context.gpu_types.iter().map(String::as_str)),
                    context.gpu_types.join(", ")
                ),
            ),
        }
    }
    speed
}

/// The pools a workload names, as indices into the scenario's pools (each known, none twice).
fn pools_named(
    c: &mut Checker<'_>,
    named: &[String],
    field: &str,
    context: &WorkloadContext<'_>,
) -> Vec<usize> {
    let mut pools = Vec::new();
    for name in named {
        match context.pool_names.get(name) {
            Some(&p) if pools.contains(&p) => {
                c.push(field, format!("names pool `{name}` twice"));
            }
            Some(&p) => pools.push(p),
            None => c.push(
                field,
                format!(
                    "names an unknown pool `{name}`{}; pools are: {}",
                    did_you_mean(name, context.pool_names.keys().map(String::as_str)),
                    context
                        .pool_names
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }
    pools
}

/// A workload's own burst threshold, written back resolved as the strategy's is.
fn burst_after_wait_h(
    c: &mut Checker<'_>,
    w: &WorkloadFile,
    resolved: &mut WorkloadFile,
    field: &str,
) -> Option<Option<f64>> {
    let value = w.burst_after_wait_h.as_ref()?;
    let burst = super::burst_threshold(c, value, field);
    resolved.burst_after_wait_h = Some(burst.map_or(Value::String("never".into()), Value::Float));
    Some(burst)
}

/// Team names in order of first appearance (workloads, then services); sets each workload's
/// and service's `team_idx`.
pub(super) fn team_indices(workloads: &mut [Workload], services: &mut [Service]) -> Vec<String> {
    let mut teams: Vec<String> = Vec::new();
    let mut index_of = |team: &str| match teams.iter().position(|t| t == team) {
        Some(index) => index,
        None => {
            teams.push(team.to_string());
            teams.len() - 1
        }
    };
    for workload in workloads {
        workload.team_idx = index_of(&workload.team);
    }
    for service in services {
        service.team_idx = index_of(&service.team);
    }
    teams
}

/// Jobs per day: as given, or for listed arrival times their mean over the horizon.
fn arrivals_per_day(
    c: &mut Checker<'_>,
    w: &WorkloadFile,
    at: &str,
    horizon_h: f64,
) -> Option<f64> {
    let f = |name: &str| format!("{at}.{name}");
    match (&w.arrival_times_h, w.arrivals_per_day) {
        (Some(_), Some(_)) => {
            c.push(
                &f("arrival_times_h"),
                "takes the place of arrivals_per_day; give one or the other",
            );
            None
        }
        (Some(times), None) => {
            if times.is_empty() {
                c.push(
                    &f("arrival_times_h"),
                    "must list at least one arrival time (hours since start)",
                );
            }
            for t in times {
                c.non_negative(*t, &f("arrival_times_h"));
            }
            if times.windows(2).any(|pair| pair[1] < pair[0]) {
                c.push(&f("arrival_times_h"), "must be in increasing order");
            }
            // For load estimates only: the listed jobs spread over the horizon.
            Some(times.len() as f64 / (horizon_h / 24.0))
        }
        (None, arrivals_per_day) => c
            .required(
                arrivals_per_day,
                &f("arrivals_per_day"),
                "mean jobs per day, e.g. 40 (or arrival_times_h, a list of hours)",
            )
            .map(|a| c.positive(a, &f("arrivals_per_day"))),
    }
}

/// Monday to Sunday multipliers of the arrival rate.
pub(super) fn weekly_profile(c: &mut Checker<'_>, values: &[f64], field: &str) -> [f64; 7] {
    let mut weekly = [1.0; 7];
    if values.len() != 7 {
        c.push(
            field,
            format!(
                "must have 7 multipliers (Monday to Sunday), got {}",
                values.len()
            ),
        );
    } else {
        for (i, v) in values.iter().enumerate() {
            weekly[i] = c.non_negative(*v, field);
        }
        if weekly.iter().all(|v| *v == 0.0) {
            c.push(field, "must have a day above 0 (no job would ever arrive)");
        }
    }
    weekly
}

/// What a workload or a service says about its GPU types.
pub(super) struct GpuFields<'a> {
    pub(super) name: &'a str,
    pub(super) gpu: &'a Option<String>,
    pub(super) accepts: &'a Option<Vec<String>>,
    /// What the reference type is for, in messages: "duration_h refers to".
    pub(super) refers: &'a str,
    /// Its own speed table, which replaces `[gpu_speed]` for it (workloads only).
    pub(super) own_speeds: Option<&'a BTreeMap<String, f64>>,
}

/// The GPU types a workload runs on.
pub(super) struct GpuChoice {
    /// The type `duration_h` refers to.
    pub(super) gpu_name: Option<String>,
    pub(super) gpu: Option<usize>,
    /// As written, or `[gpu]`.
    pub(super) accepts: Vec<String>,
    /// Bit `t` set for each accepted type `t` of the scenario's GPU types.
    pub(super) accepts_mask: u64,
}

/// The reference GPU type and the accepted ones, each known to the scenario, with a speed in
/// `[gpu_speed]` whenever jobs may run on a type other than the reference.
pub(super) fn gpu_choice(
    c: &mut Checker<'_>,
    w: &GpuFields<'_>,
    at: &str,
    context: &WorkloadContext<'_>,
) -> GpuChoice {
    let WorkloadContext {
        gpu_types,
        offered,
        speeds,
        ..
    } = *context;
    let f = |name: &str| format!("{at}.{name}");
    // The reference GPU type: as written, else the first accepted type, else the only offered.
    let gpu_name = match (&w.gpu, &w.accepts) {
        (Some(gpu), _) => Some(gpu.clone()),
        (None, Some(accepts)) if !accepts.is_empty() => Some(accepts[0].clone()),
        _ if offered.len() == 1 => offered.iter().next().cloned(),
        _ => {
            c.push(
                &f("gpu"),
                format!(
                    "is missing: pools offer several GPU types ({}); name the one {}",
                    offered.iter().cloned().collect::<Vec<_>>().join(", "),
                    w.refers
                ),
            );
            None
        }
    };
    // A type is known if a pool offers it or [gpu_speed] names it: accepting a type no pool
    // offers is harmless (DESIGN.md's example accepts A100 beside H100-only pools); whether a
    // strategy has a pool the workload can use is checked per strategy (`check_fit`).
    let known = |c: &mut Checker<'_>, name: &str, field: &str| -> Option<usize> {
        let found = gpu_types.iter().position(|g| g == name);
        if found.is_none() {
            c.push(
                field,
                format!(
                    "names GPU type `{name}` that no pool offers and [gpu_speed] does not name{}; pools offer: {}",
                    did_you_mean(name, gpu_types.iter().map(String::as_str)),
                    offered.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            );
        }
        found
    };
    let gpu = gpu_name.as_deref().and_then(|g| {
        if w.gpu.is_some() {
            // The reference type needs no pool, only a speed if jobs run elsewhere.
            gpu_types
                .iter()
                .position(|t| t == g)
                .or_else(|| known(c, g, &f("gpu")))
        } else {
            known(c, g, &f("gpu"))
        }
    });
    let accepts: Vec<String> = w
        .accepts
        .clone()
        .unwrap_or_else(|| gpu_name.iter().cloned().collect());
    if w.accepts.as_ref().is_some_and(Vec::is_empty) {
        c.push(&f("accepts"), "must name at least one GPU type");
    }
    let mut accepts_mask = 0u64;
    for name in &accepts {
        // Without `accepts`, it is `[gpu]`, whose problems were reported at `gpu`.
        let found = if w.accepts.is_some() {
            known(c, name, &f("accepts"))
        } else {
            gpu_types.iter().position(|g| g == name)
        };
        if let Some(t) = found {
            accepts_mask |= 1 << t;
            if gpu_name.as_deref() != Some(name.as_str()) {
                for needed in [gpu_name.as_deref().unwrap_or_default(), name.as_str()] {
                    match w.own_speeds {
                        None if !speeds.contains_key(needed) => c.push(&format!("gpu_speed.{needed}"), format!(
                            "is missing: {} may run on {name} but its {} {}; give both types a relative speed in [gpu_speed]",
                            w.name, w.refers, gpu_name.as_deref().unwrap_or_default()
                        )),
                        Some(own) if !own.contains_key(needed) => c.push(&f(&format!("gpu_speed.{needed}")), format!(
                            "is missing: {} may run on {name} but its {} {}; its own gpu_speed replaces [gpu_speed], so it must give both types a relative speed",
                            w.name, w.refers, gpu_name.as_deref().unwrap_or_default()
                        )),
                        _ => {}
                    }
                }
            }
        }
    }
    GpuChoice {
        gpu_name,
        gpu,
        accepts,
        accepts_mask,
    }
}

/// A workload's checkpoint section; None (after reporting) when it cannot be used.
fn checkpoint(c: &mut Checker<'_>, cp: &CheckpointFile, at: &str) -> Option<Checkpoint> {
    let f = |name: &str| format!("{at}.{name}");
    let write_h = c.required(
        cp.write_h,
        &f("checkpoint.write_h"),
        "hours to write one checkpoint, e.g. 0.02",
    )?;
    let write_h = c.non_negative(write_h, &f("checkpoint.write_h"));
    let restart_h = c.required(
        cp.restart_h,
        &f("checkpoint.restart_h"),
        "hours to restore after an interruption, e.g. 0.1",
    )?;
    let restart_h = c.non_negative(restart_h, &f("checkpoint.restart_h"));
    let every = c.required(
        cp.every_h.as_ref(),
        &f("checkpoint.every_h"),
        "hours of work between checkpoints, or \"auto\"",
    )?;
    let every = match every {
        Value::String(s) if s == "auto" => {
            if write_h == 0.0 {
                c.push(&f("checkpoint.every_h"), "\"auto\" needs write_h above 0 (the optimum interval sqrt(2 write_h MTBF) would be 0)");
            }
            CheckpointEvery::Auto
        }
        other => match number_of(other) {
            Some(hours) => CheckpointEvery::Hours(c.positive(hours, &f("checkpoint.every_h"))),
            None => {
                c.push(
                    &f("checkpoint.every_h"),
                    format!("must be hours above 0 or \"auto\", got {}", describe(other)),
                );
                return None;
            }
        },
    };
    Some(Checkpoint {
        every,
        write_h,
        restart_h,
    })
}

pub(super) fn daily_profile(c: &mut Checker<'_>, value: &Value, field: &str) -> [f64; 24] {
    let raw: Vec<f64> = match value {
        Value::String(s) if s == "flat" => vec![1.0; 24],
        // Busy 08:00-18:00 UTC, a shoulder around it, quiet at night.
        Value::String(s) if s == "office-hours" => (0..24)
            .map(|h| match h {
                8..=17 => 1.0,
                7 | 18 | 19 => 0.5,
                _ => 0.1,
            })
            .collect(),
        Value::String(s) => {
            c.push(
                field,
                format!(
                    "names an unknown profile \"{s}\"{}; use one of {}, or a list of 24 multipliers",
                    did_you_mean(s, DAILY_PRESETS.iter().copied()),
                    DAILY_PRESETS.map(|p| format!("\"{p}\"")).join(", ")
                ),
            );
            return [1.0; 24];
        }
        Value::Array(items) => {
            let numbers: Vec<Option<f64>> = items.iter().map(number_of).collect();
            if items.len() != 24 || numbers.iter().any(Option::is_none) {
                c.push(field, format!("must be \"flat\", \"office-hours\" or 24 numbers (hours 00 to 23 UTC), got {} items", items.len()));
                return [1.0; 24];
            }
            numbers
                .into_iter()
                .map(|n| c.non_negative(n.unwrap_or(0.0), field))
                .collect()
        }
        other => {
            c.push(
                field,
                format!(
                    "must be \"flat\", \"office-hours\" or a list of 24 multipliers, got {}",
                    describe(other)
                ),
            );
            return [1.0; 24];
        }
    };
    let sum: f64 = raw.iter().sum();
    if sum <= 0.0 {
        c.push(
            field,
            "must have an hour above 0 (no job would ever arrive)",
        );
        return [1.0; 24];
    }
    let mut daily = [0.0; 24];
    for (slot, v) in daily.iter_mut().zip(&raw) {
        *slot = v * 24.0 / sum;
    }
    daily
}
