//! What a kernel is asked for ([`Request`]) and the symbolic kernel that
//! answers it ([`build`]): whole, or as maps where [`crate::plan::maps`]
//! finds them, beside the plan that decides everything else.
//!
//! ```
//! use factor::request::{build, Build, Request, Searches, Symbolic};
//! let f = frontend::parse_program("in x, y\nout x*x*y")?.kernel()?;
//! let Build::Kernel(hessian) = build(Request::Hessian, &f, &Searches::default())? else { unreachable!() };
//! let Symbolic::Whole(kernel) = &hessian.kernel else { unreachable!() };
//! assert_eq!(kernel.eval(&[1.0, 2.0, /* w */ 1.0]), [4.0, 2.0]); // the lower triangle's nonzeros
//! assert!(matches!(build(Request::Jacobian, &f, &Searches::default())?, Build::Jacobian));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::columns::{columns as by_columns, Columns};
use crate::higher::{Budget, HigherError};
use crate::plan;
use crate::{gradient, hvp, lagrangian_hessian, taylor_series, vjp, Jacobian, Maps, Remainder};
use frontend::map::MapKernel;
use frontend::{Block, Kernel, Layout, SparsityPattern};
use std::sync::OnceLock;

/// What a kernel computes, for a function of `n` inputs, `q` parameters
/// and `m` outputs. Every kernel takes the blocks `x` (`n`) and `p` (`q`);
/// some take weights `w` and directions `v` ([`Request::blocks`]).
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
    /// `q` parameters and `m` outputs: the inputs of the kernel [`build`]
    /// gives, in this order.
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
    fn layout(self, n: usize, m: usize, pattern: Option<SparsityPattern>) -> Layout {
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

/// A symbolic kernel, to compile or interpret.
#[derive(Debug)]
pub enum Symbolic {
    /// One straight-line kernel.
    Whole(Kernel),
    /// Maps ([`frontend::map`]): each body once, run per instance, and the rest.
    Maps(Box<MapKernel>),
    /// A Lagrangian Hessian by columns: one `H·V` kernel, called per
    /// [`Columns::directions`] columns.
    Columns(Box<Columns>),
}

impl Symbolic {
    /// Operations it computes per call.
    pub fn count_ops(&self) -> usize {
        match self {
            Symbolic::Whole(kernel) => kernel.count_ops(),
            Symbolic::Maps(kernel) => kernel.count_ops(),
            Symbolic::Columns(columns) => columns.count_ops(),
        }
    }

    /// Its output for `input` (the argument blocks one after another), by
    /// the reference interpreter.
    pub fn eval(&self, input: &[f64]) -> Vec<f64> {
        match self {
            Symbolic::Whole(kernel) => kernel.eval(input),
            Symbolic::Maps(kernel) => kernel.eval(input),
            Symbolic::Columns(columns) => columns.eval(input),
        }
    }
}

/// The symbolic kernel of a request, with what a compiled kernel reports
/// of it.
#[derive(Debug)]
pub struct Built {
    /// The kernel: its inputs are the request's [`Blocks`], one after another.
    pub kernel: Symbolic,
    /// What is where in its output.
    pub layout: Layout,
    /// The accumulation that built a Jacobian ([`crate::Method::name`]) or
    /// a Hessian ([`crate::HessianMethod::name`]), `"maps"` for either as
    /// maps; `None` for the other requests.
    pub method: Option<&'static str>,
}

impl From<Jacobian> for Built {
    /// The whole Jacobian's kernel ([`Build::Jacobian`], once built).
    fn from(jacobian: Jacobian) -> Built {
        let (layout, method) = (jacobian.layout(), Some(jacobian.method().name()));
        Built { kernel: Symbolic::Whole(jacobian.into_kernel()), layout, method }
    }
}

/// What [`build`] gives for a request.
#[derive(Debug)]
pub enum Build {
    /// The kernel to compile.
    Kernel(Box<Built>),
    /// The Jacobian, whole ([`crate::jacobian()`]): left to the caller's
    /// pipeline, which may simplify it and compile the function's chunks
    /// meanwhile ([`crate::Jacobian::simplify_alongside`]).
    Jacobian,
}

/// What the kernels of one function share, each searched for on first use:
/// the maps the values, Jacobian, gradient and Hessian are built from
/// ([`Maps`]), and the remainder graph `J·v` kernels of every width push
/// their directions through ([`crate::plan::directions_remainder`]). Every
/// call must pass the same function.
#[derive(Debug, Default)]
pub struct Searches {
    maps: Maps,
    remainder: OnceLock<Remainder>,
}

impl Searches {
    /// [`frontend::map::written_out`] of `f`, counted on first use.
    fn written_out(&self, f: &Kernel) -> u64 {
        self.maps.written_out(f)
    }

    /// The remainder graph of `f`, searched for on first use.
    fn remainder(&self, f: &Kernel) -> &Remainder {
        self.remainder.get_or_init(|| crate::plan::directions_remainder(f))
    }
}

/// The symbolic kernel of `request` on `f` (always the function of
/// `searches`): as maps where the plan finds maps that pay (values,
/// Jacobian, gradient, Lagrangian Hessian), else whole: the function
/// itself, the Jacobian left to the caller ([`Build::Jacobian`]), the
/// gradient by one reverse sweep, the Lagrangian Hessian by the cheaper of
/// edge pushing and D* (by columns of `H·V` where it is large and dense,
/// [`crate::columns`]), `J·v` through the scarcity remainder, `wᵀJ`, `H·v`,
/// Taylor series within the default [`Budget`].
///
/// # Errors
/// [`HigherError`] for a Taylor order past its budget.
pub fn build(request: Request, f: &Kernel, searches: &Searches) -> Result<Build, HigherError> {
    build_with(request, f, searches, true)
}

/// [`build`], the Lagrangian Hessian by columns only if `columns` (and the
/// plan takes them), else whole however large.
///
/// # Errors
/// As [`build`].
pub fn build_with(
    request: Request,
    f: &Kernel,
    searches: &Searches,
    columns: bool,
) -> Result<Build, HigherError> {
    if let Some(built) = mapped(request, f, searches) {
        return Ok(Build::Kernel(Box::new(built)));
    }
    let (kernel, pattern, method) = match request {
        Request::Jacobian => return Ok(Build::Jacobian),
        Request::Values => (f.clone(), None, None),
        Request::Gradient => (gradient(f.clone()), None, None),
        Request::Hessian => {
            if let Some(columns) = columns.then(|| by_columns(f)).flatten() {
                let layout =
                    request.layout(f.num_variables(), f.num_outputs(), Some(columns.pattern().clone()));
                let kernel = Symbolic::Columns(Box::new(columns));
                return Ok(Build::Kernel(Box::new(Built { kernel, layout, method: Some("hvp_columns") })));
            }
            let hessian = lagrangian_hessian(f.clone());
            (hessian.lower_kernel(), Some(hessian.lower_pattern().clone()), Some(hessian.method().name()))
        }
        Request::Jvp(k) => (searches.remainder(f).directions_kernel(k), None, None),
        Request::Vjp(k) => (vjp(f.clone(), k), None, None),
        Request::Hvp(k) => (hvp(f.clone(), k), None, None),
        Request::Taylor(order) => (taylor_series(f.clone(), order, &Budget::default())?, None, None),
    };
    let layout = request.layout(f.num_variables(), f.num_outputs(), pattern);
    Ok(Build::Kernel(Box::new(Built { kernel: Symbolic::Whole(kernel), layout, method })))
}

/// The values, the gradient `wᵀJ` and the lower triangle of the
/// Lagrangian Hessian of `f` (always the function of `searches`) in one
/// kernel over `x`, `p` and `w`, laid out as [`crate::Hessian::layout`]
/// (what `dstar emit --hessian` writes): as maps where the plan finds maps
/// that pay ([`crate::mapped_lagrangian`]), else whole.
///
/// ```
/// use factor::request::{build_lagrangian, Searches, Symbolic};
/// let f = frontend::parse_program("in x, y\nout x*x*y")?.kernel()?;
/// let built = build_lagrangian(&f, &Searches::default());
/// // x²y, its gradient (2xy, x²) and the lower triangle (2y, 2x, 0 is no entry).
/// assert_eq!(built.kernel.eval(&[1.0, 2.0, /* w */ 1.0]), [2.0, 4.0, 1.0, 4.0, 2.0]);
/// assert!(matches!(built.kernel, Symbolic::Whole(_)), "too small for maps");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build_lagrangian(f: &Kernel, searches: &Searches) -> Built {
    // The kernel holds the values: maps only where they pay for values.
    let pays = plan::maps_pay(Request::Values, searches.written_out(f));
    if let Some((kernel, gradient, lower)) = pays.then(|| searches.maps.lagrangian(f)).flatten() {
        let layout =
            Layout::new(vec![Block::Values(f.num_outputs()), Block::Sparse(gradient), Block::Lower(lower)]);
        return Built { kernel: Symbolic::Maps(Box::new(kernel)), layout, method: Some("maps") };
    }
    let hessian = lagrangian_hessian(f.clone());
    let (layout, method) = (hessian.layout(), Some(hessian.method().name()));
    Built { kernel: Symbolic::Whole(hessian.kernel().clone()), layout, method }
}

