//! [`Elimination`]: every elimination strategy, what it costs on a graph,
//! and the Jacobian (or remainder graph) it builds.

use crate::accumulate::{finish, Accumulation};
use crate::cost::Cost;
use crate::edge::{backward_edge, forward_edge};
use crate::face::face_elimination;
use crate::graph::LinearizedGraph;
use crate::metagraph::{optimal_moves, run_moves};
use crate::pattern::Pattern;
use crate::scarcity::{greedy_moves, randomized_moves, remainder, Anneal, Remainder};
use crate::separator::{accumulate_separated, min_cut_separator, natural_separator};
use crate::seu::{seu_plan, seu_subgraph_plan};
use crate::skip::Skip;
use crate::vertex::{eliminate_markowitz, forward_order, optimal_order, reverse_order, run_order};
use frontend::{ExprDag, Kernel};

/// An elimination strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elimination {
    /// Vertex elimination in topological order.
    ForwardVertex,
    /// Vertex elimination in reverse topological order.
    ReverseVertex,
    /// Greedy vertex elimination, least Markowitz degree first.
    MarkowitzVertex,
    /// The best vertex elimination order (dynamic programming, size-guarded).
    OptimalVertex,
    /// Front edge elimination sweeping from the inputs.
    ForwardEdge,
    /// Back edge elimination sweeping from the outputs.
    BackwardEdge,
    /// The best edge elimination sequence (metagraph shortest path, size-guarded).
    OptimalEdge,
    /// Greedy face elimination on the line graph.
    Face,
    /// Naumann's optimal vertex elimination of single-expression-use graphs.
    SeuOptimal,
    /// Naumann's optimal order inside every SEU subgraph (the trees of
    /// single-use intermediates), then the rest least Markowitz degree first.
    SeuSubgraphs,
    /// Scarcity: greedy partial elimination minimizing nonunit edges.
    ScarcityGreedy,
    /// Scarcity: Metropolis search.
    ScarcityMetropolis,
    /// Scarcity: hybrid of Metropolis and random walk, with restarts.
    ScarcityHybrid,
    /// Part by part across a minimum-cut directed edge separator.
    SeparatorMinCut,
    /// Part by part across the natural-order edge separator.
    SeparatorNatural,
}

impl Elimination {
    /// Every strategy, in report order.
    pub const ALL: [Elimination; 15] = [
        Elimination::ForwardVertex,
        Elimination::ReverseVertex,
        Elimination::MarkowitzVertex,
        Elimination::OptimalVertex,
        Elimination::ForwardEdge,
        Elimination::BackwardEdge,
        Elimination::OptimalEdge,
        Elimination::Face,
        Elimination::SeuOptimal,
        Elimination::SeuSubgraphs,
        Elimination::ScarcityGreedy,
        Elimination::ScarcityMetropolis,
        Elimination::ScarcityHybrid,
        Elimination::SeparatorMinCut,
        Elimination::SeparatorNatural,
    ];

    /// The report name, `"forward_vertex"` for [`Elimination::ForwardVertex`].
    pub fn name(self) -> &'static str {
        match self {
            Elimination::ForwardVertex => "forward_vertex",
            Elimination::ReverseVertex => "reverse_vertex",
            Elimination::MarkowitzVertex => "markowitz_vertex",
            Elimination::OptimalVertex => "optimal_vertex",
            Elimination::ForwardEdge => "forward_edge",
            Elimination::BackwardEdge => "backward_edge",
            Elimination::OptimalEdge => "optimal_edge",
            Elimination::Face => "face",
            Elimination::SeuOptimal => "seu_optimal",
            Elimination::SeuSubgraphs => "seu_subgraphs",
            Elimination::ScarcityGreedy => "scarcity_greedy",
            Elimination::ScarcityMetropolis => "scarcity_metropolis",
            Elimination::ScarcityHybrid => "scarcity_hybrid",
            Elimination::SeparatorMinCut => "separator_min_cut",
            Elimination::SeparatorNatural => "separator_natural",
        }
    }

    /// The strategy with the given report name.
    pub fn from_name(name: &str) -> Option<Elimination> {
        Elimination::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the strategy stops at a remainder graph (scarcity) rather
    /// than accumulating the whole Jacobian.
    pub fn is_partial(self) -> bool {
        matches!(
            self,
            Elimination::ScarcityGreedy | Elimination::ScarcityMetropolis | Elimination::ScarcityHybrid
        )
    }
}

/// The Jacobian of `function` by `strategy`, as nodes of a copy of its DAG.
/// A scarcity strategy finishes its remainder graph by Markowitz
/// elimination; the cost then covers both.
pub fn accumulate(function: &Kernel, strategy: Elimination) -> Result<Accumulation, Skip> {
    let mut kernel = function.clone();
    let graph = LinearizedGraph::new(&mut kernel);
    accumulate_graph(&graph, kernel.into_parts().0, strategy)
}

