//! Hessians of scalar outputs: the Jacobian of the gradient, each symmetric
//! entry built once.

use crate::jacobian::{jacobian, jacobian_where};
use derivative::Entry;
use frontend::{Block, ExprDag, Kernel, Layout, NodeId, SparsityPattern};

/// The Hessian of one scalar output with respect to the inputs, with the
/// function and its gradient, all in one kernel.
#[derive(Clone, Debug)]
pub struct Hessian {
    /// Roots: the function, the nonzero gradient entries, then the lower
    /// triangle's nonzero entries in CSR order.
    kernel: Kernel,
    /// The gradient's pattern, one row.
    gradient: SparsityPattern,
    /// The lower triangle's pattern (`row >= col`).
    lower: SparsityPattern,
}

/// The Hessian of output `output` of `function` with respect to its inputs.
/// Applying [`jacobian`] to the gradient again gives derivatives of any
/// order. Panics if `output` is not an output of `function`.
pub fn hessian(function: Kernel, output: usize) -> Hessian {
    let n = function.num_inputs();
    let f = function.roots()[output];
    let scalar = function.with_roots(vec![f]).expect("an output of a valid kernel");
    let first = jacobian(scalar);
    let gradient = first.pattern().clone();
    let columns: Vec<usize> = gradient.cols.clone();
    let gradient_nodes = first.entry_nodes().to_vec();
    // Row i of the second Jacobian is ∂/∂x of gradient entry columns[i]:
    // only the entries on or below the diagonal are built.
    let second_function =
        first.into_kernel().with_roots(gradient_nodes.clone()).expect("gradient of a kernel");
    let second = jacobian_where(second_function, &|row, col| col <= columns[row]);
    let mut entries: Vec<Entry> =
        second.entries().map(|e| Entry { row: columns[e.row], col: e.col, node: e.node }).collect();
    entries.sort_by_key(|e| (e.row, e.col));
    let lower = SparsityPattern::new(n, n, entries.iter().map(|e| (e.row, e.col)));
    let roots = std::iter::once(f).chain(gradient_nodes).chain(entries.iter().map(|e| e.node)).collect();
    let kernel = second.into_kernel().with_roots(roots).expect("derivatives of a kernel");
    Hessian { kernel, gradient, lower }
}

impl Hessian {
    /// The kernel: function, gradient entries, lower-triangle entries.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The kernel's output layout: the value, the sparse gradient, the lower
    /// triangle of the Hessian.
    pub fn layout(&self) -> Layout {
        Layout::new(vec![
            Block::Values(1),
            Block::Sparse(self.gradient.clone()),
            Block::Lower(self.lower.clone()),
        ])
    }

    /// The DAG holding function, gradient and Hessian.
    pub fn dag(&self) -> &ExprDag {
        self.kernel.dag()
    }

    /// The function node.
    pub fn function(&self) -> NodeId {
        self.kernel.roots()[0]
    }

    /// The nonzero gradient entries `(col, node)`, columns ascending.
    pub fn gradient(&self) -> impl Iterator<Item = (usize, NodeId)> + '_ {
        self.gradient.cols.iter().copied().zip(self.kernel.roots()[1..].iter().copied())
    }

    /// The nonzero entries on or below the diagonal (`row >= col`), in CSR
    /// order; `(col, row)` holds the same value.
    pub fn lower_entries(&self) -> impl Iterator<Item = Entry> + '_ {
        let nodes = &self.kernel.roots()[1 + self.gradient.nnz()..];
        self.lower.positions().zip(nodes).map(|((row, col), &node)| Entry { row, col, node })
    }

    /// The lower triangle's pattern.
    pub fn lower_pattern(&self) -> &SparsityPattern {
        &self.lower
    }

    /// Number of structurally nonzero entries of the full symmetric matrix.
    pub fn nnz(&self) -> usize {
        self.lower.positions().map(|(row, col)| if row == col { 1 } else { 2 }).sum()
    }

    /// Operations to compute function, gradient and Hessian together.
    pub fn ops(&self) -> usize {
        self.kernel.count_ops()
    }

    /// The function value, the dense gradient and the dense Hessian at `x`.
    pub fn eval(&self, x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
        let out = self.kernel.eval(x);
        let layout = self.layout();
        let parts = layout.split(&out);
        let blocks = layout.blocks();
        let gradient = blocks[1].to_dense(parts[1]).swap_remove(0);
        (parts[0][0], gradient, blocks[2].to_dense(parts[2]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    #[test]
    fn hessian_of_product_with_sine() {
        // f = x*y + sin(x): H = [[-sin x, 1], [1, 0]].
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let xy = dag.mul(x, y);
        let s = dag.apply(Op::Sin, &[x]);
        let f = dag.add(xy, s);
        let h = hessian(Kernel::new(dag, vec![f], 2).unwrap(), 0);
        let (value, gradient, dense) = h.eval(&[0.5, 2.0]);
        assert_eq!(value, 1.0 + 0.5f64.sin());
        assert_eq!(gradient, vec![2.0 + 0.5f64.cos(), 0.5]);
        assert_eq!(dense, vec![vec![-(0.5f64.sin()), 1.0], vec![1.0, 0.0]]);
        assert_eq!(h.nnz(), 3, "H[1][1] is a structural zero");
    }
}
