//! A compiled Jacobian: the function's values and its Jacobian from one call.

use crate::Error;
use backend::{FunctionChunks, JitCompiler, JitKernel};
use factor::Jacobian;
use frontend::SparsityPattern;

/// A native kernel computing a function and its Jacobian together.
///
/// Layout of one call's output buffer (`out_len() = m + nnz` doubles): first
/// the `m` function values, then the `nnz` structurally nonzero Jacobian
/// entries in CSR order (see [`SparsityPattern`]).
#[derive(Debug)]
pub struct JacobianKernel {
    kernel: JitKernel,
    pattern: SparsityPattern,
}

impl JacobianKernel {
    /// Compiles `jacobian` (function and entries together).
    pub fn compile(jacobian: &Jacobian, compiler: &JitCompiler) -> Result<JacobianKernel, Error> {
        let kernel = compiler.compile(jacobian.kernel())?;
        Ok(JacobianKernel { kernel, pattern: jacobian.pattern().clone() })
    }

    /// Compiles `jacobian`, whose function `function` holds compiled
    /// already ([`JitCompiler::compile_rest`]).
    pub fn compile_rest(
        jacobian: &Jacobian,
        function: FunctionChunks,
        compiler: &JitCompiler,
    ) -> Result<JacobianKernel, Error> {
        let kernel = compiler.compile_rest(function, jacobian.kernel())?;
        Ok(JacobianKernel { kernel, pattern: jacobian.pattern().clone() })
    }

    /// The sparsity pattern of the Jacobian part of the output.
    pub fn pattern(&self) -> &SparsityPattern {
        &self.pattern
    }

    /// Number of inputs `n`.
    pub fn num_inputs(&self) -> usize {
        self.pattern.num_cols
    }

    /// Number of outputs `m`.
    pub fn num_outputs(&self) -> usize {
        self.pattern.num_rows()
    }

    /// Length of the output buffer: `m + nnz`.
    pub fn out_len(&self) -> usize {
        self.num_outputs() + self.pattern.nnz()
    }

    /// Evaluates at `x` into `out` (layout above); allocates nothing.
    #[inline]
    pub fn eval(&self, x: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.kernel.eval(x, out)?)
    }

    /// Evaluates many points at once, in parallel: `xs` holds one point per
    /// row (`n` values each), `outs` one output buffer per row.
    pub fn eval_batch(&self, xs: &[f64], outs: &mut [f64]) -> Result<(), Error> {
        Ok(self.kernel.eval_batch(xs, outs)?)
    }

    /// The function values and the dense Jacobian at `x`.
    pub fn eval_dense(&self, x: &[f64]) -> Result<(Vec<f64>, Vec<Vec<f64>>), Error> {
        let mut out = vec![0.0; self.out_len()];
        self.eval(x, &mut out)?;
        let m = self.num_outputs();
        Ok((out[..m].to_vec(), self.pattern.to_dense(&out[m..])))
    }

    /// The underlying kernel.
    pub fn kernel(&self) -> &JitKernel {
        &self.kernel
    }
}
