//! Forward-mode dual numbers, written for the tests only and on purpose
//! independent of `derivative::rules`: an oracle must not share the code it
//! checks. It evaluates a DAG with its own arithmetic.

use frontend::{ExprDag, NodeId, Op};

/// A value, its derivative along one direction, and the derivative's
/// magnitude without cancellation (the sum of |path products|), which bounds
/// the rounding error any evaluation order can make. `active` tells whether
/// the node depends on the direction's input through differentiable
/// arguments; inactive arguments contribute nothing (as in any forward-mode
/// tool), active ones contribute `partial * d` even when `d` is zero, so a
/// singular partial gives NaN as the chain rule does. `ifelse`, `min` and
/// `max` take the chosen argument's dual whole: the branch not taken
/// contributes nothing, whatever its derivative (the language's "derivative
/// of the branch taken").
#[derive(Clone, Copy, Debug)]
pub struct Dual {
    /// The value.
    pub v: f64,
    /// The derivative along the direction.
    pub d: f64,
    /// The derivative's magnitude without cancellation.
    pub m: f64,
    /// Whether the node depends on the direction's input.
    pub active: bool,
    /// A bound on the value's rounding error from the direction's input on
    /// (first order): what a finite difference along it cannot resolve.
    pub e: f64,
}

/// The evaluation of a DAG in dual numbers along one input direction.
#[derive(Clone, Debug)]
pub struct DualEval {
    /// The outputs' duals.
    pub outputs: Vec<Dual>,
    /// The smallest step along the direction that may reach a kink (abs,
    /// sign, floor, ceil, min, max, ifelse, atan2/hypot at the origin): the
    /// kink argument's distance over its rate of change.
    pub kink_margin: f64,
}

/// Evaluates `outputs` at `x` with input `direction`'s derivative seeded 1.
/// Calls are written out first ([`frontend::call::inline`]): the oracle
/// differentiates what a call means, not how dstar differentiates it.
pub fn eval_dual(dag: &ExprDag, outputs: &[NodeId], x: &[f64], direction: usize) -> DualEval {
    if !dag.sites().is_empty() {
        let (dag, outputs) = frontend::call::inline(dag, outputs);
        return eval_dual(&dag, &outputs, x, direction);
    }
    let reach = dag.reachable(outputs);
    let mut duals = vec![Dual { v: f64::NAN, d: 0.0, m: 0.0, active: false, e: 0.0 }; dag.len()];
    let mut kink_margin = f64::INFINITY;
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let op = dag.op(id);
        let args: Vec<Dual> = dag.args(id).iter().map(|a| duals[a.index()]).collect();
        let values: Vec<f64> = args.iter().map(|a| a.v).collect();
        // Values through the reference semantics, so branches match exactly.
        let v = match op {
            Op::Input(k) => x[k as usize],
            _ => op.eval(&values),
        };
        if let Some(margin) = kink_margin_at(dag, id, &args) {
            kink_margin = kink_margin.min(margin);
        }
        let seed = matches!(op, Op::Input(k) if k as usize == direction);
        let partials = local_partials(op, &values, v);
        let (mut d, mut m, mut active) = if seed { (1.0, 1.0, true) } else { (0.0, 0.0, false) };
        let mut e = 0.0;
        for (slot, (a, p)) in args.iter().zip(&partials).enumerate() {
            if a.active && contributes(op, &values, slot) {
                d += p * a.d;
                m += p.abs() * a.m;
                e += p.abs() * a.e;
                active = true;
            }
        }
        if active {
            e += f64::EPSILON * v.abs();
        }
        duals[id.index()] = Dual { v, d, m, active, e };
    }
    DualEval { outputs: outputs.iter().map(|o| duals[o.index()]).collect(), kink_margin }
}

/// The step along the direction (the arguments' `d`) that may reach node
/// `id`'s kink, if it has one.
pub(crate) fn kink_margin_at(dag: &ExprDag, id: NodeId, args: &[Dual]) -> Option<f64> {
    let op = dag.op(id);
    // min(a, a) and ifelse(a < a, ..) are smooth: no tie to worry about.
    let same_operands = matches!(op, Op::Min | Op::Max | Op::Select(_)) && dag.args(id)[0] == dag.args(id)[1];
    let (distance, rate) = kink(op, args).filter(|_| !same_operands)?;
    // An unknown rate (NaN) is no evidence of safety.
    let margin = if distance == 0.0 { 0.0 } else { distance / rate };
    Some(if margin.is_nan() { 0.0 } else { margin })
}

