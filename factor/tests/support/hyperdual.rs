//! Second-order forward mode for the tests only: hyper-dual numbers
//! `v + a·ε₁ + b·ε₂ + ab·ε₁ε₂`, whose `ab` part along inputs `i` and `j` is
//! `∂²f/∂xᵢ∂xⱼ`. Each operation's first and second derivatives are written
//! out from the textbook, independently of `factor::rules`, as the
//! first-order `dual` module does. `ifelse`, `min` and `max` take the chosen
//! argument whole (the branch not taken contributes nothing); arguments that
//! do not depend on the inputs contribute nothing either.

use frontend::{ExprDag, NodeId, Op};

/// A hyper-dual number with the cancellation-free magnitudes of its parts
/// (sums of absolute path products), which bound the rounding of any
/// evaluation order.
#[derive(Clone, Copy, Debug)]
pub struct HyperDual {
    pub v: f64,
    pub a: f64,
    pub b: f64,
    pub ab: f64,
    pub ma: f64,
    pub mb: f64,
    pub mab: f64,
    pub active: bool,
}

impl HyperDual {
    fn constant(v: f64) -> HyperDual {
        HyperDual { v, a: 0.0, b: 0.0, ab: 0.0, ma: 0.0, mb: 0.0, mab: 0.0, active: false }
    }
}

/// `∂²outputs/∂xᵢ∂xⱼ` at `x` (the `ab` parts), with magnitudes.
pub fn eval_hyperdual(dag: &ExprDag, outputs: &[NodeId], x: &[f64], i: usize, j: usize) -> Vec<HyperDual> {
    let reach = dag.reachable(outputs);
    let mut values = vec![HyperDual::constant(f64::NAN); dag.len()];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let op = dag.op(id);
        let args: Vec<HyperDual> = dag.args(id).iter().map(|a| values[a.index()]).collect();
        let plain: Vec<f64> = args.iter().map(|a| a.v).collect();
        values[id.index()] = match op {
            Op::Input(k) => {
                let k = k as usize;
                let (a, b) = (f64::from(u8::from(k == i)), f64::from(u8::from(k == j)));
                HyperDual { v: x[k], a, b, ab: 0.0, ma: a, mb: b, mab: 0.0, active: a != 0.0 || b != 0.0 }
            }
            Op::Min => args[if plain[0] < plain[1] { 0 } else { 1 }],
            Op::Max => args[if plain[0] > plain[1] { 0 } else { 1 }],
            Op::Select(cmp) => args[if cmp.holds(plain[0], plain[1]) { 2 } else { 3 }],
            _ => {
                let v = op.eval(&plain);
                match (args.as_slice(), second_derivatives(op, &plain, v)) {
                    ([], _) | (_, Derivatives::None) => HyperDual::constant(v),
                    ([x], Derivatives::Unary(d, dd)) => unary(v, x, d, dd),
                    ([x, y], Derivatives::Binary(d, dd)) => binary(v, x, y, d, dd),
                    _ => unreachable!("{op:?}: arity and derivatives agree"),
                }
            }
        };
    }
    outputs.iter().map(|o| values[o.index()]).collect()
}

/// `f(x)` with `f' = d` and `f'' = dd` at `x.v`.
fn unary(v: f64, x: &HyperDual, d: f64, dd: f64) -> HyperDual {
    if !x.active {
        return HyperDual::constant(v);
    }
    HyperDual {
        v,
        a: d * x.a,
        b: d * x.b,
        ab: d * x.ab + dd * x.a * x.b,
        ma: d.abs() * x.ma,
        mb: d.abs() * x.mb,
        mab: d.abs() * x.mab + dd.abs() * x.ma * x.mb,
        active: true,
    }
}

/// `f(x, y)` with gradient `d` and Hessian `dd = [fxx, fxy, fyy]`. As in
/// the first-order duals, an argument that does not depend on the inputs
/// contributes nothing, and an active one contributes its products even
/// where its parts are zero (so a singular partial gives NaN).
fn binary(v: f64, x: &HyperDual, y: &HyperDual, d: [f64; 2], dd: [f64; 3]) -> HyperDual {
    if !x.active && !y.active {
        return HyperDual::constant(v);
    }
    let [fx, fy] = d;
    let [fxx, fxy, fyy] = dd;
    let mut out = HyperDual { v, a: 0.0, b: 0.0, ab: 0.0, ma: 0.0, mb: 0.0, mab: 0.0, active: true };
    for (arg, f, ff) in [(x, fx, fxx), (y, fy, fyy)] {
        if arg.active {
            out.a += f * arg.a;
            out.b += f * arg.b;
            out.ab += f * arg.ab + ff * arg.a * arg.b;
            out.ma += f.abs() * arg.ma;
            out.mb += f.abs() * arg.mb;
            out.mab += f.abs() * arg.mab + ff.abs() * arg.ma * arg.mb;
        }
    }
    if x.active && y.active {
        out.ab += fxy * (x.a * y.b + y.a * x.b);
        out.mab += fxy.abs() * (x.ma * y.mb + y.ma * x.mb);
    }
    out
}

