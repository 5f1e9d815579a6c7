//! Products and sums of partials, with the semantics of the branch taken.
//!
//! The partials of `ifelse(c, x, y)`, `min` and `max` are *selectors*,
//! `ifelse(c, 1, 0)` and `ifelse(c, 0, 1)` ([`crate::rules`]). Multiplied as
//! numbers they leak the branch not taken: in `ifelse(y != 0, x/y, x)` at
//! `y = 0` the path through `x/y` carries `0 · inf`, NaN, although the
//! derivative of the branch taken is `1`. So every accumulation (D*, the
//! tangent and adjoint sweeps, the eliminations, the scarcity remainder)
//! multiplies and adds partials here, and here a product with a selector
//! *selects*: `ifelse(c, s, 0) · t` is built as `ifelse(c, s·t, 0)`, which is
//! `0` for every `t` when `c` fails, NaN and infinities included.
//!
//! Vocabulary. A *guard* is a select one of whose branches is the constant
//! `±0`, the other its *branch*. A node *may be deselected* when its value
//! may be a zero that stands for paths which all pass a branch not taken: a
//! guard, a select with such a branch, a sum or difference of two such
//! nodes, a negation of one. Such a zero must absorb the other factor of a
//! product ([`product`]); any other value multiplies as IEEE numbers do, so
//! a selected branch's own `0 · inf` still gives NaN, as the chain rule does.
//!
//! This is the semantics of forward-mode dual numbers that take the chosen
//! branch's tangent at a select: wherever those are finite, so are the
//! accumulations built here, and they agree up to rounding. It lives here
//! and not in [`ExprDag::apply`], because a user's own `ifelse(x < 0, 1, 0) * y`
//! is a value with IEEE semantics.

use frontend::{Cmp, ExprDag, NodeId, Op};

/// At most this many nodes are inspected to decide whether a node may be
/// deselected; past it the answer is "maybe", which is always safe (the
/// product then tests for zero at run time).
const INSPECTION_BUDGET: usize = 32;

/// `a · b` for two partials or path sums: the IEEE product, except that a
/// factor which may be deselected ([`may_be_deselected`]) absorbs the other
/// one when it is zero.
///
/// A guard `ifelse(c, s, 0)` whose branch cannot be deselected itself is
/// *peeled*: the product is `ifelse(c, s·t, 0)`, one select in place of the
/// multiplication (and no multiplication at all when `s` is `1`). Any other
/// factor that may be deselected (a sum of guards, nested guards) is
/// *tested*: `ifelse(a == 0, 0, a·t)`, one select more. So a product never
/// builds more than three nodes, however deep its factors are. Unit
/// constants fold as in [`ExprDag::mul`]: `a · 1 = a`, `a · (-1) = -a`.
pub fn product(dag: &mut ExprDag, a: NodeId, b: NodeId) -> NodeId {
    let is_unit = |dag: &ExprDag, x: NodeId| dag.as_const(x).is_some_and(|c| c.abs() == 1.0);
    if is_unit(dag, a) || is_unit(dag, b) {
        return dag.mul(a, b);
    }
    let (outer, left) = Wrapper::of(dag, a);
    let (inner, right) = Wrapper::of(dag, b);
    let mut value = dag.mul(left, right);
    if inner != outer {
        value = inner.wrap(dag, value);
    }
    outer.wrap(dag, value)
}

/// `a + b` for two partials or path sums: the sum of two selects on the
/// same condition whose nonzero branches do not overlap
/// (`ifelse(c, s, 0) + ifelse(c, 0, t)`, the two branch partials of one
/// `ifelse`) is the single select `ifelse(c, s, t)`; any other sum is an
/// addition.
pub fn sum(dag: &mut ExprDag, a: NodeId, b: NodeId) -> NodeId {
    merge(dag, a, b, false).unwrap_or_else(|| dag.add(a, b))
}

/// `a + b` (or `a - b` when `negate_b`) as one select, if `a` and `b` are
/// selects on the same condition whose branches pair a zero with a value in
/// each slot, and no new operation is needed: a branch of `b` that must be
/// negated must be a constant. `None` otherwise.
pub fn merge(dag: &mut ExprDag, a: NodeId, b: NodeId, negate_b: bool) -> Option<NodeId> {
    let (Op::Select(cmp), Op::Select(other)) = (dag.op(a), dag.op(b)) else { return None };
    let ([p, q, x1, y1], [p2, q2, x2, y2]) = (args4(dag, a), args4(dag, b));
    if cmp != other || p != p2 || q != q2 {
        return None;
    }
    let pick = |dag: &mut ExprDag, first: NodeId, second: NodeId| -> Option<NodeId> {
        if is_zero(dag, second) {
            Some(first)
        } else if !is_zero(dag, first) {
            None
        } else if !negate_b {
            Some(second)
        } else {
            let c = dag.as_const(second)?;
            Some(dag.constant(-c))
        }
    };
    let x = pick(dag, x1, x2)?;
    let y = pick(dag, y1, y2)?;
    Some(dag.apply(Op::Select(cmp), &[p, q, x, y]))
}

