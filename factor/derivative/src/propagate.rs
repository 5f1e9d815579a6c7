//! Tangent and adjoint propagation over the derivative graph: the forward
//! and reverse sweeps of automatic differentiation, built symbolically as
//! nodes of the function's DAG.

use crate::graph::DerivativeGraph;
use crate::term::Term;
use frontend::{ExprDag, NodeId};

/// Forward sweep: the tangent of every graph node for the given leaf seeds
/// `(input index, tangent)`; `None` is a structural zero.
pub fn tangents(dag: &mut ExprDag, graph: &DerivativeGraph, seeds: &[(usize, Term)]) -> Vec<Option<Term>> {
    let mut tangent: Vec<Option<Term>> = vec![None; graph.node_bound()];
    for &(k, seed) in seeds {
        if let Some(leaf) = graph.leaf(k) {
            tangent[leaf.index()] = Some(seed);
        }
    }
    for v in (0..graph.node_bound()).map(NodeId::from_index) {
        let mut total: Option<Term> = None;
        for e in graph.children(v) {
            if let Some(t) = tangent[e.child.index()] {
                let term = Term::of(dag, e.label).mul(t, dag);
                total = Some(total.map_or(term, |acc| acc.add(term, dag)));
            }
        }
        if total.is_some() {
            tangent[v.index()] = total;
        }
    }
    tangent
}

/// Reverse sweep: the adjoint of every graph node for the given root seeds
/// `(output index, adjoint)`; `None` is a structural zero.
pub fn adjoints(dag: &mut ExprDag, graph: &DerivativeGraph, seeds: &[(usize, Term)]) -> Vec<Option<Term>> {
    let mut adjoint: Vec<Option<Term>> = vec![None; graph.node_bound()];
    for &(i, seed) in seeds {
        let root = graph.roots()[i];
        if graph.contains(root) {
            let slot = &mut adjoint[root.index()];
            *slot = Some(slot.map_or(seed, |acc| acc.add(seed, dag)));
        }
    }
    for v in (0..graph.node_bound()).rev().map(NodeId::from_index) {
        let Some(a) = adjoint[v.index()] else { continue };
        for e in graph.children(v) {
            let term = a.mul(Term::of(dag, e.label), dag);
            let slot = &mut adjoint[e.child.index()];
            *slot = Some(slot.map_or(term, |acc| acc.add(term, dag)));
        }
    }
    adjoint
}

/// The node of a tangent or adjoint, `0` for a structural zero.
pub fn materialize(dag: &mut ExprDag, term: Option<Term>) -> NodeId {
    match term {
        Some(t) => t.materialize(dag),
        None => dag.constant(0.0),
    }
}
