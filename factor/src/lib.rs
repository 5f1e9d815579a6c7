//! Symbolic derivatives by Guenter's D* algorithm: exact Jacobians whose
//! entries share work with the function and with each other.
//!
//! The pipeline: [`rules::partials`] labels every argument use with its local
//! partial ([`DerivativeGraph`]); postdominator trees per input and dominator
//! trees per output ([`dominators`]) cut the paths into
//! [`FactorableSubgraph`]s; [`factorize()`] replaces each by one shared
//! reference edge (the sum of its path products) and multiplies along the
//! chains, giving a [`Jacobian`] in the function's own DAG. [`hessian()`], [`jvp`], [`vjp`] and [`hvp`] build on the same pieces,
//! and [`forward_mode_ops`] / [`reverse_mode_ops`] are the baselines.
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout sin(x*y) + x*x")?;
//! let jacobian = factor::jacobian(&program);
//! let (values, dense) = jacobian.eval(&[1.0, 2.0]);
//! assert_eq!(values[0], 2f64.sin() + 1.0);
//! assert_eq!(dense[0], vec![2.0 * 2f64.cos() + 2.0, 2f64.cos()]);
//! # Ok::<(), frontend::ParseError>(())
//! ```

pub mod baseline;
pub mod directional;
pub mod dominators;
pub mod eliminate;
pub mod factorize;
pub mod graph;
pub mod hessian;
pub mod jacobian;
pub mod method;
pub mod rules;
pub mod simplify;
pub mod subgraph;
mod sweeps;
pub mod term;

pub use baseline::{forward_mode_ops, reverse_mode_ops};
pub use directional::{hvp, jvp, vjp, Directional};
pub use dominators::{DominatorTree, PostDominatorTree};
pub use factorize::{factorize, Entry, Orientation, Strategy};
pub use graph::{DerivativeGraph, Edge, EdgeId};
pub use hessian::{hessian, Hessian};
pub use jacobian::{dstar_jacobian, jacobian, jacobian_of, jacobian_with, Jacobian};
pub use method::Method;
pub use subgraph::{FactorableSubgraph, LeafMasks};
