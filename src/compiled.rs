//! [`Compiled`]: the one compiled kernel type. Whatever was asked for (a
//! [`Request`]), it is called the same way: named argument blocks in, a
//! buffer whose [`Layout`] says what is where out.

use crate::args::{Args, Batch};
use crate::columns::ColumnsKernel;
use crate::Error;
use backend::{CodegenError, JitCompiler, JitKernel, MappedKernel, Rows, SelfCheckFailure};
use factor::{Blocks, Request};
use frontend::{Kernel, Layout, SparsityPattern, Stop, ARG_BLOCKS};
use std::sync::OnceLock;

/// A native kernel for a [`Request`] on a function, built by
/// [`Function::compile`](crate::Function::compile) or [`crate::compile`].
///
/// [`eval`](Compiled::eval) takes the argument blocks by name ([`Args`]:
/// `x`, `p`, `w`, `v`, their lengths checked against [`blocks`](Compiled::blocks))
/// and writes [`out_len`](Compiled::out_len) values laid out by
/// [`layout`](Compiled::layout); [`eval_batch`](Compiled::eval_batch) does
/// many points in parallel, two per call in SIMD lanes; [`eval_dense`](Compiled::eval_dense)
/// gives each block as a dense matrix. A kernel may be shared by threads.
///
/// ```
/// use dstar::{Args, Options, Request};
/// let jacobian = dstar::compile("param a\nin x, y\nout f = a*x*y\nout g = sin(x)", Request::Jacobian, &Options::default())?;
/// let mut out = vec![0.0; jacobian.out_len()];
/// jacobian.eval(Args::x(&[2.0, 3.0]).p(&[10.0]), &mut out)?;
/// assert_eq!(out[..2], [60.0, 2f64.sin()]); // the values
/// assert_eq!(out[2..], [30.0, 20.0, 2f64.cos()]); // the nonzeros of J, row by row
/// let dense = jacobian.eval_dense(Args::x(&[2.0, 3.0]).p(&[10.0]))?;
/// assert_eq!(dense[1], [[30.0, 20.0], [2f64.cos(), 0.0]]);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct Compiled {
    kernel: Native,
    request: Request,
    blocks: Blocks,
    layout: Layout,
    ops: usize,
    method: Option<&'static str>,
    /// What the first batch asks the compiler for the two-point variant
    /// with; `None` for maps.
    two_points: Option<Box<TwoPointsSource>>,
}

/// A straight-line kernel's source and compiler, for its two-point
/// variant, and how compiling that went: `Err` where it failed its
/// self-check (every batch then fails so), `Ok` where it compiled or
/// Cranelift could not compile it (the one-point kernel then covers every
/// point).
#[derive(Debug)]
struct TwoPointsSource {
    kernel: Kernel,
    compiler: JitCompiler,
    compiled: OnceLock<Result<(), SelfCheckFailure>>,
}

/// The code behind a [`Compiled`]: one kernel, maps ([`frontend::map`])
/// run as loops, or a Hessian by columns.
#[derive(Debug)]
pub enum Native {
    /// One straight-line kernel.
    Jit(JitKernel),
    /// Each map's body in a loop over its instances, and the rest.
    Mapped(MappedKernel),
    /// A Lagrangian Hessian by columns: an `H·V` kernel in a loop.
    Columns(Box<ColumnsKernel>),
}

impl Native {
    /// The lengths of the input parts.
    pub fn part_lengths(&self) -> &[usize] {
        match self {
            Native::Jit(k) => k.part_lengths(),
            Native::Mapped(k) => k.part_lengths(),
            Native::Columns(k) => k.part_lengths(),
        }
    }

    /// The length of the output.
    pub fn num_outputs(&self) -> usize {
        match self {
            Native::Jit(k) => k.num_outputs(),
            Native::Mapped(k) => k.num_outputs(),
            Native::Columns(k) => k.num_outputs(),
        }
    }

