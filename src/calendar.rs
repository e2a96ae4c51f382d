//! Calendar time: hours since the scenario's start (midnight UTC) mapped to calendar months,
//! weekdays and hours of the day, and weekly windows such as "weekdays 09:00-18:00".
//!
//! A leaf utility: it uses no other module of the crate. `scenario` parses windows and builds
//! the calendar with it; the model bills and counts by its months.

use jiff::ToSpan;
use jiff::civil::{Date, Weekday};

pub const HOURS_PER_WEEK: f64 = 168.0;

/// Calendar months of a horizon that starts at midnight UTC of `start`.
#[derive(Debug, Clone)]
pub struct Calendar {
    pub start: Date,
    /// `month_starts_h[m]`: start of month `m`, hours since start; one more entry than months,
    /// the last being the horizon.
    pub month_starts_h: Vec<f64>,
    /// Monday = 0 .. Sunday = 6, of the start date.
    pub start_weekday: u8,
}

impl Calendar {
    /// `months` calendar months from `start`. A start on day d > 1 makes months run from
    /// the d-th to the d-th, clamped to the month's end (Jan 31 -> Feb 28 -> Mar 31).
    pub fn new(start: Date, months: u32) -> Self {
        let month_starts_h = (0..=months)
            .map(|m| {
                let date = start
                    .checked_add(i64::from(m).months())
                    .expect("date in range");
                let days = start.until(date).expect("date in range").get_days();
                f64::from(days) * 24.0
            })
            .collect();
        let start_weekday = start.weekday().to_monday_zero_offset() as u8;
        Self {
            start,
            month_starts_h,
            start_weekday,
        }
    }

    pub fn months(&self) -> usize {
        self.month_starts_h.len() - 1
    }

    pub fn horizon_h(&self) -> f64 {
        *self.month_starts_h.last().expect("at least one entry")
    }

    /// Mean month length of this horizon, hours.
    pub fn month_mean_h(&self) -> f64 {
        self.horizon_h() / self.months() as f64
    }

    /// The month containing `at_h` (the last month for times at or past the horizon).
    pub fn month_of(&self, at_h: f64) -> usize {
        let after = self.month_starts_h.partition_point(|start| *start <= at_h);
        after.saturating_sub(1).min(self.months() - 1)
    }

    /// [`Calendar::month_of`], looking first at month `hint` (say, that of a time near by): one
    /// comparison or two instead of a search when it is right, the same month either way.
    #[inline]
    pub fn month_of_near(&self, at_h: f64, hint: usize) -> usize {
        let starts = &self.month_starts_h;
        let last = self.months() - 1;
        if hint <= last && starts[hint] <= at_h && (hint == last || at_h < starts[hint + 1]) {
            return hint;
        }
        self.month_of(at_h)
    }

    /// Length of month `m`, hours.
    pub fn month_h(&self, m: usize) -> f64 {
        self.month_starts_h[m + 1] - self.month_starts_h[m]
    }

    /// Hours from the start of month `from` to the start of month `to` (months counted from
    /// the start month; either may lie past the horizon).
    pub fn hours_between_months(&self, from: i64, to: i64) -> f64 {
        let at = |m: i64| -> Option<Date> { self.start.checked_add(m.months()).ok() };
        match (at(from), at(to)) {
            (Some(a), Some(b)) => a
                .until(b)
                .map_or(0.0, |span| f64::from(span.get_days()) * 24.0),
            _ => 0.0,
        }
    }

    /// "YYYY-MM" of month `m`.
    pub fn month_label(&self, m: usize) -> String {
        let date = self
            .start
            .checked_add((m as i64).months())
            .expect("date in range");
        format!("{:04}-{:02}", date.year(), date.month())
    }

    /// `at_h` (whole hours since the start) as a UTC date-time, `YYYY-MM-DDTHH:00:00Z`, the
    /// form FOCUS requires.
    pub fn utc_label(&self, at_h: f64) -> String {
        assert!(
            at_h >= 0.0 && at_h.fract() == 0.0,
            "whole hours since the start, got {at_h}"
        );
        let days = (at_h / 24.0).floor();
        let hour = at_h - days * 24.0;
        let date = self
            .start
            .checked_add((days as i64).days())
            .expect("date in range");
        format!(
            "{:04}-{:02}-{:02}T{:02}:00:00Z",
            date.year(),
            date.month(),
            date.day(),
            hour as u32
        )
    }

