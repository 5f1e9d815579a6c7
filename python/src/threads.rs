//! The threads a batch runs on: all cores (rayon's global pool) unless
//! `dstar.set_num_threads(n)` chose a pool of `n`.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Arc, RwLock};

/// The chosen pool; `None` is rayon's global pool, one thread per core.
static POOL: RwLock<Option<Arc<rayon::ThreadPool>>> = RwLock::new(None);

fn chosen() -> Option<Arc<rayon::ThreadPool>> {
    // The lock guards a pointer swap: a panic cannot leave it half written.
    POOL.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

/// Runs `work` (which spawns rayon tasks) on the chosen pool. A batch that
/// started keeps its pool when another thread chooses a new one.
pub(crate) fn install<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match chosen() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Sets the number of threads batches run on: ``n`` threads, or one per
/// core (the default) for ``None``. Applies to every ``Function`` of the
/// process, from the next batch on; one-point calls always run on the
/// calling thread.
///
/// >>> dstar.set_num_threads(1)
/// >>> dstar.num_threads()
/// 1
/// >>> dstar.set_num_threads(None)  # back to all cores
#[guard::guarded]
#[pyfunction]
pub fn set_num_threads(n: Option<usize>) -> PyResult<()> {
    let pool = match n {
        None => None,
        Some(0) => return Err(PyValueError::new_err("set_num_threads needs n >= 1, or None for all cores")),
        Some(n) => Some(Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("dstar-{i}"))
                .build()
                .map_err(|e| PyRuntimeError::new_err(format!("cannot start {n} threads: {e}")))?,
        )),
    };
    *POOL.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = pool;
    Ok(())
}

/// The number of threads batches run on (see :func:`set_num_threads`).
#[guard::guarded]
#[pyfunction]
pub fn num_threads() -> usize {
    chosen().map_or_else(rayon::current_num_threads, |pool| pool.current_num_threads())
}
