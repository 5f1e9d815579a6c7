//! Edge pushing (Gower & Mello 2012): the Hessian of a weighted sum of
//! outputs in one reverse sweep, built symbolically.
//!
//! The sweep carries, besides each node's adjoint `ā`, a symmetric matrix
//! `W` over the nodes not yet eliminated: the second-order part of the
//! function of those nodes. Eliminating node `v` (outputs first, in
//! descending id order) substitutes `δv = Σ_j ∂v/∂j δj` into `W`
//! ("pushing") and adds `ā_v ∇²v` ("creating"); once only inputs remain,
//! `W` is the Hessian. Each symmetric entry is stored and built once, and
//! only entries that some path makes nonzero ever exist, so the Hessian's
//! sparsity comes out of the sweep itself, never from coloring.

use crate::graph::{DerivativeGraph, Marks};
use crate::second::local_derivatives;
use crate::term::Term;
use frontend::{ExprDag, NodeId};

/// The gradient and the lower triangle of the Hessian of `Σ seeds`, as
/// terms in `dag`.
#[derive(Debug)]
pub struct SecondOrder {
    /// `(k, ∂L/∂x_k)` for each input `k` of the graph, ascending,
    /// structural zeros left out.
    pub gradient: Vec<(usize, Term)>,
    /// `((row, col), ∂²L/∂x_row∂x_col)` for `row >= col`, structural zeros
    /// left out, in CSR order.
    pub lower: Vec<((usize, usize), Term)>,
    /// Entries pushed or created in `W` on the way: the sweep's work.
    pub work: u64,
    /// Nodes the sweep went over.
    pub visited: u64,
}

/// The gradient and Hessian of `L = Σ_i seed_i · root_i` over `graph`'s
/// roots (seeds `(root index, weight term)`), by edge pushing.
pub fn edge_pushing(dag: &mut ExprDag, graph: &DerivativeGraph, seeds: &[(usize, Term)]) -> SecondOrder {
    let order: Vec<NodeId> =
        (0..graph.node_bound()).rev().map(NodeId::from_index).filter(|&v| graph.contains(v)).collect();
    EdgePushing::new(graph).sweep(dag, seeds, &order)
}

/// Edge pushing over one graph, sweep after sweep: the per-node state is
/// allocated once and each sweep resets only what it touched, so that one
/// root's Hessian ([`EdgePushing::root`]) costs its cone, not the graph
/// (4,000 outputs of a multiple-shooting problem, each on its own, took
/// 4,000 passes over every node).
#[derive(Debug)]
pub struct EdgePushing<'g> {
    graph: &'g DerivativeGraph,
    adjoint: Vec<Option<Term>>,
    /// W's entries keyed by the node of the pair eliminated first (the
    /// larger intermediate; leaves last): `pending[a]` holds `(b, w)`,
    /// repeated keys summed when `a` is eliminated.
    pending: Vec<Vec<(NodeId, Term)>>,
    leaf_index: Vec<Option<usize>>,
    marks: Marks,
}

