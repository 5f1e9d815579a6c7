//! Common subchains by e-graph rewriting: after D*, a Jacobian kernel's
//! product and sum chains are flattened and rebuilt around their most
//! frequent pairs ([`chains`]), then loaded into an [egg] e-graph over our own
//! [`frontend::Op`]s, rewritten under node, iteration and time limits
//! ([`rules`]), and extracted back with a DAG-aware cost ([`extract`]), so
//! shared factors and sums are computed once. The result is kept only if it
//! needs fewer ops than the input.
//!
//! The main types are [`Simplifier`] (limits as `with_*` builders),
//! [`SimplifyReport`] (ops before and after, work spent, and the
//! [`StopReason`]) and
//! [`OpNode`] (the e-node). Rewrites preserve values for finite inputs; see
//! [`rules`] and [`chains`] for the NaN and infinity policy.
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout 3*(2*x*y) + 3*(2*x*y)*x*y")?;
//! let kernel = program.kernel()?;
//! let (rewritten, report) = simplify::Simplifier::new().with_node_limit(10_000).run(&kernel);
//! assert_eq!(report.ops_before, kernel.count_ops());
//! let rewritten = rewritten.expect("the shared product is computed once");
//! assert!(report.ops_after < report.ops_before);
//! assert_eq!(report.ops_after, rewritten.count_ops());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod chains;
pub mod collect;
pub mod convert;
pub mod extract;
pub mod language;
pub mod pairs;
pub mod print_rules;
pub mod rules;
pub mod simplifier;
pub mod tidy;

pub use analysis::ConstantFold;
pub use extract::DagExtractor;
pub use language::OpNode;
pub use simplifier::{Simplifier, SimplifyReport, StopReason, DEFAULT_MAX_OPS, WORK_BASE, WORK_PER_OP};
pub use tidy::{print_cost, Tidier, TidyReport};
