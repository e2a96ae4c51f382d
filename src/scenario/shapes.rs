//! The shapes of the scenario file's fields that serde reads as plain TOML values (a number or
//! a word, a count or a table, a name's characters, a window's grammar), for the JSON Schema:
//! the `schema_with` and `transform` functions that `file.rs`'s types name. Knows the words
//! and limits of [`super::vocabulary`], not the file's types, so `file` can use it without a
//! circle; `schema` assembles the whole.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value as Json, json};

use super::vocabulary::{DAILY_PRESETS, DISTRIBUTIONS};
use crate::names::NAME_CHARS_MAX;

/// A name: the ASCII part of the rule of [`crate::names`] (letters and digits of any script
/// pass the pattern; other non-ASCII characters are refused by `validate` only).
pub fn name(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "minLength": 1,
        "maxLength": NAME_CHARS_MAX,
        "pattern": format!("^{START}({REST}*{FIRST})?$"),
    })
}

/// ASCII characters a name may hold, and which may start or end it (no space there): every
/// printable one but the punctuation the rule refuses.
const FIRST: &str = r"[^\x00-\x20\x7f!-'*,./:-@\[-^`{-~]";
/// The first character: as `FIRST`, and not `+` or `-`, which make a CSV cell a formula.
const START: &str = r"[^\x00-\x20\x7f!-'*+,\-./:-@\[-^`{-~]";
const REST: &str = r"[^\x00-\x1f\x7f!-'*,./:-@\[-^`{-~]";

/// A team: as a name, also `.` and `@` (not a `.` first, not two in a row).
pub fn team(_: &mut SchemaGenerator) -> Schema {
    // X: a character that may start or end a team name; S: one inside (a space too); neither
    // is a dot, and every dot inside is followed by one of them.
    let x = r"[^\x00-\x20\x7f!-'*,./:-?\[-^`{-~]";
    // The first: not `+`, `-` or `@` either (a CSV cell starting so is a formula).
    let first = r"[^\x00-\x20\x7f!-'*+,\-./:-@\[-^`{-~]";
    let s = r"[^\x00-\x1f\x7f!-'*,./:-?\[-^`{-~]";
    json_schema!({
        "type": "string",
        "minLength": 1,
        "maxLength": NAME_CHARS_MAX,
        "pattern": format!("^{first}(({s}|\\.{s})*({x}|\\.{x}?))?$"),
    })
}

/// `start`: a date, YYYY-MM-DD, from 1970 to 2200.
pub fn start(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": r"^(19[7-9][0-9]|2[01][0-9][0-9]|2200)-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
        "examples": ["2027-01-01"],
    })
}

pub fn gpu_speed(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": { "type": "number", "exclusiveMinimum": 0 },
        "default": {},
    })
}

pub fn workload_gpu_speed(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "minProperties": 1,
        "additionalProperties": { "type": "number", "exclusiveMinimum": 0 },
    })
}

/// A workload's `scaling`: speed-up by GPU count.
pub fn scaling(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "minProperties": 1,
        "propertyNames": { "pattern": "^[1-9][0-9]*$" },
        "additionalProperties": { "type": "number", "exclusiveMinimum": 0 },
    })
}

pub fn vary(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "minProperties": 1,
        "additionalProperties": {
            "anyOf": [
                { "type": "array", "minItems": 1 },
                { "type": "string", "minLength": 1 }
            ]
        },
    })
}

pub fn times_h(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": { "type": "number", "minimum": 0 },
    })
}

pub fn daily_profile(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "default": "flat",
        "anyOf": [
            { "type": "string", "enum": DAILY_PRESETS },
            {
                "type": "array",
                "items": { "type": "number", "minimum": 0 },
                "minItems": 24,
                "maxItems": 24
            }
        ]
    })
}

pub fn weekly_profile(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": { "type": "number", "minimum": 0 },
        "minItems": 7,
        "maxItems": 7,
        "default": [1, 1, 1, 1, 1, 1, 1],
    })
}

pub fn gpus(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "integer", "minimum": 1 },
            {
                "type": "object",
                "minProperties": 1,
                "propertyNames": { "pattern": "^[1-9][0-9]*$" },
                "additionalProperties": { "type": "number", "minimum": 0, "maximum": 1 }
            }
        ]
    })
}

