//! Directional derivatives that never form the Jacobian: `J·v` by forward
//! tangent propagation, `wᵀ·J` by reverse adjoint accumulation, and the
//! Hessian-vector product `H·v` as the `J·v` of the gradient.

use crate::jacobian::jacobian_of;
use derivative::propagate::{adjoints, materialize, tangents};
use derivative::{DerivativeGraph, Term};
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
