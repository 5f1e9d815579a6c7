//! The compiled Taylor series of a function along a direction.

use crate::assembled::Assembled;
use crate::Error;
use backend::JitCompiler;
use factor::higher::Budget;
use frontend::Program;

/// A native kernel computing the Taylor coefficients `0..=k` of
/// `f(x + t·v)` in `t` at one call: coefficient `j` of output `i` is
/// `f_i^(j)(x)[v, …, v] / j!`, built by univariate Taylor propagation
/// (`O(k²)` operations per nonlinear operation of `f`).
///
/// ```
/// let program = dstar::parse_program("in x\nout 1 / (1 - x)")?;
/// let series = dstar::TaylorKernel::compile(&program, 4, &dstar::JitCompiler::new()?)?;
/// let mut out = vec![0.0; series.out_len()];
/// series.eval(&[0.0], &[1.0], &mut out)?; // 1/(1 - t) = 1 + t + t² + …
/// assert_eq!(out, vec![1.0; 5]);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct TaylorKernel {
    kernel: Assembled,
    num_inputs: usize,
    num_outputs: usize,
    order: usize,
}

impl TaylorKernel {
    /// Builds the coefficients up to `order` within the default
    /// [`Budget`] and compiles them.
    ///
    /// # Errors
    /// [`Error::Derivative`] when `order` needs more work than the budget
    /// (the message names the highest order within it) or is past 170.
    pub fn compile(program: &Program, order: u64, compiler: &JitCompiler) -> Result<TaylorKernel, Error> {
        TaylorKernel::compile_within(program, order, &Budget::default(), compiler)
    }

    /// [`TaylorKernel::compile`] within `budget`.
    ///
    /// # Errors
    /// As [`TaylorKernel::compile`].
    pub fn compile_within(
        program: &Program,
        order: u64,
        budget: &Budget,
        compiler: &JitCompiler,
    ) -> Result<TaylorKernel, Error> {
        let (n, m) = (program.inputs.len(), program.outputs.len());
        let series = factor::taylor_series(program.kernel()?, order, budget)?;
        Ok(TaylorKernel {
            kernel: Assembled::new(compiler.compile(&series)?, vec![n, n]),
            num_inputs: n,
            num_outputs: m,
            order: order as usize,
        })
    }

    /// Number of inputs `n`, the length of `x` and of `v`.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of outputs `m`.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// The highest coefficient `k`.
    pub fn order(&self) -> usize {
        self.order
    }

    /// Length of the output: `(k + 1)·m`, coefficient `j` of output `i` at
    /// `j·m + i` (each coefficient a contiguous vector, as ODE Taylor
    /// methods use them).
    pub fn out_len(&self) -> usize {
        self.kernel.out_len()
    }

    /// The coefficients at `x` along `v`; allocates nothing.
    pub fn eval(&self, x: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), Error> {
        self.kernel.eval(&[x, v], out)
    }
}
