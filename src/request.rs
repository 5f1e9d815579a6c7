//! What a kernel is asked for ([`Request`]), and the named argument blocks
//! every compiled kernel takes ([`frontend::ARG_BLOCKS`]): `x` (the
//! inputs), `p` (the parameters), `w` (weights) and `v` (directions), one
//! call ([`Args`]) or many ([`Batch`]).

use frontend::{Block, Layout, SparsityPattern};

/// What a [`Compiled`](crate::Compiled) kernel computes, for a function of
/// `n` inputs, `q` parameters and `m` outputs. Every kernel takes the
/// blocks `x` (`n`) and `p` (`q`); some take weights `w` and directions `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Request {
    /// The `m` values.
    Values,
    /// The values and the structurally nonzero Jacobian entries (CSR).
    Jacobian,
    /// The values and the gradient of the sum of the outputs (`n`, dense):
    /// the gradient of a scalar function, by one reverse sweep.
    Gradient,
    /// The lower triangle of the Hessian of the Lagrangian `Σ w_i f_i`
    /// (CSR, `row >= col`), for `w` of length `m`: an optimizer's Hessian.
    Hessian,
    /// `J·v` for `k` directions `v` (`k·n` values): `k` rows of `m`.
    Jvp(usize),
    /// `wᵀJ` for `k` weight vectors `w` (`k·m` values): `k` rows of `n`.
    Vjp(usize),
    /// `H·v` of the Lagrangian for weights `w` (`m`) and `k` directions
    /// `v` (`k·n`): `k` rows of `n`.
    Hvp(usize),
    /// The Taylor coefficients `0..=K` of `f(x + t·v)` in `t` along `v`
    /// (`n`): `K + 1` rows of `m`.
    Taylor(u64),
}

/// The lengths of a kernel's argument blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    /// Inputs.
    pub x: usize,
    /// Parameters.
    pub p: usize,
    /// Weights.
    pub w: usize,
    /// Directions.
    pub v: usize,
}

impl Blocks {
    /// The lengths in call order: `x`, `p`, `w`, `v`.
    pub fn lengths(&self) -> [usize; 4] {
        [self.x, self.p, self.w, self.v]
    }
}

impl Request {
    /// The argument blocks of this request on a function of `n` inputs,
    /// `q` parameters and `m` outputs.
    pub fn blocks(self, n: usize, q: usize, m: usize) -> Blocks {
        let (w, v) = match self {
            Request::Values | Request::Jacobian | Request::Gradient => (0, 0),
            Request::Hessian => (m, 0),
            Request::Jvp(k) => (0, k * n),
            Request::Vjp(k) => (k * m, 0),
            Request::Hvp(k) => (m, k * n),
            Request::Taylor(_) => (0, n),
        };
        Blocks { x: n, p: q, w, v }
    }

    /// The output layout of this request, given the sparsity pattern of
    /// its Jacobian or Hessian (`None` for the others).
    pub(crate) fn layout(self, n: usize, m: usize, pattern: Option<SparsityPattern>) -> Layout {
        let pattern = || pattern.clone().expect("a Jacobian or Hessian comes with its pattern");
        Layout::new(match self {
            Request::Values => vec![Block::Values(m)],
            Request::Jacobian => vec![Block::Values(m), Block::Sparse(pattern())],
            Request::Gradient => vec![Block::Values(m), Block::Values(n)],
            Request::Hessian => vec![Block::Lower(pattern())],
            Request::Jvp(k) => vec![Block::Dense { rows: k, cols: m }],
            Request::Vjp(k) | Request::Hvp(k) => vec![Block::Dense { rows: k, cols: n }],
            Request::Taylor(order) => vec![Block::Dense { rows: order as usize + 1, cols: m }],
        })
    }
}

/// The arguments of one call, by name; blocks a kernel does not take are
/// left empty.
///
/// ```
/// let x = [1.0, 2.0];
/// let args = dstar::Args::x(&x).p(&[0.5]);
/// assert_eq!((args.x.len(), args.p.len(), args.w.len()), (2, 1, 0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Args<'a> {
    /// The inputs.
    pub x: &'a [f64],
    /// The parameters.
    pub p: &'a [f64],
    /// The weights (Hessian, `wᵀJ`, `H·v`).
    pub w: &'a [f64],
    /// The directions (`J·v`, `H·v`, Taylor).
    pub v: &'a [f64],
}

impl<'a> Args<'a> {
    /// The inputs `x`, no other block.
    pub fn x(x: &'a [f64]) -> Args<'a> {
        Args { x, ..Args::default() }
    }

    /// With the parameters `p`.
    pub fn p(self, p: &'a [f64]) -> Args<'a> {
        Args { p, ..self }
    }

    /// With the weights `w`.
    pub fn w(self, w: &'a [f64]) -> Args<'a> {
        Args { w, ..self }
    }

    /// With the directions `v`.
    pub fn v(self, v: &'a [f64]) -> Args<'a> {
        Args { v, ..self }
    }

    /// The blocks in call order.
    pub(crate) fn blocks(&self) -> [&'a [f64]; 4] {
        [self.x, self.p, self.w, self.v]
    }
}

/// The arguments of many points, by name: the blocks of [`Args`], read
/// per point. `x` holds a row of inputs per point, and each other block
/// either one row for all the points (its block's length) or a row per
/// point, one after another.
///
/// ```
/// let xs = [1.0, 2.0, /* point 2 */ 3.0, 4.0];
/// let batch = dstar::Batch::x(&xs).p(&[0.5]); // one parameter vector for both points
/// assert_eq!(batch.x.len(), 4);
/// ```
pub type Batch<'a> = Args<'a>;
