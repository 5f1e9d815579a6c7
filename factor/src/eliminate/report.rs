//! Every elimination strategy side by side: which one, what it costs, and
//! the Jacobian (or remainder graph) it builds.

use crate::eliminate::accumulate::{finish, Accumulation};
use crate::eliminate::cost::Cost;
use crate::eliminate::edge::{backward_edge, forward_edge};
use crate::eliminate::face::face_elimination;
use crate::eliminate::graph::{is_unit, LinearizedGraph};
use crate::eliminate::metagraph::{optimal_moves, run_moves};
use crate::eliminate::pattern::Pattern;
use crate::eliminate::scarcity::{greedy_moves, randomized_moves, remainder, Anneal, Remainder};
use crate::eliminate::separator::{accumulate_separated, min_cut_separator, natural_separator};
use crate::eliminate::seu::{seu_plan, seu_subgraph_plan};
use crate::eliminate::skip::Skip;
use crate::eliminate::vertex::{eliminate_markowitz, forward_order, optimal_order, reverse_order, run_order};
use frontend::{ExprDag, NodeId, Op};

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

/// One line of `dstar elim`: a strategy and its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyReport {
    /// The strategy's name ([`Elimination::name`]).
    pub name: &'static str,
    /// Multiplications (by nonunit values).
    pub mults: usize,
    /// Additions.
    pub adds: usize,
    /// Nonunit edges left: of the Jacobian, or of the remainder graph for scarcity.
    pub nonunit_edges: usize,
    /// Why the strategy did not run (a size guard); the counts are then zero.
    pub skipped: Option<String>,
}

/// Runs every strategy on the Jacobian of `outputs` with respect to inputs
/// `0..num_inputs`. `seu_optimal` is listed only on single-expression-use
/// graphs; exact strategies over their size guard are listed as skipped.
/// Scarcity lines count the partial elimination and its remainder graph.
pub fn strategies(dag: &ExprDag, outputs: &[NodeId], num_inputs: usize) -> Vec<StrategyReport> {
    let mut dag = dag.clone();
    let graph = LinearizedGraph::new(&mut dag, outputs, num_inputs);
    let mut reports = Vec::new();
    for strategy in Elimination::ALL {
        if strategy == Elimination::SeuOptimal && !graph.is_single_expression_use() {
            continue;
        }
        let report = match costs(&graph, &dag, strategy) {
            Ok((cost, nonunit_edges)) => StrategyReport {
                name: strategy.name(),
                mults: cost.mults,
                adds: cost.adds,
                nonunit_edges,
                skipped: None,
            },
            Err(skip) => StrategyReport {
                name: strategy.name(),
                mults: 0,
                adds: 0,
                nonunit_edges: 0,
                skipped: Some(skip.to_string()),
            },
        };
        reports.push(report);
    }
    reports.push(dstar_report(&dag, outputs, num_inputs));
    reports
}

/// D*'s accumulation counted like the eliminations: the multiplications
/// and additions its entries need beyond the function and the local
/// partials (negations are free, as multiplications by -1 are), and its
/// nonunit entries.
pub fn dstar_report(dag: &ExprDag, outputs: &[NodeId], num_inputs: usize) -> StrategyReport {
    let jacobian = crate::dstar_jacobian(dag.clone(), outputs, num_inputs);
    let mut dag = jacobian.dag.clone();
    // The partials are already in the DAG: this only finds them again.
    let graph = crate::DerivativeGraph::new(&mut dag, outputs, num_inputs);
    let mut given = outputs.to_vec();
    given.extend(graph.edges().iter().map(|e| e.label));
    let given = dag.reachable(&given);
    let needed = dag.reachable(&jacobian.entry_nodes());
    let (mut mults, mut adds) = (0, 0);
    for id in dag.ids().filter(|id| needed[id.index()] && !given[id.index()]) {
        match dag.op(id) {
            Op::Mul | Op::Div => mults += 1,
            Op::Add | Op::Sub => adds += 1,
            _ => {}
        }
    }
    let nonunit_edges = jacobian.entries().iter().filter(|e| !is_unit(&dag, e.node)).count();
    StrategyReport { name: "dstar", mults, adds, nonunit_edges, skipped: None }
}

/// The full accumulation with the fewest multiplications plus additions
/// (earlier in report order on ties). On single-expression-use graphs this
/// includes `seu_optimal`, the best vertex elimination.
pub fn cheapest(dag: &ExprDag, outputs: &[NodeId], num_inputs: usize) -> StrategyReport {
    strategies(dag, outputs, num_inputs)
        .into_iter()
        .filter(|r| {
            r.skipped.is_none() && !Elimination::from_name(r.name).is_some_and(Elimination::is_partial)
        })
        .min_by_key(|r| r.mults + r.adds)
        .expect("the forward vertex elimination always runs")
}

