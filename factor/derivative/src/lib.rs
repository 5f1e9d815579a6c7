//! The derivative graph and Guenter's D* factorization: exact Jacobian
//! entries that share work with the function and with each other.
//!
//! [`partials::partials`] labels every argument use with its local partial
//! ([`DerivativeGraph`]); postdominator trees per input and dominator trees
//! per output ([`dominators`]) cut the paths into [`FactorableSubgraph`]s;
//! [`factorize()`] replaces each by one shared reference edge (the sum of its
//! path products) and multiplies along the chains, giving one node per entry
//! in the function's own DAG. [`propagate`] holds the plain forward and
//! reverse sweeps; [`baseline`] counts what they cost. Every accumulation,
//! here and in the eliminations, multiplies and adds partials with
//! [`product()`] and [`sum()`], so that the selector partials of `ifelse`,
//! `min` and `max` select the branch taken instead of multiplying by 0.
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout sin(x*y) + x*x")?;
//! let mut kernel = program.kernel()?;
//! let graph = derivative::DerivativeGraph::new(&mut kernel);
//! let strategy = derivative::Strategy::ALL[0];
//! let entries = derivative::factorize(kernel.dag_mut(), &graph, strategy, &|_, _| true);
//! let nodes: Vec<_> = entries.iter().map(|e| e.node).collect();
//! let values = frontend::eval(kernel.dag(), &nodes, &[1.0, 2.0]);
//! assert_eq!(values, vec![2.0 * 2f64.cos() + 2.0, 2f64.cos()]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod baseline;
pub mod calls;
pub mod dominators;
pub mod edge_pushing;
pub mod factorize;
pub mod graph;
pub mod partials;
pub mod product;
pub mod propagate;
pub mod rules;
pub mod second;
pub mod subgraph;
pub mod sweeps;
pub mod taylor;
pub mod term;

pub use baseline::{forward_mode_ops, reverse_mode_ops};
pub use dominators::{DominatorTree, PostDominatorTree};
pub use edge_pushing::{edge_pushing, EdgePushing, SecondOrder};
pub use factorize::{factorize, factorize_within, Entry, Limits, Orientation, Stopped, Strategy};
pub use graph::{ConeParents, DerivativeGraph, Edge, EdgeId, Marks};
pub use product::{may_be_deselected, product, sum};
pub use subgraph::{FactorableSubgraph, LeafMasks};
pub use sweeps::{exact_sweep_components, sweep_components};
pub use term::Term;