    /// Hours since Monday 00:00 of the week containing `at_h`.
    pub fn hour_of_week(&self, at_h: f64) -> f64 {
        (at_h + f64::from(self.start_weekday) * 24.0).rem_euclid(HOURS_PER_WEEK)
    }

    /// Calls `add(month, hours)` for each month overlapped by `[from_h, to_h)`.
    pub fn split_by_month(&self, from_h: f64, to_h: f64, add: impl FnMut(usize, f64)) {
        self.split_by_month_near(from_h, to_h, 0, add);
    }

    /// [`Calendar::split_by_month`], looking first at month `hint` for `from_h` (see
    /// [`Calendar::month_of_near`]). Returns the month of the last piece (`to_h`'s, unless
    /// `to_h` is a month's start), or `hint` when the span is empty.
    pub fn split_by_month_near(
        &self,
        from_h: f64,
        to_h: f64,
        hint: usize,
        mut add: impl FnMut(usize, f64),
    ) -> usize {
        if to_h <= from_h {
            return hint;
        }
        let mut month = self.month_of_near(from_h, hint);
        let mut at_h = from_h;
        loop {
            let month_end_h = if month + 1 >= self.months() {
                f64::INFINITY
            } else {
                self.month_starts_h[month + 1]
            };
            let end_h = to_h.min(month_end_h);
            add(month, end_h - at_h);
            if end_h >= to_h {
                return month;
            }
            at_h = end_h;
            month += 1;
        }
    }
}

/// A set of weekly windows, UTC, such as "weekdays 09:00-18:00; sat 10:00-14:00".
#[derive(Debug, Clone, PartialEq)]
pub struct WeeklyWindows {
    /// Disjoint, sorted `[from, to)` intervals in hours since Monday 00:00, within one week.
    intervals_h: Vec<(f64, f64)>,
    text: String,
}

