//! Words and limits of the scenario file that the checks, the JSON Schema and its field
//! shapes all use. A leaf of `scenario`, so that none of them needs another for these.

/// Any number above this is a typo (or would overflow sums): 1e15.
pub const NUMBER_MAX: f64 = 1e15;
/// The words of `duration_h.dist`.
pub const DISTRIBUTIONS: [&str; 7] = [
    "fixed",
    "exponential",
    "lognormal",
    "gamma",
    "weibull",
    "uniform",
    "empirical",
];
/// The named `daily_profile`s.
pub const DAILY_PRESETS: [&str; 2] = ["flat", "office-hours"];

/// Words the FOCUS validator's loader reads as null (see docs/finops.md): a provider or a
/// region must not be one of them (in any case; the schema says so too).
pub const NULL_WORDS: [&str; 6] = [
    "NULL",
    "INVALID",
    "INVALID_COST",
    "BAD_DATE",
    "INVALID_DECIMAL",
    "INVALID_INT",
];
