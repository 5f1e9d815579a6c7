//! Vertex elimination: eliminating intermediate `j` turns every path
//! `i → j → k` into (or adds it onto) an edge `i → k` at the Markowitz cost
//! `|P_j| · |S_j|` multiplications. Forward, reverse and greedy
//! lowest-Markowitz orders, and the exact best order by dynamic programming
//! over subsets.

use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexId};
use crate::pattern::Pattern;
use crate::skip::Skip;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Exact vertex elimination visits `2^m` subsets: at most this many intermediates.
pub const OPTIMAL_VERTEX_LIMIT: usize = 16;

/// Intermediates in topological order (forward mode's order).
pub fn forward_order(graph: &LinearizedGraph) -> Vec<VertexId> {
    graph.intermediates().collect()
}

/// Intermediates in reverse topological order (reverse mode's order).
pub fn reverse_order(graph: &LinearizedGraph) -> Vec<VertexId> {
    let mut order = forward_order(graph);
    order.reverse();
    order
}

/// The greedy order that always eliminates a vertex of least current
/// Markowitz degree (ties: lowest id).
pub fn markowitz_order(graph: &LinearizedGraph) -> Vec<VertexId> {
    let mut pattern = Pattern::unlisted(graph, false);
    eliminate_markowitz(&mut pattern, |_| true)
}

/// Eliminates the live intermediates that `among` accepts, least Markowitz
/// degree first, and returns the order.
pub(crate) fn eliminate_markowitz(pattern: &mut Pattern, among: impl Fn(VertexId) -> bool) -> Vec<VertexId> {
    let mut heap: BinaryHeap<Reverse<(usize, VertexId)>> = pattern
        .live_intermediates()
        .filter(|&v| among(v))
        .map(|v| Reverse((pattern.markowitz(v), v)))
        .collect();
    let mut order = Vec::new();
    while let Some(Reverse((degree, j))) = heap.pop() {
        // Entries are pushed again whenever a degree changes; stale ones are skipped.
        if !pattern.is_live_intermediate(j) || pattern.markowitz(j) != degree {
            continue;
        }
        let neighbors: Vec<VertexId> =
            pattern.preds(j).keys().chain(pattern.succs(j).keys()).copied().collect();
        pattern.eliminate_vertex(j);
        order.push(j);
        for v in neighbors {
            if pattern.is_live_intermediate(v) && among(v) {
                heap.push(Reverse((pattern.markowitz(v), v)));
            }
        }
    }
    order
}

/// Eliminates the intermediates of `order`, in that order, on a fresh pattern.
pub(crate) fn run_order(graph: &LinearizedGraph, order: &[VertexId], log: bool) -> Pattern {
    let mut pattern = Pattern::unlisted(graph, log);
    for &j in order {
        pattern.eliminate_vertex(j);
    }
    pattern
}

/// The cost of eliminating the vertices in `order`.
pub fn order_cost(graph: &LinearizedGraph, order: &[VertexId]) -> Cost {
    run_order(graph, order, false).cost()
}

/// An elimination order of least [`Cost`] among all `m!` vertex orders, by
/// dynamic programming over the subsets of eliminated intermediates: the
/// graph left after eliminating a set does not depend on the order (edge
/// `i → k` exists iff a path joins them through the set, and is unit iff
/// that path is unique and all unit), so neither does the cost of the next
/// elimination.
pub fn optimal_order(graph: &LinearizedGraph) -> Result<Vec<VertexId>, Skip> {
    let intermediates = forward_order(graph);
    let m = intermediates.len();
    if m > OPTIMAL_VERTEX_LIMIT {
        return Err(Skip::TooManyIntermediates { count: m, limit: OPTIMAL_VERTEX_LIMIT });
    }
    let base = Pattern::unlisted(graph, false);
    let full = (1usize << m) - 1;
    let mut best: Vec<Option<(Cost, u8)>> = vec![None; 1 << m];
    best[0] = Some((Cost::ZERO, 0));
    // Ascending masks visit every subset before its supersets.
    for mask in 0..full {
        let Some((so_far, _)) = best[mask] else { continue };
        let mut pattern = base.clone();
        for (bit, &v) in intermediates.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                pattern.eliminate_vertex(v);
            }
        }
        for (bit, &v) in intermediates.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                continue;
            }
            let cost = so_far + pattern.vertex_cost(v);
            let next = &mut best[mask | (1 << bit)];
            if next.is_none_or(|(c, _)| cost < c) {
                *next = Some((cost, bit as u8));
            }
        }
    }
    let mut order = Vec::with_capacity(m);
    let mut mask = full;
    while mask != 0 {
        let (_, bit) = best[mask].expect("every subset is reachable");
        order.push(intermediates[usize::from(bit)]);
        mask &= !(1 << bit);
    }
    order.reverse();
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::{ExprDag, Op};

    /// `y = x1*sin(x1)/x2`, the worked example of the literature.
    fn example() -> LinearizedGraph {
        let mut dag = ExprDag::new();
        let x1 = dag.input(0);
        let x2 = dag.input(1);
        let s = dag.apply(Op::Sin, &[x1]);
        let p = dag.mul(x1, s);
        let y = dag.div(p, x2);
        LinearizedGraph::new(&mut frontend::Kernel::new(dag, vec![y], 2).unwrap())
    }

    #[test]
    fn orders_cost_as_published() {
        let graph = example();
        assert_eq!(order_cost(&graph, &forward_order(&graph)), Cost { mults: 2, adds: 1 });
        assert_eq!(order_cost(&graph, &reverse_order(&graph)), Cost { mults: 3, adds: 1 });
        let optimal = optimal_order(&graph).expect("small");
        assert_eq!(order_cost(&graph, &optimal), Cost { mults: 2, adds: 1 });
    }

    #[test]
    fn markowitz_never_beats_the_optimum() {
        let graph = example();
        let optimal = order_cost(&graph, &optimal_order(&graph).expect("small"));
        assert!(optimal <= order_cost(&graph, &markowitz_order(&graph)));
    }
}
