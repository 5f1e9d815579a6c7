//! dstar: a symbolic differentiation compiler.
//!
//! A function given as text (one expression or a straight-line program in the
//! problem format) is parsed into a hash-consed expression DAG
//! ([`frontend`]), differentiated and factored D*-style ([`factor`]), and
//! JIT-compiled into a native kernel ([`backend`]) that computes the function
//! and its Jacobian together.
//!
//! A [`Function`] (a program and its [`Options`]) compiles any [`Request`]
//! (values, Jacobian, gradient, Hessian, products, Taylor coefficients) into
//! the one kernel type, [`Compiled`], called with the named argument blocks
//! of [`Args`] or [`Batch`]. [`Function::kernel`] keeps the kernels it
//! compiled in a [`KernelCache`], which the Python package asks; the
//! command line's REPL, whose kernels are of many programs, keys the same
//! cache by its definitions.
//!
//! The facade re-exports the stages and holds the types that tie them
//! together; it decides nothing about derivatives. Which kernel answers a
//! request is `factor`'s ([`factor::build`], beside [`factor::plan`]): the
//! facade asks it, hands the kernel to [`backend`]'s compiler and wraps
//! the result in a [`Compiled`]; [`Function::symbolic`] gives the same
//! kernel uncompiled. It uses no crate past `factor`.
//!
//! ```
//! use dstar::{Args, Options, Request};
//! let kernel = dstar::compile("in x, y\nout f = sin(x*y) + x^2", Request::Jacobian, &Options::default())?;
//! let [values, jacobian] = &kernel.eval_dense(Args::x(&[1.0, 2.0]))?[..] else { unreachable!() };
//! assert_eq!(values[0][0], 2f64.sin() + 1.0);
//! assert!((jacobian[0][0] - (2.0 * 2f64.cos() + 2.0)).abs() < 1e-15);
//! # Ok::<(), dstar::Error>(())
//! ```

mod args;
mod columns;
mod compiled;
mod derive;
mod dot;
mod error;
mod function;
mod higher;
mod kernels;
mod pipeline;
pub mod timing;

/// The stages: Cranelift kernels and C / Rust emission.
pub use backend;
/// The stages: Jacobians, Hessians, directional derivatives, the plan and
/// the elimination strategies.
pub use factor;
/// The stages, for what the facade does not wrap: parsing and the DAG.
pub use frontend;

pub use args::{Args, Batch};
pub use backend::{check_point, emit_c, emit_c_header, emit_rust, JitCompiler, JitKernel, SelfCheckFailure};
pub use columns::ColumnsKernel;
pub use compiled::{Compiled, Native};
pub use derive::{derivative, derivative_n, hessian, jacobian};
pub use dot::derivative_graph_dot;
pub use error::Error;
pub use factor::higher::{Budget, HigherError};
pub use factor::{Blocks, Hessian, HessianMethod, Jacobian, Request};
pub use frontend::{
    eval, eval_program, parse_expr, parse_expr_with_inputs, parse_program, print_expr, print_program, Block,
    ExprDag, InvalidKernel, Kernel, Layout, NodeId, Op, ParseError, Program, SparsityPattern, Stop,
};
pub use function::Function;
pub use higher::{partial, taylor_polynomial, tidy};
pub use kernels::KernelCache;
pub use pipeline::{differentiate, Differentiated, Options};

/// Every Rust example of the README, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

/// Parses a problem file and compiles the kernel of `request`
/// ([`Function::compile`]).
pub fn compile(source: &str, request: Request, options: &Options) -> Result<Compiled, Error> {
    Function::parse(source, options.clone())?.compile(request)
}

/// Reads and parses a problem file; returns its source too, for rendering
/// errors.
pub fn load_program(path: &std::path::Path) -> Result<(String, Program), Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io { path: path.display().to_string(), source: e })?;
    let source = frontend::decode(&bytes)?.to_string();
    let program = parse_program(&source)?;
    Ok((source, program))
}