/// Like [`accumulate`], on a graph already built in `dag`.
pub fn accumulate_graph(
    graph: &LinearizedGraph,
    dag: ExprDag,
    strategy: Elimination,
) -> Result<Accumulation, Skip> {
    match strategy {
        Elimination::Face => face_elimination(graph, dag),
        Elimination::SeparatorMinCut | Elimination::SeparatorNatural => Ok(separated(graph, dag, strategy)),
        _ => {
            let mut pattern = full_pattern(graph, strategy, true)?;
            eliminate_markowitz(&mut pattern, |_| true);
            Ok(finish(graph, dag, &pattern))
        }
    }
}

/// The remainder graph of `function` left by a scarcity strategy (`None`
/// for a full one).
pub fn scarcity_remainder(function: &Kernel, strategy: Elimination) -> Option<Remainder> {
    let mut kernel = function.clone();
    let graph = LinearizedGraph::new(&mut kernel);
    let moves = scarcity_moves(&graph, strategy)?;
    Some(remainder(&graph, kernel.into_parts().0, &moves, function.num_inputs()))
}

/// The cost and final nonunit edge count of `strategy` on `graph` (built in
/// `dag`), from structure alone where possible.
pub fn costs(graph: &LinearizedGraph, dag: &ExprDag, strategy: Elimination) -> Result<(Cost, usize), Skip> {
    match strategy {
        Elimination::Face | Elimination::SeparatorMinCut | Elimination::SeparatorNatural => {
            let done = accumulate_graph(graph, dag.clone(), strategy)?;
            Ok((done.cost, done.nonunit_edges))
        }
        _ => {
            let pattern = full_pattern(graph, strategy, false)?;
            Ok((pattern.cost(), pattern.nonunit_edges()))
        }
    }
}

/// The pattern after `strategy` (a partial one for scarcity).
fn full_pattern(graph: &LinearizedGraph, strategy: Elimination, log: bool) -> Result<Pattern, Skip> {
    if let Some(moves) = scarcity_moves(graph, strategy) {
        return Ok(run_moves(graph, &moves, log));
    }
    Ok(match strategy {
        Elimination::ForwardVertex => run_order(graph, &forward_order(graph), log),
        Elimination::ReverseVertex => run_order(graph, &reverse_order(graph), log),
        Elimination::MarkowitzVertex => {
            let mut pattern = Pattern::unlisted(graph, log);
            eliminate_markowitz(&mut pattern, |_| true);
            pattern
        }
        Elimination::OptimalVertex => run_order(graph, &optimal_order(graph)?, log),
        Elimination::SeuOptimal => run_order(graph, &seu_plan(graph)?.order, log),
        Elimination::SeuSubgraphs => {
            let mut pattern = run_order(graph, &seu_subgraph_plan(graph)?.order, log);
            eliminate_markowitz(&mut pattern, |_| true);
            pattern
        }
        Elimination::ForwardEdge => forward_edge(graph, log),
        Elimination::BackwardEdge => backward_edge(graph, log),
        Elimination::OptimalEdge => run_moves(graph, &optimal_moves(graph)?, log),
        Elimination::Face
        | Elimination::ScarcityGreedy
        | Elimination::ScarcityMetropolis
        | Elimination::ScarcityHybrid
        | Elimination::SeparatorMinCut
        | Elimination::SeparatorNatural => unreachable!("{strategy:?} has no single pattern"),
    })
}

fn scarcity_moves(graph: &LinearizedGraph, strategy: Elimination) -> Option<Vec<crate::pattern::Move>> {
    match strategy {
        Elimination::ScarcityGreedy => Some(greedy_moves(graph)),
        Elimination::ScarcityMetropolis => Some(randomized_moves(graph, Anneal::METROPOLIS, &[])),
        Elimination::ScarcityHybrid => Some(randomized_moves(graph, Anneal::HYBRID, &greedy_moves(graph))),
        _ => None,
    }
}

fn separated(graph: &LinearizedGraph, dag: ExprDag, strategy: Elimination) -> Accumulation {
    let separator = match strategy {
        Elimination::SeparatorMinCut => min_cut_separator(graph),
        _ => natural_separator(graph),
    };
    match separator {
        Some(separator) => accumulate_separated(graph, dag, &separator).accumulation,
        None => {
            // Nothing to separate: inputs join outputs directly.
            let pattern = Pattern::new(graph, true);
            finish(graph, dag, &pattern)
        }
    }
}
