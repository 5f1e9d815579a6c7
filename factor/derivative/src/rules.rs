//! The derivative rules: the local partial derivatives of every [`Op`], built
//! as nodes of the function's own [`ExprDag`] so that they share work with it
//! (`d sin(u)/du` is the node `cos(u)`, `d exp(u)/du` is the node `exp(u)`).
//!
//! These are the first-order rules, the only ones every accumulation (D*,
//! the eliminations, the sweeps, second derivatives) builds on; Taylor mode
//! has its own recurrences for higher orders ([`taylor`](crate::taylor)),
//! the one other place that knows how an operation differentiates. Both
//! `match`es have no `_ =>` arm, so a new operation fails to compile in
//! each.

use crate::partials::Partials;
use frontend::{Cmp, ExprDag, NodeId, Op};

/// Partials in an operation's argument slots; `None` is no edge.
type Slots = [Option<NodeId>; 4];

/// The local partials of `node`, a built-in operation `op` (not a call: a
/// call's are its function's derivative's, [`crate::calls::partials`]),
/// with respect to each of its arguments.
///
/// A constant argument gets no partial (nothing flows into a constant), and a
/// partial that folds to the constant `±0` is dropped: a zero partial means
/// no edge. Repeated arguments (`x*x`, `pow(t, t)`) get one partial per slot.
pub fn partials(dag: &mut ExprDag, node: NodeId, op: Op) -> Partials {
    Partials::from_slice(&builtin_partials(dag, node, op)[..op.arity()])
}

/// The partials of a built-in operation, in its argument slots.
fn builtin_partials(dag: &mut ExprDag, node: NodeId, op: Op) -> Slots {
    let mut args = [node; 4];
    args[..op.arity()].copy_from_slice(dag.args(node));
    let is_variable = |dag: &ExprDag, slot: usize| slot < op.arity() && dag.as_const(args[slot]).is_none();
    let needs = [is_variable(dag, 0), is_variable(dag, 1), is_variable(dag, 2), is_variable(dag, 3)];
    let mut p = rule(dag, op, node, args, needs);
    for slot in 0..4 {
        let is_zero = p[slot].is_some_and(|label| dag.as_const(label) == Some(0.0));
        if !needs[slot] || is_zero {
            p[slot] = None;
        }
    }
    p
}

