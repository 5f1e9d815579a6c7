//! [`Method`]: how a Jacobian's entries were accumulated, D* or one of the
//! eliminations of [`crate::eliminate`].

use crate::eliminate::Elimination;
use crate::factorize::Strategy;

/// How a [`crate::Jacobian`] was accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// D* factorization ([`crate::factorize()`]).
    Dstar(Strategy),
    /// Vertex, edge or face elimination on the linearized graph.
    Elimination(Elimination),
}

impl Method {
    /// The name `dstar stats` prints: [`Strategy::name`] or [`Elimination::name`].
    pub fn name(self) -> &'static str {
        match self {
            Method::Dstar(strategy) => strategy.name(),
            Method::Elimination(elimination) => elimination.name(),
        }
    }
}
