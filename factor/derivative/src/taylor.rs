//! Taylor-mode higher derivatives: the truncated series of every node along
//! one direction, `f(x + t·v) = Σ_k f_k t^k`, built as nodes of the
//! function's own [`ExprDag`], one order at a time.
//!
//! Beside [`rules`](crate::rules), this is the only place that knows how an
//! operation differentiates: the `match` in [`Taylor::advance`] has one arm
//! per operation and no `_ =>` arm. Each arm is the standard recurrence of
//! univariate Taylor arithmetic (Griewank and Walther, *Evaluating
//! Derivatives*, ch. 13): coefficient `k` from the coefficients below `k`
//! of the node and its arguments, `O(k)` terms for a nonlinear operation and
//! one for a linear one, so order `K` costs `O(K²)` per node, never the
//! `2^K` of differentiating a derivative again.
//!
//! Three things keep the series small and readable:
//! - **structural zeros**: a coefficient that is exactly zero is `None` and
//!   costs nothing; each node's polynomial degree along the direction is
//!   known before any coefficient is built (an input has degree 1, `x^5` has
//!   5, `sin(x)` none), so coefficients past it are `None`;
//! - **closed forms** for an argument of degree 1 (`x`, `x*y` along `x`):
//!   `d^k/dx^k log(x) = -(k-1)! (-1)^k / x^k` is one term, exact at `0` for
//!   integer powers, and prints as a person writes it;
//! - **hash-consing**: the derivatives of `sin(x)` cycle through the same
//!   four nodes, so a repeated derivative is the same node.
//!
//! Intermediate numbers stay in the range wherever the coefficients are.
//! Along a direction known only at run time (`taylor_series`), a closed
//! form for `q^c` (and the logarithms and `1/q`, whose derivatives are
//! powers) steps from coefficient `k - 1` to `k` by the ratio `q1/q0`
//! (`Step::by_ratio`), where `q1^k · q0^(c-k)` takes two powers that leave
//! the range long before their product does (`1/x` at `x = v = 1e40`). The
//! recurrences that would square their argument divide it first by its
//! size, as the first-order rules use `hypot(a, 1)`: by `max(|a|, 1)` for
//! the `1 + a²` of `atan`, `asinh` and `acosh`, by `hypot(a, b)` for the
//! `a² + b²` of `atan2` and `hypot`; `erf` keeps `a·exp(-a²)` in place of
//! `-a²` (`atan` at `x = v = 1e200`).
//!
//! [`Scale`] chooses between derivatives (`k!·f_k`, whose recurrences carry
//! binomial coefficients, exact integers up to order 56) and normalized
//! coefficients (`f_k`, whose product rule is a plain convolution).

use frontend::{Cmp, ExprDag, NodeId, Op};
use std::f64::consts::{FRAC_2_SQRT_PI, LN_2, LOG10_E, LOG2_E};

/// The coefficients `0..=k` of one node's series; `None` is a structural
/// zero. Coefficient 0 is the node itself.
pub type Series = Vec<Option<NodeId>>;

/// How the coefficients of a series are scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// `k!·f_k`, the `k`-th derivative of `t ↦ f(x + t·v)` at 0: the constants
    /// of the recurrences are binomial coefficients, and a derivative that
    /// repeats an earlier one is the same node.
    Derivatives,
    /// `f_k`, the Taylor coefficients: products are plain convolutions.
    Coefficients,
}

/// The degree of a node that is not a polynomial along the direction.
const INFINITE: u32 = u32::MAX;

/// Why a series could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TaylorError {
    /// A constant of the recurrences (a binomial coefficient or factorial)
    /// at this order is beyond the range of `f64`.
    #[error("order {order} needs constants beyond the range of double precision")]
    ConstantOverflow {
        /// The order.
        order: usize,
    },
}

/// The series of the nodes some roots reach, propagated along a direction
/// one order at a time ([`Taylor::advance`]), so that a caller can stop as
/// soon as it has what it needs (a derivative that is zero or repeats).
///
/// ```
/// use derivative::taylor::{Scale, Taylor};
/// let program = frontend::parse_program("in x\nout log(x) * x")?;
/// let mut dag = frontend::ExprDag::clone(&program.dag);
/// let root = program.outputs[0].node;
/// let one = dag.constant(1.0);
/// let mut taylor = Taylor::new(&dag, &[root], &[Some(one)], Scale::Derivatives);
/// for _ in 0..3 {
///     taylor.advance(&mut dag)?;
/// }
/// // d³/dx³ (x log x) = -1/x²
/// let third = taylor.coefficient(root, 3).expect("not a structural zero");
/// assert_eq!(frontend::eval(&dag, &[third], &[2.0]), vec![-0.25]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Taylor {
    scale: Scale,
    order: usize,
    /// Per DAG node reached, the position of its state; `u32::MAX` for
    /// nodes the roots do not reach.
    slot: Vec<u32>,
    states: Vec<State>,
    /// The states of degree at least 1, in topological order: the only
    /// ones that gain coefficients.
    active: Vec<u32>,
    /// Units of work spent: one per coefficient built plus one per term of
    /// its recurrence.
    work: u64,
    /// Pascal's triangle up to the current order.
    binomials: Binomials,
}

#[derive(Clone, Debug)]
struct State {
    node: NodeId,
    /// The polynomial degree along the direction, or [`INFINITE`].
    degree: u32,
    /// The first-order coefficient of a seeded input.
    seed: Option<NodeId>,
    y: Series,
    /// Auxiliary series of the recurrence (`cos` beside `sin`, `1 + y²`
    /// beside `tan`, ...), by operation.
    aux: Vec<Series>,
    /// The state positions of the arguments.
    args: [u32; 4],
}

impl Taylor {
    /// Prepares the series of the nodes `roots` reach, along the direction
    /// whose first-order coefficient for input `k` is `direction[k]`; inputs
    /// with `None` (or past the end) are held fixed. Nothing is built until
    /// [`Taylor::advance`].
    pub fn new(dag: &ExprDag, roots: &[NodeId], direction: &[Option<NodeId>], scale: Scale) -> Taylor {
        let reach = dag.reachable(roots);
        let mut slot = vec![u32::MAX; dag.len()];
        let mut states = Vec::new();
        let mut active = Vec::new();
        for id in dag.ids().filter(|id| reach[id.index()]) {
            let node = dag.node(id);
            assert!(
                !matches!(node.op, Op::Call(_)),
                "calls are written out before a Taylor series (Kernel::inlined)"
            );
            let mut args = [0u32; 4];
            for (a, &arg) in args.iter_mut().zip(node.args()) {
                *a = slot[arg.index()];
            }
            let seed = match node.op {
                Op::Input(k) => direction.get(k as usize).copied().flatten().filter(|&v| !is_zero(dag, v)),
                _ => None,
            };
            let degrees: Vec<u32> =
                node.args().iter().map(|a| states_degree(&states, slot[a.index()])).collect();
            let degree = if seed.is_some() { 1 } else { degree(dag, node.op, node.args(), &degrees) };
            let index = states.len() as u32;
            slot[id.index()] = index;
            if degree > 0 {
                active.push(index);
            }
            states.push(State { node: id, degree, seed, y: vec![Some(id)], aux: vec![], args });
        }
        Taylor { scale, order: 0, slot, states, active, work: 0, binomials: Binomials::default() }
    }

    /// The highest order built so far.
    pub fn order(&self) -> usize {
        self.order
    }

    /// The scaling of the coefficients.
    pub fn scale(&self) -> Scale {
        self.scale
    }

    /// Units of work spent so far: one per coefficient built and one per
    /// term of the recurrences, about the operations added to the DAG.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The degree of `node` as a polynomial along the direction, `None`
    /// if it is not one (or the roots do not reach it).
    pub fn degree(&self, node: NodeId) -> Option<u32> {
        let state = self.state(node)?;
        (state.degree != INFINITE).then_some(state.degree)
    }