/// The table of derivative rules: the partials of `f = op(args)` in its
/// argument slots, one arm per operation. `needs[slot]` says whether the
/// argument in `slot` varies; a rule may skip a partial nobody needs.
fn rule(dag: &mut ExprDag, op: Op, f: NodeId, args: [NodeId; 4], needs: [bool; 4]) -> Slots {
    let [a, b, _, _] = args;
    match op {
        // Calls have partials of their own ([`crate::calls::partials`]).
        Op::Const(_) | Op::Input(_) | Op::Call(_) => [None; 4],
        Op::Neg => first(dag.constant(-1.0)),
        Op::Add => both(dag.constant(1.0), dag.constant(1.0)),
        Op::Sub => both(dag.constant(1.0), dag.constant(-1.0)),
        Op::Mul => both(b, a),
        Op::Div => quotient_partials(dag, f, a, b, needs[1]),
        Op::Pow => power_partials(dag, f, a, b, needs),
        Op::Sin => first(dag.apply(Op::Cos, &[a])),
        Op::Cos => {
            let sin = dag.apply(Op::Sin, &[a]);
            first(dag.neg(sin))
        }
        Op::Tan => first(one_plus_square(dag, f)),
        Op::Asin => first(inverse_sqrt_one_minus_square(dag, a)),
        Op::Acos => {
            let d = inverse_sqrt_one_minus_square(dag, a);
            first(dag.neg(d))
        }
        Op::Atan => first(inverse_one_plus_square(dag, a)),
        Op::Sinh => first(dag.apply(Op::Cosh, &[a])),
        Op::Cosh => first(dag.apply(Op::Sinh, &[a])),
        Op::Tanh => first(sech_squared(dag, a)),
        // 1/hypot(a, 1) = 1/sqrt(a² + 1) without overflowing a².
        Op::Asinh => first(inverse_hypot_one(dag, a)),
        Op::Acosh => first(inverse_sqrt_square_minus_one(dag, a)),
        Op::Atanh => {
            let difference = one_minus_square(dag, a);
            first(reciprocal(dag, difference))
        }
        Op::Exp => first(f),
        // exp(a), not expm1(a) + 1: for a below about -37, expm1(a) rounds to
        // -1 and the sum to 0, and for any a < 0 the sum cancels digits,
        // while exp(a) is within an ulp everywhere (and may already be a node).
        Op::Expm1 => first(dag.apply(Op::Exp, &[a])),
        // exp2(a)·ln 2 reuses the value: two roundings, no cancellation.
        Op::Exp2 => {
            let ln_2 = dag.constant(std::f64::consts::LN_2);
            first(dag.mul(f, ln_2))
        }
        Op::Log => first(reciprocal(dag, a)),
        // 1/(1 + a): rounding 1 + a costs half an ulp of 1 + a itself.
        Op::Log1p => {
            let one = dag.constant(1.0);
            let shifted = dag.add(one, a);
            first(reciprocal(dag, shifted))
        }
        Op::Log2 => first(scaled_reciprocal(dag, std::f64::consts::LOG2_E, a)),
        Op::Log10 => first(scaled_reciprocal(dag, std::f64::consts::LOG10_E, a)),
        Op::Sqrt => first(scaled_reciprocal(dag, 0.5, f)),
        Op::Cbrt => {
            let square = dag.mul(f, f);
            first(scaled_reciprocal(dag, 1.0 / 3.0, square))
        }
        // sign(0) = ±0, so abs'(0) = 0 as the language promises.
        Op::Abs => first(dag.apply(Op::Sign, &[a])),
        // Piecewise constant: zero almost everywhere, so no edge.
        Op::Sign | Op::Floor | Op::Ceil => [None; 4],
        Op::Erf => first(erf_slope(dag, a)),
        Op::Atan2 => atan2_partials(dag, a, b),
        Op::Hypot => both(dag.div(a, f), dag.div(b, f)),
        // The derivative of the branch taken; at a tie (a kink) each argument
        // gets half, a rule that depends neither on the order of the
        // arguments nor on whether a call is written out, and min(x, x)
        // still has derivative 1.
        Op::Min => branch_partials(dag, Cmp::Lt, a, b),
        Op::Max => branch_partials(dag, Cmp::Gt, a, b),
        Op::Select(cmp) => select_partials(dag, cmp, args),
    }
}

/// The partials of a unary operation: `p` in slot 0.
fn first(p: NodeId) -> Slots {
    [Some(p), None, None, None]
}

/// The partials of a binary operation: `p` and `q` in slots 0 and 1.
fn both(p: NodeId, q: NodeId) -> Slots {
    [Some(p), Some(q), None, None]
}

/// Partials of `f = a/b`: d/da = 1/b, d/db = -(a/b)/b, reusing the quotient
/// (built only if `needs_b`). Dividing twice, not multiplying by 1/b: 1/b
/// overflows for a subnormal b where (a/b)/b may not. For 1/b itself,
/// (1/b)·(1/b): the same value, often already computed (1/r³ as ir*ir*ir).
fn quotient_partials(dag: &mut ExprDag, f: NodeId, a: NodeId, b: NodeId, needs_b: bool) -> Slots {
    let by_a = reciprocal(dag, b);
    let by_b = needs_b.then(|| {
        let q = if dag.is_const(a, 1.0) { dag.mul(f, f) } else { dag.div(f, b) };
        dag.neg(q)
    });
    [Some(by_a), by_b, None, None]
}