/// The exact vertex optimum competes for the default Jacobian only up to
/// this many intermediates (`2^10` subsets).
pub const DEFAULT_OPTIMAL_VERTEX_LIMIT: usize = 10;

/// Face elimination (on the line graph, slower to plan) competes for the
/// default Jacobian only up to this many edges.
pub const DEFAULT_FACE_EDGE_LIMIT: usize = 1 << 10;

/// The elimination with the fewest multiplications plus additions on
/// `graph` (built in `dag`), with that count, among those that compete with
/// D* for the default Jacobian (earlier in report order on ties): forward
/// and reverse vertex elimination (each unless its sweeps carry over twice
/// the other's components), Markowitz, Naumann's order on SEU graphs
/// and on SEU subgraphs, and on small graphs the exact vertex optimum (up to
/// [`DEFAULT_OPTIMAL_VERTEX_LIMIT`] intermediates) and face elimination (up
/// to [`DEFAULT_FACE_EDGE_LIMIT`] edges). Each plans in about the time D*
/// takes. Left to [`strategies`]: edge elimination (the forward and backward
/// sweeps cost what the vertex orders do), the edge-elimination metagraph
/// (exponential) and the separators (they save memory, not operations).
pub fn cheapest_elimination(graph: &LinearizedGraph, dag: &ExprDag) -> (Elimination, usize) {
    let intermediates = graph.intermediates().count();
    let edges = graph.edges().len();
    // As for D*: an order whose sweeps carry over twice the components of
    // the other's is not worth planning (3 inputs, 625 outputs).
    let (forward, reverse) = graph.sweep_components();
    [
        Elimination::ForwardVertex,
        Elimination::ReverseVertex,
        Elimination::MarkowitzVertex,
        Elimination::OptimalVertex,
        Elimination::Face,
        Elimination::SeuOptimal,
        Elimination::SeuSubgraphs,
    ]
    .into_iter()
    .filter(|&s| match s {
        Elimination::ForwardVertex => forward <= 2 * reverse,
        Elimination::ReverseVertex => reverse <= 2 * forward,
        Elimination::OptimalVertex => intermediates <= DEFAULT_OPTIMAL_VERTEX_LIMIT,
        Elimination::Face => edges <= DEFAULT_FACE_EDGE_LIMIT,
        _ => true,
    })
    .filter_map(|s| costs(graph, dag, s).ok().map(|(cost, _)| (s, cost.mults + cost.adds)))
    .min_by_key(|&(_, ops)| ops)
    .expect("the forward vertex elimination always runs")
}

/// The Jacobian of `outputs` by `strategy`, as nodes of a copy of `dag`. A
/// scarcity strategy finishes its remainder graph by Markowitz elimination;
/// the cost then covers both.
pub fn accumulate(
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    strategy: Elimination,
) -> Result<Accumulation, Skip> {
    let mut dag = dag.clone();
    let graph = LinearizedGraph::new(&mut dag, outputs, num_inputs);
    accumulate_graph(&graph, dag, strategy)
}

/// Like [`accumulate`], on a graph already built in `dag`.
pub fn accumulate_graph(
    graph: &LinearizedGraph,
    dag: ExprDag,
    strategy: Elimination,
) -> Result<Accumulation, Skip> {
    match strategy {
        Elimination::Face => Ok(face_elimination(graph, dag)),
        Elimination::SeparatorMinCut | Elimination::SeparatorNatural => Ok(separated(graph, dag, strategy)),
        _ => {
            let mut pattern = full_pattern(graph, strategy, true)?;
            eliminate_markowitz(&mut pattern, |_| true);
            Ok(finish(graph, dag, &pattern))
        }
    }
}

/// The remainder graph of a scarcity strategy (`None` for a full one).
pub fn scarcity_remainder(
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    strategy: Elimination,
) -> Option<Remainder> {
    let mut dag = dag.clone();
    let graph = LinearizedGraph::new(&mut dag, outputs, num_inputs);
    let moves = scarcity_moves(&graph, strategy)?;
    Some(remainder(&graph, dag, &moves))
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
            let mut pattern = Pattern::new(graph, log);
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

fn scarcity_moves(
    graph: &LinearizedGraph,
    strategy: Elimination,
) -> Option<Vec<crate::eliminate::pattern::Move>> {
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
