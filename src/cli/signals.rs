//! SIGINT (Ctrl-C), SIGTERM and SIGHUP (what Slurm and Kubernetes send), handled alike by
//! every command.
//!
//! Until a command begins work that leaves files behind (it takes its output folder, draws
//! charts, writes `fit --out`), a signal ends the process at once with 128 + the signal's
//! number: nothing is written yet, so there is nothing to clean up, and loading a scenario or
//! reading a trace stops within a second. From then on a signal sets the stop flag, which the
//! simulation (between units and chunks of events), the writing, the charts (between charts),
//! sweeps and merges poll; the command then removes its temporaries (and a folder it created
//! and left empty) and exits with the same code: 130 for SIGINT, 143 for SIGTERM, 129 for
//! SIGHUP. A second signal while stopping exits at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// The signals a command stops on.
#[cfg(unix)]
const SIGNALS: [i32; 3] = [SIGINT, SIGTERM, signal_hook::consts::SIGHUP];
#[cfg(not(unix))]
const SIGNALS: [i32; 2] = [SIGINT, SIGTERM];

/// The process's signal handling, set up once by `cli::main`.
#[derive(Debug, Clone)]
pub struct Signals {
    /// Set by the first signal once work has begun; polled by the work.
    pub stop: Arc<AtomicBool>,
    /// The number of the last signal, 0 before any.
    signal: Arc<AtomicUsize>,
    /// While true (before work begins), a signal ends the process at once.
    exit_now: Arc<AtomicBool>,
}

impl Signals {
    /// Installs the handlers. Fails only if the OS refuses them; the command then runs with
    /// the default handlers (which end it at once, with the same exit codes as seen by a shell).
    pub fn install() -> Self {
        let signals = Signals {
            stop: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicUsize::new(0)),
            exit_now: Arc::new(AtomicBool::new(true)),
        };
        for signal in SIGNALS {
            let code = 128 + signal;
            // In this order: the shutdowns look at the flags before this signal sets them.
            let _ =
                flag::register_conditional_shutdown(signal, code, Arc::clone(&signals.exit_now));
            let _ = flag::register_conditional_shutdown(signal, code, Arc::clone(&signals.stop));
            let _ = flag::register_usize(signal, Arc::clone(&signals.signal), signal as usize);
            let _ = flag::register(signal, Arc::clone(&signals.stop));
        }
        signals
    }

    /// Work that leaves files begins: from now on a signal asks it to stop and clean up.
    pub fn begin_work(&self) {
        self.exit_now.store(false, Ordering::SeqCst);
    }

    /// Whether a signal asked the command to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// How messages name the signal that stopped the command.
    pub fn name(&self) -> &'static str {
        match self.signal.load(Ordering::SeqCst) as i32 {
            SIGTERM => "SIGTERM",
            #[cfg(unix)]
            signal_hook::consts::SIGHUP => "SIGHUP",
            _ => "Ctrl-C",
        }
    }

    /// "stopped by SIGTERM: " when a signal stopped the command, else nothing: the start of
    /// a message about what was left undone.
    pub fn why(&self) -> String {
        if self.stopped() {
            format!("stopped by {}: ", self.name())
        } else {
            String::new()
        }
    }

    /// The exit code of a command the signal stopped: 128 + its number.
    pub fn exit_code(&self) -> u8 {
        match self.signal.load(Ordering::SeqCst) as i32 {
            0 => super::EXIT_INTERRUPTED,
            signal => u8::try_from(128 + signal).unwrap_or(super::EXIT_INTERRUPTED),
        }
    }
}