/// Partials of `f = a^b`, each built only if its argument varies.
fn power_partials(dag: &mut ExprDag, f: NodeId, a: NodeId, b: NodeId, needs: [bool; 4]) -> Slots {
    let mut p = [None; 4];
    if needs[0] {
        // d(a^b)/da = b * a^(b-1); a constant exponent folds b-1 and
        // never takes a logarithm, so negative bases stay exact.
        let one = dag.constant(1.0);
        let lowered = dag.sub(b, one);
        let power = dag.apply(Op::Pow, &[a, lowered]);
        p[0] = Some(dag.mul(b, power));
    }
    if needs[1] {
        // d(a^b)/db = a^b * ln(a). At a == 0 the power is locally
        // constant in b (0^b = 0 for b > 0), so the partial is 0
        // rather than 0 * -inf = NaN.
        let ln = dag.apply(Op::Log, &[a]);
        let product = dag.mul(f, ln);
        let zero = dag.constant(0.0);
        p[1] = Some(dag.apply(Op::Select(Cmp::Eq), &[a, zero, zero, product]));
    }
    p
}

/// `1 + f²`, the derivative of `tan` from its value `f`.
fn one_plus_square(dag: &mut ExprDag, f: NodeId) -> NodeId {
    let square = dag.mul(f, f);
    let one = dag.constant(1.0);
    dag.add(one, square)
}

/// `(1/hypot(a, 1))²`, the derivative of `atan`, not `1/(1 + a²)`: the
/// latter's derivative `-(1/d)/d · 2a` underflows for `|a| > 1e77`, where
/// the true second derivative `-2a/(1 + a²)²` is still representable.
fn inverse_one_plus_square(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let inverse = inverse_hypot_one(dag, a);
    dag.mul(inverse, inverse)
}

/// `1/(sqrt(a-1)·sqrt(a+1))`, the derivative of `acosh`: no overflow of
/// `a²`, no cancellation near 1.
fn inverse_sqrt_square_minus_one(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let one = dag.constant(1.0);
    let below = dag.sub(a, one);
    let above = dag.add(a, one);
    let root_below = dag.apply(Op::Sqrt, &[below]);
    let root_above = dag.apply(Op::Sqrt, &[above]);
    let product = dag.mul(root_below, root_above);
    reciprocal(dag, product)
}

/// `(2/√π)·exp(-a²)`, the derivative of `erf`.
fn erf_slope(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let square = dag.mul(a, a);
    let negated = dag.neg(square);
    let gauss = dag.apply(Op::Exp, &[negated]);
    let scale = dag.constant(std::f64::consts::FRAC_2_SQRT_PI);
    dag.mul(scale, gauss)
}

/// Partials of `atan2(a, b)`: d/da = b/(a²+b²), d/db = -a/(a²+b²), with the
/// norm from `hypot` so that large arguments do not overflow.
fn atan2_partials(dag: &mut ExprDag, a: NodeId, b: NodeId) -> Slots {
    let norm = dag.apply(Op::Hypot, &[a, b]);
    let cos = dag.div(b, norm);
    let by_a = dag.div(cos, norm);
    let sin = dag.div(a, norm);
    let q = dag.div(sin, norm);
    both(by_a, dag.neg(q))
}

/// Partials of `ifelse(a cmp b, x, y)`: the comparison operands have zero
/// partials; `x` and `y` are the branches, each selected by the same
/// condition as the value.
fn select_partials(dag: &mut ExprDag, cmp: Cmp, args: [NodeId; 4]) -> Slots {
    let [a, b, x, y] = args;
    let [one, zero] = [dag.constant(1.0), dag.constant(0.0)];
    let by_x = dag.apply(Op::Select(cmp), &[a, b, one, zero]);
    let by_y = dag.apply(Op::Select(cmp), &[a, b, zero, one]);
    debug_assert_ne!(x, y, "ifelse(c, x, x) folds to x");
    [None, None, Some(by_x), Some(by_y)]
}

