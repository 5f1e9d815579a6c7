//! [`ColumnsKernel`]: a Lagrangian Hessian by columns ([`factor::columns`])
//! compiled: its `H·V` kernel, called per block of columns by the same loop
//! the interpreter runs ([`Columns::run`]), so the two agree bit for bit
//! wherever the compiled `H·V` kernel agrees with the interpreter.

use backend::{check_parts, eval_each_point, JitCompiler, JitKernel, KernelError, Rows};
use factor::columns::Columns;
use factor::Request;
use frontend::Stop;
use std::cell::RefCell;

/// A Hessian by columns: a compiled `H·V` kernel and the loop over the
/// columns. Its input parts are the Hessian's (`x`, `p`, `w`, and no
/// directions); its output is the lower triangle's nonzeros.
#[derive(Debug)]
pub struct ColumnsKernel {
    columns: Columns,
    hvp: JitKernel,
    part_lengths: [usize; 4],
}

thread_local! {
    /// Per-thread buffers: the unit directions and the products.
    static BUFFERS: RefCell<[Vec<f64>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

impl ColumnsKernel {
    /// Compiles `columns`' `H·V` kernel by `compiler`, for a function of
    /// `n` inputs, `q` parameters and `m` outputs.
    ///
    /// # Errors
    /// The compiler's ([`JitCompiler::compile_parts`]).
    pub fn compile(
        compiler: &JitCompiler,
        columns: Columns,
        [n, q, m]: [usize; 3],
    ) -> Result<ColumnsKernel, backend::CodegenError> {
        let lengths = Request::Hvp(columns.directions()).blocks(n, q, m).lengths();
        let hvp = compiler.compile_parts(columns.hvp(), &lengths)?;
        Ok(ColumnsKernel { columns, hvp, part_lengths: [n, q, m, 0] })
    }

    /// The lengths of the input parts: `x`, `p`, `w`, and no directions.
    pub fn part_lengths(&self) -> &[usize] {
        &self.part_lengths
    }

    /// The length of the output: the lower triangle's nonzeros.
    pub fn num_outputs(&self) -> usize {
        self.columns.nnz()
    }

    /// The compiled `H·V` kernel.
    pub fn hvp(&self) -> &JitKernel {
        &self.hvp
    }

    /// Computes the lower triangle into `out` from the input parts.
    ///
    /// # Errors
    /// As [`backend::check_parts`]; `out` is then left untouched.
    pub fn eval_parts(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), KernelError> {
        check_parts(&self.part_lengths, parts, self.num_outputs(), out.len())?;
        BUFFERS.with(|buffers| {
            let [directions, products] = &mut *buffers.borrow_mut();
            self.columns.run(directions, products, out, |directions, products| {
                let given = [parts[0], parts[1], parts[2], directions];
                self.hvp.eval_parts(&given, products).expect("the lengths of the H·V kernel's parts");
            });
        });
        Ok(())
    }

    /// Evaluates many points in parallel, one at a time each
    /// ([`backend::eval_each_point`]).
    ///
    /// # Errors
    /// As [`eval_parts`](Self::eval_parts); [`KernelError::Stopped`] if
    /// `stop` was requested.
    pub fn eval_batch_parts_keep(
        &self,
        parts: &[Rows<'_>],
        rows: &mut [f64],
        row_len: usize,
        stop: &Stop,
        keep: &(dyn Fn(&[f64], &mut [f64]) + Sync),
    ) -> Result<(), KernelError> {
        let eval = |point: &[&[f64]], out: &mut [f64]| self.eval_parts(point, out);
        eval_each_point(parts, &self.part_lengths, self.num_outputs(), rows, row_len, stop, keep, eval)
    }
}
