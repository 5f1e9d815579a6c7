//! J·V for a batch of directions through a scarcity remainder graph: the
//! partial elimination that leaves the fewest nonunit edges (the hybrid
//! heuristic of `factor::eliminate`), compiled so that each direction costs
//! one multiplication per nonunit edge.

use crate::Error;
use backend::{JitCompiler, JitKernel};
use eliminate::{scarcity_remainder, Elimination, Remainder};
use frontend::Program;

/// A function's scarcity remainder graph, searched for once: the
/// [`DirectionsKernel`]s of every width compile from it. The randomized
/// search is most of a J·V kernel's set-up (3.7 s of a 1e5-operation
/// function's), so callers that compile several widths keep one of these.
///
/// ```
/// let program = dstar::parse_program("in x, y\nout sin(x*y)\nout x*y*y")?;
/// let directions = dstar::DirectionsPlan::new(&program)?;
/// let compiler = dstar::JitCompiler::new()?;
/// let (one, four) = (directions.compile(1, &compiler)?, directions.compile(4, &compiler)?);
/// assert_eq!((one.num_directions(), four.num_directions()), (1, 4));
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct DirectionsPlan {
    remainder: Remainder,
    num_inputs: usize,
}

impl DirectionsPlan {
    /// Eliminates `program`'s graph down to its scarcest remainder (the
    /// hybrid heuristic; deterministic: its randomness is seeded).
    ///
    /// # Errors
    /// [`Error::InvalidKernel`] for a hand-built program whose outputs read
    /// an input it does not declare.
    pub fn new(program: &Program) -> Result<DirectionsPlan, Error> {
        let remainder = scarcity_remainder(&program.kernel()?, Elimination::ScarcityHybrid)
            .expect("scarcity_hybrid is a partial elimination");
        Ok(DirectionsPlan { remainder, num_inputs: program.inputs.len() })
    }

    /// Nonunit edges of the remainder: the multiplications each direction costs.
    pub fn nonunit_edges(&self) -> usize {
        self.remainder.nonunit_edges()
    }

    /// The J·V kernel for `num_directions` directions per call.
    ///
    /// # Errors
    /// Cranelift's own failures.
    pub fn compile(&self, num_directions: usize, compiler: &JitCompiler) -> Result<DirectionsKernel, Error> {
        let kernel = compiler.compile(&self.remainder.directions_kernel(num_directions))?;
        Ok(DirectionsKernel {
            kernel,
            num_inputs: self.num_inputs,
            num_outputs: self.remainder.num_outputs(),
            num_directions,
            nonunit_edges: self.remainder.nonunit_edges(),
        })
    }
}

/// A native kernel computing `J·v` for `k` directions `v` at a point `x`,
/// without forming `J`.
///
/// Input layout (`input_len() = n + k·n` doubles): `x`, then the directions
/// one after another. Output layout (`out_len() = k·m`): the products, one
/// after another.
///
/// ```
/// let program = dstar::parse_program("in x, y\nout sin(x*y)\nout x*y*y")?;
/// let jv = dstar::DirectionsKernel::compile(&program, 2, &dstar::JitCompiler::new()?)?;
/// let mut out = vec![0.0; jv.out_len()]; // J·v1, then J·v2
/// jv.eval(&[1.0, 2.0, /* v1 */ 1.0, 0.0, /* v2 */ 0.0, 1.0], &mut out)?;
/// // J = [[y cos(xy), x cos(xy)], [y², 2xy]] at (1, 2).
/// assert!((out[0] - 2.0 * 2f64.cos()).abs() < 1e-15 && out[1] == 4.0);
/// assert!((out[2] - 2f64.cos()).abs() < 1e-15 && out[3] == 4.0);
/// # Ok::<(), dstar::Error>(())
/// ```
#[derive(Debug)]
pub struct DirectionsKernel {
    kernel: JitKernel,
    num_inputs: usize,
    num_outputs: usize,
    num_directions: usize,
    nonunit_edges: usize,
}

impl DirectionsKernel {
    /// Eliminates `program`'s graph down to its scarcest remainder and
    /// compiles the products with `num_directions` directions (for several
    /// widths, [`DirectionsPlan`] searches once).
    pub fn compile(
        program: &Program,
        num_directions: usize,
        compiler: &JitCompiler,
    ) -> Result<DirectionsKernel, Error> {
        DirectionsPlan::new(program)?.compile(num_directions, compiler)
    }

    /// Number of inputs `n`.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of outputs `m`.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// Number of directions `k` per call.
    pub fn num_directions(&self) -> usize {
        self.num_directions
    }

    /// Nonunit edges of the remainder graph: the multiplications each
    /// direction costs.
    pub fn nonunit_edges(&self) -> usize {
        self.nonunit_edges
    }

    /// Length of the input buffer: `n + k·n`.
    pub fn input_len(&self) -> usize {
        self.num_inputs * (1 + self.num_directions)
    }

    /// Length of the output buffer: `k·m`.
    pub fn out_len(&self) -> usize {
        self.num_outputs * self.num_directions
    }

    /// Evaluates the products (layouts above); allocates nothing.
    pub fn eval(&self, input: &[f64], out: &mut [f64]) -> Result<(), Error> {
        Ok(self.kernel.eval(input, out)?)
    }
}
