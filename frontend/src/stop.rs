//! [`Stop`]: a caller's request to stop a long computation, which the
//! stages check between their units of work (a batch of compiled chunks, an
//! order of a derivative, a point of a batch), never on a timer: the REPL's
//! Ctrl-C and the Python package's `KeyboardInterrupt` set it.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The hook by which a caller asks a computation to stop; [`Stop::never`]
/// by default. Cloning shares the hook.
///
/// ```
/// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
/// let flag = Arc::new(AtomicBool::new(false));
/// let stop = frontend::Stop::flag(Arc::clone(&flag));
/// assert!(!stop.requested());
/// flag.store(true, Ordering::Relaxed);
/// assert!(stop.requested());
/// assert!(!frontend::Stop::never().requested());
/// ```
#[derive(Clone, Default)]
pub struct Stop(Option<Arc<dyn Fn() -> bool + Send + Sync>>);

impl Stop {
    /// A computation nobody stops.
    pub fn never() -> Stop {
        Stop(None)
    }

    /// Stops once `hook` returns true; it is called between units of work,
    /// from any thread of the computation, and should be cheap.
    pub fn new(hook: impl Fn() -> bool + Send + Sync + 'static) -> Stop {
        Stop(Some(Arc::new(hook)))
    }

    /// Stops when `flag` is set (by a signal handler, or a thread waiting
    /// for the computation).
    pub fn flag(flag: Arc<AtomicBool>) -> Stop {
        Stop::new(move || flag.load(Ordering::Relaxed))
    }

    /// Whether the caller has asked to stop.
    pub fn requested(&self) -> bool {
        self.0.as_ref().is_some_and(|hook| hook())
    }

    /// Stops when `self` or `other` asks to: a caller's own stop on top
    /// of one it was given.
    ///
    /// ```
    /// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
    /// let flag = Arc::new(AtomicBool::new(false));
    /// let either = frontend::Stop::never().or(&frontend::Stop::flag(Arc::clone(&flag)));
    /// assert!(!either.requested());
    /// flag.store(true, Ordering::Relaxed);
    /// assert!(either.requested());
    /// ```
    pub fn or(&self, other: &Stop) -> Stop {
        match (&self.0, &other.0) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            _ => {
                let (a, b) = (self.clone(), other.clone());
                Stop::new(move || a.requested() || b.requested())
            }
        }
    }
}

impl fmt::Debug for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Stop(hook)" } else { "Stop::never()" })
    }
}