    /// Coefficient `k` of `node`'s series (`None`: a structural zero).
    /// Panics if `k` is past [`Taylor::order`] or the roots do not reach
    /// `node`.
    pub fn coefficient(&self, node: NodeId, k: usize) -> Option<NodeId> {
        assert!(k <= self.order, "order {k} is not built yet (built: {})", self.order);
        let state = self.state(node).expect("a node the roots reach");
        state.y.get(k).copied().flatten()
    }

    /// The coefficients `0..=order` of `node`.
    pub fn series(&self, node: NodeId) -> Series {
        (0..=self.order).map(|k| self.coefficient(node, k)).collect()
    }

    fn state(&self, node: NodeId) -> Option<&State> {
        let slot = *self.slot.get(node.index())?;
        self.states.get(slot as usize)
    }

    /// Builds coefficient `order + 1` of every node.
    ///
    /// # Errors
    /// [`TaylorError::ConstantOverflow`] when a constant of the recurrences
    /// no longer fits in an `f64` (binomial coefficients past order 1029,
    /// factorials past 170).
    pub fn advance(&mut self, dag: &mut ExprDag) -> Result<(), TaylorError> {
        let k = self.order + 1;
        self.binomials.extend_to(k);
        let overflow = match self.scale {
            Scale::Derivatives => {
                !self.binomials.row(k).iter().all(|c| c.is_finite()) || !factorial(k).is_finite()
            }
            Scale::Coefficients => !factorial(k).is_finite(),
        };
        if overflow {
            return Err(TaylorError::ConstantOverflow { order: k });
        }
        for &i in &self.active {
            let i = i as usize;
            // Past its degree a node's coefficients are zero: not stored.
            if (k as u64) > u64::from(self.states[i].degree) {
                continue;
            }
            let mut own = std::mem::replace(&mut self.states[i], State::placeholder());
            let mut step = Step { dag: &mut *dag, scale: self.scale, k, binomials: &self.binomials, work: 0 };
            step.coefficient(&self.states, &mut own);
            self.work += step.work + 1;
            debug_assert_eq!(own.y.len(), k + 1, "{:?}", dag.op(own.node));
            self.states[i] = own;
        }
        self.order = k;
        Ok(())
    }
}

impl State {
    /// The degree that the coefficients built so far show: a degree-1
    /// series whose first coefficient cancelled to zero (`c - x + x`) is
    /// constant along the direction, degree 0, so that no closed form asks
    /// for its rate. Needs the first coefficient (order 1 on).
    fn effective_degree(&self) -> u32 {
        if self.degree == 1 && at(&self.y, 1).is_none() {
            0
        } else {
            self.degree
        }
    }

    /// What a state's slot holds while its coefficient is being built.
    fn placeholder() -> State {
        State { node: NodeId::from_index(0), degree: 0, seed: None, y: vec![], aux: vec![], args: [0; 4] }
    }
}

fn states_degree(states: &[State], slot: u32) -> u32 {
    states[slot as usize].degree
}

/// Whether `id` is the constant `±0`.
fn is_zero(dag: &ExprDag, id: NodeId) -> bool {
    dag.as_const(id) == Some(0.0)
}

/// The value of a constant that is a whole number in `0..=2^53`.
fn whole_constant(dag: &ExprDag, id: NodeId) -> Option<u64> {
    let v = dag.as_const(id)?;
    ((0.0..=9_007_199_254_740_992.0).contains(&v) && v.fract() == 0.0).then_some(v as u64)
}

/// A node's polynomial degree along the direction from its arguments'.
fn degree(dag: &ExprDag, op: Op, args: &[NodeId], d: &[u32]) -> u32 {
    let all_constant = d.iter().all(|&d| d == 0);
    match op {
        Op::Const(_) | Op::Input(_) => 0,
        Op::Call(_) => unreachable!("Taylor::new rejects calls"),
        Op::Neg | Op::Abs => d[0],
        Op::Add | Op::Sub | Op::Min | Op::Max => d[0].max(d[1]),
        Op::Select(_) => d[2].max(d[3]),
        Op::Mul => d[0].saturating_add(d[1]),
        Op::Div if d[1] == 0 => d[0],
        Op::Pow if d[1] == 0 && d[0] != INFINITE => match whole_constant(dag, args[1]) {
            Some(n) => u32::try_from(u64::from(d[0]).saturating_mul(n)).unwrap_or(INFINITE),
            None if d[0] == 0 => 0,
            None => INFINITE,
        },
        Op::Sign | Op::Floor | Op::Ceil => 0,
        Op::Div
        | Op::Pow
        | Op::Sin
        | Op::Cos
        | Op::Tan
        | Op::Asin
        | Op::Acos
        | Op::Atan
        | Op::Sinh
        | Op::Cosh
        | Op::Tanh
        | Op::Asinh
        | Op::Acosh
        | Op::Atanh
        | Op::Exp
        | Op::Expm1
        | Op::Exp2
        | Op::Log
        | Op::Log1p
        | Op::Log2
        | Op::Log10
        | Op::Sqrt
        | Op::Cbrt
        | Op::Erf
        | Op::Atan2
        | Op::Hypot => {
            if all_constant {
                0
            } else {
                INFINITE
            }
        }
    }
}

/// `k!` in double precision (exact up to 22!, `inf` past 170!).
pub fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// Pascal's triangle, row by row, in double precision: exact up to row 56.
#[derive(Clone, Debug, Default)]
struct Binomials {
    rows: Vec<Vec<f64>>,
}

impl Binomials {
    fn extend_to(&mut self, k: usize) {
        while self.rows.len() <= k {
            let n = self.rows.len();
            let row = if n == 0 {
                vec![1.0]
            } else {
                let above = &self.rows[n - 1];
                (0..=n).map(|j| if j == 0 || j == n { 1.0 } else { above[j - 1] + above[j] }).collect()
            };
            self.rows.push(row);
        }
    }

    fn row(&self, k: usize) -> &[f64] {
        &self.rows[k]
    }

    /// `C(k, j)`.
    fn get(&self, k: usize, j: usize) -> f64 {
        self.rows[k][j]
    }
}

/// Building coefficient `k` of one node.
struct Step<'a> {
    dag: &'a mut ExprDag,
    scale: Scale,
    k: usize,
    binomials: &'a Binomials,
    work: u64,
}

/// The arguments of the node whose coefficient is being built, read from
/// their states: the first two's series and values, and their degrees.
struct Operands<'s> {
    states: &'s [State],
    /// The state positions of the arguments.
    slots: [u32; 4],
    /// The series of the first argument (empty for a leaf).
    a: &'s [Option<NodeId>],
    /// The series of the second argument (empty below two arguments).
    b: &'s [Option<NodeId>],
    /// The first argument's value (the node's own for a leaf).
    a0: NodeId,
    /// The second argument's value (`a0` below two arguments).
    b0: NodeId,
    /// Whether the first argument has degree 1.
    linear: bool,
}

impl<'s> Operands<'s> {
    /// The arguments of `own`, an operation of `arity` arguments.
    fn of(states: &'s [State], own: &State, arity: usize) -> Operands<'s> {
        let state = |slot: usize| -> &'s State { &states[own.args[slot] as usize] };
        let a0 = if arity > 0 { state(0).node } else { own.node };
        Operands {
            states,
            slots: own.args,
            a: if arity > 0 { &state(0).y } else { &[] },
            b: if arity > 1 { &state(1).y } else { &[] },
            a0,
            b0: if arity > 1 { state(1).node } else { a0 },
            linear: arity > 0 && state(0).effective_degree() == 1,
        }
    }

    /// The series of argument `slot`.
    fn series(&self, slot: usize) -> &'s [Option<NodeId>] {
        &self.states[self.slots[slot] as usize].y
    }

