//! Random programs for differential testing: DAGs with shared
//! intermediates, several outputs, repeated operands (`x*x`,
//! `sin(t)*sin(t)`, `pow(t, t)`), deep chains, wide fans and every operation
//! of the language, each wrapped to stay inside its domain.

use frontend::{Cmp, ExprDag, NodeId, Op};

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform(0.0, 1.0) < p
    }
}

/// A generated function.
pub struct Case {
    pub dag: ExprDag,
    pub outputs: Vec<NodeId>,
    pub num_inputs: usize,
}

/// Shape of a generated program.
#[derive(Clone, Copy)]
pub struct Shape {
    pub inputs: usize,
    pub outputs: usize,
    pub ops: usize,
    /// Probability of taking an operand among the newest nodes (deep chains).
    pub recent: f64,
}

/// A random shape: mostly small programs, some deep chains and wide fans.
pub fn random_shape(rng: &mut Rng) -> Shape {
    let inputs = 1 + rng.below(4);
    let outputs = 1 + rng.below(6);
    match rng.below(20) {
        0 => Shape { inputs, outputs, ops: 80 + rng.below(120), recent: 0.9 },
        1 => Shape { inputs, outputs, ops: 40 + rng.below(40), recent: 0.05 },
        2..=7 => Shape { inputs, outputs, ops: 15 + rng.below(30), recent: 0.5 },
        _ => Shape { inputs, outputs, ops: 2 + rng.below(14), recent: 0.4 },
    }
}

/// A random program of the given shape.
pub fn random_case(rng: &mut Rng, shape: Shape) -> Case {
    let mut dag = ExprDag::new();
    let mut pool: Vec<NodeId> = (0..shape.inputs).map(|k| dag.input(k)).collect();
    while pool.len() < shape.inputs + shape.ops {
        let a = pick(rng, &pool, shape.recent);
        let b = if rng.chance(0.15) { a } else { pick(rng, &pool, shape.recent) };
        let node = random_op(rng, &mut dag, a, b, &pool, shape.recent);
        pool.push(node);
    }
    let mut outputs = Vec::new();
    for _ in 0..shape.outputs {
        let node = if rng.chance(0.7) {
            pool[pool.len() - 1 - rng.below(pool.len().min(6))]
        } else {
            pool[rng.below(pool.len())]
        };
        outputs.push(node);
    }
    Case { dag, outputs, num_inputs: shape.inputs }
}

fn pick(rng: &mut Rng, pool: &[NodeId], recent: f64) -> NodeId {
    if rng.chance(recent) {
        pool[pool.len() - 1 - rng.below(pool.len().min(3))]
    } else {
        pool[rng.below(pool.len())]
    }
}

fn constant(rng: &mut Rng, dag: &mut ExprDag) -> NodeId {
    let choices = [0.5, 1.5, -2.0, 3.0, 0.25, -0.75, 2.0];
    dag.constant(choices[rng.below(choices.len())])
}

/// `tanh(t) * s`: bounded by `s`, so domain-restricted functions stay inside.
fn squash(dag: &mut ExprDag, t: NodeId, s: f64) -> NodeId {
    let th = dag.apply(Op::Tanh, &[t]);
    let scale = dag.constant(s);
    dag.mul(th, scale)
}

/// `t*t + c`, at least `c`.
fn lift(dag: &mut ExprDag, t: NodeId, c: f64) -> NodeId {
    let sq = dag.mul(t, t);
    let c = dag.constant(c);
    dag.add(sq, c)
}

/// `|t| + c`, at least `c`.
fn positive(dag: &mut ExprDag, t: NodeId, c: f64) -> NodeId {
    let abs = dag.apply(Op::Abs, &[t]);
    let c = dag.constant(c);
    dag.add(abs, c)
}

