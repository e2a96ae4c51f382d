//! The starters `fleetsim init` writes: commented scenario files that validate as
//! written, each beginning with a `#:schema` line for editors.

use super::DEFAULT_SCENARIO;

/// A starter scenario.
#[derive(Debug, PartialEq, Eq)]
pub struct Template {
    pub name: &'static str,
    /// One line for `fleetsim init --list`.
    pub summary: &'static str,
    source: &'static str,
}

/// Every template, the default (`hybrid`) first.
pub const TEMPLATES: [Template; 3] = [
    Template {
        name: "hybrid",
        summary: "the built-in default: cloud on-demand, reserved, and a DGX base with on-demand or spot burst (24 months)",
        source: DEFAULT_SCENARIO,
    },
    Template {
        name: "minimal",
        summary: "one workload, an on-demand and a spot pool, two strategies (12 months)",
        source: include_str!("../../assets/templates/minimal.toml"),
    },
    Template {
        name: "inference",
        summary: "an inference service beside fine-tuning and training: all cloud against a DGX base",
        source: include_str!("../../scenarios/inference-and-training.toml"),
    },
];

/// The template called `name`.
pub fn find(name: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| t.name == name)
}

impl Template {
    /// The file to write: its `#:schema` line names `schema` (a path relative to the written
    /// file, or a URL), and its top-level `name` is left to the file's name (commented out), so
    /// that results go to `output/<file name>/`.
    pub fn text(&self, schema: &str) -> String {
        let mut text = format!("#:schema {schema}\n");
        let mut in_top_level = true;
        for line in self.source.lines() {
            if line.starts_with("#:schema") {
                continue;
            }
            if line.starts_with('[') {
                in_top_level = false;
            }
            if in_top_level && line.starts_with("name = ") {
                text.push_str(&format!(
                    "# {line}   # optional: names the output folder; default: the file name\n"
                ));
                continue;
            }
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_names_the_schema_and_leaves_the_name_to_the_file() {
        let text = find("hybrid").unwrap().text("scenario.schema.json");
        assert!(
            text.starts_with("#:schema scenario.schema.json\n# hybrid-vs-cloud:"),
            "{text}"
        );
        assert_eq!(text.matches("#:schema").count(), 1);
        assert!(text.contains(
            "\n# name = \"hybrid-vs-cloud\"   # optional: names the output folder; default: the file name\n"
        ));
        // Names of workloads and pools stay.
        assert!(text.contains("\nname = \"dgx\"\n"));
        assert!(find("none").is_none());
    }
}
