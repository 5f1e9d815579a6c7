//! Each output's own Hessian, in one kernel: output `i`'s lower triangle
//! built from output `i` alone. The Lagrangian kernel with weight 1 on one
//! output and 0 on the others is not that: a zero weight times an infinite
//! second derivative of another output is NaN (`out x^2; out sqrt(x)` at
//! `x = 0` gave `[[nan]]` for `x^2`). Here no output's Hessian reads another
//! output's derivatives, whatever they are.

use derivative::{DerivativeGraph, EdgePushing, Term};
use frontend::{Block, Kernel, NodeId, SparsityPattern};

/// The Hessians of a function's outputs, each on its own: a kernel of `(x, p)`
/// whose outputs are output 0's lower-triangle nonzeros in CSR order, then
/// output 1's, and so on ([`OutputHessians::split`]).
#[derive(Clone, Debug)]
pub struct OutputHessians {
    kernel: Kernel,
    num_variables: usize,
    /// Every output's `(row, col)` positions, one after another.
    positions: Vec<(usize, usize)>,
    /// Output `i`'s positions are `positions[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    /// Nodes the sweeps went over plus the entries they pushed.
    work: u64,
}

/// Each output's Hessian of `function` by edge pushing from that output
/// alone, over one derivative graph and one DAG (shared work is built once,
/// as hash-consing merges it). An output's sweep visits its cone only, so
/// building all of them costs the sum of the outputs' cones and entries:
/// linear in the function where the cones are local (multiple shooting,
/// data fits), however many outputs.
pub fn output_hessians(function: Kernel) -> OutputHessians {
    let m = function.num_outputs();
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let (mut dag, _) = kernel.into_parts();
    let one = Term::one(&mut dag);
    let mut sweeps = EdgePushing::new(&graph);
    let mut roots: Vec<NodeId> = Vec::new();
    let mut positions = Vec::new();
    let mut starts = Vec::with_capacity(m + 1);
    let mut work = 0;
    for i in 0..m {
        starts.push(positions.len());
        let second = sweeps.root(&mut dag, i, one);
        work += second.visited + second.work;
        positions.extend(second.lower.iter().map(|&(position, _)| position));
        roots.extend(second.lower.iter().map(|&(_, t)| t.materialize(&mut dag)));
    }
    starts.push(positions.len());
    let num_variables = function.num_variables();
    let kernel = function.derived(dag, roots, 0).expect("second derivatives read x and p only");
    OutputHessians { kernel, num_variables, positions, starts, work }
}

impl OutputHessians {
    /// The kernel: every output's lower triangle, one after another.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The nodes the sweeps went over plus the entries they pushed: the
    /// build's work, counted.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Every output's nonzeros.
    pub fn nnz(&self) -> usize {
        self.positions.len()
    }

    /// Output `i`'s lower-triangle positions `(row, col)`, `row >= col`,
    /// in CSR order.
    pub fn positions(&self, i: usize) -> &[(usize, usize)] {
        &self.positions[self.starts[i]..self.starts[i + 1]]
    }

    /// Output `i`'s lower-triangle pattern (`n × n`), built on each call:
    /// `n + 1` row offsets, which for every output of a large function
    /// would be `outputs × inputs` words.
    pub fn pattern(&self, i: usize) -> SparsityPattern {
        let n = self.num_variables;
        SparsityPattern::new(n, n, self.positions(i).iter().copied())
    }

    /// The kernel's output `out` split per output: output `i`'s values
    /// at [`OutputHessians::positions`]`(i)`.
    pub fn split<'a>(&self, out: &'a [f64]) -> Vec<&'a [f64]> {
        self.starts.windows(2).map(|w| &out[w[0]..w[1]]).collect()
    }

    /// Output `i`'s lower triangle, dense, from its values.
    pub fn to_dense(&self, i: usize, values: &[f64]) -> Vec<Vec<f64>> {
        Block::Lower(self.pattern(i)).to_dense(values)
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
        let parts = hessians.split(&out);
        assert_eq!(hessians.to_dense(0, parts[0]), vec![vec![2.0, 1.0], vec![1.0, 0.0]]);
        assert_eq!(hessians.to_dense(1, parts[1])[0][0], f64::NEG_INFINITY);
        assert!(parts[2].is_empty(), "a linear output has no nonzero");
    }
}
