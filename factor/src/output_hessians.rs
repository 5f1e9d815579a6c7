//! Each output's own Hessian, in one kernel: output `i`'s lower triangle
//! built from output `i` alone. The Lagrangian kernel with weight 1 on one
//! output and 0 on the others is not that: a zero weight times an infinite
//! second derivative of another output is NaN (`out x^2; out sqrt(x)` at
//! `x = 0` gave `[[nan]]` for `x^2`). Here no output's Hessian reads another
//! output's derivatives, whatever they are.

use derivative::{edge_pushing, DerivativeGraph, Term};
use frontend::{Block, Kernel, Layout, NodeId, SparsityPattern};

/// The Hessians of a function's outputs, each on its own: a kernel of `(x, p)`
/// whose outputs are output 0's lower-triangle nonzeros in CSR order, then
/// output 1's, and so on ([`OutputHessians::layout`]).
#[derive(Clone, Debug)]
pub struct OutputHessians {
    kernel: Kernel,
    patterns: Vec<SparsityPattern>,
}

/// Each output's Hessian of `function` by edge pushing from that output
/// alone, over one derivative graph and one DAG (shared work is built once,
/// as hash-consing merges it). The sweep for an output skips every node
/// outside its cone at the cost of a test, so building all of them is the
/// sum of the outputs' cones plus `outputs × nodes` tests.
pub fn output_hessians(function: Kernel) -> OutputHessians {
    let n = function.num_variables();
    let m = function.num_outputs();
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (mut dag, _) = kernel.into_parts();
    let one = Term::one(&mut dag);
    let mut roots: Vec<NodeId> = Vec::new();
    let mut patterns = Vec::with_capacity(m);
    for i in 0..m {
        let second = edge_pushing(&mut dag, &graph, &[(i, one)]);
        patterns.push(SparsityPattern::new(n, n, second.lower.iter().map(|&(position, _)| position)));
        roots.extend(second.lower.iter().map(|&(_, t)| t.materialize(&mut dag)));
    }
    let kernel = function.derived(dag, roots, 0).expect("second derivatives read x and p only");
    OutputHessians { kernel, patterns }
}

impl OutputHessians {
    /// The kernel: every output's lower triangle, one after another.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// Output `i`'s lower-triangle pattern (`n × n`, `row >= col`).
    pub fn pattern(&self, i: usize) -> &SparsityPattern {
        &self.patterns[i]
    }

    /// The kernel's output layout: one [`Block::Lower`] per output.
    pub fn layout(&self) -> Layout {
        Layout::new(self.patterns.iter().cloned().map(Block::Lower).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_takes_nothing_from_another() {
        // sqrt''(0) is infinite: 0 times it would be NaN in a weighted sum.
        let program = frontend::parse_program("in x, y\nout x^2 + x*y\nout sqrt(x)\nout y").unwrap();
        let hessians = output_hessians(program.kernel().unwrap());
        let out = hessians.kernel().eval(&[0.0, 3.0]);
        let layout = hessians.layout();
        let parts = layout.split(&out);
        assert_eq!(layout.blocks()[0].to_dense(parts[0]), vec![vec![2.0, 1.0], vec![1.0, 0.0]]);
        assert_eq!(layout.blocks()[1].to_dense(parts[1])[0][0], f64::NEG_INFINITY);
        assert!(parts[2].is_empty(), "a linear output has no nonzero");
    }
}
