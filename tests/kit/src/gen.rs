//! The random-program generator: one engine, shaped by a [`Shape`] (inputs,
//! outputs, operations, how deep, which operations, how domains are kept).
//!
//! Each node applies the [`Mix`]'s next operation to operands drawn from the
//! nodes so far (inputs first; no constant folded from constants): with
//! probability `recent` among the `window` newest, else any of them. The outputs are mostly among the six
//! newest nodes. The case's point is drawn from a fork of the generator, so
//! drawing it leaves the stream (and what a test draws next) unchanged.
//!
//! ```
//! use testkit::{generate, Rng, Shape};
//! let mut rng = Rng::new(1);
//! let case = generate(&mut rng, &Shape::calculus(3, 2, 20, 0.5));
//! assert_eq!((case.num_inputs, case.outputs.len(), case.point.len()), (3, 2, 3));
//! let values = case.kernel().eval(&case.point);
//! assert_eq!(values.len(), 2);
//! ```

use crate::rng::Rng;
use frontend::{Cmp, ExprDag, Kernel, NodeId, Op};

/// Which operations a generated program is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// Every operation of the language in the D* differential test's
    /// proportions, and the structures that break accumulations: repeated
    /// operands (`x*x`, `sin(t)*sin(t)`, `pow(t, t)`), wide fans, piecewise
    /// functions times smooth ones, `ifelse`.
    Calculus,
    /// `+`, `-`, negation (unit edges) and `*`, `sin`, `cos`, `tanh`, `2.5·t`
    /// (nonunit edges): linearized graphs for the eliminations.
    Elimination,
    /// Mostly `+ - *` over shared intermediates and constants (one operand
    /// in eight is a constant), quotients, and each smooth function now and
    /// then, under gentler guards (`0.9·tanh(t)`, `t² + 1`) that keep
    /// magnitudes near 1: what the common-subchain pass rewrites.
    Algebra,
    /// Each of [`Op::ALL`] in turn, then at random, a third of the
    /// powers with an integer exponent in `-16..=16`, over a pool seeded with
    /// a few constants: every operation, for the back ends.
    Every,
}

/// How operands are kept inside the operations' domains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// A restricted operation gets a wrapped operand: squashed by `tanh`
    /// (`tan`, `asin`, `acos`, `atanh`, `sinh`, `cosh`, the exponentials,
    /// `erf`), lifted to `t² + c` (`acosh`, `sqrt`, `cbrt`, divisors) or made
    /// positive as `|t| + c` (logarithms, bases of powers), so that values are finite
    /// over the whole box.
    Safe,
    /// Operations take the operands drawn. A node is drawn again (up to 8
    /// times) until its value at the case's point is finite and below 1e6,
    /// so the point is meaningful while other points reach NaN and
    /// infinities.
    Raw,
}

/// The shape of a generated program.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Number of inputs.
    pub inputs: usize,
    /// Number of outputs (they may repeat, or be inputs).
    pub outputs: usize,
    /// Operations drawn; hash-consing may merge some.
    pub ops: usize,
    /// Probability that an operand is among the `window` newest nodes (deep
    /// chains) rather than any node (wide fans).
    pub recent: f64,
    /// How many of the newest nodes count as recent.
    pub window: usize,
    /// Probability that a binary operation's second operand is its first
    /// (`x*x`, `hypot(t, t)`).
    pub repeat: f64,
    /// The operations.
    pub mix: Mix,
    /// How domains are kept.
    pub domain: Domain,
    /// Each coordinate of the case's point is uniform in `[range.0, range.1)`.
    pub range: (f64, f64),
}

impl Shape {
    /// The D* differential test's programs: [`Mix::Calculus`], domain-safe,
    /// operands among the 3 newest nodes with probability `recent`, 15% of
    /// binary operations on a repeated operand, the point in `[-1.5, 1.5)`.
    pub fn calculus(inputs: usize, outputs: usize, ops: usize, recent: f64) -> Shape {
        Shape {
            inputs,
            outputs,
            ops,
            recent,
            window: 3,
            repeat: 0.15,
            mix: Mix::Calculus,
            domain: Domain::Safe,
            range: (-1.5, 1.5),
        }
    }

