//! The front end of dstar: parses problem files and expressions into a
//! hash-consed [`ExprDag`], prints DAGs back to text, and interprets them.
//! The language it reads is specified in the repository's `docs/format.md`.
//!
//! The main types are [`Op`] (the one table of operations), [`ExprDag`]
//! (children before parents, so ids are a topological order),
//! [`Program`] (a DAG with named inputs and outputs) and [`Kernel`] (a DAG's
//! outputs over its inputs, what the later stages take). What every stage
//! and front door shares lives here once: the argument blocks of a
//! compiled kernel ([`ARG_BLOCKS`]), the check of a name
//! ([`name::check_name`]) and fresh names ([`fresh`]).
//!
//! ```
//! let program = frontend::parse_program("in x\nout sin(x) * x")?;
//! assert_eq!(program.outputs.len(), 1);
//! let y = frontend::eval_program(&program, &[2.0]);
//! assert_eq!(y[0], 2.0f64.sin() * 2.0);
//! # Ok::<(), frontend::ParseError>(())
//! ```

pub mod args;
pub mod builder;
pub mod call;
pub mod copy;
pub mod dag;
pub mod error;
pub mod eval;
pub mod fresh;
pub mod kernel;
pub mod layout;
pub mod lexer;
pub mod map;
pub mod name;
pub mod named_apart;
pub mod nl;
pub mod op;
pub mod parser;
pub mod portable;
pub mod print;
pub mod program;
pub mod shown;
pub mod source;
pub mod span;
pub mod stop;
pub mod table;
pub mod value;

pub use args::{ArgBlock, ARG_BLOCKS};
pub use builder::{BuildError, Builder, Expr, Operand};
pub use call::{CallOut, Derivative, FunctionDef, FunctionId, Site};
pub use dag::{ExprDag, Node, NodeId};
pub use error::{DidYouMean, ParseError, ParseErrorKind};
pub use eval::{eval, eval_nodes, eval_program};
pub use kernel::{InvalidKernel, Kernel};
pub use layout::{Block, Layout, SparsityPattern};
pub use nl::{parse_nl, NlModel, NlNames};
pub use op::{CSpelling, Cmp, Native, Op, Real, RustSpelling};
pub use parser::{
    parse_expr, parse_expr_at, parse_expr_in, parse_expr_with_inputs, parse_program, reserved, Functions,
};
pub use print::{
    plain_name, print_expr, print_nodes, print_nodes_named, print_program, FunctionNames, Printed,
};
pub use program::{Output, Program, SpanMap};
pub use source::{decode, source_lines};
pub use span::{Pos, Span};
pub use stop::Stop;

/// The text of [`portable`], which the Rust emitter copies into kernels so
/// that they run the interpreter's own code.
pub const PORTABLE_SOURCE: &str = include_str!("portable.rs");
