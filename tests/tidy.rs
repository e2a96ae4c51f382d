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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Top-level modules by layer, lowest first; the same list is in ARCHITECTURE.md. Leaf
/// utilities share the lowest layer and use none of each other.
const LAYERS: &[&[&str]] = &[
    &[
        "rng",
        "calendar",
        "format",
        "engine",
        "progress",
        "names",
        "regular_file",
    ],
    &["trace"],
    &["scenario"],
    &["records", "fit"],
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

/// A path a file names from the crate root, resolved: `crate::a::{b, c::d}` names a::b and
/// a::c::d, and `super::x` in `a/b.rs` names a::x. `line` is where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    line: usize,
    path: Vec<String>,
}

/// Every path in `text` (the file at `relative` under `src/`) that starts at the crate root
/// (`crate::`, `$crate::`) or climbs with `super::` out of the file's own inline modules,
/// resolved from the root. Paths inside the file (`super::` within `mod tests`) and to
/// children (`check::pools`) are not listed: they cannot leave the module.
fn references(relative: &Path, text: &str) -> Vec<Reference> {
    let file_module = module_path(relative);
    let code = code_only(text);
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut leaves: Vec<(usize, Vec<String>)> = Vec::new();
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
        if !starts_word {
            i += 1;
            continue;
        }
        if code[i..].starts_with("mod ") {
            let name_at = i + 4 + code[i + 4..].len() - code[i + 4..].trim_start().len();
            let after = name_at + ident_len(&code, name_at);
            if code[after..].trim_start().starts_with('{') {
                inline.push(depth);
            }
        }
        let root = ["crate::", "$crate::"]
            .iter()
            .find(|root| code[i..].starts_with(**root))
            .map(|root| (i + root.len(), Vec::new()));
        let climbed = code[i..].starts_with("super::").then(|| {
            let mut at = i;
            let mut supers = 0usize;
            while code[at..].starts_with("super::") {
                supers += 1;
                at += "super::".len();
            }
            // Inline modules count only when the use sits inside them.
            let levels = supers.checked_sub(inline.len())?;
            let kept = file_module.len().checked_sub(levels)?;
            Some((at, file_module[..kept].to_vec()))
        });
        match root.or(climbed.flatten()) {
            Some((at, base)) => {
                i = path_tree(&code, at, at, base, &mut leaves);
            }
            None if code[i..].starts_with("super::") => i += "super::".len(),
            None => i += 1,
        }
    }
    let mut found: Vec<Reference> = leaves
        .into_iter()
        .map(|(at, path)| Reference {
            line: line_of(at),
            path,
        })
        .collect();
    found.dedup();
    found
}

