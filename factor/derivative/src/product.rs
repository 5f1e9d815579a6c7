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
//! nodes, a negation or a constant multiple of one, the constant 0. Such a
//! zero absorbs the other factor of a [`product`]; any other value
//! multiplies as IEEE numbers do, so a selected branch's own `0 · inf` still
//! gives NaN, as the chain rule does.
//!
//! Where a deselected zero is not a guard with a plain branch (a sum of
//! guards on different conditions, nested guards), the product is guarded
//! by its *indicator*: the same skeleton of selects and sums with every
//! branch taken replaced by 1 ([`indicator`]), a count that is 0 exactly when
//! every path is deselected. The result, `ifelse(i != 0, a·t, 0)`, is a guard
//! again. Every select built here tests a condition of the program's own
//! selects (or such a count of them), never a computed value: a Hessian
//! differentiates these selects again, and a test like `a == 0` would take
//! the derivative of its constant branch where `a` merely crosses zero.
//!
//! This is the semantics of forward-mode dual numbers that take the chosen
//! branch's tangent at a select: wherever those are finite, so are the
//! accumulations built here, and they agree up to rounding. It lives here
//! and not in [`ExprDag::apply`], because a user's own `ifelse(x < 0, 1, 0) * y`
//! is a value with IEEE semantics.

use frontend::{Cmp, ExprDag, NodeId, Op};
use rustc_hash::FxHashMap;

