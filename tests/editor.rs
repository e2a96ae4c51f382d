//! Editor support and the shell: `fleetsim schema` against the
//! committed schema, every shipped scenario and the bad files of tests/data/bad validated with
//! an independent JSON Schema validator (the `jsonschema` crate), `fleetsim init`,
//! `fleetsim completions` (driven through bash's completion machinery) and `fleetsim man`.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{Value as Json, json};

use crate::common::{fleetsim, temp_dir};

/// A TOML document as the JSON an editor validates (taplo's mapping: dates become strings).
fn toml_to_json(value: &toml::Value) -> Json {
    match value {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(n) => json!(n),
        // A float that is not finite has no JSON form; taplo refuses it as well.
        toml::Value::Float(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!(d.to_string()),
        toml::Value::Array(items) => Json::Array(items.iter().map(toml_to_json).collect()),
        toml::Value::Table(table) => Json::Object(
            table
                .iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

fn committed_schema() -> Json {
    serde_json::from_str(&fs::read_to_string("docs/scenario.schema.json").unwrap()).unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&committed_schema())
        .unwrap_or_else(|e| panic!("not a valid draft-07 schema: {e} at {}", e.instance_path()))
}

/// The schema's complaints about a TOML file (None: not TOML at all).
fn errors_of(validator: &jsonschema::Validator, path: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(path).unwrap();
    let value: toml::Value = toml::from_str(&text).ok()?;
    let instance = toml_to_json(&value);
    Some(
        validator
            .iter_errors(&instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect(),
    )
}

#[test]
fn the_committed_schema_is_what_fleetsim_schema_prints() {
    let out = fleetsim(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8(out.stdout).unwrap();
    let committed = fs::read_to_string("docs/scenario.schema.json").unwrap();
    assert!(
        printed == committed,
        "docs/scenario.schema.json is stale: run `cargo run --release -- schema > docs/scenario.schema.json`"
    );
    let schema: Json = serde_json::from_str(&printed).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema["title"], "fleetsim scenario");
}

/// Every scenario we ship (and the starters `init` writes) starts with a `#:schema` line
/// naming the committed schema by a path relative to the file, and validates against it.
#[test]
fn every_shipped_scenario_names_the_schema_and_validates() {
    let validator = validator();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in [
        "scenarios",
        "scenarios/claims",
        "assets/templates",
        "tests/data",
    ] {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 13, "{files:?}");
    for path in &files {
        let text = fs::read_to_string(path).unwrap();
        let shipped = !path.starts_with("tests");
        if shipped {
            let first = text.lines().next().unwrap_or_default();
            let target = first
                .strip_prefix("#:schema ")
                .unwrap_or_else(|| panic!("{}: first line is {first:?}", path.display()));
            let schema = path.parent().unwrap().join(target);
            assert_eq!(
                fs::canonicalize(&schema).unwrap(),
                fs::canonicalize("docs/scenario.schema.json").unwrap(),
                "{}",
                path.display()
            );
        }
        let errors = errors_of(&validator, path).expect("TOML");
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
}

/// The resolved scenario in run.json (defaults filled in) is a valid scenario too.
#[test]
fn the_resolved_scenario_of_a_run_validates() {
    let dir = temp_dir("schema-resolved");
    let out = fleetsim(&[
        "run",
        "tests/data/features.toml",
        "--replications",
        "2",
        "--no-charts",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run: Json =
        serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let errors: Vec<String> = validator()
        .iter_errors(&run["scenario"])
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// How the schema treats each bad file of tests/data/bad: the rule it breaks is expressible in
/// JSON Schema (then the schema must refuse the file), or not (then it passes the schema and
/// only `fleetsim validate` refuses it; listed so that a rule the schema learns moves here), or
/// the file is no TOML at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Expressible,
    /// Needs several sections at once, arithmetic, a file's contents or a calendar.
    NotExpressible,
    NotToml,
}

const BAD_FILES: &[(&str, Rule)] = {
    use Rule::*;
    &[
        ("accepts_unknown_gpu", NotExpressible), // GPU types named elsewhere
        ("availability_markov_always", Expressible), // exclusiveMaximum 1
        ("availability_trace_and_markov", Expressible), // not both
        ("availability_trace_bad_gap", NotExpressible), // the trace's contents
        ("checkpoint_every_word", Expressible),  // a number or "auto"
        ("date_in_another_format", Expressible), // YYYY-MM-DD
        ("deadline_safety_without_policy", Expressible), // if deadline_safety_h then the policy
        ("discount_above_one", Expressible),     // maximum 1
        ("duplicate_key", NotToml),
        ("duplicate_pool_name", NotExpressible), // unique by a property
        ("duplicate_strategy_name", NotExpressible),
        ("duplicate_workload_name", NotExpressible),
        ("egress_without_site", Expressible), // if egress above 0 then site
        ("provider_null_word", Expressible),  // not the words FOCUS readers take for null
        ("region_with_slash", Expressible),   // the name pattern
        ("empirical_not_ending_at_one", NotExpressible), // the last point's probability
        ("empty_file", Expressible),          // required fields
        ("empty_pool_list", Expressible),     // minItems 1
        ("field_of_another_pool_type", Expressible), // if type then not the field
        ("gang_never_fits", NotExpressible),  // gangs against pools
        ("gpu_mix_not_summing_to_one", NotExpressible), // a sum
        ("gpu_no_pool_offers", NotExpressible),
        ("huge_number", Expressible),               // maximum 1e15
        ("idle_power_above_power", NotExpressible), // two fields compared
        ("infinite_capex", Expressible),            // inf is no JSON number
        ("lognormal_p95_below_median", NotExpressible),
        ("malformed_date", Expressible),
        ("missing_dist", Expressible),
        ("missing_distribution_parameter", Expressible),
        ("name_outside_folder", Expressible), // pattern
        ("name_too_long", Expressible),       // maxLength
        ("name_with_control", Expressible),
        ("name_with_dot", Expressible),
        ("nan_price", Expressible), // nan is no JSON number
        ("negative_arrivals", Expressible),
        ("negative_duration", Expressible),
        ("negative_electricity", Expressible),
        ("negative_node_count", Expressible),
        ("negative_shortfall", Expressible),
        ("no_strategy", Expressible),
        ("pool_without_name", Expressible),
        ("price_change_and_schedule", Expressible), // not two of the three
        ("price_schedule_bad_month", Expressible),  // pattern YYYY-MM
        ("price_trace_bad_price", NotExpressible),  // the trace's contents
        ("pue_below_one", Expressible),
        ("resale_without_sale_month", Expressible), // dependencies
        ("residual_fraction_above_one", Expressible),
        ("runaway_growth", NotExpressible), // jobs estimated over the horizon
        ("seed_too_large", NotToml),        // an integer TOML cannot hold
        ("service_demand_trace_bad_time", NotExpressible), // the curve's contents
        ("service_gpus_and_demand_trace", Expressible), // oneOf
        ("service_named_like_a_workload", NotExpressible),
        ("service_peak_from_demand_trace", NotExpressible), // the curve's contents
        ("service_peak_from_weekly_profile", NotExpressible), // a product over the horizon
        ("service_replica_larger_than_a_node", NotExpressible),
        ("service_reserve_on_spot", NotExpressible),
        ("service_with_no_pool", NotExpressible),
        ("spot_policy_fallback_without_count", Expressible), // if the policy then its count
        ("spot_without_preemption", Expressible),            // anyOf preemption or capacity
        ("start_out_of_range", Expressible),                 // years 1970-2200
        ("strategy_pool_twice", Expressible),                // uniqueItems
        ("strategy_unknown_pool", NotExpressible),           // a name defined elsewhere
        ("workload_unknown_pool", NotExpressible),           // a name defined elsewhere
        ("instances_and_gpus_per_node", Expressible),        // oneOf gpus_per_node or instances
        ("instances_same_size_twice", NotExpressible),       // unique by one field of each item
        ("instances_reserved_without_nodes", Expressible),   // items required per pool type
        ("instances_with_price_schedule", Expressible),      // refused with instances
        ("instances_on_prem", Expressible),                  // a cloud pool's field
        ("strategy_too_many_pools", NotExpressible),         // a count across tables
        ("workload_pools_outside_strategy", NotExpressible), // a rule across tables
        ("workload_gpu_speed_unknown_type", NotExpressible), // a name defined elsewhere
        ("workload_gpu_speed_missing_type", NotExpressible), // a rule across fields
        ("workload_scaling_efficiency_out_of_range", Expressible), // exclusiveMinimum 0.5
        ("workload_min_gpus_above_max_gpus", NotExpressible), // a comparison of two fields
        ("workload_scaling_without_asked_count", NotExpressible), // a rule across fields
        ("workload_scaling_on_trace", NotExpressible),       // a rule across fields
        ("strategy_without_pools", Expressible),             // required
        ("syntax_unclosed_header", NotToml),
        ("syntax_unquoted_value", NotToml),
        ("team_formula", Expressible), // not `+`, `-` or `@` first
        ("team_with_slash", Expressible),
        ("too_many_busy_gpus", NotExpressible), // an estimate
        ("too_many_jobs", NotExpressible),
        ("trace_binary", NotExpressible), // the trace's contents
        ("trace_gang_too_large", NotExpressible),
        ("trace_missing_column", NotExpressible),
        ("trace_missing_file", NotExpressible),
        ("trace_negative_duration", NotExpressible),
        ("trace_sacct_read_as_csv", NotExpressible),
        ("trace_team_with_escape", NotExpressible),
        ("trace_team_formula", NotExpressible),
        ("trace_too_short_for_bootstrap", NotExpressible),
        ("trace_unknown_format", Expressible), // enum
        ("trace_unknown_gpu", NotExpressible),
        ("trace_unknown_time_zone", NotExpressible), // the time-zone database
        ("trace_unparsable_time", NotExpressible),
        ("trace_with_rates", Expressible), // a trace excludes rates
        ("trace_zero_gpus", NotExpressible),
        ("unknown_baseline", NotExpressible),
        ("unknown_daily_profile", Expressible),
        ("unknown_distribution", Expressible),
        ("unknown_field", Expressible), // additionalProperties false
        ("unknown_field_inline", Expressible),
        ("unknown_pool_type", Expressible),
        ("unknown_queue", Expressible),
        ("unknown_top_level_field", Expressible),
        ("upfront_share_without_partial", Expressible), // if a share then "partial"
        ("wave_fraction_above_one", Expressible),
        ("weekly_profile_too_short", Expressible), // 7 items
        ("window_and_episodes", Expressible),      // not both
        ("window_bad_time", Expressible),          // the window grammar, a pattern
        ("window_unknown_days", Expressible),
        ("workload_formula", Expressible), // not `+` or `-` first
        ("wrong_type_bool", Expressible),
        ("wrong_type_float_count", Expressible),
        ("wrong_type_string", Expressible),
        ("zero_arrivals", Expressible), // exclusiveMinimum 0
        ("zero_deadline", Expressible),
        ("zero_duration", Expressible),
        ("zero_gpus_per_job", Expressible),
        ("zero_gpus_per_node", Expressible),
        ("zero_horizon", Expressible),
        ("zero_max_queued_jobs", Expressible),
        ("zero_mtbf", Expressible),
        ("zero_price", Expressible),
        ("zero_replications", Expressible),
    ]
};

#[test]
fn bad_files_are_refused_by_the_schema_where_the_rule_is_expressible() {
    let validator = validator();
    let mut listed: Vec<&str> = BAD_FILES.iter().map(|(name, _)| *name).collect();
    let mut present: Vec<String> = fs::read_dir("tests/data/bad")
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == "toml")
                .then(|| path.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    present.sort();
    listed.sort();
    assert_eq!(listed, present, "every bad file is classified here");
    let mut wrong = Vec::new();
    for (name, rule) in BAD_FILES {
        let path = Path::new("tests/data/bad").join(format!("{name}.toml"));
        let outcome = errors_of(&validator, &path);
        let fits = match (rule, &outcome) {
            (Rule::NotToml, None) => true,
            (Rule::Expressible, Some(errors)) => !errors.is_empty(),
            (Rule::NotExpressible, Some(errors)) => errors.is_empty(),
            _ => false,
        };
        if std::env::var_os("FLEETSIM_SHOW_SCHEMA_ERRORS").is_some() {
            println!("{name}: {outcome:?}");
        }
        if !fits {
            wrong.push(format!("{name} ({rule:?}): {outcome:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    let expressible = BAD_FILES
        .iter()
        .filter(|(_, r)| *r == Rule::Expressible)
        .count();
    assert!(expressible >= 50, "{expressible}");
}

/// Every field, at every depth, has a description; every field whose name carries a unit has
/// it in `x-unit`; every optional field has a default (a value, or words saying what absence
/// means: "Default: ...").
#[test]
fn every_field_has_a_description_a_unit_and_a_default() {
    fn walk(schema: &Json, path: &str, problems: &mut Vec<String>) {
        let Some(properties) = schema.get("properties").and_then(Json::as_object) else {
            return;
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Json::as_array)
            .map(|r| r.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        for (key, field) in properties {
            let at = format!("{path}{key}");
            let description = field.get("description").and_then(Json::as_str);
            match description {
                None => problems.push(format!("{at}: no description")),
                Some(text) => {
                    let says_default = text.contains("Default:")
                        || text.contains("Required")
                        || field.get("default").is_some();
                    if !required.contains(&key.as_str()) && !says_default {
                        problems.push(format!("{at}: optional but no default: {text}"));
                    }
                    let unit_in_name = ["_h", "_s", "_months", "_days", "_kw", "_kwh", "per_day"]
                        .iter()
                        .any(|suffix| key.ends_with(suffix))
                        || key.contains("_kw_");
                    if unit_in_name && field.get("x-unit").is_none() {
                        problems.push(format!("{at}: no x-unit"));
                    }
                }
            }
            walk(field, &format!("{at}."), problems);
            if let Some(items) = field.get("items") {
                walk(items, &format!("{at}[]."), problems);
            }
        }
    }
    let schema = committed_schema();
    let mut problems = Vec::new();
    walk(&schema, "", &mut problems);
    assert!(problems.is_empty(), "{problems:#?}");
    // Spot checks against docs/scenario.md, by hand.
    let pool = &schema["properties"]["pool"]["items"]["properties"];
    assert_eq!(pool["billing_increment_s"]["default"], json!(1));
    assert_eq!(pool["billing_increment_s"]["x-unit"], json!("seconds"));
    assert_eq!(
        pool["price_per_gpu_h"]["x-unit"],
        json!("currency per GPU-hour")
    );
    assert_eq!(schema["properties"]["replications"]["default"], json!(30));
    assert_eq!(schema["properties"]["seed"]["default"], json!(1));
    let strategy = &schema["properties"]["strategy"]["items"]["properties"];
    assert_eq!(strategy["queue"]["default"], json!("fifo"));
    assert_eq!(strategy["priority_aging_h"]["default"], json!(24));
    let availability = &pool["availability"]["properties"];
    assert_eq!(availability["retry_h"]["default"], json!(0.25));
}

/// The schema's defaults are the ones the checks fill in: a scenario that writes none of the
/// optional fields is resolved (as run.json records it), and every field the resolution adds
/// holds the schema's default.
#[test]
fn the_schema_defaults_are_the_defaults_the_checks_fill_in() {
    let probe = r#"
        start = "2027-01-01"
        horizon_months = 1
        [[workload]]
        name = "w"
        arrivals_per_day = 1
        gpus = 1
        duration_h = 1
        [[service]]
        name = "s"
        gpus = 1
        [[pool]]
        name = "owned"
        type = "on_prem"
        gpu = "H100"
        gpus_per_node = 8
        nodes = 1
        capex_per_node = 1
        amortization_months = 1
        power_kw_per_node = 1
        pue = 1
        electricity_per_kwh = 1
        opex_per_node_month = 1
        [[pool]]
        name = "committed"
        type = "reserved"
        gpu = "H100"
        gpus_per_node = 8
        nodes = 1
        price_per_gpu_h = 1
        discount = 0.1
        term_months = 1
        [[pool]]
        name = "spot"
        type = "spot"
        gpu = "H100"
        gpus_per_node = 8
        price_per_gpu_h = 1
        preemption = { mean_h = 10 }
        availability = { shortfall = 0.5 }
        [[strategy]]
        name = "a"
        pools = ["owned", "committed", "spot"]
    "#;
    let loaded = fleetsim::scenario::load_text(probe, Path::new("probe.toml"), "probe", &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let resolved = serde_json::to_value(&loaded.resolved).unwrap();
    let written: toml::Value = toml::from_str(probe).unwrap();
    let written = toml_to_json(&written);
    let schema = committed_schema();
    let mut compared = Vec::new();
    let mut wrong = Vec::new();
    // (resolved value, what the file wrote, the schema of that object)
    fn walk(
        resolved: &Json,
        written: &Json,
        schema: &Json,
        path: &str,
        compared: &mut Vec<String>,
        wrong: &mut Vec<String>,
    ) {
        let Some(object) = resolved.as_object() else {
            return;
        };
        for (key, value) in object {
            let field = &schema["properties"][key];
            let at = format!("{path}{key}");
            match written.get(key) {
                None => {
                    if let Some(default) = field.get("default") {
                        compared.push(at.clone());
                        let same = match (default.as_f64(), value.as_f64()) {
                            (Some(a), Some(b)) => a == b,
                            _ => default == value,
                        };
                        if !same {
                            wrong.push(format!("{at}: schema {default}, resolved {value}"));
                        }
                    }
                    walk(
                        value,
                        &Json::Null,
                        field,
                        &format!("{at}."),
                        compared,
                        wrong,
                    );
                }
                Some(w) => match (value, w) {
                    (Json::Array(items), Json::Array(written_items)) => {
                        for (item, w) in items.iter().zip(written_items) {
                            walk(
                                item,
                                w,
                                &field["items"],
                                &format!("{at}[]."),
                                compared,
                                wrong,
                            );
                        }
                    }
                    _ => walk(value, w, field, &format!("{at}."), compared, wrong),
                },
            }
        }
    }
    walk(&resolved, &written, &schema, "", &mut compared, &mut wrong);
    assert!(wrong.is_empty(), "{wrong:#?}");
    for expected in [
        "replications",
        "seed",
        "idle_cost",
        "workload[].priority",
        "pool[].placement",
        "pool[].purchase_month",
        "pool[].start_month",
        "pool[].billing_increment_s",
        "pool[].availability.retry_h",
        "strategy[].queue",
        "strategy[].checkpointing",
        "service[].scale_up_h",
        "service[].autoscale_every_h",
    ] {
        assert!(
            compared.iter().any(|c| c == expected),
            "{expected} not compared: {compared:?}"
        );
    }
}

#[test]
fn init_writes_a_starter_that_validates_and_refuses_to_overwrite() {
    let dir = temp_dir("init");
    let validator = validator();
    for template in ["hybrid", "minimal", "inference"] {
        let file = dir.join(format!("{template}-fleet.toml"));
        let out = fleetsim(&["init", file.to_str().unwrap(), "--template", template]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains(&format!("(template `{template}`)")),
            "{stderr}"
        );
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("#:schema scenario.schema.json\n"),
            "{text}"
        );
        assert!(
            text.lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .count()
                > 5
        );
        assert!(errors_of(&validator, &file).unwrap().is_empty());
        let validate = fleetsim(&["validate", file.to_str().unwrap()]);
        assert_eq!(
            validate.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&validate.stderr)
        );
        // The scenario takes its name from the file: results go to output/<file name>/.
        let stdout = String::from_utf8_lossy(&validate.stdout);
        assert!(stdout.contains(": valid:"), "{stdout}");
    }
    // The schema beside them is the committed one, so the `#:schema` line resolves.
    assert_eq!(
        fs::read_to_string(dir.join("scenario.schema.json")).unwrap(),
        fs::read_to_string("docs/scenario.schema.json").unwrap()
    );
    let file = dir.join("minimal-fleet.toml");
    fs::write(&file, "mine").unwrap();
    let out = fleetsim(&["init", file.to_str().unwrap(), "--template", "minimal"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("minimal-fleet.toml: exists; choose another file or add --force"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "mine");
    let out = fleetsim(&[
        "init",
        file.to_str().unwrap(),
        "--template",
        "minimal",
        "--force",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(fs::read_to_string(&file).unwrap().contains("[[strategy]]"));
    // A schema file of the user's is left alone.
    fs::write(dir.join("scenario.schema.json"), "{\"title\": \"theirs\"}").unwrap();
    let out = fleetsim(&["init", dir.join("other.toml").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("scenario.schema.json is kept as it was"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("scenario.schema.json")).unwrap(),
        "{\"title\": \"theirs\"}"
    );
    let out = fleetsim(&["init", "--template", "huge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("use one of: hybrid, minimal, inference"),
        "{stderr}"
    );
    let out = fleetsim(&["init", "--list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("hybrid "), "{stdout}");
}

#[test]
fn completions_complete_commands_and_flags_in_bash() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = fleetsim(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for word in ["sweep", "validate", "report", "replications"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let out = fleetsim(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    // Bash itself, asked for the completions of `fleetsim sw` and `fleetsim run --rep`.
    let dir = temp_dir("completions");
    let script = dir.join("fleetsim.bash");
    fs::write(&script, fleetsim(&["completions", "bash"]).stdout).unwrap();
    let complete = |words: &str| -> Option<String> {
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE=\"{words}\"; COMP_POINT=${{#COMP_LINE}}; _fleetsim fleetsim \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash").args(["-c", &program]).output().ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let Some(commands) = complete("fleetsim sw") else {
        println!("skipped the bash check: no bash");
        return;
    };
    assert_eq!(commands.trim(), "sweep", "{commands}");
    let flags = complete("fleetsim run --rep").unwrap();
    assert_eq!(flags.trim(), "--replications", "{flags}");
}

#[test]
fn man_prints_a_page_and_writes_one_per_command() {
    let out = fleetsim(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH fleetsim 1"), "{page}");
    assert!(page.contains("fleetsim\\-sweep(1)"), "{page}");
    let dir = temp_dir("man");
    let out = fleetsim(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for expected in [
        "fleetsim.1",
        "fleetsim-run.1",
        "fleetsim-sweep.1",
        "fleetsim-report.1",
    ] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    let run = fs::read_to_string(dir.join("fleetsim-run.1")).unwrap();
    assert!(run.contains("\\-\\-replications"), "{run}");
    // groff, where installed, formats it without a warning.
    if let Ok(out) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(dir.join("fleetsim-run.1"))
        .output()
    {
        assert!(out.status.success());
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        println!("skipped the groff check: no groff");
    }
}
