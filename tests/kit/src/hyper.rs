//! Hyper-dual numbers (Fike and Alonso, 2011): exact second derivatives,
//! the oracle for Hessians. Like [`crate::dual`], written for the tests and
//! independent of the library's derivative rules; the first partials are the
//! dual numbers' own, the second partials are written here from the calculus
//! textbook. As there, `ifelse`, `min` and `max` take the chosen argument's
//! parts whole: the branch not taken contributes nothing.
//!
//! A hyper-dual `v + d1·ε1 + d2·ε2 + d12·ε1ε2` (with `ε1² = ε2² = 0`) seeded
//! with `ε1` on input `i` and `ε2` on input `j` carries `∂²f/∂xi∂xj` in
//! `d12`, with no step and no cancellation: exact to rounding.
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout x*x*y + sin(y)").unwrap();
//! let h = testkit::hessian_oracle(&program.dag, &program.output_nodes(), &[2.0, 0.5]);
//! assert_eq!(h[0], vec![vec![1.0, 4.0], vec![4.0, -(0.5f64.sin())]]);
//! ```

use crate::dual::{contributes, kink_margin_at, local_partials, Dual};
use frontend::{ExprDag, NodeId, Op};

/// A value with its derivatives along two input directions and the mixed
/// second derivative, with their magnitudes without cancellation (sums of
/// |path products|, bounding the rounding error of any evaluation order).
#[derive(Clone, Copy, Debug)]
pub struct HyperDual {
    /// The value.
    pub v: f64,
    /// The derivative along the first direction.
    pub d1: f64,
    /// The derivative along the second direction.
    pub d2: f64,
    /// The second derivative along both.
    pub d12: f64,
    /// The magnitude of `d1` without cancellation.
    pub m1: f64,
    /// The magnitude of `d2` without cancellation.
    pub m2: f64,
    /// The magnitude of `d12` without cancellation.
    pub m12: f64,
    /// Whether the node depends on the first direction's input.
    pub active1: bool,
    /// Whether the node depends on the second direction's input.
    pub active2: bool,
}

/// The evaluation of a DAG in hyper-dual numbers along two directions.
#[derive(Clone, Debug)]
pub struct HyperEval {
    /// The outputs' hyper-duals.
    pub outputs: Vec<HyperDual>,
    /// The smallest step along either direction that may reach a kink (as
    /// [`crate::DualEval::kink_margin`]); second differences must stay below it.
    pub kink_margin: f64,
}

/// Evaluates `roots` at `x` with `ε1` seeded on input `i` and `ε2` on input `j`.
/// Calls are written out first, as for [`crate::eval_dual`].
pub fn eval_hyper(dag: &ExprDag, roots: &[NodeId], x: &[f64], i: usize, j: usize) -> HyperEval {
    if !dag.sites().is_empty() {
        let (dag, roots) = frontend::call::inline(dag, roots);
        return eval_hyper(&dag, &roots, x, i, j);
    }
    let reach = dag.reachable(roots);
    let zero = HyperDual {
        v: f64::NAN,
        d1: 0.0,
        d2: 0.0,
        d12: 0.0,
        m1: 0.0,
        m2: 0.0,
        m12: 0.0,
        active1: false,
        active2: false,
    };
    let mut nodes = vec![zero; dag.len()];
    let mut kink_margin = f64::INFINITY;
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let op = dag.op(id);
        let args: Vec<HyperDual> = dag.args(id).iter().map(|a| nodes[a.index()]).collect();
        let values: Vec<f64> = args.iter().map(|a| a.v).collect();
        let v = match op {
            Op::Input(k) => x[k as usize],
            _ => op.eval(&values),
        };
        for along in [|h: &HyperDual| h.d1, |h: &HyperDual| h.d2] {
            let duals: Vec<Dual> =
                args.iter().map(|a| Dual { v: a.v, d: along(a), m: 0.0, active: true, e: 0.0 }).collect();
            if let Some(margin) = kink_margin_at(dag, id, &duals) {
                kink_margin = kink_margin.min(margin);
            }
        }
        let mut h = zero;
        h.v = v;
        if let Op::Input(k) = op {
            let k = k as usize;
            (h.d1, h.m1, h.active1) = if k == i { (1.0, 1.0, true) } else { (0.0, 0.0, false) };
            (h.d2, h.m2, h.active2) = if k == j { (1.0, 1.0, true) } else { (0.0, 0.0, false) };
            nodes[id.index()] = h;
            continue;
        }
        let first = local_partials(op, &values, v);
        let second = local_second_partials(op, &values, v);
        let slots: Vec<usize> = (0..args.len()).filter(|&s| contributes(op, &values, s)).collect();
        for &k in &slots {
            let (a, p) = (&args[k], first[k]);
            if a.active1 {
                h.d1 += p * a.d1;
                h.m1 += p.abs() * a.m1;
                h.active1 = true;
            }
            if a.active2 {
                h.d2 += p * a.d2;
                h.m2 += p.abs() * a.m2;
                h.active2 = true;
            }
            if a.active1 && a.active2 {
                h.d12 += p * a.d12;
                h.m12 += p.abs() * a.m12;
            }
            for &l in &slots {
                let b = &args[l];
                if a.active1 && b.active2 {
                    let q = second[k][l];
                    h.d12 += q * a.d1 * b.d2;
                    h.m12 += q.abs() * a.m1 * b.m2;
                }
            }
        }
        nodes[id.index()] = h;
    }
    HyperEval { outputs: roots.iter().map(|r| nodes[r.index()]).collect(), kink_margin }
}