    /// A random [`Shape::calculus`]: mostly small programs (2 to 15
    /// operations), some mid-sized, some deep chains (80 to 200 operations
    /// on the newest nodes) and wide fans (40 to 80 on any node); 1 to 4
    /// inputs and 1 to 6 outputs.
    pub fn random(rng: &mut Rng) -> Shape {
        let inputs = 1 + rng.below(4);
        let outputs = 1 + rng.below(6);
        let (ops, recent) = match rng.below(20) {
            0 => (80 + rng.below(120), 0.9),
            1 => (40 + rng.below(40), 0.05),
            2..=7 => (15 + rng.below(30), 0.5),
            _ => (2 + rng.below(14), 0.4),
        };
        Shape::calculus(inputs, outputs, ops, recent)
    }

    /// Linearized graphs for the eliminations: [`Mix::Elimination`],
    /// operands among the 5 newest nodes two times in three, the point in
    /// `[-1, 1)`.
    pub fn elimination(inputs: usize, outputs: usize, ops: usize) -> Shape {
        Shape {
            inputs,
            outputs,
            ops,
            recent: 2.0 / 3.0,
            window: 5,
            repeat: 0.0,
            mix: Mix::Elimination,
            domain: Domain::Safe,
            range: (-1.0, 1.0),
        }
    }

    /// Kernels for the simplifier: [`Mix::Algebra`], every operand among
    /// the 12 newest nodes (so intermediates are shared), domain-safe, the
    /// point in `[0.3, 1.3)`.
    pub fn algebra(inputs: usize, outputs: usize, ops: usize) -> Shape {
        Shape {
            inputs,
            outputs,
            ops,
            recent: 1.0,
            window: 12,
            repeat: 0.0,
            mix: Mix::Algebra,
            domain: Domain::Safe,
            range: (0.3, 1.3),
        }
    }

    /// Programs for the back ends: [`Mix::Every`] on raw operands (NaN and
    /// infinities away from the point), half the operands among the 12
    /// newest nodes, 8 outputs, the point in `[-2, 2)`.
    pub fn every(inputs: usize, ops: usize) -> Shape {
        Shape {
            inputs,
            outputs: 8,
            ops,
            recent: 0.5,
            window: 12,
            repeat: 0.0,
            mix: Mix::Every,
            domain: Domain::Raw,
            range: (-2.0, 2.0),
        }
    }
}

/// A generated function and a point of its box.
#[derive(Clone, Debug)]
pub struct Case {
    /// The DAG.
    pub dag: ExprDag,
    /// Its outputs.
    pub outputs: Vec<NodeId>,
    /// Number of inputs.
    pub num_inputs: usize,
    /// A point drawn from the shape's range (under [`Domain::Raw`], where
    /// every node was kept finite when a few draws allowed).
    pub point: Vec<f64>,
}

impl Case {
    /// The function as a kernel (cloning the DAG).
    pub fn kernel(&self) -> Kernel {
        Kernel::new(self.dag.clone(), self.outputs.clone(), self.num_inputs)
            .expect("generated outputs are nodes over the generated inputs")
    }

    /// The outputs as expressions in `x0, x1, ...`, for failure messages.
    pub fn describe(&self) -> Vec<String> {
        let names: Vec<String> = (0..self.num_inputs).map(|k| format!("x{k}")).collect();
        self.outputs.iter().map(|&o| frontend::print_expr(&self.dag, o, &names)).collect()
    }

    /// Points that exercise special values: the case's point, the point with
    /// one coordinate replaced by each of `0, -0, ±inf, NaN, 1e300, -1e-300,
    /// ±1, 0.5`, and 10 random points of `[-4, 4)`.
    pub fn probe_points(&self, rng: &mut Rng) -> Vec<Vec<f64>> {
        let specials =
            [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300, -1e-300, 1.0, -1.0, 0.5];
        let mut points = vec![self.point.clone()];
        for &s in &specials {
            let mut p = self.point.clone();
            let k = rng.below(self.num_inputs.max(1));
            if let Some(v) = p.get_mut(k) {
                *v = s;
            }
            points.push(p);
        }
        for _ in 0..10 {
            points.push(rng.point(self.num_inputs, -4.0, 4.0));
        }
        points
    }
}

