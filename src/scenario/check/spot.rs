//! Spot as it really behaves: where a pool is (zone, region), capacity that comes
//! and goes (a two-state Markov process here; a trace's settings here, its file read after the
//! checks by `trace/availability.rs`), and the strategies' spot policies.

use std::sync::Arc;

use super::Checker;
use crate::scenario::config::{Capacity, CapacityProcess, CapacityTrace, SpotPolicy};
use crate::scenario::file::{PoolFile, PoolType, SpotPolicyFile, StrategyFile};

/// The pool's zone and region, each a checked name.
pub(super) fn location(
    c: &mut Checker<'_>,
    pool: &PoolFile,
    at: &str,
) -> (Option<String>, Option<String>) {
    for (name, field) in [(&pool.zone, "zone"), (&pool.region, "region")] {
        if let Some(name) = name {
            c.name(name, &format!("{at}.{field}"));
        }
    }
    (pool.zone.clone(), pool.region.clone())
}

/// A spot pool's capacity over time: `availability_markov`, or `availability_trace` (a
/// placeholder until the trace is read), or none.
pub(super) fn capacity(c: &mut Checker<'_>, pool: &PoolFile, at: &str) -> Option<Capacity> {
    let f = |name: &str| format!("{at}.{name}");
    if pool.pool_type != PoolType::Spot {
        return None;
    }
    let start_h = pool
        .availability_start_h
        .map(|h| c.non_negative(h, &f("availability_start_h")));
    if start_h.is_some() && pool.availability_trace.is_none() {
        c.push(
            &f("availability_start_h"),
            "applies to an availability_trace only; add availability_trace = \"FILE\" or remove it",
        );
    }
    match (&pool.availability_trace, &pool.availability_markov) {
        (Some(_), Some(_)) => {
            c.push(
                &f("availability_markov"),
                "cannot be given with availability_trace: the pool's capacity comes from one of them; remove one",
            );
            None
        }
        (Some(_), None) => Some(Capacity {
            // Replaced by the trace once it is read.
            process: CapacityProcess::Trace(Arc::new(CapacityTrace {
                steps: vec![(0.0, CapacityTrace::UNLIMITED)],
                length_h: f64::INFINITY,
            })),
            start_h,
        }),
        (None, Some(markov)) => {
            let share = c.required(
                markov.available_share,
                &f("availability_markov.available_share"),
                "the long-run share of the time spot capacity is available, e.g. 0.6",
            );
            let mean_h = c.required(
                markov.available_mean_h,
                &f("availability_markov.available_mean_h"),
                "the mean hours spot capacity stays available once it is, e.g. 2.5",
            );
            let (share, mean_h) = (share?, mean_h?);
            let share_field = f("availability_markov.available_share");
            let share = c.number(share, &share_field, 0.0, true, 1.0);
            if share == 1.0 {
                c.push(
                    &share_field,
                    "is 1: capacity that is always available needs no availability_markov; remove it",
                );
            }
            let mean_h = c.positive(mean_h, &f("availability_markov.available_mean_h"));
            Some(Capacity {
                process: CapacityProcess::Markov {
                    available_mean_h: mean_h,
                    // The long-run share is up / (up + down).
                    unavailable_mean_h: mean_h * (1.0 - share) / share,
                },
                start_h: None,
            })
        }
        (None, None) => None,
    }
}

/// A strategy's spot policy and `deadline_safety_h`, from `spot_policy` and
/// `spot_fallback_after` (alone it means `fallback_after`, as it did before `spot_policy`
/// existed).
pub(super) fn policy(
    c: &mut Checker<'_>,
    s: &StrategyFile,
    at: &str,
    fallback_after: Option<u32>,
) -> (SpotPolicy, f64) {
    let f = |name: &str| format!("{at}.{name}");
    let policy = match (s.spot_policy, fallback_after) {
        (None, Some(_)) | (Some(SpotPolicyFile::FallbackAfter), Some(_)) => {
            SpotPolicy::FallbackAfter
        }
        (Some(SpotPolicyFile::FallbackAfter), None) => {
            c.push(
                &f("spot_fallback_after"),
                "is missing: spot_policy = \"fallback_after\" needs the number of preemptions after which a job leaves spot, e.g. spot_fallback_after = 2",
            );
            SpotPolicy::FallbackAfter
        }
        (Some(other), Some(_)) => {
            c.push(
                &f("spot_fallback_after"),
                format!(
                    "applies to spot_policy = \"fallback_after\" only, but the policy is \"{}\"; remove one of them",
                    policy_name(other)
                ),
            );
            SpotPolicy::Failover
        }
        (None, None) => SpotPolicy::Failover,
        (Some(SpotPolicyFile::Stay), None) => SpotPolicy::Stay,
        (Some(SpotPolicyFile::Failover), None) => SpotPolicy::Failover,
        (Some(SpotPolicyFile::NextZone), None) => SpotPolicy::NextZone,
        (Some(SpotPolicyFile::NextRegion), None) => SpotPolicy::NextRegion,
        (Some(SpotPolicyFile::DeadlineAware), None) => SpotPolicy::DeadlineAware,
        (Some(SpotPolicyFile::UniformProgressPlain), None) => SpotPolicy::UniformProgressPlain,
        (Some(SpotPolicyFile::Greedy), None) => SpotPolicy::Greedy,
    };
    let safety_h = s
        .deadline_safety_h
        .map_or(0.0, |h| c.non_negative(h, &f("deadline_safety_h")));
    if s.deadline_safety_h.is_some() && !policy.is_deadline_rule() {
        c.push(
            &f("deadline_safety_h"),
            "applies to spot_policy = \"deadline_aware\", \"uniform_progress_plain\" or \"greedy\" only; set one of them or remove it",
        );
    }
    if policy.is_deadline_rule() && s.deadline_jobs_off_spot == Some(true) {
        let name = s.spot_policy.map_or("deadline_aware", policy_name);
        c.push(
            &f("deadline_jobs_off_spot"),
            format!(
                "keeps jobs with a deadline off spot, which spot_policy = \"{name}\" is for; remove one of them"
            ),
        );
    }
    (policy, safety_h)
}

/// The policy as the file writes it.
pub(super) fn policy_name(policy: SpotPolicyFile) -> &'static str {
    match policy {
        SpotPolicyFile::Stay => "stay",
        SpotPolicyFile::Failover => "failover",
        SpotPolicyFile::NextZone => "next_zone",
        SpotPolicyFile::NextRegion => "next_region",
        SpotPolicyFile::FallbackAfter => "fallback_after",
        SpotPolicyFile::DeadlineAware => "deadline_aware",
        SpotPolicyFile::UniformProgressPlain => "uniform_progress_plain",
        SpotPolicyFile::Greedy => "greedy",
    }
}
