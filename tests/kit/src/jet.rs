//! Nested dual numbers, the test-only oracle for higher derivatives: a
//! number of depth `d` is `a + b·ε` with `a` and `b` of depth `d - 1` and
//! `ε² = 0`, so seeding `x + v(ε₁ + ... + ε_d)` and reading the coefficient
//! of `ε₁⋯ε_k` gives the `k`-th derivative along `v`.
//!
//! Each operation knows only its first derivative (`sin' = cos`), applied
//! at every depth by recursion: nothing here shares code or recurrences
//! with `derivative::taylor`, which it checks.

use frontend::{ExprDag, NodeId, Op};
use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2};

/// A nested dual number.
#[derive(Clone, Debug)]
pub enum Jet {
    /// A plain number (a constant at any depth).
    Real(f64),
    /// `value + slope·ε`.
    Dual(Box<Jet>, Box<Jet>),
}

use Jet::{Dual, Real};

fn dual(a: Jet, b: Jet) -> Jet {
    Dual(Box::new(a), Box::new(b))
}

impl Jet {
    /// `x + v(ε₁ + ... + ε_depth)`.
    pub fn seed(x: f64, v: f64, depth: usize) -> Jet {
        if depth == 0 {
            Real(x)
        } else {
            dual(Jet::seed(x, v, depth - 1), Real(v))
        }
    }

    /// The real part.
    pub fn value(&self) -> f64 {
        match self {
            Real(v) => *v,
            Dual(a, _) => a.value(),
        }
    }

    /// The coefficient of `ε₁⋯ε_k` in a number of depth `depth`: the
    /// `k`-th derivative.
    pub fn derivative(&self, k: usize, depth: usize) -> f64 {
        match self {
            Real(v) => {
                if k == 0 {
                    *v
                } else {
                    0.0
                }
            }
            // Level `depth` carries ε_depth: part of ε₁⋯ε_k iff depth <= k,
            // and then depth == k, as the levels above k were passed by.
            Dual(a, b) => {
                if depth <= k {
                    b.derivative(k - 1, depth - 1)
                } else {
                    a.derivative(k, depth - 1)
                }
            }
        }
    }

    fn parts(&self) -> (Jet, Jet) {
        match self {
            Real(v) => (Real(*v), Real(0.0)),
            Dual(a, b) => ((**a).clone(), (**b).clone()),
        }
    }

    fn is_real(&self) -> bool {
        matches!(self, Real(_))
    }

    /// Applies `f` with derivative `df` (both over jets one level down).
    fn chain(&self, f: &dyn Fn(&Jet) -> Jet, df: &dyn Fn(&Jet) -> Jet) -> Jet {
        match self {
            Real(v) => f(&Real(*v)),
            Dual(a, b) => dual(f(a), df(a).mul(b)),
        }
    }

    /// `self + o`.
    pub fn add(&self, o: &Jet) -> Jet {
        match (self, o) {
            (Real(a), Real(b)) => Real(a + b),
            _ => {
                let ((a, b), (c, d)) = (self.parts(), o.parts());
                dual(a.add(&c), b.add(&d))
            }
        }
    }

    /// `-self`.
    pub fn neg(&self) -> Jet {
        match self {
            Real(a) => Real(-a),
            Dual(a, b) => dual(a.neg(), b.neg()),
        }
    }

    /// `self - o`.
    pub fn sub(&self, o: &Jet) -> Jet {
        self.add(&o.neg())
    }

    /// `self · o`, by the product rule at every depth.
    pub fn mul(&self, o: &Jet) -> Jet {
        match (self, o) {
            (Real(a), Real(b)) => Real(a * b),
            _ => {
                let ((a, b), (c, d)) = (self.parts(), o.parts());
                dual(a.mul(&c), a.mul(&d).add(&b.mul(&c)))
            }
        }
    }

    /// `1 / self`, whose derivative is `-1/self²`.
    pub fn recip(&self) -> Jet {
        self.chain(&|a| Real(1.0).div_real(a), &|a| {
            let r = a.recip();
            r.mul(&r).neg()
        })
    }

    fn div_real(&self, a: &Jet) -> Jet {
        match (self, a) {
            (Real(x), Real(y)) => Real(x / y),
            _ => self.mul(&a.recip()),
        }
    }

    /// `self / o`.
    pub fn div(&self, o: &Jet) -> Jet {
        if let (Real(a), Real(b)) = (self, o) {
            return Real(a / b);
        }
        self.mul(&o.recip())
    }

    /// `c · self` for a constant `c`.
    pub fn scale(&self, c: f64) -> Jet {
        self.mul(&Real(c))
    }

