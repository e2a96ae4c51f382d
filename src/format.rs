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

/// An amount of money as a reader takes it in: three significant digits in millions ("4.44 M
/// EUR", "12.3 M EUR") or thousands ("350 k EUR"), whole units below 10,000 ("8,750 EUR"),
/// with a true minus sign (U+2212) before a negative amount.
pub fn money(amount: f64, currency: &str) -> String {
    if !amount.is_finite() {
        return "-".to_string();
    }
    let magnitude = amount.abs();
    let (scaled, scale) = if magnitude >= 999_500.0 {
        (magnitude / 1e6, " M")
    } else if magnitude >= 9_999.5 {
        (magnitude / 1e3, " k")
    } else {
        (magnitude, "")
    };
    let digits = if scale.is_empty() {
        thousands(scaled, 0)
    } else {
        significant(scaled, 3)
    };
    let sign = if amount < 0.0 && digits.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "\u{2212}"
    } else {
        ""
    };
    format!("{sign}{digits}{scale} {currency}")
}

/// A difference of money with its 95 % confidence interval, all three on one scale (that of
/// the largest) with as many decimals as it needs for three significant digits:
/// "−4.91 M EUR (95 % CI −4.93 to −4.88 M)", "−7.7 k EUR (95 % CI −13.7 to −1.7 k)".
pub fn money_difference(mean: f64, low: f64, high: f64, currency: &str) -> String {
    if !(low.is_finite() && high.is_finite()) {
        return money(mean, currency);
    }
    if !mean.is_finite() {
        return "-".to_string();
    }
    let magnitude = mean.abs().max(low.abs()).max(high.abs());
    let (divisor, scale) = if magnitude >= 999_500.0 {
        (1e6, " M")
    } else if magnitude >= 9_999.5 {
        (1e3, " k")
    } else {
        (1.0, "")
    };
    let scaled = magnitude / divisor;
    let decimals = if scale.is_empty() || scaled >= 99.95 {
        0
    } else if scaled >= 9.995 {
        1
    } else {
        2
    };
    let amount = |x: f64| {
        let text = thousands(x.abs() / divisor, decimals);
        let minus = x < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0');
        format!("{}{text}", if minus { "\u{2212}" } else { "" })
    };
    format!(
        "{}{scale} {currency} (95 % CI {} to {}{scale})",
        amount(mean),
        amount(low),
        amount(high)
    )
}

/// `value` (at least 1) with `figures` significant digits, thousands separated, no trailing
/// zeros after the point: 4.436 -> "4.44", 12.0 -> "12", 1234.5 -> "1,235".
pub fn significant(value: f64, figures: usize) -> String {
    let whole_digits = if value >= 1.0 {
        value.log10().floor() as usize + 1
    } else {
        1
    };
    let decimals = figures.saturating_sub(whole_digits);
    let text = thousands(value, decimals);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_in_millions_or_thousands() {
        assert_eq!(money(4_442_370.0, "EUR"), "4.44 M EUR");
        assert_eq!(money(9_347_682.0, "EUR"), "9.35 M EUR");
        assert_eq!(money(8_000_000.0, "EUR"), "8 M EUR");
        assert_eq!(money(12_345_678.0, "USD"), "12.3 M USD");
        assert_eq!(money(1_234_567_890.0, "EUR"), "1,235 M EUR");
        assert_eq!(money(350_000.0, "EUR"), "350 k EUR");
        assert_eq!(money(999_999.0, "EUR"), "1 M EUR");
        assert_eq!(money(12_500.0, "EUR"), "12.5 k EUR");
        assert_eq!(money(8_750.0, "EUR"), "8,750 EUR");
        assert_eq!(money(-4_905_313.0, "EUR"), "\u{2212}4.91 M EUR");
        assert_eq!(money(f64::NAN, "EUR"), "-");
        assert_eq!(
            money_difference(-4_905_313.0, -4_929_262.0, -4_881_363.0, "EUR"),
            "\u{2212}4.91 M EUR (95 % CI \u{2212}4.93 to \u{2212}4.88 M)"
        );
        assert_eq!(
            money_difference(-955_946.0, -966_249.0, -945_644.0, "EUR"),
            "\u{2212}956 k EUR (95 % CI \u{2212}966 to \u{2212}946 k)"
        );
        // The mean on the scale of its interval.
        assert_eq!(
            money_difference(-7_679.0, -13_690.0, -1_660.0, "EUR"),
            "\u{2212}7.7 k EUR (95 % CI \u{2212}13.7 to \u{2212}1.7 k)"
        );
        assert_eq!(
            money_difference(1_200.0, -300.0, 2_700.0, "EUR"),
            "1,200 EUR (95 % CI \u{2212}300 to 2,700)"
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1_234_567.891, 0), "1,234,568");
        assert_eq!(thousands(-1_234.5, 1), "-1,234.5");
        assert_eq!(thousands(999.0, 0), "999");
        assert_eq!(thousands(-0.01, 0), "0");
        assert_eq!(thousands(f64::NAN, 0), "-");
    }
}
