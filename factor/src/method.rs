//! [`Method`]: how a Jacobian's entries were accumulated, D* or one of the
//! eliminations of [`eliminate`].

use derivative::Strategy;
use eliminate::Elimination;
use std::fmt;

/// How a [`crate::Jacobian`] was accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// D* factorization ([`derivative::factorize()`]).
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

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
