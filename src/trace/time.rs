//! Times in traces: RFC 3339 timestamps, dates and times without a zone (read in
//! `trace_timezone`, UTC by default), seconds from the trace's start, and Slurm's elapsed
//! times (`[D-]HH:MM:SS`).

use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};

use super::Stamp;

/// The time zone of times written without one: a spec that can key a cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TimeZoneSpec {
    #[default]
    Utc,
    /// An IANA name (`Europe/Berlin`), from jiff's bundled database.
    Named(String),
    /// A fixed offset from UTC, seconds east.
    Fixed(i32),
}

impl TimeZoneSpec {
    /// `"UTC"`, `"Europe/Berlin"` or `"+02:00"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("utc") || text == "Z" {
            return Ok(TimeZoneSpec::Utc);
        }
        if let Some(sign) = text.chars().next().filter(|c| *c == '+' || *c == '-') {
            let rest = &text[1..];
            let (hours, minutes) = rest.split_once(':').unwrap_or((rest, "0"));
            match (hours.parse::<i32>(), minutes.parse::<i32>()) {
                (Ok(h), Ok(m)) if (0..=18).contains(&h) && (0..60).contains(&m) => {
                    let seconds = (h * 3600 + m * 60) * if sign == '-' { -1 } else { 1 };
                    return Ok(TimeZoneSpec::Fixed(seconds));
                }
                _ => {
                    return Err(format!(
                        "must be a time zone such as \"UTC\", \"Europe/Berlin\" or \"+02:00\", got \"{text}\""
                    ));
                }
            }
        }
        match TimeZone::get(text) {
            Ok(_) => Ok(TimeZoneSpec::Named(text.to_string())),
            Err(_) => Err(format!(
                "names no time zone fleetsim knows: \"{text}\"; use an IANA name such as \"Europe/Berlin\" or \"America/New_York\", \"UTC\", or an offset such as \"+02:00\""
            )),
        }
    }

    pub fn time_zone(&self) -> TimeZone {
        match self {
            TimeZoneSpec::Utc => TimeZone::UTC,
            TimeZoneSpec::Named(name) => TimeZone::get(name).expect("checked when parsed"),
            TimeZoneSpec::Fixed(seconds) => {
                TimeZone::fixed(Offset::from_seconds(*seconds).expect("checked when parsed"))
            }
        }
    }

    pub fn name(&self) -> String {
        match self {
            TimeZoneSpec::Utc => "UTC".to_string(),
            TimeZoneSpec::Named(name) => name.clone(),
            TimeZoneSpec::Fixed(seconds) => {
                let sign = if *seconds < 0 { '-' } else { '+' };
                let s = seconds.abs();
                format!("{sign}{:02}:{:02}", s / 3600, s % 3600 / 60)
            }
        }
    }
}

/// What a time may be written as, for messages.
pub const TIME_FORMS: &str = "a date and time (2024-05-01T10:00:00Z in RFC 3339, or 2024-05-01 10:00:00 in trace_timezone, UTC by default) or seconds from the trace's start";

/// Parses a time. Numbers are seconds from the trace's start; RFC 3339 times carry their zone;
/// dates and times without one are in `tz`.
pub fn parse_time(text: &str, tz: &TimeZone) -> Result<Stamp, String> {
    let text = text.trim();
    let first = text.as_bytes().first().copied().unwrap_or(b' ');
    if first.is_ascii_digit() || first == b'-' || first == b'.' || first == b'+' {
        // The fast path: seconds. A date fails here at its first '-'.
        if let Ok(seconds) = text.parse::<f64>() {
            if !seconds.is_finite() {
                return Err(format!("must be {TIME_FORMS}, got {text}"));
            }
            return Ok(Stamp::Relative(seconds));
        }
    }
    if let Ok(timestamp) = text.parse::<jiff::Timestamp>() {
        return Ok(Stamp::Absolute(seconds_of(timestamp)));
    }
    if let Ok(civil) = text.parse::<DateTime>() {
        let ambiguous = tz.to_ambiguous_zoned_datetime(civil);
        // A clock never shows a time the change to summer time skips: the trace's zone is
        // wrong, or the record is. (A time the change back shows twice is read as the first.)
        if let jiff::tz::AmbiguousOffset::Gap { before, after } = ambiguous.offset() {
            return Err(format!(
                "\"{}\" does not exist in {} (its clocks jumped from {before} to {after} then): is trace_timezone right?",
                shorten(text),
                tz.iana_name().unwrap_or("the trace's time zone"),
            ));
        }
        return match ambiguous.compatible() {
            Ok(zoned) => Ok(Stamp::Absolute(seconds_of(zoned.timestamp()))),
            Err(e) => Err(format!("cannot be placed in the time zone: {e}")),
        };
    }
    Err(format!("must be {TIME_FORMS}, got \"{}\"", shorten(text)))
}

/// A time that must be a date (Slurm, Helios, Acme, Philly): seconds since the epoch.
pub fn parse_date_time(text: &str, tz: &TimeZone) -> Result<f64, String> {
    match parse_time(text, tz)? {
        Stamp::Absolute(seconds) => Ok(seconds),
        Stamp::Relative(seconds) => {
            // Some exports write Unix seconds; they are dates too.
            if seconds >= 1e8 {
                Ok(seconds)
            } else {
                Err(format!(
                    "must be a date and time such as 2024-05-01T10:00:00, got {text}"
                ))
            }
        }
    }
}