/// A kink's distance from its argument and the rate at which the argument
/// approaches it along the direction.
fn kink(op: Op, a: &[Dual]) -> Option<(f64, f64)> {
    match op {
        Op::Abs | Op::Sign => Some((a[0].v.abs(), a[0].d.abs())),
        Op::Floor | Op::Ceil => Some(((a[0].v - a[0].v.round()).abs(), a[0].d.abs())),
        Op::Min | Op::Max | Op::Select(_) => Some(((a[0].v - a[1].v).abs(), (a[0].d - a[1].d).abs())),
        // Singular at the origin, where the partials are 0/0.
        Op::Hypot => Some((a[0].v.hypot(a[1].v), a[0].d.hypot(a[1].d))),
        // atan2(y, x) also jumps by 2π across its branch cut y = 0, x < 0.
        Op::Atan2 if a[1].v < 0.0 => Some((a[0].v.abs(), a[0].d.abs())),
        Op::Atan2 => Some((a[0].v.hypot(a[1].v), a[0].d.hypot(a[1].d))),
        _ => None,
    }
}

/// Whether argument `slot`'s derivatives flow into the operation's at the
/// argument values `a`: not for piecewise-constant functions nor comparison
/// operands, and for `ifelse`, `min` and `max` only from the argument they
/// return (both at a tie of `min` and `max`, each with half), whatever the
/// others' derivatives.
pub(crate) fn contributes(op: Op, a: &[f64], slot: usize) -> bool {
    match op {
        Op::Sign | Op::Floor | Op::Ceil => false,
        Op::Min | Op::Max if a[0] == a[1] => true,
        Op::Min => slot == if a[0] < a[1] { 0 } else { 1 },
        Op::Max => slot == if a[0] > a[1] { 0 } else { 1 },
        Op::Select(cmp) => slot == if cmp.holds(a[0], a[1]) { 2 } else { 3 },
        _ => true,
    }
}

/// Textbook derivatives of each operation, argument by argument.
pub(crate) fn local_partials(op: Op, a: &[f64], f: f64) -> Vec<f64> {
    let x = a.first().copied().unwrap_or(0.0);
    let y = a.get(1).copied().unwrap_or(0.0);
    match op {
        // Calls are written out before (`eval_dual`).
        Op::Const(_) | Op::Input(_) | Op::Call(_) => vec![],
        Op::Neg => vec![-1.0],
        Op::Add => vec![1.0, 1.0],
        Op::Sub => vec![1.0, -1.0],
        Op::Mul => vec![y, x],
        Op::Div => vec![1.0 / y, -x / (y * y)],
        Op::Pow => vec![y * x.powf(y - 1.0), if x == 0.0 { 0.0 } else { f * x.ln() }],
        Op::Sin => vec![x.cos()],
        Op::Cos => vec![-x.sin()],
        Op::Tan => vec![1.0 / (x.cos() * x.cos())],
        Op::Asin => vec![1.0 / (1.0 - x * x).sqrt()],
        Op::Acos => vec![-1.0 / (1.0 - x * x).sqrt()],
        Op::Atan => vec![1.0 / (1.0 + x * x)],
        Op::Sinh => vec![x.cosh()],
        Op::Cosh => vec![x.sinh()],
        Op::Tanh => vec![1.0 / (x.cosh() * x.cosh())],
        Op::Asinh => vec![1.0 / x.hypot(1.0)],
        Op::Acosh => vec![1.0 / ((x - 1.0).sqrt() * (x + 1.0).sqrt())],
        Op::Atanh => vec![1.0 / (1.0 - x * x)],
        Op::Exp => vec![x.exp()],
        Op::Expm1 => vec![x.exp()],
        Op::Exp2 => vec![x.exp2() * std::f64::consts::LN_2],
        Op::Log => vec![1.0 / x],
        Op::Log1p => vec![1.0 / (1.0 + x)],
        Op::Log2 => vec![1.0 / (x * std::f64::consts::LN_2)],
        Op::Log10 => vec![1.0 / (x * std::f64::consts::LN_10)],
        Op::Sqrt => vec![0.5 / x.sqrt()],
        Op::Cbrt => vec![1.0 / (3.0 * x.cbrt().powi(2))],
        Op::Abs => vec![if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }],
        Op::Sign | Op::Floor | Op::Ceil => vec![0.0],
        Op::Erf => vec![2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()],
        Op::Atan2 => vec![y / x.hypot(y) / x.hypot(y), -x / x.hypot(y) / x.hypot(y)],
        Op::Hypot => vec![x / x.hypot(y), y / x.hypot(y)],
        Op::Min | Op::Max if x == y => vec![0.5, 0.5],
        Op::Min => {
            if x < y {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        }
        Op::Max => {
            if x > y {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        }
        Op::Select(cmp) => {
            if cmp.holds(x, y) {
                vec![0.0, 0.0, 1.0, 0.0]
            } else {
                vec![0.0, 0.0, 0.0, 1.0]
            }
        }
    }
}
