//! dstar: a symbolic differentiation compiler.
//!
//! A function given as text (one expression or a straight-line program in the
//! problem format) is parsed into a hash-consed expression DAG
//! ([`frontend`]), differentiated and factored D*-style ([`factor`]), and
//! JIT-compiled into a native kernel ([`backend`]).
//!
//! ```
//! let program = dstar::parse_program("in x, y\nout f = sin(x*y) + x^2")?;
//! let values = dstar::eval_program(&program, &[1.0, 2.0]);
//! assert_eq!(values[0], (2.0f64).sin() + 1.0);
//! # Ok::<(), dstar::Error>(())
//! ```

mod error;

pub use error::Error;
pub use frontend::{
    eval, eval_program, parse_expr, parse_expr_with_inputs, parse_program, print_expr, print_program,
    ExprDag, NodeId, Op, ParseError, Program,
};

/// Reads and parses a problem file.
pub fn load_program(path: &std::path::Path) -> Result<(String, Program), Error> {
    let source =
        std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.display().to_string(), source: e })?;
    let program = parse_program(&source)?;
    Ok((source, program))
}
