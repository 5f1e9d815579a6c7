//! Operation counts of plain forward-mode and reverse-mode accumulation, the
//! baselines `dstar stats` compares D* against.
//!
//! Each baseline is built for real, symbolically, in a copy of the DAG and
//! counted like the D* program: with the same local partials, the same
//! hash-consing, sign folding and unit-constant folding, so the comparison is
//! between accumulation strategies and nothing else.

use crate::graph::DerivativeGraph;
use crate::propagate::{adjoints, tangents};
use crate::term::Term;
use frontend::Kernel;

/// Operations of the function plus `n` forward (tangent) sweeps, one seeded
/// at each input.
pub fn forward_mode_ops(function: &Kernel) -> usize {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (outputs, num_inputs) = (function.roots(), function.num_inputs());
    let mut dag = kernel.into_parts().0;
    let mut roots = outputs.to_vec();
    for k in 0..num_inputs {
        let one = Term::one(&mut dag);
        let tangent = tangents(&mut dag, &graph, &[(k, one)]);
        for r in outputs {
            if let Some(t) = tangent[r.index()] {
                roots.push(t.materialize(&mut dag));
            }
        }
    }
    dag.count_ops(&roots)
}

/// Operations of the function plus `m` reverse (adjoint) sweeps, one seeded
/// at each output.
pub fn reverse_mode_ops(function: &Kernel) -> usize {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (outputs, num_inputs) = (function.roots(), function.num_inputs());
    let mut dag = kernel.into_parts().0;
    let mut roots = outputs.to_vec();
    for i in 0..outputs.len() {
        let one = Term::one(&mut dag);
        let adjoint = adjoints(&mut dag, &graph, &[(i, one)]);
        for k in 0..num_inputs {
            if let Some(a) = graph.leaf(k).and_then(|leaf| adjoint[leaf.index()]) {
                roots.push(a.materialize(&mut dag));
            }
        }
    }
    dag.count_ops(&roots)
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
        assert_eq!(forward_mode_ops(&kernel), 4);
        assert_eq!(reverse_mode_ops(&kernel), 4);
    }
}
