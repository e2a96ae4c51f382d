//! Progress on a terminal: an indicatif bar on stderr, drawn only when someone watches (stderr
//! is a terminal and the command is not `--quiet`); stdout stays for data.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::progress::Progress;

/// A [`Progress`] drawn as one bar at a time on stderr.
#[derive(Debug)]
pub struct TerminalProgress {
    /// What a step is, after the count ("replications"), or nothing.
    unit: &'static str,
    shown: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl TerminalProgress {
    /// A bar whose steps are `unit` ("" for none), hidden when `quiet` or stderr is not a
    /// terminal.
    pub fn new(unit: &'static str, quiet: bool) -> Self {
        Self {
            unit,
            shown: !quiet && std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").as_ref() {
            f(bar);
        }
    }

    fn style(&self) -> ProgressStyle {
        let template = match self.unit {
            "" => "{msg} [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)".to_string(),
            unit => format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{rate}}, {{eta}} left)"),
        };
        ProgressStyle::with_template(&template)
            .expect("valid template")
            .with_key(
                "rate",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1}/s", state.per_sec());
                },
            )
            .progress_chars("=> ")
    }
}

impl Progress for TerminalProgress {
    fn begin(&self, steps: u64, label: &str) {
        let bar = if self.shown {
            let bar = ProgressBar::new(steps);
            bar.set_style(self.style());
            bar.set_message(label.to_string());
            bar
        } else {
            ProgressBar::hidden()
        };
        if let Some(old) = self.bar.lock().expect("not poisoned").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn grow(&self, steps: u64) {
        self.with_bar(|bar| bar.inc_length(steps));
    }

    fn step(&self) {
        self.with_bar(|bar| bar.inc(1));
    }

    fn relabel(&self, label: &str) {
        self.with_bar(|bar| bar.set_message(label.to_string()));
    }

    fn end(&self) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
    }
}
