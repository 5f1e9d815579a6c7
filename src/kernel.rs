//! A compiled Jacobian: the function's values and its Jacobian from one call.

use crate::Error;
use backend::{JitCompiler, JitKernel};
use factor::Jacobian;

/// The structural sparsity pattern of a Jacobian, in compressed sparse row
/// (CSR) form: the nonzeros of row `i` are at positions
/// `row_offsets[i]..row_offsets[i + 1]`, in columns `cols[k]`, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparsityPattern {
    /// `m + 1` offsets into `cols`.
    pub row_offsets: Vec<usize>,
    /// The column of each nonzero, row by row.
    pub cols: Vec<usize>,
    /// Number of columns (inputs).
    pub num_cols: usize,
}

impl SparsityPattern {
    /// The pattern of a factored Jacobian.
    pub fn of(jacobian: &Jacobian) -> SparsityPattern {
        let (m, n) = jacobian.shape();
        let mut row_offsets = vec![0; m + 1];
        for e in jacobian.entries() {
            row_offsets[e.row + 1] += 1;
        }
        for i in 0..m {
            row_offsets[i + 1] += row_offsets[i];
        }
        let cols = jacobian.entries().iter().map(|e| e.col).collect();
        SparsityPattern { row_offsets, cols, num_cols: n }
    }

    /// Number of rows (outputs).
    pub fn num_rows(&self) -> usize {
        self.row_offsets.len() - 1
    }

    /// Number of structural nonzeros.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// Scatters CSR `values` into a dense `m × n` matrix (zeros elsewhere).
    pub fn to_dense(&self, values: &[f64]) -> Vec<Vec<f64>> {
        let mut dense = vec![vec![0.0; self.num_cols]; self.num_rows()];
        for (i, row) in dense.iter_mut().enumerate() {
            for k in self.row_offsets[i]..self.row_offsets[i + 1] {
                row[self.cols[k]] = values[k];
            }
        }
        dense
    }
}

/// A native kernel computing a function and its Jacobian together.
///
/// Layout of one call's output buffer (`out_len() = m + nnz` doubles): first
/// the `m` function values, then the `nnz` structurally nonzero Jacobian
/// entries in CSR order (see [`SparsityPattern`]).
pub struct JacobianKernel {
    kernel: JitKernel,
    pattern: SparsityPattern,
}

impl JacobianKernel {
    /// Compiles `jacobian` (function and entries together).
    pub fn compile(jacobian: &Jacobian, compiler: &JitCompiler) -> Result<JacobianKernel, Error> {
        let (_, n) = jacobian.shape();
        let kernel = compiler.compile(&jacobian.dag, &jacobian.kernel_roots(), n)?;
        Ok(JacobianKernel { kernel, pattern: SparsityPattern::of(jacobian) })
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
