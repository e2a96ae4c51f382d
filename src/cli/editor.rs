//! Where planners work: `fleetsim schema` (the scenario file's JSON Schema for
//! editors), `fleetsim init` (a commented starter scenario), `fleetsim completions` and
//! `fleetsim man`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::CommandFactory;

use super::stdout::{self, outln};
use super::{Cli, Signals};
use crate::files;
use crate::scenario::{self, schema, templates};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim init                         # scenario.toml from the hybrid template\n  fleetsim init my-fleet.toml --template minimal\n  fleetsim init --list"
)]
pub(super) struct InitArgs {
    /// The scenario file to write
    #[arg(default_value = "scenario.toml", value_name = "FILE")]
    file: PathBuf,
    /// The starter to write (see --list)
    #[arg(long, value_name = "NAME", default_value = "hybrid", value_parser = parse_template)]
    template: &'static templates::Template,
    /// Overwrite FILE (and the schema beside it) if it exists
    #[arg(long)]
    force: bool,
    /// List the templates and exit
    #[arg(long)]
    list: bool,
}

fn parse_template(text: &str) -> Result<&'static templates::Template, String> {
    templates::find(text).ok_or_else(|| {
        let names: Vec<&str> = templates::TEMPLATES.iter().map(|t| t.name).collect();
        format!(
            "unknown template{}; use one of: {}",
            scenario::did_you_mean(text, names.iter().copied()),
            names.join(", ")
        )
    })
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim completions bash > ~/.local/share/bash-completion/completions/fleetsim\n  fleetsim completions zsh > ~/.zfunc/_fleetsim\n  fleetsim completions fish > ~/.config/fish/completions/fleetsim.fish"
)]
pub(super) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish
    #[arg(value_name = "SHELL")]
    shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  fleetsim man | man -l -\n  fleetsim man --out /usr/local/share/man/man1"
)]
pub(super) struct ManArgs {
    /// Write one page per command (fleetsim.1, fleetsim-run.1, ...) into this folder instead
    /// of printing fleetsim.1
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `fleetsim schema`: the JSON Schema on stdout.
pub(super) fn schema_command() -> Result<()> {
    stdout::write(schema::scenario_schema_text().as_bytes()).map_err(anyhow::Error::from)
}

/// The schema file `init` writes beside a scenario, which its `#:schema` line names.
const SCHEMA_FILE: &str = "scenario.schema.json";

/// `fleetsim init`: the template to FILE and the schema beside it, neither over an existing
/// file without `--force` (a schema fleetsim wrote before is replaced, it is generated).
pub(super) fn init(args: &InitArgs, signals: &Signals) -> Result<()> {
    if args.list {
        for template in templates::TEMPLATES {
            outln!("{:<10} {}", template.name, template.summary)?;
        }
        return Ok(());
    }
    let file = &args.file;
    if file.is_dir() {
        bail!(
            "{}: is a folder; give the scenario file to write, e.g. {}",
            file.display(),
            file.join("scenario.toml").display()
        );
    }
    if file.exists() && !args.force {
        bail!(
            "{}: exists; choose another file or add --force to overwrite it",
            file.display()
        );
    }
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if !dir.is_dir() {
        bail!("{}: no such folder", dir.display());
    }
    let file_name = file
        .file_name()
        .context("FILE must name a file")?
        .to_string_lossy()
        .into_owned();
    let name = file
        .file_stem()
        .map_or_else(|| "scenario".into(), |s| s.to_string_lossy().into_owned());
    let text = args.template.text(SCHEMA_FILE);
    // What we write must load: a failure here is a bug.
    let loaded = scenario::load_text(&text, file, &name, &[]);
    assert!(
        loaded.is_ok(),
        "template `{}` does not load: {:?}",
        args.template.name,
        loaded.err()
    );
    let schema_path = dir.join(SCHEMA_FILE);
    let schema_text = schema::scenario_schema_text();
    let write_schema = match crate::regular_file::read_to_string(
        &schema_path,
        crate::regular_file::JSON_BYTES_MAX,
    ) {
        Err(_) => !schema_path.exists(),
        Ok(existing) => existing != schema_text && (args.force || is_our_schema(&existing)),
    };
    signals.begin_work();
    let mut staged = files::Staged::default();
    staged.push(files::write_bytes(&dir, &file_name, text.as_bytes())?);
    if write_schema {
        staged.push(files::write_bytes(
            &dir,
            SCHEMA_FILE,
            schema_text.as_bytes(),
        )?);
    }
    if signals.stopped() {
        bail!(
            "interrupted: stopped by {}; {} was not written",
            signals.name(),
            file.display()
        );
    }
    staged.commit_all()?;
    let schema_note = if write_schema {
        format!(" and {} (for editors)", schema_path.display())
    } else if schema_path.is_file() {
        format!("; {} is kept as it was", schema_path.display())
    } else {
        String::new()
    };
    eprintln!(
        "wrote {} (template `{}`){schema_note}; next: fleetsim validate {0}, then fleetsim run {0}",
        file.display(),
        args.template.name
    );
    Ok(())
}

/// A schema file fleetsim wrote (any version): its title says so.
fn is_our_schema(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("title").and_then(|t| t.as_str()).map(str::to_string))
        .is_some_and(|title| title == "fleetsim scenario")
}

/// `fleetsim completions SHELL`: the script on stdout.
pub(super) fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "fleetsim", &mut script);
    stdout::write(&script).map_err(anyhow::Error::from)
}

/// `fleetsim man`: fleetsim.1 on stdout, or every page into `--out`.
pub(super) fn man(args: &ManArgs, signals: &Signals) -> Result<()> {
    let command = Cli::command();
    match &args.out {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .context("cannot render the man page")?;
            stdout::write(&page).map_err(anyhow::Error::from)
        }
        Some(dir) => {
            files::create_dir(dir)?;
            signals.begin_work();
            let mut staged = files::Staged::default();
            let mut names = Vec::new();
            for (name, page) in pages(command)? {
                staged.push(files::write_bytes(dir, &name, &page)?);
                names.push(name);
            }
            staged.commit_all()?;
            eprintln!("wrote {} to {}", names.join(", "), dir.display());
            Ok(())
        }
    }
}

/// The pages of a command and its subcommands: `fleetsim.1`, `fleetsim-run.1`, ... (built
/// as clap_mangen's `generate_to` does, so pages name their whole command path).
fn pages(command: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    fn collect(command: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
        let man = clap_mangen::Man::new(command.clone());
        let mut page = Vec::new();
        man.render(&mut page)
            .context("cannot render the man page")?;
        pages.push((man.get_filename(), page));
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            collect(sub, pages)?;
        }
        Ok(())
    }
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    collect(&command, &mut pages)?;
    Ok(pages)
}