/// The length of the identifier at `at` (0 if none starts there).
fn ident_len(code: &str, at: usize) -> usize {
    code[at..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(code.len() - at)
}

/// Reads the path tree at `at` (`a::b`, `a::{b, c::{self, d}}`, `a::*`), pushing each leaf as
/// `prefix` plus its names, with where its branch starts (`origin`); returns where it ends.
fn path_tree(
    code: &str,
    at: usize,
    origin: usize,
    prefix: Vec<String>,
    out: &mut Vec<(usize, Vec<String>)>,
) -> usize {
    let skip_space = |from: usize| from + code[from..].len() - code[from..].trim_start().len();
    let mut at = skip_space(at);
    if code[at..].starts_with('{') {
        at += 1;
        loop {
            at = skip_space(at);
            if at >= code.len() || code[at..].starts_with('}') {
                return (at + 1).min(code.len());
            }
            if code[at..].starts_with(',') {
                at += 1;
                continue;
            }
            let before = at;
            at = path_tree(code, at, at, prefix.clone(), out);
            if at == before {
                at += 1;
            }
        }
    }
    let len = ident_len(code, at);
    if len == 0 {
        // `*`, or `::<T>` after a type: the path so far.
        if !prefix.is_empty() {
            out.push((origin, prefix));
        }
        return at;
    }
    let name = &code[at..at + len];
    let mut path = prefix;
    if name != "self" {
        path.push(name.to_string());
    }
    at += len;
    if code[at..].starts_with("::") {
        return path_tree(code, at + 2, origin, path, out);
    }
    out.push((origin, path));
    // `a as b`: the new name is not a path.
    let after = skip_space(at);
    if code[after..].starts_with("as ") {
        let name_at = skip_space(after + 3);
        return name_at + ident_len(code, name_at);
    }
    at
}

/// Every use of a module of the same or a higher layer in the file at `relative` (under
/// `src/`) holding `text`.
fn violations(relative: &Path, text: &str) -> Vec<Violation> {
    let Some(from) = module_path(relative).first().cloned() else {
        return Vec::new();
    };
    let from_layer = layer_of(&from);
    let mut found: Vec<Violation> = references(relative, text)
        .into_iter()
        .filter_map(|reference| {
            let to = reference.path.first()?.clone();
            let allowed = to == from
                || match (from_layer, layer_of(&to)) {
                    (Some(mine), Some(theirs)) => theirs < mine,
                    // Not a module (an item of the crate root), or a module with no layer:
                    // the latter is reported by `every_module_has_a_layer`.
                    (_, None) => true,
                    (None, Some(_)) => false,
                };
            (!allowed).then(|| Violation {
                file: format!("src/{}", relative.display()),
                line: reference.line,
                from: from.clone(),
                to,
            })
        })
        .collect();
    found.dedup();
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

/// Every module of the crate: each file's module and the folders above it (`charts/sweep/axis.rs`
/// gives charts, charts::sweep and charts::sweep::axis).
fn modules(files: &[PathBuf]) -> BTreeSet<Vec<String>> {
    let mut all = BTreeSet::new();
    for relative in files {
        let path = module_path(relative);
        for end in 1..=path.len() {
            all.insert(path[..end].to_vec());
        }
    }
    all
}

/// The uses between sibling modules, by parent: a file of module `m` naming path `t` is a use,
/// at their deepest common ancestor, of `t`'s child there by `m`'s, if that child is a module.
/// A module may use its ancestors (their items and re-exports) and its own children: those
/// cannot close a circle among siblings. The value is where the first such use is written.
type SiblingUses = BTreeMap<Vec<String>, BTreeMap<(String, String), String>>;

fn sibling_uses(sources: &[(PathBuf, String)]) -> SiblingUses {
    let files: Vec<PathBuf> = sources.iter().map(|(path, _)| path.clone()).collect();
    let known = modules(&files);
    let mut uses = SiblingUses::new();
    for (relative, text) in sources {
        let from = module_path(relative);
        for reference in references(relative, text) {
            let to = &reference.path;
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common >= to.len() || !known.contains(&to[..=common]) {
                continue;
            }
            uses.entry(from[..common].to_vec())
                .or_default()
                .entry((from[common].clone(), to[common].clone()))
                .or_insert_with(|| format!("src/{}:{}", relative.display(), reference.line));
        }
    }
    uses
}

/// A circle of uses among the children of one module, as `a -> b -> a` with where each use
/// is written; None if there is none.
fn circle(uses: &BTreeMap<(String, String), String>) -> Option<String> {
    fn visit(
        node: &str,
        uses: &BTreeMap<(String, String), String>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for (_, to) in uses.keys().filter(|(from, _)| from == node) {
            if let Some(found) = visit(to, uses, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for (from, _) in uses.keys() {
        if let Some(found) = visit(from, uses, &mut Vec::new(), &mut done) {
            let steps: Vec<String> = found
                .windows(2)
                .map(|pair| {
                    format!(
                        "{} ({})",
                        pair[1],
                        uses[&(pair[0].clone(), pair[1].clone())]
                    )
                })
                .collect();
            return Some(format!("{} -> {}", found[0], steps.join(" -> ")));
        }
    }
    None
}

fn sources() -> Vec<(PathBuf, String)> {
    layered_files()
        .into_iter()
        .map(|relative| {
            let text = std::fs::read_to_string(src().join(&relative)).expect("a source file");
            (relative, text)
        })
        .collect()
}

/// The layers keep the top modules free of circles; inside each, the modules of every
/// folder must not use each other in a circle either (`file -> schema -> check -> file`).
#[test]
fn no_folder_has_an_import_circle() {
    let circles: Vec<String> = sibling_uses(&sources())
        .iter()
        .filter_map(|(parent, uses)| {
            let name = if parent.is_empty() {
                "crate".to_string()
            } else {
                parent.join("::")
            };
            circle(uses).map(|found| format!("in {name}: {found}"))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// The circle finder finds a planted circle among siblings, not a child using its ancestor or
/// a parent its child.
#[test]
fn a_planted_import_circle_is_found() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_string());
    let planted = [
        file("scenario/mod.rs", "mod check;\nuse check::Checked;\n"),
        file("scenario/file.rs", "use super::schema as shapes;\n"),
        file("scenario/schema.rs", "use super::check::NUMBER_MAX;\n"),
        file("scenario/check/mod.rs", "use crate::scenario::Config;\n"),
        file(
            "scenario/check/pools.rs",
            "use crate::scenario::{file::PoolFile, Config};\n",
        ),
    ];
    let uses = sibling_uses(&planted);
    assert_eq!(
        circle(&uses[&vec!["scenario".to_string()]]).as_deref(),
        Some(
            "check -> file (src/scenario/check/pools.rs:1) -> schema (src/scenario/file.rs:1) \
             -> check (src/scenario/schema.rs:1)"
        )
    );
    // Without the use that closes it, no circle: the child's use of its ancestor and the
    // parent's of its child do not count.
    let open = &planted[..4];
    assert!(
        sibling_uses(open)
            .values()
            .all(|uses| circle(uses).is_none())
    );
}

/// Functions in `text` longer than `max_lines` (from `fn` to the closing brace), as
/// (name, first line, lines).
fn long_functions(text: &str, max_lines: usize) -> Vec<(String, usize, usize)> {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("fn ") {
        let at = from + n;
        from = at + 3;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let name = &code[from..from + ident_len(&code, from)];
        // The body is the first `{` before any `;` (a declaration in a trait has none).
        let Some(open) = code[from..].find(['{', ';']).map(|k| from + k) else {
            break;
        };
        if name.is_empty() || bytes[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = code.len() - 1;
        for (k, b) in bytes[open..].iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let lines = line_of(close) - line_of(at) + 1;
        if lines > max_lines {
            found.push((name.to_string(), line_of(at), lines));
        }
    }
    found
}

/// The longest a function may be: one that does not fit on a screen or two does several jobs.
const FUNCTION_LINES_MAX: usize = 150;

/// Functions allowed to be longer, each with its reason: (file under src/, name, reason).
const LONG_FUNCTIONS_ALLOWED: &[(&str, &str, &str)] = &[];

#[test]
fn no_function_is_longer_than_150_lines() {
    let mut long = Vec::new();
    for (relative, text) in sources() {
        for (name, line, lines) in long_functions(&text, FUNCTION_LINES_MAX) {
            let file = relative.display().to_string();
            if !LONG_FUNCTIONS_ALLOWED
                .iter()
                .any(|(f, n, _)| *f == file && *n == name)
            {
                long.push(format!("src/{file}:{line}: `{name}` has {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {FUNCTION_LINES_MAX} lines (split them, or name them in \
         LONG_FUNCTIONS_ALLOWED with a reason):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_function_length_check_counts_from_fn_to_its_brace() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    let text = format!(
        "trait T {{ fn declared(&self); }}\nfn short() {{\n{}}}\n/// fn in a comment {{\nfn long() -> impl Fn() -> u8 {{\n    let s = \"}}\";\n{}    || b'{{'\n}}\n",
        body(3),
        body(150)
    );
    assert_eq!(long_functions(&text, 150), [("long".to_string(), 8, 154)]);
    assert!(long_functions(&text, 154).is_empty());
}

/// ARCHITECTURE.md is the map: every source file is named in it (`free_times.rs`, or the
/// module's name in backquotes), and every folder (`charts/sweep/`).
#[test]
fn architecture_md_names_every_module() {
    let map =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    let mut unnamed = Vec::new();
    for relative in layered_files() {
        let name = relative.file_name().unwrap().to_string_lossy().into_owned();
        let named = if name == "mod.rs" {
            let folder = relative
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            map.contains(&format!("{folder}/"))
        } else {
            let stem = name.trim_end_matches(".rs");
            map.contains(&name) || map.contains(&format!("`{stem}`"))
        };
        if !named {
            unnamed.push(format!("src/{}", relative.display()));
        }
    }
    assert!(
        unnamed.is_empty(),
        "not in ARCHITECTURE.md:\n{}",
        unnamed.join("\n")
    );
}

/// `app` is what every front end calls: it knows no command line, no Python and no terminal.
#[test]
fn app_knows_no_front_end() {
    let mut found = Vec::new();
    for (relative, text) in sources() {
        if !relative.starts_with("app") {
            continue;
        }
        let code = code_only(&text);
        for word in [
            "clap",
            "pyo3",
            "crate::terminal",
            "indicatif",
            "println!",
            "eprintln!",
        ] {
            if code.contains(word) {
                found.push(format!("src/{}: {word}", relative.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "front-end code in src/app:\n{}",
        found.join("\n")
    );
}

/// Comments stand alone: the tracker is not in the repository, so no source or test cites
/// "issue N" (or a test is named `issue_N_...`); each says what and why instead.
#[test]
fn no_comment_cites_a_tracker_issue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in ["src", "tests", "benches", "python/src", "python/tests"] {
        let mut folders = vec![root.join(folder)];
        while let Some(folder) = folders.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs" || e == "py") {
                    files.push(path);
                }
            }
        }
    }
    assert!(files.len() > 100, "{files:?}");
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (n, line) in text.lines().enumerate() {
            if cites_an_issue(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "comments citing the tracker:\n{}",
        found.join("\n")
    );
}

/// Whether `line` cites an issue: the word (any case, also plural) then a number, with an
/// optional `#`, or a test name starting `issue_` and a number.
fn cites_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let word = ["issue", "s"].concat();
    lower.match_indices(&word[..5]).any(|(at, _)| {
        let before_ok = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
        let rest = &lower[at + 5..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let rest = rest.strip_prefix([' ', '_']).unwrap_or(rest);
        let rest = rest.strip_prefix('#').unwrap_or(rest);
        before_ok && rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn issue_citations_are_recognised() {
    let cite = |n: u32| format!("{}{}{n}", "Iss", "ue ");
    assert!(cites_an_issue(&format!("// ({})", cite(12))));
    assert!(cites_an_issue(&format!("/// {}'s fleet", cite(10))));
    assert!(cites_an_issue(&format!(
        "fn {}_{}() {{}}",
        "issue", "15_a_bill"
    )));
    assert!(cites_an_issue(&format!("see {}s #{}", "issue", 3)));
    assert!(!cites_an_issue("// what issues from a 2 h wait"));
    assert!(!cites_an_issue("let tissue5 = 1;"));
}
