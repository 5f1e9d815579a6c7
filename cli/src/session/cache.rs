//! What the session's compiled kernels are keyed by, in the library's
//! [`KernelCache`](dstar::KernelCache) (bounded by count, least recently
//! used evicted first).

use super::statement::{Atom, FormName};

/// What a cached kernel computes. Parameter values are not part of it: they
/// are given at each call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KernelKey {
    /// A definition's value, as defined at `generation`.
    Definition { name: String, generation: u64 },
    /// A derivative form: its name and the tokens of its arguments, under
    /// the definitions of session generation `generation` (an argument may
    /// use any of them).
    Form { name: FormName, args: Vec<Atom>, generation: u64 },
}