/// Whether `node`'s value may be a zero standing for paths that all pass a
/// branch not taken (see the module documentation). Conservative: `true`
/// when the node is too large to inspect.
pub fn may_be_deselected(dag: &ExprDag, node: NodeId) -> bool {
    let mut budget = INSPECTION_BUDGET;
    inspect(dag, node, &mut budget)
}

/// [`may_be_deselected`] within `budget` inspected nodes; the recursion is
/// at most `budget` deep.
fn inspect(dag: &ExprDag, node: NodeId, budget: &mut usize) -> bool {
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    match dag.op(node) {
        Op::Select(_) => {
            let [_, _, x, y] = args4(dag, node);
            is_zero(dag, x) || is_zero(dag, y) || inspect(dag, x, budget) || inspect(dag, y, budget)
        }
        Op::Add | Op::Sub => {
            let [a, b] = [dag.args(node)[0], dag.args(node)[1]];
            inspect(dag, a, budget) && inspect(dag, b, budget)
        }
        Op::Neg => inspect(dag, dag.args(node)[0], budget),
        _ => false,
    }
}

/// How a factor that may be deselected keeps its zero in a product.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrapper {
    /// Nothing to keep: the factor is never a deselected zero.
    None,
    /// The factor is the guard `ifelse(p cmp q, ·, 0)` (`slot` 2) or
    /// `ifelse(p cmp q, 0, ·)` (`slot` 3) around its branch.
    Guard { cmp: Cmp, p: NodeId, q: NodeId, slot: usize },
    /// The factor may be deselected in a way too deep to peel: the product
    /// is zero when the factor is.
    ZeroTest(NodeId),
}

impl Wrapper {
    /// The wrapper of factor `x` and what remains to multiply.
    fn of(dag: &mut ExprDag, x: NodeId) -> (Wrapper, NodeId) {
        if let Op::Select(cmp) = dag.op(x) {
            let [p, q, a, b] = args4(dag, x);
            let guard = match (is_zero(dag, a), is_zero(dag, b)) {
                (false, true) => Some((2, a)),
                (true, false) => Some((3, b)),
                _ => None,
            };
            if let Some((slot, branch)) = guard.filter(|&(_, branch)| !may_be_deselected(dag, branch)) {
                return (Wrapper::Guard { cmp, p, q, slot }, branch);
            }
        }
        if may_be_deselected(dag, x) {
            (Wrapper::ZeroTest(x), x)
        } else {
            (Wrapper::None, x)
        }
    }

    /// `value` under this wrapper.
    fn wrap(self, dag: &mut ExprDag, value: NodeId) -> NodeId {
        let zero = dag.constant(0.0);
        match self {
            Wrapper::None => value,
            Wrapper::Guard { cmp, p, q, slot: 2 } => dag.apply(Op::Select(cmp), &[p, q, value, zero]),
            Wrapper::Guard { cmp, p, q, .. } => dag.apply(Op::Select(cmp), &[p, q, zero, value]),
            Wrapper::ZeroTest(x) => dag.apply(Op::Select(Cmp::Eq), &[x, zero, zero, value]),
        }
    }
}

/// The four arguments of a select.
fn args4(dag: &ExprDag, select: NodeId) -> [NodeId; 4] {
    let args = dag.args(select);
    [args[0], args[1], args[2], args[3]]
}