    /// The degree the coefficients of argument `slot` show
    /// ([`State::effective_degree`]).
    fn degree(&self, slot: usize) -> u32 {
        self.states[self.slots[slot] as usize].effective_degree()
    }
}

/// Coefficient `j` of `series`, `None` past its end.
fn at(series: &[Option<NodeId>], j: usize) -> Option<NodeId> {
    series.get(j).copied().flatten()
}

impl Step<'_> {
    fn constant(&mut self, v: f64) -> NodeId {
        self.dag.constant(v)
    }

    fn apply(&mut self, op: Op, args: &[NodeId]) -> NodeId {
        self.dag.apply(op, args)
    }

    /// `None` for a constant zero: a structural zero from then on.
    fn nonzero(&self, id: NodeId) -> Option<NodeId> {
        (!is_zero(self.dag, id)).then_some(id)
    }

    fn add(&mut self, a: Option<NodeId>, b: Option<NodeId>) -> Option<NodeId> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let s = self.dag.add(a, b);
                self.nonzero(s)
            }
            (a, None) => a,
            (None, b) => b,
        }
    }

    fn sub(&mut self, a: Option<NodeId>, b: Option<NodeId>) -> Option<NodeId> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let s = self.dag.sub(a, b);
                self.nonzero(s)
            }
            (a, None) => a,
            (None, b) => self.neg(b),
        }
    }

    fn neg(&mut self, a: Option<NodeId>) -> Option<NodeId> {
        a.map(|a| self.dag.neg(a))
    }

    fn mul(&mut self, a: Option<NodeId>, b: Option<NodeId>) -> Option<NodeId> {
        let p = self.dag.mul(a?, b?);
        self.nonzero(p)
    }

    fn div(&mut self, a: Option<NodeId>, b: NodeId) -> Option<NodeId> {
        Some(self.dag.div(a?, b))
    }

    /// `w · a` for a constant `w`.
    fn times(&mut self, w: f64, a: Option<NodeId>) -> Option<NodeId> {
        if w == 0.0 {
            return None;
        }
        let w = self.constant(w);
        self.mul(Some(w), a)
    }

    /// `base^e` for a constant exponent.
    fn power(&mut self, base: NodeId, e: f64) -> NodeId {
        let e = self.constant(e);
        self.apply(Op::Pow, &[base, e])
    }

    /// `Σ_{j=lo}^{hi} w_j · a_j · b_{k-j}`, terms with a structural zero
    /// left out; `weight(j)` gives `w_j`.
    fn sum(
        &mut self,
        a: &[Option<NodeId>],
        b: &[Option<NodeId>],
        lo: usize,
        hi: usize,
        weight: impl Fn(usize) -> f64,
    ) -> Option<NodeId> {
        let k = self.k;
        let mut total = None;
        for j in lo..=hi {
            let (Some(p), Some(q)) = (at(a, j), at(b, k - j)) else { continue };
            self.work += 1;
            let product = self.dag.mul(p, q);
            let term = self.times(weight(j), Some(product));
            total = self.add(total, term);
        }
        total
    }

    /// Coefficient `k` of the product `a·b`, restricted to the terms
    /// `a_j b_{k-j}` with `lo <= j <= hi` (the Leibniz rule).
    fn convolution(
        &mut self,
        a: &[Option<NodeId>],
        b: &[Option<NodeId>],
        lo: usize,
        hi: usize,
    ) -> Option<NodeId> {
        let (k, binomials) = (self.k, self.binomials);
        match self.scale {
            Scale::Derivatives => self.sum(a, b, lo, hi, |j| binomials.get(k, j)),
            Scale::Coefficients => self.sum(a, b, lo, hi, |_| 1.0),
        }
    }

    /// [`Step::convolution`] of `a` with itself over `lo..=k-lo`, each
    /// symmetric pair of terms built once.
    fn square(&mut self, a: &[Option<NodeId>], lo: usize) -> Option<NodeId> {
        self.square_over(a, a, lo)
    }

    /// Coefficient `k` of `a²/d` from `scaled = a/d`, restricted to the terms
    /// `j, k - j` with `lo <= j`: `Σ w_j (a_j/d) · a_{k-j}` over `j <= k/2`,
    /// the lower factor of each pair from `scaled` (needed to `k/2` only;
    /// `scaled = a` gives `a²`). The terms `j` and `k - j` are equal: one
    /// term of double weight, but the middle one.
    fn square_over(&mut self, scaled: &[Option<NodeId>], a: &[Option<NodeId>], lo: usize) -> Option<NodeId> {
        let (k, binomials, scale) = (self.k, self.binomials, self.scale);
        if 2 * lo > k {
            return None;
        }
        self.sum(scaled, a, lo, k / 2, |j| {
            let w = match scale {
                Scale::Derivatives => binomials.get(k, j),
                Scale::Coefficients => 1.0,
            };
            if 2 * j == k {
                w
            } else {
                2.0 * w
            }
        })
    }

    /// The coefficients `lo..=hi` of `a`, each divided by `d`, `None` below
    /// `lo` (the nodes are hash-consed: built once over all orders).
    fn scaled(&mut self, a: &[Option<NodeId>], d: NodeId, lo: usize, hi: usize) -> Series {
        (0..=hi).map(|j| at(a, j).filter(|_| j >= lo).map(|c| self.dag.div(c, d))).collect()
    }

    /// Coefficient `k` of `∫ a'·b` (the series whose derivative is `a'·b`
    /// and whose value is 0), restricted to the terms `a_j b_{k-j}` with
    /// `lo <= j <= hi`, `lo >= 1`: `Σ (j/k) a_j b_{k-j}` for coefficients,
    /// `Σ C(k-1, j-1) a_j b_{k-j}` for derivatives.
    fn integral(
        &mut self,
        a: &[Option<NodeId>],
        b: &[Option<NodeId>],
        lo: usize,
        hi: usize,
    ) -> Option<NodeId> {
        debug_assert!(lo >= 1);
        let (k, binomials) = (self.k, self.binomials);
        match self.scale {
            Scale::Derivatives => self.sum(a, b, lo, hi, |j| binomials.get(k - 1, j - 1)),
            Scale::Coefficients => {
                let total = self.sum(a, b, lo, hi, |j| j as f64);
                let k = self.constant(k as f64);
                self.div(total, k)
            }
        }
    }

    /// A closed form given as the `k`-th derivative `w · d` in this scale:
    /// `w · d` for derivatives, `(w / k!) · d` for coefficients.
    fn derivative(&mut self, w: f64, d: Option<NodeId>) -> Option<NodeId> {
        match self.scale {
            Scale::Derivatives => self.times(w, d),
            Scale::Coefficients => self.times(w / factorial(self.k), d),
        }
    }

    /// `a1^k` for the first-order coefficient of an argument of degree 1.
    fn rate_power(&mut self, a: &[Option<NodeId>]) -> NodeId {
        let a1 = at(a, 1).expect("an argument of degree 1 has a first-order coefficient");
        self.power(a1, self.k as f64)
    }

    /// `w · base^e · a1^k`, written `w · a1^k / base^(-e)` for `e < 0`.
    fn power_term(&mut self, w: f64, base: NodeId, e: f64, a: &[Option<NodeId>]) -> Option<NodeId> {
        let rate = self.rate_power(a);
        if e < 0.0 {
            let numerator = self.derivative(w, Some(rate));
            let denominator = self.power(base, -e);
            self.div(numerator, denominator)
        } else {
            let p = self.power(base, e);
            let product = self.mul(Some(p), Some(rate));
            self.derivative(w, product)
        }
    }

    /// Whether the first-order coefficient of an argument of degree 1 is
    /// known only at run time (a direction given as inputs, `x*y` along
    /// `x`): then a closed form meets `a1^k` and a power of the argument as
    /// two run-time numbers (see [`Step::by_ratio`]). A constant rate folds
    /// into the closed form's constant, which prints as a person writes it.
    fn moving_rate(&self, a: &[Option<NodeId>]) -> bool {
        at(a, 1).is_some_and(|a1| self.dag.as_const(a1).is_none())
    }

    /// Coefficient `k` of a closed form of `q^c` (or of one whose derivative
    /// is a power of `q`) for an argument `q` of degree 1 from coefficient
    /// `k - 1`: `y_k = y_{k-1} · (m/k) · (q1/q0)` with `m = c - k + 1`
    /// (`y_{k-1} · m · (q1/q0)` for derivatives).
    ///
    /// The closed form `C(c, k) · q0^(c-k) · q1^k` computes `q1^k` and
    /// `q0^(c-k)` apart, and where their exponents differ in sign each leaves
    /// the range long before the coefficient does: `1/x` at `x = v = 1e40`
    /// has coefficient 8 `v^8/x^9 = 1e-40`, but `v^8` is `inf` and `x^9` is
    /// `inf`. The ratio `q1/q0` is as large as the coefficients grow, and
    /// each step lies between its neighbours, so no intermediate leaves the
    /// range while the coefficients below `k` and `k` itself are in it.
    fn by_ratio(&mut self, own: &State, q: &[Option<NodeId>], q0: NodeId, m: f64) -> Option<NodeId> {
        let k = self.k;
        let q1 = at(q, 1).expect("an argument of degree 1 has a first-order coefficient");
        let ratio = self.dag.div(q1, q0);
        let step = match self.scale {
            Scale::Derivatives => m,
            Scale::Coefficients => m / k as f64,
        };
        let factor = self.times(step, Some(ratio));
        self.mul(at(&own.y, k - 1), factor)
    }

    /// Coefficient `k` of the node `own` (whose degree is at least `k`),
    /// pushed onto its series with its auxiliaries'; `states` holds the
    /// arguments' series up to `k`.
    fn coefficient(&mut self, states: &[State], own: &mut State) {
        let k = self.k;
        let op = self.dag.op(own.node);
        let args = Operands::of(states, own, op.arity());
        if k == 1 {
            own.aux = self.auxiliaries(op, own, &args);
        }
        let (a, b, ak) = (args.a, args.b, at(args.a, k));
        // The arms that return build a coefficient together with those of
        // their auxiliaries, and push it themselves.
        let yk = match op {
            Op::Const(_) => None,
            Op::Call(_) => unreachable!("Taylor::new rejects calls"),
            Op::Input(_) => own.seed.filter(|_| k == 1),
            Op::Neg => self.neg(ak),
            Op::Add => self.add(ak, at(b, k)),
            Op::Sub => self.sub(ak, at(b, k)),
            Op::Mul => self.convolution(a, b, 0, k),
            Op::Div => self.quotient(own, &args),
            Op::Pow => self.pow(own, &args),
            Op::Sin | Op::Cos | Op::Sinh | Op::Cosh if args.linear => self.sine_cycle(op, own, a),
            Op::Sin | Op::Cos | Op::Sinh | Op::Cosh => return self.sine_pair(op, own, a),
            Op::Tan | Op::Tanh => return self.tangent(op, own, a),
            Op::Asin | Op::Acos | Op::Asinh | Op::Acosh => return self.inverse_sine(op, own, a),
            Op::Atan | Op::Atanh => return self.inverse_tangent(op, own, a),
            Op::Exp | Op::Exp2 => self.exponential(op, own, &args),
            Op::Expm1 => self.expm1(own, &args),
            Op::Log | Op::Log1p | Op::Log2 | Op::Log10 => self.logarithm(op, own, &args),
            Op::Sqrt => self.sqrt(own, &args),
            Op::Cbrt => self.cbrt(own, &args),
            Op::Abs => {
                // The branch taken: sign(a)·a, with abs'(0) = 0.
                let sign = self.apply(Op::Sign, &[args.a0]);
                self.mul(Some(sign), ak)
            }
            Op::Sign | Op::Floor | Op::Ceil => None,
            Op::Erf => return self.erf(own, a),
            Op::Atan2 => return self.atan2(own, a, b),
            Op::Hypot => self.hypot(own, a, b),
            Op::Min => self.kink(Cmp::Lt, args.a0, args.b0, ak, at(b, k)),
            Op::Max => self.kink(Cmp::Gt, args.a0, args.b0, ak, at(b, k)),
            Op::Select(cmp) => {
                let (x, z) = (at(args.series(2), k), at(args.series(3), k));
                self.branch(cmp, args.a0, args.b0, x, z)
            }
        };
        own.y.push(yk);
    }

    /// Coefficient `k` of `a/b`: over a `b` the direction does not move, a
    /// quotient; of an `a` it does not move over a `b` of degree 1, a closed
    /// form; else `y_k = (a_k - Σ_{j>0} b_j y_{k-j}) / b_0`.
    fn quotient(&mut self, own: &State, args: &Operands) -> Option<NodeId> {
        let (k, b, b0) = (self.k, args.b, args.b0);
        let ak = at(args.a, k);
        if args.degree(1) == 0 {
            self.div(ak, b0)
        } else if args.degree(0) == 0 && args.degree(1) == 1 && self.moving_rate(b) {
            // (a/b)·(-b1/b0)^k: a power of b with c = -1.
            self.by_ratio(own, b, b0, -(k as f64))
        } else if args.degree(0) == 0 && args.degree(1) == 1 {
            // (a/b)^(k) = a (-1)^k k! b1^k / b^(k+1)
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            let rate = self.rate_power(b);
            let numerator = self.mul(Some(args.a0), Some(rate));
            let numerator = self.derivative(sign * factorial(k), numerator);
            let denominator = self.power(b0, (k + 1) as f64);
            self.div(numerator, denominator)
        } else {
            let sum = self.convolution(b, &own.y, 1, k);
            let difference = self.sub(ak, sum);
            self.div(difference, b0)
        }
    }

    /// Coefficient `k` of `sin`, `cos`, `sinh` or `cosh` of an argument of
    /// degree 1: the derivatives cycle through the pair (the partner's value
    /// in `aux[0]`), each times `a1^k`: sin, cos, -sin, -cos; cos, -sin,
    /// -cos, sin; sinh, cosh; cosh, sinh.
    fn sine_cycle(&mut self, op: Op, own: &State, a: &[Option<NodeId>]) -> Option<NodeId> {
        let k = self.k;
        let hyperbolic = matches!(op, Op::Sinh | Op::Cosh);
        let partner = at(&own.aux[0], 0).expect("the partner's value");
        let turns = if hyperbolic { k % 2 } else { k % 4 };
        let node = if turns % 2 == 0 { own.node } else { partner };
        let negate = matches!((op, turns), (Op::Sin, 2 | 3) | (Op::Cos, 1 | 2));
        let rate = self.rate_power(a);
        let product = self.mul(Some(rate), Some(node));
        let d = self.derivative(1.0, product);
        if negate {
            self.neg(d)
        } else {
            d
        }
    }

    /// Pushes coefficient `k` of `sin`, `cos`, `sinh` or `cosh` and of its
    /// partner (`aux[0]`), each from the other: (sin, cos)' = (cos, -sin)·a',
    /// (sinh, cosh)' = (cosh, sinh)·a'.
    fn sine_pair(&mut self, op: Op, own: &mut State, a: &[Option<NodeId>]) {
        let k = self.k;
        let y = self.integral(a, &own.aux[0], 1, k);
        let y = if op == Op::Cos { self.neg(y) } else { y };
        own.y.push(y);
        let partner = self.integral(a, &own.y, 1, k);
        let partner = if op == Op::Sin { self.neg(partner) } else { partner };
        own.aux[0].push(partner);
    }

    /// Pushes coefficient `k` of `tan` or `tanh` and of `w = 1 ± y²`
    /// (`aux[0]`), by `y' = w·a'`.
    fn tangent(&mut self, op: Op, own: &mut State, a: &[Option<NodeId>]) {
        let y = self.integral(a, &own.aux[0], 1, self.k);
        own.y.push(y);
        let square = self.square(&own.y, 0);
        let w = if op == Op::Tan { square } else { self.neg(square) };
        own.aux[0].push(w);
    }

    /// Pushes coefficient `k` of `asin`, `acos`, `asinh` or `acosh` and of
    /// `ŝ` and `q̂` (`aux[0]`, `aux[1]`; `σ` in `aux[2]`). y' = ±a'/q with
    /// q = sqrt(s), s = 1 - a², 1 + a², a² - 1, all over σ (see
    /// `scale_of_square`): q̂·y' = ±â' with â = a/σ, q̂ = q/σ = sqrt(ŝ),
    /// ŝ = s/σ².
    fn inverse_sine(&mut self, op: Op, own: &mut State, a: &[Option<NodeId>]) {
        let k = self.k;
        let q0 = at(&own.aux[1], 0).expect("q̂'s value");
        let scale = at(&own.aux[2], 0).expect("σ");
        let scaled = self.scaled(a, scale, 0, k);
        let c = if op == Op::Acos { -1.0 } else { 1.0 };
        let numerator = self.times(c, at(&scaled, k));
        let sum = self.integral(&own.y, &own.aux[1], 1, k - 1);
        let difference = self.sub(numerator, sum);
        own.y.push(self.div(difference, q0));
        let square = self.square(&scaled, 0);
        let sk = if matches!(op, Op::Asin | Op::Acos) { self.neg(square) } else { square };
        own.aux[0].push(sk);
        let two_q0 = self.times(2.0, Some(q0)).expect("2·q̂0");
        let qk = self.root(&own.aux[1], sk, two_q0);
        own.aux[1].push(qk);
    }

    /// Pushes coefficient `k` of `atan` or `atanh` and of `q̂` (`aux[0]`;
    /// `σ` in `aux[1]`). y' = a'/q with q = 1 ± a², over σ²: q̂·y' = â'/σ
    /// with â = a/σ, q̂ = q/σ² = 1/σ² ± â².
    fn inverse_tangent(&mut self, op: Op, own: &mut State, a: &[Option<NodeId>]) {
        let k = self.k;
        let q0 = at(&own.aux[0], 0).expect("q̂'s value");
        let scale = at(&own.aux[1], 0).expect("σ");
        let scaled = self.scaled(a, scale, 0, k);
        let numerator = self.div(at(&scaled, k), scale);
        let sum = self.integral(&own.y, &own.aux[0], 1, k - 1);
        let difference = self.sub(numerator, sum);
        own.y.push(self.div(difference, q0));
        let square = self.square(&scaled, 0);
        let qk = if op == Op::Atan { square } else { self.neg(square) };
        own.aux[0].push(qk);
    }

    /// Coefficient `k` of `exp` or `exp2`: a closed form for an argument of
    /// degree 1, else `y' = ln(base)·a'·y`.
    fn exponential(&mut self, op: Op, own: &State, args: &Operands) -> Option<NodeId> {
        let (k, a) = (self.k, args.a);
        let ln = if op == Op::Exp { 1.0 } else { LN_2 };
        if args.linear {
            let rate = self.rate_power(a);
            let product = self.mul(Some(own.node), Some(rate));
            self.derivative(ln.powi(k as i32), product)
        } else {
            let y = self.integral(a, &own.y, 1, k);
            self.times(ln, y)
        }
    }

    /// Coefficient `k` of `expm1`, also pushed onto `exp`'s series
    /// (`aux[0]`): expm1' = exp, so the coefficients past 0 are exp's.
    fn expm1(&mut self, own: &mut State, args: &Operands) -> Option<NodeId> {
        let a = args.a;
        let e0 = at(&own.aux[0], 0).expect("exp's value");
        let e = if args.linear {
            let rate = self.rate_power(a);
            let product = self.mul(Some(e0), Some(rate));
            self.derivative(1.0, product)
        } else {
            self.integral(a, &own.aux[0], 1, self.k)
        };
        own.aux[0].push(e);
        e
    }

    /// Coefficient `k` of `log`, `log1p`, `log2` or `log10`, by
    /// `q·y' = c·a'` with `q = a` (`1 + a` for `log1p`, in `aux[0]`).
    fn logarithm(&mut self, op: Op, own: &State, args: &Operands) -> Option<NodeId> {
        let (k, a) = (self.k, args.a);
        let c = match op {
            Op::Log2 => LOG2_E,
            Op::Log10 => LOG10_E,
            _ => 1.0,
        };
        let q0 = if op == Op::Log1p { at(&own.aux[0], 0).expect("1 + a") } else { args.a0 };
        if args.linear && k > 1 && self.moving_rate(a) {
            // y' = c·q1·q^(-1): past the first, a power of q with c = -1.
            self.by_ratio(own, a, q0, -((k - 1) as f64))
        } else if args.linear {
            // c (-1)^(k-1) (k-1)! a1^k / q^k
            let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
            self.power_term(c * sign * factorial(k - 1), q0, -(k as f64), a)
        } else {
            let numerator = self.times(c, at(a, k));
            let sum = self.integral(&own.y, a, 1, k - 1);
            let difference = self.sub(numerator, sum);
            self.div(difference, q0)
        }
    }

    /// Coefficient `k` of `sqrt`: a closed form for an argument of degree 1,
    /// else the recurrence of a square root.
    fn sqrt(&mut self, own: &State, args: &Operands) -> Option<NodeId> {
        let (k, a, a0, y0) = (self.k, args.a, args.a0, own.node);
        if args.linear && k > 1 && self.moving_rate(a) {
            self.by_ratio(own, a, a0, 0.5 - (k - 1) as f64)
        } else if args.linear {
            // (1/2)_k / (sqrt(a) · a^(k-1)) · a1^k
            let rate = self.rate_power(a);
            let numerator = self.derivative(falling(0.5, k), Some(rate));
            let power = self.power(a0, (k - 1) as f64);
            let denominator = self.dag.mul(y0, power);
            self.div(numerator, denominator)
        } else {
            let two_y0 = self.times(2.0, Some(y0)).expect("2·y0");
            self.root(&own.y, at(a, k), two_y0)
        }
    }

    /// Coefficient `k` of `cbrt`: a closed form for an argument of degree 1,
    /// else the recurrence of `a^(1/3)`.
    fn cbrt(&mut self, own: &State, args: &Operands) -> Option<NodeId> {
        let (k, a, a0, y0) = (self.k, args.a, args.a0, own.node);
        if args.linear && k > 1 && self.moving_rate(a) {
            self.by_ratio(own, a, a0, 1.0 / 3.0 - (k - 1) as f64)
        } else if args.linear {
            // (1/3)_k / (cbrt(a)² · a^(k-1)) · a1^k
            let rate = self.rate_power(a);
            let numerator = self.derivative(falling(1.0 / 3.0, k), Some(rate));
            let square = self.power(y0, 2.0);
            let power = self.power(a0, (k - 1) as f64);
            let denominator = self.dag.mul(square, power);
            self.div(numerator, denominator)
        } else {
            let r = self.constant(1.0 / 3.0);
            self.power_recurrence(own, a, r, a0)
        }
    }

    /// Pushes coefficient `k` of `erf` and of `h` and `g` (`aux[0]`,
    /// `aux[1]`). y' = (2/√π)·g·a' with g = exp(-a²), and g' = -2a·a'·g =
    /// -2a'·h with h = a·g: the series of -a² would hold a0·a_k, which
    /// overflows where g is 0 (NaN) or tiny.
    fn erf(&mut self, own: &mut State, a: &[Option<NodeId>]) {
        let k = self.k;
        let y = self.integral(a, &own.aux[1], 1, k);
        own.y.push(self.times(FRAC_2_SQRT_PI, y));
        let integral = self.integral(a, &own.aux[0], 1, k);
        let gk = self.times(-2.0, integral);
        own.aux[1].push(gk);
        let hk = self.convolution(a, &own.aux[1], 0, k);
        own.aux[0].push(hk);
    }

    /// Pushes coefficient `k` of `atan2` and of `n̂` (`aux[0]`; `h` in
    /// `aux[1]`). n·y' = b·a' - a·b' with n = a² + b², all over h² with h =
    /// hypot(a0, b0): n̂·y' = b̂·â' - â·b̂' with â = a/h, b̂ = b/h, n̂ = â² +
    /// b̂². Each term is then of the size of the coefficients, (v/h)^k, where
    /// a² + b² leaves the range at 1e155 and 1e-155.
    fn atan2(&mut self, own: &mut State, a: &[Option<NodeId>], b: &[Option<NodeId>]) {
        let k = self.k;
        let n0 = at(&own.aux[0], 0).expect("n̂'s value");
        let h = at(&own.aux[1], 0).expect("h");
        let (sa, sb) = (self.scaled(a, h, 0, k), self.scaled(b, h, 0, k));
        let forward = self.integral(&sa, &sb, 1, k);
        let backward = self.integral(&sb, &sa, 1, k);
        let sum = self.integral(&own.y, &own.aux[0], 1, k - 1);
        let numerator = self.sub(forward, backward);
        let difference = self.sub(numerator, sum);
        own.y.push(self.div(difference, n0));
        let (squared_a, squared_b) = (self.square(&sa, 0), self.square(&sb, 0));
        let nk = self.add(squared_a, squared_b);
        own.aux[0].push(nk);
    }

    /// Coefficient `k` of `hypot`. y² = s with s = a² + b², divided by y0:
    /// 2·y_k = s_k/y0 - Σ y_j y_{k-j}/y0, each product taken as
    /// (a_j/y0)·a_{k-j} with j the smaller index. The quotients are powers
    /// up to k/2 of the ratio of the direction to the point, in range
    /// wherever coefficient k is; the products are of the size of
    /// coefficient k. Both a² + b² and the ratio's k-th power leave the
    /// range long before the coefficients do.
    fn hypot(&mut self, own: &State, a: &[Option<NodeId>], b: &[Option<NodeId>]) -> Option<NodeId> {
        let (k, y0) = (self.k, own.node);
        let sa = self.scaled(a, y0, 0, k / 2);
        let sb = self.scaled(b, y0, 0, k / 2);
        let sy = self.scaled(&own.y, y0, 1, k / 2);
        let (from_a, from_b) = (self.square_over(&sa, a, 0), self.square_over(&sb, b, 0));
        let sk = self.add(from_a, from_b);
        let inner = self.square_over(&sy, &own.y, 1);
        let difference = self.sub(sk, inner);
        self.times(0.5, difference)
    }

    /// Coefficient `k` of `q = sqrt(s)` from `q`'s coefficients below `k`,
    /// `s_k`, and `2·q_0`: `q_k = (s_k - Σ_{0<j<k} q_j q_{k-j}) / (2 q_0)`.
    fn root(&mut self, q: &[Option<NodeId>], sk: Option<NodeId>, two_q0: NodeId) -> Option<NodeId> {
        let inner = self.square(q, 1);
        let difference = self.sub(sk, inner);
        self.div(difference, two_q0)
    }

    /// Coefficient `k` of `a^r` for an `r` the direction does not move, by
    /// `a·y' = r·a'·y`: `y_k = (r·∫a'y - ∫y'a) / a_0` (terms below `k`).
    fn power_recurrence(
        &mut self,
        own: &State,
        a: &[Option<NodeId>],
        r: NodeId,
        a0: NodeId,
    ) -> Option<NodeId> {
        let forward = self.integral(a, &own.y, 1, self.k);
        let forward = self.mul(Some(r), forward);
        let backward = self.integral(&own.y, a, 1, self.k - 1);
        let difference = self.sub(forward, backward);
        self.div(difference, a0)
    }

    /// The branch taken: `x_k` where `a cmp b` holds, else `z_k`.
    fn branch(
        &mut self,
        cmp: Cmp,
        a: NodeId,
        b: NodeId,
        x: Option<NodeId>,
        z: Option<NodeId>,
    ) -> Option<NodeId> {
        if x.is_none() && z.is_none() {
            return None;
        }
        let zero = self.constant(0.0);
        let selected = self.apply(Op::Select(cmp), &[a, b, x.unwrap_or(zero), z.unwrap_or(zero)]);
        self.nonzero(selected)
    }

    /// Coefficient `k` of `min` (`cmp = <`) or `max` (`cmp = >`) of `a` and
    /// `b` with coefficients `x` and `z`: the branch taken, and their mean at
    /// a tie, as the first partials have it (see `rules.rs`).
    fn kink(
        &mut self,
        cmp: Cmp,
        a: NodeId,
        b: NodeId,
        x: Option<NodeId>,
        z: Option<NodeId>,
    ) -> Option<NodeId> {
        let sum = self.add(x, z);
        let mean = self.times(0.5, sum);
        let tie = self.branch(Cmp::Eq, a, b, mean, z);
        self.branch(cmp, a, b, x, tie)
    }

    /// Coefficient `k` of `a^b`: by `exp(b·log a)` for an exponent the
    /// direction moves, else a closed form for a base of degree 1, else by
    /// powering or the power recurrence.
    fn pow(&mut self, own: &mut State, args: &Operands) -> Option<NodeId> {
        if args.degree(1) > 0 {
            self.pow_moving_exponent(own, args)
        } else if args.linear {
            self.pow_linear_base(own, args)
        } else {
            self.pow_fixed_exponent(own, args)
        }
    }

    /// Coefficient `k` of `a^b` for an exponent the direction moves:
    /// a^b = exp(b·log a), y' = P'·y with P = b·log(a) (`aux[1]` beside
    /// L = log(a) in `aux[0]` for a moving base; `aux[0]` for a fixed one).
    fn pow_moving_exponent(&mut self, own: &mut State, args: &Operands) -> Option<NodeId> {
        let (k, a, b) = (self.k, args.a, args.b);
        let p = if own.aux.len() == 2 {
            // A moving base: L = log(a) (a·L' = a'), then P_k = (b·L)_k.
            let sum = self.integral(&own.aux[0], a, 1, k - 1);
            let difference = self.sub(at(a, k), sum);
            let lk = self.div(difference, args.a0);
            own.aux[0].push(lk);
            let pk = self.convolution(b, &own.aux[0], 0, k);
            own.aux[1].push(pk);
            &own.aux[1]
        } else {
            // A fixed base: P_k = log(a)·b_k.
            let ln = at(&own.aux[0], 0).expect("log of the base");
            if args.degree(1) == 1 {
                // y0 · (log(a)·b1)^k
                let b1 = at(b, 1).expect("degree 1");
                let rate = self.dag.mul(ln, b1);
                let rate = self.power(rate, k as f64);
                let product = self.mul(Some(own.node), Some(rate));
                own.aux[0].push(None);
                return self.derivative(1.0, product);
            }
            let pk = self.mul(Some(ln), at(b, k));
            own.aux[0].push(pk);
            &own.aux[0]
        };
        let p = p.clone();
        self.integral(&p, &own.y, 1, k)
    }

    /// Coefficient `k` of `a^r` for an `r` the direction does not move and
    /// an `a` of degree 1: r (r-1) ... (r-k+1) · a^(r-k) · a1^k, the falling
    /// factorial a node (`aux[0]`) for a symbolic `r`.
    fn pow_linear_base(&mut self, own: &mut State, args: &Operands) -> Option<NodeId> {
        let (k, a, a0, b0) = (self.k, args.a, args.a0, args.b0);
        let whole = whole_constant(self.dag, b0);
        match self.dag.as_const(b0) {
            Some(r) if whole.is_none() && self.moving_rate(a) => {
                if r > 0.0 && k == 1 {
                    // r · a1 · a0^(r-1): one product or quotient, in range
                    // wherever the coefficient and the value are.
                    self.power_term(r, a0, r - 1.0, a)
                } else if r < 0.0 || (k as f64) > r + 1.0 {
                    self.by_ratio(own, a, a0, r - (k - 1) as f64)
                } else {
                    // Up to the first order above r, by the ratio too,
                    // but at a0 = 0, where the ratio is inf and y_{k-1}
                    // 0, the closed form: 0 below r, inf above.
                    let by_ratio = self.by_ratio(own, a, a0, r - (k - 1) as f64);
                    let closed = self.power_term(falling(r, k), a0, r - k as f64, a);
                    let zero = self.constant(0.0);
                    self.branch(Cmp::Eq, a0, zero, closed, by_ratio)
                }
            }
            Some(r) => self.power_term(falling(r, k), a0, r - k as f64, a),
            None => {
                // A symbolic exponent: the falling factorial is a node.
                let previous = at(&own.aux[0], k - 1).expect("the falling factorial below k");
                let lowered = self.constant((k - 1) as f64);
                let factor = self.dag.sub(b0, lowered);
                let falling = self.dag.mul(previous, factor);
                own.aux[0].push(Some(falling));
                let kk = self.constant(k as f64);
                let exponent = self.dag.sub(b0, kk);
                let power = self.apply(Op::Pow, &[a0, exponent]);
                let rate = self.rate_power(a);
                let product = self.mul(Some(power), Some(rate));
                let product = self.mul(Some(falling), product);
                self.derivative(1.0, product)
            }
        }
    }

    /// Coefficient `k` of `a^b` for a `b` the direction does not move and an
    /// `a` not of degree 1: `a²` by squaring, a whole power past 2 by binary
    /// powering (each step's series in `aux`), others by the power
    /// recurrence.
    fn pow_fixed_exponent(&mut self, own: &mut State, args: &Operands) -> Option<NodeId> {
        let (k, a) = (self.k, args.a);
        match whole_constant(self.dag, args.b0) {
            Some(2) => self.square(a, 0),
            Some(n) if n > 2 => {
                // Binary powering: each step squares or multiplies by a.
                let steps = powering_steps(n);
                let mut previous: &[Option<NodeId>] = a;
                let mut last = None;
                for (i, multiply) in steps.iter().enumerate() {
                    let ck = if *multiply {
                        self.convolution(previous, a, 0, k)
                    } else {
                        self.square(previous, 0)
                    };
                    own.aux[i].push(ck);
                    previous = &own.aux[i];
                    last = ck;
                }
                last
            }
            _ => self.power_recurrence(own, a, args.b0, args.a0),
        }
    }

    /// `σ = max(|a0|, 1)`, the scale of `1 ± a²` and `a² - 1`, with `1/σ²`
    /// and `(a0/σ)²`. As `hypot(a, 1)` scales by its larger argument, the
    /// recurrences of `atan`, `asinh` and `acosh` divide `a` by `σ` and those
    /// sums by `σ²`, so that no term squares the raw argument (`1 + a²`
    /// overflows from 1e155, its coefficient `2·a0·a1` at 1e200 along 1e200,
    /// where every coefficient of `atan` is about 1e-200). For `|a0| <= 1`
    /// the scale is 1, and the values are the unscaled ones, bit for bit.
    fn scale_of_square(&mut self, a0: NodeId) -> (NodeId, NodeId, NodeId) {
        let one = self.constant(1.0);
        let magnitude = self.apply(Op::Abs, &[a0]);
        let scale = self.apply(Op::Max, &[magnitude, one]);
        let (inverse, scaled) = (self.dag.div(one, scale), self.dag.div(a0, scale));
        (scale, self.dag.mul(inverse, inverse), self.dag.mul(scaled, scaled))
    }

    /// The auxiliary series of a node of degree at least 1, with their
    /// values (coefficient 0), built once before order 1.
    fn auxiliaries(&mut self, op: Op, own: &State, args: &Operands) -> Vec<Series> {
        let (a0, b0) = (args.a0, args.b0);
        let one = self.constant(1.0);
        match op {
            Op::Sin => vec![vec![Some(self.apply(Op::Cos, &[a0]))]],
            Op::Cos => vec![vec![Some(self.apply(Op::Sin, &[a0]))]],
            Op::Sinh => vec![vec![Some(self.apply(Op::Cosh, &[a0]))]],
            Op::Cosh => vec![vec![Some(self.apply(Op::Sinh, &[a0]))]],
            Op::Tan => {
                // 1 + tan², as the first-order rule.
                let square = self.dag.mul(own.node, own.node);
                vec![vec![Some(self.dag.add(one, square))]]
            }
            Op::Tanh => {
                // 1/cosh², as the first-order rule: 1 - tanh² cancels.
                let cosh = self.apply(Op::Cosh, &[a0]);
                let square = self.dag.mul(cosh, cosh);
                vec![vec![Some(self.dag.div(one, square))]]
            }
            Op::Asin | Op::Acos => {
                // |a| <= 1: no scale (σ = 1).
                let square = self.dag.mul(a0, a0);
                let s0 = self.dag.sub(one, square);
                vec![vec![Some(s0)], vec![Some(self.apply(Op::Sqrt, &[s0]))], vec![Some(one)]]
            }
            Op::Asinh => self.asinh_auxiliaries(a0, one),
            Op::Acosh => self.acosh_auxiliaries(a0, one),
            Op::Atan => {
                // q̂ = 1/σ² + â².
                let (scale, i2, a2) = self.scale_of_square(a0);
                vec![vec![Some(self.dag.add(i2, a2))], vec![Some(scale)]]
            }
            Op::Atanh => {
                // |a| < 1: no scale (σ = 1).
                let square = self.dag.mul(a0, a0);
                vec![vec![Some(self.dag.sub(one, square))], vec![Some(one)]]
            }
            Op::Expm1 => vec![vec![Some(self.apply(Op::Exp, &[a0]))]],
            Op::Log1p => vec![vec![Some(self.dag.add(one, a0))]],
            Op::Erf => {
                // h = a·g beside g = exp(-a²).
                let square = self.dag.mul(a0, a0);
                let s0 = self.dag.neg(square);
                let g0 = self.apply(Op::Exp, &[s0]);
                vec![vec![Some(self.dag.mul(a0, g0))], vec![Some(g0)]]
            }
            Op::Atan2 => self.atan2_auxiliaries(a0, b0),
            Op::Pow => self.pow_auxiliaries(args, one),
            Op::Const(_)
            | Op::Call(_)
            | Op::Input(_)
            | Op::Neg
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Exp
            | Op::Exp2
            | Op::Log
            | Op::Log2
            | Op::Log10
            | Op::Sqrt
            | Op::Cbrt
            | Op::Abs
            | Op::Sign
            | Op::Floor
            | Op::Ceil
            | Op::Hypot
            | Op::Min
            | Op::Max
            | Op::Select(_) => vec![],
        }
    }

    /// The auxiliaries of `asinh`: ŝ = 1/σ² + â², q̂ = hypot(a, 1)/σ, and σ.
    fn asinh_auxiliaries(&mut self, a0: NodeId, one: NodeId) -> Vec<Series> {
        let (scale, i2, a2) = self.scale_of_square(a0);
        let s0 = self.dag.add(i2, a2);
        let norm = self.apply(Op::Hypot, &[a0, one]);
        vec![vec![Some(s0)], vec![Some(self.dag.div(norm, scale))], vec![Some(scale)]]
    }

    /// The auxiliaries of `acosh`: ŝ = â² - 1/σ², q̂ = sqrt(a - 1)·sqrt(a +
    /// 1)/σ, and σ.
    fn acosh_auxiliaries(&mut self, a0: NodeId, one: NodeId) -> Vec<Series> {
        let (scale, i2, a2) = self.scale_of_square(a0);
        let s0 = self.dag.sub(a2, i2);
        let below = self.dag.sub(a0, one);
        let above = self.dag.add(a0, one);
        let (below, above) = (self.apply(Op::Sqrt, &[below]), self.apply(Op::Sqrt, &[above]));
        let q0 = self.dag.mul(below, above);
        vec![vec![Some(s0)], vec![Some(self.dag.div(q0, scale))], vec![Some(scale)]]
    }

    /// The auxiliaries of `atan2`: n̂ = (a/h)² + (b/h)² beside h = hypot(a, b).
    fn atan2_auxiliaries(&mut self, a0: NodeId, b0: NodeId) -> Vec<Series> {
        let h = self.apply(Op::Hypot, &[a0, b0]);
        let (sa, sb) = (self.dag.div(a0, h), self.dag.div(b0, h));
        let (a2, b2) = (self.dag.mul(sa, sa), self.dag.mul(sb, sb));
        vec![vec![Some(self.dag.add(a2, b2))], vec![Some(h)]]
    }

    /// The auxiliaries of `a^b` (see [`Step::pow`]): for a moving exponent,
    /// log(a) (and b·log(a) for a moving base too); for a symbolic exponent
    /// and a base of degree 1, the falling factorial r (r-1) ... from 1; for
    /// a whole exponent past 2, the values of the powering steps.
    fn pow_auxiliaries(&mut self, args: &Operands, one: NodeId) -> Vec<Series> {
        let (a0, b0) = (args.a0, args.b0);
        if args.degree(1) > 0 {
            let ln = self.apply(Op::Log, &[a0]);
            if args.degree(0) > 0 {
                let p0 = self.dag.mul(b0, ln);
                vec![vec![Some(ln)], vec![Some(p0)]]
            } else {
                vec![vec![Some(ln)]]
            }
        } else if args.linear && self.dag.as_const(b0).is_none() {
            // The falling factorial r (r-1) ... of a symbolic exponent.
            vec![vec![Some(one)]]
        } else if args.linear {
            vec![]
        } else {
            match whole_constant(self.dag, b0) {
                Some(n) if n > 2 => {
                    // The values of the powering steps.
                    let mut value = a0;
                    powering_steps(n)
                        .into_iter()
                        .map(|multiply| {
                            value = self.dag.mul(value, if multiply { a0 } else { value });
                            vec![Some(value)]
                        })
                        .collect()
                }
                _ => vec![],
            }
        }
    }
}

