//! dstar: a symbolic differentiation compiler.
//!
//! A function given as text (one expression or a straight-line program in the
//! problem format) is parsed into a hash-consed expression DAG
//! ([`frontend`]), differentiated and factored D*-style ([`factor`]), and
//! JIT-compiled into a native kernel ([`backend`]) that computes the function
//! and its Jacobian together.
//!
//! ```
//! let kernel = dstar::compile("in x, y\nout f = sin(x*y) + x^2", &dstar::Options::default())?;
//! let (values, jacobian) = kernel.eval_dense(&[1.0, 2.0])?;
//! assert_eq!(values[0], 2f64.sin() + 1.0);
//! assert!((jacobian[0][0] - (2.0 * 2f64.cos() + 2.0)).abs() < 1e-15);
//! # Ok::<(), dstar::Error>(())
//! ```

mod derive;
mod directions;
mod dot;
mod error;
mod higher;
mod kernel;
mod pipeline;
mod products;
mod second_order;
mod series;
pub mod timing;

/// The stages: Cranelift kernels and C / Rust emission.
pub use backend;
/// The stages: Jacobians, Hessians, directional derivatives, the plan and
/// the elimination strategies.
pub use factor;
/// The stages, for what the facade does not wrap: parsing and the DAG.
pub use frontend;

pub use backend::{check_point, emit_c, emit_rust, JitCompiler, JitKernel, SelfCheckFailure};
pub use derive::{derivative, derivative_n, hessian, jacobian};
pub use directions::{DirectionsKernel, DirectionsPlan};
pub use dot::derivative_graph_dot;
pub use error::Error;
pub use factor::higher::{Budget, HigherError};
pub use factor::Jacobian;
pub use factor::{Hessian, HessianMethod};
pub use frontend::{
    eval, eval_program, parse_expr, parse_expr_with_inputs, parse_program, print_expr, print_program, Block,
    ExprDag, InvalidKernel, Kernel, Layout, NodeId, Op, ParseError, Program, SparsityPattern, Stop,
};
pub use higher::{partial, taylor_polynomial, tidy};
pub use kernel::JacobianKernel;
pub use pipeline::{differentiate, Differentiated, Options};
pub use products::{HvpKernel, VjpKernel};
pub use second_order::HessianKernel;
pub use series::TaylorKernel;

/// Parses a problem file, factors its Jacobian and compiles function and
/// Jacobian into one native kernel.
pub fn compile(source: &str, options: &Options) -> Result<JacobianKernel, Error> {
    let program = frontend::parse_program(source)?;
    compile_program(&program, options)
}

/// [`compile`] for a parsed program. The function's part of the kernel
/// compiles while the Jacobian is simplified ([`JitCompiler::compile_function`]).
pub fn compile_program(program: &Program, options: &Options) -> Result<JacobianKernel, Error> {
    let compiler = options.compiler()?;
    let (differentiated, function) = pipeline::differentiate_alongside(program, options, |jacobian| {
        compiler.compile_function(jacobian.kernel(), jacobian.pattern().num_rows())
    })?;
    JacobianKernel::compile_rest(&differentiated.jacobian, function?, &compiler)
}

/// Reads and parses a problem file; returns its source too, for rendering
/// errors.
pub fn load_program(path: &std::path::Path) -> Result<(String, Program), Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io { path: path.display().to_string(), source: e })?;
    let source = frontend::decode(&bytes)?.to_string();
    let program = parse_program(&source)?;
    Ok((source, program))
}