/// `a · b` for two partials or path sums: the IEEE product, except that a
/// factor which may be deselected ([`may_be_deselected`]) absorbs the other
/// one when it is a deselected zero.
///
/// Constant factors multiply (a constant 0, the sum of paths that cancel,
/// absorbs the other factor). A guard `ifelse(c, s, 0)` with a constant or
/// plain branch is *peeled*: the product is `ifelse(c, s·t, 0)`, one select
/// in place of the multiplication (none at all when `s` is `1`). Any other
/// factor that may be deselected is guarded by its [`indicator`]. Unit
/// constants fold as in [`ExprDag::mul`]: `a · 1 = a`, `a · (-1) = -a`.
pub fn product(dag: &mut ExprDag, a: NodeId, b: NodeId) -> NodeId {
    if is_zero(dag, a) || is_zero(dag, b) {
        return dag.constant(0.0);
    }
    let is_finite_constant = |dag: &ExprDag, x: NodeId| dag.as_const(x).is_some_and(f64::is_finite);
    if is_finite_constant(dag, a) || is_finite_constant(dag, b) {
        return dag.mul(a, b);
    }
    // A selector's constant branch scales the other factor whatever it is,
    // without inspecting it: chains of selectors nest in O(1) per product.
    for (x, other) in [(b, a), (a, b)] {
        if let Some(guard) = Guard::of(dag, x).filter(|g| is_finite_constant(dag, g.branch)) {
            let value = product(dag, guard.branch, other);
            return guard.wrap(dag, value);
        }
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
/// `ifelse`) is the single select `ifelse(c, s, t)`; a constant 0 term (paths
/// that cancelled) is dropped; any other sum is an addition.
pub fn sum(dag: &mut ExprDag, a: NodeId, b: NodeId) -> NodeId {
    if is_zero(dag, a) {
        return b;
    }
    if is_zero(dag, b) {
        return a;
    }
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
/// branch not taken (see the module documentation).
pub fn may_be_deselected(dag: &ExprDag, node: NodeId) -> bool {
    let skeleton = skeleton(dag, node);
    let mut deselectable: FxHashMap<NodeId, bool> = FxHashMap::default();
    for &v in &skeleton {
        let of = |a: NodeId| deselectable.get(&a).copied().unwrap_or(false);
        let value = match shape(dag, v) {
            Shape::Live => false,
            Shape::Zero => true,
            Shape::Through(a) => of(a),
            Shape::Sum(a, b) => of(a) && of(b),
            Shape::Select([_, _, x, y]) => of(x) || of(y),
        };
        deselectable.insert(v, value);
    }
    deselectable[&node]
}

/// The indicator of `node`, if it may be deselected (else `None`): a count
/// of the branches taken along its skeleton, `0` exactly when `node` is a
/// deselected zero. A guard `ifelse(c, s, 0)` with a plain branch counts
/// `ifelse(c, 1, 0)`, a sum counts the sum of its terms' counts, a select
/// `ifelse(c, x, y)` counts `ifelse(c, count(x), count(y))` (a plain
/// branch counts 1). Counts are small non-negative integers, so their sums
/// are exact and vanish only when every term does.
pub fn indicator(dag: &mut ExprDag, node: NodeId) -> Option<NodeId> {
    let skeleton = skeleton(dag, node);
    let mut counts: FxHashMap<NodeId, Option<NodeId>> = FxHashMap::default();
    let one = dag.constant(1.0);
    for &v in &skeleton {
        let of = |a: NodeId| counts.get(&a).copied().flatten();
        let count = match shape(dag, v) {
            Shape::Live => None,
            Shape::Zero => Some(dag.constant(0.0)),
            Shape::Through(a) => of(a),
            Shape::Sum(a, b) => match (of(a), of(b)) {
                (Some(i), Some(j)) => Some(sum(dag, i, j)),
                _ => None,
            },
            Shape::Select([p, q, x, y]) => match (of(x), of(y)) {
                (None, None) => None,
                (i, j) => {
                    let Op::Select(cmp) = dag.op(v) else { unreachable!("a select shape") };
                    Some(dag.apply(Op::Select(cmp), &[p, q, i.unwrap_or(one), j.unwrap_or(one)]))
                }
            },
        };
        counts.insert(v, count);
    }
    counts[&node]
}

/// How a node's deselected zeros combine, for [`may_be_deselected`] and
/// [`indicator`].
#[derive(Clone, Copy)]
enum Shape {
    /// Never a deselected zero.
    Live,
    /// The constant ±0.
    Zero,
    /// A negation or a finite constant multiple of its operand.
    Through(NodeId),
    /// `a + b` or `a - b`.
    Sum(NodeId, NodeId),
    /// `ifelse(p cmp q, x, y)`.
    Select([NodeId; 4]),
}

fn shape(dag: &ExprDag, v: NodeId) -> Shape {
    let args = dag.args(v);
    match dag.op(v) {
        Op::Const(_) if is_zero(dag, v) => Shape::Zero,
        Op::Neg => Shape::Through(args[0]),
        Op::Mul => match scaled(dag, v) {
            Some(a) => Shape::Through(a),
            None => Shape::Live,
        },
        // A plainly live operand makes the sum live: no need to look further
        // (a long sum of ordinary terms is decided at its last term).
        Op::Add | Op::Sub if is_plain(dag, args[0]) || is_plain(dag, args[1]) => Shape::Live,
        Op::Add | Op::Sub => Shape::Sum(args[0], args[1]),
        Op::Select(_) => Shape::Select(args4(dag, v)),
        _ => Shape::Live,
    }
}

/// The operand of `c · a` (a product with a finite nonzero constant `c`).
fn scaled(dag: &ExprDag, v: NodeId) -> Option<NodeId> {
    let args = dag.args(v);
    let is_scale = |x: NodeId| dag.as_const(x).is_some_and(|c| c.is_finite() && c != 0.0);
    match (is_scale(args[0]), is_scale(args[1])) {
        (true, false) => Some(args[1]),
        (false, true) => Some(args[0]),
        _ => None,
    }
}

/// Whether `x` is plainly live, by its own operation: one that cannot carry
/// a deselected zero.
fn is_plain(dag: &ExprDag, x: NodeId) -> bool {
    match dag.op(x) {
        Op::Neg | Op::Add | Op::Sub | Op::Select(_) => false,
        Op::Mul => scaled(dag, x).is_none(),
        _ => !is_zero(dag, x),
    }
}

/// The nodes below `node` through which deselected zeros can pass (sums,
/// negations, constant multiples, select branches), `node` included, in
/// ascending id order: children before parents. Iterative, so any depth is
/// safe. A node with no select below it that is not a constant is never a
/// deselected zero (constants fold, so its skeleton ends in live nodes), and
/// the walk stops there: a long sum of ordinary terms (a tangent along a
/// chain) costs O(1), not its length, in every product.
fn skeleton(dag: &ExprDag, node: NodeId) -> Vec<NodeId> {
    let mut seen = vec![node];
    let mut stack = vec![node];
    let mut visited: rustc_hash::FxHashSet<NodeId> = rustc_hash::FxHashSet::default();
    visited.insert(node);
    while let Some(v) = stack.pop() {
        let children: Vec<NodeId> = match shape(dag, v) {
            Shape::Live | Shape::Zero => Vec::new(),
            Shape::Through(a) => vec![a],
            Shape::Sum(a, b) => vec![a, b],
            Shape::Select([_, _, x, y]) => vec![x, y],
        };
        for c in children {
            if !dag.has_select_below(c) && dag.as_const(c).is_none() {
                continue;
            }
            if visited.insert(c) {
                seen.push(c);
                stack.push(c);
            }
        }
    }
    seen.sort_unstable();
    seen
}

/// A select one of whose branches is the constant ±0.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Guard {
    cmp: Cmp,
    p: NodeId,
    q: NodeId,
    /// The slot of the branch: 2 (`ifelse(c, branch, 0)`) or 3.
    slot: usize,
    branch: NodeId,
}

impl Guard {
    fn of(dag: &ExprDag, x: NodeId) -> Option<Guard> {
        let Op::Select(cmp) = dag.op(x) else { return None };
        let [p, q, a, b] = args4(dag, x);
        match (is_zero(dag, a), is_zero(dag, b)) {
            (false, true) => Some(Guard { cmp, p, q, slot: 2, branch: a }),
            (true, false) => Some(Guard { cmp, p, q, slot: 3, branch: b }),
            _ => None,
        }
    }

    /// `value` in place of the branch.
    fn wrap(self, dag: &mut ExprDag, value: NodeId) -> NodeId {
        let zero = dag.constant(0.0);
        let [x, y] = if self.slot == 2 { [value, zero] } else { [zero, value] };
        dag.apply(Op::Select(self.cmp), &[self.p, self.q, x, y])
    }
}

/// How a factor that may be deselected keeps its zero in a product.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrapper {
    /// Nothing to keep: the factor is never a deselected zero.
    None,
    /// The factor is a guard whose branch cannot be deselected.
    Guard(Guard),
    /// Any other factor that may be deselected, with its indicator.
    Indicator(NodeId),
}

impl Wrapper {
    /// The wrapper of factor `x` and what remains to multiply.
    fn of(dag: &mut ExprDag, x: NodeId) -> (Wrapper, NodeId) {
        // Most factors are live by their own operation: no skeleton to walk.
        if matches!(shape(dag, x), Shape::Live) {
            return (Wrapper::None, x);
        }
        if let Some(guard) = Guard::of(dag, x) {
            if !may_be_deselected(dag, guard.branch) {
                return (Wrapper::Guard(guard), guard.branch);
            }
        }
        match indicator(dag, x) {
            Some(count) => (Wrapper::Indicator(count), x),
            None => (Wrapper::None, x),
        }
    }

    /// `value` under this wrapper.
    fn wrap(self, dag: &mut ExprDag, value: NodeId) -> NodeId {
        match self {
            Wrapper::None => value,
            Wrapper::Guard(guard) => guard.wrap(dag, value),
            Wrapper::Indicator(count) => {
                let zero = dag.constant(0.0);
                dag.apply(Op::Select(Cmp::Ne), &[count, zero, value, zero])
            }
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

    /// Issue 35: a tangent along a chain is a sum of sums as long as the
    /// chain; with no select below it, its skeleton is the node alone, so
    /// each product costs O(1), not the chain's length (forward mode over
    /// N steps was cubic).
    #[test]
    fn a_long_sum_without_selects_has_no_skeleton_to_walk() {
        let mut dag = ExprDag::new();
        let tenth = dag.constant(0.1);
        let mut t = dag.input(0);
        for k in 1..1000 {
            let x = dag.input(k);
            let step = dag.mul(tenth, x);
            t = dag.add(t, step);
        }
        assert_eq!(skeleton(&dag, t), vec![t]);
        assert!(!may_be_deselected(&dag, t));
        // Beside a guard, the walk goes down to the guard (and its constant
        // branches), never into the long sum.
        let (taken, ..) = setup(&mut dag);
        let guarded = dag.add(t, taken);
        let with = dag.add(guarded, taken);
        let walked = skeleton(&dag, with);
        assert!(walked.contains(&taken) && !walked.contains(&t), "{walked:?}");
        assert!(walked.len() <= 5, "{walked:?}");
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
    fn deep_guards_share_one_indicator() {
        let mut dag = ExprDag::new();
        let (_, _, inverse) = setup(&mut dag);
        let x = dag.input(0);
        let z = dag.input(2);
        let zero = dag.constant(0.0);
        let mut guard = dag.input(1);
        for k in 0..100_000 {
            let bound = dag.constant(k as f64);
            guard = dag.apply(Op::Select(Cmp::Gt), &[x, bound, guard, zero]);
        }
        let p = product(&mut dag, guard, inverse);
        assert_eq!(value(&dag, p, &[-1.0, 0.0]), 0.0);
        assert_eq!(value(&dag, p, &[2e5, 2.0]), 1.0);
        let before = dag.len();
        let q = product(&mut dag, guard, z);
        assert!(dag.len() - before <= 2, "{} nodes: the indicator is built once", dag.len() - before);
        assert_eq!(value(&dag, q, &[-1.0, 0.0, f64::INFINITY]), 0.0);
    }

    #[test]
    fn selector_chains_nest_without_inspection() {
        // A chain of selector labels, as d/dx min(min(min(x, 1), 2), ...):
        // each product is one select, whatever the depth below.
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let [zero, one] = [dag.constant(0.0), dag.constant(1.0)];
        let mut chain = one;
        for k in 0..100_000 {
            let bound = dag.constant(k as f64);
            let selector = dag.apply(Op::Select(Cmp::Lt), &[x, bound, one, zero]);
            let before = dag.len();
            chain = product(&mut dag, chain, selector);
            assert!(dag.len() - before <= 1);
        }
        assert_eq!(value(&dag, chain, &[-1.0]), 1.0);
        assert_eq!(value(&dag, chain, &[0.5]), 0.0);
    }
}
