//! What long work tells whoever watches it: how many steps there are, each one done, and a
//! label. The work (a run's units, a sweep's, an optimisation's stages) calls these; a front
//! end decides how to show them (the command line draws a bar on a terminal, the Python package
//! shows nothing). Calls come from worker threads, so an implementation is `Sync`.

/// A watcher of long work.
pub trait Progress: Sync {
    /// Work of `steps` steps begins, under `label` (a new bar).
    fn begin(&self, steps: u64, label: &str);
    /// `steps` more steps were found (an optimisation's next stage).
    fn grow(&self, steps: u64);
    /// One step is done.
    fn step(&self);
    /// The label changes (a sweep's points done so far).
    fn relabel(&self, label: &str);
    /// The work ended, done or not.
    fn end(&self);
}

/// Watches nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, _steps: u64, _label: &str) {}
    fn grow(&self, _steps: u64) {}
    fn step(&self) {}
    fn relabel(&self, _label: &str) {}
    fn end(&self) {}
}