    /// Computes the output from the input parts.
    ///
    /// # Errors
    /// As [`JitKernel::eval_parts`].
    pub fn eval_parts(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), backend::KernelError> {
        match self {
            Native::Jit(k) => k.eval_parts(parts, out),
            Native::Mapped(k) => k.eval_parts(parts, out),
            Native::Columns(k) => k.eval_parts(parts, out),
        }
    }
}

impl Compiled {
    /// Wraps `kernel`, compiled with parts of `blocks`' lengths.
    pub(crate) fn new(
        kernel: impl Into<Native>,
        request: Request,
        blocks: Blocks,
        layout: Layout,
        ops: usize,
        method: Option<&'static str>,
    ) -> Compiled {
        let kernel = kernel.into();
        debug_assert_eq!(kernel.part_lengths(), blocks.lengths());
        debug_assert_eq!(kernel.num_outputs(), layout.len());
        Compiled { kernel, request, blocks, layout, ops, method, two_points: None }
    }

    /// With the `kernel` the native kernel was compiled from by `compiler`:
    /// the first batch asks it for the two-point variant.
    pub(crate) fn with_source(mut self, kernel: Kernel, compiler: JitCompiler) -> Compiled {
        let compiled = OnceLock::new();
        self.two_points = Some(Box::new(TwoPointsSource { kernel, compiler, compiled }));
        self
    }

    /// What the kernel computes.
    pub fn request(&self) -> Request {
        self.request
    }

    /// The lengths of the argument blocks it takes.
    pub fn blocks(&self) -> Blocks {
        self.blocks
    }

    /// How its output divides into values, sparse and dense matrices.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The length of one call's output.
    pub fn out_len(&self) -> usize {
        self.layout.len()
    }

    /// The sparsity pattern of a Jacobian (CSR) or of a Hessian's lower
    /// triangle; `None` for the other requests.
    pub fn pattern(&self) -> Option<&SparsityPattern> {
        self.layout.pattern()
    }

    /// Operations the kernel computes per call.
    pub fn ops(&self) -> usize {
        self.ops
    }

