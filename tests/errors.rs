//! Bad input gets a clear error, and no result is ever lost or half-written.
//!
//! Every refusal goes through the binary: its exit code (1 for a bad scenario or value, 2 for
//! a command line clap refuses), the fragment of its message that names the line, field,
//! what was found and what is accepted, no panic, and no output folder left behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{fleetsim, temp_dir};

const SMALL: &str = "tests/data/small.toml";

/// A file of `tests/data/bad/` (named without `.toml`) and the fragment its message contains.
struct Bad {
    name: &'static str,
    fragment: &'static str,
}

const fn bad(name: &'static str, fragment: &'static str) -> Bad {
    Bad { name, fragment }
}

/// One small file per refused input; each breaks a copy of `tests/data/small.toml`.
const BAD_FILES: &[Bad] = &[
    // TOML syntax and types: reported by line and column, with the line shown.
    bad(
        "syntax_unquoted_value",
        "line 4, column 18: string values must be quoted",
    ),
    bad(
        "syntax_unclosed_header",
        "line 47, column 12: unclosed array table, expected `]`",
    ),
    bad(
        "unknown_field",
        "line 20, column 1: unknown field `pool.dgx.nods` (did you mean `nodes`?); accepted here: name, type, gpu",
    ),
    bad(
        "unknown_top_level_field",
        "line 6, column 1: unknown field `sed` (did you mean `seed`?)",
    ),
    bad(
        "unknown_field_inline",
        "line 34, column 16: unknown field `pool.spot.preemption.mean` (did you mean `mean_h`?); accepted here: mean_h, waves_per_month, wave_fraction",
    ),
    bad(
        "wrong_type_string",
        "line 20, column 9: `pool.dgx.nodes` must be a whole number from 0 to 1000000, got the string \"two\"",
    ),
    bad(
        "wrong_type_float_count",
        "line 20, column 9: `pool.dgx.nodes` must be a whole number from 0 to 1000000, got the number `2.5`",
    ),
    bad(
        "wrong_type_bool",
        "line 10, column 20: `workload.train.arrivals_per_day` must be a number, got the boolean `true`",
    ),
    bad(
        "negative_node_count",
        "line 20, column 9: `pool.dgx.nodes` must be a whole number from 0 to 1000000, got the whole number `-2`",
    ),
    bad(
        "duplicate_key",
        "line 7, column 1: `seed` is set twice; TOML allows each key once per table",
    ),
    bad(
        "unknown_pool_type",
        "line 17, column 8: `pool.dgx.type` cannot be \"onprem\" (did you mean `on_prem`?); use one of: on_prem, reserved, on_demand, spot",
    ),
    bad(
        "unknown_queue",
        "line 51, column 9: `strategy.hybrid.queue` cannot be \"lifo\" (did you mean `fifo`?); use one of: fifo, backfill, priority",
    ),
    bad(
        "pool_without_name",
        "line 15, column 1: this [[pool]] is missing the field `name`, which is required",
    ),
    bad(
        "empty_file",
        "`start` is missing: the first day, e.g. start = \"2027-01-01\"",
    ),
    // Numbers: NaN, infinities, negative or zero rates, durations, prices, counts.
    bad(
        "nan_price",
        "line 33: `pool.spot.price_per_gpu_h` must be a number above 0, got NaN",
    ),
    bad(
        "infinite_capex",
        "line 21: `pool.dgx.capex_per_node` must be a number of at least 0, got inf",
    ),
    bad(
        "negative_arrivals",
        "line 10: `workload.train.arrivals_per_day` must be a number above 0, got -3",
    ),
    bad(
        "zero_arrivals",
        "line 10: `workload.train.arrivals_per_day` must be a number above 0, got 0",
    ),
    bad(
        "negative_duration",
        "line 12, column 38: `workload.train.duration_h.mean` must be a number above 0, got -2",
    ),
    bad(
        "zero_duration",
        "line 12: `workload.train.duration_h` must be a number above 0, got 0",
    ),
    bad(
        "zero_gpus_per_node",
        "line 19: `pool.dgx.gpus_per_node` must be a whole number from 1 to 1024, got 0",
    ),
    bad(
        "zero_price",
        "line 33: `pool.spot.price_per_gpu_h` must be a number above 0, got 0",
    ),
    bad(
        "negative_electricity",
        "line 25: `pool.dgx.electricity_per_kwh` must be a number of at least 0, got -0.22",
    ),
    bad(
        "huge_number",
        "line 26: `pool.dgx.opex_per_node_month` must be at most 1e15 (a larger value is surely a typo), got 1e300",
    ),
    bad(
        "zero_mtbf",
        "line 27, column 14: `pool.dgx.failures.mtbf_h` must be a number above 0, got 0",
    ),
    bad(
        "pue_below_one",
        "line 24: `pool.dgx.pue` must be a number of at least 1, got 0.9",
    ),
    bad(
        "zero_horizon",
        "line 4: `horizon_months` must be a whole number from 1 to 1200, got 0",
    ),
    bad(
        "zero_replications",
        "line 5: `replications` must be a whole number from 1 to 1000000, got 0",
    ),
    bad(
        "zero_deadline",
        "line 11: `workload.train.deadline_h` must be a number above 0, got 0",
    ),
    bad(
        "zero_gpus_per_job",
        "line 11: `workload.train.gpus` must be a GPU count of at least 1, got 0",
    ),
    bad(
        "idle_power_above_power",
        "line 25: `pool.dgx.idle_power_kw_per_node` must be at most power_kw_per_node (10.2), got 12",
    ),
    // Fractions outside [0, 1].
    bad(
        "discount_above_one",
        "line 44: `pool.reserved.discount` must be a fraction between 0 and 1, got 1.5",
    ),
    bad(
        "negative_shortfall",
        "line 35, column 18: `pool.spot.availability.shortfall` must be a fraction between 0 and 1, got -0.1",
    ),
    bad(
        "wave_fraction_above_one",
        "line 34, column 50: `pool.spot.preemption.wave_fraction` must be a fraction between 0 and 1, got 2",
    ),
    bad(
        "residual_fraction_above_one",
        "line 27: `pool.dgx.residual_fraction` must be a fraction between 0 and 1, got 1.2",
    ),
    bad(
        "gpu_mix_not_summing_to_one",
        "line 11: `workload.train.gpus` probabilities must sum to 1, got 0.9",
    ),
    // Distributions and profiles.
    bad(
        "unknown_distribution",
        "line 12, column 16: `workload.train.duration_h.dist` names an unknown distribution \"expo\" (did you mean `exponential`?); use one of: fixed, exponential, lognormal, gamma, weibull, uniform, empirical",
    ),
    bad(
        "missing_distribution_parameter",
        "line 12: `workload.train.duration_h.mean` is missing: dist = \"exponential\" takes mean",
    ),
    bad(
        "missing_dist",
        "line 12: `workload.train.duration_h` needs `dist`, one of: fixed, exponential",
    ),
    bad(
        "lognormal_p95_below_median",
        "line 12, column 48: `workload.train.duration_h.p95` must be above the median (3), got 2",
    ),
    bad(
        "empirical_not_ending_at_one",
        "line 12, column 36: `workload.train.duration_h.points` the last cumulative probability must be 1, got 0.9",
    ),
    bad(
        "unknown_daily_profile",
        "line 11: `workload.train.daily_profile` names an unknown profile \"office\" (did you mean `office-hours`?)",
    ),
    bad(
        "weekly_profile_too_short",
        "line 11: `workload.train.weekly_profile` must have 7 multipliers (Monday to Sunday), got 3",
    ),
    bad(
        "checkpoint_every_word",
        "line 13, column 16: `workload.train.checkpoint.every_h` must be hours above 0 or \"auto\", got \"often\"",
    ),
    // Dates and availability windows.
    bad(
        "malformed_date",
        "line 3: `start` must be a date \"YYYY-MM-DD\", got \"2027-13-01\"",
    ),
    // Once a panic (exit 101) in the calendar, even in `validate`.
    bad(
        "start_out_of_range",
        "line 3: `start` must be a date from 1970-01-01 to 2200-12-31, got \"9999-12-01\"",
    ),
    bad(
        "date_in_another_format",
        "line 3: `start` must be a date \"YYYY-MM-DD\", got \"01/01/2027\"",
    ),
    bad(
        "window_unknown_days",
        "line 35, column 35: `pool.spot.availability.window` \"weekdayz 09:00-18:00\" is not a calendar window: unknown days `weekdayz`; use daily, weekdays, weekends",
    ),
    bad(
        "window_bad_time",
        "line 35, column 35: `pool.spot.availability.window` \"weekdays 09:00-25:00\" is not a calendar window: `25:00` is not a time HH:MM between 00:00 and 24:00",
    ),
    bad(
        "window_and_episodes",
        "line 35: `pool.spot.availability` takes either a calendar `window` or random episodes",
    ),
    // Names and references.
    bad(
        "duplicate_pool_name",
        "line 38: `pool[2].name` `spot` is used by an earlier pool; pool names must be unique",
    ),
    bad(
        "duplicate_strategy_name",
        "line 53: `strategy[1].name` `hybrid` is used by an earlier strategy",
    ),
    bad(
        "duplicate_workload_name",
        "line 57: `workload[1].name` `train` is used by an earlier workload",
    ),
    bad(
        "strategy_unknown_pool",
        "line 49: `strategy.hybrid.pools` names an unknown pool `spto` (did you mean `spot`?); pools are: dgx, reserved, spot",
    ),
    bad(
        "workload_unknown_pool",
        "line 14: `workload.train.pools` names an unknown pool `dgxx` (did you mean `dgx`?); pools are: dgx, reserved, spot",
    ),
    bad(
        "instances_and_gpus_per_node",
        "line 32: `pool.spot.gpus_per_node` does not go with `instances`: each instance gives its `gpus`",
    ),
    bad(
        "instances_same_size_twice",
        "`pool.spot.instances[1].gpus` repeats instances[0]'s size of 8 GPUs",
    ),
    bad(
        "instances_reserved_without_nodes",
        "`pool.reserved.instances[1].nodes` is missing: the instances of this size committed",
    ),
    bad(
        "instances_with_price_schedule",
        "line 33: `pool.spot.price_schedule` gives one price, but instances[0] has its own price_per_gpu_h",
    ),
    bad(
        "instances_on_prem",
        "line 20: `pool.dgx.instances` does not apply to on_prem pools",
    ),
    bad(
        "strategy_too_many_pools",
        "`strategy.wide.pools` tries 66 pools (each instance size of a pool counts as one); at most 64",
    ),
    bad(
        "workload_pools_outside_strategy",
        "line 50: `strategy.hybrid.pools` offer no pool that workload `train` can use (it accepts H100 and names pools reserved;",
    ),
    bad(
        "workload_gpu_speed_unknown_type",
        "`workload.train.gpu_speed.H10` names GPU type `H10` that no pool offers and [gpu_speed] does not name (did you mean `H100`?); known types: H100, A100",
    ),
    bad(
        "workload_gpu_speed_missing_type",
        "line 19: `workload.train.gpu_speed.H100` is missing: workload `train` may run on H100 but its duration_h refers to A100; its own gpu_speed replaces [gpu_speed], so it must give both types a relative speed",
    ),
    bad(
        "workload_scaling_efficiency_out_of_range",
        "line 20: `workload.train.scaling_efficiency` must be a number above 0.5 and at most 1, got 0.4",
    ),
    bad(
        "workload_min_gpus_above_max_gpus",
        "line 17: `workload.train.min_gpus` must be at most max_gpus (2), got 8",
    ),
    bad(
        "workload_scaling_without_asked_count",
        "line 16: `workload.train.scaling` must give the speed-up of every count of gpus: 8 is missing",
    ),
    bad(
        "workload_scaling_on_trace",
        "line 11: `workload.train.scaling_efficiency` is not supported on a trace workload: its jobs run on the GPUs the trace gives",
    ),
    bad(
        "unknown_baseline",
        "line 7: `baseline` names no strategy: `hybird` (did you mean `hybrid`?); strategies are: hybrid, reserved",
    ),
    bad(
        "no_strategy",
        "`strategy` is missing: add at least one [[strategy]] with a name and its pools",
    ),
    bad(
        "empty_pool_list",
        "line 49: `strategy.hybrid.pools` is empty: list the pools this strategy uses",
    ),
    bad(
        "strategy_without_pools",
        "line 47: `strategy.hybrid.pools` is empty: list the pools this strategy uses",
    ),
    bad(
        "strategy_pool_twice",
        "line 49: `strategy.hybrid.pools` names pool `dgx` twice",
    ),
    bad(
        "spot_without_preemption",
        "line 28: `pool.spot.preemption` is missing: preemption = { mean_h = 30 }",
    ),
    bad(
        "gpu_no_pool_offers",
        "line 13: `workload.train.gpu` names GPU type `A100` that no pool offers and [gpu_speed] does not name (did you mean `H100`?); pools offer: H100",
    ),
    bad(
        "accepts_unknown_gpu",
        "line 14: `workload.train.accepts` names GPU type `H10` that no pool offers and [gpu_speed] does not name (did you mean `H100`?); pools offer: H100",
    ),
    bad(
        "gang_never_fits",
        "line 50: `strategy.hybrid.pools` cannot fit workload `train`: its jobs need up to 32 GPUs at once, but `dgx` has 16 GPUs, `spot` has 16 GPUs",
    ),
    bad(
        "field_of_another_pool_type",
        "line 34: `pool.spot.nodes` does not apply to spot pools (it is a field of on_prem and reserved pools; use max_nodes to cap an elastic pool)",
    ),
    bad(
        "name_with_dot",
        "line 16: `pool[0].name` `dgx.h100` must not contain `.` (`.`, `=` and `,` separate --set paths and values)",
    ),
    // Names that would escape the output folder or reach the terminal raw.
    bad(
        "name_outside_folder",
        "line 2: `name` `/tmp/x` must not contain `/` (a name must not lead to another folder); names may have letters, digits",
    ),
    bad(
        "name_with_control",
        "line 16: `pool[0].name` `dgx\\u{1b}[31m\\nred` must not contain control characters",
    ),
    bad(
        "name_too_long",
        "`strategy[0].name` `very-long-strategy-name-very-long-strategy-name-very-long-strate…` is 96 characters long: at most 64 are accepted",
    ),
    bad(
        "provider_null_word",
        "line 19: `pool.dgx.provider` `NULL` reads as null in FOCUS tools",
    ),
    bad(
        "region_with_slash",
        "line 32: `pool.spot.region` `eu/west` must not contain `/`",
    ),
    bad(
        "team_with_slash",
        "line 13: `workload.train.team` `ml/vision` must not contain `/`",
    ),
    bad(
        "team_formula",
        "line 13: `workload.train.team` `@SUM(1+1)` must not start with `@`: a spreadsheet would read the CSV cell as a formula",
    ),
    bad(
        "workload_formula",
        "line 9: `workload[0].name` `-1+1` must not start with `-`: a spreadsheet would read the CSV cell as a formula",
    ),
    bad(
        "seed_too_large",
        "line 6, column 8: `seed` must be a whole number from 0 to 18446744073709551615 (above 9223372036854775807, in quotes: seed = \"18446744073709551615\"), got the whole number `9223372036854775808`",
    ),
    // Runs that could not end, refused up front.
    bad(
        "too_many_jobs",
        "line 10: `workload.train.arrivals_per_day` gives about 3.7e13 jobs per replication over 1200 months (with growth_per_month = 0), more than the 1e8 fleetsim simulates",
    ),
    bad(
        "runaway_growth",
        "line 10: `workload.train.arrivals_per_day` gives about 3.4e121 jobs per replication over 120 months (with growth_per_month = 9)",
    ),
    bad(
        "too_many_busy_gpus",
        "line 8: `workload.train` keeps about 8.0e7 GPUs busy at once by the end of the horizon",
    ),
    bad(
        "zero_max_queued_jobs",
        "line 7: `max_queued_jobs` must be at least 1, got 0",
    ),
    // Job traces: the scenario's line, then the trace's file, line and column.
    bad(
        "trace_missing_column",
        "line 10: `workload.train.trace` tests/data/traces/bad/missing_gpus.csv: line 1: the header lacks the column `gpus`",
    ),
    bad(
        "trace_unparsable_time",
        "line 10: `workload.train.trace` tests/data/traces/bad/bad_time.csv: line 3, column 1 (`submit_time`): must be a date and time",
    ),
    bad(
        "trace_negative_duration",
        "tests/data/traces/bad/negative_duration.csv: line 3, column 2 (`duration_h`): must be a duration of at least 0 hours, got -2",
    ),
    bad(
        "trace_zero_gpus",
        "tests/data/traces/bad/zero_gpus.csv: line 3, column 3 (`gpus`): is 0: every job of a trace needs at least 1 GPU",
    ),
    bad(
        "trace_team_with_escape",
        "tests/data/traces/bad/team_with_escape.csv: line 3: the job's team `nlp\\u{1b}[2J` must not contain control characters",
    ),
    bad(
        "trace_team_formula",
        "tests/data/traces/bad/team_formula.csv: line 3: the job's team `+NOW()` must not start with `+`: a spreadsheet would read the CSV cell as a formula",
    ),
    bad(
        "trace_binary",
        "tests/data/traces/bad/garbage.bin: line 3, column 1: not a text file (a NUL byte)",
    ),
    bad(
        "trace_sacct_read_as_csv",
        "tests/data/traces/slurm.txt: line 1: is `|`-separated, as sacct prints; set trace_format = \"slurm\"",
    ),
    bad(
        "trace_missing_file",
        "line 10: `workload.train.trace` tests/data/traces/no_such_file.csv: cannot read trace file",
    ),
    bad(
        "trace_unknown_format",
        "line 11, column 16: `workload.train.trace_format` cannot be \"sacct\"; use one of: csv, slurm, helios, acme, philly, pai, openb",
    ),
    bad(
        "trace_unknown_time_zone",
        "line 12: `workload.train.trace_timezone` names no time zone fleetsim knows: \"Europe/Frankfurt\"",
    ),
    bad(
        "trace_unknown_gpu",
        "tests/data/traces/bad/unknown_gpu.csv: line 3, column 4 (`gpu`): names GPU type `V100` (2 job(s)) that no pool offers and [gpu_speed] does not name (did you mean `H100`?)",
    ),
    bad(
        "trace_gang_too_large",
        "tests/data/traces/bad/large_gang.csv: line 3, column 3 (`gpus`): a job of 64 GPUs fits no pool strategy `hybrid` may use (the largest, `spot`, has 32 GPUs); 2 job(s) are larger",
    ),
    bad(
        "trace_with_rates",
        "line 12: `workload.train.arrivals_per_day` does not apply to a workload that replays a trace",
    ),
    bad(
        "trace_too_short_for_bootstrap",
        "line 8: `workload.train.replay` \"bootstrap\" needs a trace of at least 3 calendar days",
    ),
    // Inference services.
    bad(
        "service_replica_larger_than_a_node",
        "`service.chat.gpus_per_replica` is 16, more than the 8 GPUs of a node of pool `dgx`",
    ),
    bad(
        "service_with_no_pool",
        "`strategy.spot-only.service_pools` offer no pool that service `chat` can use",
    ),
    bad(
        "service_reserve_on_spot",
        "`strategy.hybrid.reserve_gpus.spot` holds GPUs on `spot`, which is elastic",
    ),
    bad(
        "service_gpus_and_demand_trace",
        "`service.chat.gpus` is given with demand_trace, which replaces it",
    ),
    bad(
        "service_demand_trace_bad_time",
        "demand_decreasing_time.csv: line 4, column 1 (`time`): must be later than the row before",
    ),
    bad(
        "service_named_like_a_workload",
        "`train` is also a workload's name",
    ),
    bad(
        "service_peak_from_weekly_profile",
        "line 16: `service.chat` peaks at about 4.0e15 GPUs of demand (gpus x the highest daily_profile and weekly_profile multipliers",
    ),
    bad(
        "service_peak_from_demand_trace",
        "line 16: `service.chat` peaks at about 5.0e5 GPUs of demand (the demand_trace's highest step, with growth_per_month = 0 over 1 months)",
    ),
    // Prices and money over time.
    bad(
        "price_change_and_schedule",
        "`pool.spot.price_change_per_year` price_change_per_year, price_schedule and price_trace are three ways",
    ),
    bad(
        "price_schedule_bad_month",
        "`pool.spot.price_schedule` `from` must be a month \"YYYY-MM\", got \"July 2027\"",
    ),
    bad(
        "upfront_share_without_partial",
        "`pool.reserved.upfront_share` applies to upfront = \"partial\" only",
    ),
    bad(
        "resale_without_sale_month",
        "`pool.dgx.resale_fraction` needs available_until",
    ),
    bad(
        "egress_without_site",
        "`pool.spot.egress_per_gb` prices data moving to or from the pool's site",
    ),
    bad(
        "price_trace_bad_price",
        "price_negative.csv: line 3, column 2 (`price_per_gpu_h`): must be a price from 0 to 1e6",
    ),
    bad(
        "spot_policy_fallback_without_count",
        "spot_policy = \"fallback_after\" needs the number of preemptions",
    ),
    bad(
        "availability_trace_and_markov",
        "cannot be given with availability_trace",
    ),
    bad(
        "availability_markov_always",
        "capacity that is always available needs no availability_markov",
    ),
    bad(
        "deadline_safety_without_policy",
        "applies to spot_policy = \"deadline_aware\", \"uniform_progress_plain\" or \"greedy\" only",
    ),
    bad("availability_trace_bad_gap", "has metadata.gap_seconds = 0"),
];

