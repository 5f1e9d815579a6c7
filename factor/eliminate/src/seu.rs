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

use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::matching::{hopcroft_karp, min_vertex_cover};
use crate::skip::Skip;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An optimal SEU elimination order and the lower bound it meets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeuPlan {
    /// The intermediates planned, in elimination order.
    pub order: Vec<VertexId>,
    /// `Σ_j c_j`: the multiplications of any vertex elimination are at least
    /// this (counting products with unit edges too), and `order` spends exactly this.
    pub lower_bound: usize,
}

/// Above this many entries in the reach sets, the SEU planner gives up: the
/// sets (and the ordering constraints) can grow quadratically in the
/// vertices of a tree.
pub const SEU_REACH_LIMIT: usize = 1 << 22;

/// The optimal vertex elimination order of an SEU graph.
pub fn seu_plan(graph: &LinearizedGraph) -> Result<SeuPlan, Skip> {
    if !graph.is_single_expression_use() {
        return Err(Skip::NotSingleExpressionUse);
    }
    let tree_members: Vec<bool> = graph.kinds().iter().map(|&k| k == VertexKind::Intermediate).collect();
    plan(graph, &tree_members)
}

/// Optimal orders for the SEU subgraphs of any graph: the intermediates
/// with exactly one successor form trees, each hanging from a root (an
/// output, or an intermediate with several uses) and fed by leaves (inputs,
/// or intermediates with several uses). Eliminating a tree's members sees
/// only the tree, its leaves and its root, exactly like an SEU graph whose
/// inputs are the leaves and whose output is the root, so Naumann's order
/// is optimal for them. The order lists only these members; the rest of the
/// graph is left to another strategy. On an SEU graph it is [`seu_plan`].
pub fn seu_subgraph_plan(graph: &LinearizedGraph) -> Result<SeuPlan, Skip> {
    let mut out_degree = vec![0usize; graph.num_vertices()];
    for e in graph.edges() {
        out_degree[e.from.index()] += 1;
    }
    let tree_members: Vec<bool> = graph
        .vertices()
        .map(|v| graph.kind(v) == VertexKind::Intermediate && out_degree[v.index()] == 1)
        .collect();
    plan(graph, &tree_members)
}

/// The optimal order of the `tree_members` (intermediates with one
/// successor each); every other vertex acts as a leaf (an input) of the
/// trees it feeds.
fn plan(graph: &LinearizedGraph, tree_members: &[bool]) -> Result<SeuPlan, Skip> {
    let n = graph.num_vertices();
    let member = |v: VertexId| tree_members[v.index()];
    let mut preds: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    for e in graph.edges() {
        preds[e.to.index()].push(e.from);
    }
    // The leaves each member reaches within its tree, as sorted vertex
    // indices (ids are topological, so predecessors come first).
    let mut reach: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut reach_size = 0usize;
    for v in graph.vertices().filter(|&v| member(v)) {
        let mut set: Vec<usize> = Vec::new();
        for &p in &preds[v.index()] {
            if member(p) {
                set.extend_from_slice(&reach[p.index()]);
            } else {
                set.push(p.index());
            }
        }
        set.sort_unstable();
        set.dedup();
        reach_size += set.len();
        if reach_size > SEU_REACH_LIMIT {
            return Err(Skip::TooManyReachEntries { limit: SEU_REACH_LIMIT });
        }
        reach[v.index()] = set;
    }
    let mut before: Vec<Vec<VertexId>> = vec![Vec::new(); n]; // before[a] = vertices after a
    let mut in_degree = vec![0usize; n];
    let mut lower_bound = 0;
    let mut constrain = |a: VertexId, b: VertexId, before: &mut Vec<Vec<VertexId>>| {
        before[a.index()].push(b);
        in_degree[b.index()] += 1;
    };
    let mut num_constraints = 0usize;
    for j in graph.vertices().filter(|&v| member(v)) {
        let left = &preds[j.index()];
        let leaves = |p: VertexId| if member(p) { reach[p.index()].clone() } else { vec![p.index()] };
        let mut adjacency: Vec<Vec<usize>> = left.iter().map(|&p| leaves(p)).collect();
        // Number the leaves seen from j densely for the right side.
        let mut right: Vec<usize> = adjacency.concat();
        right.sort_unstable();
        right.dedup();
        for list in &mut adjacency {
            for leaf in list.iter_mut() {
                *leaf = right.binary_search(leaf).expect("listed");
            }
        }
        let matching = hopcroft_karp(&adjacency, right.len());
        lower_bound += matching.size();
        let (cover, _) = min_vertex_cover(&adjacency, &matching);
        for (&p, covered) in left.iter().zip(cover) {
            if !member(p) {
                continue;
            }
            if covered {
                constrain(j, p, &mut before);
                num_constraints += 1;
            } else {
                // The whole in-tree of p goes first, leaving p's leaves as j's predecessors.
                let mut stack = vec![p];
                while let Some(d) = stack.pop() {
                    constrain(d, j, &mut before);
                    num_constraints += 1;
                    stack.extend(preds[d.index()].iter().copied().filter(|&q| member(q)));
                }
            }
        }
        if num_constraints > SEU_REACH_LIMIT {
            return Err(Skip::TooManyReachEntries { limit: SEU_REACH_LIMIT });
        }
    }
    // Kahn's algorithm, lowest id first among the ready vertices.
    let mut ready: BinaryHeap<Reverse<VertexId>> =
        graph.vertices().filter(|&v| member(v) && in_degree[v.index()] == 0).map(Reverse).collect();
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
    let members = tree_members.iter().filter(|&&m| m).count();
    assert_eq!(order.len(), members, "the cut constraints of SEU trees are acyclic");
    Ok(SeuPlan { order, lower_bound })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vertex::{forward_order, order_cost, reverse_order};
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
        let graph = LinearizedGraph::new(&mut frontend::Kernel::new(dag, vec![y], 4).unwrap());
        let plan = seu_plan(&graph).expect("every intermediate has one use");
        let cost = order_cost(&graph, &plan.order);
        assert_eq!(cost.mults, plan.lower_bound);
        assert!(cost <= order_cost(&graph, &forward_order(&graph)));
        assert!(cost <= order_cost(&graph, &reverse_order(&graph)));
    }
}