/// `1 / a`.
fn reciprocal(dag: &mut ExprDag, a: NodeId) -> NodeId {
    scaled_reciprocal(dag, 1.0, a)
}

/// `c / a` for a constant `c`.
fn scaled_reciprocal(dag: &mut ExprDag, c: f64, a: NodeId) -> NodeId {
    let c = dag.constant(c);
    dag.div(c, a)
}

/// `1 / sqrt(1 - a²)`, the derivative of `asin`.
fn inverse_sqrt_one_minus_square(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let difference = one_minus_square(dag, a);
    let root = dag.apply(Op::Sqrt, &[difference]);
    reciprocal(dag, root)
}

/// `1 - a²`, accurate over the whole range and with accurate derivatives:
/// `1 - a·a` for `|a| < 1/2`, whose derivative `-(a + a)` is exact (that of
/// `(1 - a)(1 + a)` cancels to noise near 0: `-(1 + a) + (1 - a)` is `0`
/// at `a = 1e-300`), and `(1 - a)(1 + a)` beyond, exact near `|a| = 1` where
/// `1 - a·a` cancels the rounding of `a·a` into the result (relative error
/// 3e-7 at `a = 1 - 1e-10`).
fn one_minus_square(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let one = dag.constant(1.0);
    let square = dag.mul(a, a);
    let near_zero = dag.sub(one, square);
    let below = dag.sub(one, a);
    let above = dag.add(one, a);
    let near_one = dag.mul(below, above);
    let quarter = dag.constant(0.25);
    dag.apply(Op::Select(Cmp::Lt), &[square, quarter, near_zero, near_one])
}

/// `1 / hypot(a, 1)`, the derivative of `asinh`.
fn inverse_hypot_one(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let one = dag.constant(1.0);
    let norm = dag.apply(Op::Hypot, &[a, one]);
    reciprocal(dag, norm)
}

/// `sech²(a)`, the derivative of `tanh`: `1/cosh²(a)` for `|a| < 20` and
/// `4·exp(-2|a|)` beyond. `1 - tanh²` would cancel to noise where `tanh`
/// rounds to ±1 (past 19) while its slope is still positive; `1/cosh²`
/// alone is accurate but its derivatives are not: `tanh''` is
/// `-(s/c²)·2c·sinh`, which underflows past `|a| = 177` and is `0 · inf =
/// NaN` past 355. Past 20, `(1 + e^(-2|a|))²` rounds to 1, so `4·exp(-2|a|)`
/// is `sech²` to the last bit, and it and its derivatives (`∓8·exp(-2|a|)`,
/// ...) have no overflowing factor. The select takes the derivatives of the
/// branch used, and below 20 the factors of `1/cosh²`'s derivatives stay
/// far from underflow for the first dozen orders.
fn sech_squared(dag: &mut ExprDag, a: NodeId) -> NodeId {
    let cosh = dag.apply(Op::Cosh, &[a]);
    let square = dag.mul(cosh, cosh);
    let near = reciprocal(dag, square);
    let magnitude = dag.apply(Op::Abs, &[a]);
    let minus_two = dag.constant(-2.0);
    let exponent = dag.mul(minus_two, magnitude);
    let decay = dag.apply(Op::Exp, &[exponent]);
    let four = dag.constant(4.0);
    let far = dag.mul(four, decay);
    let bound = dag.constant(20.0);
    dag.apply(Op::Select(Cmp::Lt), &[magnitude, bound, near, far])
}

