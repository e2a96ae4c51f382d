//! The layering rule of ARCHITECTURE.md, checked on the source (like rust-analyzer's `tidy`
//! tests): a module uses only modules of lower layers, never one of its own layer or above,
//! so data flows one way and no import cycle can creep in.
//!
//! Every file under `src/` is read as text; comments and string literals are blanked, then
//! every path that starts at the crate root (`crate::x`, `crate::{x, y}`, or enough `super::`
//! to climb out of the top module) names the top module it reaches. A failure names the file,
//! the line and both layers. `main.rs` and `lib.rs` are the crate root, above every layer.
//!
//! Also that the tests install no system package.

use std::fmt;
use std::path::{Path, PathBuf};

/// Top-level modules by layer, lowest first; the same list is in ARCHITECTURE.md. Leaf
/// utilities share the lowest layer and use none of each other.
const LAYERS: &[&[&str]] = &[
    &["rng", "calendar", "format", "engine", "progress"],
    &["scenario"],
    &["records"],
    &["policies"],
    &["model"],
    &["stats"],
    &["runner"],
    &["focus"],
    &["files"],
    &["terminal"],
    &["charts"],
    &["report"],
    &["sweep"],
    &["optimize"],
    &["claims"],
    &["app"],
    &["cli"],
];

/// Files of the crate root: they declare and call the modules.
const ROOT_FILES: [&str; 2] = ["main.rs", "lib.rs"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// A use of a module that is not below the user.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Violation {
    file: String,
    line: usize,
    from: String,
    to: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layer = |m: &str| layer_of(m).map_or("none".to_string(), |l| l.to_string());
        write!(
            f,
            "{}:{}: `{}` (layer {}) uses `{}` (layer {}); a module may use only lower layers",
            self.file,
            self.line,
            self.from,
            layer(&self.from),
            self.to,
            layer(&self.to),
        )
    }
}