    /// The accumulation the plan chose for a Jacobian ([`factor::Method::name`])
    /// or a Hessian ([`factor::HessianMethod::name`]); `None` for the other
    /// requests.
    pub fn method(&self) -> Option<&'static str> {
        self.method
    }

    /// The underlying native kernel (its input is the blocks one after
    /// another); `None` where the request was built as maps
    /// ([`Compiled::method`] `"maps"`) or by columns (`"hvp_columns"`),
    /// several kernels or one in a loop.
    pub fn kernel(&self) -> Option<&JitKernel> {
        match &self.kernel {
            Native::Jit(k) => Some(k),
            Native::Mapped(_) | Native::Columns(_) => None,
        }
    }

    /// Evaluates at `args` into `out` ([`out_len`](Self::out_len) values,
    /// laid out by [`layout`](Self::layout)); allocates nothing.
    ///
    /// # Errors
    /// [`Error::Argument`] for a block of the wrong length,
    /// [`Error::Kernel`] for an `out` of the wrong length; `out` is then
    /// left untouched.
    #[inline]
    pub fn eval(&self, args: Args<'_>, out: &mut [f64]) -> Result<(), Error> {
        let blocks = args.blocks();
        for (b, (given, expected)) in blocks.iter().zip(self.blocks.lengths()).enumerate() {
            if given.len() != expected {
                return Err(self.argument(b, expected, given.len(), None));
            }
        }
        Ok(self.kernel.eval_parts(&blocks, out)?)
    }

    /// Evaluates many points in parallel: `batch.x` holds a row of inputs
    /// per point, each other block one row shared by all the points or a
    /// row per point; point `i` gives row `i` of `outs`
    /// ([`out_len`](Self::out_len) values each), bit for bit what
    /// [`eval`](Self::eval) gives.
    ///
    /// # Errors
    /// [`Error::Argument`] for a block that is neither whole rows for the
    /// points nor one row; [`Error::Kernel`] for `outs` not a row per point;
    /// [`Error::SelfCheck`] if the two-point kernel failed its check.
    pub fn eval_batch(&self, batch: Batch<'_>, outs: &mut [f64]) -> Result<(), Error> {
        self.eval_batch_until(batch, outs, &Stop::never())
    }

    /// [`eval_batch`](Self::eval_batch), asking `stop` while the first
    /// batch compiles the two-point variant and before each piece of 64
    /// points (one atomic load per piece for a [`Stop::flag`]): a long
    /// batch stops soon after it is asked to.
    ///
    /// # Errors
    /// As [`eval_batch`](Self::eval_batch), and [`Error::Stopped`] if
    /// `stop` was requested; `outs` then holds the rows of the pieces that
    /// ran before.
    pub fn eval_batch_until(&self, batch: Batch<'_>, outs: &mut [f64], stop: &Stop) -> Result<(), Error> {
        let rows = self.rows(batch, outs.len().checked_div(self.out_len()).unwrap_or(0))?;
        self.two_points(stop)?;
        match &self.kernel {
            Native::Jit(k) => Ok(k.eval_batch_parts_until(&rows, outs, stop)?),
            Native::Mapped(_) | Native::Columns(_) => {
                self.eval_batch_keep(batch, outs, self.out_len(), stop, |out, row| row.copy_from_slice(out))
            }
        }
    }

    /// [`eval_batch_until`](Self::eval_batch_until) for a caller that
    /// keeps part of each point's output: `keep(output, row)` makes point
    /// `i`'s row `i` of `rows` (`row_len` values) from its output (a block
    /// of the [`layout`](Self::layout) as it is, or scattered dense by
    /// [`Block::scatter`](frontend::Block::scatter)). Each thread evaluates
    /// its points a piece at a time into a buffer of its own, so no buffer
    /// holds the whole batch's outputs and each stays in cache until kept.
    ///
    /// ```
    /// use dstar::{Batch, Options, Request, Stop};
    /// let jacobian = dstar::compile("in x, y\nout x*y\nout sin(x)", Request::Jacobian, &Options::default())?;
    /// let [_, block] = jacobian.layout().blocks() else { unreachable!() };
    /// let xs = [1.0, 2.0, /* point 2 */ 3.0, 4.0];
    /// let mut dense = vec![0.0; 2 * 4]; // a 2x2 Jacobian per point
    /// let keep = |out: &[f64], row: &mut [f64]| block.scatter(&out[2..], row);
    /// jacobian.eval_batch_keep(Batch::x(&xs), &mut dense, 4, &Stop::never(), keep)?;
    /// assert_eq!(dense[4..], [4.0, 3.0, 3f64.cos(), 0.0]);
    /// # Ok::<(), dstar::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`eval_batch_until`](Self::eval_batch_until), `rows` for `outs`.
    pub fn eval_batch_keep(
        &self,
        batch: Batch<'_>,
        rows: &mut [f64],
        row_len: usize,
        stop: &Stop,
        keep: impl Fn(&[f64], &mut [f64]) + Sync,
    ) -> Result<(), Error> {
        let blocks = self.rows(batch, rows.len().checked_div(row_len).unwrap_or(0))?;
        self.two_points(stop)?;
        match &self.kernel {
            Native::Jit(k) => Ok(k.eval_batch_parts_keep(&blocks, rows, row_len, stop, &keep)?),
            Native::Mapped(k) => Ok(k.eval_batch_parts_keep(&blocks, rows, row_len, stop, &keep)?),
            Native::Columns(k) => Ok(k.eval_batch_parts_keep(&blocks, rows, row_len, stop, &keep)?),
        }
    }

    /// Has the compiler give the kernel its two-point variant, on the first
    /// batch: the compile stopped by `stop` (or by the compiler's own) with
    /// [`Error::Stopped`] is left to the next batch. Threads of first
    /// batches may compile it at once: the first one stored is kept.
    fn two_points(&self, stop: &Stop) -> Result<(), Error> {
        let (Native::Jit(jit), Some(source)) = (&self.kernel, self.two_points.as_deref()) else {
            return Ok(());
        };
        if source.compiled.get().is_none() {
            let compiler = source.compiler.clone().with_stop(source.compiler.stop().or(stop));
            let compiled = match compiler.compile_two_points(&source.kernel, jit) {
                Err(CodegenError::SelfCheck(failure)) => Err(failure),
                Err(CodegenError::Stopped) => return Err(Error::Stopped),
                Ok(()) | Err(_) => Ok(()),
            };
            let _ = source.compiled.set(compiled);
        }
        match source.compiled.get().expect("set above") {
            Ok(()) => Ok(()),
            Err(failure) => Err(Error::SelfCheck(failure.clone())),
        }
    }

    /// The blocks of `batch` as the kernel's parts: `x` a row per point,
    /// each other block one row for all or a row per point. The points are
    /// counted from `x`, or are `points` for a kernel without inputs.
    fn rows<'b>(&self, batch: Batch<'b>, points: usize) -> Result<[Rows<'b>; 4], Error> {
        let (lengths, blocks) = (self.blocks.lengths(), batch.blocks());
        let points = match lengths[0] {
            0 => points,
            n => blocks[0].len() / n,
        };
        if blocks[0].len() != points * lengths[0] {
            return Err(self.argument(0, lengths[0], blocks[0].len(), Some(points)));
        }
        let mut rows = [Rows::Shared(&[]); 4];
        for (b, (given, len)) in blocks.iter().zip(lengths).enumerate() {
            rows[b] = if b == 0 || (given.len() == points * len && len > 0) {
                Rows::Each(given)
            } else if given.len() == len {
                Rows::Shared(given)
            } else {
                return Err(self.argument(b, len, given.len(), Some(points)));
            };
        }
        Ok(rows)
    }

    /// The output at `args` as one dense matrix per block of the layout:
    /// a row of values, a Jacobian with its zeros, a whole symmetric
    /// Hessian, a row per direction.
    ///
    /// # Errors
    /// As [`eval`](Self::eval).
    pub fn eval_dense(&self, args: Args<'_>) -> Result<Vec<Vec<Vec<f64>>>, Error> {
        let mut out = vec![0.0; self.out_len()];
        self.eval(args, &mut out)?;
        let blocks = self.layout.blocks();
        Ok(blocks.iter().zip(self.layout.split(&out)).map(|(b, values)| b.to_dense(values)).collect())
    }

    /// The error for block `b`, of `found` values where `expected` (per
    /// point, for a batch of `points`) were due.
    fn argument(&self, b: usize, expected: usize, found: usize, points: Option<usize>) -> Error {
        let (name, what) = (ARG_BLOCKS[b].name, ARG_BLOCKS[b].holds);
        let message = match points {
            None => format!("{name} has {found} values; the kernel takes {expected} {what}"),
            Some(_) if b == 0 => format!("{name} has {found} values, not whole rows of {expected} {what}"),
            Some(points) => format!(
                "{name} has {found} values; the kernel takes {expected} {what} for all {points} points, \
                 or a row of {expected} per point"
            ),
        };
        Error::Argument { block: name, message }
    }
}

impl From<JitKernel> for Native {
    fn from(kernel: JitKernel) -> Native {
        Native::Jit(kernel)
    }
}

impl From<ColumnsKernel> for Native {
    fn from(kernel: ColumnsKernel) -> Native {
        Native::Columns(Box::new(kernel))
    }
}

impl From<MappedKernel> for Native {
    fn from(kernel: MappedKernel) -> Native {
        Native::Mapped(kernel)
    }
}
