//! Optimal vertex elimination on single-expression-use (SEU) graphs, where
//! every intermediate has exactly one successor (Naumann, "Optimal vertex
//! elimination in single-expression-use graphs", ACM TOMS 2008).
//!
//! Whenever `j` is eliminated its current predecessors `P_j` cut every path
//! from the inputs to `j`, so `|P_j| ≥ c_j`, the size of a minimum vertex cut
//! between the inputs and `j`, and any order costs at least `Σ_j c_j · 1`
//! multiplications (`|S_j| = 1` stays true under elimination). In an SEU
//! graph the intermediates above `j` form a tree, so vertex-disjoint paths
//! into `j` use distinct predecessors of `j` and distinct inputs: `c_j` is a
//! maximum matching between `j`'s original predecessors and the inputs each
//! one reaches (an input predecessor reaches only itself), and by König a
//! minimum vertex cover of that bipartite graph is a minimum cut. The bound
//! is met by eliminating `j` when its predecessors are exactly such a cover:
//! after the whole in-tree of every uncovered predecessor (whose inputs are
//! then covered), and before every covered intermediate predecessor.

use crate::eliminate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::eliminate::matching::{hopcroft_karp, min_vertex_cover};
use crate::eliminate::skip::Skip;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An optimal SEU elimination order and the lower bound it meets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeuPlan {
    /// The intermediates, in elimination order.
    pub order: Vec<VertexId>,
    /// `Σ_j c_j`: the multiplications of any vertex elimination are at least
    /// this (counting products with unit edges too), and `order` spends exactly this.
    pub lower_bound: usize,
}

/// The optimal vertex elimination order of an SEU graph.
pub fn seu_plan(graph: &LinearizedGraph) -> Result<SeuPlan, Skip> {
    if !graph.is_single_expression_use() {
        return Err(Skip::NotSingleExpressionUse);
    }
    let n = graph.num_vertices();
    let mut preds: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    for e in graph.edges() {
        preds[e.to.index()].push(e.from);
    }
    // Dense numbering of the input vertices for the right side.
    let mut input_slot = vec![usize::MAX; n];
    let mut num_slots = 0;
    for v in graph.vertices() {
        if matches!(graph.kind(v), VertexKind::Input(_)) {
            input_slot[v.index()] = num_slots;
            num_slots += 1;
        }
    }
    // The inputs each vertex reaches, as sorted slot lists (ids are topological).
    let mut reach: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in graph.vertices() {
        let mut set: Vec<usize> = Vec::new();
        for &p in &preds[v.index()] {
            match graph.kind(p) {
                VertexKind::Input(_) => set.push(input_slot[p.index()]),
                _ => set.extend_from_slice(&reach[p.index()]),
            }
        }
        set.sort_unstable();
        set.dedup();
        reach[v.index()] = set;
    }
    let is_intermediate = |v: VertexId| graph.kind(v) == VertexKind::Intermediate;
    let mut before: Vec<Vec<VertexId>> = vec![Vec::new(); n]; // before[a] = vertices after a
    let mut in_degree = vec![0usize; n];
    let mut lower_bound = 0;
    let mut constrain = |a: VertexId, b: VertexId, before: &mut Vec<Vec<VertexId>>| {
        before[a.index()].push(b);
        in_degree[b.index()] += 1;
    };
    for j in graph.intermediates() {
        let left = &preds[j.index()];
        let adjacency: Vec<Vec<usize>> = left
            .iter()
            .map(|&p| if is_intermediate(p) { reach[p.index()].clone() } else { vec![input_slot[p.index()]] })
            .collect();
        let matching = hopcroft_karp(&adjacency, num_slots);
        lower_bound += matching.size();
        let (cover, _) = min_vertex_cover(&adjacency, &matching);
        for (&p, covered) in left.iter().zip(cover) {
            if !is_intermediate(p) {
                continue;
            }
            if covered {
                constrain(j, p, &mut before);
            } else {
                // The whole in-tree of p goes first, leaving p's inputs as j's predecessors.
                let mut stack = vec![p];
                while let Some(d) = stack.pop() {
                    constrain(d, j, &mut before);
                    stack.extend(preds[d.index()].iter().copied().filter(|&q| is_intermediate(q)));
                }
            }
        }
    }
    // Kahn's algorithm, lowest id first among the ready vertices.
    let mut ready: BinaryHeap<Reverse<VertexId>> =
        graph.intermediates().filter(|v| in_degree[v.index()] == 0).map(Reverse).collect();
    let mut order = Vec::new();
    while let Some(Reverse(v)) = ready.pop() {
        order.push(v);
        for &w in &before[v.index()] {
            in_degree[w.index()] -= 1;
            if in_degree[w.index()] == 0 {
                ready.push(Reverse(w));
            }
        }
    }
    assert_eq!(order.len(), graph.intermediates().count(), "the cut constraints of an SEU graph are acyclic");
    Ok(SeuPlan { order, lower_bound })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eliminate::vertex::{forward_order, order_cost, reverse_order};
    use frontend::{ExprDag, Op};

    #[test]
    fn meets_the_bound_where_forward_and_reverse_do_not() {
        // y = sin(a·b) · cos(c·d) · tanh(a·c): forward pays for the merged
        // input sets, reverse for the wide products near the output.
        let mut dag = ExprDag::new();
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| dag.input(k));
        let ab = dag.mul(a, b);
        let cd = dag.mul(c, d);
        let ac = dag.mul(a, c);
        let s = dag.apply(Op::Sin, &[ab]);
        let t = dag.apply(Op::Cos, &[cd]);
        let u = dag.apply(Op::Tanh, &[ac]);
        let st = dag.mul(s, t);
        let y = dag.mul(st, u);
        let graph = LinearizedGraph::new(&mut dag, &[y], 4);
        let plan = seu_plan(&graph).expect("every intermediate has one use");
        let cost = order_cost(&graph, &plan.order);
        assert_eq!(cost.mults, plan.lower_bound);
        assert!(cost <= order_cost(&graph, &forward_order(&graph)));
        assert!(cost <= order_cost(&graph, &reverse_order(&graph)));
    }
}
