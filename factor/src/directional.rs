//! Directional derivatives that never form the Jacobian: `J·v` by forward
//! tangent propagation, `wᵀ·J` by reverse adjoint accumulation, and the
//! Hessian-vector product `H·v` as the `J·v` of the gradient. Each is a
//! [`Kernel`] whose extra inputs are the direction.

use crate::jacobian::jacobian;
use derivative::propagate::{adjoints, materialize, tangents};
use derivative::{DerivativeGraph, Term};
use frontend::{Kernel, NodeId};

/// `J·v` for the Jacobian `J` of `function`: a kernel of `(x, v)` with `v`
/// the inputs `n..2n`, one output per function output.
pub fn jvp(function: Kernel) -> Kernel {
    let n = function.num_inputs();
    let mut kernel = function;
    let graph = DerivativeGraph::new(&mut kernel);
    let (mut dag, outputs) = kernel.into_parts();
    let seeds: Vec<(usize, Term)> =
        (0..n).map(|k| (k, Term { node: dag.input(n + k), negated: false })).collect();
    let tangents = tangents(&mut dag, &graph, &seeds);
    let products = outputs.iter().map(|&r| materialize(&mut dag, tangents[r.index()])).collect();
    Kernel::new(dag, products, 2 * n).expect("tangents read x and v only")
}

/// `wᵀ·J` for the Jacobian `J` of `function`: a kernel of `(x, w)` with `w`
/// the inputs `n..n+m`, one output per function input.
pub fn vjp(function: Kernel) -> Kernel {
    let (n, m) = (function.num_inputs(), function.num_outputs());
    let mut kernel = function;
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.into_parts().0;
    let seeds: Vec<(usize, Term)> =
        (0..m).map(|i| (i, Term { node: dag.input(n + i), negated: false })).collect();
    let adjoints = adjoints(&mut dag, &graph, &seeds);
    let gradient = (0..n)
        .map(|k| {
            let adjoint = graph.leaf(k).and_then(|leaf| adjoints[leaf.index()]);
            materialize(&mut dag, adjoint)
        })
        .collect();
    Kernel::new(dag, gradient, n + m).expect("adjoints read x and w only")
}

/// `H·v` for the Hessian `H` of output `output` of `function`: a kernel of
/// `(x, v)` with `v` the inputs `n..2n`, one output per input. Panics if
/// `output` is not an output of `function`.
pub fn hvp(function: Kernel, output: usize) -> Kernel {
    let n = function.num_inputs();
    let f = function.roots()[output];
    let gradient = jacobian(function.with_roots(vec![f]).expect("an output of a valid kernel"));
    let dense: Vec<Option<NodeId>> = (0..n).map(|k| gradient.get(0, k)).collect();
    let mut kernel = gradient.into_kernel();
    let zero = kernel.dag_mut().constant(0.0);
    let dense = dense.into_iter().map(|g| g.unwrap_or(zero)).collect();
    jvp(kernel.with_roots(dense).expect("the gradient of a valid kernel"))
}
