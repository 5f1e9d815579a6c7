//! Random programs with shared intermediates, and value comparison.

use frontend::{ExprDag, NodeId, Op};

/// A deterministic xorshift generator: tests need no external randomness.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random function: its DAG, outputs, input count and a point.
pub struct Case {
    pub dag: ExprDag,
    pub outputs: Vec<NodeId>,
    pub num_inputs: usize,
    pub point: Vec<f64>,
}

/// `ops` operations over `1..=max_inputs` inputs, each argument drawn from
/// recent nodes (so intermediates are shared), several outputs. Ops with a
/// restricted domain get arguments that keep them inside it.
pub fn random_case(rng: &mut Rng, max_inputs: usize, ops: usize) -> Case {
    let mut dag = ExprDag::new();
    let num_inputs = 1 + rng.below(max_inputs);
    let mut nodes: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    const CONSTS: [f64; 8] = [2.0, 3.0, 0.5, -1.0, 1.0, -2.5, 0.25, 1.5];
    // Hash-consing and folding may return old or constant nodes: count new
    // operations as the DAG grows, and bound the attempts.
    let mut made = 0;
    for _ in 0..ops * 4 {
        if made >= ops {
            break;
        }
        let before = dag.len();
        let mut pick = |rng: &mut Rng| {
            if rng.below(8) == 0 {
                dag_const(&mut dag, CONSTS[rng.below(CONSTS.len())])
            } else {
                let window = nodes.len().min(12);
                nodes[nodes.len() - 1 - rng.below(window)]
            }
        };
        let a = pick(rng);
        let b = pick(rng);
        let node = match rng.below(20) {
            0..=4 => dag.add(a, b),
            5..=7 => dag.sub(a, b),
            8..=12 => dag.mul(a, b),
            13 => dag.neg(a),
            14 => {
                // a / (b² + 1): never divides by zero.
                let bb = dag.mul(b, b);
                let one = dag.constant(1.0);
                let d = dag.add(bb, one);
                dag.div(a, d)
            }
            15 => {
                let c = dag.constant(CONSTS[rng.below(CONSTS.len())]);
                dag.div(a, c)
            }
            _ => unary(&mut dag, rng, a),
        };
        // Constants would take over the window: keep operations only.
        if !dag.op(node).is_leaf() {
            made += dag.len() - before;
            nodes.push(node);
        }
    }
    let count = 1 + rng.below(4);
    let outputs = (0..count).map(|_| nodes[nodes.len() - 1 - rng.below(nodes.len().min(6))]).collect();
    let point = (0..num_inputs).map(|_| 0.3 + rng.unit()).collect();
    Case { dag, outputs, num_inputs, point }
}

fn dag_const(dag: &mut ExprDag, c: f64) -> NodeId {
    dag.constant(c)
}

/// A function applied to `a`, made safe: `a` is first squashed into (-1, 1)
/// (`tanh`) or made positive (`a² + 1`) where the function needs it.
fn unary(dag: &mut ExprDag, rng: &mut Rng, a: NodeId) -> NodeId {
    let squash = |dag: &mut ExprDag| {
        let t = dag.apply(Op::Tanh, &[a]);
        let c = dag.constant(0.9);
        dag.mul(t, c)
    };
    let positive = |dag: &mut ExprDag| {
        let aa = dag.mul(a, a);
        let one = dag.constant(1.0);
        dag.add(aa, one)
    };
    let ops = [
        Op::Sin,
        Op::Cos,
        Op::Tanh,
        Op::Atan,
        Op::Exp,
        Op::Sinh,
        Op::Asinh,
        Op::Cbrt,
        Op::Erf,
        Op::Log,
        Op::Sqrt,
        Op::Asin,
        Op::Acos,
        Op::Atanh,
        Op::Acosh,
        Op::Hypot,
        Op::Atan2,
        Op::Pow,
    ];
    match ops[rng.below(ops.len())] {
        op @ (Op::Exp | Op::Sinh) => {
            let s = squash(dag);
            dag.apply(op, &[s])
        }
        op @ (Op::Log | Op::Sqrt) => {
            let p = positive(dag);
            dag.apply(op, &[p])
        }
        op @ (Op::Asin | Op::Acos | Op::Atanh) => {
            let s = squash(dag);
            dag.apply(op, &[s])
        }
        Op::Acosh => {
            let p = positive(dag);
            let one = dag.constant(1.0);
            let q = dag.add(p, one);
            dag.apply(Op::Acosh, &[q])
        }
        Op::Pow => {
            let p = positive(dag);
            let e = dag.constant(1.5);
            dag.apply(Op::Pow, &[p, e])
        }
        op @ (Op::Hypot | Op::Atan2) => {
            let one = dag.constant(1.0);
            dag.apply(op, &[a, one])
        }
        op => dag.apply(op, &[a]),
    }
}

/// Whether `a` and `b` agree to `rel` relative to the larger magnitude, or
/// are both non-finite. Magnitudes below 1 compare absolutely: a value that
/// cancels down from terms of order 1 keeps only their absolute rounding.
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return !a.is_finite() && !b.is_finite();
    }
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}
