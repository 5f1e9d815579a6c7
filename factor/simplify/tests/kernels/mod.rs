//! The kernels the simplifier's tests rewrite: a function with its D*
//! Jacobian entries, as the plan hands them over.

use derivative::{factorize, DerivativeGraph, Strategy};
use frontend::Kernel;
use testkit::{generate, Case, Rng, Shape};

/// The function and its D* Jacobian entries, as one kernel.
pub fn dstar_kernel(mut function: Kernel) -> Kernel {
    let graph = DerivativeGraph::new(&mut function);
    let entries = factorize(function.dag_mut(), &graph, Strategy::ALL[0], &|_, _| true);
    let roots = function.roots().iter().copied().chain(entries.iter().map(|e| e.node)).collect();
    function.with_roots(roots).expect("entries are nodes of the same DAG")
}

/// A random program of about `ops` operations over 1 to `max_inputs`
/// inputs, in the simplifier's mix ([`Shape::algebra`]).
pub fn random_case(rng: &mut Rng, max_inputs: usize, ops: usize) -> Case {
    let shape = Shape::algebra(1 + rng.below(max_inputs), 1 + rng.below(4), ops);
    generate(rng, &shape)
}
