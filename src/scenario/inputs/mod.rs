//! The files a scenario names besides itself, read while it loads and checked against it:
//! a trace workload's job trace and what the scenario makes of it ([`replay`]: exact or
//! bootstrap replay, growth, GPU types and speeds, gangs that fit no pool), a service's
//! measured demand ([`demand`]), the pools' price and electricity curves ([`prices`]) and the
//! spot pools' availability traces ([`availability`]). The readers of job-trace formats are
//! the `trace` module's; these attach what they read to the checked scenario.

pub mod availability;
pub mod demand;
pub mod prices;
pub mod replay;

pub use replay::TraceCache;

/// For the readers' tests: `text` in a file named `name` in a new temporary folder, removed
/// with the folder when it is dropped.
#[cfg(test)]
fn write_temp(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// The config pools that `written` became: itself, or one per instance size.
pub(crate) fn pools_of<'a>(
    pools: &'a mut [crate::scenario::config::Pool],
    written: &'a crate::scenario::file::PoolFile,
) -> impl Iterator<Item = &'a mut crate::scenario::config::Pool> {
    pools
        .iter_mut()
        .filter(move |pool| pool.family() == written.name)
}
