//! Local second derivatives: the second partials of one node with respect
//! to its distinct arguments, found by differentiating its first partials
//! ([`crate::partials::partials`]: the first-order rules of [`crate::rules`]) once more, over
//! the few nodes the rules built for them.

use crate::graph::DerivativeGraph;
use crate::partials::partials;
use crate::term::Term;
use frontend::{ExprDag, NodeId};
use rustc_hash::FxHashMap;

/// The first and second partials of one node `v` with respect to its
/// distinct arguments on paths (`x*x` has one argument, `x`, with
/// `∂v/∂x = 2x` and `∂²v/∂x² = 2`).
#[derive(Clone, Debug, Default)]
pub struct LocalDerivatives {
    /// The distinct arguments of `v` that lie on paths, ascending.
    pub args: Vec<NodeId>,
    /// `∂v/∂args[j]`: the sum of the labels of `v`'s edges to that argument.
    pub first: Vec<Term>,
    /// `((j, k), ∂²v/∂args[j]∂args[k])` for `j <= k`, structural zeros left out.
    pub second: Vec<((usize, usize), Term)>,
}

/// The local derivatives of node `v` of `graph` (whose partials live in `dag`).
pub fn local_derivatives(dag: &mut ExprDag, graph: &DerivativeGraph, v: NodeId) -> LocalDerivatives {
    let mut args: Vec<NodeId> = graph.children(v).iter().map(|e| e.child).collect();
    args.sort_unstable();
    args.dedup();
    let slot_of = |node: NodeId| args.binary_search(&node).ok();
    let mut first: Vec<Option<Term>> = vec![None; args.len()];
    for e in graph.children(v) {
        let j = slot_of(e.child).expect("listed above");
        let label = Term::of(dag, e.label);
        first[j] = Some(first[j].map_or(label, |acc| acc.add(label, dag)));
    }
    let first: Vec<Term> = first.into_iter().map(|t| t.expect("every argument has an edge")).collect();
    let mut second = Vec::new();
    if !is_linear(dag, v) {
        // The labels are built from v's arguments, v itself and constants:
        // differentiate them over that little DAG, one argument at a time.
        let labels: Vec<(usize, NodeId)> =
            graph.children(v).iter().map(|e| (slot_of(e.child).unwrap_or(0), e.label)).collect();
        let stops: Vec<NodeId> = dag.args(v).iter().copied().chain([v]).collect();
        let local = local_nodes(dag, labels.iter().map(|&(_, l)| l), &stops);
        for k in 0..args.len() {
            let mut tangent: FxHashMap<NodeId, Term> = FxHashMap::default();
            tangent.insert(args[k], Term::one(dag));
            tangent.insert(v, first[k]);
            for &u in &local {
                let p = partials(dag, u);
                let mut total: Option<Term> = None;
                for (slot, label) in p.iter().enumerate() {
                    let (Some(label), Some(&child)) = (label, dag.args(u).get(slot)) else { continue };
                    if let Some(&t) = tangent.get(&child) {
                        let term = Term::of(dag, *label).mul(t, dag);
                        total = Some(total.map_or(term, |acc| acc.add(term, dag)));
                    }
                }
                if let Some(total) = total {
                    tangent.insert(u, total);
                }
            }
            // ∂²v/∂j∂k = ∂(first[j])/∂k, summed over j's edges; j <= k only.
            let mut column: Vec<Option<Term>> = vec![None; args.len()];
            for &(j, label) in &labels {
                if j > k {
                    continue;
                }
                // A label that is an argument itself (`b` for `a*b`) is seeded
                // like every argument; constants have no tangent.
                let d = tangent.get(&label).copied();
                if let Some(d) = d {
                    column[j] = Some(column[j].map_or(d, |acc| acc.add(d, dag)));
                }
            }
            for (j, term) in column.into_iter().enumerate() {
                if let Some(term) = term.filter(|t| dag.as_const(t.node) != Some(0.0)) {
                    second.push(((j, k), term));
                }
            }
        }
    }
    LocalDerivatives { args, first, second }
}

/// Whether `v`'s partials are constants, so it has no second derivatives.
fn is_linear(dag: &ExprDag, v: NodeId) -> bool {
    use frontend::Op;
    matches!(dag.op(v), Op::Neg | Op::Add | Op::Sub | Op::Sign | Op::Floor | Op::Ceil)
}

/// The nodes the labels are built of, above the `stops` (v's arguments and
/// v itself), ascending: the order in which their tangents can be computed.
fn local_nodes(dag: &ExprDag, labels: impl Iterator<Item = NodeId>, stops: &[NodeId]) -> Vec<NodeId> {
    let mut seen: Vec<NodeId> = Vec::new();
    let mut stack: Vec<NodeId> = labels.collect();
    while let Some(u) = stack.pop() {
        if stops.contains(&u) || dag.op(u).is_leaf() || seen.contains(&u) {
            continue;
        }
        seen.push(u);
        stack.extend_from_slice(dag.args(u));
    }
    seen.sort_unstable();
    seen
}
