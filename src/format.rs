//! Numbers as people read them: thousands separators for messages, tables and chart labels.
//!
//! A leaf utility: it uses no other module of the crate, so the scenario checks, the terminal
//! summaries and the charts can all share it without depending on each other.

/// A number with thousands separators: `1234567.891` with 0 decimals is `1,234,568`.
pub fn thousands(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return "-".to_string();
    }
    let text = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) = text
        .split_once('.')
        .map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    match fraction {
        Some(fraction) => format!("{sign}{grouped}.{fraction}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1_234_567.891, 0), "1,234,568");
        assert_eq!(thousands(-1_234.5, 1), "-1,234.5");
        assert_eq!(thousands(999.0, 0), "999");
        assert_eq!(thousands(-0.01, 0), "0");
        assert_eq!(thousands(f64::NAN, 0), "-");
    }
}