/// A random program of the given shape.
pub fn generate(rng: &mut Rng, shape: &Shape) -> Case {
    let mut fork = rng.fork();
    let point = fork.point(shape.inputs, shape.range.0, shape.range.1);
    let mut builder = Builder::new(shape, &point);
    for step in 0..shape.ops {
        // A node folded to a constant is no operand: constants would take
        // over the newest nodes, and everything after would fold too.
        if let Some(node) = builder.node(rng, step).filter(|&n| builder.dag.as_const(n).is_none()) {
            builder.pool.push(node);
        }
    }
    let pool = &builder.pool;
    let outputs = (0..shape.outputs)
        .map(|_| {
            if rng.chance(0.7) {
                pool[pool.len() - 1 - rng.below(pool.len().min(6))]
            } else {
                pool[rng.below(pool.len())]
            }
        })
        .collect();
    Case { dag: builder.dag, outputs, num_inputs: shape.inputs, point }
}

/// A program of the simplifier's tests: [`Shape::algebra`] with `ops`
/// operations over 1 to `max_inputs` inputs and 1 to 4 outputs.
pub fn random_algebra(rng: &mut Rng, max_inputs: usize, ops: usize) -> Case {
    let inputs = 1 + rng.below(max_inputs);
    let shape = Shape::algebra(inputs, 1 + rng.below(4), ops);
    generate(rng, &shape)
}

/// A program of the eliminations' tests: [`Shape::elimination`] with `ops`
/// operations over 1 to 4 inputs, mixing unit and nonunit edges, and 1 to 3
/// outputs that may be inputs, repeated, or used by other nodes.
pub fn random_elimination(rng: &mut Rng, ops: usize) -> Case {
    let inputs = 1 + rng.below(4);
    let shape = Shape::elimination(inputs, 1 + rng.below(3), ops);
    generate(rng, &shape)
}

/// The program of `shape` from a fresh generator seeded with `seed`.
pub fn with_seed(seed: u64, shape: &Shape) -> Case {
    generate(&mut Rng::new(seed), shape)
}

/// A random single-expression-use forest: `outputs` trees of about `size`
/// operations in all, over `inputs` inputs (reused freely), every operation
/// used exactly once. Only nonunit operations (`*`, `sin`, `cos`, `atan`,
/// `tanh`), so that Markowitz counts are the literature's. `None` when
/// every attempt at some tree repeated an earlier subtree (hash-consing
/// would give it a second use). The point is in `[-1, 1)`.
pub fn seu_forest(rng: &mut Rng, inputs: usize, size: usize, outputs: usize) -> Option<Case> {
    let point = rng.fork().point(inputs, -1.0, 1.0);
    let mut dag = ExprDag::new();
    let leaves: Vec<NodeId> = (0..inputs).map(|k| dag.input(k)).collect();
    let mut roots = Vec::new();
    for t in 0..outputs {
        let ops = size / outputs + usize::from(t < size % outputs);
        // Open subtrees: each is used by exactly one later operation.
        let mut open: Vec<NodeId> = Vec::new();
        let mut made = 0;
        let mut attempts = 0;
        while made < ops.max(1) && attempts < 20 * ops.max(1) {
            attempts += 1;
            // Each operand is an open subtree (used here, once) or an input.
            let take = |rng: &mut Rng, open: &mut Vec<NodeId>, taken: &mut Vec<NodeId>| {
                if !open.is_empty() && rng.below(3) != 0 {
                    let node = open.swap_remove(rng.below(open.len()));
                    taken.push(node);
                    node
                } else {
                    leaves[rng.below(leaves.len())]
                }
            };
            let mut taken = Vec::new();
            let before = dag.len();
            let node = if rng.below(2) == 0 {
                let a = take(rng, &mut open, &mut taken);
                let b = take(rng, &mut open, &mut taken);
                dag.mul(a, b)
            } else {
                let a = take(rng, &mut open, &mut taken);
                let op = [Op::Sin, Op::Cos, Op::Atan, Op::Tanh][rng.below(4)];
                dag.apply(op, &[a])
            };
            if dag.len() == before {
                // Hash-consing found this subexpression already: a second use. Undo.
                open.extend(taken);
                continue;
            }
            open.push(node);
            made += 1;
        }
        while open.len() > 1 {
            let a = open.swap_remove(rng.below(open.len()));
            let b = open.swap_remove(rng.below(open.len()));
            open.push(dag.mul(a, b));
        }
        roots.push(*open.first()?);
    }
    Some(Case { dag, outputs: roots, num_inputs: inputs, point })
}