/// The falling factorial `r (r-1) ... (r-k+1)`.
pub fn falling(r: f64, k: usize) -> f64 {
    (0..k).map(|i| r - i as f64).product()
}

/// Binary powering of `n > 2` from `a`: after the leading bit, each bit
/// squares (`false`) and a set bit then multiplies by `a` (`true`).
fn powering_steps(n: u64) -> Vec<bool> {
    let bits = 64 - n.leading_zeros();
    let mut steps = vec![];
    for i in (0..bits - 1).rev() {
        steps.push(false);
        if n >> i & 1 == 1 {
            steps.push(true);
        }
    }
    steps
}

/// The series of `roots` to order `order` along `direction` (see
/// [`Taylor::new`]), one per root.
///
/// # Errors
/// [`TaylorError::ConstantOverflow`] for orders whose constants overflow.
pub fn taylor(
    dag: &mut ExprDag,
    roots: &[NodeId],
    direction: &[Option<NodeId>],
    order: usize,
    scale: Scale,
) -> Result<Vec<Series>, TaylorError> {
    let mut taylor = Taylor::new(dag, roots, direction, scale);
    for _ in 0..order {
        taylor.advance(dag)?;
    }
    Ok(roots.iter().map(|&r| taylor.series(r)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derivatives(source: &str, order: usize, x: f64) -> Vec<f64> {
        let program = frontend::parse_expr(source).expect("valid");
        let mut dag = ExprDag::clone(&program.dag);
        let root = program.outputs[0].node;
        let one = dag.constant(1.0);
        let series = taylor(&mut dag, &[root], &[Some(one)], order, Scale::Derivatives).expect("finite");
        let nodes: Vec<NodeId> = series[0].iter().map(|c| c.unwrap_or(one)).collect();
        let values = frontend::eval(&dag, &nodes, &[x]);
        series[0].iter().zip(values).map(|(c, v)| if c.is_some() { v } else { 0.0 }).collect()
    }

    /// Derivatives `0..=order` of `source` at `x` along `v`, the direction
    /// an input, as `taylor_series` has it.
    fn along_input(source: &str, order: usize, x: f64, v: f64) -> Vec<f64> {
        let program = frontend::parse_expr_with_inputs(source, &["x"]).expect("valid");
        let mut dag = ExprDag::clone(&program.dag);
        let root = program.outputs[0].node;
        let rate = dag.input(1);
        let series = taylor(&mut dag, &[root], &[Some(rate)], order, Scale::Derivatives).expect("finite");
        let zero = dag.constant(0.0);
        let nodes: Vec<NodeId> = series[0].iter().map(|c| c.unwrap_or(zero)).collect();
        frontend::eval(&dag, &nodes, &[x, v])
    }

    /// The closed forms by the ratio (a rate known at run time) give what
    /// the closed forms of a constant rate give: to a few ulp at ordinary
    /// points, and the same zeros and infinities where the argument is 0.
    #[test]
    fn closed_forms_by_the_ratio_agree_with_constant_rates() {
        let sources = ["sqrt(x)", "cbrt(x)", "log(x)", "log10(x)", "log1p(x - 1)", "1/x", "3/x"];
        let powers = ["x^2.5", "x^7.5", "x^0.3", "x^-0.5", "x^-3"];
        for source in sources.iter().chain(&powers) {
            for x in [0.0, 0.7, 2.5, -1.3] {
                let constant = derivatives(source, 8, x);
                let moving = along_input(source, 8, x, 1.0);
                for (k, (c, m)) in constant.iter().zip(&moving).enumerate() {
                    let same = if x == 0.0 || c.is_nan() {
                        c.to_bits() == m.to_bits() || (c.is_nan() && m.is_nan())
                    } else {
                        (c - m).abs() <= 1e-14 * c.abs()
                    };
                    assert!(same, "{source} at {x}, order {k}: {m:e} by the ratio, {c:e} closed");
                }
            }
        }
    }

    #[test]
    fn powers_are_polynomials_with_closed_forms() {
        assert_eq!(derivatives("x^5", 7, 2.0), vec![32.0, 80.0, 160.0, 240.0, 240.0, 120.0, 0.0, 0.0]);
        assert_eq!(derivatives("(x*x+1)^3", 7, 0.0)[..7], [1.0, 0.0, 6.0, 0.0, 72.0, 0.0, 720.0]);
    }

    #[test]
    fn powering_steps_spell_the_exponent() {
        for n in 3..200u64 {
            let mut value = 1u64;
            for multiply in powering_steps(n) {
                value = if multiply { value + 1 } else { 2 * value };
            }
            assert_eq!(value, n);
        }
    }

    #[test]
    fn sine_cycles_through_four_nodes() {
        let program = frontend::parse_expr("sin(x)").expect("valid");
        let mut dag = ExprDag::clone(&program.dag);
        let root = program.outputs[0].node;
        let one = dag.constant(1.0);
        let series = taylor(&mut dag, &[root], &[Some(one)], 8, Scale::Derivatives).expect("finite");
        assert_eq!(series[0][4], Some(root));
        assert_eq!(series[0][8], Some(root));
        assert_eq!(series[0][1], series[0][5]);
    }
}
