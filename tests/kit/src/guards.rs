//! Random programs with guards that hide singular derivatives, each with the
//! point at which it is to be differentiated: `ifelse(cond, risky, safe)`,
//! `min` and `max` whose branch not taken, at that point, has an infinite or
//! undefined derivative (`sqrt(u)` and `cbrt(u)` at `u = 0`, `c/u` at 0,
//! `log(u)` at 0, `log1p(u)` at -1, `asin(u)` at 1 or outside [-1, 1], `acosh`
//! at 1, `atanh` at 1, `u^0.5` at 0, `hypot(u, u)` and `atan2(u, u)` at the
//! origin, some passed through `sin`, `exp`, `expm1`, `exp2`, `tanh`), mixed with
//! the operations of the generator's [`Mix::Calculus`](crate::Mix::Calculus). Guards nest, share their risky
//! branches (so adjoints sum several branches not taken), and test both
//! their own threshold (`ifelse(u > 0, sqrt(u), ..)` at `u = 0`, a kink) and
//! unrelated conditions far from theirs (no kink: central differences apply).

use crate::dual::eval_dual;
use crate::gen::{Builder, Case, Shape};
use crate::rng::Rng;
use frontend::{Cmp, ExprDag, NodeId, Op};

/// A generated program with its point (`case.point`), and how many guards
/// hide a non-finite derivative at it (by the dual numbers of their risky
/// branch).
#[derive(Clone, Debug)]
pub struct GuardCase {
    /// The program and the point at which it is to be differentiated.
    pub case: Case,
    /// Guards whose branch not taken has a non-finite derivative there.
    pub hidden: usize,
}

/// A random guarded program over 1 to 3 inputs.
///
/// ```
/// let guarded = testkit::guards::random_guard_case(&mut testkit::Rng::new(4));
/// let values = guarded.case.kernel().eval(&guarded.case.point);
/// assert!(values.iter().all(|v| v.is_finite()));
/// ```
pub fn random_guard_case(rng: &mut Rng) -> GuardCase {
    let num_inputs = 1 + rng.below(3);
    let specials = [0.0, 1.0, -1.0, 2.0, -0.5];
    let point: Vec<f64> = (0..num_inputs)
        .map(|_| if rng.chance(0.3) { specials[rng.below(specials.len())] } else { rng.uniform(-1.5, 1.5) })
        .collect();
    // The calculus mix's operations, on operands among the 3 newest nodes
    // half the time.
    let shape = Shape::calculus(num_inputs, 1, 0, 0.5);
    let mut guards = Guards { base: Builder::new(&shape, &point), risky: Vec::new(), hidden: 0 };
    let steps = 3 + rng.below(12);
    for _ in 0..steps {
        let node = if rng.chance(0.55) {
            guards.guard(rng)
        } else {
            let a = guards.pick(rng);
            let b = guards.pick(rng);
            guards.base.calculus(rng, a, b)
        };
        if guards.value(node).is_finite() {
            guards.base.pool.push(node);
        }
    }
    let mut outputs = vec![*guards.base.pool.last().expect("inputs at least")];
    for _ in 0..rng.below(3) {
        outputs.push(guards.pick(rng));
    }
    let Guards { base, hidden, .. } = guards;
    GuardCase { case: Case { dag: base.dag, outputs, num_inputs, point }, hidden }
}

/// The generator's builder, with the risky nodes built so far.
struct Guards<'a> {
    base: Builder<'a>,
    /// Risky nodes built so far, with the node whose threshold they sit at.
    risky: Vec<(NodeId, NodeId)>,
    hidden: usize,
}

