//! Jacobian accumulation by elimination on the linearized computational
//! graph: the strategies of the automatic-differentiation literature (vertex,
//! edge and face elimination, exact optima for small graphs, Naumann's
//! optimal order on single-expression-use graphs, scarcity-preserving partial
//! elimination and directed edge separators) side by side with D*.
//!
//! The main types are [`LinearizedGraph`] (vertices and local partials from
//! [`derivative::partials::partials`]), [`Accumulation`] (a Jacobian as nodes of the
//! [`frontend::ExprDag`] with its exact [`Cost`]) and [`Elimination`] (each
//! strategy, run by [`costs`] and [`accumulate()`]).
//!
//! ```
//! let program = frontend::parse_program("in x1, x2\nout x1*sin(x1)/x2")?;
//! let mut kernel = program.kernel()?;
//! let graph = eliminate::LinearizedGraph::new(&mut kernel);
//! let (cost, _) = eliminate::costs(&graph, kernel.dag(), eliminate::Elimination::OptimalEdge).expect("small");
//! assert_eq!((cost.mults, cost.adds), (2, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accumulate;
pub mod cost;
mod edge;
pub mod elimination;
pub mod face;
pub mod graph;
pub mod matching;
pub mod metagraph;
mod neighbours;
mod pattern;
pub mod rng;
pub mod scarcity;
pub mod separator;
pub mod seu;
pub mod skip;
pub mod vertex;

pub use accumulate::Accumulation;
pub use cost::Cost;
pub use elimination::{accumulate, accumulate_graph, costs, scarcity_remainder, Elimination};
pub use graph::{is_unit, LinearizedEdge, LinearizedGraph, VertexId, VertexKind};
pub use scarcity::{Anneal, Remainder};
pub use separator::{
    accumulate_separated, min_cut_separator, natural_separator, SeparatedAccumulation, Separator,
};
pub use seu::{seu_plan, seu_subgraph_plan, SeuPlan};
pub use skip::Skip;