/// `duration_h`: hours, or one of the distributions with its parameters.
pub fn duration_h(_: &mut SchemaGenerator) -> Schema {
    let positive = json!({ "type": "number", "exclusiveMinimum": 0 });
    let any_number = json!({ "type": "number" });
    // `required`: the fields every table of this distribution has; `alternatives`: sets of
    // which one must be complete (lognormal: median and p95, or mu and sigma).
    let dist = |name: &str, parameters: &[(&str, &Json)], required: Json, alternatives: Json| {
        let mut properties = Map::new();
        properties.insert("dist".into(), json!({ "const": name }));
        for (parameter, schema) in parameters {
            properties.insert((*parameter).into(), (*schema).clone());
        }
        let mut table = json!({
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        });
        let table_map = table.as_object_mut().expect("an object");
        table_map.insert("required".into(), required);
        if !alternatives.is_null() {
            table_map.insert("anyOf".into(), alternatives);
        }
        table
    };
    let points = json!({
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": { "type": "number", "minimum": 0 }
        }
    });
    let alternatives = vec![
        json!({ "type": "number", "exclusiveMinimum": 0 }),
        dist(
            "fixed",
            &[("value", &positive)],
            json!(["dist", "value"]),
            Json::Null,
        ),
        dist(
            "exponential",
            &[("mean", &positive)],
            json!(["dist", "mean"]),
            Json::Null,
        ),
        dist(
            "lognormal",
            &[
                ("median", &positive),
                ("p95", &positive),
                ("mu", &any_number),
                ("sigma", &positive),
            ],
            json!(["dist"]),
            json!([{ "required": ["median", "p95"] }, { "required": ["mu", "sigma"] }]),
        ),
        dist(
            "gamma",
            &[("mean", &positive), ("cv", &positive)],
            json!(["dist", "mean", "cv"]),
            Json::Null,
        ),
        dist(
            "weibull",
            &[("shape", &positive), ("scale", &positive)],
            json!(["dist", "shape", "scale"]),
            Json::Null,
        ),
        dist(
            "uniform",
            &[
                ("min", &json!({ "type": "number", "minimum": 0 })),
                ("max", &positive),
            ],
            json!(["dist", "min", "max"]),
            Json::Null,
        ),
        dist(
            "empirical",
            &[("points", &points)],
            json!(["dist", "points"]),
            Json::Null,
        ),
    ];
    assert_eq!(
        alternatives.len(),
        DISTRIBUTIONS.len() + 1,
        "every distribution has a shape"
    );
    json_schema!({ "anyOf": alternatives })
}

/// A number of hours above 0, or "auto".
pub fn every_h(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "number", "exclusiveMinimum": 0 },
            { "type": "string", "const": "auto" }
        ]
    })
}

pub fn burst_after_wait_h(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "default": 0,
        "anyOf": [
            { "type": "number", "minimum": 0 },
            { "type": "string", "const": "never" }
        ]
    })
}

/// A workload's own burst threshold: as the strategy's, without a default (absent, the
/// strategy's applies).
pub fn workload_burst_after_wait_h(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "number", "minimum": 0 },
            { "type": "string", "const": "never" }
        ]
    })
}

pub fn priority_aging_h(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "default": 24,
        "anyOf": [
            { "type": "number", "exclusiveMinimum": 0 },
            { "type": "string", "const": "never" }
        ]
    })
}

/// A pattern of `word` in any case, letter by letter (`[Mm][Oo][Nn]`): editors run the
/// schema's patterns as JavaScript regular expressions, which have no inline flags.
pub(super) fn any_case(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                format!("[{}{}]", c.to_ascii_uppercase(), c.to_ascii_lowercase())
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The grammar of [`crate::calendar::WeeklyWindows::parse`] as a pattern: clauses
/// `<days> HH:MM-HH:MM` separated by `;`, each trimmed; the days are `daily`, `weekdays`,
/// `weekends`, or a list (`,`) of days and ranges of days (`mon`, `Monday`, `mon-fri`; any
/// case), and end at the clause's first space; a time has hours 0 to 24 and minutes 0 to 59 (24
/// only as 24:00), each an unsigned integer as Rust parses one (`+` and leading zeros allowed).
/// What a time range means (past midnight) is the parser's affair.
pub(super) fn window_pattern() -> String {
    let days = [
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    let day = format!(
        "(?:{})",
        days.iter()
            .map(|d| any_case(d))
            .collect::<Vec<_>>()
            .join("|")
    );
    // Whitespace but the space that ends the days.
    let pad = r"[^\S ]*";
    let part = format!("{pad}{day}{pad}(?:-{pad}{day}{pad})?");
    let list = format!("(?:daily|weekdays|weekends|{part}(?:,{part})*){pad}");
    let number = |digits: &str| format!(r"\+?0*{digits}");
    let time = format!(
        "(?:{}:{}|{}:{})",
        number("(?:1[0-9]|2[0-3]|[0-9])"),
        number("[0-5]?[0-9]"),
        number("24"),
        r"\+?0+"
    );
    let clause = format!(r"\s*{list} \s*{time}\s*-\s*{time}\s*");
    format!("^{clause}(?:;{clause})*$")
}

/// `availability`: a window (in the grammar of `window_pattern`) or episodes, not both;
/// episodes need their mean length.
pub fn window_or_episodes(schema: &mut Schema) {
    if let Some(Json::Object(window)) = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut("window"))
    {
        window.insert("pattern".into(), json!(window_pattern()));
    }
    schema.insert(
        "not".into(),
        json!({ "required": ["window", "episodes_per_month"] }),
    );
    schema.insert(
        "dependencies".into(),
        json!({ "episodes_per_month": ["episode_mean_h"], "episode_mean_h": ["episodes_per_month"] }),
    );
    push_required(schema, &["shortfall"]);
}

/// `preemption`: waves need the share of nodes they take.
pub fn waves_need_a_fraction(schema: &mut Schema) {
    schema.insert(
        "if".into(),
        json!({ "properties": { "waves_per_month": { "exclusiveMinimum": 0 } }, "required": ["waves_per_month"] }),
    );
    schema.insert("then".into(), json!({ "required": ["wave_fraction"] }));
    push_required(schema, &["mean_h"]);
}

pub(super) fn push_required(schema: &mut Schema, fields: &[&str]) {
    let required = schema
        .ensure_object()
        .entry("required")
        .or_insert_with(|| json!([]));
    if let Json::Array(list) = required {
        for field in fields {
            if !list.iter().any(|f| f == field) {
                list.push(json!(field));
            }
        }
    }
}