/// Partials of `min` (`cmp = <`) or `max` (`cmp = >`): 1 for the argument
/// the operation returns, 0 for the other, and ½ each at a tie.
fn branch_partials(dag: &mut ExprDag, cmp: Cmp, a: NodeId, b: NodeId) -> Slots {
    let [one, half, zero] = [dag.constant(1.0), dag.constant(0.5), dag.constant(0.0)];
    let tie_first = dag.apply(Op::Select(Cmp::Eq), &[a, b, half, zero]);
    let tie_second = dag.apply(Op::Select(Cmp::Eq), &[a, b, half, one]);
    let first = dag.apply(Op::Select(cmp), &[a, b, one, tie_first]);
    let second = dag.apply(Op::Select(cmp), &[a, b, zero, tie_second]);
    [Some(first), Some(second), None, None]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates every nonzero partial of `op` applied to fresh inputs.
    fn partial_values(op: Op, point: &[f64]) -> Vec<Option<f64>> {
        let mut dag = ExprDag::new();
        let args: Vec<NodeId> = (0..op.arity()).map(|k| dag.input(k)).collect();
        let node = dag.apply(op, &args);
        let p = crate::partials::partials(&mut dag, node);
        p[..op.arity()].iter().map(|label| label.map(|l| frontend::eval(&dag, &[l], point)[0])).collect()
    }

    #[test]
    fn every_op_matches_central_differences() {
        for op in Op::ALL {
            let mut point: Vec<f64> = [0.3, 0.55, 0.7, 0.2][..op.arity()].to_vec();
            if op == Op::Acosh {
                point[0] = 1.3;
            }
            let values = partial_values(op, &point);
            for (slot, value) in values.iter().enumerate() {
                let h = 1e-6;
                let mut hi = point.clone();
                let mut lo = point.clone();
                hi[slot] += h;
                lo[slot] -= h;
                let approx = (op.eval(&hi) - op.eval(&lo)) / (2.0 * h);
                let exact = value.unwrap_or(0.0);
                assert!((exact - approx).abs() < 1e-6, "{op:?} slot {slot}: {exact} vs {approx}");
            }
        }
    }

    #[test]
    fn piecewise_constant_ops_have_no_edges() {
        for op in [Op::Sign, Op::Floor, Op::Ceil] {
            assert_eq!(partial_values(op, &[0.3]), vec![None]);
        }
        let select = partial_values(Op::Select(Cmp::Lt), &[0.1, 0.2, 3.0, 4.0]);
        assert_eq!(select, vec![None, None, Some(1.0), Some(0.0)]);
    }

    /// The rules that reuse a value, or not, for accuracy.
    #[test]
    fn exponential_and_logarithm_slopes_keep_their_digits() {
        // expm1(-40) + 1 would round to 0.
        assert_eq!(partial_values(Op::Expm1, &[-40.0]), vec![Some((-40f64).exp())]);
        assert_eq!(partial_values(Op::Exp2, &[3.0]), vec![Some(8.0 * std::f64::consts::LN_2)]);
        assert_eq!(partial_values(Op::Log1p, &[-0.75]), vec![Some(4.0)]);
        assert_eq!(partial_values(Op::Log1p, &[1e-20]), vec![Some(1.0)]);
    }

    #[test]
    fn abs_has_zero_slope_at_zero() {
        assert_eq!(partial_values(Op::Abs, &[0.0]), vec![Some(0.0)]);
        assert_eq!(partial_values(Op::Abs, &[-2.0]), vec![Some(-1.0)]);
    }

    #[test]
    fn constant_exponent_takes_no_logarithm() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let three = dag.constant(3.0);
        let cube = dag.apply(Op::Pow, &[x, three]);
        let p = crate::partials::partials(&mut dag, cube);
        assert!(p[1].is_none());
        let d = p[0].expect("d x^3/dx");
        assert_eq!(frontend::eval(&dag, &[d], &[-2.0])[0], 12.0);
        assert!(dag.ids().all(|id| dag.op(id) != Op::Log));
    }

    #[test]
    fn variable_exponent_at_zero_base_is_zero() {
        let values = partial_values(Op::Pow, &[0.0, 2.5]);
        assert_eq!(values[1], Some(0.0));
        let values = partial_values(Op::Pow, &[2.0, 3.0]);
        assert_eq!(values, vec![Some(12.0), Some(8.0 * 2f64.ln())]);
    }
}
