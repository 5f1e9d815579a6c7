//! Directional derivatives that never form the Jacobian: `J·v` by forward
//! tangent propagation, `wᵀ·J` by reverse adjoint accumulation, and the
//! Hessian-vector product `H·v` as the `J·v` of the gradient.

use crate::graph::DerivativeGraph;
use crate::jacobian::jacobian_of;
use crate::term::Term;
use frontend::{ExprDag, NodeId};

/// A derived function: `outputs` of `dag` over the inputs `0..num_inputs`.
#[derive(Clone, Debug)]
pub struct Directional {
    /// The original function's DAG, extended with the derived nodes.
    pub dag: ExprDag,
    /// The derived outputs.
    pub outputs: Vec<NodeId>,
    /// The derived function's inputs: the original ones, then the direction.
    pub num_inputs: usize,
}

impl Directional {
    /// The outputs at `x` (the original inputs followed by the direction).
    pub fn eval(&self, x: &[f64]) -> Vec<f64> {
        frontend::eval(&self.dag, &self.outputs, x)
    }

    /// Operations the derived outputs need.
    pub fn ops(&self) -> usize {
        self.dag.count_ops(&self.outputs)
    }
}

/// `J·v` for the Jacobian `J` of `outputs` with respect to the inputs
/// `0..n`: a function of `(x, v)` with `v` the inputs `n..2n`, one output per
/// function output.
pub fn jvp(dag: ExprDag, outputs: &[NodeId], num_inputs: usize) -> Directional {
    let mut dag = dag;
    let graph = DerivativeGraph::new(&mut dag, outputs, num_inputs);
    let seeds: Vec<(usize, Term)> = (0..num_inputs)
        .map(|k| {
            let direction = dag.input(num_inputs + k);
            (k, Term { node: direction, negated: false })
        })
        .collect();
    let tangents = tangents(&mut dag, &graph, &seeds);
    let outputs = outputs.iter().map(|&r| materialize(&mut dag, tangents[r.index()])).collect();
    Directional { dag, outputs, num_inputs: 2 * num_inputs }
}

/// `wᵀ·J` for the Jacobian `J` of `outputs` with respect to the inputs
/// `0..n`: a function of `(x, w)` with `w` the inputs `n..n+m`, one output
/// per function input.
pub fn vjp(dag: ExprDag, outputs: &[NodeId], num_inputs: usize) -> Directional {
    let mut dag = dag;
    let graph = DerivativeGraph::new(&mut dag, outputs, num_inputs);
    let seeds: Vec<(usize, Term)> = (0..outputs.len())
        .map(|i| {
            let weight = dag.input(num_inputs + i);
            (i, Term { node: weight, negated: false })
        })
        .collect();
    let adjoints = adjoints(&mut dag, &graph, &seeds);
    let gradient = (0..num_inputs)
        .map(|k| {
            let adjoint = graph.leaf(k).and_then(|leaf| adjoints[leaf.index()]);
            materialize(&mut dag, adjoint)
        })
        .collect();
    Directional { dag, outputs: gradient, num_inputs: num_inputs + outputs.len() }
}

/// `H·v` for the Hessian `H` of the scalar `output`: a function of `(x, v)`
/// with `v` the inputs `n..2n`, one output per input.
pub fn hvp(dag: ExprDag, output: NodeId, num_inputs: usize) -> Directional {
    let gradient = jacobian_of(dag, &[output], num_inputs);
    let mut dag = gradient.dag.clone();
    let dense: Vec<NodeId> =
        (0..num_inputs).map(|k| gradient.get(0, k).unwrap_or_else(|| dag.constant(0.0))).collect();
    jvp(dag, &dense, num_inputs)
}

/// Forward sweep: the tangent of every graph node for the given leaf seeds
/// `(input index, tangent)`; `None` is a structural zero.
pub(crate) fn tangents(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    seeds: &[(usize, Term)],
) -> Vec<Option<Term>> {
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
pub(crate) fn adjoints(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    seeds: &[(usize, Term)],
) -> Vec<Option<Term>> {
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
fn materialize(dag: &mut ExprDag, term: Option<Term>) -> NodeId {
    match term {
        Some(t) => t.materialize(dag),
        None => dag.constant(0.0),
    }
}