/// First and second derivatives of an operation.
enum Derivatives {
    /// Not differentiable (piecewise constant) or a leaf.
    None,
    /// `f'`, `f''`.
    Unary(f64, f64),
    /// `[fx, fy]`, `[fxx, fxy, fyy]`.
    Binary([f64; 2], [f64; 3]),
}

/// Textbook derivatives at the arguments `a`; `f` is the value.
fn second_derivatives(op: Op, a: &[f64], f: f64) -> Derivatives {
    use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2};
    let x = a.first().copied().unwrap_or(0.0);
    let y = a.get(1).copied().unwrap_or(0.0);
    let one_minus = 1.0 - x * x;
    match op {
        Op::Const(_) | Op::Input(_) | Op::Sign | Op::Floor | Op::Ceil => Derivatives::None,
        Op::Min | Op::Max | Op::Select(_) => unreachable!("chosen whole"),
        Op::Neg => Derivatives::Unary(-1.0, 0.0),
        Op::Add => Derivatives::Binary([1.0, 1.0], [0.0; 3]),
        Op::Sub => Derivatives::Binary([1.0, -1.0], [0.0; 3]),
        Op::Mul => Derivatives::Binary([y, x], [0.0, 1.0, 0.0]),
        Op::Div => Derivatives::Binary([1.0 / y, -x / (y * y)], [0.0, -1.0 / (y * y), 2.0 * x / (y * y * y)]),
        Op::Pow => {
            if x == 0.0 {
                // 0^y = 0 for y > 0: constant in y.
                let dx = y * x.powf(y - 1.0);
                Derivatives::Binary([dx, 0.0], [y * (y - 1.0) * x.powf(y - 2.0), x.powf(y - 1.0), 0.0])
            } else {
                let ln = x.ln();
                Derivatives::Binary(
                    [y * x.powf(y - 1.0), f * ln],
                    [y * (y - 1.0) * x.powf(y - 2.0), x.powf(y - 1.0) * (1.0 + y * ln), f * ln * ln],
                )
            }
        }
        Op::Sin => Derivatives::Unary(x.cos(), -x.sin()),
        Op::Cos => Derivatives::Unary(-x.sin(), -x.cos()),
        Op::Tan => Derivatives::Unary(1.0 + f * f, 2.0 * f * (1.0 + f * f)),
        Op::Asin => Derivatives::Unary(1.0 / one_minus.sqrt(), x / (one_minus * one_minus.sqrt())),
        Op::Acos => Derivatives::Unary(-1.0 / one_minus.sqrt(), -x / (one_minus * one_minus.sqrt())),
        Op::Atan => Derivatives::Unary(1.0 / (1.0 + x * x), -2.0 * x / ((1.0 + x * x) * (1.0 + x * x))),
        Op::Sinh => Derivatives::Unary(x.cosh(), x.sinh()),
        Op::Cosh => Derivatives::Unary(x.sinh(), x.cosh()),
        Op::Tanh => {
            let s = 1.0 / (x.cosh() * x.cosh());
            Derivatives::Unary(s, -2.0 * f * s)
        }
        Op::Asinh => {
            let r = (1.0 + x * x).sqrt();
            Derivatives::Unary(1.0 / r, -x / (r * r * r))
        }
        Op::Acosh => {
            let r = (x * x - 1.0).sqrt();
            Derivatives::Unary(1.0 / r, -x / (r * r * r))
        }
        Op::Atanh => Derivatives::Unary(1.0 / one_minus, 2.0 * x / (one_minus * one_minus)),
        Op::Exp => Derivatives::Unary(f, f),
        Op::Expm1 => Derivatives::Unary(x.exp(), x.exp()),
        Op::Exp2 => Derivatives::Unary(f * LN_2, f * LN_2 * LN_2),
        Op::Log => Derivatives::Unary(1.0 / x, -1.0 / (x * x)),
        Op::Log1p => Derivatives::Unary(1.0 / (1.0 + x), -1.0 / ((1.0 + x) * (1.0 + x))),
        Op::Log2 => Derivatives::Unary(1.0 / (x * LN_2), -1.0 / (x * x * LN_2)),
        Op::Log10 => Derivatives::Unary(1.0 / (x * LN_10), -1.0 / (x * x * LN_10)),
        Op::Sqrt => Derivatives::Unary(0.5 / f, -0.25 / (f * f * f)),
        Op::Cbrt => Derivatives::Unary(1.0 / (3.0 * f * f), -2.0 / (9.0 * f.powi(5))),
        Op::Abs => Derivatives::Unary(op_sign(x), 0.0),
        Op::Erf => {
            let d = FRAC_2_SQRT_PI * (-x * x).exp();
            Derivatives::Unary(d, -2.0 * x * d)
        }
        Op::Atan2 => {
            let r2 = x * x + y * y;
            let r4 = r2 * r2;
            Derivatives::Binary(
                [y / r2, -x / r2],
                [-2.0 * x * y / r4, (x * x - y * y) / r4, 2.0 * x * y / r4],
            )
        }
        Op::Hypot => {
            let h3 = f * f * f;
            Derivatives::Binary([x / f, y / f], [y * y / h3, -x * y / h3, x * x / h3])
        }
    }
}

/// `abs'`: the language's `sign`, 0 at 0.
fn op_sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}
