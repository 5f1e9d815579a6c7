//! The rewrites for printing ([`crate::Tidier`]): a separate set from the
//! kernel's [`rules`](crate::rules), aimed at text a person would write
//! (`60 * x^2`, `-362880 / x^10`) rather than at fewer operations. They
//! collect like terms and powers, fold constants (the [`ConstantFold`]
//! analysis), move signs and constant factors to the front, and cancel.
//!
//! # NaN and infinity policy
//!
//! As for the subchain pass: every rewrite is an identity of real numbers
//! that holds wherever every intermediate value of both sides is finite, so
//! for such inputs the printed expression computes the same value up to
//! rounding. A rewrite may make a value defined that the input leaves
//! undefined: cancelling `x^5 / x` to `x^4` turns the NaN at `x = 0` into 0,
//! `x - x` becomes 0 although `inf - inf` is NaN, and `x^a · x^b` becomes
//! `x^(a+b)` although `x^a` is NaN for a negative `x` and a fractional `a`.
//! No rewrite goes the other way (`x → x^5 / x` is not a rule), and powers
//! of powers merge only for whole outer exponents (`(x^2)^0.5` is `|x|`, not
//! `x`).
//!
//! [`ConstantFold`]: crate::ConstantFold

use crate::analysis::{ConstantFold, OpGraph};
use crate::language::OpNode;
use egg::{rewrite, Id, Rewrite, Subst, Var};

/// A rewrite over [`OpNode`] with constant folding.
pub type PrintRewrite = Rewrite<OpNode, ConstantFold>;

fn var(name: &str) -> Var {
    name.parse().expect("valid pattern variable")
}

/// Whether the class bound to `name` is a known constant satisfying `test`.
fn constant(name: &str, test: fn(f64) -> bool) -> impl Fn(&mut OpGraph, Id, &Subst) -> bool {
    let v = var(name);
    move |egraph, _, subst| egraph[subst[v]].data.is_some_and(|c| test(c.get()))
}

fn any(_: f64) -> bool {
    true
}

fn whole(c: f64) -> bool {
    c.fract() == 0.0
}

fn negative(c: f64) -> bool {
    c < 0.0
}

/// `+` and `*` commute and associate: with these the other rules see
/// every grouping of a sum or product (bounded by the node limit).
pub fn arithmetic() -> Vec<PrintRewrite> {
    vec![
        rewrite!("comm-add"; "(+ ?a ?b)" => "(+ ?b ?a)"),
        rewrite!("comm-mul"; "(* ?a ?b)" => "(* ?b ?a)"),
        rewrite!("assoc-add"; "(+ (+ ?a ?b) ?c)" => "(+ ?a (+ ?b ?c))"),
        rewrite!("assoc-mul"; "(* (* ?a ?b) ?c)" => "(* ?a (* ?b ?c))"),
        rewrite!("sub-add"; "(- (+ ?a ?b) ?c)" => "(+ ?a (- ?b ?c))"),
        rewrite!("add-sub"; "(+ ?a (- ?b ?c))" => "(- (+ ?a ?b) ?c)"),
    ]
}

/// Units, zeros and signs.
pub fn units_and_signs() -> Vec<PrintRewrite> {
    vec![
        rewrite!("mul-one"; "(* ?a 1)" => "?a"),
        rewrite!("mul-zero"; "(* ?a 0)" => "0"),
        rewrite!("add-zero"; "(+ ?a 0)" => "?a"),
        rewrite!("sub-zero"; "(- ?a 0)" => "?a"),
        rewrite!("zero-sub"; "(- 0 ?a)" => "(neg ?a)"),
        rewrite!("div-one"; "(/ ?a 1)" => "?a"),
        rewrite!("zero-div"; "(/ 0 ?a)" => "0"),
        rewrite!("pow-one"; "(^ ?a 1)" => "?a"),
        rewrite!("pow-zero"; "(^ ?a 0)" => "1"),
        rewrite!("neg-neg"; "(neg (neg ?a))" => "?a"),
        rewrite!("neg-as-mul"; "(neg ?a)" => "(* -1 ?a)"),
        rewrite!("mul-minus-one"; "(* -1 ?a)" => "(neg ?a)"),
        rewrite!("mul-neg"; "(* (neg ?a) ?b)" => "(neg (* ?a ?b))"),
        rewrite!("div-neg-left"; "(/ (neg ?a) ?b)" => "(neg (/ ?a ?b))"),
        rewrite!("div-neg-right"; "(/ ?a (neg ?b))" => "(neg (/ ?a ?b))"),
        rewrite!("add-neg"; "(+ ?a (neg ?b))" => "(- ?a ?b)"),
        rewrite!("sub-neg"; "(- ?a (neg ?b))" => "(+ ?a ?b)"),
        rewrite!("neg-sub"; "(neg (- ?a ?b))" => "(- ?b ?a)"),
        rewrite!("sub-as-add"; "(- ?a ?b)" => "(+ ?a (neg ?b))"),
        rewrite!("neg-add"; "(neg (+ ?a ?b))" => "(+ (neg ?a) (neg ?b))"),
        rewrite!("add-negative"; "(+ ?a ?c)" => "(- ?a (neg ?c))" if constant("?c", negative)),
        rewrite!("sub-negative"; "(+ ?a (* ?c ?b))" => "(- ?a (* (neg ?c) ?b))" if constant("?c", negative)),
        rewrite!("neg-into-constant"; "(neg (* ?c ?a))" => "(* (neg ?c) ?a)" if constant("?c", any)),
    ]
}