/// Whether `x` is the constant `+0` or `-0`.
fn is_zero(dag: &ExprDag, x: NodeId) -> bool {
    dag.as_const(x) == Some(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ifelse(x0 > 0, 1, 0)`, `ifelse(x0 > 0, 0, 1)` and `1/x1` (infinite at `x1 = 0`).
    fn setup(dag: &mut ExprDag) -> (NodeId, NodeId, NodeId) {
        let x = dag.input(0);
        let y = dag.input(1);
        let [zero, one] = [dag.constant(0.0), dag.constant(1.0)];
        let taken = dag.apply(Op::Select(Cmp::Gt), &[x, zero, one, zero]);
        let not_taken = dag.apply(Op::Select(Cmp::Gt), &[x, zero, zero, one]);
        let inverse = dag.div(one, y);
        (taken, not_taken, inverse)
    }

    fn value(dag: &ExprDag, node: NodeId, x: &[f64]) -> f64 {
        frontend::eval(dag, &[node], x)[0]
    }

    #[test]
    fn a_selector_selects_instead_of_multiplying() {
        let mut dag = ExprDag::new();
        let (taken, _, inverse) = setup(&mut dag);
        let p = product(&mut dag, taken, inverse);
        assert_eq!(dag.op(p), Op::Select(Cmp::Gt), "no multiplication: {dag:?}");
        assert_eq!(value(&dag, p, &[-1.0, 0.0]), 0.0, "0 · inf is 0 when the branch is not taken");
        assert_eq!(value(&dag, p, &[1.0, 4.0]), 0.25);
        assert_eq!(product(&mut dag, inverse, taken), p, "either order");
        let one = dag.constant(1.0);
        assert_eq!(product(&mut dag, taken, one), taken, "unit factors fold");
    }

    #[test]
    fn chains_of_selectors_stay_selected() {
        let mut dag = ExprDag::new();
        let (taken, _, inverse) = setup(&mut dag);
        let z = dag.input(2);
        let zero = dag.constant(0.0);
        let one = dag.constant(1.0);
        let other = dag.apply(Op::Select(Cmp::Lt), &[z, zero, one, zero]);
        let both = product(&mut dag, taken, other);
        let p = product(&mut dag, both, inverse);
        let q = product(&mut dag, inverse, both);
        for (x, expected) in [([1.0, 0.0, 1.0], 0.0), ([-1.0, 0.0, -1.0], 0.0), ([1.0, 2.0, -1.0], 0.5)] {
            assert_eq!(value(&dag, p, &x), expected, "{x:?}");
            assert_eq!(value(&dag, q, &x), expected, "{x:?}");
        }
    }

    #[test]
    fn sums_of_deselected_terms_stay_zero() {
        let mut dag = ExprDag::new();
        let (taken, _, inverse) = setup(&mut dag);
        let z = dag.input(2);
        let zero = dag.constant(0.0);
        let one = dag.constant(1.0);
        let other = dag.apply(Op::Select(Cmp::Lt), &[z, zero, one, zero]);
        let total = sum(&mut dag, taken, other);
        assert!(may_be_deselected(&dag, total));
        let p = product(&mut dag, total, inverse);
        assert_eq!(value(&dag, p, &[-1.0, 0.0, 1.0]), 0.0, "both branches not taken");
        assert_eq!(value(&dag, p, &[1.0, 2.0, -1.0]), 1.0, "both taken");
        assert!(value(&dag, p, &[1.0, 0.0, 1.0]).is_infinite(), "a taken branch keeps its infinity");
    }

    #[test]
    fn the_two_branch_partials_of_one_select_merge() {
        let mut dag = ExprDag::new();
        let (taken, not_taken, inverse) = setup(&mut dag);
        let y = dag.input(1);
        let s = product(&mut dag, taken, inverse);
        let t = product(&mut dag, not_taken, y);
        let merged = sum(&mut dag, s, t);
        let x = dag.input(0);
        let zero = dag.constant(0.0);
        assert_eq!(merged, dag.apply(Op::Select(Cmp::Gt), &[x, zero, inverse, y]));
        assert!(!may_be_deselected(&dag, merged), "one branch is always taken");
        let one = dag.constant(1.0);
        assert_eq!(sum(&mut dag, taken, not_taken), one, "ifelse(c, 1, 1) is 1");
        let difference = merge(&mut dag, taken, not_taken, true).expect("constant branches negate");
        assert_eq!(value(&dag, difference, &[-1.0, 0.0]), -1.0);
        assert_eq!(merge(&mut dag, s, t, true), None, "negating a variable branch would cost a node");
    }

    #[test]
    fn a_product_of_ordinary_factors_is_ieee() {
        let mut dag = ExprDag::new();
        let (_, _, inverse) = setup(&mut dag);
        let x = dag.input(0);
        let p = product(&mut dag, x, inverse);
        assert_eq!(p, dag.mul(x, inverse));
        assert!(value(&dag, p, &[0.0, 0.0]).is_nan(), "a taken 0 · inf is NaN, as the chain rule gives");
        // A user's product with a 0/1 value is a product, not a guard.
        let zero = dag.constant(0.0);
        let one = dag.constant(1.0);
        let indicator = dag.apply(Op::Select(Cmp::Lt), &[x, zero, one, zero]);
        let user = dag.mul(indicator, inverse);
        assert!(!may_be_deselected(&dag, user));
    }

    #[test]
    fn deep_guards_are_tested_not_rebuilt() {
        let mut dag = ExprDag::new();
        let (_, _, inverse) = setup(&mut dag);
        let x = dag.input(0);
        let zero = dag.constant(0.0);
        let mut guard = dag.input(1);
        for k in 0..1000 {
            let bound = dag.constant(k as f64);
            guard = dag.apply(Op::Select(Cmp::Gt), &[x, bound, guard, zero]);
        }
        let before = dag.len();
        let p = product(&mut dag, guard, inverse);
        assert!(dag.len() - before <= 3, "{} nodes", dag.len() - before);
        assert_eq!(value(&dag, p, &[-1.0, 0.0]), 0.0);
        assert_eq!(value(&dag, p, &[2000.0, 2.0]), 1.0);
    }
}
