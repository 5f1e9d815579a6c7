//! Every accumulation side by side, as `dstar elim` lists them: each
//! elimination strategy's cost beside D*'s.

use crate::jacobian::dstar_jacobian;
use crate::method::Method;
use crate::plan;
use derivative::DerivativeGraph;
use eliminate::{costs, is_unit, Cost, Elimination, LinearizedGraph, Skip};
use frontend::{Kernel, Op};

/// One line of `dstar elim`: an accumulation and what it costs, or why it
/// was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyReport {
    /// The accumulation; for D*, the variant [`dstar_jacobian`] picked.
    pub method: Method,
    /// Its cost, or the size guard that skipped it.
    pub outcome: Result<Outcome, Skip>,
}

/// What an accumulation costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Multiplications and additions.
    pub cost: Cost,
    /// Nonunit edges left: of the Jacobian, or of the remainder graph for scarcity.
    pub nonunit_edges: usize,
}

/// Runs every strategy on the Jacobian of `function`, then D*. `seu_optimal` is listed only on
/// single-expression-use graphs; strategies over their size guard
/// ([`plan::report_guard`] and their own) are listed as skipped. Scarcity lines count the partial elimination and its
/// remainder graph.
pub fn strategies(function: &Kernel) -> Vec<StrategyReport> {
    let ops = function.count_ops();
    if ops > 2 * plan::REPORT_EDGE_LIMIT {
        // Nearly every operation has an edge: don't build the graph.
        let skip = Skip::TooManyOps { count: ops, limit: 2 * plan::REPORT_EDGE_LIMIT };
        let mut reports: Vec<StrategyReport> = Elimination::ALL
            .into_iter()
            .map(|s| StrategyReport { method: Method::Elimination(s), outcome: Err(skip.clone()) })
            .collect();
        reports.push(dstar_report(function));
        return reports;
    }
    let mut kernel = function.clone();
    let graph = LinearizedGraph::new(&mut kernel);
    let dag = kernel.dag();
    let mut reports = Vec::new();
    for strategy in Elimination::ALL {
        if strategy == Elimination::SeuOptimal && !graph.is_single_expression_use() {
            continue;
        }
        let outcome = plan::report_guard(strategy, &graph)
            .and_then(|()| costs(&graph, dag, strategy))
            .map(|(cost, nonunit_edges)| Outcome { cost, nonunit_edges });
        reports.push(StrategyReport { method: Method::Elimination(strategy), outcome });
    }
    reports.push(dstar_report(function));
    reports
}

/// D*'s accumulation counted like the eliminations: the multiplications
/// and additions its entries need beyond the function and the local
/// partials (negations are free, as multiplications by -1 are; a select
/// counts as the multiplication it stands for, see [`derivative::product()`]),
/// and its nonunit entries.
pub fn dstar_report(function: &Kernel) -> StrategyReport {
    let jacobian = dstar_jacobian(function.clone());
    // The partials are already in the DAG: this only finds them again.
    let mut kernel = jacobian.kernel().clone().with_roots(function.roots().to_vec()).expect("same inputs");
    let graph = DerivativeGraph::new(&mut kernel);
    let dag = kernel.dag();
    let mut given = function.roots().to_vec();
    given.extend(graph.edges().iter().map(|e| e.label));
    let given = dag.reachable(&given);
    let needed = dag.reachable(jacobian.entry_nodes());
    let mut cost = Cost::ZERO;
    for id in dag.ids().filter(|id| needed[id.index()] && !given[id.index()]) {
        match dag.op(id) {
            Op::Mul | Op::Div | Op::Select(_) => cost.mults += 1,
            Op::Add | Op::Sub => cost.adds += 1,
            _ => {}
        }
    }
    let nonunit_edges = jacobian.entry_nodes().iter().filter(|&&node| !is_unit(dag, node)).count();
    StrategyReport { method: jacobian.method(), outcome: Ok(Outcome { cost, nonunit_edges }) }
}

/// The full accumulation with the fewest multiplications plus additions
/// (earlier in report order on ties). On single-expression-use graphs this
/// includes `seu_optimal`, the best vertex elimination.
pub fn cheapest(function: &Kernel) -> StrategyReport {
    strategies(function)
        .into_iter()
        .filter(|r| !matches!(r.method, Method::Elimination(e) if e.is_partial()))
        .filter_map(|r| Some((r.outcome.as_ref().ok()?.cost.total(), r)))
        .min_by_key(|(total, _)| *total)
        .expect("the forward vertex elimination always runs")
        .1
}