impl WeeklyWindows {
    /// Parses `"<days> HH:MM-HH:MM"` clauses separated by `;`. Days: `daily`, `weekdays`,
    /// `weekends`, a day (`mon` .. `sun`), a range (`mon-thu`) or a list (`mon,wed,fri`).
    /// An end at or before the start runs past midnight (`daily 22:00-06:00`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut raw = Vec::new();
        for clause in text.split(';').map(str::trim) {
            let (days, times) = clause.split_once(' ').ok_or_else(|| {
                format!("`{clause}` is not `<days> HH:MM-HH:MM` (e.g. \"weekdays 09:00-18:00\")")
            })?;
            let days = parse_days(days.trim())?;
            let (from, to) = times
                .trim()
                .split_once('-')
                .ok_or_else(|| format!("`{}` is not a time range `HH:MM-HH:MM`", times.trim()))?;
            let (from_h, to_h) = (parse_time(from)?, parse_time(to)?);
            let length_h = if to_h > from_h {
                to_h - from_h
            } else {
                to_h + 24.0 - from_h
            };
            for day in days {
                let start_h = f64::from(day) * 24.0 + from_h;
                raw.push((start_h, start_h + length_h));
            }
        }
        // Wrap intervals that run past Sunday midnight into the week's start, then merge.
        let mut pieces: Vec<(f64, f64)> = Vec::new();
        for (from, to) in raw {
            if to > HOURS_PER_WEEK {
                pieces.push((from, HOURS_PER_WEEK));
                pieces.push((0.0, to - HOURS_PER_WEEK));
            } else {
                pieces.push((from, to));
            }
        }
        pieces.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut intervals_h: Vec<(f64, f64)> = Vec::new();
        for (from, to) in pieces {
            match intervals_h.last_mut() {
                Some(last) if from <= last.1 => last.1 = last.1.max(to),
                _ => intervals_h.push((from, to)),
            }
        }
        Ok(Self {
            intervals_h,
            text: text.to_string(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Hours per week inside a window.
    pub fn hours_per_week(&self) -> f64 {
        self.intervals_h.iter().map(|(from, to)| to - from).sum()
    }

    fn is_always(&self) -> bool {
        self.intervals_h == [(0.0, HOURS_PER_WEEK)]
    }

    /// Whether hour-of-week `how` lies inside a window.
    pub fn contains(&self, how: f64) -> bool {
        self.intervals_h
            .iter()
            .any(|(from, to)| *from <= how && how < *to)
    }

    /// Hours from hour-of-week `how` to the next window boundary (infinite if there is none).
    pub fn hours_to_next_change(&self, how: f64) -> f64 {
        if self.intervals_h.is_empty() || self.is_always() {
            return f64::INFINITY;
        }
        let next = self
            .intervals_h
            .iter()
            .flat_map(|(from, to)| [*from, *to])
            .filter(|edge| *edge < HOURS_PER_WEEK)
            .map(|edge| {
                if edge > how {
                    edge - how
                } else {
                    edge + HOURS_PER_WEEK - how
                }
            })
            .fold(f64::INFINITY, f64::min);
        // A boundary at `how` itself is a change already made; the next one is a week away at most.
        if next <= 0.0 { HOURS_PER_WEEK } else { next }
    }
}

fn parse_days(text: &str) -> Result<Vec<u8>, String> {
    const ACCEPTED: &str =
        "daily, weekdays, weekends, a day (mon..sun), a range (mon-fri) or a list (mon,wed)";
    match text {
        "daily" => return Ok((0..7).collect()),
        "weekdays" => return Ok((0..5).collect()),
        "weekends" => return Ok(vec![5, 6]),
        _ => {}
    }
    let mut days = Vec::new();
    for part in text.split(',') {
        if let Some((from, to)) = part.split_once('-') {
            let (from, to) = (parse_day(from)?, parse_day(to)?);
            let mut day = from;
            loop {
                days.push(day);
                if day == to {
                    break;
                }
                day = (day + 1) % 7;
            }
        } else {
            days.push(
                parse_day(part).map_err(|_| format!("unknown days `{text}`; use {ACCEPTED}"))?,
            );
        }
    }
    days.sort_unstable();
    days.dedup();
    Ok(days)
}

fn parse_day(text: &str) -> Result<u8, String> {
    let weekday = match text.trim().to_ascii_lowercase().as_str() {
        "mon" | "monday" => Weekday::Monday,
        "tue" | "tuesday" => Weekday::Tuesday,
        "wed" | "wednesday" => Weekday::Wednesday,
        "thu" | "thursday" => Weekday::Thursday,
        "fri" | "friday" => Weekday::Friday,
        "sat" | "saturday" => Weekday::Saturday,
        "sun" | "sunday" => Weekday::Sunday,
        other => {
            return Err(format!(
                "unknown day `{other}`; use mon, tue, wed, thu, fri, sat, sun"
            ));
        }
    };
    Ok(weekday.to_monday_zero_offset() as u8)
}

fn parse_time(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let bad = || format!("`{text}` is not a time HH:MM between 00:00 and 24:00");
    let (hours, minutes) = text.split_once(':').ok_or_else(bad)?;
    let hours: u32 = hours.parse().map_err(|_| bad())?;
    let minutes: u32 = minutes.parse().map_err(|_| bad())?;
    if minutes >= 60 || hours > 24 || (hours == 24 && minutes > 0) {
        return Err(bad());
    }
    Ok(f64::from(hours) + f64::from(minutes) / 60.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn months_follow_the_calendar() {
        let calendar = Calendar::new(date(2027, 1, 1), 3);
        assert_eq!(
            calendar.month_starts_h,
            vec![0.0, 31.0 * 24.0, 59.0 * 24.0, 90.0 * 24.0]
        );
        assert_eq!(calendar.month_label(1), "2027-02");
        assert_eq!(calendar.month_of(0.0), 0);
        assert_eq!(calendar.month_of(31.0 * 24.0 - 0.001), 0);
        assert_eq!(calendar.month_of(31.0 * 24.0), 1);
        assert_eq!(calendar.month_of(1e9), 2);
        // 2027-01-01 is a Friday.
        assert_eq!(calendar.start_weekday, 4);
        assert_eq!(calendar.hour_of_week(0.0), 4.0 * 24.0);
        assert_eq!(calendar.hour_of_week(3.0 * 24.0 + 1.0), 1.0);
    }

    #[test]
    fn leap_years_and_month_ends() {
        let calendar = Calendar::new(date(2028, 1, 31), 2);
        // Jan 31 -> Feb 29 (leap) -> Mar 31.
        assert_eq!(calendar.month_starts_h, vec![0.0, 29.0 * 24.0, 60.0 * 24.0]);
    }

    #[test]
    fn utc_labels_count_whole_days_from_the_start() {
        let calendar = Calendar::new(date(2027, 12, 30), 1);
        assert_eq!(calendar.utc_label(0.0), "2027-12-30T00:00:00Z");
        // Two days and five hours later, across the new year.
        assert_eq!(calendar.utc_label(53.0), "2028-01-01T05:00:00Z");
        // February 2028 has 29 days: Mar 1 is 31 + 29 days after Jan 1.
        let leap = Calendar::new(date(2028, 1, 1), 3);
        assert_eq!(
            leap.utc_label(leap.month_starts_h[2]),
            "2028-03-01T00:00:00Z"
        );
    }

    #[test]
    fn a_hint_never_changes_the_month() {
        let calendar = Calendar::new(date(2027, 1, 1), 3);
        let starts = calendar.month_starts_h.clone();
        let mut times = vec![0.0, 1e-9, 1e9, f64::INFINITY];
        for start in &starts {
            times.extend([start - 1e-9, *start, start + 1e-9]);
        }
        for at_h in times.into_iter().filter(|t| *t >= 0.0) {
            for hint in 0..5 {
                assert_eq!(
                    calendar.month_of_near(at_h, hint),
                    calendar.month_of(at_h),
                    "{at_h} h with hint {hint}"
                );
            }
        }
        // The last piece's month: month 1 for a span ending in it, month 0 for one ending
        // exactly at month 1's start; the hint for an empty span.
        let ignore = |_, _| {};
        assert_eq!(calendar.split_by_month_near(700.0, 800.0, 2, ignore), 1);
        assert_eq!(calendar.split_by_month_near(700.0, starts[1], 0, ignore), 0);
        assert_eq!(calendar.split_by_month_near(5.0, 5.0, 2, ignore), 2);
    }

    #[test]
    fn split_by_month_covers_the_interval_exactly() {
        let calendar = Calendar::new(date(2027, 1, 1), 2);
        let mut parts = vec![];
        calendar.split_by_month(700.0, 800.0, |m, h| parts.push((m, h)));
        assert_eq!(parts, vec![(0, 44.0), (1, 56.0)]);
        parts.clear();
        // Time past the horizon stays in the last month.
        calendar.split_by_month(1400.0, 1500.0, |m, h| parts.push((m, h)));
        assert_eq!(parts, vec![(1, 100.0)]);
    }

    #[test]
    fn weekday_windows() {
        let windows = WeeklyWindows::parse("weekdays 09:00-18:00").unwrap();
        assert_eq!(windows.hours_per_week(), 45.0);
        assert!(windows.contains(9.0));
        assert!(!windows.contains(18.0));
        assert!(!windows.contains(5.0 * 24.0 + 10.0));
        assert_eq!(windows.hours_to_next_change(0.0), 9.0);
        assert_eq!(windows.hours_to_next_change(9.0), 9.0);
        // Friday 18:00 -> Monday 09:00.
        assert_eq!(windows.hours_to_next_change(4.0 * 24.0 + 18.0), 63.0);
    }

    #[test]
    fn windows_past_midnight_wrap_into_the_next_day_and_week() {
        let windows = WeeklyWindows::parse("sun 22:00-02:00").unwrap();
        assert_eq!(windows.hours_per_week(), 4.0);
        assert!(windows.contains(0.5));
        assert!(windows.contains(167.5));
        assert!(!windows.contains(2.0));
        let daily = WeeklyWindows::parse("daily 18:00-22:00; mon,wed 08:00-09:30").unwrap();
        assert_eq!(daily.hours_per_week(), 7.0 * 4.0 + 3.0);
        let always = WeeklyWindows::parse("daily 00:00-24:00").unwrap();
        assert!(always.contains(100.0));
        assert_eq!(always.hours_to_next_change(3.0), f64::INFINITY);
    }

    #[test]
    fn bad_windows_say_what_is_accepted() {
        for (text, fragment) in [
            ("weekdays", "is not `<days> HH:MM-HH:MM`"),
            ("someday 09:00-10:00", "unknown days `someday`"),
            ("daily 9-10", "is not a time HH:MM"),
            ("daily 09:00-25:00", "`25:00` is not a time"),
            ("daily 09:00", "is not a time range"),
            ("mon-xyz 09:00-10:00", "unknown day `xyz`"),
        ] {
            let error = WeeklyWindows::parse(text).unwrap_err();
            assert!(error.contains(fragment), "{text}: {error}");
        }
    }
}
