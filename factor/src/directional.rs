//! Directional derivatives that never form the Jacobian, for a batch of `k`
//! directions at once: `J·v` by forward tangent sweeps, `wᵀ·J` by reverse
//! adjoint sweeps, and the Hessian-vector product `H·v` of the Lagrangian
//! as tangent sweeps over its gradient (forward over reverse). Each is a
//! [`Kernel`] whose extra inputs are the directions.

use derivative::propagate::{adjoints, materialize, tangents};
use derivative::{DerivativeGraph, Term};
use frontend::{Kernel, NodeId};

/// `J·v_1, ..., J·v_k` for the Jacobian `J` of `function` (with respect to
/// its `n` variables): a kernel of its inputs `(x, p)` (`N` in all) and
/// `(v_1, ..., v_k)` (direction `d` is inputs `N + d·n ..`) with `k·m`
/// outputs, direction by direction.
pub fn jvp(function: Kernel, k: usize) -> Kernel {
    let (n, total, m) = (function.num_variables(), function.num_inputs(), function.num_outputs());
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (mut dag, outputs) = kernel.into_parts();
    let mut products = Vec::with_capacity(k * m);
    for d in 0..k {
        let seeds: Vec<(usize, Term)> =
            (0..n).map(|j| (j, Term { node: dag.input(total + d * n + j), negated: false })).collect();
        let tangent = tangents(&mut dag, &graph, &seeds);
        products.extend(outputs.iter().map(|&r| materialize(&mut dag, tangent[r.index()])));
    }
    function.derived(dag, products, k * n).expect("tangents read x, p and the directions only")
}

/// `w_1ᵀJ, ..., w_kᵀJ` for the Jacobian `J` of `function`: a kernel of its
/// inputs `(x, p)` (`N` in all) and `(w_1, ..., w_k)` (weights `d` are
/// inputs `N + d·m ..`) with `k·n` outputs. With `m = 1` and `w = 1` this
/// is the gradient, by reverse accumulation.
pub fn vjp(function: Kernel, k: usize) -> Kernel {
    let (n, total, m) = (function.num_variables(), function.num_inputs(), function.num_outputs());
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.into_parts().0;
    let mut products = Vec::with_capacity(k * n);
    for d in 0..k {
        let seeds: Vec<(usize, Term)> =
            (0..m).map(|i| (i, Term { node: dag.input(total + d * m + i), negated: false })).collect();
        let adjoint = adjoints(&mut dag, &graph, &seeds);
        products.extend((0..n).map(|j| {
            let term = graph.leaf(j).and_then(|leaf| adjoint[leaf.index()]);
            materialize(&mut dag, term)
        }));
    }
    function.derived(dag, products, k * m).expect("adjoints read x, p and the weights only")
}

/// The function's values and its gradient (`m = 1`; for more outputs, the
/// gradient of their sum) by one reverse sweep: a kernel of `x` with `1 +
/// n` outputs. What the cheap gradient principle bounds.
pub fn gradient(function: Kernel) -> Kernel {
    let n = function.num_variables();
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (mut dag, outputs) = kernel.into_parts();
    let seeds: Vec<(usize, Term)> = (0..outputs.len()).map(|i| (i, Term::one(&mut dag))).collect();
    let adjoint = adjoints(&mut dag, &graph, &seeds);
    let mut roots = outputs;
    roots.extend((0..n).map(|j| {
        let term = graph.leaf(j).and_then(|leaf| adjoint[leaf.index()]);
        materialize(&mut dag, term)
    }));
    function.derived(dag, roots, 0).expect("the gradient reads x and p only")
}

/// `H·v_1, ..., H·v_k` for the Hessian `H` of the Lagrangian `Σ_i w_i f_i`
/// of `function`: a kernel of its inputs `(x, p)` (`N` in all) and `(w,
/// v_1, ..., v_k)` (weights are inputs `N..N+m`, direction `d` is inputs
/// `N + m + d·n ..`) with `k·n` outputs, by tangent sweeps over the gradient
/// (forward over reverse).
pub fn hvp(function: Kernel, k: usize) -> Kernel {
    let (n, total, m) = (function.num_variables(), function.num_inputs(), function.num_outputs());
    let (mut dag, roots) = function.clone().into_parts();
    let seeds: Vec<(usize, Term)> =
        (0..m).map(|i| (i, Term { node: dag.input(total + i), negated: false })).collect();
    let mut kernel = function.derived(dag, roots, m).expect("the weights are the extra inputs");
    let graph = DerivativeGraph::with_respect_to(&mut kernel, n);
    let mut dag = kernel.into_parts().0;
    let adjoint = adjoints(&mut dag, &graph, &seeds);
    let gradient: Vec<NodeId> = (0..n)
        .map(|j| {
            let term = graph.leaf(j).and_then(|leaf| adjoint[leaf.index()]);
            materialize(&mut dag, term)
        })
        .collect();
    let mut over_gradient = function.derived(dag, gradient, m).expect("the gradient reads x, p and w");
    let graph = DerivativeGraph::with_respect_to(&mut over_gradient, n);
    let (mut dag, gradient) = over_gradient.into_parts();
    let mut products = Vec::with_capacity(k * n);
    for d in 0..k {
        let seeds: Vec<(usize, Term)> =
            (0..n).map(|j| (j, Term { node: dag.input(total + m + d * n + j), negated: false })).collect();
        let tangent = tangents(&mut dag, &graph, &seeds);
        products.extend(gradient.iter().map(|&g| materialize(&mut dag, tangent[g.index()])));
    }
    function.derived(dag, products, m + k * n).expect("tangents read x, p, w and the directions only")
}