    /// A function of the table by its first derivative.
    pub fn unary(&self, op: Op) -> Jet {
        if let Real(v) = self {
            return Real(op.eval(&[*v]));
        }
        let f = |a: &Jet| a.unary(op);
        let one = Real(1.0);
        let df: Box<dyn Fn(&Jet) -> Jet> = match op {
            Op::Neg => Box::new(|_| Real(-1.0)),
            Op::Sin => Box::new(|a| a.unary(Op::Cos)),
            Op::Cos => Box::new(|a| a.unary(Op::Sin).neg()),
            Op::Tan => Box::new(move |a| {
                let t = a.unary(Op::Tan);
                one.add(&t.mul(&t))
            }),
            Op::Asin => Box::new(move |a| one.sub(&a.mul(a)).unary(Op::Sqrt).recip()),
            Op::Acos => Box::new(move |a| one.sub(&a.mul(a)).unary(Op::Sqrt).recip().neg()),
            Op::Atan => Box::new(move |a| one.add(&a.mul(a)).recip()),
            Op::Sinh => Box::new(|a| a.unary(Op::Cosh)),
            Op::Cosh => Box::new(|a| a.unary(Op::Sinh)),
            Op::Tanh => Box::new(move |a| {
                let t = a.unary(Op::Tanh);
                one.sub(&t.mul(&t))
            }),
            Op::Asinh => Box::new(move |a| a.mul(a).add(&one).unary(Op::Sqrt).recip()),
            Op::Acosh => Box::new(move |a| a.mul(a).sub(&one).unary(Op::Sqrt).recip()),
            Op::Atanh => Box::new(move |a| one.sub(&a.mul(a)).recip()),
            Op::Exp | Op::Expm1 => Box::new(|a| a.unary(Op::Exp)),
            Op::Exp2 => Box::new(|a| a.unary(Op::Exp2).scale(LN_2)),
            Op::Log => Box::new(|a| a.recip()),
            Op::Log1p => Box::new(move |a| one.add(a).recip()),
            Op::Log2 => Box::new(|a| a.scale(LN_2).recip()),
            Op::Log10 => Box::new(|a| a.scale(LN_10).recip()),
            Op::Sqrt => Box::new(|a| a.unary(Op::Sqrt).scale(2.0).recip()),
            Op::Cbrt => Box::new(|a| {
                let c = a.unary(Op::Cbrt);
                c.mul(&c).scale(3.0).recip()
            }),
            Op::Abs => Box::new(|a| Real(a.value().signum())),
            Op::Sign | Op::Floor | Op::Ceil => Box::new(|_| Real(0.0)),
            Op::Erf => Box::new(|a| a.mul(a).neg().unary(Op::Exp).scale(FRAC_2_SQRT_PI)),
            other => panic!("{other:?} is not unary"),
        };
        self.chain(&f, &*df)
    }

    /// `self^e` for a constant exponent.
    pub fn powf(&self, e: f64) -> Jet {
        if let Real(v) = self {
            return Real(v.powf(e));
        }
        self.chain(&|a| a.powf(e), &|a| a.powf(e - 1.0).scale(e))
    }

    /// A binary function of the table.
    pub fn binary(&self, op: Op, o: &Jet) -> Jet {
        if let (Real(a), Real(b)) = (self, o) {
            return Real(op.eval(&[*a, *b]));
        }
        match op {
            Op::Add => self.add(o),
            Op::Sub => self.sub(o),
            Op::Mul => self.mul(o),
            Op::Div => self.div(o),
            Op::Pow if o.is_real() => self.powf(o.value()),
            Op::Pow if self.is_real() => o.scale(self.value().ln()).unary(Op::Exp),
            Op::Pow => self.unary(Op::Log).mul(o).unary(Op::Exp),
            Op::Atan2 => {
                // atan2(a, b) moves as atan(a/b) does (the branch is fixed).
                let ((a, da), (b, db)) = (self.parts(), o.parts());
                let n = a.mul(&a).add(&b.mul(&b));
                dual(a.binary(Op::Atan2, &b), b.mul(&da).sub(&a.mul(&db)).div(&n))
            }
            Op::Hypot => self.mul(self).add(&o.mul(o)).unary(Op::Sqrt),
            // At a tie each argument gets half (the language's rule).
            Op::Min | Op::Max if self.value() == o.value() => self.add(o).scale(0.5),
            Op::Min => {
                if self.value() < o.value() {
                    self.clone()
                } else {
                    o.clone()
                }
            }
            Op::Max => {
                if self.value() > o.value() {
                    self.clone()
                } else {
                    o.clone()
                }
            }
            other => panic!("{other:?} is not binary"),
        }
    }
}

/// Evaluates `roots` of `dag` in jets, input `k` taking `inputs[k]`.
pub fn eval_jets(dag: &ExprDag, roots: &[NodeId], inputs: &[Jet]) -> Vec<Jet> {
    let reach = dag.reachable(roots);
    let mut values: Vec<Option<Jet>> = vec![None; dag.len()];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let node = dag.node(id);
        let arg = |i: usize| values[node.args()[i].index()].clone().expect("arguments first");
        let v = match node.op {
            Op::Const(c) => Real(c.get()),
            Op::Input(k) => inputs[k as usize].clone(),
            Op::Select(cmp) => {
                if cmp.holds(arg(0).value(), arg(1).value()) {
                    arg(2)
                } else {
                    arg(3)
                }
            }
            op if op.arity() == 1 => arg(0).unary(op),
            op => arg(0).binary(op, &arg(1)),
        };
        values[id.index()] = Some(v);
    }
    roots.iter().map(|r| values[r.index()].clone().expect("reached")).collect()
}