/// The exact Hessian of each root at `x`: `hessian_oracle(..)[r][i][j] =
/// ∂²root_r/∂xi∂xj`, symmetric, from one hyper-dual evaluation per pair
/// `i <= j`. `x.len()` is the number of inputs.
pub fn hessian_oracle(dag: &ExprDag, roots: &[NodeId], x: &[f64]) -> Vec<Vec<Vec<f64>>> {
    let n = x.len();
    let mut hessians = vec![vec![vec![0.0; n]; n]; roots.len()];
    for i in 0..n {
        for j in i..n {
            let eval = eval_hyper(dag, roots, x, i, j);
            for (r, h) in eval.outputs.iter().enumerate() {
                hessians[r][i][j] = h.d12;
                hessians[r][j][i] = h.d12;
            }
        }
    }
    hessians
}

/// Textbook second partials of each operation, `[k][l] = ∂²f/∂ak∂al` at
/// the arguments `a` where `f` is the operation's value. Piecewise-linear
/// operations (`abs`, `min`, `max`, `ifelse`, and the constant pieces of
/// `sign`, `floor`, `ceil`) have none.
fn local_second_partials(op: Op, a: &[f64], f: f64) -> Vec<Vec<f64>> {
    let x = a.first().copied().unwrap_or(0.0);
    let y = a.get(1).copied().unwrap_or(0.0);
    let unary = |d2: f64| vec![vec![d2]];
    match op {
        // Calls are written out before (`eval_hyper`).
        Op::Const(_) | Op::Input(_) | Op::Call(_) => vec![],
        Op::Neg | Op::Abs | Op::Sign | Op::Floor | Op::Ceil => unary(0.0),
        Op::Add | Op::Sub | Op::Min | Op::Max => vec![vec![0.0; 2]; 2],
        Op::Select(_) => vec![vec![0.0; 4]; 4],
        Op::Mul => vec![vec![0.0, 1.0], vec![1.0, 0.0]],
        Op::Div => {
            let mixed = -1.0 / (y * y);
            vec![vec![0.0, mixed], vec![mixed, 2.0 * x / (y * y * y)]]
        }
        Op::Pow => {
            let ln = if x == 0.0 { 0.0 } else { x.ln() };
            let xx = y * (y - 1.0) * x.powf(y - 2.0);
            let xy = x.powf(y - 1.0) * (1.0 + y * ln);
            vec![vec![xx, xy], vec![xy, f * ln * ln]]
        }
        Op::Sin => unary(-x.sin()),
        Op::Cos => unary(-x.cos()),
        Op::Tan => unary(2.0 * x.tan() / (x.cos() * x.cos())),
        Op::Asin => unary(x / (1.0 - x * x).powf(1.5)),
        Op::Acos => unary(-x / (1.0 - x * x).powf(1.5)),
        Op::Atan => unary(-2.0 * x / ((1.0 + x * x) * (1.0 + x * x))),
        Op::Sinh => unary(x.sinh()),
        Op::Cosh => unary(x.cosh()),
        Op::Tanh => unary(-2.0 * x.tanh() / (x.cosh() * x.cosh())),
        Op::Asinh => unary(-x / (x * x + 1.0).powf(1.5)),
        Op::Acosh => unary(-x / ((x - 1.0) * (x + 1.0)).powf(1.5)),
        Op::Atanh => unary(2.0 * x / ((1.0 - x * x) * (1.0 - x * x))),
        Op::Exp | Op::Expm1 => unary(x.exp()),
        Op::Exp2 => unary(f * std::f64::consts::LN_2 * std::f64::consts::LN_2),
        Op::Log => unary(-1.0 / (x * x)),
        Op::Log1p => unary(-1.0 / ((1.0 + x) * (1.0 + x))),
        Op::Log2 => unary(-1.0 / (x * x * std::f64::consts::LN_2)),
        Op::Log10 => unary(-1.0 / (x * x * std::f64::consts::LN_10)),
        Op::Sqrt => unary(-0.25 / (x * x.sqrt())),
        Op::Cbrt => unary(-2.0 / (9.0 * x * x.cbrt().powi(2))),
        Op::Erf => unary(-4.0 * x / std::f64::consts::PI.sqrt() * (-x * x).exp()),
        Op::Atan2 => {
            // atan2(x, y) = atan(x / y): partials y/r², -x/r².
            let r4 = (x * x + y * y) * (x * x + y * y);
            let mixed = (x * x - y * y) / r4;
            vec![vec![-2.0 * x * y / r4, mixed], vec![mixed, 2.0 * x * y / r4]]
        }
        Op::Hypot => {
            let r = x.hypot(y);
            let r3 = r * r * r;
            let mixed = -x * y / r3;
            vec![vec![y * y / r3, mixed], vec![mixed, x * x / r3]]
        }
    }
}
