//! The rewrites: only equalities of real arithmetic, directed so that they
//! expose shared factors and cancel unit edges, never so that they expand.
//!
//! # NaN and infinity policy
//!
//! Every rewrite is an identity of real numbers, so for inputs at which every
//! intermediate value (of the input and of the result) is finite, the result
//! equals the input up to rounding: reassociation (`c1*(c2*x) = (c1*c2)*x`)
//! and factoring (`a*b + a*c = a*(b+c)`) round differently, and `x + 0 = x`
//! may turn `-0` into `+0`. No e-graph rewrite *removes* a non-finite value
//! (the chain pass may, when like terms cancel; see [`crate::chains`]): the ones
//! that would (`x*0 → 0`, `x - x → 0`, `x/x → 1`, `0/x → 0`) are not used, so a
//! NaN or infinity of the input propagates to the output as before. Moving a
//! constant across a product can overflow (or underflow) where the input did
//! not, only when the input's own intermediates are within a factor of that
//! constant of the range limits.

use crate::analysis::{ConstantFold, OpGraph};
use crate::language::OpNode;
use egg::{rewrite, Id, Rewrite, Subst, Var};

/// A rewrite over [`OpNode`] with constant folding.
pub type OpRewrite = Rewrite<OpNode, ConstantFold>;

/// Whether the class bound to `var` has a known constant value.
fn is_const(var: &str) -> impl Fn(&mut OpGraph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("valid pattern variable");
    move |egraph, _, subst| egraph[subst[var]].data.is_some()
}

/// Whether the class bound to `var` has no known constant value.
fn is_not_const(var: &str) -> impl Fn(&mut OpGraph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("valid pattern variable");
    move |egraph, _, subst| egraph[subst[var]].data.is_none()
}

/// Commutativity of `+` and `*`: makes every other pattern match both
/// operand orders. It only doubles the arithmetic e-nodes, unlike
/// associativity, which is applied only to constants here.
pub fn commutativity() -> Vec<OpRewrite> {
    vec![rewrite!("comm-add"; "(+ ?a ?b)" => "(+ ?b ?a)"), rewrite!("comm-mul"; "(* ?a ?b)" => "(* ?b ?a)")]
}

/// Negations move to where they are free: into a constant factor, into a
/// subtraction, or away entirely.
pub fn signs() -> Vec<OpRewrite> {
    vec![
        rewrite!("neg-neg"; "(neg (neg ?a))" => "?a"),
        rewrite!("add-neg"; "(+ ?a (neg ?b))" => "(- ?a ?b)"),
        rewrite!("sub-neg"; "(- ?a (neg ?b))" => "(+ ?a ?b)"),
        rewrite!("neg-sub"; "(neg (- ?a ?b))" => "(- ?b ?a)"),
        rewrite!("neg-minus"; "(- (neg ?a) ?b)" => "(neg (+ ?a ?b))"),
        rewrite!("mul-neg"; "(* (neg ?a) ?b)" => "(neg (* ?a ?b))"),
        rewrite!("div-neg"; "(/ (neg ?a) ?b)" => "(neg (/ ?a ?b))"),
        rewrite!("neg-into-const"; "(neg (* ?c ?a))" => "(* (neg ?c) ?a)" if is_const("?c")),
        rewrite!("neg-into-const-div"; "(neg (/ ?c ?a))" => "(/ (neg ?c) ?a)" if is_const("?c")),
        rewrite!("sub-const-mul"; "(- ?a (* ?c ?b))" => "(+ ?a (* (neg ?c) ?b))" if is_const("?c")),
    ]
}

/// Constants float through product chains until they meet and fold:
/// restricted associativity, bounded by the number of constants.
pub fn constants() -> Vec<OpRewrite> {
    vec![
        rewrite!("const-in"; "(* ?c (* ?a ?b))" => "(* ?a (* ?c ?b))" if is_const("?c") if is_not_const("?a")),
        rewrite!("const-out"; "(* ?a (* ?c ?b))" => "(* ?c (* ?a ?b))" if is_const("?c") if is_not_const("?a")),
        rewrite!("const-into-div"; "(* ?c (/ ?a ?b))" => "(/ (* ?c ?a) ?b)" if is_const("?c")),
        rewrite!("const-out-of-div"; "(/ (* ?c ?a) ?b)" => "(* ?c (/ ?a ?b))" if is_const("?c")),
        rewrite!("div-by-const"; "(/ ?a ?c)" => "(* ?a (/ 1 ?c))" if is_const("?c")),
    ]
}

/// Factoring out a common factor, `a*b + a*c → a*(b+c)`, and collecting
/// like terms, `a + a → 2*a`.
pub fn factoring() -> Vec<OpRewrite> {
    vec![
        rewrite!("factor-add"; "(+ (* ?a ?b) (* ?a ?c))" => "(* ?a (+ ?b ?c))"),
        rewrite!("factor-sub"; "(- (* ?a ?b) (* ?a ?c))" => "(* ?a (- ?b ?c))"),
        rewrite!("factor-div-add"; "(+ (/ ?a ?c) (/ ?b ?c))" => "(/ (+ ?a ?b) ?c)"),
        rewrite!("factor-div-sub"; "(- (/ ?a ?c) (/ ?b ?c))" => "(/ (- ?a ?b) ?c)"),
        rewrite!("double"; "(+ ?a ?a)" => "(* 2 ?a)"),
        rewrite!("collect-add"; "(+ ?a (* ?c ?a))" => "(* (+ ?c 1) ?a)" if is_const("?c")),
        rewrite!("collect-sub"; "(- (* ?c ?a) ?a)" => "(* (- ?c 1) ?a)" if is_const("?c")),
        rewrite!("collect-sub-rev"; "(- ?a (* ?c ?a))" => "(* (- 1 ?c) ?a)" if is_const("?c")),
    ]
}

/// All rewrites the simplifier runs.
///
/// No rule removes unit factors or zero terms (`x*1`, `x/-1`, `x+0`): the
/// extracted DAG is rebuilt with [`frontend::ExprDag::apply`], which folds
/// the exact ones, and the chain pass before rebuilds its sums and products
/// with no zero terms and no unit coefficients. Such rules
/// only made every iteration search all products and sums again: without
/// them the pass takes 6.5% less time over 600 generated Jacobians and the
/// corpus (nbody_acc_20: 3 ms less), for one op more in 290,211.
pub fn all() -> Vec<OpRewrite> {
    let mut rules = commutativity();
    rules.extend(signs());
    rules.extend(constants());
    rules.extend(factoring());
    rules
}