/// One random operation on `a` and `b` (and other `pool` nodes), kept inside its domain.
pub fn random_op(
    rng: &mut Rng,
    dag: &mut ExprDag,
    a: NodeId,
    b: NodeId,
    pool: &[NodeId],
    recent: f64,
) -> NodeId {
    let unary = |dag: &mut ExprDag, op: Op, t: NodeId| dag.apply(op, &[t]);
    match rng.below(44) {
        0..=3 => dag.add(a, b),
        4..=6 => dag.sub(a, b),
        7..=10 => dag.mul(a, b),
        11 => {
            let d = lift(dag, b, 0.5);
            dag.div(a, d)
        }
        12 => unary(dag, Op::Neg, a),
        13 => unary(dag, Op::Sin, a),
        14 => unary(dag, Op::Cos, a),
        15 => {
            let t = squash(dag, a, 1.2);
            unary(dag, Op::Tan, t)
        }
        16 => {
            let t = squash(dag, a, 0.9);
            unary(dag, Op::Asin, t)
        }
        17 => {
            let t = squash(dag, a, 0.9);
            unary(dag, Op::Acos, t)
        }
        18 => unary(dag, Op::Atan, a),
        19 => {
            let t = squash(dag, a, 2.0);
            unary(dag, Op::Sinh, t)
        }
        20 => {
            let t = squash(dag, a, 2.0);
            unary(dag, Op::Cosh, t)
        }
        21 => unary(dag, Op::Tanh, a),
        22 => unary(dag, Op::Asinh, a),
        23 => {
            let t = lift(dag, a, 1.5);
            unary(dag, Op::Acosh, t)
        }
        24 => {
            let t = squash(dag, a, 0.9);
            unary(dag, Op::Atanh, t)
        }
        25 => {
            let op = [Op::Exp, Op::Expm1, Op::Exp2][rng.below(3)];
            let t = squash(dag, a, 2.0);
            unary(dag, op, t)
        }
        26 => {
            let op = [Op::Log, Op::Log1p, Op::Log2, Op::Log10][rng.below(4)];
            let t = positive(dag, a, 0.5);
            unary(dag, op, t)
        }
        27 => {
            let t = lift(dag, a, 0.1);
            unary(dag, Op::Sqrt, t)
        }
        28 => {
            let t = lift(dag, a, 0.2);
            unary(dag, Op::Cbrt, t)
        }
        29 => unary(dag, Op::Abs, a),
        30 => {
            // sign and floor/ceil have zero derivative: mix them into a product.
            let op = [Op::Sign, Op::Floor, Op::Ceil][rng.below(3)];
            let s = unary(dag, op, a);
            dag.mul(s, b)
        }
        31 => {
            let t = squash(dag, a, 3.0);
            unary(dag, Op::Erf, t)
        }
        32 => dag.apply(Op::Atan2, &[a, b]),
        33 => {
            let c = constant(rng, dag);
            let shifted = dag.add(b, c);
            dag.apply(Op::Hypot, &[a, shifted])
        }
        34 => dag.apply(Op::Min, &[a, b]),
        35 => dag.apply(Op::Max, &[a, b]),
        36 => {
            let cmp = Cmp::ALL[rng.below(6)];
            let x = pick(rng, pool, recent);
            let y = pick(rng, pool, recent);
            dag.apply(Op::Select(cmp), &[a, b, x, y])
        }
        37 => {
            // pow with a variable exponent, often the base itself: pow(t, t).
            let base = positive(dag, a, 0.5);
            let exponent = if rng.chance(0.5) { base } else { squash(dag, b, 2.0) };
            dag.apply(Op::Pow, &[base, exponent])
        }
        38 => {
            // pow with a constant exponent: negative bases allowed for integers.
            let (base, exponent) = match rng.below(4) {
                0 => (a, 2.0),
                1 => (a, 3.0),
                2 => (lift(dag, a, 0.5), -1.5),
                _ => (positive(dag, a, 0.3), 0.5),
            };
            let e = dag.constant(exponent);
            dag.apply(Op::Pow, &[base, e])
        }
        39 => {
            // sin(t) * sin(t): two edges between the same two nodes.
            let s = unary(dag, Op::Sin, a);
            dag.mul(s, s)
        }
        40 => {
            let c = constant(rng, dag);
            dag.mul(c, a)
        }
        41 => {
            let c = constant(rng, dag);
            dag.add(a, c)
        }
        42 => {
            // A wide fan: one node summed with many functions of itself.
            let mut acc = a;
            for _ in 0..3 + rng.below(6) {
                let other = pick(rng, pool, 0.0);
                let t = dag.mul(a, other);
                acc = dag.add(acc, t);
            }
            acc
        }
        _ => {
            let t = squash(dag, a, 1.0);
            dag.mul(t, b)
        }
    }
}
