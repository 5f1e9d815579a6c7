//! Tangent and adjoint propagation: the forward and reverse sweeps of
//! automatic differentiation, built symbolically as nodes of the function's
//! DAG. [`push_forward`] and [`pull_back`] are the one propagation behind
//! `jvp`, `vjp`, the directions kernel of a scarcity remainder and the
//! forward- and reverse-mode baselines.

use crate::graph::{DerivativeGraph, Marks};
use crate::term::Term;
use frontend::{ExprDag, NodeId};

/// Pushes tangents along `edges` `(tail, head, label)`: `tangent[head] +=
/// label · tangent[tail]`. The edges must come in the order of their heads,
/// every tail computed before its head (ascending heads in a DAG whose ids
/// are topological), so each tangent is complete before it flows on.
pub fn push_forward(
    dag: &mut ExprDag,
    edges: impl IntoIterator<Item = (usize, usize, NodeId)>,
    tangent: &mut [Option<Term>],
) {
    for (tail, head, label) in edges {
        let Some(t) = tangent[tail] else { continue };
        let term = Term::of(dag, label).mul(t, dag);
        tangent[head] = Some(tangent[head].map_or(term, |acc| acc.add(term, dag)));
    }
}

/// Pulls adjoints back along `edges` `(tail, head, label)`: `adjoint[tail]
/// += adjoint[head] · label`. The edges must come in descending order of
/// their heads, so each adjoint is complete before it flows on.
pub fn pull_back(
    dag: &mut ExprDag,
    edges: impl IntoIterator<Item = (usize, usize, NodeId)>,
    adjoint: &mut [Option<Term>],
) {
    for (tail, head, label) in edges {
        let Some(a) = adjoint[head] else { continue };
        let term = a.mul(Term::of(dag, label), dag);
        adjoint[tail] = Some(adjoint[tail].map_or(term, |acc| acc.add(term, dag)));
    }
}

/// Forward sweep: the tangent of every graph node for the given leaf seeds
/// `(input index, tangent)`; `None` is a structural zero.
pub fn tangents(dag: &mut ExprDag, graph: &DerivativeGraph, seeds: &[(usize, Term)]) -> Vec<Option<Term>> {
    let mut tangent = vec![None; graph.node_bound()];
    let mut marks = Marks::new(graph.node_bound());
    let leaves: Vec<(NodeId, Term)> =
        seeds.iter().filter_map(|&(k, seed)| Some((graph.leaf(k)?, seed))).collect();
    sweep_forward(dag, graph, &leaves, &mut tangent, &mut marks);
    tangent
}

/// Reverse sweep: the adjoint of every graph node for the given root seeds
/// `(output index, adjoint)`; `None` is a structural zero.
pub fn adjoints(dag: &mut ExprDag, graph: &DerivativeGraph, seeds: &[(usize, Term)]) -> Vec<Option<Term>> {
    let mut adjoint = vec![None; graph.node_bound()];
    let mut marks = Marks::new(graph.node_bound());
    let roots: Vec<(NodeId, Term)> = seeds
        .iter()
        .map(|&(i, seed)| (graph.roots()[i], seed))
        .filter(|(root, _)| graph.contains(*root))
        .collect();
    sweep_reverse(dag, graph, &roots, &mut adjoint, &mut marks);
    adjoint
}

/// The forward sweep from `leaves` over their up-cone only (the nodes that
/// reach them), so that a sweep costs its cone, not the graph. Writes into
/// `tangent` (cleared beforehand by the caller where it was used) and
/// returns the cone, ascending: the entries it may have set.
pub fn sweep_forward(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    leaves: &[(NodeId, Term)],
    tangent: &mut [Option<Term>],
    marks: &mut Marks,
) -> Vec<NodeId> {
    marks.clear();
    let mut cone: Vec<NodeId> = Vec::new();
    for &(leaf, seed) in leaves {
        let slot = &mut tangent[leaf.index()];
        *slot = Some(slot.map_or(seed, |acc| acc.add(seed, dag)));
        if marks.insert(leaf) {
            cone.push(leaf);
        }
    }
    let mut next = 0;
    while next < cone.len() {
        let v = cone[next];
        next += 1;
        for &id in graph.parent_edges(v) {
            let parent = graph.edge(id).parent;
            if marks.insert(parent) {
                cone.push(parent);
            }
        }
    }
    cone.sort_unstable();
    let edges =
        cone.iter().flat_map(|&v| graph.children(v)).map(|e| (e.child.index(), e.parent.index(), e.label));
    push_forward(dag, edges.collect::<Vec<_>>(), tangent);
    cone
}

/// The reverse sweep from `roots` over their descendants only. Writes into
/// `adjoint` and returns the descendants, descending: the entries it may
/// have set.
pub fn sweep_reverse(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    roots: &[(NodeId, Term)],
    adjoint: &mut [Option<Term>],
    marks: &mut Marks,
) -> Vec<NodeId> {
    marks.clear();
    let mut cone: Vec<NodeId> = Vec::new();
    for &(root, seed) in roots {
        let slot = &mut adjoint[root.index()];
        *slot = Some(slot.map_or(seed, |acc| acc.add(seed, dag)));
        if marks.insert(root) {
            cone.push(root);
        }
    }
    let mut next = 0;
    while next < cone.len() {
        let v = cone[next];
        next += 1;
        for e in graph.children(v) {
            if marks.insert(e.child) {
                cone.push(e.child);
            }
        }
    }
    cone.sort_unstable_by(|a, b| b.cmp(a));
    let edges =
        cone.iter().flat_map(|&v| graph.children(v)).map(|e| (e.child.index(), e.parent.index(), e.label));
    pull_back(dag, edges.collect::<Vec<_>>(), adjoint);
    cone
}

/// The node of a tangent or adjoint, `0` for a structural zero.
pub fn materialize(dag: &mut ExprDag, term: Option<Term>) -> NodeId {
    match term {
        Some(t) => t.materialize(dag),
        None => dag.constant(0.0),
    }
}
