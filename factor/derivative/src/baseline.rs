//! Operation counts of plain forward-mode and reverse-mode accumulation, the
//! baselines `dstar stats` compares D* against.
//!
//! Each baseline is built for real, symbolically, in a copy of the DAG and
//! counted like the D* program: with the same local partials, the same
//! hash-consing, sign folding and unit-constant folding, so the comparison is
//! between accumulation strategies and nothing else. Each sweep visits only
//! its cone (the nodes that reach its input, or that its output reaches), so
//! a baseline costs the sum of its cones, and `work_limit` bounds that sum.

use crate::graph::{DerivativeGraph, Marks};
use crate::propagate::{sweep_forward, sweep_reverse};
use crate::term::Term;
use frontend::{ExprDag, Kernel, NodeId};

/// Operations of the function plus `n` forward (tangent) sweeps, one seeded
/// at each input; `None` if the sweeps' cones hold more than `work_limit`
/// nodes in all.
pub fn forward_mode_ops(function: &Kernel, work_limit: usize) -> Option<usize> {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.into_parts().0;
    let mut roots = function.roots().to_vec();
    let mut tangent = vec![None; graph.node_bound()];
    let mut marks = Marks::new(graph.node_bound());
    let mut work = 0;
    for k in 0..function.num_variables() {
        let Some(leaf) = graph.leaf(k) else { continue };
        let one = Term::one(&mut dag);
        let cone = sweep_forward(&mut dag, &graph, &[(leaf, one)], &mut tangent, &mut marks);
        work += cone.len();
        if work > work_limit {
            return None;
        }
        collect(&mut dag, function.roots(), &mut tangent, &cone, &mut roots);
    }
    Some(dag.count_ops(&roots))
}

/// Operations of the function plus `m` reverse (adjoint) sweeps, one seeded
/// at each output; `None` if the sweeps' cones hold more than `work_limit`
/// nodes in all.
pub fn reverse_mode_ops(function: &Kernel, work_limit: usize) -> Option<usize> {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.into_parts().0;
    let leaves: Vec<NodeId> = (0..function.num_variables()).filter_map(|k| graph.leaf(k)).collect();
    let mut roots = function.roots().to_vec();
    let mut adjoint = vec![None; graph.node_bound()];
    let mut marks = Marks::new(graph.node_bound());
    let mut work = 0;
    for &root in function.roots() {
        if !graph.contains(root) {
            continue;
        }
        let one = Term::one(&mut dag);
        let cone = sweep_reverse(&mut dag, &graph, &[(root, one)], &mut adjoint, &mut marks);
        work += cone.len();
        if work > work_limit {
            return None;
        }
        collect(&mut dag, &leaves, &mut adjoint, &cone, &mut roots);
    }
    Some(dag.count_ops(&roots))
}

/// Materializes the terms of `ends` that a sweep set, then clears the
/// sweep's `cone` for the next one.
fn collect(
    dag: &mut ExprDag,
    ends: &[NodeId],
    terms: &mut [Option<Term>],
    cone: &[NodeId],
    roots: &mut Vec<NodeId>,
) {
    for end in ends {
        if let Some(t) = terms[end.index()] {
            roots.push(t.materialize(dag));
        }
    }
    for v in cone {
        terms[v.index()] = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::{ExprDag, Op};

    #[test]
    fn chain_costs_match_hand_counts() {
        // f = sin(exp(x)): function 2 ops; both modes add cos(exp x)*exp x.
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let e = dag.apply(Op::Exp, &[x]);
        let f = dag.apply(Op::Sin, &[e]);
        let kernel = Kernel::new(dag, vec![f], 1).unwrap();
        assert_eq!(forward_mode_ops(&kernel, usize::MAX), Some(4));
        assert_eq!(reverse_mode_ops(&kernel, usize::MAX), Some(4));
        assert_eq!(forward_mode_ops(&kernel, 2), None, "three nodes in the cone");
    }
}
