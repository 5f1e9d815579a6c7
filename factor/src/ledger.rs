//! [`Ledger`]: the work each symbolic stage spent, in the units its budget
//! counts, and every budget or size guard that stopped a method, with what
//! was built instead.
//!
//! The counts are of work done (pairs visited, entries pushed, e-nodes
//! searched), never of time, so the same input gives the same ledger on
//! every machine, and a test can check that they grow with the input no
//! faster than its size allows.

use std::fmt;

/// A symbolic stage whose work the ledger counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// The derivative graphs: their edges.
    Graph,
    /// D* on the function's graph: path-sum pairs visited, every variant
    /// built counted, kept or not.
    Dstar,
    /// Planning the competing eliminations: the multiplications and
    /// additions of each.
    Eliminations,
    /// Edge pushing: second-order entries pushed.
    EdgePushing,
    /// D* on the gradient's graph, the Hessian's alternative to edge
    /// pushing: path-sum pairs visited.
    GradientDstar,
    /// The common-subchain pass: pair-count updates and e-graph work.
    Simplify,
    /// A Hessian by columns ([`crate::columns`]): the operations of its
    /// `H·V` kernels and the words of its pattern's passes.
    Columns,
}

impl Stage {
    /// Every stage, in the order reports list them.
    pub const ALL: [Stage; 7] = [
        Stage::Graph,
        Stage::Dstar,
        Stage::Eliminations,
        Stage::EdgePushing,
        Stage::GradientDstar,
        Stage::Simplify,
        Stage::Columns,
    ];

    /// A short machine-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Graph => "graph",
            Stage::Dstar => "dstar",
            Stage::Eliminations => "eliminations",
            Stage::EdgePushing => "edge_pushing",
            Stage::GradientDstar => "gradient_dstar",
            Stage::Simplify => "simplify",
            Stage::Columns => "columns",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A method a guard of [`crate::plan`] stopped or never started, and what
/// was built instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    /// The stage whose method was stopped.
    pub stage: Stage,
    /// What hit the guard, with its limit (`factored D* over 12,000 pairs`).
    pub stopped: String,
    /// What was built instead (`the plain sweep`).
    pub instead: &'static str,
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}; built {} instead", self.stage, self.stopped, self.instead)
    }
}

/// Work spent per [`Stage`], and the fallbacks taken, in the order taken.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    spent: [u64; Stage::ALL.len()],
    fallbacks: Vec<Fallback>,
}

impl Ledger {
    /// Counts `units` of work against `stage`.
    pub fn spend(&mut self, stage: Stage, units: u64) {
        let slot = &mut self.spent[stage as usize];
        *slot = slot.saturating_add(units);
    }

    /// Records that `stopped` made `stage` build `instead`.
    pub fn fall_back(&mut self, stage: Stage, stopped: String, instead: &'static str) {
        self.fallbacks.push(Fallback { stage, stopped, instead });
    }

    /// The work `stage` spent.
    pub fn spent(&self, stage: Stage) -> u64 {
        self.spent[stage as usize]
    }

    /// The work of every stage together.
    pub fn total(&self) -> u64 {
        self.spent.iter().fold(0u64, |sum, &units| sum.saturating_add(units))
    }

    /// The fallbacks taken, in order.
    pub fn fallbacks(&self) -> &[Fallback] {
        &self.fallbacks
    }

    /// Adds `other`'s work and fallbacks to this ledger's.
    pub fn absorb(&mut self, other: &Ledger) {
        for stage in Stage::ALL {
            self.spend(stage, other.spent(stage));
        }
        self.fallbacks.extend(other.fallbacks.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spending_adds_up_per_stage_and_saturates() {
        let mut ledger = Ledger::default();
        ledger.spend(Stage::Dstar, 5);
        ledger.spend(Stage::Dstar, 7);
        ledger.spend(Stage::Graph, u64::MAX);
        ledger.spend(Stage::Graph, 1);
        assert_eq!(ledger.spent(Stage::Dstar), 12);
        assert_eq!(ledger.spent(Stage::Graph), u64::MAX);
        assert_eq!(ledger.total(), u64::MAX);
        let mut other = Ledger::default();
        other.spend(Stage::Simplify, 3);
        other.fall_back(Stage::Simplify, "over 3 units".into(), "the kernel as accumulated");
        ledger.absorb(&other);
        assert_eq!(ledger.spent(Stage::Simplify), 3);
        assert_eq!(
            ledger.fallbacks()[0].to_string(),
            "simplify: over 3 units; built the kernel as accumulated instead"
        );
    }
}
