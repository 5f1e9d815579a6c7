//! The named argument blocks every compiled kernel takes
//! ([`frontend::ARG_BLOCKS`]): `x` (the inputs), `p` (the parameters), `w`
//! (weights) and `v` (directions), one call ([`Args`]) or many ([`Batch`]);
//! their lengths per [`Request`](crate::Request) are [`crate::Blocks`].

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