/// A command line (`{small}`: the small valid scenario, `{out}`: a fresh output folder), the
/// exit code and the fragment of the message.
struct BadFlags {
    args: &'static [&'static str],
    code: i32,
    fragment: &'static str,
}

const fn flags(args: &'static [&'static str], code: i32, fragment: &'static str) -> BadFlags {
    BadFlags {
        args,
        code,
        fragment,
    }
}

const BAD_FLAGS: &[BadFlags] = &[
    // --set paths that do not exist or values of the wrong type: exit 1, named by the --set.
    flags(
        &[
            "run",
            "{small}",
            "--out",
            "{out}",
            "--set",
            "pool.dgz.nodes=3",
        ],
        1,
        "tests/data/small.toml: --set pool.dgz.nodes=3: no pool is named `dgz` (did you mean `dgx`?); pools are: dgx, spot, reserved",
    ),
    flags(
        &[
            "run",
            "{small}",
            "--out",
            "{out}",
            "--set",
            "pool.dgx.nods=3",
        ],
        1,
        "--set pool.dgx.nods=3: unknown field `nods` (did you mean `nodes`?)",
    ),
    flags(
        &[
            "run",
            "{small}",
            "--out",
            "{out}",
            "--set",
            "pool.dgx.nodes=three",
        ],
        1,
        "--set pool.dgx.nodes=three: must be a whole number from 0 to 1000000, got the string \"three\"",
    ),
    flags(
        &[
            "run",
            "{small}",
            "--out",
            "{out}",
            "--set",
            "pool.dgx.nodes=-1",
        ],
        1,
        "--set pool.dgx.nodes=-1: must be a whole number from 0 to 1000000, got the whole number `-1`",
    ),
    flags(
        &["validate", "{small}", "--set", "horizon_months=0"],
        1,
        "--set `horizon_months`: must be a whole number from 1 to 1200, got 0",
    ),
    flags(
        &[
            "validate",
            "{small}",
            "--set",
            "pool.spot.price_per_gpu_h=nan",
        ],
        1,
        "--set `pool.spot.price_per_gpu_h`: must be a number above 0, got NaN",
    ),
    flags(
        &["validate", "{small}", "--set", "strategy.hybrid.queue=lifo"],
        1,
        "--set strategy.hybrid.queue=lifo: cannot be \"lifo\" (did you mean `fifo`?); use one of: fifo, backfill, priority",
    ),
    flags(
        &["validate", "{small}", "--set", "workload.nope.gpus=1"],
        1,
        "no workload is named `nope`; workloads are: train",
    ),
    flags(
        &["validate", "{small}", "--set", "pool.dgx=3"],
        1,
        "`pool.dgx` names a whole pool; add a field",
    ),
    flags(
        &["validate", "{small}", "--set", "horizon_months.x=1"],
        1,
        "`horizon_months` is a value, not a table",
    ),
    flags(
        &["validate", "{small}", "--set", "nodes"],
        2,
        "`nodes` is not PATH=VALUE (e.g. pool.dgx.nodes=6)",
    ),
    // Numbers on the command line: clap refuses them (exit 2) and says what is accepted.
    flags(
        &["run", "{small}", "--out", "{out}", "--replications", "0"],
        2,
        "invalid value '0' for '--replications <N>': out of range: expected a whole number from 1 to 1000000",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--replications", "x"],
        2,
        "invalid value 'x' for '--replications <N>': not a whole number: expected a whole number from 1 to 1000000",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--replications", "-3"],
        2,
        "invalid value '-3' for '--replications <N>': out of range",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--threads", "0"],
        2,
        "invalid value '0' for '--threads <N>': out of range: expected a whole number from 1 to 1024",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--threads", "-1"],
        2,
        "invalid value '-1' for '--threads <N>': out of range",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--threads", "many"],
        2,
        "invalid value 'many' for '--threads <N>': not a whole number",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--seed", "-5"],
        2,
        "invalid value '-5' for '--seed <N>': out of range: expected a whole number from 0 to 18446744073709551615",
    ),
    // Seeds are u64 in every command; --set takes one line.
    flags(
        &[
            "sweep",
            "{small}",
            "--out",
            "{out}",
            "--vary",
            "pool.dgx.nodes=1,2",
            "--seed",
            "18446744073709551616",
        ],
        2,
        "invalid value '18446744073709551616' for '--seed <N>': out of range: expected a whole number from 0 to 18446744073709551615",
    ),
    flags(
        &["validate", "{small}", "--set", "horizon_months=2\nseed=5"],
        2,
        "`horizon_months=2\\nseed=5` holds a line break or another control character ('\\n'); give one PATH=VALUE per --set, on one line",
    ),
    flags(
        &["validate", "{small}", "--set", "horizon_months=-1"],
        1,
        "--set horizon_months=-1: must be a whole number from 1 to 1200, got the whole number `-1`",
    ),
    flags(
        &["validate", "{small}", "--set", "horizon_months=1.5"],
        1,
        "--set horizon_months=1.5: must be a whole number from 1 to 1200, got the number `1.5`",
    ),
    // A scenario is read once, and at most 16 MiB of it.
    flags(
        &["validate", "/dev/zero"],
        1,
        "error: /dev/zero: is larger than 16 MiB, the most a scenario file may be",
    ),
    flags(
        &["run", "{small}", "--out", "{out}", "--frobnicate"],
        2,
        "unexpected argument '--frobnicate'",
    ),
    // Files that cannot be read.
    flags(
        &["run", "tests/data/no-such-file.toml", "--out", "{out}"],
        1,
        "error: tests/data/no-such-file.toml: cannot read scenario file: No such file or directory",
    ),
    flags(
        &["validate", "tests/data"],
        1,
        "error: tests/data: cannot read scenario file",
    ),
    // --trace keeps every job in memory: refused when that would be huge.
    flags(
        &[
            "run",
            "{small}",
            "--out",
            "{out}",
            "--trace",
            "--set",
            "horizon_months=24",
            "--set",
            "workload.train.arrivals_per_day=100000",
            "--set",
            "workload.train.duration_h.mean=0.01",
        ],
        1,
        "--trace would keep about 1.5e8 job rows in memory (2 strategies x 73,100,000 jobs of replication 0), more than 1e7; drop --trace",
    ),
    // fleetsim fit: a bad trace is exit 1 with its file, line and column; a bad
    // format or split is clap's exit 2.
    flags(
        &[
            "fit",
            "tests/data/traces/bad/zero_gpus.csv",
            "--format",
            "csv",
            "--out",
            "{out}",
        ],
        1,
        "error: tests/data/traces/bad/zero_gpus.csv: line 3, column 3 (`gpus`): is 0",
    ),
    flags(
        &[
            "fit",
            "tests/data/traces/slurm.txt",
            "--format",
            "sacct",
            "--out",
            "{out}",
        ],
        2,
        "invalid value 'sacct' for '--format <FORMAT>': unknown trace format; use one of: csv, slurm, helios, acme, philly, pai, openb",
    ),
    flags(
        &[
            "fit",
            "tests/data/traces/slurm.txt",
            "--format",
            "slurm",
            "--by",
            "teams",
        ],
        2,
        "invalid value 'teams' for '--by <gpus|team>': use gpus or team",
    ),
];

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What every refusal has in common: the exit code, no panic, the fragment.
fn assert_refused(output: &Output, code: i32, fragment: &str, what: &str) {
    let stderr = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(
        stderr.contains(fragment),
        "{what}: message lacks\n  {fragment}\n{stderr}"
    );
    assert!(
        stderr.lines().any(|line| line.starts_with("error: ")),
        "{what}: {stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "{what}: data on stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn bad_scenario_files_are_refused_with_a_message_that_teaches() {
    let dir = temp_dir("bad-files");
    for case in BAD_FILES {
        let file = format!("tests/data/bad/{}.toml", case.name);
        let output = fleetsim(&["validate", &file]);
        assert_refused(&output, 1, case.fragment, &file);
        assert!(
            stderr(&output).starts_with(&format!("error: {file}: ")),
            "{file}: the message does not start with the file: {}",
            stderr(&output)
        );
        let out = dir.join(case.name);
        let out_text = out.to_string_lossy();
        let output = fleetsim(&["run", &file, "--out", &out_text, "--quiet"]);
        assert_refused(&output, 1, case.fragment, &format!("run {file}"));
        assert!(!out.exists(), "{file}: a refused run created {out_text}");
    }
}

#[test]
fn every_bad_file_is_in_the_table() {
    let mut files: Vec<String> = std::fs::read_dir("tests/data/bad")
        .expect("tests/data/bad")
        .map(|entry| entry.expect("an entry").path())
        .filter_map(|path| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .collect();
    files.sort();
    let mut table: Vec<String> = BAD_FILES.iter().map(|c| c.name.to_string()).collect();
    table.sort();
    assert_eq!(files, table);
    assert!(BAD_FILES.len() + BAD_FLAGS.len() >= 40);
}

#[test]
fn every_bad_and_warned_file_is_in_the_catalogue() {
    let catalogue = std::fs::read_to_string("docs/errors.md").expect("docs/errors.md");
    let warned = WARNINGS
        .iter()
        .map(|(name, _)| format!("tests/data/warn/{name}.toml"));
    let refused = BAD_FILES
        .iter()
        .map(|c| format!("tests/data/bad/{}.toml", c.name));
    for file in refused.chain(warned) {
        assert!(
            catalogue.contains(&file),
            "docs/errors.md does not show {file}"
        );
        // The example is the real message, so the catalogue cannot drift from the code.
        let message = stderr(&fleetsim(&["validate", &file]));
        let shown: Vec<&str> = message
            .lines()
            .filter(|line| !file.contains("/warn/") || line.starts_with("warning:"))
            .collect();
        let shown = shown.join("\n");
        assert!(
            catalogue.contains(&format!("(`{file}`):\n\n```text\n{shown}\n```")),
            "docs/errors.md shows another message for {file}; it is now:\n{shown}"
        );
    }
}

#[test]
fn bad_flags_are_refused_with_a_message_that_teaches() {
    let dir = temp_dir("bad-flags");
    for (i, case) in BAD_FLAGS.iter().enumerate() {
        let out = dir.join(format!("out-{i}"));
        let out_text = out.to_string_lossy().into_owned();
        let args: Vec<String> = case
            .args
            .iter()
            .map(|a| a.replace("{small}", SMALL).replace("{out}", &out_text))
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = fleetsim(&args);
        assert_refused(&output, case.code, case.fragment, &args.join(" "));
        assert!(!out.exists(), "{args:?} created {out_text}");
    }
}

#[test]
fn the_bad_case_message_names_the_file_once_and_lists_every_problem() {
    // Several problems in one file are all reported, each on its own line.
    let dir = temp_dir("several");
    let text = std::fs::read_to_string(SMALL)
        .unwrap()
        .replace("arrivals_per_day = 10", "arrivals_per_day = -1")
        .replace("discount = 0.35", "discount = 2")
        .replace("price_per_gpu_h = 2.6", "price_per_gpu_h = nan");
    let file = dir.join("several.toml");
    std::fs::write(&file, text).unwrap();
    let output = fleetsim(&["validate", &file.to_string_lossy()]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains(": 3 problem(s)\n"), "{message}");
    for fragment in [
        "\n  line 10: `workload.train.arrivals_per_day` must be a number above 0, got -1",
        "\n  line 33: `pool.spot.price_per_gpu_h` must be a number above 0, got NaN",
        "\n  line 44: `pool.reserved.discount` must be a fraction between 0 and 1, got 2",
    ] {
        assert!(message.contains(fragment), "{fragment}\n{message}");
    }
}

// ---- warnings ------------------------------------------------------------------------------

/// Legal but suspicious scenarios: `validate` succeeds and prints the warning.
const WARNINGS: &[(&str, &str)] = &[
    (
        "unused_pool",
        "warning: pool `reserved` is used by no strategy; add it to a strategy's pools or remove it",
    ),
    (
        "overloaded_owned_only",
        "warning: strategy `reserved` has owned capacity of about 8 GPUs but the workloads offer about 56 GPUs of load by the end of the horizon and does not burst to an elastic pool: the queue grows without bound, and jobs still waiting at the end are reported as jobs_unfinished",
    ),
    (
        "overloaded_at_own_speed",
        "warning: strategy `s` has owned capacity of about 4 GPUs but the workloads offer about 5 GPUs of load and does not burst",
    ),
    (
        "warmup_longer_than_horizon",
        "warning: warmup_days = 40 covers the whole horizon of 1 month(s): no job is counted",
    ),
    (
        "large_run",
        "warning: this run is large: about 7.3e9 jobs (73,060,000 per replication and strategy, 50 replications x 2 strategies), roughly 3e10 events, which takes hours; try --replications 3",
    ),
    (
        "zero_nodes",
        "warning: pool `dgx` has nodes = 0: it adds no capacity (fine as the first point of a sweep over node counts)",
    ),
    (
        "gang_bigger_than_owned",
        "warning: workload `train` has jobs of up to 24 GPUs, more than any owned or reserved pool of strategy `hybrid` holds (`dgx` has 16 GPUs): under that strategy they always run on elastic pools",
    ),
    (
        "trace_jobs_left_out",
        "warning: workload `train`: 4 of the 9 jobs in tests/data/traces/slurm.txt are not replayed: 2 never started, 1 were still running or pending when the trace was taken, 1 asked for no GPU",
    ),
    (
        "deadline_infeasible",
        "warning: workload `train`: about 22.3 % of its jobs (69 per replication) take longer than its deadline_h = 3 h on every pool that can hold them, even under strategy `cloud`; they cannot be on time and are counted as infeasible (deadline_infeasible), not late",
    ),
    (
        "elastic_never_reached",
        "warning: strategy `hybrid` has burst_after_wait_h = \"never\": its elastic pools are never used",
    ),
    (
        "spot_without_checkpoints",
        "warning: workload `train` has no checkpoint and its jobs take about 2.000 h, but spot pool `spot` loses a node every 0.050 h on average",
    ),
];

#[test]
fn suspicious_input_gets_a_warning_that_suggests_the_fix() {
    for (name, fragment) in WARNINGS {
        let file = format!("tests/data/warn/{name}.toml");
        let output = fleetsim(&["validate", &file]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{file}: {message}");
        assert!(
            message.contains(fragment),
            "{file}: lacks\n{fragment}\n{message}"
        );
    }
}

fn csv_column(path: &Path, column: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let index = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap();
    reader
        .records()
        .map(|r| r.unwrap()[index].to_string())
        .collect()
}

/// A fleet too small for its load: the queue grows without bound; the run continues and reports
/// unfinished jobs. With mixed gang sizes and backfill it once took hours (every scheduling pass
/// walked the whole queue); now it takes a fraction of a second.
#[test]
fn an_overloaded_owned_only_run_finishes_and_reports_unfinished_jobs() {
    let dir = temp_dir("overloaded");
    let out = dir.join("out");
    let started = Instant::now();
    let output = fleetsim(&[
        "run",
        "tests/data/warn/overloaded_owned_only.toml",
        "--out",
        &out.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
    assert!(stderr(&output).contains("the queue grows without bound"));
    let unfinished = csv_column(&out.join("replications.csv"), "jobs_unfinished");
    assert!(!unfinished.is_empty());
    for n in unfinished {
        assert!(n.parse::<u64>().unwrap() > 10_000, "{n} unfinished jobs");
    }
}

// ---- runs that cannot end --------------------------------------------------------------------

fn run_small_with(name: &str, sets: &[&str]) -> (Output, PathBuf) {
    let dir = temp_dir(name);
    let out = dir.join("out");
    let mut args = vec![
        "run".to_string(),
        SMALL.to_string(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "--quiet".into(),
    ];
    for set in sets {
        args.push("--set".into());
        args.push((*set).to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (fleetsim(&args), out)
}

#[test]
fn preemptions_that_never_let_a_job_finish_use_up_the_event_budget_with_a_diagnosis() {
    let (output, out) = run_small_with(
        "tiny-mean-h",
        &[
            "pool.spot.preemption.mean_h=0.001",
            "horizon_months=12",
            "max_events=2000000",
        ],
    );
    assert_refused(
        &output,
        1,
        "the event budget of 2000000 events per replication was used up at",
        "tiny preemption.mean_h",
    );
    let message = stderr(&output);
    assert!(
        message.contains("spot nodes had been preempted"),
        "{message}"
    );
    assert!(message.contains("raise `max_events`"), "{message}");
    assert!(!out.exists(), "a failed run left {}", out.display());
}

#[test]
fn a_queue_that_grows_without_bound_stops_at_max_queued_jobs() {
    let (output, out) = run_small_with(
        "queue-bound",
        &[
            "max_queued_jobs=500",
            "horizon_months=12",
            "workload.train.arrivals_per_day=100",
            "strategy.hybrid.burst_after_wait_h=never",
        ],
    );
    assert_refused(
        &output,
        1,
        "strategy `hybrid`, replication 0: 501 jobs were waiting at once at",
        "queue bound",
    );
    assert!(
        stderr(&output).contains("raise `max_queued_jobs` (now 500) in the scenario"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
}

#[test]
fn a_scheduler_that_walks_long_queues_at_every_event_is_stopped_with_a_message() {
    // 20,000 jobs a day that may burst only after 100 h, to a spot pool refusing 60 % of
    // requests in office hours: tens of thousands of jobs retry every 15 minutes. The work bound
    // follows max_events, set low here to keep the test short.
    let (output, out) = run_small_with(
        "scheduler-work",
        &[
            "horizon_months=3",
            "workload.train.arrivals_per_day=20000",
            "workload.train.gpus={ 1 = 0.5, 8 = 0.5 }",
            "strategy.hybrid.burst_after_wait_h=100",
            "strategy.hybrid.queue=backfill",
            "strategy.reserved.burst_after_wait_h=100",
            "strategy.reserved.queue=backfill",
            "max_events=3000000",
        ],
    );
    assert_refused(
        &output,
        1,
        "many waiting jobs keep asking pools that refuse them (again every availability.retry_h)",
        "scheduler work",
    );
    assert!(!out.exists());
}

// ---- outputs ---------------------------------------------------------------------------------

#[test]
fn a_folder_of_another_scenario_is_kept_unless_forced() {
    let dir = temp_dir("another");
    let out = dir.join("out");
    let out_text = out.to_string_lossy().into_owned();
    let first = fleetsim(&["run", SMALL, "--out", &out_text, "--quiet"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let before = std::fs::read(out.join("summary.csv")).unwrap();
    let other = fleetsim(&[
        "run",
        "tests/data/features.toml",
        "--out",
        &out_text,
        "--quiet",
    ]);
    assert_refused(
        &other,
        1,
        "holds results of another scenario (`bad`); choose another folder with --out, or pass --force to overwrite",
        "another scenario",
    );
    assert_eq!(std::fs::read(out.join("summary.csv")).unwrap(), before);
    // The same scenario may rewrite its own folder; --force overwrites another's.
    let again = fleetsim(&["run", SMALL, "--out", &out_text, "--quiet"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let forced = fleetsim(&[
        "run",
        "tests/data/features.toml",
        "--out",
        &out_text,
        "--quiet",
        "--force",
    ]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    // No temporary file is left anywhere.
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".partial"), "{name} left behind");
    }
}

#[test]
fn a_folder_of_other_files_is_kept_unless_forced() {
    let dir = temp_dir("other-files");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let output = fleetsim(&["run", SMALL, "--out", &dir.to_string_lossy(), "--quiet"]);
    assert_refused(
        &output,
        1,
        "is not empty and holds no fleetsim results; choose another folder with --out, or pass --force",
        "other files",
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn an_output_folder_that_cannot_be_written_is_reported_with_its_path_before_simulating() {
    let dir = temp_dir("unwritable");
    // A folder inside a regular file cannot be created, whoever runs the test.
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = file.join("out");
    let output = fleetsim(&["run", SMALL, "--out", &out.to_string_lossy(), "--quiet"]);
    assert_refused(
        &output,
        1,
        &format!("error: {}: cannot write: ", out.display()),
        "folder in a file",
    );
    // A read-only folder: refused with its path, unless the test runs as root (as CI does),
    // who may write there anyway. Then the run must succeed and write its results: fleetsim
    // decides by trying a write, not by reading permission bits, so it never refuses a
    // folder it can write to (and a read-only mount refuses root's probe like anyone's).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = dir.join("read-only");
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
        let privileged = std::fs::write(read_only.join("probe"), "").is_ok();
        let out = read_only.join("out");
        let output = fleetsim(&[
            "run",
            SMALL,
            "--out",
            &out.to_string_lossy(),
            "--replications",
            "1",
            "--no-charts",
            "--quiet",
        ]);
        if privileged {
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let run_json = std::fs::read_to_string(out.join("run.json")).unwrap_or_default();
            assert!(run_json.contains("\"summary.csv\""), "{run_json}");
        } else {
            assert_refused(
                &output,
                1,
                &format!("error: {}: cannot write: Permission denied", out.display()),
                "read-only folder",
            );
            assert!(!out.exists(), "{} created", out.display());
        }
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Ctrl-C stops a long run promptly with exit code 130 and a message, and leaves no result:
/// neither files nor the folder it would have created.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_and_writes_nothing() {
    let dir = temp_dir("ctrl-c");
    let out = dir.join("out");
    // Long enough to be running when the signal comes (minutes uninterrupted).
    let child = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
        .args([
            "run",
            "--out",
            &out.to_string_lossy(),
            "--replications",
            "100000",
            "--threads",
            "2",
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fleetsim starts");
    std::thread::sleep(Duration::from_millis(1500));
    let signal = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(signal.success());
    let signalled = Instant::now();
    let output = child.wait_with_output().expect("fleetsim ends");
    let message = stderr(&output);
    assert!(
        signalled.elapsed() < Duration::from_secs(10),
        "stopping took {:?}",
        signalled.elapsed()
    );
    assert_eq!(output.status.code(), Some(130), "{message}");
    assert!(
        message.contains("error: interrupted: stopped by Ctrl-C after"),
        "{message}"
    );
    assert!(
        message.contains(&format!("no result was written to {}", out.display())),
        "{message}"
    );
    assert!(!out.exists(), "an interrupted run left {}", out.display());
}

// ---- hostile input -------------------------------------------------------------------------

/// A non-UTF-8 argument (a path, a scenario, `--out`) once panicked in `std::env::args()`:
/// paths are taken as they are, and the message shows them lossily.
#[cfg(unix)]
#[test]
fn non_utf8_arguments_do_not_panic() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("non-utf8");
    let odd = dir.join(OsStr::from_bytes(b"o_\xff"));
    let run = |args: &[&OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_fleetsim"))
            .args(args)
            .output()
            .expect("fleetsim runs")
    };
    let output = run(&[OsStr::new("plot"), odd.as_os_str()]);
    assert_refused(&output, 1, "o_\u{fffd}: no such folder", "plot o_\\xff");
    let output = run(&[OsStr::new("validate"), odd.as_os_str()]);
    assert_refused(
        &output,
        1,
        "o_\u{fffd}: cannot read scenario file",
        "validate",
    );
    // As --out: accepted as a path, the run writes there.
    let output = run(&[
        OsStr::new("run"),
        OsStr::new(SMALL),
        OsStr::new("--out"),
        odd.as_os_str(),
        OsStr::new("--replications"),
        OsStr::new("1"),
        OsStr::new("--no-charts"),
        OsStr::new("--quiet"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(odd.join("run.json").is_file());
}

/// A fifo (or `<(...)`) can be read once: `validate` reads its scenario once, [sweep] table
/// included, instead of printing "valid" and then hanging or failing on a second read.
#[cfg(unix)]
#[test]
fn a_scenario_from_a_fifo_or_process_substitution_is_read_once() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("scenario.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let text = std::fs::read("tests/data/tiny-sweep.toml").unwrap();
            std::fs::write(fifo, text).unwrap();
        })
    };
    let output = fleetsim(&["validate", &fifo.to_string_lossy()]);
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(": valid: "), "{stdout}");
    assert!(stdout.contains("[sweep]: 9 points"), "{stdout}");
    // Process substitution, through bash.
    let output = Command::new("bash")
        .args([
            "-c",
            &format!(
                "{} validate <(cat tests/data/tiny-sweep.toml)",
                env!("CARGO_BIN_EXE_fleetsim")
            ),
        ])
        .output()
        .expect("bash runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("[sweep]: 9 points"));
}

/// Seeds are u64 in the command line, the file (above i64::MAX as a string, as TOML needs),
/// `--vary` and run.json, and `validate` and `run` agree on every one.
#[test]
fn seeds_are_u64_everywhere() {
    let dir = temp_dir("seeds");
    let max = u64::MAX.to_string();
    let out = dir.join("cli");
    let output = fleetsim(&[
        "run",
        SMALL,
        "--seed",
        &max,
        "--out",
        &out.to_string_lossy(),
        "--replications",
        "1",
        "--no-charts",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run_json = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(
        run_json.contains(&format!("\"seed\": {max},")),
        "{run_json}"
    );
    // In the file, as a string: the same for validate and run, with or without --set.
    let file = dir.join("big-seed.toml");
    let text = std::fs::read_to_string(SMALL)
        .unwrap()
        .replace("seed = 1", "seed = \"9223372036854775808\"");
    std::fs::write(&file, text).unwrap();
    let file = file.to_string_lossy().into_owned();
    for args in [
        vec!["validate", &file],
        vec!["validate", &file, "--set", "replications=1"],
    ] {
        let output = fleetsim(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let out = dir.join("file");
    let output = fleetsim(&[
        "run",
        &file,
        "--out",
        &out.to_string_lossy(),
        "--replications",
        "1",
        "--no-charts",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Swept, and given to a sweep: the big values go through.
    let out = dir.join("sweep");
    let output = fleetsim(&[
        "sweep",
        SMALL,
        "--vary",
        "seed=1,9223372036854775808",
        "--replications",
        "1",
        "--out",
        &out.to_string_lossy(),
        "--no-charts",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let sweep_csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(
        sweep_csv.contains("\n1,9223372036854775808,"),
        "{sweep_csv}"
    );
    let out = dir.join("sweep-seed");
    let output = fleetsim(&[
        "sweep",
        SMALL,
        "--vary",
        "pool.dgx.nodes=1",
        "--seed",
        &max,
        "--replications",
        "1",
        "--out",
        &out.to_string_lossy(),
        "--no-charts",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Two commands into one folder at once mixed their files: the second refuses at once,
/// naming the folder and the process that holds it.
#[cfg(unix)]
#[test]
fn a_folder_being_written_is_refused_to_a_second_command() {
    let dir = temp_dir("locked");
    let out = dir.join("out");
    let out_text = out.to_string_lossy().into_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
        .args([
            "run",
            "--out",
            &out_text,
            "--replications",
            "100000",
            "--threads",
            "1",
            "--quiet",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fleetsim starts");
    let started = Instant::now();
    while !out.join(".fleetsim.lock").exists() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = child.id().to_string();
    let second = fleetsim(&["run", SMALL, "--out", &out_text, "--quiet"]);
    let sweep = fleetsim(&[
        "sweep",
        SMALL,
        "--vary",
        "pool.dgx.nodes=1",
        "--out",
        &out_text,
        "--quiet",
    ]);
    let merge = fleetsim(&["merge", &dir.to_string_lossy(), "--out", &out_text]);
    // Charts and the report drawn beside a run still writing could be the old run's.
    let plot = fleetsim(&["plot", &out_text]);
    let report = fleetsim(&["report", &out_text]);
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let first = child.wait().expect("fleetsim ends");
    assert_eq!(first.code(), Some(130));
    for (what, output) in [
        ("run", second),
        ("sweep", sweep),
        ("merge", merge),
        ("plot", plot),
        ("report", report),
    ] {
        assert_refused(
            &output,
            1,
            &format!("error: {out_text}: another fleetsim is writing to this folder (pid {pid}: "),
            what,
        );
        assert!(
            stderr(&output).contains("wait for it to end, or choose another folder with --out"),
            "{what}: {}",
            stderr(&output)
        );
    }
    assert!(
        !out.exists(),
        "the interrupted run removed the folder it created"
    );
}

/// Same name, another scenario (a file, or `--set` values): refused without --force, so
/// parallel `run --set` jobs of one scenario cannot overwrite each other (item 5).
#[test]
fn a_folder_of_the_same_name_but_another_scenario_is_kept_unless_forced() {
    let dir = temp_dir("same-name");
    let out = dir.join("out");
    let out_text = out.to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["run", "--out", &out_text, "--quiet", "--no-charts"];
        all.extend_from_slice(args);
        fleetsim(&all)
    };
    let first = run(&[SMALL]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let before = std::fs::read(out.join("summary.csv")).unwrap();
    let other = dir.join("other.toml");
    let text = std::fs::read_to_string(SMALL)
        .unwrap()
        .replace("nodes = 2", "nodes = 3");
    std::fs::write(&other, text).unwrap();
    let refused = run(&[&other.to_string_lossy()]);
    assert_refused(
        &refused,
        1,
        &format!(
            "error: {out_text}: holds results of scenario `bad` with other settings (`pool.dgx.nodes` differs); choose another folder with --out, or pass --force to replace them"
        ),
        "another file of the same name",
    );
    let refused = run(&[SMALL, "--set", "pool.dgx.nodes=3", "--replications", "3"]);
    assert_refused(
        &refused,
        1,
        "with other settings (`pool.dgx.nodes`, `replications` differ)",
        "--set",
    );
    assert_eq!(std::fs::read(out.join("summary.csv")).unwrap(), before);
    let again = run(&[SMALL]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let forced = run(&[&other.to_string_lossy(), "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

/// A run removes the files of the previous run it does not write again, and only those the
/// previous run's manifest lists: a user's `jobs.csv` stays (item 6).
#[test]
fn a_run_removes_only_files_the_previous_run_wrote() {
    let dir = temp_dir("stale");
    let out = dir.join("out");
    let out_text = out.to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["run", SMALL, "--out", &out_text, "--quiet"];
        all.extend_from_slice(args);
        let output = fleetsim(&all);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    };
    run(&["--no-charts"]);
    std::fs::write(out.join("jobs.csv"), "mine").unwrap();
    std::fs::write(out.join("cumulative_cost.png"), "mine too").unwrap();
    run(&["--no-charts"]);
    assert_eq!(
        std::fs::read_to_string(out.join("jobs.csv")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("cumulative_cost.png")).unwrap(),
        "mine too"
    );
    // fleetsim's own jobs.csv and charts go when a later run does not write them.
    run(&["--trace"]);
    let run_json = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(run_json.contains("\"name\": \"jobs.csv\""), "{run_json}");
    assert!(run_json.contains("\"fnv1a\": "), "{run_json}");
    assert!(out.join("pool_gpus.svg").is_file());
    run(&["--no-charts"]);
    assert!(!out.join("jobs.csv").exists());
    assert!(!out.join("pool_gpus.svg").exists());
}

/// Starts fleetsim with `args`, waits until `ready` holds (or 20 s), sends `signal` and returns
/// the output and how long fleetsim took to stop.
#[cfg(unix)]
fn signalled(args: &[&str], ready: impl Fn() -> bool, signal: &str) -> (Output, Duration) {
    let child = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fleetsim starts");
    let started = Instant::now();
    while !ready() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let signalled = Instant::now();
    let output = child.wait_with_output().expect("fleetsim ends");
    (output, signalled.elapsed())
}

/// Every file under `dir` whose name ends with `.partial`.
fn partials(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(partials(&path));
            } else if path.to_string_lossy().ends_with(".partial") {
                found.push(path);
            }
        }
    }
    found
}

/// SIGINT, SIGTERM and SIGHUP stop every stage within about a second, with 128 + the signal
/// (130, 143, 129), no `.partial` left and no folder the command created
/// (SIGTERM and SIGHUP once left an empty folder, Ctrl-C during charts was ignored, and a sweep
/// stopped by Ctrl-C exited 1).
#[cfg(unix)]
#[test]
fn signals_stop_every_stage_with_their_exit_code() {
    let dir = temp_dir("signals");
    let long_run = |out: &Path| -> Vec<String> {
        [
            "run",
            "--out",
            &out.to_string_lossy(),
            "--replications",
            "100000",
            "--threads",
            "2",
            "--quiet",
        ]
        .map(String::from)
        .to_vec()
    };
    // While simulating: TERM and HUP as INT (tested above).
    for (signal, code, name) in [("TERM", 143, "SIGTERM"), ("HUP", 129, "SIGHUP")] {
        let out = dir.join(format!("run-{signal}"));
        let args = long_run(&out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let lock = out.join(".fleetsim.lock");
        let (output, took) = signalled(&args, || lock.exists(), signal);
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert!(took < Duration::from_secs(3), "{signal}: {took:?}");
        assert!(
            stderr(&output).contains(&format!("interrupted: stopped by {name} after")),
            "{}",
            stderr(&output)
        );
        assert!(!out.exists(), "{signal} left {}", out.display());
    }
    // While drawing charts (which take a fraction of a second now, so the signal may come
    // after the last: both ends are whole): a stop writes no chart and keeps the CSV files.
    // `charts::chart_drawing_stops_when_asked` stops it for certain.
    let out = dir.join("charts");
    let done = fleetsim(&[
        "run",
        "--out",
        &out.to_string_lossy(),
        "--no-charts",
        "--quiet",
    ]);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let (output, took) = signalled(
        &["plot", &out.to_string_lossy()],
        || {
            std::thread::sleep(Duration::from_millis(30));
            true
        },
        "INT",
    );
    assert!(took < Duration::from_secs(2), "charts: {took:?}");
    let charts = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            let name = e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .into_owned();
            name.ends_with(".png") || name.ends_with(".svg")
        })
        .count();
    match output.status.code() {
        // Stopped while drawing the charts, or (later) while writing the report.
        Some(130) if charts == 0 => assert!(
            stderr(&output).contains("stopped while drawing the charts; no chart file was written"),
            "{}",
            stderr(&output)
        ),
        Some(130) => {
            assert!(
                stderr(&output).contains("stopped while writing report.html; it was not written"),
                "{}",
                stderr(&output)
            );
            assert_eq!(charts, 14);
        }
        Some(0) => assert_eq!(charts, 14),
        other => panic!(
            "plot stopped by SIGINT exited {other:?}: {}",
            stderr(&output)
        ),
    }
    assert!(partials(&out).is_empty(), "{:?}", partials(&out));
    assert!(out.join("summary.csv").exists());
    // A sweep: 130, and the points written stay for --resume.
    let out = dir.join("sweep");
    let lock = out.join(".fleetsim.lock");
    let (output, took) = signalled(
        &[
            "sweep",
            "scenarios/hybrid-vs-cloud.toml",
            "--vary",
            "pool.dgx.nodes=0..16:2",
            "--out",
            &out.to_string_lossy(),
            "--quiet",
        ],
        || lock.exists(),
        "INT",
    );
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(took < Duration::from_secs(3), "sweep: {took:?}");
    assert!(
        stderr(&output).contains("--resume to finish"),
        "{}",
        stderr(&output)
    );
    assert!(partials(&out).is_empty(), "{:?}", partials(&out));
    assert!(!lock.exists(), "the lock file is removed");
    // Reading a scenario from a fifo nobody writes blocks: nothing to clean up, so it ends at
    // once. (A trace is never read from a fifo: `fit` refuses one without waiting.)
    let fifo = dir.join("never.csv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let started = Instant::now();
    let fit = fleetsim(&["fit", fifo.to_str().unwrap(), "--format", "csv"]);
    assert_refused(
        &fit,
        1,
        "is a fifo (a named pipe), not a regular file",
        "fit",
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "fit waited on the fifo"
    );
    let args = ["validate", fifo.to_str().unwrap()];
    let (output, took) = signalled(
        &args,
        || {
            std::thread::sleep(Duration::from_millis(500));
            true
        },
        "TERM",
    );
    assert_eq!(output.status.code(), Some(143), "{}", stderr(&output));
    assert!(took < Duration::from_secs(2), "validate: {took:?}");
}

/// A full disk under stdout is an error with its reason and exit code 1, never a panic (exit
/// 101): `validate`, `run`'s summary and `schema` alike. The result files are still written.
#[test]
fn stdout_on_a_full_disk_is_an_error_not_a_panic() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    if full().is_err() {
        crate::common::skip_or_fail("no /dev/full to write stdout to");
        return;
    }
    let dir = temp_dir("stdout-full");
    let out = dir.join("run");
    let commands: [Vec<&str>; 3] = [
        vec!["validate", "scenarios/hybrid-vs-cloud.toml"],
        vec![
            "run",
            "--replications",
            "1",
            "--no-charts",
            "--out",
            out.to_str().unwrap(),
        ],
        vec!["schema"],
    ];
    for args in commands {
        let output = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
            .args(&args)
            .stdout(full().unwrap())
            .output()
            .expect("fleetsim runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error: cannot write to standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    assert!(
        out.join("summary.csv").is_file(),
        "the run's files are written first"
    );
}

/// A reader that goes away (`fleetsim schema | head -1`) ends the command quietly with exit 0:
/// no panic, no message. The schema is larger than a pipe's buffer, so the write that finds
/// the pipe closed always happens.
#[test]
fn a_closed_stdout_pipe_ends_the_command_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleetsim"))
        .arg("schema")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fleetsim starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("the schema begins");
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(String::from_utf8_lossy(&first).starts_with('{'));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "", "a closed pipe is not worth a message");
}

/// `fit --out X --force` and `init X --force` replace only regular files: a fifo (or, as root,
/// a device node such as /dev/full) at X is refused and stays what it was. A `.partial` link
/// planted beside X does not redirect the write into the file it points at.
#[test]
fn force_replaces_only_regular_files_and_follows_no_planted_partial() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("force-regular");
    let fifo = dir.join("pipe.toml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::common::skip_or_fail("no mkfifo to make a fifo with");
        return;
    }
    let fifo_text = fifo.to_str().unwrap();
    let commands = [
        vec![
            "fit",
            "tests/data/traces/acme.csv",
            "--format",
            "acme",
            "--out",
            fifo_text,
            "--force",
        ],
        vec!["init", fifo_text, "--force"],
    ];
    for args in &commands {
        let output = fleetsim(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("is not a regular file"),
            "{args:?}: {stderr}"
        );
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?}: the fifo was replaced");
    }
    // A link planted under the temporary name: the victim keeps its bytes.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let out = dir.join("fitted.toml");
    std::os::unix::fs::symlink(&victim, dir.join("fitted.toml.partial")).unwrap();
    let output = fleetsim(&[
        "fit",
        "tests/data/traces/acme.csv",
        "--format",
        "acme",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# Fitted by")
    );
}

/// `fleetsim ARGS` under a 4 GiB address-space limit, so that a file read whole (a link to
/// `/dev/zero`) fails this test instead of exhausting the machine.
fn fleetsim_bounded(args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4194304; exec {} {}",
            env!("CARGO_BIN_EXE_fleetsim"),
            quoted.join(" ")
        ))
        .output()
        .expect("bash runs")
}

/// Copies the result folder `from` to `to`, then replaces `file` in it with a link to
/// `/dev/zero` (`size: None`) or a sparse file of `size` bytes.
fn damaged_copy(from: &Path, to: &Path, file: &str, size: Option<u64>) {
    let copied = Command::new("cp").arg("-r").arg(from).arg(to).status();
    assert!(copied.unwrap().success());
    let path = to.join(file);
    std::fs::remove_file(&path).unwrap();
    match size {
        None => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
        Some(bytes) => std::fs::File::create(&path)
            .unwrap()
            .set_len(bytes)
            .unwrap(),
    }
}

/// Files read back from a result folder (by `report`, `plot`, `merge`, `sweep --resume` and
/// so `claims --only`) are read only if they are regular files and no larger than such a file
/// can be: a link to `/dev/zero` or a 300 MiB table is refused by name, not read to the end of
/// memory.
#[test]
fn files_read_back_must_be_regular_and_of_a_bounded_size() {
    let dir = temp_dir("read-back");
    let run = dir.join("run");
    let made = fleetsim(&["run", SMALL, "--out", run.to_str().unwrap(), "--quiet"]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let device = "is a device, not a regular file";
    let too_large = "is larger than the 256 MiB fleetsim reads of such a file";
    let cases = [
        ("teams.csv", None, "report", device),
        ("summary.csv", None, "plot", device),
        ("summary.csv", Some(300 << 20), "report", too_large),
        ("monthly.csv", Some(300 << 20), "plot", too_large),
        ("run.json", None, "plot", device),
        (
            "run.json",
            Some(65 << 20),
            "report",
            "is larger than the 64 MiB",
        ),
    ];
    for (i, (file, size, command, fragment)) in cases.into_iter().enumerate() {
        let copy = dir.join(format!("run-{i}"));
        damaged_copy(&run, &copy, file, size);
        let output = fleetsim_bounded(&[command, copy.to_str().unwrap()]);
        let what = format!("{command} with {file} {size:?}");
        assert_refused(
            &output,
            1,
            &format!("{file}: cannot read: {fragment}"),
            &what,
        );
    }
    let sweep = dir.join("sweep");
    let sweep_text = sweep.to_str().unwrap();
    let scenario = "tests/data/tiny-sweep.toml";
    let made = fleetsim(&[
        "sweep",
        scenario,
        "--out",
        sweep_text,
        "--quiet",
        "--no-charts",
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let copy = dir.join("sweep-json");
    damaged_copy(&sweep, &copy, "sweep.json", None);
    let copy_text = copy.to_str().unwrap();
    let merged = dir.join("merged");
    for args in [
        vec!["report", copy_text],
        vec!["plot", copy_text],
        vec!["merge", copy_text, "--out", merged.to_str().unwrap()],
    ] {
        let output = fleetsim_bounded(&args);
        assert_refused(
            &output,
            1,
            &format!("sweep.json: cannot read: {device}"),
            args[0],
        );
    }
    let resumed = fleetsim_bounded(&["sweep", scenario, "--out", copy_text, "--resume", "--quiet"]);
    let fragment = format!("its sweep.json cannot be read: {device}");
    assert_refused(&resumed, 1, &fragment, "sweep --resume");
    // A point's file that cannot be read is simulated again, and said so.
    let copy = dir.join("sweep-point");
    damaged_copy(&sweep, &copy, "points/000/summary.csv", None);
    let copy_text = copy.to_str().unwrap();
    let args = [
        "sweep",
        scenario,
        "--out",
        copy_text,
        "--resume",
        "--quiet",
        "--no-charts",
    ];
    let resumed = fleetsim_bounded(&args);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let said = format!("points/000/summary.csv: cannot be read: {device}; simulating point 000");
    assert!(stderr(&resumed).contains(&said), "{}", stderr(&resumed));
    assert!(
        std::fs::symlink_metadata(copy.join("points/000/summary.csv"))
            .unwrap()
            .is_file()
    );
}

/// Traces are read once, where they lie, and only from regular files: a fifo (or a device)
/// named as a trace is refused at once by `run`, `sweep` and `fit`, never waited on.
#[test]
fn a_trace_that_is_a_fifo_or_a_device_is_refused_without_waiting() {
    let dir = temp_dir("trace-fifo");
    let fifo = dir.join("spot.csv");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success(), "mkfifo failed");
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.csv")).unwrap();
    let scenario = std::fs::read_to_string(SMALL).unwrap();
    for trace in ["spot.csv", "zero.csv"] {
        let text = format!(
            "{scenario}\n[[pool]]\nname = \"traced\"\ntype = \"spot\"\ngpu = \"H100\"\n\
             gpus_per_node = 8\nprice_per_gpu_h = 1.0\navailability_trace = \"{trace}\"\n"
        );
        let path = dir.join(format!("with-{trace}.toml"));
        std::fs::write(&path, text).unwrap();
        let path_text = path.to_str().unwrap();
        let out = dir.join("out");
        let out_text = out.to_str().unwrap();
        for args in [
            vec!["validate", path_text],
            vec!["run", path_text, "--out", out_text, "--quiet"],
            vec![
                "sweep",
                path_text,
                "--vary",
                "pool.traced.price_per_gpu_h=1,2",
                "--out",
                out_text,
                "--quiet",
            ],
        ] {
            let started = Instant::now();
            let output = fleetsim_bounded(&args);
            let what = format!("{} with {trace}", args[0]);
            assert_refused(
                &output,
                1,
                "not a regular file; save the trace to a file",
                &what,
            );
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{what}: waited"
            );
            assert!(!out.exists(), "{what}: left a folder");
        }
    }
}

#[test]
fn keys_nested_past_the_reader_and_huge_lines_get_a_line_and_a_short_echo() {
    let dir = temp_dir("toml-deep");
    let scenario = std::fs::read_to_string(SMALL).unwrap();
    let lines_before = scenario.lines().count();
    let deep = "a.".repeat(100_000);
    let cases = [
        ("dotted", format!("{scenario}{deep}b = 1\n")),
        ("header", format!("{scenario}[{deep}b]\nc = 1\n")),
        (
            "array",
            format!(
                "{scenario}x = {}{}\n",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
        ),
    ];
    for (name, text) in cases {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        let output = fleetsim(&["validate", path.to_str().unwrap()]);
        let line = format!("line {}", lines_before + 1);
        assert_refused(&output, 1, &line, name);
        let longest = stderr(&output).lines().map(str::len).max().unwrap();
        assert!(longest < 400, "{name}: a line of {longest} bytes echoed");
    }
}

#[test]
fn a_sweep_csv_cut_at_a_row_end_is_refused_by_plot_and_report() {
    let dir = temp_dir("sweep-cut");
    let out = dir.join("sweep");
    let out_text = out.to_str().unwrap();
    let sweep = [
        "sweep",
        SMALL,
        "--vary",
        "pool.dgx.nodes=1,2,3",
        "--replications",
        "2",
        "--out",
        out_text,
        "--quiet",
        "--no-charts",
    ];
    assert!(fleetsim(&sweep).status.success());
    let csv = out.join("sweep.csv");
    let whole = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = whole.lines().collect();
    // The header and the first point's rows: a well-formed file of a one-point sweep.
    let first_point = rows.iter().take_while(|r| !r.starts_with("1,")).count();
    std::fs::write(&csv, rows[..first_point].join("\n") + "\n").unwrap();
    for command in ["plot", "report"] {
        let output = fleetsim(&[command, out_text]);
        assert_refused(
            &output,
            1,
            "lacks rows of 2 of the 3 points sweep.json lists (001, 002)",
            command,
        );
    }
    assert!(
        !out.join("sweep_frontier.png").exists(),
        "plot drew a chart"
    );
    let mut resume = sweep.to_vec();
    resume.push("--resume");
    assert!(fleetsim(&resume).status.success());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), whole);
}