impl Guards<'_> {
    fn value(&mut self, node: NodeId) -> f64 {
        self.base.value(node)
    }

    fn dag(&mut self) -> &mut ExprDag {
        &mut self.base.dag
    }

    /// A node of the pool: among the 3 newest half the time.
    fn pick(&self, rng: &mut Rng) -> NodeId {
        self.base.pick(rng, 0.5)
    }

    /// A guard around a risky node (new, or one built before).
    fn guard(&mut self, rng: &mut Rng) -> NodeId {
        let (risky, shifted) = if !self.risky.is_empty() && rng.chance(0.35) {
            self.risky[rng.below(self.risky.len())]
        } else {
            let u = self.pick(rng);
            let value = self.value(u);
            let c = self.dag().constant(value);
            // Exactly 0 at the point: u minus its own value there.
            let shifted = self.dag().sub(u, c);
            let risky = self.risky_node(rng, shifted);
            self.risky.push((risky, shifted));
            (risky, shifted)
        };
        let (dag, point) = (&self.base.dag, self.base.point);
        if (0..point.len()).any(|k| !eval_dual(dag, &[risky], point, k).outputs[0].d.is_finite()) {
            self.hidden += 1;
        }
        let r = self.value(risky);
        let safe = if rng.chance(0.3) {
            self.dag().constant([0.0, 1.0, -2.0][rng.below(3)])
        } else {
            self.pick(rng)
        };
        let s = self.value(safe);
        let zero = self.dag().constant(0.0);
        match rng.below(4) {
            // min and max need the risky value on the losing side.
            0 if !r.is_nan() && r != f64::NEG_INFINITY => {
                let safe = self.shifted_below(safe, s, r);
                let args = if rng.chance(0.5) { [risky, safe] } else { [safe, risky] };
                self.dag().apply(Op::Min, &args)
            }
            1 if !r.is_nan() && r != f64::INFINITY => {
                let safe = self.shifted_above(safe, s, r);
                let args = if rng.chance(0.5) { [risky, safe] } else { [safe, risky] };
                self.dag().apply(Op::Max, &args)
            }
            // The guard people write: its own threshold, a kink at the point.
            2 => {
                let (cmp, risky_first) =
                    [(Cmp::Gt, true), (Cmp::Ne, true), (Cmp::Le, false), (Cmp::Eq, false)][rng.below(4)];
                let (x, y) = if risky_first { (risky, safe) } else { (safe, risky) };
                self.dag().apply(Op::Select(cmp), &[shifted, zero, x, y])
            }
            // A condition on other nodes, chosen so that the risky branch is not taken.
            _ => {
                let a = self.pick(rng);
                let b = self.pick(rng);
                let (va, vb) = (self.value(a), self.value(b));
                let risky_first = rng.chance(0.5);
                let choices: Vec<Cmp> =
                    Cmp::ALL.into_iter().filter(|c| c.holds(va, vb) != risky_first).collect();
                let cmp = choices[rng.below(choices.len())];
                let (x, y) = if risky_first { (risky, safe) } else { (safe, risky) };
                self.dag().apply(Op::Select(cmp), &[a, b, x, y])
            }
        }
    }

    /// A node of `shifted` (0 at the point) whose derivative there is
    /// infinite or undefined, sometimes scaled or passed through a smooth op.
    fn risky_node(&mut self, rng: &mut Rng, shifted: NodeId) -> NodeId {
        let one = self.dag().constant(1.0);
        match rng.below(12) {
            0 => self.dag().apply(Op::Sqrt, &[shifted]),
            1 => self.dag().apply(Op::Cbrt, &[shifted]),
            2 => {
                let c = self.dag().constant([1.0, -2.5][rng.below(2)]);
                self.dag().div(c, shifted)
            }
            3 => {
                let numerator = self.pick(rng);
                self.dag().div(numerator, shifted)
            }
            4 => match rng.below(4) {
                // log1p's singularity is at -1.
                3 => {
                    let edge = self.dag().sub(shifted, one);
                    self.dag().apply(Op::Log1p, &[edge])
                }
                k => self.dag().apply([Op::Log, Op::Log2, Op::Log10][k], &[shifted]),
            },
            5 => {
                let edge = self.dag().add(shifted, one);
                self.dag().apply([Op::Asin, Op::Acos, Op::Acosh, Op::Atanh][rng.below(4)], &[edge])
            }
            6 => {
                // Outside the domain: the value is NaN too.
                let two = self.dag().constant(2.0);
                let outside = self.dag().add(shifted, two);
                self.dag().apply([Op::Asin, Op::Acos, Op::Atanh][rng.below(3)], &[outside])
            }
            7 => {
                let half = self.dag().constant(0.5);
                self.dag().apply(Op::Pow, &[shifted, half])
            }
            8 => self.dag().apply([Op::Hypot, Op::Atan2][rng.below(2)], &[shifted, shifted]),
            9 => {
                let root = self.dag().apply(Op::Sqrt, &[shifted]);
                self.dag().apply([Op::Sin, Op::Exp, Op::Expm1, Op::Exp2, Op::Tanh][rng.below(5)], &[root])
            }
            10 => {
                let root = self.dag().apply(Op::Sqrt, &[shifted]);
                let other = self.pick(rng);
                self.dag().mul(root, other)
            }
            _ => {
                let inverse = self.dag().div(one, shifted);
                let log = self.dag().apply(Op::Log, &[shifted]);
                self.dag().add(inverse, log)
            }
        }
    }

    /// `safe` plus a constant that puts its value below `r`.
    fn shifted_below(&mut self, safe: NodeId, s: f64, r: f64) -> NodeId {
        if s < r - 1.0 || r == f64::INFINITY {
            return safe;
        }
        let shift = self.dag().constant((r - s - 1.0).min(-1.0));
        self.dag().add(safe, shift)
    }

    /// `safe` plus a constant that puts its value above `r`.
    fn shifted_above(&mut self, safe: NodeId, s: f64, r: f64) -> NodeId {
        if s > r + 1.0 || r == f64::NEG_INFINITY {
            return safe;
        }
        let shift = self.dag().constant((r - s + 1.0).max(1.0));
        self.dag().add(safe, shift)
    }
}