/// Constants the [`Mix::Calculus`] recipes scale and shift by.
const CALCULUS_CONSTANTS: [f64; 7] = [0.5, 1.5, -2.0, 3.0, 0.25, -0.75, 2.0];

/// Constants [`Mix::Algebra`] takes as operands and divisors.
const ALGEBRA_CONSTANTS: [f64; 8] = [2.0, 3.0, 0.5, -1.0, 1.0, -2.5, 0.25, 1.5];

/// Constants in the pool of [`Mix::Every`] from the start.
const EVERY_CONSTANTS: [f64; 6] = [0.5, 2.0, -1.5, 3.0, 0.1, -7.0];

/// The smooth functions [`Mix::Algebra`] applies now and then.
const ALGEBRA_FUNCTIONS: [Op; 18] = [
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

/// The program under construction: the DAG, the pool operands are drawn
/// from, and every node's value at the point evaluated so far (under
/// [`Domain::Raw`], and for [`crate::guards`]).
pub(crate) struct Builder<'a> {
    shape: &'a Shape,
    pub(crate) point: &'a [f64],
    pub(crate) dag: ExprDag,
    pub(crate) pool: Vec<NodeId>,
    values: Vec<f64>,
    ops: Vec<Op>,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(shape: &'a Shape, point: &'a [f64]) -> Builder<'a> {
        let mut dag = ExprDag::new();
        let mut pool: Vec<NodeId> = (0..shape.inputs).map(|k| dag.input(k)).collect();
        if shape.mix == Mix::Every {
            pool.extend(EVERY_CONSTANTS.map(|c| dag.constant(c)));
        }
        Builder { shape, point, dag, pool, values: Vec::new(), ops: Op::ALL.to_vec() }
    }

    fn is_safe(&self) -> bool {
        self.shape.domain == Domain::Safe
    }

    /// The next node, or `None` when no draw gave an acceptable one.
    fn node(&mut self, rng: &mut Rng, step: usize) -> Option<NodeId> {
        if self.shape.domain != Domain::Raw {
            return Some(self.draw(rng, step));
        }
        for attempt in 0..8 {
            let node = self.draw(rng, step);
            let value = self.value(node);
            if (value.is_finite() && value.abs() < 1e6) || attempt == 7 {
                return Some(node);
            }
        }
        None
    }

    fn draw(&mut self, rng: &mut Rng, step: usize) -> NodeId {
        if self.shape.mix == Mix::Every {
            return self.every(rng, step);
        }
        let a = self.operand(rng);
        let b = if rng.chance(self.shape.repeat) { a } else { self.operand(rng) };
        match self.shape.mix {
            Mix::Calculus => self.calculus(rng, a, b),
            Mix::Elimination => self.elimination(rng, a, b),
            Mix::Algebra => self.algebra(rng, a, b),
            Mix::Every => unreachable!("handled above"),
        }
    }

    /// A node of the pool, recent with probability `recent`.
    pub(crate) fn pick(&self, rng: &mut Rng, recent: f64) -> NodeId {
        let pool = &self.pool;
        if rng.chance(recent) {
            pool[pool.len() - 1 - rng.below(pool.len().min(self.shape.window))]
        } else {
            pool[rng.below(pool.len())]
        }
    }

    fn operand(&mut self, rng: &mut Rng) -> NodeId {
        if self.shape.mix == Mix::Algebra && rng.below(8) == 0 {
            let c = *rng.pick(&ALGEBRA_CONSTANTS);
            return self.dag.constant(c);
        }
        self.pick(rng, self.shape.recent)
    }

    /// The value of `node` at the point, evaluating the nodes added since
    /// the last call.
    pub(crate) fn value(&mut self, node: NodeId) -> f64 {
        // Not `ids().skip(..)`: skipping a mapped range steps through it,
        // which made generating a program quadratic in its size.
        for id in (self.values.len()..self.dag.len()).map(NodeId::from_index) {
            let value = match self.dag.op(id) {
                Op::Input(k) => self.point[k as usize],
                op => {
                    let args: Vec<f64> = self.dag.args(id).iter().map(|a| self.values[a.index()]).collect();
                    op.eval(&args)
                }
            };
            self.values.push(value);
        }
        self.values[node.index()]
    }

    fn unary(&mut self, op: Op, t: NodeId) -> NodeId {
        self.dag.apply(op, &[t])
    }

    fn constant(&mut self, rng: &mut Rng) -> NodeId {
        let c = *rng.pick(&CALCULUS_CONSTANTS);
        self.dag.constant(c)
    }

    /// `tanh(t) * s`: within `±s`, so domain-restricted functions stay
    /// inside (`t` itself under [`Domain::Raw`]).
    fn squash(&mut self, t: NodeId, s: f64) -> NodeId {
        if !self.is_safe() {
            return t;
        }
        let th = self.dag.apply(Op::Tanh, &[t]);
        let scale = self.dag.constant(s);
        self.dag.mul(th, scale)
    }

    /// `t*t + c`, at least `c`.
    fn lift(&mut self, t: NodeId, c: f64) -> NodeId {
        if !self.is_safe() {
            return t;
        }
        let sq = self.dag.mul(t, t);
        let c = self.dag.constant(c);
        self.dag.add(sq, c)
    }

    /// `|t| + c`, at least `c`.
    fn positive(&mut self, t: NodeId, c: f64) -> NodeId {
        if !self.is_safe() {
            return t;
        }
        let abs = self.dag.apply(Op::Abs, &[t]);
        let c = self.dag.constant(c);
        self.dag.add(abs, c)
    }

    /// `op(t)`, `t` wrapped to stay in `op`'s domain.
    fn guarded(&mut self, op: Op, t: NodeId) -> NodeId {
        let t = match op {
            Op::Tan => self.squash(t, 1.2),
            Op::Asin | Op::Acos | Op::Atanh => self.squash(t, 0.9),
            Op::Sinh | Op::Cosh | Op::Exp | Op::Expm1 | Op::Exp2 => self.squash(t, 2.0),
            Op::Erf => self.squash(t, 3.0),
            Op::Acosh => self.lift(t, 1.5),
            Op::Sqrt => self.lift(t, 0.1),
            Op::Cbrt => self.lift(t, 0.2),
            Op::Log | Op::Log1p | Op::Log2 | Op::Log10 => self.positive(t, 0.5),
            _ => t,
        };
        self.unary(op, t)
    }

    /// `op(args)`, each argument wrapped as its slot needs.
    fn guarded_apply(&mut self, op: Op, args: &[NodeId]) -> NodeId {
        match op {
            Op::Div => {
                let d = self.lift(args[1], 0.5);
                self.dag.div(args[0], d)
            }
            Op::Pow => {
                let base = self.positive(args[0], 0.5);
                self.dag.apply(Op::Pow, &[base, args[1]])
            }
            op if op.arity() == 1 => self.guarded(op, args[0]),
            op => self.dag.apply(op, args),
        }
    }

    /// One operation of [`Mix::Calculus`] on `a` and `b` (and other nodes of
    /// the pool).
    pub(crate) fn calculus(&mut self, rng: &mut Rng, a: NodeId, b: NodeId) -> NodeId {
        match rng.below(44) {
            0..=3 => self.dag.add(a, b),
            4..=6 => self.dag.sub(a, b),
            7..=10 => self.dag.mul(a, b),
            11 => {
                let d = self.lift(b, 0.5);
                self.dag.div(a, d)
            }
            12 => self.unary(Op::Neg, a),
            13 => self.unary(Op::Sin, a),
            14 => self.unary(Op::Cos, a),
            15 => self.guarded(Op::Tan, a),
            16 => self.guarded(Op::Asin, a),
            17 => self.guarded(Op::Acos, a),
            18 => self.unary(Op::Atan, a),
            19 => self.guarded(Op::Sinh, a),
            20 => self.guarded(Op::Cosh, a),
            21 => self.unary(Op::Tanh, a),
            22 => self.unary(Op::Asinh, a),
            23 => self.guarded(Op::Acosh, a),
            24 => self.guarded(Op::Atanh, a),
            25 => {
                let op = [Op::Exp, Op::Expm1, Op::Exp2][rng.below(3)];
                self.guarded(op, a)
            }
            26 => {
                let op = [Op::Log, Op::Log1p, Op::Log2, Op::Log10][rng.below(4)];
                self.guarded(op, a)
            }
            27 => self.guarded(Op::Sqrt, a),
            28 => self.guarded(Op::Cbrt, a),
            29 => self.unary(Op::Abs, a),
            30 => {
                // sign and floor/ceil have zero derivative: mix them into a product.
                let op = [Op::Sign, Op::Floor, Op::Ceil][rng.below(3)];
                let s = self.unary(op, a);
                self.dag.mul(s, b)
            }
            31 => self.guarded(Op::Erf, a),
            32 => self.dag.apply(Op::Atan2, &[a, b]),
            33 => {
                let c = self.constant(rng);
                let shifted = self.dag.add(b, c);
                self.dag.apply(Op::Hypot, &[a, shifted])
            }
            34 => self.dag.apply(Op::Min, &[a, b]),
            35 => self.dag.apply(Op::Max, &[a, b]),
            36 => {
                let cmp = Cmp::ALL[rng.below(6)];
                let x = self.pick(rng, self.shape.recent);
                let y = self.pick(rng, self.shape.recent);
                self.dag.apply(Op::Select(cmp), &[a, b, x, y])
            }
            37 => {
                // pow with a variable exponent, often the base itself: pow(t, t).
                let base = self.positive(a, 0.5);
                let exponent = if rng.chance(0.5) { base } else { self.squash(b, 2.0) };
                self.dag.apply(Op::Pow, &[base, exponent])
            }
            38 => {
                // pow with a constant exponent: negative bases allowed for integers.
                let (base, exponent) = match rng.below(4) {
                    0 => (a, 2.0),
                    1 => (a, 3.0),
                    2 => (self.lift(a, 0.5), -1.5),
                    _ => (self.positive(a, 0.3), 0.5),
                };
                let e = self.dag.constant(exponent);
                self.dag.apply(Op::Pow, &[base, e])
            }
            39 => {
                // sin(t) * sin(t): two edges between the same two nodes.
                let s = self.unary(Op::Sin, a);
                self.dag.mul(s, s)
            }
            40 => {
                let c = self.constant(rng);
                self.dag.mul(c, a)
            }
            41 => {
                let c = self.constant(rng);
                self.dag.add(a, c)
            }
            42 => {
                // A wide fan: one node summed with many functions of itself.
                let mut acc = a;
                for _ in 0..3 + rng.below(6) {
                    let other = self.pick(rng, 0.0);
                    let t = self.dag.mul(a, other);
                    acc = self.dag.add(acc, t);
                }
                acc
            }
            _ => {
                let t = self.squash(a, 1.0);
                self.dag.mul(t, b)
            }
        }
    }

    fn elimination(&mut self, rng: &mut Rng, a: NodeId, b: NodeId) -> NodeId {
        match rng.below(9) {
            0 => self.dag.add(a, b),
            1 => self.dag.sub(a, b),
            2 | 3 => self.dag.mul(a, b),
            4 => self.unary(Op::Sin, a),
            5 => self.unary(Op::Cos, a),
            6 => self.dag.neg(a),
            7 => self.unary(Op::Tanh, a),
            _ => {
                let c = self.dag.constant(2.5);
                self.dag.mul(c, a)
            }
        }
    }

    fn algebra(&mut self, rng: &mut Rng, a: NodeId, b: NodeId) -> NodeId {
        match rng.below(20) {
            0..=4 => self.dag.add(a, b),
            5..=7 => self.dag.sub(a, b),
            8..=12 => self.dag.mul(a, b),
            13 => self.dag.neg(a),
            14 => {
                // a / (b² + 1): never divides by zero.
                let d = self.lift(b, 1.0);
                self.dag.div(a, d)
            }
            15 => {
                let c = *rng.pick(&ALGEBRA_CONSTANTS);
                let c = self.dag.constant(c);
                self.dag.div(a, c)
            }
            // Gentler guards than the calculus mix's, keeping magnitudes
            // near 1: cancellations stay within the simplifier tests' 1e-12.
            _ => match *rng.pick(&ALGEBRA_FUNCTIONS) {
                op @ (Op::Exp | Op::Sinh | Op::Asin | Op::Acos | Op::Atanh) => {
                    let t = self.squash(a, 0.9);
                    self.unary(op, t)
                }
                op @ (Op::Log | Op::Sqrt) => {
                    let t = self.lift(a, 1.0);
                    self.unary(op, t)
                }
                Op::Acosh => {
                    let t = self.lift(a, 1.0);
                    let one = self.dag.constant(1.0);
                    let t = if self.is_safe() { self.dag.add(t, one) } else { t };
                    self.unary(Op::Acosh, t)
                }
                Op::Pow => {
                    let base = self.lift(a, 1.0);
                    let e = self.dag.constant(1.5);
                    self.dag.apply(Op::Pow, &[base, e])
                }
                op @ (Op::Hypot | Op::Atan2) => {
                    let one = self.dag.constant(1.0);
                    self.dag.apply(op, &[a, one])
                }
                op => self.unary(op, a),
            },
        }
    }

    fn every(&mut self, rng: &mut Rng, step: usize) -> NodeId {
        let op = if step < self.ops.len() { self.ops[step] } else { *rng.pick(&self.ops) };
        let mut args: Vec<NodeId> = (0..op.arity()).map(|_| self.pick(rng, self.shape.recent)).collect();
        if op == Op::Pow && rng.below(3) == 0 {
            args[1] = self.dag.constant(rng.below(33) as f64 - 16.0);
        }
        self.guarded_apply(op, &args)
    }
}