impl<'g> EdgePushing<'g> {
    /// Sweeps over `graph`.
    pub fn new(graph: &'g DerivativeGraph) -> EdgePushing<'g> {
        let bound = graph.node_bound();
        EdgePushing {
            graph,
            adjoint: vec![None; bound],
            pending: vec![Vec::new(); bound],
            leaf_index: graph.leaf_inputs(),
            marks: Marks::new(bound),
        }
    }

    /// The gradient and Hessian of `seed · root_i`, in time proportional
    /// to root `i`'s cone (its descendants in the graph) and its entries.
    pub fn root(&mut self, dag: &mut ExprDag, i: usize, seed: Term) -> SecondOrder {
        let order = self.graph.descendants(self.graph.roots()[i], &mut self.marks);
        self.sweep(dag, &[(i, seed)], &order)
    }

    /// The sweep over `order`: the nodes the seeded roots reach (or more),
    /// in descending id order.
    fn sweep(&mut self, dag: &mut ExprDag, seeds: &[(usize, Term)], order: &[NodeId]) -> SecondOrder {
        let graph = self.graph;
        let (adjoint, pending, leaf_index) = (&mut self.adjoint, &mut self.pending, &self.leaf_index);
        for &(i, seed) in seeds {
            let root = graph.roots()[i];
            if graph.contains(root) {
                let slot = &mut adjoint[root.index()];
                *slot = Some(slot.map_or(seed, |acc| acc.add(seed, dag)));
            }
        }
        let mut work = 0u64;
        for &v in order {
            if leaf_index[v.index()].is_some() {
                continue;
            }
            let entries = merge(dag, std::mem::take(&mut pending[v.index()]));
            let a = adjoint[v.index()].take();
            if entries.is_empty() && a.is_none() {
                continue;
            }
            let local = local_derivatives(dag, graph, v);
            let mut add = |p: NodeId, q: NodeId, t: Term| {
                work += 1;
                // Under the node the sweep eliminates first: the later
                // intermediate; leaves are never eliminated, so they come last
                // whatever their ids (an input may be created after the
                // intermediates that do not read it, as in `x*x*y`).
                let rank = |n: NodeId| (leaf_index[n.index()].is_none(), n);
                let (hi, lo) = if rank(p) >= rank(q) { (p, q) } else { (q, p) };
                pending[hi.index()].push((lo, t));
            };
            // Pushing: substitute δv = Σ_j d_j δj into W's row v.
            for &(u, w) in &entries {
                if u == v {
                    for (j, &dj) in local.first.iter().enumerate() {
                        for (k, &dk) in local.first.iter().enumerate().take(j + 1) {
                            let t = dj.mul(dk, dag).mul(w, dag);
                            add(local.args[j], local.args[k], t);
                        }
                    }
                } else {
                    for (j, &dj) in local.first.iter().enumerate() {
                        let mut t = dj.mul(w, dag);
                        if local.args[j] == u {
                            // δu·δu appears from both orders of the pair (v, u).
                            t = t.add(t, dag);
                        }
                        add(local.args[j], u, t);
                    }
                }
            }
            if let Some(a) = a {
                // Creating: ā_v ∇²v.
                for &((j, k), s) in &local.second {
                    let t = a.mul(s, dag);
                    add(local.args[j], local.args[k], t);
                }
                for (j, &dj) in local.first.iter().enumerate() {
                    let t = a.mul(dj, dag);
                    let slot = &mut adjoint[local.args[j].index()];
                    *slot = Some(slot.map_or(t, |acc| acc.add(t, dag)));
                }
            }
        }
        // Only leaves remain: their adjoints are the gradient, their
        // entries the Hessian; taking them leaves the state empty again.
        let mut gradient = Vec::new();
        let mut lower = Vec::new();
        for &v in order {
            let Some(k) = leaf_index[v.index()] else { continue };
            if let Some(a) = adjoint[v.index()].take() {
                gradient.push((k, a));
            }
            for (other, t) in merge(dag, std::mem::take(&mut pending[v.index()])) {
                let col = leaf_index[other.index()].expect("only inputs remain");
                lower.push(((k.max(col), k.min(col)), t));
            }
        }
        gradient.sort_unstable_by_key(|&(k, _)| k);
        lower.sort_by_key(|&(position, _)| position);
        SecondOrder { gradient, lower, work, visited: order.len() as u64 }
    }
}

/// Sums the terms of equal keys, in the order they were added.
fn merge(dag: &mut ExprDag, mut entries: Vec<(NodeId, Term)>) -> Vec<(NodeId, Term)> {
    entries.sort_by_key(|&(u, _)| u); // stable: terms keep their order
    let mut merged: Vec<(NodeId, Term)> = Vec::with_capacity(entries.len());
    for (u, t) in entries {
        match merged.last_mut() {
            Some((last, acc)) if *last == u => *acc = acc.add(t, dag),
            _ => merged.push((u, t)),
        }
    }
    merged
}
