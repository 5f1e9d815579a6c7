//! Compiled second-order kernels for optimizers: the sparse lower triangle
//! of the Hessian of the Lagrangian, and with it the values and the
//! gradient, as an interior-point solver such as IPOPT asks for them.

use crate::Error;
use backend::{JitCompiler, JitKernel};
use factor::{Hessian, HessianMethod};
use frontend::{Program, SparsityPattern};

/// A native kernel for the Hessian of the Lagrangian `L = Σ_i w_i f_i(x)`
/// of a function's `m` outputs (output 1 an objective, the rest
/// constraints, say), each call taking the point `x` and the weights `w`.
///
/// [`HessianKernel::eval`] writes the nonzero entries on or below the
/// diagonal in CSR order ([`HessianKernel::pattern`], the union over the
/// outputs, found symbolically; each symmetric entry computed once);
/// [`HessianKernel::eval_all`] writes the values and the gradient `wᵀJ` in
/// the same call.
///
/// ```
/// let program = dstar::parse_program("in x, y\nout f = x*x*y\nout g = sin(x) + y")?;
/// let h = dstar::HessianKernel::compile(&program, &dstar::JitCompiler::new()?)?;
/// // Lower triangle of w0·[[2y, 2x], [2x, 0]] + w1·[[-sin x, 0], [0, 0]].
/// assert_eq!(h.pattern().positions().collect::<Vec<_>>(), vec![(0, 0), (1, 0)]);
/// let mut out = vec![0.0; h.nnz()];
/// h.eval(&[0.5, 3.0], &[1.0, 2.0], &mut out)?;
/// assert_eq!(out, vec![6.0 - 2.0 * 0.5f64.sin(), 1.0]);
/// assert_eq!(h.eval_dense(&[0.5, 3.0], &[1.0, 2.0])?[0][1], 1.0);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct HessianKernel {
    lower: JitKernel,
    all: JitKernel,
    gradient: SparsityPattern,
    pattern: SparsityPattern,
    num_outputs: usize,
    method: HessianMethod,
    ops: usize,
}

impl HessianKernel {
    /// Builds the Lagrangian Hessian of `program` by the cheapest
    /// accumulation and compiles it.
    pub fn compile(program: &Program, compiler: &JitCompiler) -> Result<HessianKernel, Error> {
        HessianKernel::from_hessian(&factor::lagrangian_hessian(program.kernel()?), compiler)
    }

    /// Compiles a Lagrangian Hessian already built ([`factor::lagrangian_hessian`]).
    pub fn from_hessian(hessian: &Hessian, compiler: &JitCompiler) -> Result<HessianKernel, Error> {
        let (n, m) = (hessian.num_variables(), hessian.num_outputs());
        let lengths = [n, m];
        let lower_kernel = hessian.lower_kernel();
        Ok(HessianKernel {
            lower: compiler.compile_parts(&lower_kernel, &lengths)?,
            all: compiler.compile_parts(hessian.kernel(), &lengths)?,
            gradient: hessian.gradient_pattern().clone(),
            pattern: hessian.lower_pattern().clone(),
            num_outputs: m,
            method: hessian.method(),
            ops: hessian.hessian_ops(),
        })
    }

    /// Number of variables `n`, the length of `x`.
    pub fn num_inputs(&self) -> usize {
        self.pattern.num_cols
    }

    /// Number of outputs `m`, the length of `w`.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// The pattern of the lower triangle (`row >= col`), CSR.
    pub fn pattern(&self) -> &SparsityPattern {
        &self.pattern
    }

    /// The pattern of the gradient `wᵀJ`, one row.
    pub fn gradient_pattern(&self) -> &SparsityPattern {
        &self.gradient
    }

    /// Number of stored entries: the lower triangle's nonzeros.
    pub fn nnz(&self) -> usize {
        self.pattern.nnz()
    }

    /// Which accumulation built the Hessian.
    pub fn method(&self) -> HessianMethod {
        self.method
    }

    /// Operations of one Hessian call ([`HessianKernel::eval`]).
    pub fn ops(&self) -> usize {
        self.ops
    }

    /// The lower triangle's nonzeros at `x` with weights `w` into `out`
    /// (length [`HessianKernel::nnz`]); allocates nothing.
    #[inline]
    pub fn eval(&self, x: &[f64], w: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.lower.eval_parts(&[x, w], out)?)
    }

    /// The values (`m`), the gradient `wᵀJ`'s nonzeros
    /// ([`HessianKernel::gradient_pattern`]) and the Hessian's lower
    /// triangle, one after another, into `out` (length
    /// [`HessianKernel::all_len`]).
    #[inline]
    pub fn eval_all(&self, x: &[f64], w: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.all.eval_parts(&[x, w], out)?)
    }

    /// Length of [`HessianKernel::eval_all`]'s output.
    pub fn all_len(&self) -> usize {
        self.all.num_outputs()
    }

    /// The dense symmetric Hessian of the Lagrangian at `x`, both triangles.
    pub fn eval_dense(&self, x: &[f64], w: &[f64]) -> Result<Vec<Vec<f64>>, Error> {
        let mut out = vec![0.0; self.nnz()];
        self.eval(x, w, &mut out)?;
        Ok(frontend::Block::Lower(self.pattern.clone()).to_dense(&out))
    }
}
