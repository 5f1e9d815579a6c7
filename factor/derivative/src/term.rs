//! Signed terms: a node together with a pending negation.
//!
//! Partials such as `d(a-b)/db = -1` or `d cos(u)/du = -sin(u)` carry a sign.
//! Multiplying by them literally would cost a `neg` per use; carrying the sign
//! instead turns `acc + (-t)` into `acc - t` and `(-s) * (-t)` into `s * t`,
//! which is exact in IEEE arithmetic (negation commutes with rounding) and free.
//! Products and sums go through [`mod@crate::product`], so that a selector
//! partial selects rather than multiplies.

use crate::product::{merge, product};
use frontend::{ExprDag, NodeId, Op};

/// `node`, negated if `negated` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// The magnitude node (never a `neg` node, never a negative constant).
    pub node: NodeId,
    /// Whether the term's value is `-node`.
    pub negated: bool,
}

impl Term {
    /// The term for `node`, pulling an outer negation (or the sign of a
    /// negative constant) into the flag.
    pub fn of(dag: &mut ExprDag, node: NodeId) -> Term {
        match dag.op(node) {
            Op::Neg => Term { node: dag.args(node)[0], negated: true },
            Op::Const(c) if c.get() < 0.0 => Term { node: dag.constant(-c.get()), negated: true },
            _ => Term { node, negated: false },
        }
    }

    /// The constant one.
    pub fn one(dag: &mut ExprDag) -> Term {
        Term { node: dag.constant(1.0), negated: false }
    }

    /// `self * other`, by [`product`]: a selector factor selects.
    pub fn mul(self, other: Term, dag: &mut ExprDag) -> Term {
        let node = product(dag, self.node, other.node);
        Term::of(dag, node).flip(self.negated ^ other.negated)
    }

    /// `self + other`, as a subtraction when exactly one side is negated,
    /// or as one select when the two are the branch partials of one select
    /// ([`merge`]); a constant zero term is dropped, as in [`crate::sum`].
    pub fn add(self, other: Term, dag: &mut ExprDag) -> Term {
        // A constant zero term (paths that cancelled) adds nothing.
        if dag.as_const(other.node) == Some(0.0) {
            return self;
        }
        if dag.as_const(self.node) == Some(0.0) {
            return other;
        }
        let merged = match (self.negated, other.negated) {
            (false, false) | (true, true) => {
                merge(dag, self.node, other.node, false).map(|m| (m, self.negated))
            }
            (false, true) => merge(dag, self.node, other.node, true).map(|m| (m, false)),
            (true, false) => merge(dag, other.node, self.node, true).map(|m| (m, false)),
        };
        if let Some((node, negated)) = merged {
            return Term::of(dag, node).flip(negated);
        }
        let (node, negated) = match (self.negated, other.negated) {
            (false, false) => (dag.add(self.node, other.node), false),
            (false, true) => (dag.sub(self.node, other.node), false),
            (true, false) => (dag.sub(other.node, self.node), false),
            (true, true) => (dag.add(self.node, other.node), true),
        };
        Term::of(dag, node).flip(negated)
    }

    /// The node computing this term's value (a `neg` only if still negated).
    pub fn materialize(self, dag: &mut ExprDag) -> NodeId {
        if self.negated {
            dag.neg(self.node)
        } else {
            self.node
        }
    }

    fn flip(self, negate: bool) -> Term {
        Term { node: self.node, negated: self.negated ^ negate }
    }
}

/// Sums `terms` left to right; `None` for an empty sum (a structural zero).
pub fn sum(dag: &mut ExprDag, terms: impl IntoIterator<Item = Term>) -> Option<Term> {
    terms.into_iter().fold(None, |acc, t| Some(acc.map_or(t, |acc: Term| acc.add(t, dag))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_fold_into_subtraction() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let neg_y = dag.neg(y);
        let tx = Term::of(&mut dag, x);
        let ty = Term::of(&mut dag, neg_y);
        assert_eq!(ty, Term { node: y, negated: true });
        let difference = tx.add(ty, &mut dag).materialize(&mut dag);
        assert_eq!(dag.op(difference), Op::Sub);
        let product = ty.mul(ty, &mut dag);
        assert!(!product.negated);
        let minus_one = dag.constant(-1.0);
        let unit = Term::of(&mut dag, minus_one);
        let scaled = tx.mul(unit, &mut dag);
        assert_eq!(scaled, Term { node: x, negated: true });
        let value = frontend::eval(&dag, &[difference], &[5.0, 3.0])[0];
        assert_eq!(value, 2.0);
    }
}
