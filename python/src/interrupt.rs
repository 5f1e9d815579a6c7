//! Ctrl-C during native work: the work runs on a helper thread with the GIL
//! released while the calling thread waits for it and lets Python handle
//! signals; a handler that raises (Ctrl-C's `KeyboardInterrupt`) sets the
//! work's [`dstar::Stop`], which the library asks between units of work
//! (batches of compiled chunks, points of a batch), and the exception is
//! raised once the work has returned. Without this a signal waited for the
//! work to end (36 s for a kernel of 200,000 terms).

use dstar::Stop;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How often the waiting thread lets Python handle signals.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` (given the stop it must honour) with the GIL released, as
/// the module doc says; a signal's exception is raised instead of its
/// result.
pub(crate) fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce(&Stop) -> T + Send) -> PyResult<T> {
    let flag = Arc::new(AtomicBool::new(false));
    let stop = Stop::flag(Arc::clone(&flag));
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel();
            scope.spawn(move || {
                let _ = done.send(work(&stop));
            });
            loop {
                match finished.recv_timeout(POLL) {
                    Ok(value) => return Some(value),
                    Err(mpsc::RecvTimeoutError::Timeout) if raised.is_none() => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            raised = Some(e);
                            flag.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    // The work panicked; the scope raises its panic.
                    Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                }
            }
        })
    });
    match (raised, result) {
        (Some(e), _) => Err(e),
        (None, Some(value)) => Ok(value),
        (None, None) => Err(PyRuntimeError::new_err("the computation ended unexpectedly")),
    }
}
