//! Compiled products with batches of directions: `wᵀJ` (reverse sweeps;
//! the gradient when `m = 1`) and `H·v` of the Lagrangian (forward over
//! reverse). `J·v` is [`crate::DirectionsKernel`].

use crate::Error;
use backend::{JitCompiler, JitKernel};
use frontend::Program;

/// A native kernel computing `w_dᵀJ` for `k` weight vectors at a point:
/// `k` reverse sweeps, `J` never formed. With one output and `w = [1]` it is
/// the gradient.
///
/// ```
/// let program = dstar::parse_program("in x, y\nout x*y\nout x + y")?;
/// let vjp = dstar::VjpKernel::compile(&program, 2, &dstar::JitCompiler::new()?)?;
/// let mut out = vec![0.0; vjp.out_len()]; // w1ᵀJ, then w2ᵀJ
/// vjp.eval(&[2.0, 3.0], &[1.0, 0.0, /* w2 */ 1.0, 1.0], &mut out)?;
/// assert_eq!(out, vec![3.0, 2.0, 4.0, 3.0]);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct VjpKernel {
    kernel: JitKernel,
    num_inputs: usize,
    num_outputs: usize,
    num_directions: usize,
}

impl VjpKernel {
    /// Builds `k` reverse sweeps over `program` and compiles them.
    pub fn compile(program: &Program, k: usize, compiler: &JitCompiler) -> Result<VjpKernel, Error> {
        let (n, m) = (program.inputs.len(), program.outputs.len());
        let kernel = factor::vjp(program.kernel()?, k);
        Ok(VjpKernel {
            kernel: compiler.compile_parts(&kernel, &[n, k * m])?,
            num_inputs: n,
            num_outputs: m,
            num_directions: k,
        })
    }

    /// Number of inputs `n`.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of outputs `m`, the length of each weight vector.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// Number of weight vectors `k` per call.
    pub fn num_directions(&self) -> usize {
        self.num_directions
    }

    /// Length of the output: `k·n`.
    pub fn out_len(&self) -> usize {
        self.kernel.num_outputs()
    }

    /// `w_1ᵀJ, ..., w_kᵀJ` at `x`, the weights `w` given one after another
    /// (`k·m` values); allocates nothing.
    #[inline]
    pub fn eval(&self, x: &[f64], w: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.kernel.eval_parts(&[x, w], out)?)
    }
}

/// A native kernel computing `H·v_d` for `k` directions, `H` the Hessian of
/// the Lagrangian `Σ_i w_i f_i` at `x`: tangent sweeps over the symbolic
/// gradient (forward over reverse), `H` never formed.
///
/// ```
/// let program = dstar::parse_program("in x, y\nout x*x*y")?;
/// let hv = dstar::HvpKernel::compile(&program, 1, &dstar::JitCompiler::new()?)?;
/// let mut out = vec![0.0; hv.out_len()];
/// // H = [[2y, 2x], [2x, 0]] at (1, 2), times v = (1, 1).
/// hv.eval(&[1.0, 2.0], &[1.0], &[1.0, 1.0], &mut out)?;
/// assert_eq!(out, vec![6.0, 2.0]);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct HvpKernel {
    kernel: JitKernel,
    num_inputs: usize,
    num_outputs: usize,
    num_directions: usize,
}

impl HvpKernel {
    /// Builds `k` Hessian-vector products over `program` and compiles them.
    pub fn compile(program: &Program, k: usize, compiler: &JitCompiler) -> Result<HvpKernel, Error> {
        let (n, m) = (program.inputs.len(), program.outputs.len());
        let kernel = factor::hvp(program.kernel()?, k);
        Ok(HvpKernel {
            kernel: compiler.compile_parts(&kernel, &[n, m, k * n])?,
            num_inputs: n,
            num_outputs: m,
            num_directions: k,
        })
    }

    /// Number of inputs `n`, the length of `x` and of each direction.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of outputs `m`, the length of `w`.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// Number of directions `k` per call.
    pub fn num_directions(&self) -> usize {
        self.num_directions
    }

    /// Length of the output: `k·n`.
    pub fn out_len(&self) -> usize {
        self.kernel.num_outputs()
    }

    /// `H·v_1, ..., H·v_k` at `x` with weights `w`, the directions given one
    /// after another (`k·n` values); allocates nothing.
    #[inline]
    pub fn eval(&self, x: &[f64], w: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.kernel.eval_parts(&[x, w, v], out)?)
    }
}