/// Quotients: one fraction, constants in front.
pub fn quotients() -> Vec<PrintRewrite> {
    vec![
        rewrite!("div-div-left"; "(/ (/ ?a ?b) ?c)" => "(/ ?a (* ?b ?c))"),
        rewrite!("div-div-right"; "(/ ?a (/ ?b ?c))" => "(/ (* ?a ?c) ?b)"),
        rewrite!("mul-div"; "(* ?a (/ ?b ?c))" => "(/ (* ?a ?b) ?c)"),
        rewrite!("div-mul"; "(/ (* ?a ?b) ?c)" => "(* ?a (/ ?b ?c))"),
        rewrite!("div-as-reciprocal"; "(/ ?a ?b)" => "(* ?a (/ 1 ?b))"),
        rewrite!("reciprocal-as-power"; "(/ 1 ?a)" => "(^ ?a -1)"),
        rewrite!("negative-power"; "(^ ?a ?c)" => "(/ 1 (^ ?a (neg ?c)))" if constant("?c", negative)),
        rewrite!("div-by-constant"; "(/ ?a ?c)" => "(* (/ 1 ?c) ?a)" if constant("?c", any)),
    ]
}

/// Powers collect, and cancel in quotients.
pub fn powers() -> Vec<PrintRewrite> {
    let c = || constant("?c", any);
    let cd = |egraph: &mut OpGraph, id: Id, subst: &Subst| {
        constant("?c", any)(egraph, id, subst) && constant("?d", any)(egraph, id, subst)
    };
    vec![
        rewrite!("square"; "(* ?a ?a)" => "(^ ?a 2)"),
        rewrite!("mul-pow"; "(* ?a (^ ?a ?c))" => "(^ ?a (+ ?c 1))" if c()),
        rewrite!("pow-mul-pow"; "(* (^ ?a ?c) (^ ?a ?d))" => "(^ ?a (+ ?c ?d))" if cd),
        rewrite!("cancel"; "(/ ?a ?a)" => "1"),
        rewrite!("pow-div"; "(/ (^ ?a ?c) ?a)" => "(^ ?a (- ?c 1))" if c()),
        rewrite!("div-pow"; "(/ ?a (^ ?a ?c))" => "(^ ?a (- 1 ?c))" if c()),
        rewrite!("pow-div-pow"; "(/ (^ ?a ?c) (^ ?a ?d))" => "(^ ?a (- ?c ?d))" if cd),
        rewrite!("pow-pow"; "(^ (^ ?a ?c) ?d)" => "(^ ?a (* ?c ?d))" if constant("?d", whole)),
    ]
}

/// Like terms collect: `a + a = 2a`, `c·a + d·a = (c+d)·a`, `a - a = 0`;
/// constant factors distribute over sums, so that terms can meet.
pub fn like_terms() -> Vec<PrintRewrite> {
    let cd = |egraph: &mut OpGraph, id: Id, subst: &Subst| {
        constant("?c", any)(egraph, id, subst) && constant("?d", any)(egraph, id, subst)
    };
    vec![
        rewrite!("double"; "(+ ?a ?a)" => "(* 2 ?a)"),
        rewrite!("collect"; "(+ (* ?c ?a) ?a)" => "(* (+ ?c 1) ?a)" if constant("?c", any)),
        rewrite!("collect-both"; "(+ (* ?c ?a) (* ?d ?a))" => "(* (+ ?c ?d) ?a)" if cd),
        rewrite!("sub-self"; "(- ?a ?a)" => "0"),
        rewrite!("factor"; "(+ (* ?a ?b) (* ?a ?c))" => "(* ?a (+ ?b ?c))"),
        rewrite!("distribute"; "(* ?c (+ ?a ?b))" => "(+ (* ?c ?a) (* ?c ?b))" if constant("?c", any)),
    ]
}

/// Every rewrite of the printing pass.
pub fn all() -> Vec<PrintRewrite> {
    let mut rules = arithmetic();
    rules.extend(units_and_signs());
    rules.extend(quotients());
    rules.extend(powers());
    rules.extend(like_terms());
    rules
}