fn seconds_of(timestamp: jiff::Timestamp) -> f64 {
    timestamp.as_second() as f64 + f64::from(timestamp.subsec_nanosecond()) * 1e-9
}

/// Slurm's elapsed time `[D-]HH:MM:SS`, also `MM:SS` and `MM:SS.mmm`: seconds.
pub fn parse_elapsed(text: &str) -> Result<f64, String> {
    let bad = || {
        format!(
            "must be an elapsed time [D-]HH:MM:SS such as 1-02:03:04 or 00:05:00, got \"{}\"",
            shorten(text)
        )
    };
    let text = text.trim();
    let (days, clock) = match text.split_once('-') {
        Some((days, clock)) => (days.parse::<u64>().map_err(|_| bad())?, clock),
        None => (0, text),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let (hours, minutes, seconds) = match parts.as_slice() {
        [h, m, s] => (*h, *m, *s),
        [m, s] if days == 0 => ("0", *m, *s),
        _ => return Err(bad()),
    };
    let hours: u64 = hours.parse().map_err(|_| bad())?;
    let minutes: u64 = minutes.parse().map_err(|_| bad())?;
    let seconds: f64 = seconds.parse().map_err(|_| bad())?;
    if minutes >= 60 || !(0.0..60.0).contains(&seconds) || (days > 0 && hours >= 24) {
        return Err(bad());
    }
    Ok(days as f64 * 86_400.0 + hours as f64 * 3600.0 + minutes as f64 * 60.0 + seconds)
}

/// At most 40 characters of a value, for messages.
pub fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let short: String = chars.by_ref().take(40).collect();
    if chars.next().is_some() {
        format!("{short}...")
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_every_form() {
        let utc = TimeZone::UTC;
        assert_eq!(parse_time("3600", &utc), Ok(Stamp::Relative(3600.0)));
        assert_eq!(parse_time(" 1.5 ", &utc), Ok(Stamp::Relative(1.5)));
        // 2024-05-01T00:00:00Z is 1714521600 (19844 days since 1970-01-01).
        assert_eq!(
            parse_time("2024-05-01T00:00:00Z", &utc),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0))
        );
        assert_eq!(
            parse_time("2024-05-01T02:00:00+02:00", &utc),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0))
        );
        assert_eq!(
            parse_time("2024-05-01 00:00:00", &utc),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0))
        );
        assert_eq!(
            parse_time("2024-05-01T00:00:30.5", &utc),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0 + 30.5))
        );
        // Berlin is UTC+2 in May.
        let berlin = TimeZoneSpec::parse("Europe/Berlin").unwrap().time_zone();
        assert_eq!(
            parse_time("2024-05-01T02:00:00", &berlin),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0))
        );
        let plus_eight = TimeZoneSpec::parse("+08:00").unwrap();
        assert_eq!(plus_eight, TimeZoneSpec::Fixed(8 * 3600));
        assert_eq!(plus_eight.name(), "+08:00");
        assert_eq!(
            parse_time("2024-05-01 08:00:00", &plus_eight.time_zone()),
            Ok(Stamp::Absolute(19_844.0 * 86_400.0))
        );
        for bad in ["yesterday", "2024-13-01T00:00:00", "inf", "NaN", ""] {
            assert!(parse_time(bad, &utc).is_err(), "{bad}");
        }
        assert!(TimeZoneSpec::parse("Mars/Olympus").is_err());
        assert!(TimeZoneSpec::parse("+25:00").is_err());
    }

    #[test]
    fn a_local_time_the_clocks_skip_is_refused_and_a_repeated_one_read_as_the_first() {
        let berlin = TimeZoneSpec::parse("Europe/Berlin").unwrap().time_zone();
        // 2026-03-29: 02:00 CET became 03:00 CEST; 02:30 never happened.
        let gap = parse_time("2026-03-29 02:30:00", &berlin).unwrap_err();
        assert!(gap.contains("does not exist in Europe/Berlin"), "{gap}");
        // 2026-10-25: 03:00 CEST became 02:00 CET; 02:30 happened twice, first at 00:30 UTC.
        // 2026-10-25T00:30:00Z is 20,751 days and 1,800 s after the epoch.
        assert_eq!(
            parse_time("2026-10-25 02:30:00", &berlin),
            Ok(Stamp::Absolute(20_751.0 * 86_400.0 + 1_800.0))
        );
    }

    #[test]
    fn slurm_elapsed_times() {
        assert_eq!(parse_elapsed("00:00:05"), Ok(5.0));
        assert_eq!(parse_elapsed("01:02:03"), Ok(3723.0));
        assert_eq!(parse_elapsed("1-00:00:01"), Ok(86_401.0));
        assert_eq!(parse_elapsed("12:34"), Ok(754.0));
        assert_eq!(parse_elapsed("00:01.500"), Ok(1.5));
        for bad in ["", "1:2:3:4", "00:61:00", "x", "-1:00:00", "1-25:00:00"] {
            assert!(parse_elapsed(bad).is_err(), "{bad}");
        }
    }
}