/// The values, the Jacobian, the gradient or the Lagrangian Hessian as
/// maps ([`crate::mapped`]), where the plan finds maps that pay
/// ([`crate::plan::maps`]); `None` for the other requests and for
/// kernels without.
fn mapped(request: Request, f: &Kernel, searches: &Searches) -> Option<Built> {
    if !matches!(request, Request::Values | Request::Jacobian | Request::Gradient | Request::Hessian) {
        return None;
    }
    if !plan::maps_pay(request, searches.written_out(f)) {
        return None;
    }
    let maps = &searches.maps;
    let found = maps.found(f)?;
    let derivative = matches!(request, Request::Jacobian | Request::Gradient);
    if derivative && plan::small_bodies(found, searches.written_out(f)) {
        return None;
    }
    let (kernel, pattern) = match request {
        Request::Jacobian => maps.jacobian(f).map(|(kernel, pattern)| (kernel, Some(pattern)))?,
        Request::Values => (maps.values(f)?, None),
        Request::Gradient => (maps.gradient(f)?, None),
        _ => maps.hessian(f).map(|(kernel, pattern)| (kernel, Some(pattern)))?,
    };
    let layout = request.layout(f.num_variables(), f.num_outputs(), pattern);
    let method = matches!(request, Request::Jacobian | Request::Hessian).then_some("maps");
    Some(Built { kernel: Symbolic::Maps(Box::new(kernel)), layout, method })
}
