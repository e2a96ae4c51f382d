//! What a name may be: scenarios, pools, workloads and strategies (which appear in `--set`
//! paths, folder names, CSV rows, chart labels and the terminal) and teams (also read from job
//! traces). A name is refused, with the rule, rather than cleaned up, so two names never become
//! one and the folder `output/<name>` is always where the user expects it.

/// The most characters a name may have: it heads a table column and names a folder.
pub const NAME_CHARS_MAX: usize = 64;

/// Which rules a name follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// Scenario, pool, workload and strategy names: no `.`, as `--set` paths separate their
    /// parts with it (`pool.dgx.nodes`).
    Path,
    /// Team names, in no `--set` path: `.` and `@` are also accepted (accounts and users of a
    /// cluster, `ml.vision`, `ana@lab`), though not first and not twice in a row.
    Team,
}

impl NameKind {
    /// What the rule accepts, for messages.
    pub fn accepted(self) -> &'static str {
        match self {
            NameKind::Path => {
                "names may have letters, digits, spaces inside, and `-`, `_`, `+`, `(`, `)`"
            }
            NameKind::Team => {
                "team names may have letters, digits, spaces inside, and `-`, `_`, `+`, `(`, `)`, `.`, `@` (not a `.` first or two in a row)"
            }
        }
    }

    fn allows(self, c: char) -> bool {
        c.is_alphanumeric()
            || matches!(c, '-' | '_' | '+' | '(' | ')' | ' ')
            || (self == NameKind::Team && matches!(c, '.' | '@'))
    }
}

/// The name as messages show it: quoted, with control characters escaped (`\n`, `\u{1b}`), so
/// that no name reaches the terminal raw; a long one cut.
pub fn shown(name: &str) -> String {
    let mut text: String = name.chars().take(NAME_CHARS_MAX).collect();
    if name.chars().count() > NAME_CHARS_MAX {
        text.push('…');
    }
    format!("`{}`", text.escape_debug())
}

/// `text` with its control characters escaped (`\n` as `\\n`, ESC as `\\u{1b}`), the rest as is.
pub fn without_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// What is wrong with `name`, if anything: a message that says what is accepted.
pub fn problem(name: &str, kind: NameKind) -> Option<String> {
    let chars = name.chars().count();
    if name.trim().is_empty() {
        return Some("must not be empty".to_string());
    }
    if chars > NAME_CHARS_MAX {
        return Some(format!(
            "{} is {chars} characters long: at most {NAME_CHARS_MAX} are accepted",
            shown(name)
        ));
    }
    let accepted = kind.accepted();
    if let Some(bad) = name.chars().find(|c| !kind.allows(*c)) {
        let what = match bad {
            '.' | '=' | ',' => format!(
                "must not contain `{bad}` (`.`, `=` and `,` separate --set paths and values)"
            ),
            '/' | '\\' => {
                format!("must not contain `{bad}` (a name must not lead to another folder)")
            }
            c if c.is_control() => format!("must not contain control characters (here {:?})", c),
            c => format!("must not contain `{c}`"),
        };
        return Some(format!("{} {what}; {accepted}", shown(name)));
    }
    // OWASP's rule for CSV: a cell starting with `=`, `+`, `-` or `@` is a formula to a
    // spreadsheet (`=` and control characters are refused above).
    if let Some(first) = name.chars().next().filter(|c| matches!(c, '+' | '-' | '@')) {
        return Some(format!(
            "{} must not start with `{first}`: a spreadsheet would read the CSV cell as a formula; {accepted}",
            shown(name)
        ));
    }
    if name.starts_with(' ') || name.ends_with(' ') {
        return Some(format!(
            "{} must not start or end with a space; {accepted}",
            shown(name)
        ));
    }
    if name.starts_with('.') || name.contains("..") {
        return Some(format!(
            "{} must not start with `.` or contain `..`; {accepted}",
            shown(name)
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_escape_a_folder_or_the_terminal() {
        for good in [
            "dgx",
            "aws-p5-spot",
            "Team A",
            "h100 (SXM)",
            "a+b",
            "équipe_7",
        ] {
            assert_eq!(problem(good, NameKind::Path), None, "{good}");
        }
        for good in ["ml.vision", "ana@lab", "vc6YE"] {
            assert_eq!(problem(good, NameKind::Team), None, "{good}");
        }
        let bad = |name: &str, kind| problem(name, kind).unwrap_or_default();
        let formula_message = "a spreadsheet would read the CSV cell as a formula";
        for formula in ["+NOW()", "-1+1", "@SUM(1+1)"] {
            assert!(
                bad(formula, NameKind::Team).contains(formula_message),
                "{formula}"
            );
            // Other names take no `@` anywhere.
            assert!(!bad(formula, NameKind::Path).is_empty(), "{formula}");
        }
        assert!(bad("+NOW()", NameKind::Path).contains(formula_message));
        assert_eq!(
            problem("a-1+1", NameKind::Path),
            None,
            "inside a name they are fine"
        );
        assert!(bad("/tmp/x", NameKind::Path).contains("must not contain `/`"));
        assert!(bad("a/b", NameKind::Team).contains("must not contain `/`"));
        assert!(bad("a\\b", NameKind::Path).contains("must not contain `\\`"));
        assert!(bad("..", NameKind::Team).contains("must not start with `.`"));
        assert!(bad("a..b", NameKind::Team).contains("contain `..`"));
        assert!(bad("dgx.h100", NameKind::Path).contains("must not contain `.`"));
        let message = bad("a\u{1b}[31mred\nx", NameKind::Path);
        assert!(message.contains("control characters"), "{message}");
        assert!(
            !message.contains('\u{1b}') && !message.contains('\n'),
            "{message}"
        );
        assert!(message.starts_with("`a\\u{1b}[31mred\\nx`"), "{message}");
        let long = "x".repeat(5000);
        let message = bad(&long, NameKind::Path);
        assert!(
            message.contains("is 5000 characters long: at most 64"),
            "{message}"
        );
        assert!(message.len() < 200, "{message}");
        assert!(bad(" dgx", NameKind::Path).contains("start or end with a space"));
        assert_eq!(bad("  ", NameKind::Path), "must not be empty");
    }
}
