//! Simulating without the GIL: the work runs on its own rayon pool while the calling thread,
//! GIL released, waits for it and looks for Ctrl-C (Jupyter's "interrupt the kernel") between
//! waits, so other Python threads run meanwhile and an interrupt stops the simulation.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use pyo3::panic::PanicException;
use pyo3::prelude::*;

/// How long the caller waits, GIL released, between looks for a signal.
const SIGNAL_CHECK_EVERY: Duration = Duration::from_millis(100);

/// Set when the work ends, even by a panic (on drop).
struct Finished<'a>(&'a (Mutex<bool>, Condvar));

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let (done, condvar) = self.0;
        *done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        condvar.notify_all();
    }
}

/// The worker threads: `threads`, or all cores.
pub fn threads_or_all(threads: Option<u16>) -> usize {
    match threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Runs `work` on a pool of `threads` workers with the GIL released. `work` gets the pool and
/// the stop flag, which a signal sets (Python's handler raised, e.g. `KeyboardInterrupt`): then
/// the work is waited for and the signal's exception returned. A panic becomes a
/// `PanicException` (a bug in fleetsim, with its message).
pub fn run<T: Send>(
    py: Python<'_>,
    threads: usize,
    work: impl FnOnce(&rayon::ThreadPool, &AtomicBool) -> T + Send,
) -> PyResult<T> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PyErr::new::<pyo3::exceptions::PyRuntimeError, _>(e.to_string()))?;
    let stop = AtomicBool::new(false);
    let finished = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _finished = Finished(&finished);
            pool.install(|| work(&pool, &stop))
        });
        let mut signal = None;
        while !py.detach(|| wait(&finished, SIGNAL_CHECK_EVERY)) {
            if let Err(error) = py.check_signals() {
                stop.store(true, Ordering::SeqCst);
                signal = Some(error);
                py.detach(|| while !wait(&finished, SIGNAL_CHECK_EVERY) {});
                break;
            }
        }
        let result = py.detach(|| worker.join());
        match (signal, result) {
            (Some(error), _) => Err(error),
            (None, Ok(value)) => Ok(value),
            (None, Err(panic)) => Err(PanicException::new_err(panic_message(&*panic))),
        }
    })
}

/// Waits up to `timeout` for the work to finish; whether it has.
fn wait(finished: &(Mutex<bool>, Condvar), timeout: Duration) -> bool {
    let (done, condvar) = finished;
    let guard = done
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (guard, _) = condvar
        .wait_timeout_while(guard, timeout, |done| !*done)
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *guard
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("fleetsim panicked (a bug; please report it with the scenario): {text}")
}