/// Issue 14's dense shape as problem-format text: `n` inputs and `n`
/// outputs, each `s + c_1*x_p1 + ... + c_n*x_pn` summed left to right over
/// its own random order of the inputs (random coefficients 1..=1000), with
/// `s` the sum of their sines. The Jacobian is dense; D* that factors along
/// the chains does work growing as `n^3`.
pub fn chain_sums(n: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let sines: Vec<String> = xs.iter().map(|x| format!("sin({x})")).collect();
    let mut text = format!("in {}\ns = {}\n", xs.join(", "), sines.join(" + "));
    for i in 0..n {
        let mut order: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            order.swap(k, rng.below(k + 1));
        }
        let terms: Vec<String> = order.iter().map(|&j| format!("{}*x{j}", 1 + rng.below(1000))).collect();
        text += &format!("out y{i} = s + {}\n", terms.join(" + "));
    }
    text
}

/// A program of exactly `num_ops` reachable operations for timing the
/// compiler: mostly arithmetic (as Jacobians are), one in eight an
/// elementary function, operands mostly among the last 64 nodes, every node
/// without a user an output.
pub fn scaling_program(num_ops: usize, seed: u64) -> (ExprDag, Vec<NodeId>, usize) {
    let num_inputs = 16;
    let mut rng = Rng::new(seed);
    let mut dag = ExprDag::new();
    let mut nodes: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    let arithmetic = [Op::Add, Op::Sub, Op::Mul, Op::Div];
    let others = [Op::Sin, Op::Exp, Op::Sqrt, Op::Abs, Op::Max, Op::Hypot, Op::Tanh, Op::Log];
    let mut used = vec![false; num_inputs];
    while nodes.len() < num_inputs + num_ops {
        let op = if rng.below(8) == 0 { others[rng.below(others.len())] } else { arithmetic[rng.below(4)] };
        let args: Vec<NodeId> = (0..op.arity())
            .map(|_| {
                let n = nodes.len();
                if rng.below(16) == 0 {
                    nodes[rng.below(n)]
                } else {
                    nodes[n - 1 - rng.below(n.min(64))]
                }
            })
            .collect();
        let before = dag.len();
        let id = dag.intern(frontend::Node::new(op, &args));
        if dag.len() > before {
            for a in &args {
                used[a.index()] = true;
            }
            used.push(false);
            nodes.push(id);
        }
    }
    let outputs = nodes.iter().copied().filter(|id| !used[id.index()]).collect();
    (dag, outputs, num_inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reached_ops(case: &Case) -> Vec<Op> {
        let reach = case.dag.reachable(&case.outputs);
        case.dag.ids().filter(|id| reach[id.index()]).map(|id| case.dag.op(id)).collect()
    }

    #[test]
    fn generation_is_reproducible() {
        for shape in [
            Shape::calculus(3, 4, 40, 0.5),
            Shape::elimination(2, 2, 30),
            Shape::algebra(3, 3, 40),
            Shape::every(3, 60),
        ] {
            let a = generate(&mut Rng::new(5), &shape);
            let b = generate(&mut Rng::new(5), &shape);
            assert_eq!(a.describe(), b.describe());
            assert_eq!(a.point, b.point);
        }
    }

    #[test]
    fn safe_programs_are_finite_over_their_box() {
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let shape = Shape::random(&mut rng);
            let case = generate(&mut rng, &shape);
            let kernel = case.kernel();
            for _ in 0..5 {
                let x = rng.point(case.num_inputs, -1.5, 1.5);
                // Safe means in domain, not bounded: a long product may still overflow.
                assert!(kernel.eval(&x).iter().all(|v| !v.is_nan()), "seed {seed}: {:?}", case.describe());
            }
        }
    }

    #[test]
    fn large_programs_do_not_fold_away() {
        for shape in [Shape::algebra(2, 3, 5_000), Shape::elimination(2, 3, 5_000), Shape::every(2, 5_000)] {
            let case = generate(&mut Rng::new(1), &shape);
            assert!(case.dag.count_ops(&case.outputs) > 100, "{shape:?}");
        }
    }

    #[test]
    fn every_mix_reaches_every_operation() {
        let mut seen = std::collections::HashSet::new();
        for seed in 0..20 {
            let case = generate(&mut Rng::new(seed), &Shape::every(3, 80));
            seen.extend(reached_ops(&case));
        }
        for op in Op::ALL {
            assert!(seen.contains(&op), "{op:?} never reached");
        }
    }

    #[test]
    fn elimination_programs_use_only_their_operations() {
        let allowed = [Op::Add, Op::Sub, Op::Mul, Op::Neg, Op::Sin, Op::Cos, Op::Tanh];
        for seed in 0..20 {
            let case = generate(&mut Rng::new(seed), &Shape::elimination(3, 2, 25));
            assert!(reached_ops(&case).iter().all(|op| op.is_leaf() || allowed.contains(op)));
        }
    }

    #[test]
    fn seu_forests_use_each_intermediate_once() {
        let mut rng = Rng::new(3);
        let mut built = 0;
        for round in 0..50 {
            let Some(case) = seu_forest(&mut rng, 1 + round % 4, 2 + round % 9, 1 + round % 2) else {
                continue;
            };
            built += 1;
            let uses = case.dag.use_counts(&case.outputs);
            let reach = case.dag.reachable(&case.outputs);
            let intermediate =
                |id: &NodeId| reach[id.index()] && !case.dag.op(*id).is_leaf() && !case.outputs.contains(id);
            for id in case.dag.ids().filter(intermediate) {
                assert_eq!(uses[id.index()], 1, "{:?}", case.describe());
            }
        }
        assert!(built > 25, "{built}");
    }
}