/// `text` with comments and the insides of string and character literals replaced by spaces;
/// line breaks stay, so positions keep their line numbers.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if !prev_ident && (c == 'r' || (c == 'b' && next == Some('r'))) && {
            // A raw string: r"..", r#".."#, br"..".
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
            chars.get(start + hashes) == Some(&'"')
        } {
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
            let body = start + hashes + 1;
            out.extend(std::iter::repeat_n(' ', body - i));
            i = body;
            while i < chars.len() {
                if chars[i] == '"'
                    && chars[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes
                {
                    out.extend(std::iter::repeat_n(' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    out.push(' ');
                    i += 1;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal: '\n', '\'', '\u{2026}'.
            out.push_str("  ");
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            // A character literal such as '"' or '{' (not a lifetime).
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of a source file: `src/charts/sweep/axis.rs` is charts::sweep::axis,
/// `src/charts/mod.rs` is charts.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// Every use of a module of the same or a higher layer in the file at `relative` (under
/// `src/`) holding `text`.
fn violations(relative: &Path, text: &str) -> Vec<Violation> {
    let file_module = module_path(relative);
    let Some(from) = file_module.first().cloned() else {
        return Vec::new();
    };
    let from_layer = layer_of(&from);
    let code = code_only(text);
    let bytes = code.as_bytes();
    let ident_at = |at: usize| -> &str {
        let end = code[at..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(code.len(), |n| at + n);
        &code[at..end]
    };
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut push = |at: usize, to: &str| {
        let allowed = to == from
            || match (from_layer, layer_of(to)) {
                (Some(mine), Some(theirs)) => theirs < mine,
                // Not a module (an item of the crate root), or a module with no layer: the
                // latter is reported by `every_module_has_a_layer`.
                (_, None) => true,
                (None, Some(_)) => false,
            };
        if !allowed {
            found.push(Violation {
                file: format!("src/{}", relative.display()),
                line: line_of(at),
                from: from.clone(),
                to: to.to_string(),
            });
        }
    };
    // Inline modules (`mod tests { .. }`) deepen the path that `super::` climbs from.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':');
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if starts_word && code[i..].starts_with("mod ") {
            let name_at = i + 4 + code[i + 4..].len() - code[i + 4..].trim_start().len();
            let after = name_at + ident_at(name_at).len();
            if code[after..].trim_start().starts_with('{') {
                inline.push(depth);
            }
        }
        if starts_word && (code[i..].starts_with("crate::") || code[i..].starts_with("$crate::")) {
            let at = i + code[i..].find("::").unwrap_or(0) + 2;
            if code[at..].starts_with('{') {
                // `crate::{a, b::c, self}`: the first name of each top-level item.
                let mut level = 0;
                let mut item_start = true;
                for (k, ch) in code[at..].char_indices() {
                    match ch {
                        '{' => {
                            level += 1;
                            item_start = level == 1;
                        }
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        ',' if level == 1 => item_start = true,
                        c if item_start && (c.is_alphanumeric() || c == '_') => {
                            let name = ident_at(at + k);
                            if name != "self" {
                                push(at + k, name);
                            }
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            } else {
                push(i, ident_at(at));
            }
            i = at;
            continue;
        }
        if starts_word && code[i..].starts_with("super::") {
            let mut at = i;
            let mut supers = 0;
            while code[at..].starts_with("super::") {
                supers += 1;
                at += "super::".len();
            }
            // Inline modules count only when the use sits inside them.
            let here = file_module.len() + inline.len();
            if supers >= here {
                // Climbed to the crate root: the next name is a top module.
                push(i, ident_at(at));
            }
            i = at;
            continue;
        }
        i += 1;
    }
    found
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Source files of the layered modules, by path relative to `src/`.
fn layered_files() -> Vec<PathBuf> {
    let src = src();
    rust_files(&src)
        .into_iter()
        .map(|path| path.strip_prefix(&src).expect("under src/").to_path_buf())
        .filter(|relative| !ROOT_FILES.iter().any(|root| relative == Path::new(root)))
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    let files = layered_files();
    assert!(
        files.len() > 20,
        "too few files found under src/: {files:?}"
    );
    let unplaced: Vec<String> = files
        .iter()
        .filter_map(|relative| {
            let module = module_path(relative).first().cloned()?;
            layer_of(&module)
                .is_none()
                .then(|| format!("src/{}: module `{module}` is in no layer; add it to LAYERS here and in ARCHITECTURE.md", relative.display()))
        })
        .collect();
    assert!(unplaced.is_empty(), "{}", unplaced.join("\n"));
}

#[test]
fn no_module_uses_a_module_of_its_own_layer_or_above() {
    let mut all = Vec::new();
    for relative in layered_files() {
        let text = std::fs::read_to_string(src().join(&relative)).expect("a source file");
        all.extend(violations(&relative, &text));
    }
    let lines: Vec<String> = all.iter().map(ToString::to_string).collect();
    assert!(
        lines.is_empty(),
        "{} import(s) against the layers (see ARCHITECTURE.md, \"Layers\"):\n{}",
        lines.len(),
        lines.join("\n")
    );
}

/// The checker itself finds a planted bad import in every form a path can take, and nothing
/// in comments, strings or downward paths.
#[test]
fn a_planted_bad_import_is_found_with_its_line() {
    let check = |file: &str, text: &str| -> Vec<(usize, String)> {
        violations(Path::new(file), text)
            .into_iter()
            .map(|v| (v.line, v.to))
            .collect()
    };
    let upward = "//! Docs may link [`crate::model`].\n\
                  use crate::rng::SimRng;\n\
                  use crate::model::FleetSim;\n\
                  use crate::{calendar::Calendar, files::{self, thousands}};\n\
                  fn f() -> String { crate::cli::name() }\n\
                  const S: &str = \"crate::stats\"; // crate::runner\n\
                  const R: &str = r#\"crate::sweep \"quoted\" \"#;\n\
                  const Q: char = '\"'; fn g() { crate::stats::x() }\n";
    assert_eq!(
        check("policies/mod.rs", upward),
        [
            (3, "model".to_string()),
            (4, "files".to_string()),
            (5, "cli".to_string()),
            (8, "stats".to_string()),
        ]
    );
    // Leaf utilities use none of each other.
    assert_eq!(
        check("engine/mod.rs", "use crate::rng::SimRng;\n"),
        [(1, "rng".to_string())]
    );
    // Downward and within a module: fine.
    let downward = "use crate::scenario::Config;\nuse crate::files;\nuse super::style;\n";
    assert!(check("charts/mod.rs", downward).is_empty());
    // `super::` climbing out of a top module reaches the crate root.
    assert_eq!(
        check("runner.rs", "use super::sweep::plan;\n"),
        [(1, "sweep".to_string())]
    );
    assert_eq!(
        check(
            "scenario/check/pools.rs",
            "use super::super::super::stats;\n"
        ),
        [(1, "stats".to_string())]
    );
    // Inside an inline module one more `super::` is needed to leave the file.
    let inline = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use super::a;\n    use super::super::files;\n}\nuse super::files;\n";
    assert_eq!(
        check("stats/mod.rs", inline),
        [(5, "files".to_string()), (7, "files".to_string())]
    );
}

/// `cargo test` installs nothing (`.ci/install-test-tools` does, which `.ci/run`
/// calls): no test source starts a package manager or asks start-local-cluster.sh to
/// `--install`, and the other scripts the tests run name none. A test whose tool is missing
/// calls `common::skip_or_fail` instead.
#[test]
fn no_test_installs_system_packages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let this = root.join(file!());
    let mut sources = Vec::new();
    let mut folders = vec![root.join("tests")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("tests/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "py") && path != this {
                sources.push(path);
            }
        }
    }
    assert!(sources.len() > 20, "{sources:?}");
    let mut found = Vec::new();
    for path in &sources {
        let text = std::fs::read_to_string(path).expect("a test source");
        for needle in [
            "\"apt-get\"",
            "\"apt\"",
            "\"dpkg\"",
            "\"pip\"",
            "\"--install\"",
        ] {
            if text.contains(needle) {
                found.push(format!("{}: {needle}", path.display()));
            }
        }
    }
    for script in [
        "stop-local-cluster.sh",
        "sweep.sh",
        "shard.sbatch",
        "merge.sbatch",
    ] {
        let path = root.join("deploy/slurm").join(script);
        let text = std::fs::read_to_string(&path).expect("a deploy script");
        for needle in ["apt-get", "dpkg", "pip install", "install-test-tools"] {
            if text.contains(needle) {
                found.push(format!("{}: {needle}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the tests must install nothing; found:\n{}",
        found.join("\n")
    );
}
